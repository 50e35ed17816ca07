/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/stub.c — the fleet library when cuzk is built without libpq:
 * every call fails with -ENOSYS and says why, so `cuzkd --fleet` refuses
 * with a message naming what is missing instead of the build failing.  The
 * design statement is in engine/fleet/fleet.c.
 */
#include "engine/fleet/fleet.h"

#ifndef CZ_HAVE_LIBPQ

#include <errno.h>
#include <stdio.h>

#define NOPQ "fleet: --fleet needs libpq: this cuzk was built without it (install libpq-dev and rebuild)"

int cz_fleet_open(const struct cz_fleet_opts *opts, struct cz_fleet **out, char *err, size_t errlen)
{
	(void)opts;
	*out = NULL;
	snprintf(err, errlen, "%s", NOPQ);
	return -ENOSYS;
}
void cz_fleet_close(struct cz_fleet *f) { (void)f; }
const char *cz_fleet_notify_off(struct cz_fleet *f) { (void)f; return NOPQ; }
const char *cz_fleet_error(struct cz_fleet *f) { (void)f; return NOPQ; }
void cz_fleet_stats_get(struct cz_fleet *f, struct cz_fleet_stats *st) { (void)f; *st = (struct cz_fleet_stats){ 0 }; }
int cz_fleet_backend_pid(struct cz_fleet *f) { (void)f; return 0; }
int cz_fleet_schema_version(struct cz_fleet *f) { (void)f; return -ENOSYS; }
int cz_fleet_node_register(struct cz_fleet *f, const struct cz_fleet_node_info *i, int64_t *id) { (void)f; (void)i; (void)id; return -ENOSYS; }
int cz_fleet_nodes(struct cz_fleet *f, int live_ms, struct cz_fleet_node_row *out, uint32_t max) { (void)f; (void)live_ms; (void)out; (void)max; return -ENOSYS; }
int cz_fleet_queue_get(struct cz_fleet *f, struct cz_fleet_queue *q) { (void)f; (void)q; return -ENOSYS; }
int cz_fleet_submit(struct cz_fleet *f, const struct cz_fleet_job_spec *s, uint64_t *seq) { (void)f; (void)s; (void)seq; return -ENOSYS; }
int cz_fleet_claim(struct cz_fleet *f, uint32_t max, struct cz_fleet_claim *out) { (void)f; (void)max; (void)out; return -ENOSYS; }
void cz_fleet_claim_free(struct cz_fleet_claim *c) { (void)c; }
int cz_fleet_payload_load(const struct cz_fleet_claim *c, size_t max, void **buf, size_t *len) { (void)c; (void)max; (void)buf; (void)len; return -ENOSYS; }
int cz_fleet_renew(struct cz_fleet *f) { (void)f; return -ENOSYS; }
void cz_fleet_node_duty(struct cz_fleet *f, double d, const char *c) { (void)f; (void)d; (void)c; }
int cz_fleet_release(struct cz_fleet *f, const struct cz_fleet_stale *k, uint32_t n) { (void)f; (void)k; (void)n; return -ENOSYS; }
bool cz_fleet_leases_live(struct cz_fleet *f) { (void)f; return false; }
uint32_t cz_fleet_held(struct cz_fleet *f) { (void)f; return 0; }
bool cz_fleet_holds(struct cz_fleet *f, struct cz_key k) { (void)f; (void)k; return false; }
int cz_fleet_finish(struct cz_fleet *f, struct cz_key k, const void *p, size_t n) { (void)f; (void)k; (void)p; (void)n; return -ENOSYS; }
int cz_fleet_fail(struct cz_fleet *f, struct cz_key k, const char *why) { (void)f; (void)k; (void)why; return -ENOSYS; }
int cz_fleet_proof(struct cz_fleet *f, struct cz_key k, void **buf, size_t *len) { (void)f; (void)k; (void)buf; (void)len; return -ENOSYS; }
int cz_fleet_find(struct cz_fleet *f, const char *id, uint64_t *seq) { (void)f; (void)id; (void)seq; return -ENOSYS; }
int cz_fleet_status(struct cz_fleet *f, uint64_t seq, struct cz_fleet_status *st) { (void)f; (void)seq; (void)st; return -ENOSYS; }
int cz_fleet_cancel(struct cz_fleet *f, uint64_t seq, uint32_t uid, bool admin) { (void)f; (void)seq; (void)uid; (void)admin; return -ENOSYS; }
int cz_fleet_await(struct cz_fleet *f, uint64_t seq, int ms, struct cz_fleet_status *st) { (void)f; (void)seq; (void)ms; (void)st; return -ENOSYS; }
int cz_fleet_listen(struct cz_fleet *f, unsigned ch) { (void)f; (void)ch; return -ENOSYS; }
int cz_fleet_wait(struct cz_fleet *f, int fd, int ms) { (void)f; (void)fd; (void)ms; return -ENOSYS; }
int cz_fleet_listen_again(struct cz_fleet *f) { (void)f; return -ENOSYS; }
int cz_fleet_prune(struct cz_fleet *f, int64_t ms, int *nodes) { (void)f; (void)ms; (void)nodes; return -ENOSYS; }
const char *cz_fleet_job_state_name(enum cz_fleet_job_state s) { (void)s; return "?"; }

#endif /* !CZ_HAVE_LIBPQ */

/* SPDX-License-Identifier: MIT */
/*
 * engine/engine.h — the proving daemon's engine: resident keys, jobs of many
 * partitions, the ordered pipeline (dispatch → synthesis → device →
 * finalize → output).  The control socket (ctl/) and cuzkd's main are its
 * only callers; see engine/engine.c for the design.
 */
#ifndef CZ_ENGINE_H
#define CZ_ENGINE_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_ENGINE_MAX_PARTS 200   /* witnesses per job */

enum cz_prio { CZ_PRIO_CRITICAL, CZ_PRIO_HIGH, CZ_PRIO_NORMAL, CZ_PRIO_LOW };

struct cz_engine_config {
	const char *state_dir;          /* proofs go to <state_dir>/proofs/<job>/ */
	const char *backend;            /* "cpu", "null", or "cuda" (built with CUDA) */
	unsigned devices;               /* 0 = all the backend has (cpu, null: 1) */
	unsigned consumers_per_device;  /* >= 1; 2 lets one prepare while one computes */
	unsigned synth_workers;
	unsigned device_threads;        /* cpu backend: pool threads per device (0 = all CPUs) */
	uint64_t mem_budget;            /* bytes: keys + partition buffers */
	unsigned null_delay_ms;         /* null backend: device time per partition */
	unsigned null_synth_ms;         /* null backend: synthesis time per partition */
};

struct cz_engine;

struct cz_engine *cz_engine_create(const struct cz_engine_config *c, char *err, size_t cap);
/* Stops intake and wakes every waiter (awaits answer "shutting down"). */
void cz_engine_stop(struct cz_engine *e);
/* Stops, drops queued work, lets running partitions finish, joins, frees. */
void cz_engine_destroy(struct cz_engine *e);

/* Each request handler: a JSON request in, a JSON response out (never NULL);
 * fds are passed descriptors, owned by the callee afterwards.  peer (NULL
 * for an in-process caller) is the connection: a request that waits stops
 * when its client hangs up or the server stops. */
struct cz_ctl_peer;
json_object *cz_engine_request(struct cz_engine *e, json_object *req, int *fds, int nfds,
			       struct cz_ctl_peer *peer);
/* Wakes every waiting request to look at its peer again (the control
 * server's hangup hook). */
void cz_engine_wake(struct cz_engine *e);

#endif

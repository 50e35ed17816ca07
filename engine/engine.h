/* SPDX-License-Identifier: MIT */
/*
 * engine/engine.h — the proving daemon's engine: resident keys, jobs of many
 * partitions, the ordered pipeline (dispatch → synthesis → device →
 * finalize → output).  The control socket (ctl/) and cuzkd's main are its
 * only callers; see engine/engine.c for the design.
 */
#ifndef CZ_ENGINE_H
#define CZ_ENGINE_H

#include "lib/key.h"          /* enum cz_prio */

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_ENGINE_MAX_PARTS 200   /* witnesses per job */
#define CZ_ENGINE_INPUT_MAX (16u << 20)   /* bytes of one circom input (JSON), inline or passed */

/* Limits cz_engine_create enforces, and what relies on them: ring owner ids
 * (1..4095) are synthesis workers 1..1024 and consumers 2048.. (at most
 * 32 × 64 = 2048 of them), checked at compile time in engine/engine_pvt.h. */
#define CZ_ENGINE_MAX_DEVICES           32
#define CZ_ENGINE_MAX_CONSUMERS_PER_DEV 64
#define CZ_ENGINE_MAX_SYNTH_WORKERS     1024
#define CZ_ENGINE_MAX_DEVICE_THREADS    4096
#define CZ_ENGINE_MAX_FINALIZERS        16

/* Start from cz_engine_config_defaults(): the defaults live there only
 * (cuzkd's --help prints them). */
struct cz_engine_config {
	const char *state_dir;          /* proofs go to <state_dir>/proofs/<job>/ (required) */
	const char *backend;            /* cz_backend_names(): "cpu", "null", "cuda" (with nvcc) */
	unsigned devices;               /* 0 = all the backend has (cpu, null: 1); at most 32 */
	unsigned consumers_per_device;  /* 1..64; 2 lets one prepare while one computes */
	unsigned synth_workers;         /* 1..1024 */
	unsigned finalizers;            /* verifying threads, 1..16 (engine/pipeline/finalize.c) */
	unsigned device_threads;        /* host threads per device (0 = all CPUs); at most 4096 */
	uint64_t mem_budget;            /* bytes: keys + partition buffers; > 0 */
	unsigned null_delay_ms;         /* null backend: device time per partition */
	unsigned null_synth_ms;         /* null backend: synthesis time per partition */
	unsigned isolation;             /* CZ_ISOLATION_*: where a device's consumers run */
	unsigned null_fault_dev, null_fault_nth, null_fault_part;  /* tests: gpu/backend.h */
	const char *topology;           /* hwloc XML to plan for instead of this machine (NULL) */
	const char *device_nodes;       /* "0,1": device i's NUMA node, cycled (NULL: engine/place/place.c) */
	uint64_t max_queued;            /* --max-queued-partitions: accepted, unfinished (0: derived, engine/pipeline/admit.c) */
	uint64_t retain_s;              /* finished jobs answer await, and hold their id, this long */
	uint64_t witness_timeout_ms;    /* --witness-timeout: one input's witness generation, at most */
	/* The device watchdog (engine/device/watchdog.c): a device stage
	 * running longer than max(factor x its circuit's p99, floor) is a hung
	 * device; factor 0 turns it off. */
	unsigned watchdog_factor;       /* 0, or 1..1000 */
	unsigned watchdog_floor_ms;     /* 1..86400000 */
	/* A failed device (engine/device/devproc.c) is tried again this long
	 * after it failed, the wait doubling each time it fails again up to
	 * max(15 min, this). */
	unsigned device_retry_ms;       /* --device-retry-ms: 1..86400000 */
	/* Proofs that cannot be written for want of space or an I/O error
	 * (engine/durable/output.c) are tried again after 1 s, doubling up to
	 * this; the job fails only when cancelled or after retain_s. */
	unsigned output_retry_max_ms;   /* --output-retry-max-ms: 1..3600000 */
	/* Fixed-base tables for loaded keys (engine/control/tables.c):
	 * CZ_FIXED_TABLES_OFF, _AUTO, or at most this many bytes a key. */
	uint64_t fixed_tables;          /* --fixed-tables */
};

#define CZ_FIXED_TABLES_OFF  0
#define CZ_FIXED_TABLES_AUTO UINT64_MAX
/* "auto", "off", or bytes with an optional K, M, G or T suffix (powers of
 * 1024) into *out: 0, or -1 when s is none of them. */
int cz_engine_parse_tables(const char *s, uint64_t *out);

#define CZ_ENGINE_RETAIN_MAX_S (3650ull * 86400)   /* --retain: ten years at most */

#define CZ_ISOLATION_THREAD  0      /* threads of the engine's process (the engine's default:
				     * embedders have no --device-child entry; cuzkd's
				     * default is process, tools/cuzkd/main.c) */
#define CZ_ISOLATION_PROCESS 1      /* one supervised child per device (engine/device/devproc.c) */

struct cz_engine;
struct cz_place;

/* A device child's main (engine/device/devproc.c): a program that embeds the
 * engine with --isolation process runs it when started as
 * "PROGRAM --device-child N PPID" (cuzkd does), and exits with its value. */
int cz_devproc_child_main(int argc, char **argv);

/* backend "cpu", devices all, 2 consumers per device, 1 synthesis worker,
 * 2 finalizers,
 * all CPUs per device, 3/4 of RAM, null: 20 ms a partition, no synthesis
 * time; finished jobs retained 7 days; state_dir NULL (the caller must set it). */
void cz_engine_config_defaults(struct cz_engine_config *c);
/* 0, or -EINVAL with err naming the option (by cuzkd's flag) and its limit. */
int cz_engine_config_check(const struct cz_engine_config *c, char *err, size_t cap);
/* The placement plan c gives on this machine or c->topology (engine/place/place.h;
 * cuzkd --print-placement).  NULL with err naming the option or file. */
struct cz_place *cz_engine_place_plan(const struct cz_engine_config *c, char *err, size_t cap);
/* Checks c (cz_engine_config_check), opens the devices, starts the threads. */
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

/* engine/control/fleet_node.c (docs/deploy.md "A fleet"): joins the fleet
 * on the PostgreSQL database url (cuzkd --fleet): registers this node,
 * then claims partitions for its free consumers, proves them and finishes
 * them to the database; submit, await, status and cancel go to the
 * database from here on.  0, or a negative errno with err. */
struct cz_engine_fleet {
	const char *url;                /* libpq conninfo or postgresql:// URL */
	int lease_ms;                   /* 0: CZ_FLEET_LEASE_MS (30 s) */
	int timeout_ms;                 /* each database call's bound; 0: 5 s */
	int64_t retain_s;               /* ended jobs and dead nodes kept this long; 0: CZ_FLEET_RETAIN_S (7 days) */
	int notify;                     /* --fleet-notify: enum cz_fleet_notify (0 auto, 1 on, 2 off) */
};
int cz_engine_fleet_join(struct cz_engine *e, const struct cz_engine_fleet *f, char *err, size_t cap);
/* With --fleet, before the keys load: cancels the journal's unfinished local
 * jobs that were fed fleet claims (fleet-SEQ.PART.ATTEMPT: a restart after a
 * crash), which nothing would finish to the database; cz_engine_fleet_join
 * then releases their partitions (docs/deploy.md "A fleet", restarts).
 * Returns how many were dropped. */
int cz_engine_fleet_drop_stale(struct cz_engine *e);
/* A fleet member's Prometheus figures (docs/metrics.md "Fleet"; the
 * database's view asked within its bound), malloc'd; NULL when e is no
 * fleet member (or out of memory).  /metrics appends them. */
char *cz_engine_fleet_metrics_text(struct cz_engine *e, size_t *len);

/* engine/evidence/metrics.c (docs/metrics.md): the Prometheus text exposition
 * (malloc'd, *len bytes; NULL when out of memory), and readiness: 1, or 0
 * with why naming what is missing.  cuzkd sets its phase ("loading keys",
 * "stopping"; NULL or "" once it serves); ready also needs a loaded key. */
char *cz_engine_metrics_text(struct cz_engine *e, size_t *len);
void cz_engine_set_phase(struct cz_engine *e, const char *phase);
int cz_engine_ready(struct cz_engine *e, char *why, size_t cap);
/* The same less "a key is loaded" (sd_notify's READY=1: a unit started
 * without --load is up once its devices are warm). */
int cz_engine_serving(struct cz_engine *e, char *why, size_t cap);
/* The watchdog's check: 1 when the engine's control-plane lock was free
 * within usec, else 0 with why.  One line of what the daemon is doing (for
 * sd_notify's STATUS=). */
int cz_engine_alive(struct cz_engine *e, uint64_t usec, char *why, size_t cap);
void cz_engine_status_line(struct cz_engine *e, char *line, size_t cap);

/* engine/http.c: the HTTP listener (--metrics-listen): "ADDR:PORT" (IPv4,
 * [IPv6]:PORT) or a Unix socket path starting with '/'; auth: the
 * --metrics-auth token file or NULL; max_conns: --metrics-max-conns (0: the
 * default, 1024).  NULL with err set (also when this build has no
 * libmicrohttpd). */
struct cz_http;
struct cz_http *cz_http_start(struct cz_engine *e, const char *listen, const char *auth, unsigned max_conns,
			      char *err, size_t cap);
void cz_http_stop(struct cz_http *h);

#endif

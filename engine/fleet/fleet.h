/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/fleet.h — a fleet of cuzkd on one PostgreSQL job table
 * (issue #27): the library the daemon calls; the design statement is at the
 * top of engine/fleet/fleet.c.
 *
 * One handle (struct cz_fleet) is one database connection and one node of
 * the fleet.  Every call is bounded by the handle's timeout_ms (connect,
 * each statement, reconnects in between); every call returns 0 (or a count)
 * on success and a negative errno on failure, with the reason in
 * cz_fleet_error():
 *   -ENOTCONN   the database could not be reached within the bound
 *   -ETIMEDOUT  a statement (or an await) ran past its bound
 *   -EIO        the database refused a statement (the message names it)
 *   -EPROTO     the schema is newer than this build knows
 *   -EINVAL, -E2BIG, -ENOENT, -EPERM, -EEXIST, -ECANCELED, -EALREADY,
 *   -EBADMSG    bad arguments, a payload over the cap, no such job, not the
 *               owner, a job id taken by another owner, the job has ended,
 *               a payload whose digest does not match
 *   -ENOSYS     built without libpq: `--fleet` needs libpq-dev at build time
 * A handle is safe to share between threads: one call at a time holds its
 * lock for at most timeout_ms (never take it under an engine lock).
 */
#ifndef CZ_FLEET_H
#define CZ_FLEET_H

#include "lib/key.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_FLEET_SCHEMA_VERSION   3              /* the schema this build creates and migrates to */
#define CZ_FLEET_INLINE_MAX       (64u << 20)    /* a payload (input, proof) in the database: 64 MiB at most */
#define CZ_FLEET_WITNESS_INLINE_MAX (16u << 20)  /* a witness larger than this travels as a shared path + SHA-256 */
#define CZ_FLEET_TIMEOUT_MS       5000           /* default bound on connect and on each statement */
#define CZ_FLEET_LEASE_MS         30000          /* default lease of a claimed partition */
#define CZ_FLEET_MAX_ATTEMPTS     3              /* default: a partition that failed this often fails its job */
#define CZ_FLEET_RETAIN_S         (7 * 86400)    /* default: ended jobs and dead nodes kept a week (cz_fleet_prune) */
#define CZ_FLEET_PRUNE_BATCH      1000           /* jobs one cz_fleet_prune deletes at most */
#define CZ_FLEET_ID_MAX           128            /* job id, bytes with the NUL */
#define CZ_FLEET_CIRCUIT_MAX      256            /* circuit name, bytes with the NUL */
#define CZ_FLEET_CAUSE_MAX        48             /* an idle cause's name (docs/trace.md), bytes with the NUL */

struct cz_fleet;

/* Whether the statements carry pg_notify and waiters LISTEN (cuzkd
 * --fleet-notify): AUTO probes both once at open and, when the database
 * refuses either (YugabyteDB's YSQL has lacked LISTEN/NOTIFY), turns them
 * off; ON uses them unprobed (a refusal then fails the statements); OFF
 * never sends pg_notify or LISTEN: waiters poll by their bounded fallback. */
enum cz_fleet_notify {
	CZ_FLEET_NOTIFY_AUTO,
	CZ_FLEET_NOTIFY_ON,
	CZ_FLEET_NOTIFY_OFF,
};

struct cz_fleet_opts {
	const char *conninfo;   /* libpq: "postgresql://host/db" or "host=... dbname=..." */
	int timeout_ms;         /* 0: CZ_FLEET_TIMEOUT_MS */
	int lease_ms;           /* 0: CZ_FLEET_LEASE_MS; renew well within it (lease/3) */
	int max_attempts;       /* 0: CZ_FLEET_MAX_ATTEMPTS */
	enum cz_fleet_notify notify;    /* 0: CZ_FLEET_NOTIFY_AUTO */
};

/* What a node tells the fleet about itself (cz_fleet_node_register). */
struct cz_fleet_node_info {
	const char *host;       /* hostname */
	uint32_t devices;       /* devices it proves on */
	uint32_t capacity;      /* consumers: how many partitions it can hold at once */
	const char *circuits;   /* the circuits it has loaded, comma-separated */
};

/* One partition's input: bytes in the database (len <= CZ_FLEET_INLINE_MAX),
 * or a path on a directory every node shares, checked by its SHA-256. */
struct cz_fleet_payload {
	const void *bytes;      /* inline bytes, or NULL for a path */
	size_t len;             /* bytes' length */
	const char *path;       /* shared file (absolute), when bytes is NULL */
	uint8_t sha256[32];     /* the file's digest, when path is set */
	bool is_input;          /* a circom input (JSON: the claimer generates the witness), not a witness */
};

struct cz_fleet_job_spec {
	uint32_t owner;         /* submitter's uid (SO_PEERCRED), as the daemon's jobs today */
	const char *id;         /* job id, unique in the fleet (< CZ_FLEET_ID_MAX bytes) */
	unsigned prio;          /* enum cz_prio: lower is more urgent */
	const char *circuit;    /* the circuit (key) name */
	uint32_t nparts;        /* partitions, >= 1 */
	const struct cz_fleet_payload *parts; /* nparts payloads */
};

/* One claimed partition; cz_fleet_claim_free() releases its buffers. */
struct cz_fleet_claim {
	struct cz_key key;                      /* (prio, seq, part) */
	char id[CZ_FLEET_ID_MAX];               /* its job's id */
	char circuit[CZ_FLEET_CIRCUIT_MAX];     /* its job's circuit */
	uint32_t owner;                         /* its job's owner */
	uint32_t attempt;                       /* 1 on the first claim, +1 each time it is claimed again */
	bool is_input;                          /* the payload is a circom input (JSON), not a witness */
	void *input;                            /* inline input (malloc), or NULL */
	size_t input_len;
	char *input_path;                       /* shared path (malloc), or NULL */
	uint8_t sha256[32];                     /* its digest, when input_path is set */
};

enum cz_fleet_job_state {
	CZ_FLEET_JOB_LIVE,      /* partitions queued or being proved */
	CZ_FLEET_JOB_DONE,      /* every partition has its proof */
	CZ_FLEET_JOB_FAILED,    /* a partition failed max_attempts times */
	CZ_FLEET_JOB_CANCELLED, /* its owner (or an admin) cancelled it */
};

struct cz_fleet_status {
	uint64_t seq;
	char id[CZ_FLEET_ID_MAX];
	uint32_t owner;
	unsigned prio;
	enum cz_fleet_job_state state;
	uint32_t nparts, queued, claimed, done, failed;
	uint64_t duplicates;    /* finishes after the first, ignored */
};

/* The library's own counters (the benchmark and the tests read them). */
struct cz_fleet_stats {
	uint64_t statements;    /* SQL statements sent */
	uint64_t round_trips;   /* waits for the server's answer */
	uint64_t reconnects;    /* connections made again after one was lost */
	uint64_t migrations;    /* schema steps applied by this handle's open */
	uint64_t claimed;       /* partitions claimed */
	uint64_t finished;      /* finishes recorded (first) */
	uint64_t duplicates;    /* finishes ignored (a proof was there) */
	uint64_t lost;          /* held partitions a renew found lost (lease expired, job ended) */
	uint64_t reaped;        /* expired leases this handle returned to the queue */
	uint64_t await_notified;        /* cz_fleet_await's status reads after a "done" naming its job */
	uint64_t await_fallback;        /* ... after CZ_FLEET_AWAIT_POLL_MS without one */
	uint64_t listen_refused;        /* 1: the server refused LISTEN (no NOTIFY: the fallback polls alone) */
	uint64_t notify_off;            /* 1: no pg_notify in any statement, no LISTEN (cz_fleet_notify_off) */
};

/* Connects (bounded), creates or migrates the schema.  0 and *out, or a
 * negative errno with the reason in err. */
int cz_fleet_open(const struct cz_fleet_opts *opts, struct cz_fleet **out, char *err, size_t errlen);
void cz_fleet_close(struct cz_fleet *f);
/* NULL while notifications are on; else why they are off ("--fleet-notify
 * off", or the database's refusal of the open's probe), for the log. */
const char *cz_fleet_notify_off(struct cz_fleet *f);
/* The last failure's reason (valid until the next call on f). */
const char *cz_fleet_error(struct cz_fleet *f);
/* The counters as of the last call's end: never waits for a statement in
 * flight (as cz_fleet_leases_live), so status and /metrics answer at once
 * while the database is away. */
void cz_fleet_stats_get(struct cz_fleet *f, struct cz_fleet_stats *st);
/* The server process serving this handle's connection (0 when none):
 * for logs, pg_stat_activity and the benchmark's server CPU time. */
int cz_fleet_backend_pid(struct cz_fleet *f);
/* The schema version the database holds (one statement). */
int cz_fleet_schema_version(struct cz_fleet *f);

/* One node of the fleet as cz_fleet_nodes() lists it (cuzkctl status --fleet). */
struct cz_fleet_node_row {
	int64_t id;
	char host[256];
	int pid;
	uint32_t devices, capacity;
	char circuits[256];
	int64_t heartbeat_age_ms;       /* since its last heartbeat (register or renew), by the database's clock */
	uint32_t held;                  /* partitions claimed by it now */
	double duty_10s;                /* its devices' mean duty over the last 10 s at its last heartbeat, 0..1;
					 * -1: not reported (a node of a build before schema 3, or none yet) */
	char idle_cause[CZ_FLEET_CAUSE_MAX];    /* its devices' main idle cause then ("" none) */
};

/* The queue by priority (the last slot also counts priorities past LOW). */
struct cz_fleet_queue {
	uint64_t queued[CZ_PRIO__COUNT];
	uint64_t claimed[CZ_PRIO__COUNT];
};

/* Up to max nodes whose heartbeat is at most live_ms old (0: every node
 * ever registered), freshest first.  Returns how many. */
int cz_fleet_nodes(struct cz_fleet *f, int live_ms, struct cz_fleet_node_row *out, uint32_t max);
/* Queued and claimed partitions of live jobs, by priority (one statement). */
int cz_fleet_queue_get(struct cz_fleet *f, struct cz_fleet_queue *q);

/* Registers this handle as a node; its id is what claims record.  Also the
 * first heartbeat.  0 and *node_id. */
int cz_fleet_node_register(struct cz_fleet *f, const struct cz_fleet_node_info *info, int64_t *node_id);

/* Records the job and its partitions in one transaction; 0 and *seq (the
 * database's sequence number).  Submitting the same id again by the same
 * owner returns the first seq (a retry after a lost reply is safe); by
 * another owner, -EEXIST. */
int cz_fleet_submit(struct cz_fleet *f, const struct cz_fleet_job_spec *spec, uint64_t *seq);

/* Claims up to max partitions (the node's free consumers), lowest
 * (prio, seq, part) first, fleet-wide; queued ones and those whose lease has
 * expired (claim reaps them when it finds fewer than max queued).  Returns
 * how many (0..max) were written to out[], in key order.  A claim whose
 * input could not be copied (out of memory) has neither input nor
 * input_path: fail it (cz_fleet_fail). */
int cz_fleet_claim(struct cz_fleet *f, uint32_t max, struct cz_fleet_claim *out);
void cz_fleet_claim_free(struct cz_fleet_claim *c);
/* Reads a claim's input: its inline bytes, or its shared file checked by
 * its SHA-256 (-EBADMSG on a mismatch; at most max bytes).  0 and *buf
 * (malloc), *len. */
int cz_fleet_payload_load(const struct cz_fleet_claim *c, size_t max, void **buf, size_t *len);

/* What this node's next heartbeat (cz_fleet_renew) writes to its row: its
 * devices' mean duty over the last 10 s (0..1; < 0: unknown) and their main
 * idle cause over that window ("" or NULL: none).  No statement of its own:
 * the heartbeat carries it. */
void cz_fleet_node_duty(struct cz_fleet *f, double duty_10s, const char *idle_cause);
/* Heartbeat, and extends the lease of every partition this handle holds
 * and whose lease has not expired; the others are dropped from the held
 * set (counted in stats.lost).  Then reaps expired leases fleet-wide.
 * Returns how many were renewed.  Call it every lease/3. */
int cz_fleet_renew(struct cz_fleet *f);
/* Whether the leases this handle holds are still its own by its clock:
 * false once lease_ms has passed since the last successful claim or renew
 * was sent (a node cut off from the database stops then). */
bool cz_fleet_leases_live(struct cz_fleet *f);      /* without waiting for a call in flight */
/* Partitions this handle holds. */
uint32_t cz_fleet_held(struct cz_fleet *f);
/* Whether this handle still holds key (claimed it, and no renew has found
 * its lease lost since: expired, taken by another node, or its job ended). */
bool cz_fleet_holds(struct cz_fleet *f, struct cz_key key);

/* A partition a node claimed before it restarted: its key and the claim's
 * attempt (cz_fleet_claim.attempt; the local job's name carries both). */
struct cz_fleet_stale {
	struct cz_key key;
	uint32_t attempt;
};
/* Queues again, at once, the partitions of keys that are still claimed by
 * the claim that made each (its attempt: a partition claimed again since,
 * here or elsewhere, is left alone), and wakes the claimers (one
 * statement).  A restarted node calls it for the fleet partitions its
 * journal had, rather than proving them as local work nobody collects.
 * Returns how many were released. */
int cz_fleet_release(struct cz_fleet *f, const struct cz_fleet_stale *keys, uint32_t n);

/* Records a partition's verified proof: 0 when this is the first, 1 when a
 * proof was there already (ignored, counted as a duplicate), -ECANCELED
 * when its job has ended, -ENOENT when there is no such partition. */
int cz_fleet_finish(struct cz_fleet *f, struct cz_key key, const void *proof, size_t len);
/* A partition this handle holds failed: back to the queue, or, after
 * max_attempts claims, the partition and its job fail.  0 requeued,
 * 1 the job failed. */
int cz_fleet_fail(struct cz_fleet *f, struct cz_key key, const char *why);
/* A proof recorded for key: 0 and *buf (malloc), *len. */
int cz_fleet_proof(struct cz_fleet *f, struct cz_key key, void **buf, size_t *len);

/* engine/fleet/proofs.c: a done job's proofs into dir (which exists) as
 * K.proof.json and K.public.json, a local job's layout.  0, or a negative
 * errno with the partition and the reason in err. */
int cz_fleet_proofs_write(struct cz_fleet *f, const struct cz_fleet_status *st, const char *dir, char *err,
			  size_t cap);

/* A job's seq by its id. */
int cz_fleet_find(struct cz_fleet *f, const char *id, uint64_t *seq);
int cz_fleet_status(struct cz_fleet *f, uint64_t seq, struct cz_fleet_status *st);
/* Cancels a live job: its owner (uid) or an admin.  -EPERM for another
 * uid, -EALREADY for a job that has ended. */
int cz_fleet_cancel(struct cz_fleet *f, uint64_t seq, uint32_t uid, bool admin);
/* Waits until the job is no longer live, at most timeout_ms: its status
 * again whenever a "done" notification names it (LISTEN cz_fleet_done on
 * f), and every CZ_FLEET_AWAIT_POLL_MS in any case (the bounded fallback).
 * 0 and *st, or -ETIMEDOUT with *st the last status seen. */
int cz_fleet_await(struct cz_fleet *f, uint64_t seq, int timeout_ms, struct cz_fleet_status *st);

/* Notifications (PostgreSQL LISTEN/NOTIFY; each sent in the statement that
 * changes the rows, so none costs a statement of its own):
 *   cz_fleet_work  partitions became claimable: a submit, a requeue after a
 *                  failure, expired leases reaped (payload: a seq, or "")
 *   cz_fleet_done  a partition finished, or a job failed or was cancelled
 *                  (payload: the job's seq)
 * cz_fleet_listen() makes f listen (again after every reconnect);
 * cz_fleet_wait() waits on f's connection, and on extra_fd (readable: the
 * caller's own wake-up; -1 for none), at most timeout_ms: CZ_FLEET_CH_*
 * bits of what was heard (CZ_FLEET_CH__FD: extra_fd), 0 when the time ran
 * out.  While the database is away it waits on extra_fd alone (a
 * reconnect tried at most once a second), so it never blocks past
 * timeout_ms by more than one bounded connect.  Use a handle of its own
 * for waiting: the wait holds f's lock. */
#define CZ_FLEET_CH_WORK   1u
#define CZ_FLEET_CH_DONE   2u
#define CZ_FLEET_CH__SEQ   4u   /* a "done" naming the seq an await waits for */
#define CZ_FLEET_CH__FD    8u
#define CZ_FLEET_AWAIT_POLL_MS 1000
/* -EIO: the server refused LISTEN (a database without it, e.g. YugabyteDB's
 * YSQL): f's waits then poll by their fallback alone, and it is not asked
 * again (stats.listen_refused); also -EIO, asking nothing, while
 * notifications are off (cz_fleet_notify_off). */
int cz_fleet_listen(struct cz_fleet *f, unsigned channels);
int cz_fleet_wait(struct cz_fleet *f, int extra_fd, int timeout_ms);
/* Makes f's connection and its LISTEN again now (bounded), for a listener
 * whose link another handle found broken: a connection behind a link that
 * was down stays silent, not broken, after the link is back -- the
 * server's NOTIFY waits for its TCP retransmit, seconds later -- so waits
 * on it would hear nothing.  0, or a negative errno (the next wait tries
 * again, at most once a second). */
int cz_fleet_listen_again(struct cz_fleet *f);

/* Deletes up to CZ_FLEET_PRUNE_BATCH ended jobs (done: every partition
 * done; failed; cancelled) that ended more than retain_ms ago, with their
 * partitions and proofs, and the nodes whose last heartbeat is older than
 * that (one statement).  A live job is never deleted, nor a node that
 * holds a partition.  Returns the jobs deleted; *nodes the nodes. */
int cz_fleet_prune(struct cz_fleet *f, int64_t retain_ms, int *nodes);

const char *cz_fleet_job_state_name(enum cz_fleet_job_state s);

#endif /* CZ_FLEET_H */

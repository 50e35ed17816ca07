/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/fleet.c — a fleet of cuzkd on one PostgreSQL job table.
 *
 * WHAT
 *   cuzkd instances that share one PostgreSQL database form a fleet: every
 *   job and partition is a row, and each node claims work with SQL.  The
 *   database is the source of truth: a node holds a partition only while
 *   the row says so and its lease has not expired.  This file is the
 *   library the daemon calls (admission → submit, the order thread → claim
 *   and renew, the finalizer → finish or fail, the control plane → status,
 *   cancel, await); it includes nothing from engine/ outside its room.
 *   libpq is not linked into the programs: cz_fleet_open loads it on first
 *   use (engine/fleet/pq.c, pq.h), and every PQ call goes through that table.
 *
 * SCHEMA (version CZ_FLEET_SCHEMA_VERSION; cz_fleet_schema holds the
 * version, each step of migrations[] runs once, in one transaction under
 * an advisory lock, so daemons starting together migrate once)
 *   cz_fleet_node  id, host, pid, devices, capacity, circuits, started, heartbeat,
 *                  duty_10s, idle_cause (step 3: written by the heartbeat, NULL
 *                  from a node of an older build)
 *   cz_fleet_job   seq (bigserial: the fleet's job sequence), id (unique),
 *                  owner, prio, circuit, nparts, state (0 live, 2 failed,
 *                  3 cancelled), error, submitted, ended
 *   cz_fleet_part  (seq, part), prio (the job's, copied for the index),
 *                  state (0 queued, 1 claimed, 2 done, 3 failed, 4 stopped:
 *                  its job ended), node, lease_until, attempts, input |
 *                  input_path + input_sha256, proof, proved_by, duplicates,
 *                  error
 *   index cz_fleet_part_queue (prio, seq, part) WHERE state = 0: the claim
 *   walks it in key order, and a claimed row leaves it, so a fleet with 800
 *   partitions in flight does not walk past them (it did, with claimed rows
 *   in the index and the expiry in the claim's WHERE: a claim's p50 went
 *   from 0.9 to 7.5 ms with 800 held; docs/BENCHMARKS.md "Fleet");
 *   cz_fleet_part_lease (lease_until) WHERE state = 1: the reaper's.
 *   A job is done when every partition is done: derived, never stored, so
 *   finishing a partition locks only its row (no job-row hot spot, and no
 *   lock-order cycle: a statement that locks parts never waits for the job
 *   row while holding one, and the reverse never happens in one
 *   transaction).
 *
 * CLAIM (one statement, one round trip)
 *   SELECT the lowest (prio, seq, part) queued rows of live jobs, LIMIT max,
 *   FOR UPDATE SKIP LOCKED, and UPDATE them to claimed by this node with
 *   lease_until = now() + lease.  Claimers never wait for one another: a row another claimer has
 *   locked is skipped, so two nodes never get the same partition.  Asked
 *   one after another, nodes get partitions in the fleet-wide key order;
 *   claiming at once, each gets the lowest rows no one else is taking.  A
 *   node asks for no more than its free consumers, so the order bound is
 *   the fleet's total consumer count.
 *
 * LEASES
 *   A claim holds for lease_ms (the database's clock).  cz_fleet_renew()
 *   extends the leases of the partitions this handle knows it holds and
 *   that have not expired yet; one that expired (another node may have it
 *   now) or whose job ended is dropped from the held set.  The reaper (one
 *   statement: claimed rows whose lease_until < now() back to queued, SKIP
 *   LOCKED) runs after every renew, and in a claim that found fewer rows
 *   than it asked for (then the claim runs once more).  A node that dies
 *   stops renewing: its partitions are queued again at most one renew
 *   interval (of any live node) after their lease, and proved elsewhere.
 *   A claim whose reply was lost (the connection broke after the commit)
 *   is not in the held set, so it is never renewed and returns to the
 *   queue after one lease.  The node's
 *   own view (cz_fleet_leases_live) counts lease_ms from when the last
 *   successful claim or renew was sent, which is before the database's
 *   now(): it errs on the side of "lost".
 *
 * FINISH
 *   The first finish of a partition records its proof (the caller has
 *   verified it); any later one, from a node whose lease expired or from
 *   the node that re-claimed it, only adds to duplicates.  A finish is
 *   accepted from any node while the row is queued or claimed, so a slow
 *   node's proof is not thrown away because its lease ran out.
 *
 * NOTIFY
 *   The statements that change what a waiter waits for notify in the same
 *   statement (pg_notify in a RETURNING or the final SELECT, so no extra
 *   statement or round trip): submit, a failure's requeue and the reaper
 *   notify cz_fleet_work (claimers wake instead of polling); finish, a
 *   job's failure and cancel notify cz_fleet_done with the job's seq
 *   (await reads the status again when its job is named).  PostgreSQL
 *   delivers a notification at commit to every connection listening;
 *   one lost with a connection is covered by the waiters' bounded
 *   fallback (CZ_FLEET_AWAIT_POLL_MS; the daemon's claim thread's own).
 *   Notifications are an optimization, never needed for correctness: with
 *   them off (opts.notify OFF, or AUTO when the open's probe -- one
 *   pg_notify, one LISTEN -- is refused, as YugabyteDB's YSQL has refused
 *   them), exec_by() sends every statement with its pg_notify(...) calls
 *   spelled NULLIF(...) (same arguments, same column, no notification:
 *   notify_strip), no LISTEN is issued, and the waiters poll by their
 *   bounded fallback alone.
 *
 * BOUNDS AND RECONNECTS
 *   Every wait is bounded by timeout_ms: the connection is made with
 *   PQconnectStartParams/PQconnectPoll under a deadline, each statement is
 *   sent with PQsendQueryParams and its answer awaited with poll() under a
 *   deadline (the server's statement_timeout and lock_timeout are set to
 *   3/4 of it, so a slow statement usually ends with the server's error
 *   first; idle_in_transaction_session_timeout ends a transaction whose
 *   client went away).  A statement past the deadline is dropped with its
 *   connection, and a cancel request is sent for it from a detached thread
 *   (PQcancel itself waits without a bound: a network split must not hold
 *   the handle's lock); so is one that failed inside a transaction (it is
 *   aborted).
 *   A lost connection is made again, within the same call's bound, and the
 *   call retried: each call is safe to retry (submit runs again, statement
 *   or transaction, and recognizes its own job id; claim again claims other
 *   rows; finish again is a duplicate).
 *   The handle's lock is held for a whole call, so up to timeout_ms behind a
 *   dead link; what status and /metrics read (cz_fleet_stats_get,
 *   cz_fleet_leases_live) is a copy each call publishes as it unlocks,
 *   under a lock of its own that no statement holds: they answer at once
 *   while the database is away.
 *
 * COST (counted in struct cz_fleet_stats; docs/BENCHMARKS.md "Fleet")
 *   claim, reap, renew and finish are prepared once a connection (one more
 *   statement and round trip each, the first time), then only executed.
 *   claim 1 statement (3 when it comes back short and leases had
 *   expired: claim, reap, claim; 2 when short and none had); renew 2
 *   (renew, reap; the heartbeat, with the node's duty, is in the renew);
 *   release 1; finish 1 (2 for a duplicate); fail 1 (3 when it fails
 *   the job); submit 1 (the job and its rows from arrays, while its
 *   inline inputs total <= 16 MiB; else 3 + nparts: BEGIN, job, a row a
 *   partition, COMMIT); status 1; cancel 2; the node list 1; the queue by
 *   priority 1; open, with opts.notify AUTO, 3 more once (the probe:
 *   pg_notify, LISTEN, UNLISTEN).  With notifications off the waiters'
 *   polls are the cost instead: a daemon's idle claim thread claims every
 *   25 ms (engine/control/fleet_node.c).
 *
 * FAILURE MODES
 *   Database unreachable: calls return -ENOTCONN within timeout_ms; held
 *   partitions may still be finished once it is back (first proof wins);
 *   after lease_ms without a renew, cz_fleet_leases_live() turns false and
 *   the node stops taking work.  A schema newer than this build: open
 *   refuses (-EPROTO) rather than write rows it does not understand.
 */
#include "engine/fleet/fleet.h"

#ifdef CZ_HAVE_LIBPQ /* else engine/fleet/stub.c */

#include "lib/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include "engine/fleet/pq.h"        /* after libpq-fe.h: PQ* through the loaded table */
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct cz_fleet {
	pthread_mutex_t lock;           /* one call at a time on pg; held at most timeout_ms */
	PGconn *pg;                     /* NULL while disconnected */
	char *conninfo;
	int timeout_ms, lease_ms, max_attempts;
	int64_t node;                   /* cz_fleet_node.id, 0 before register */
	struct cz_key *held;            /* partitions this handle holds (claimed, not finished) */
	uint32_t nheld, capheld;
	int connected_once;             /* a later connect counts as a reconnect */
	unsigned prepared;              /* bit P_*: prepared on this connection */
	int64_t leases_until_ns;        /* cz_clock_ns(MONOTONIC) by which the held leases expire */
	char duty[24], cause[CZ_FLEET_CAUSE_MAX];      /* the next heartbeat's duty_10s ("" NULL) and idle_cause */
	unsigned listen;                /* CZ_FLEET_CH_* this handle listens on (cz_fleet_listen) */
	unsigned listening;             /* ... issued on this connection */
	unsigned heard;                 /* CZ_FLEET_CH_* notified since the last cz_fleet_wait */
	uint64_t heard_seq;             /* a "done" notification's seq (the last) */
	uint64_t want_seq;              /* the job an await waits for (CZ_FLEET_CH__SEQ) */
	int64_t next_try_ns;            /* cz_fleet_wait: when a lost connection is tried again */
	bool notify_off;                /* statements without pg_notify, no LISTEN (opts.notify) */
	char notify_why[256];           /* ... why (cz_fleet_notify_off) */
	struct cz_fleet_stats st;
	char err[512];
	/* What a reader needs without the handle lock (held for a whole statement,
	 * up to timeout_ms behind a dead link): st and leases_until_ns as of the
	 * last call's end, copied under pub_lock as each call unlocks. */
	pthread_mutex_t pub_lock;
	struct cz_fleet_stats pub_st;
	int64_t pub_leases_until_ns;
};

static void seterr(struct cz_fleet *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seterr(struct cz_fleet *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->err, sizeof f->err, fmt, ap);
	va_end(ap);
	size_t n = strlen(f->err);
	while (n && f->err[n - 1] == '\n')
		f->err[--n] = 0;
}

static int64_t now_ns(void)
{
	return cz_clock_ns(CLOCK_MONOTONIC);
}

static int remaining_ms(int64_t deadline)
{
	int64_t left = deadline - now_ns();
	return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

/* Waits for ev on the connection's socket until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_sock(PGconn *pg, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = PQsocket(pg), .events = ev };
	if (p.fd < 0)
		return -1;
	for (;;) {
		int ms = remaining_ms(deadline);
		if (ms == 0)
			return 0;
		int r = poll(&p, 1, ms);
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

/* Every public call ends here: what it changed of st and the leases
 * published for cz_fleet_stats_get and cz_fleet_leases_live, then the
 * handle unlocked. */
static void unlock(struct cz_fleet *f)
{
	pthread_mutex_lock(&f->pub_lock);
	f->pub_st = f->st;
	f->pub_leases_until_ns = f->leases_until_ns;
	pthread_mutex_unlock(&f->pub_lock);
	pthread_mutex_unlock(&f->lock);
}

static void drop(struct cz_fleet *f)
{
	if (f->pg)
		PQfinish(f->pg);
	f->pg = NULL;
}

static void quiet_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Connects before deadline: 0, or -ENOTCONN with the reason. */
static int connect_by(struct cz_fleet *f, int64_t deadline)
{
	char tmo[16], opts[160];
	int ms = remaining_ms(deadline);
	/* connect_timeout is whole seconds, at least 2 (libpq); our poll bound is the real one. */
	snprintf(tmo, sizeof tmo, "%d", ms / 1000 < 2 ? 2 : ms / 1000);
	/* The server's bounds a quarter inside ours, so a slow statement ends with its error
	 * (and the connection stays) rather than with our deadline (which drops it). */
	int srv = f->timeout_ms * 3 / 4 < 100 ? 100 : f->timeout_ms * 3 / 4;
	snprintf(opts, sizeof opts, "-c statement_timeout=%d -c lock_timeout=%d -c idle_in_transaction_session_timeout=%d",
		 srv, srv, f->timeout_ms < 1000 ? 1000 : f->timeout_ms);
	const char *const kw[] = { "dbname", "connect_timeout", "options", "application_name", NULL };
	const char *const val[] = { f->conninfo, tmo, opts, "cuzkd-fleet", NULL };
	drop(f);
	PGconn *pg = PQconnectStartParams(kw, val, 1);
	if (!pg) {
		seterr(f, "fleet: out of memory connecting");
		return -ENOTCONN;
	}
	if (PQstatus(pg) == CONNECTION_BAD)
		goto bad;
	for (PostgresPollingStatusType ps = PGRES_POLLING_WRITING;;) {
		if (ps == PGRES_POLLING_OK)
			break;
		if (ps == PGRES_POLLING_FAILED)
			goto bad;
		int r = wait_sock(pg, ps == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
		if (r <= 0) {
			seterr(f, "fleet: connecting to the database: %s", r == 0 ? "timed out" : "poll failed");
			PQfinish(pg);
			return -ENOTCONN;
		}
		ps = PQconnectPoll(pg);
	}
	if (PQsetnonblocking(pg, 1) != 0)
		goto bad;
	PQsetNoticeProcessor(pg, quiet_notice, NULL);
	f->pg = pg;
	f->prepared = 0;
	f->listening = 0;
	return 0;
bad:
	seterr(f, "fleet: connecting to the database: %s", PQerrorMessage(pg));
	PQfinish(pg);
	return -ENOTCONN;
}

/* Cancel requests in flight, process-wide (cancel_async). */
#define CZ_FLEET_CANCELS_MAX 4
static _Atomic int cancels_inflight;

static void *cancel_main(void *arg)
{
	PGcancel *c = arg;
	char buf[128];
	PQcancel(c, buf, sizeof buf);
	PQfreeCancel(c);
	atomic_fetch_sub(&cancels_inflight, 1);
	return NULL;
}

/* Asks the server to cancel pg's statement, best effort, on a detached
 * thread: PQcancel connects and waits for the server's close with no bound
 * of its own (a host cut off by a network split: TCP's SYN retries, or
 * forever behind a black hole), and the caller holds the handle's lock.
 * The server ends the statement by itself anyway (statement_timeout, 3/4
 * of ours).  At most CZ_FLEET_CANCELS_MAX such threads live at once; past
 * that the cancel is skipped. */
static void cancel_async(PGconn *pg)
{
	if (atomic_fetch_add(&cancels_inflight, 1) >= CZ_FLEET_CANCELS_MAX)
		goto skip;
	PGcancel *c = PQgetCancel(pg);
	if (!c)
		goto skip;
	pthread_attr_t a;
	pthread_t t;
	int ok = pthread_attr_init(&a) == 0;
	ok = ok && pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0 &&
	     pthread_attr_setstacksize(&a, 256 * 1024) == 0 && pthread_create(&t, &a, cancel_main, c) == 0;
	pthread_attr_destroy(&a);
	if (ok)
		return;
	PQfreeCancel(c);
skip:
	atomic_fetch_sub(&cancels_inflight, 1);
}

/* Sends one statement and waits for its last result until deadline.
 * Returns the result (caller clears), or NULL with *lost set when the
 * connection is gone (or the deadline passed: the statement is cancelled
 * and the connection dropped). */
static PGresult *exec_raw(struct cz_fleet *f, const char *name, const char *sql, int n, const char *const *vals,
			  const int *lens, const int *fmts, int binary, int64_t deadline, int *timed_out)
{
	PGconn *pg = f->pg;
	*timed_out = 0;
	f->st.statements++;
	f->st.round_trips++;
	/* name and sql: prepare it; name alone: run the prepared one; no parameters: the simple
	 * protocol, which also takes several statements (a migration step). */
	int sent = name && sql	       ? PQsendPrepare(pg, name, sql, n, NULL)
		   : name	       ? PQsendQueryPrepared(pg, name, n, vals, lens, fmts, binary)
		   : n == 0 && !binary ? PQsendQuery(pg, sql)
				       : PQsendQueryParams(pg, sql, n, NULL, vals, lens, fmts, binary);
	if (!sent)
		goto lost;
	for (;;) {
		int r = PQflush(pg);
		if (r == 0)
			break;
		if (r < 0 || wait_sock(pg, POLLOUT | POLLIN, deadline) <= 0)
			goto late;
		if (!PQconsumeInput(pg))
			goto lost;
	}
	PGresult *last = NULL;
	for (;;) {
		while (PQisBusy(pg)) {
			int r = wait_sock(pg, POLLIN, deadline);
			if (r <= 0) {
				PQclear(last);
				goto late;
			}
			if (!PQconsumeInput(pg)) {
				PQclear(last);
				goto lost;
			}
		}
		PGresult *res = PQgetResult(pg);
		if (!res)
			break;
		PQclear(last);
		last = res;
	}
	if (!last || PQstatus(pg) != CONNECTION_OK) {
		PQclear(last);
		goto lost;
	}
	return last;
late:
	if (now_ns() >= deadline) {
		*timed_out = 1;
		cancel_async(pg);
		seterr(f, "fleet: statement timed out after %d ms", f->timeout_ms);
	} else {
		seterr(f, "fleet: database connection: %s", PQerrorMessage(pg));
	}
	drop(f);
	return NULL;
lost:
	seterr(f, "fleet: database connection lost: %s", PQerrorMessage(pg));
	drop(f);
	return NULL;
}

/* sql with every "pg_notify(" spelled "   NULLIF(" (the same length, the same
 * arguments and result column, no notification), malloc'd; NULL: out of memory. */
static char *notify_strip(const char *sql)
{
	static const char from[] = "pg_notify(", to[] = "   NULLIF(";
	_Static_assert(sizeof from == sizeof to, "the same length");
	char *s = strdup(sql);
	for (char *p = s; p && (p = strstr(p, from)); p += sizeof from - 1)
		memcpy(p, to, sizeof to - 1);
	return s;
}

/* exec_raw, with the statement's notifications left out while they are off. */
static PGresult *exec_by(struct cz_fleet *f, const char *name, const char *sql, int n, const char *const *vals,
			 const int *lens, const int *fmts, int binary, int64_t deadline, int *timed_out)
{
	if (!f->notify_off || !sql || !strstr(sql, "pg_notify("))
		return exec_raw(f, name, sql, n, vals, lens, fmts, binary, deadline, timed_out);
	char *own = notify_strip(sql);
	if (!own) {
		*timed_out = 0;
		seterr(f, "fleet: out of memory");
		return NULL;
	}
	PGresult *r = exec_raw(f, name, own, n, vals, lens, fmts, binary, deadline, timed_out);
	free(own);
	return r;
}

/* Whether a failed result is worth retrying in a new transaction. */
static int transient(const PGresult *r)
{
	const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	return s && (!strcmp(s, "40001") || !strcmp(s, "40P01") || !strncmp(s, "57P", 3) || !strncmp(s, "08", 2));
}

/*
 * A unit of work: one statement, or a transaction of several, retried as a
 * whole (within the call's deadline) when the connection is lost.  run()
 * gets a connected handle and returns 0, a negative errno, or -EAGAIN to
 * be retried on a fresh connection.
 */
typedef int (*unit_fn)(struct cz_fleet *f, void *arg, int64_t deadline);

static int run_unit(struct cz_fleet *f, unit_fn fn, void *arg)
{
	int64_t deadline = now_ns() + (int64_t)f->timeout_ms * 1000000;
	int rc = -ENOTCONN;
	for (;;) {
		if (!f->pg || PQstatus(f->pg) != CONNECTION_OK) {
			rc = connect_by(f, deadline);
			if (rc == 0) {
				f->st.reconnects += f->connected_once;
				f->connected_once = 1;
				rc = fn(f, arg, deadline);
			}
		} else {
			rc = fn(f, arg, deadline);
		}
		if (rc != -EAGAIN && rc != -ENOTCONN)
			return rc;
		if (now_ns() + 50 * 1000000LL >= deadline)
			return rc == -EAGAIN ? -ENOTCONN : rc;
		/* The server may be restarting: a short pause, then a fresh connection. */
		usleep(50 * 1000);
		if (rc == -EAGAIN)
			drop(f);
	}
}

/* One statement inside a unit: NULL with *rc set on failure (-EAGAIN for
 * a lost connection or a transient error, -ETIMEDOUT, -EIO). */
static PGresult *q1(struct cz_fleet *f, int64_t deadline, int *rc, int binary, const char *name, int prepared,
		    const char *sql, int n, const char *const *vals, const int *lens, const int *fmts)
{
	int late;
	PGresult *r = exec_by(f, name, name && prepared ? NULL : sql, n, vals, lens, fmts, binary, deadline, &late);
	if (!r) {
		*rc = late ? -ETIMEDOUT : -EAGAIN;
		return NULL;
	}
	ExecStatusType s = PQresultStatus(r);
	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
		return r;
	seterr(f, "fleet: %.60s...: %s", sql, PQresultErrorMessage(r));
	const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	/* 57014: statement_timeout; 55P03: lock_timeout: the server's side of our bound. */
	*rc = state && (!strcmp(state, "57014") || !strcmp(state, "55P03")) ? -ETIMEDOUT
	      : transient(r)                                                 ? -EAGAIN
										: -EIO;
	/* An error inside a transaction leaves it aborted: a fresh connection for the next
	 * statement, rather than a rollback that would be one more wait. */
	if (PQtransactionStatus(f->pg) != PQTRANS_IDLE)
		drop(f);
	PQclear(r);
	return NULL;
}

static PGresult *q(struct cz_fleet *f, int64_t deadline, int *rc, int binary, const char *sql, int n,
		   const char *const *vals, const int *lens, const int *fmts)
{
	return q1(f, deadline, rc, binary, NULL, 0, sql, n, vals, lens, fmts);
}

/* The hot statements (claim, reap, renew, finish), prepared once a connection: the server
 * parses and plans them once, not at every call (docs/BENCHMARKS.md "Fleet"). */
enum prep { P_CLAIM, P_REAP, P_RENEW, P_FINISH, P_DUP, P__COUNT };
static const char *const prep_name[P__COUNT] = { "cz_fleet_claim", "cz_fleet_reap", "cz_fleet_renew",
						 "cz_fleet_finish", "cz_fleet_dup" };

static PGresult *qp(struct cz_fleet *f, int64_t deadline, int *rc, int binary, enum prep id, const char *sql, int n,
		    const char *const *vals, const int *lens, const int *fmts)
{
	if (!(f->prepared & 1u << id)) {
		PGresult *r = q1(f, deadline, rc, 0, prep_name[id], 0, sql, n, NULL, NULL, NULL);
		if (!r)
			return NULL;
		PQclear(r);
		f->prepared |= 1u << id;
	}
	return q1(f, deadline, rc, binary, prep_name[id], 1, sql, n, vals, lens, fmts);
}

/* Simple text-parameter statement. */
#define QT(f, dl, rc, sql, ...)                                                                           \
	({                                                                                                \
		const char *const v_[] = { __VA_ARGS__ };                                                 \
		q((f), (dl), (rc), 0, (sql), (int)(sizeof v_ / sizeof v_[0]), v_, NULL, NULL);            \
	})
#define QT0(f, dl, rc, sql) q((f), (dl), (rc), 0, (sql), 0, NULL, NULL, NULL)

/* Values of a result: binary or text format, by the column's format. */
static int64_t get_i64(const PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		return 0;
	const unsigned char *p = (const unsigned char *)PQgetvalue(r, row, col);
	if (PQfformat(r, col) == 0)
		return strtoll((const char *)p, NULL, 10);
	int len = PQgetlength(r, row, col);
	uint64_t v = 0;
	for (int i = 0; i < len; i++)
		v = v << 8 | p[i];
	if (len == 4)
		return (int32_t)v;
	if (len == 2)
		return (int16_t)v;
	return (int64_t)v;
}

static void get_str(const PGresult *r, int row, int col, char *out, size_t cap)
{
	snprintf(out, cap, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

/* ---------------------------------------------------------------- schema */

/* Each step runs once, in order; a step is never edited once released: a
 * change is a new step. */
static const char *const migrations[] = {
	/* 1: nodes, jobs, partitions */
	"CREATE TABLE cz_fleet_node ("
	"  id bigserial PRIMARY KEY, host text NOT NULL, pid integer NOT NULL,"
	"  devices integer NOT NULL, capacity integer NOT NULL, circuits text NOT NULL,"
	"  started timestamptz NOT NULL DEFAULT now(), heartbeat timestamptz NOT NULL DEFAULT now());"
	"CREATE TABLE cz_fleet_job ("
	"  seq bigserial PRIMARY KEY, id text NOT NULL UNIQUE, owner bigint NOT NULL,"
	"  prio integer NOT NULL, circuit text NOT NULL, nparts integer NOT NULL CHECK (nparts > 0),"
	"  state smallint NOT NULL DEFAULT 0, error text,"
	"  submitted timestamptz NOT NULL DEFAULT now(), ended timestamptz);"
	"CREATE TABLE cz_fleet_part ("
	"  seq bigint NOT NULL REFERENCES cz_fleet_job (seq) ON DELETE CASCADE, part integer NOT NULL,"
	"  prio integer NOT NULL, state smallint NOT NULL DEFAULT 0,"
	"  node bigint, lease_until timestamptz, attempts integer NOT NULL DEFAULT 0,"
	"  input bytea, input_path text, input_sha256 bytea,"
	"  proof bytea, proved_by bigint, finished timestamptz,"
	"  duplicates integer NOT NULL DEFAULT 0, error text,"
	"  PRIMARY KEY (seq, part));"
	"CREATE INDEX cz_fleet_part_queue ON cz_fleet_part (prio, seq, part) WHERE state = 0;"
	"CREATE INDEX cz_fleet_part_lease ON cz_fleet_part (lease_until) WHERE state = 1;"
	"CREATE INDEX cz_fleet_part_node ON cz_fleet_part (node) WHERE state = 1;",
	/* 2: a partition's payload may be a circom input (JSON) rather than a witness */
	"ALTER TABLE cz_fleet_part ADD COLUMN is_input boolean NOT NULL DEFAULT false;",
	/* 3: each node's duty and main idle cause, written by its heartbeat (NULL: not reported) */
	"ALTER TABLE cz_fleet_node ADD COLUMN duty_10s real, ADD COLUMN idle_cause text;",
};
#define NMIGRATIONS ((int)(sizeof migrations / sizeof migrations[0]))
_Static_assert(NMIGRATIONS == CZ_FLEET_SCHEMA_VERSION, "one migration step per schema version");

static int migrate_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	int rc = 0, *applied = arg;
	PGresult *r;
	*applied = 0;
	if (!(r = QT0(f, dl, &rc, "BEGIN")))
		return rc;
	PQclear(r);
	/* Daemons starting together: the first migrates, the others wait here, then see its version. */
	if (!(r = QT0(f, dl, &rc, "SELECT pg_advisory_xact_lock(7162917351206912)")))
		return rc;
	PQclear(r);
	if (!(r = QT0(f, dl, &rc, "CREATE TABLE IF NOT EXISTS cz_fleet_schema (version integer NOT NULL)")))
		return rc;
	PQclear(r);
	if (!(r = QT0(f, dl, &rc, "SELECT coalesce(max(version), 0) FROM cz_fleet_schema")))
		return rc;
	int have = (int)get_i64(r, 0, 0);
	PQclear(r);
	if (have > CZ_FLEET_SCHEMA_VERSION) {
		seterr(f, "fleet: the database's schema is version %d, newer than this cuzkd's %d: upgrade cuzkd",
		       have, CZ_FLEET_SCHEMA_VERSION);
		drop(f); /* rolls the transaction back */
		return -EPROTO;
	}
	for (int v = have + 1; v <= CZ_FLEET_SCHEMA_VERSION; v++) {
		if (!(r = QT0(f, dl, &rc, migrations[v - 1])))
			return rc;
		PQclear(r);
		char vs[16];
		snprintf(vs, sizeof vs, "%d", v);
		if (!(r = QT(f, dl, &rc, "INSERT INTO cz_fleet_schema (version) VALUES ($1)", vs)))
			return rc;
		PQclear(r);
		++*applied;
	}
	if (!(r = QT0(f, dl, &rc, "COMMIT")))
		return rc;
	PQclear(r);
	return 0;
}

/* The open's probe (opts.notify AUTO): one pg_notify and one LISTEN (then
 * UNLISTEN) on a channel nobody listens to; the database's refusal of
 * either (-EIO) turns notifications off, with its message as the reason. */
static int notify_probe_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	(void)arg;
	static const char *const probe[] = { "SELECT pg_notify('cz_fleet_probe', '')", "LISTEN cz_fleet_probe",
					     "UNLISTEN cz_fleet_probe" };
	for (unsigned i = 0; i < sizeof probe / sizeof probe[0]; i++) {
		int rc = 0;
		PGresult *r = QT0(f, dl, &rc, probe[i]);
		if (!r && rc == -EIO) {
			f->notify_off = true;
			snprintf(f->notify_why, sizeof f->notify_why, "refused at connect (%.200s)", f->err);
			return 0;
		}
		if (!r)
			return rc;
		PQclear(r);
	}
	return 0;
}

const char *cz_fleet_notify_off(struct cz_fleet *f)
{
	return f->notify_off ? f->notify_why : NULL;
}

int cz_fleet_open(const struct cz_fleet_opts *o, struct cz_fleet **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!o || !o->conninfo || !*o->conninfo) {
		snprintf(err, errlen, "fleet: no database named (--fleet postgresql://...)");
		return -EINVAL;
	}
	if (cz_pq_load(err, errlen))    /* libpq is loaded here, not at start (engine/fleet/pq.h) */
		return -ENOSYS;
	struct cz_fleet *f = calloc(1, sizeof *f);
	if (!f || !(f->conninfo = strdup(o->conninfo))) {
		free(f);
		snprintf(err, errlen, "fleet: out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&f->lock, NULL);
	pthread_mutex_init(&f->pub_lock, NULL);
	f->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : CZ_FLEET_TIMEOUT_MS;
	f->lease_ms = o->lease_ms > 0 ? o->lease_ms : CZ_FLEET_LEASE_MS;
	f->max_attempts = o->max_attempts > 0 ? o->max_attempts : CZ_FLEET_MAX_ATTEMPTS;
	if (o->notify == CZ_FLEET_NOTIFY_OFF) {
		f->notify_off = true;
		snprintf(f->notify_why, sizeof f->notify_why, "notifications off (--fleet-notify off)");
	}
	int applied = 0;
	int rc = run_unit(f, migrate_unit, &applied);
	if (rc == 0 && o->notify == CZ_FLEET_NOTIFY_AUTO)
		rc = run_unit(f, notify_probe_unit, NULL);
	f->st.notify_off = f->notify_off;
	if (rc < 0) {
		snprintf(err, errlen, "%s", f->err);
		cz_fleet_close(f);
		return rc;
	}
	f->st.migrations = (uint64_t)applied;
	f->pub_st = f->st;      /* not shared yet: no lock */
	*out = f;
	return 0;
}

void cz_fleet_close(struct cz_fleet *f)
{
	if (!f)
		return;
	drop(f);
	pthread_mutex_destroy(&f->lock);
	pthread_mutex_destroy(&f->pub_lock);
	free(f->held);
	free(f->conninfo);
	free(f);
}

const char *cz_fleet_error(struct cz_fleet *f)
{
	return f->err;
}

void cz_fleet_stats_get(struct cz_fleet *f, struct cz_fleet_stats *st)
{
	pthread_mutex_lock(&f->pub_lock);       /* not the handle lock: a statement may hold it */
	*st = f->pub_st;
	pthread_mutex_unlock(&f->pub_lock);
}

int cz_fleet_backend_pid(struct cz_fleet *f)
{
	pthread_mutex_lock(&f->lock);
	int pid = f->pg ? PQbackendPID(f->pg) : 0;
	unlock(f);
	return pid;
}

static int version_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	int rc = 0;
	PGresult *r = QT0(f, dl, &rc, "SELECT coalesce(max(version), 0) FROM cz_fleet_schema");
	if (!r)
		return rc;
	*(int *)arg = (int)get_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

int cz_fleet_schema_version(struct cz_fleet *f)
{
	int v = 0;
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, version_unit, &v);
	unlock(f);
	return rc < 0 ? rc : v;
}

const char *cz_fleet_job_state_name(enum cz_fleet_job_state s)
{
	switch (s) {
	case CZ_FLEET_JOB_LIVE: return "live";
	case CZ_FLEET_JOB_DONE: return "done";
	case CZ_FLEET_JOB_FAILED: return "failed";
	case CZ_FLEET_JOB_CANCELLED: return "cancelled";
	}
	return "?";
}

/* ------------------------------------------------------------------ nodes */

struct reg_arg {
	const struct cz_fleet_node_info *info;
	int64_t id;
};

static int register_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct reg_arg *a = arg;
	char pid[16], dev[16], cap[16];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	snprintf(dev, sizeof dev, "%" PRIu32, a->info->devices);
	snprintf(cap, sizeof cap, "%" PRIu32, a->info->capacity);
	int rc = 0;
	PGresult *r = QT(f, dl, &rc,
			 "INSERT INTO cz_fleet_node (host, pid, devices, capacity, circuits) "
			 "VALUES ($1, $2, $3, $4, $5) RETURNING id",
			 a->info->host ? a->info->host : "", pid, dev, cap, a->info->circuits ? a->info->circuits : "");
	if (!r)
		return rc;
	a->id = get_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

int cz_fleet_node_register(struct cz_fleet *f, const struct cz_fleet_node_info *info, int64_t *node_id)
{
	if (!info)
		return -EINVAL;
	struct reg_arg a = { .info = info };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, register_unit, &a);
	if (rc == 0)
		f->node = a.id;
	unlock(f);
	if (rc == 0 && node_id)
		*node_id = a.id;
	return rc;
}

struct nodes_arg {
	int live_ms;
	uint32_t max;
	struct cz_fleet_node_row *out;
	int n;
};

static int nodes_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct nodes_arg *a = arg;
	char live[16], max[16];
	snprintf(live, sizeof live, "%d", a->live_ms);
	snprintf(max, sizeof max, "%" PRIu32, a->max);
	int rc = 0;
	PGresult *r = QT(f, dl, &rc,
			 "SELECT n.id, n.host, n.pid, n.devices, n.capacity, n.circuits,"
			 "  (extract(epoch FROM now() - n.heartbeat) * 1000)::bigint,"
			 "  (SELECT count(*) FROM cz_fleet_part p WHERE p.node = n.id AND p.state = 1),"
			 "  coalesce(n.duty_10s, -1), coalesce(n.idle_cause, '')"
			 " FROM cz_fleet_node n"
			 " WHERE $1::integer = 0 OR n.heartbeat > now() - $1::integer * interval '1 millisecond'"
			 " ORDER BY n.heartbeat DESC, n.id LIMIT $2",
			 live, max);
	if (!r)
		return rc;
	int n = PQntuples(r);
	for (int i = 0; i < n && (uint32_t)i < a->max; i++) {
		struct cz_fleet_node_row *o = &a->out[i];
		memset(o, 0, sizeof *o);
		o->id = get_i64(r, i, 0);
		get_str(r, i, 1, o->host, sizeof o->host);
		o->pid = (int)get_i64(r, i, 2);
		o->devices = (uint32_t)get_i64(r, i, 3);
		o->capacity = (uint32_t)get_i64(r, i, 4);
		get_str(r, i, 5, o->circuits, sizeof o->circuits);
		o->heartbeat_age_ms = get_i64(r, i, 6);
		o->held = (uint32_t)get_i64(r, i, 7);
		o->duty_10s = PQgetisnull(r, i, 8) ? -1 : atof(PQgetvalue(r, i, 8));
		get_str(r, i, 9, o->idle_cause, sizeof o->idle_cause);
	}
	PQclear(r);
	a->n = n;
	return 0;
}

int cz_fleet_nodes(struct cz_fleet *f, int live_ms, struct cz_fleet_node_row *out, uint32_t max)
{
	if (max == 0)
		return 0;
	struct nodes_arg a = { .live_ms = live_ms < 0 ? 0 : live_ms, .max = max, .out = out };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, nodes_unit, &a);
	unlock(f);
	return rc < 0 ? rc : a.n;
}

static int queue_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct cz_fleet_queue *qq = arg;
	int rc = 0;
	PGresult *r = QT0(f, dl, &rc,
			  "SELECT p.prio, count(*) FILTER (WHERE p.state = 0), count(*) FILTER (WHERE p.state = 1)"
			  " FROM cz_fleet_part p JOIN cz_fleet_job j ON j.seq = p.seq"
			  " WHERE p.state IN (0, 1) AND j.state = 0 GROUP BY p.prio");
	if (!r)
		return rc;
	memset(qq, 0, sizeof *qq);
	for (int i = 0; i < PQntuples(r); i++) {
		int64_t prio = get_i64(r, i, 0);
		unsigned k = prio < 0 ? 0 : prio >= CZ_PRIO__COUNT ? CZ_PRIO__COUNT - 1 : (unsigned)prio;
		qq->queued[k] += (uint64_t)get_i64(r, i, 1);
		qq->claimed[k] += (uint64_t)get_i64(r, i, 2);
	}
	PQclear(r);
	return 0;
}

int cz_fleet_queue_get(struct cz_fleet *f, struct cz_fleet_queue *q)
{
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, queue_unit, q);
	unlock(f);
	return rc;
}

/* ----------------------------------------------------------------- submit */

struct submit_arg {
	const struct cz_fleet_job_spec *s;
	size_t inline_bytes;    /* the job's inline inputs, all partitions */
	uint64_t seq;
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* A one-dimensional array in PostgreSQL's binary format (elements of type
 * oid; a NULL val is a NULL element).  malloc'd; *len its size. */
static unsigned char *array_bin(uint32_t oid, uint32_t n, const void *const *val, const size_t *vlen, size_t *len)
{
	size_t size = 20;
	int nulls = 0;
	for (uint32_t i = 0; i < n; i++) {
		size += 4 + (val[i] ? vlen[i] : 0);
		nulls |= !val[i];
	}
	unsigned char *b = malloc(size), *p = b;
	if (!b)
		return NULL;
	put32(p, 1);
	put32(p + 4, (uint32_t)nulls);
	put32(p + 8, oid);
	put32(p + 12, n);
	put32(p + 16, 1);
	p += 20;
	for (uint32_t i = 0; i < n; i++) {
		put32(p, val[i] ? (uint32_t)vlen[i] : 0xffffffffu);
		p += 4;
		if (val[i] && vlen[i]) {
			memcpy(p, val[i], vlen[i]);
			p += vlen[i];
		}
	}
	*len = size;
	return b;
}

/* A job whose inline inputs fit SUBMIT_ONE_MAX goes in one statement (one
 * round trip, atomic by itself): the job row and every partition's row
 * from three arrays.  Larger ones take the transaction below, a statement
 * a partition, so no one parameter nears PostgreSQL's 1 GB. */
#define SUBMIT_ONE_MAX (16u << 20)

static int submit_one(struct cz_fleet *f, struct submit_arg *a, int64_t dl, int *taken)
{
	const struct cz_fleet_job_spec *s = a->s;
	uint32_t n = s->nparts;
	const void **in = calloc(n, sizeof *in), **path = calloc(n, sizeof *path), **dg = calloc(n, sizeof *dg);
	const void **isi = calloc(n, sizeof *isi);
	size_t *inl = calloc(n, sizeof *inl), *pathl = calloc(n, sizeof *pathl), *dgl = calloc(n, sizeof *dgl);
	size_t *isl = calloc(n, sizeof *isl);
	unsigned char *ai = NULL, *ap = NULL, *ad = NULL, *ab = NULL;
	size_t li = 0, lp = 0, ld = 0, lb = 0;
	static const unsigned char yes = 1, no = 0;
	int rc = -ENOMEM;
	*taken = 0;
	if (!in || !path || !dg || !inl || !pathl || !dgl || !isi || !isl)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		const struct cz_fleet_payload *p = &s->parts[i];
		in[i] = p->bytes ? (p->len ? p->bytes : "") : NULL;
		inl[i] = p->bytes ? p->len : 0;
		path[i] = p->bytes ? NULL : p->path;
		pathl[i] = p->bytes ? 0 : strlen(p->path);
		dg[i] = p->bytes ? NULL : p->sha256;
		dgl[i] = 32;
		isi[i] = p->is_input ? &yes : &no;
		isl[i] = 1;
	}
	if (!(ai = array_bin(17, n, in, inl, &li)) || !(ap = array_bin(25, n, path, pathl, &lp)) ||
	    !(ad = array_bin(17, n, dg, dgl, &ld)) || !(ab = array_bin(16, n, isi, isl, &lb)))
		goto out;
	char owner[16], prio[16], np[16];
	snprintf(owner, sizeof owner, "%" PRIu32, s->owner);
	snprintf(prio, sizeof prio, "%u", s->prio);
	snprintf(np, sizeof np, "%" PRIu32, n);
	const char *v[9] = { s->id, owner, prio, s->circuit, np, (const char *)ai, (const char *)ap, (const char *)ad,
			     (const char *)ab };
	int lens[9] = { 0, 0, 0, 0, 0, (int)li, (int)lp, (int)ld, (int)lb };
	int fmts[9] = { 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	rc = 0;
	PGresult *r = q(f, dl, &rc, 0,
			"WITH j AS (INSERT INTO cz_fleet_job (id, owner, prio, circuit, nparts)"
			"  VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING seq),"
			" p AS (INSERT INTO cz_fleet_part (seq, part, prio, input, input_path, input_sha256, is_input)"
			"  SELECT j.seq, g - 1, $3, ($6::bytea[])[g], ($7::text[])[g], ($8::bytea[])[g], ($9::boolean[])[g]"
			"  FROM j, generate_series(1, $5) AS g RETURNING 1)"
			"SELECT j.seq, (SELECT count(*) FROM p), pg_notify('cz_fleet_work', j.seq::text) FROM j",
			9, v, lens, fmts);
	if (!r)
		goto out;
	if (PQntuples(r) == 1) {
		*taken = 1;
		a->seq = (uint64_t)get_i64(r, 0, 0);
		if ((uint32_t)get_i64(r, 0, 1) != n) {
			seterr(f, "fleet: submit '%s': %" PRId64 " partition rows written, not %" PRIu32, s->id,
			       get_i64(r, 0, 1), n);
			rc = -EIO;
		}
	}
	PQclear(r);
out:
	free(ai);
	free(ap);
	free(ad);
	free(ab);
	free(isi);
	free(isl);
	free(in);
	free(path);
	free(dg);
	free(inl);
	free(pathl);
	free(dgl);
	return rc;
}

static int submit_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct submit_arg *a = arg;
	const struct cz_fleet_job_spec *s = a->s;
	char owner[16], prio[16], np[16], seq[24], part[16];
	snprintf(owner, sizeof owner, "%" PRIu32, s->owner);
	snprintf(prio, sizeof prio, "%u", s->prio);
	snprintf(np, sizeof np, "%" PRIu32, s->nparts);
	int rc = 0;
	PGresult *r;
	if (a->inline_bytes <= SUBMIT_ONE_MAX) {
		int taken;
		rc = submit_one(f, a, dl, &taken);
		if (rc < 0 || taken)
			return rc;
		/* The id was there: whose is it? */
		if (!(r = QT(f, dl, &rc, "SELECT seq, owner FROM cz_fleet_job WHERE id = $1", s->id)))
			return rc;
		int ok = PQntuples(r) == 1 && (uint32_t)get_i64(r, 0, 1) == s->owner;
		a->seq = ok ? (uint64_t)get_i64(r, 0, 0) : 0;
		PQclear(r);
		if (!ok) {
			seterr(f, "fleet: job id '%s' is taken by another owner", s->id);
			return -EEXIST;
		}
		return 0;
	}
	if (!(r = QT0(f, dl, &rc, "BEGIN")))
		return rc;
	PQclear(r);
	/* ON CONFLICT DO NOTHING: a retried submit (its reply lost) finds its own row below. */
	if (!(r = QT(f, dl, &rc,
		     "INSERT INTO cz_fleet_job (id, owner, prio, circuit, nparts) VALUES ($1, $2, $3, $4, $5) "
		     "ON CONFLICT (id) DO NOTHING RETURNING seq, pg_notify('cz_fleet_work', seq::text)",
		     s->id, owner, prio, s->circuit, np)))
		return rc;
	if (PQntuples(r) == 0) {
		PQclear(r);
		if (!(r = QT(f, dl, &rc, "SELECT seq, owner FROM cz_fleet_job WHERE id = $1", s->id)))
			return rc;
		int ok = PQntuples(r) == 1 && (uint32_t)get_i64(r, 0, 1) == s->owner;
		a->seq = ok ? (uint64_t)get_i64(r, 0, 0) : 0;
		PQclear(r);
		if (!(r = QT0(f, dl, &rc, "ROLLBACK")))
			return rc;
		PQclear(r);
		if (!ok) {
			seterr(f, "fleet: job id '%s' is taken by another owner", s->id);
			return -EEXIST;
		}
		return 0;
	}
	a->seq = (uint64_t)get_i64(r, 0, 0);
	PQclear(r);
	snprintf(seq, sizeof seq, "%" PRIu64, a->seq);
	for (uint32_t i = 0; i < s->nparts; i++) {
		const struct cz_fleet_payload *p = &s->parts[i];
		snprintf(part, sizeof part, "%" PRIu32, i);
		const char *v[7] = { seq, part, prio, p->bytes ? (const char *)p->bytes : NULL, p->path,
				     p->bytes ? NULL : (const char *)p->sha256, p->is_input ? "t" : "f" };
		int lens[7] = { 0, 0, 0, (int)p->len, 0, 32, 0 };
		int fmts[7] = { 0, 0, 0, 1, 0, 1, 0 };
		if (!(r = q(f, dl, &rc, 0,
			    "INSERT INTO cz_fleet_part (seq, part, prio, input, input_path, input_sha256, is_input) "
			    "VALUES ($1, $2, $3, $4, $5, $6, $7)",
			    7, v, lens, fmts)))
			return rc;
		PQclear(r);
	}
	if (!(r = QT0(f, dl, &rc, "COMMIT")))
		return rc;
	PQclear(r);
	return 0;
}

int cz_fleet_submit(struct cz_fleet *f, const struct cz_fleet_job_spec *s, uint64_t *seq)
{
	if (!s || !s->id || !*s->id || strlen(s->id) >= CZ_FLEET_ID_MAX || !s->circuit ||
	    strlen(s->circuit) >= CZ_FLEET_CIRCUIT_MAX || s->nparts == 0 || !s->parts || s->nparts > 1u << 20) {
		seterr(f, "fleet: submit: a job needs an id (< %d bytes), a circuit (< %d bytes) and 1..%u partitions",
		       CZ_FLEET_ID_MAX, CZ_FLEET_CIRCUIT_MAX, 1u << 20);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < s->nparts; i++) {
		const struct cz_fleet_payload *p = &s->parts[i];
		if (p->bytes && p->len > CZ_FLEET_INLINE_MAX) {
			seterr(f, "fleet: submit '%s': partition %" PRIu32 "'s input is %zu bytes, over the %u the database "
			       "carries: put it on the shared directory and name its path and SHA-256",
			       s->id, i, p->len, CZ_FLEET_INLINE_MAX);
			return -E2BIG;
		}
		if (!p->bytes && (!p->path || p->path[0] != '/')) {
			seterr(f, "fleet: submit '%s': partition %" PRIu32 " has neither bytes nor an absolute shared path",
			       s->id, i);
			return -EINVAL;
		}
	}
	struct submit_arg a = { .s = s };
	for (uint32_t i = 0; i < s->nparts; i++)
		a.inline_bytes += s->parts[i].bytes ? s->parts[i].len : 0;
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, submit_unit, &a);
	unlock(f);
	if (rc == 0)
		*seq = a.seq;
	return rc;
}

/* ------------------------------------------------------------------ claim */

static int held_add(struct cz_fleet *f, struct cz_key k)
{
	if (f->nheld == f->capheld) {
		uint32_t cap = f->capheld ? 2 * f->capheld : 16;
		struct cz_key *h = realloc(f->held, cap * sizeof *h);
		if (!h)
			return -ENOMEM;
		f->held = h;
		f->capheld = cap;
	}
	f->held[f->nheld++] = k;
	return 0;
}

static void held_del(struct cz_fleet *f, struct cz_key k)
{
	for (uint32_t i = 0; i < f->nheld; i++)
		if (f->held[i].seq == k.seq && f->held[i].part == k.part) {
			f->held[i] = f->held[--f->nheld];
			return;
		}
}

struct claim_arg {
	uint32_t max;
	struct cz_fleet_claim *out;
	int n;
};

static int claim_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct claim_arg *a = arg;
	char node[24], max[16], lease[16];
	snprintf(node, sizeof node, "%" PRId64, f->node);
	snprintf(max, sizeof max, "%" PRIu32, a->max);
	snprintf(lease, sizeof lease, "%d", f->lease_ms);
	int64_t sent = now_ns();
	int rc = 0;
	const char *const v[] = { node, max, lease };
	PGresult *r = qp(f, dl, &rc, 1, P_CLAIM,
			"WITH c AS ("
			"  SELECT p.seq, p.part FROM cz_fleet_part p"
			"  WHERE p.state = 0"
			"    AND EXISTS (SELECT 1 FROM cz_fleet_job j WHERE j.seq = p.seq AND j.state = 0)"
			"  ORDER BY p.prio, p.seq, p.part LIMIT $2"
			"  FOR UPDATE OF p SKIP LOCKED),"
			" u AS ("
			"  UPDATE cz_fleet_part p SET state = 1, node = $1,"
			"    lease_until = now() + $3 * interval '1 millisecond', attempts = p.attempts + 1"
			"  FROM c WHERE p.seq = c.seq AND p.part = c.part"
			"  RETURNING p.seq, p.part, p.prio, p.attempts, p.input, p.input_path, p.input_sha256, p.is_input)"
			"SELECT u.seq, u.part, u.prio, u.attempts, u.input, u.input_path, u.input_sha256,"
			"  j.id, j.circuit, j.owner, u.is_input"
			" FROM u JOIN cz_fleet_job j ON j.seq = u.seq ORDER BY u.prio, u.seq, u.part",
			3, v, NULL, NULL);
	if (!r)
		return rc;
	int n = PQntuples(r);
	for (int i = 0; i < n && (uint32_t)i < a->max; i++) {
		struct cz_fleet_claim *c = &a->out[i];
		memset(c, 0, sizeof *c);
		c->key.seq = (uint64_t)get_i64(r, i, 0);
		c->key.part = (uint32_t)get_i64(r, i, 1);
		c->key.prio = (uint32_t)get_i64(r, i, 2);
		c->attempt = (uint32_t)get_i64(r, i, 3);
		if (!PQgetisnull(r, i, 4)) {
			c->input_len = (size_t)PQgetlength(r, i, 4);
			c->input = malloc(c->input_len ? c->input_len : 1);
			if (c->input)
				memcpy(c->input, PQgetvalue(r, i, 4), c->input_len);
		}
		if (!PQgetisnull(r, i, 5))
			c->input_path = strdup(PQgetvalue(r, i, 5));
		if (!PQgetisnull(r, i, 6) && PQgetlength(r, i, 6) == 32)
			memcpy(c->sha256, PQgetvalue(r, i, 6), 32);
		get_str(r, i, 7, c->id, sizeof c->id);
		get_str(r, i, 8, c->circuit, sizeof c->circuit);
		c->owner = (uint32_t)get_i64(r, i, 9);
		c->is_input = get_i64(r, i, 10) != 0;
		/* Out of memory for the input: the claim stands with neither input nor path, and
		 * cz_fleet_payload_load says -ENOENT; the caller fails it. */
		held_add(f, c->key);
	}
	PQclear(r);
	if (n > 0)
		f->leases_until_ns = sent + (int64_t)f->lease_ms * 1000000;
	f->st.claimed += (uint64_t)n;
	a->n = n;
	return rc;
}

/* Expired leases back to the queue (rows another statement has locked are
 * left for the next time).  Returns how many. */
static int reap_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	int rc = 0;
	PGresult *r = qp(f, dl, &rc, 0, P_REAP,
			 "WITH e AS (SELECT seq, part FROM cz_fleet_part WHERE state = 1 AND lease_until < now()"
			 "  FOR UPDATE SKIP LOCKED),"
			 " u AS (UPDATE cz_fleet_part p SET state = 0, node = NULL, lease_until = NULL"
			 "  FROM e WHERE p.seq = e.seq AND p.part = e.part RETURNING 1)"
			 " SELECT n, CASE WHEN n > 0 THEN pg_notify('cz_fleet_work', '') END"
			 " FROM (SELECT count(*) AS n FROM u) c",
			 0, NULL, NULL, NULL);
	if (!r)
		return rc;
	*(int *)arg = PQntuples(r) == 1 ? (int)get_i64(r, 0, 0) : 0;
	PQclear(r);
	return 0;
}

int cz_fleet_claim(struct cz_fleet *f, uint32_t max, struct cz_fleet_claim *out)
{
	if (max == 0)
		return 0;
	if (!f->node) {
		seterr(f, "fleet: claim before cz_fleet_node_register");
		return -EINVAL;
	}
	struct claim_arg a = { .max = max, .out = out };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, claim_unit, &a);
	int reaped = 0;
	/* Fewer than asked: expired leases may be waiting; reap them and claim once more. */
	if (rc == 0 && (uint32_t)a.n < max && run_unit(f, reap_unit, &reaped) == 0 && reaped > 0) {
		struct claim_arg b = { .max = max - (uint32_t)a.n, .out = out + a.n };
		rc = run_unit(f, claim_unit, &b);
		a.n += rc == 0 ? b.n : 0;
		rc = a.n > 0 ? 0 : rc;
	}
	f->st.reaped += (uint64_t)reaped;
	unlock(f);
	return rc < 0 ? rc : a.n;
}

void cz_fleet_claim_free(struct cz_fleet_claim *c)
{
	free(c->input);
	free(c->input_path);
	c->input = NULL;
	c->input_path = NULL;
}

int cz_fleet_payload_load(const struct cz_fleet_claim *c, size_t max, void **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (c->input) {
		if (c->input_len > max)
			return -E2BIG;
		void *b = malloc(c->input_len ? c->input_len : 1);
		if (!b)
			return -ENOMEM;
		memcpy(b, c->input, c->input_len);
		*buf = b;
		*len = c->input_len;
		return 0;
	}
	if (!c->input_path)
		return -ENOENT;
	int fd = open(c->input_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uint64_t)sb.st_size > max) {
		int e = S_ISREG(sb.st_mode) ? -E2BIG : -EINVAL;
		close(fd);
		return e;
	}
	size_t n = (size_t)sb.st_size, got = 0;
	unsigned char *b = malloc(n ? n : 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (got < n) {
		ssize_t k = read(fd, b + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	unsigned char md[32];
	unsigned mdlen = 0;
	if (got != n || !EVP_Digest(b, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32 ||
	    memcmp(md, c->sha256, 32) != 0) {
		free(b);
		return got != n ? -EIO : -EBADMSG;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* ------------------------------------------------------------------ renew */

static int renew_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	int *renewed = arg;
	/* The held set as two text arrays: {seq,...} and {part,...}. */
	size_t cap = 32 + (size_t)f->nheld * 24;
	char *seqs = malloc(cap), *parts = malloc(cap);
	if (!seqs || !parts) {
		free(seqs);
		free(parts);
		return -ENOMEM;
	}
	size_t ns = 0, np = 0;
	seqs[ns++] = '{';
	parts[np++] = '{';
	for (uint32_t i = 0; i < f->nheld; i++) {
		ns += (size_t)snprintf(seqs + ns, cap - ns, "%s%" PRIu64, i ? "," : "", f->held[i].seq);
		np += (size_t)snprintf(parts + np, cap - np, "%s%" PRIu32, i ? "," : "", f->held[i].part);
	}
	snprintf(seqs + ns, cap - ns, "}");
	snprintf(parts + np, cap - np, "}");
	char node[24], lease[16];
	snprintf(node, sizeof node, "%" PRId64, f->node);
	snprintf(lease, sizeof lease, "%d", f->lease_ms);
	int64_t sent = now_ns();
	int rc = 0;
	const char *const v[] = { node, lease, seqs, parts, f->duty[0] ? f->duty : NULL, f->cause[0] ? f->cause : NULL };
	PGresult *r = qp(f, dl, &rc, 0, P_RENEW,
			 "WITH h AS (UPDATE cz_fleet_node SET heartbeat = now(), duty_10s = $5::real, idle_cause = $6"
			 "  WHERE id = $1)"
			 " UPDATE cz_fleet_part p SET lease_until = now() + $2 * interval '1 millisecond'"
			 " FROM unnest($3::bigint[], $4::integer[]) AS k(seq, part)"
			 " WHERE p.seq = k.seq AND p.part = k.part AND p.node = $1 AND p.state = 1"
			 "   AND p.lease_until >= now()"
			 "   AND EXISTS (SELECT 1 FROM cz_fleet_job j WHERE j.seq = p.seq AND j.state = 0)"
			 " RETURNING p.seq, p.part",
			 6, v, NULL, NULL);
	free(seqs);
	free(parts);
	if (!r)
		return rc;
	int n = PQntuples(r);
	/* Keep exactly the rows renewed: mark them, then compact. */
	uint32_t keep = 0;
	for (uint32_t i = 0; i < f->nheld; i++) {
		int found = 0;
		for (int j = 0; j < n && !found; j++)
			found = (uint64_t)get_i64(r, j, 0) == f->held[i].seq &&
				(uint32_t)get_i64(r, j, 1) == f->held[i].part;
		if (found)
			f->held[keep++] = f->held[i];
		else
			f->st.lost++;
	}
	f->nheld = keep;
	PQclear(r);
	f->leases_until_ns = sent + (int64_t)f->lease_ms * 1000000;
	*renewed = n;
	return 0;
}

void cz_fleet_node_duty(struct cz_fleet *f, double duty, const char *cause)
{
	pthread_mutex_lock(&f->lock);
	if (duty >= 0)
		snprintf(f->duty, sizeof f->duty, "%.4f", duty > 1 ? 1.0 : duty);
	else
		f->duty[0] = 0;
	snprintf(f->cause, sizeof f->cause, "%s", cause ? cause : "");
	unlock(f);
}

int cz_fleet_renew(struct cz_fleet *f)
{
	if (!f->node)
		return -EINVAL;
	int n = 0, reaped = 0;
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, renew_unit, &n);
	/* Every live node reaps too, so a dead node's partitions are queued again at most one
	 * renew interval after their lease, even while every claimer finds other work. */
	if (rc == 0 && run_unit(f, reap_unit, &reaped) == 0)
		f->st.reaped += (uint64_t)reaped;
	unlock(f);
	return rc < 0 ? rc : n;
}

bool cz_fleet_leases_live(struct cz_fleet *f)
{
	pthread_mutex_lock(&f->pub_lock);       /* as cz_fleet_stats_get */
	bool live = now_ns() < f->pub_leases_until_ns;
	pthread_mutex_unlock(&f->pub_lock);
	return live;
}

uint32_t cz_fleet_held(struct cz_fleet *f)
{
	pthread_mutex_lock(&f->lock);
	uint32_t n = f->nheld;
	unlock(f);
	return n;
}

bool cz_fleet_holds(struct cz_fleet *f, struct cz_key k)
{
	bool has = false;
	pthread_mutex_lock(&f->lock);
	for (uint32_t i = 0; i < f->nheld && !has; i++)
		has = f->held[i].seq == k.seq && f->held[i].part == k.part;
	unlock(f);
	return has;
}

/* ---------------------------------------------------------------- release */

struct release_arg {
	const struct cz_fleet_stale *k;
	uint32_t n;
	int released;
};

/* The keys as three text arrays {seq,...} {part,...} {attempt,...}; NULL when out of memory. */
static char *stale_arrays(const struct cz_fleet_stale *k, uint32_t n, char **parts, char **atts)
{
	size_t cap = 32 + (size_t)n * 24, ns = 0, np = 0, na = 0;
	char *seqs = malloc(cap);
	*parts = malloc(cap);
	*atts = malloc(cap);
	if (!seqs || !*parts || !*atts) {
		free(seqs), free(*parts), free(*atts);
		return NULL;
	}
	seqs[ns++] = (*parts)[np++] = (*atts)[na++] = '{';
	for (uint32_t i = 0; i < n; i++) {
		const char *c = i ? "," : "";
		ns += (size_t)snprintf(seqs + ns, cap - ns, "%s%" PRIu64, c, k[i].key.seq);
		np += (size_t)snprintf(*parts + np, cap - np, "%s%" PRIu32, c, k[i].key.part);
		na += (size_t)snprintf(*atts + na, cap - na, "%s%" PRIu32, c, k[i].attempt);
	}
	snprintf(seqs + ns, cap - ns, "}");
	snprintf(*parts + np, cap - np, "}");
	snprintf(*atts + na, cap - na, "}");
	return seqs;
}

static int release_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct release_arg *a = arg;
	char *parts, *atts, *seqs = stale_arrays(a->k, a->n, &parts, &atts);
	if (!seqs)
		return -ENOMEM;
	int rc = 0;
	/* Still claimed, by the claim that made the key (a claim again would have raised attempts):
	 * queued again now, and the claimers woken. */
	PGresult *r = QT(f, dl, &rc,
			 "WITH u AS (UPDATE cz_fleet_part p SET state = 0, node = NULL, lease_until = NULL"
			 "  FROM unnest($1::bigint[], $2::integer[], $3::integer[]) AS k(seq, part, attempt)"
			 "  WHERE p.seq = k.seq AND p.part = k.part AND p.state = 1 AND p.attempts = k.attempt"
			 "  RETURNING p.seq)"
			 " SELECT count(*), CASE WHEN count(*) > 0 THEN pg_notify('cz_fleet_work', '') END FROM u",
			 seqs, parts, atts);
	free(seqs), free(parts), free(atts);
	if (!r)
		return rc;
	a->released = (int)get_i64(r, 0, 0);
	PQclear(r);
	return 0;
}

int cz_fleet_release(struct cz_fleet *f, const struct cz_fleet_stale *keys, uint32_t n)
{
	if (!n)
		return 0;
	struct release_arg a = { .k = keys, .n = n };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, release_unit, &a);
	unlock(f);
	return rc < 0 ? rc : a.released;
}

/* ----------------------------------------------------------- finish, fail */

struct finish_arg {
	struct cz_key key;
	const void *proof;
	size_t len;
	int result;
};

static int finish_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct finish_arg *a = arg;
	char seq[24], part[16], node[24];
	snprintf(seq, sizeof seq, "%" PRIu64, a->key.seq);
	snprintf(part, sizeof part, "%" PRIu32, a->key.part);
	snprintf(node, sizeof node, "%" PRId64, f->node);
	const char *v[4] = { seq, part, a->proof, node };
	int lens[4] = { 0, 0, (int)a->len, 0 };
	int fmts[4] = { 0, 0, 1, 0 };
	int rc = 0;
	/* The first finish wins: only a row still queued or claimed takes a proof. */
	PGresult *r = qp(f, dl, &rc, 0, P_FINISH,
			"WITH u AS (UPDATE cz_fleet_part SET state = 2, proof = $3, proved_by = $4, node = NULL,"
			"  lease_until = NULL, finished = now()"
			"  WHERE seq = $1 AND part = $2 AND state IN (0, 1) RETURNING seq)"
			" SELECT pg_notify('cz_fleet_done', u.seq::text) FROM u",
			4, v, lens, fmts);
	if (!r)
		return rc;
	int won = PQntuples(r) == 1;
	PQclear(r);
	if (won) {
		a->result = 0;
		return 0;
	}
	const char *const dv[] = { seq, part };
	if (!(r = qp(f, dl, &rc, 0, P_DUP,
		     "UPDATE cz_fleet_part SET duplicates = duplicates + 1 WHERE seq = $1 AND part = $2 AND state = 2 "
		     "RETURNING 1",
		     2, dv, NULL, NULL)))
		return rc;
	int dup = PQntuples(r) == 1;
	PQclear(r);
	if (dup) {
		a->result = 1;
		return 0;
	}
	if (!(r = QT(f, dl, &rc, "SELECT state FROM cz_fleet_part WHERE seq = $1 AND part = $2", seq, part)))
		return rc;
	int exists = PQntuples(r) == 1;
	PQclear(r);
	seterr(f, "fleet: finish %" PRIu64 "/%" PRIu32 ": %s", a->key.seq, a->key.part,
	       exists ? "its job has ended" : "no such partition");
	return exists ? -ECANCELED : -ENOENT;
}

int cz_fleet_finish(struct cz_fleet *f, struct cz_key key, const void *proof, size_t len)
{
	if (!proof || len > CZ_FLEET_INLINE_MAX) {
		seterr(f, "fleet: finish: a proof of 1..%u bytes", CZ_FLEET_INLINE_MAX);
		return -EINVAL;
	}
	struct finish_arg a = { .key = key, .proof = proof, .len = len };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, finish_unit, &a);
	if (rc == 0 || rc == -ECANCELED || rc == -ENOENT)
		held_del(f, key);
	if (rc == 0)
		a.result ? f->st.duplicates++ : f->st.finished++;
	unlock(f);
	return rc < 0 ? rc : a.result;
}

struct fail_arg {
	struct cz_key key;
	const char *why;
	int result;
};

static int fail_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct fail_arg *a = arg;
	char seq[24], part[16], node[24], maxa[16];
	snprintf(seq, sizeof seq, "%" PRIu64, a->key.seq);
	snprintf(part, sizeof part, "%" PRIu32, a->key.part);
	snprintf(node, sizeof node, "%" PRId64, f->node);
	snprintf(maxa, sizeof maxa, "%d", f->max_attempts);
	int rc = 0;
	PGresult *r = QT(f, dl, &rc,
			 "UPDATE cz_fleet_part SET state = CASE WHEN attempts >= $4 THEN 3 ELSE 0 END,"
			 " node = NULL, lease_until = NULL, error = $5"
			 " WHERE seq = $1 AND part = $2 AND state = 1 AND node = $3"
			 " RETURNING state, pg_notify(CASE WHEN state = 0 THEN 'cz_fleet_work' ELSE 'cz_fleet_done' END,"
			 "  seq::text)",
			 seq, part, node, maxa, a->why ? a->why : "");
	if (!r)
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		seterr(f, "fleet: fail %" PRIu64 "/%" PRIu32 ": not held by this node", a->key.seq, a->key.part);
		return -ENOENT;
	}
	int failed = get_i64(r, 0, 0) == 3;
	PQclear(r);
	a->result = failed;
	if (!failed)
		return 0;
	/* Each its own statement (autocommit): the part's row lock is released
	 * before the job's is taken, and the job's before the sweep's. */
	if (!(r = QT(f, dl, &rc,
		     "UPDATE cz_fleet_job SET state = 2, ended = now(), error = $2 WHERE seq = $1 AND state = 0"
		     " RETURNING pg_notify('cz_fleet_done', seq::text)", seq,
		     a->why ? a->why : "")))
		return rc;
	PQclear(r);
	if (!(r = QT(f, dl, &rc, "UPDATE cz_fleet_part SET state = 4 WHERE seq = $1 AND state IN (0, 1)", seq)))
		return rc;
	PQclear(r);
	return 0;
}

int cz_fleet_fail(struct cz_fleet *f, struct cz_key key, const char *why)
{
	struct fail_arg a = { .key = key, .why = why };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, fail_unit, &a);
	if (rc == 0 || rc == -ENOENT)
		held_del(f, key);
	unlock(f);
	return rc < 0 ? rc : a.result;
}

struct proof_arg {
	struct cz_key key;
	void *buf;
	size_t len;
};

static int proof_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct proof_arg *a = arg;
	char seq[24], part[16];
	snprintf(seq, sizeof seq, "%" PRIu64, a->key.seq);
	snprintf(part, sizeof part, "%" PRIu32, a->key.part);
	const char *const v[] = { seq, part };
	int rc = 0;
	PGresult *r = q(f, dl, &rc, 1, "SELECT proof FROM cz_fleet_part WHERE seq = $1 AND part = $2 AND state = 2",
			2, v, NULL, NULL);
	if (!r)
		return rc;
	if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return -ENOENT;
	}
	a->len = (size_t)PQgetlength(r, 0, 0);
	a->buf = malloc(a->len ? a->len : 1);
	if (a->buf)
		memcpy(a->buf, PQgetvalue(r, 0, 0), a->len);
	PQclear(r);
	return a->buf ? 0 : -ENOMEM;
}

int cz_fleet_proof(struct cz_fleet *f, struct cz_key key, void **buf, size_t *len)
{
	struct proof_arg a = { .key = key };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, proof_unit, &a);
	unlock(f);
	if (rc == 0) {
		*buf = a.buf;
		*len = a.len;
	}
	return rc;
}

/* ------------------------------------------------ find, status, cancel */

struct find_arg {
	const char *id;
	uint64_t seq;
};

static int find_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct find_arg *a = arg;
	int rc = 0;
	PGresult *r = QT(f, dl, &rc, "SELECT seq FROM cz_fleet_job WHERE id = $1", a->id);
	if (!r)
		return rc;
	rc = PQntuples(r) == 1 ? 0 : -ENOENT;
	if (rc == 0)
		a->seq = (uint64_t)get_i64(r, 0, 0);
	PQclear(r);
	return rc;
}

int cz_fleet_find(struct cz_fleet *f, const char *id, uint64_t *seq)
{
	struct find_arg a = { .id = id };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, find_unit, &a);
	unlock(f);
	if (rc == 0)
		*seq = a.seq;
	else if (rc == -ENOENT)
		seterr(f, "fleet: no job '%s'", id);
	return rc;
}

struct status_arg {
	uint64_t seq;
	struct cz_fleet_status *st;
};

static int status_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct status_arg *a = arg;
	char seq[24];
	snprintf(seq, sizeof seq, "%" PRIu64, a->seq);
	int rc = 0;
	PGresult *r = QT(f, dl, &rc,
			 "SELECT j.id, j.owner, j.prio, j.nparts, j.state,"
			 "  count(*) FILTER (WHERE p.state = 0), count(*) FILTER (WHERE p.state = 1),"
			 "  count(*) FILTER (WHERE p.state = 2), count(*) FILTER (WHERE p.state = 3),"
			 "  coalesce(sum(p.duplicates), 0)"
			 " FROM cz_fleet_job j LEFT JOIN cz_fleet_part p ON p.seq = j.seq"
			 " WHERE j.seq = $1 GROUP BY j.seq",
			 seq);
	if (!r)
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		seterr(f, "fleet: no job with seq %" PRIu64, a->seq);
		return -ENOENT;
	}
	struct cz_fleet_status *st = a->st;
	memset(st, 0, sizeof *st);
	st->seq = a->seq;
	get_str(r, 0, 0, st->id, sizeof st->id);
	st->owner = (uint32_t)get_i64(r, 0, 1);
	st->prio = (unsigned)get_i64(r, 0, 2);
	st->nparts = (uint32_t)get_i64(r, 0, 3);
	int js = (int)get_i64(r, 0, 4);
	st->queued = (uint32_t)get_i64(r, 0, 5);
	st->claimed = (uint32_t)get_i64(r, 0, 6);
	st->done = (uint32_t)get_i64(r, 0, 7);
	st->failed = (uint32_t)get_i64(r, 0, 8);
	st->duplicates = (uint64_t)get_i64(r, 0, 9);
	st->state = js == 2 ? CZ_FLEET_JOB_FAILED
		  : js == 3 ? CZ_FLEET_JOB_CANCELLED
		  : st->done == st->nparts ? CZ_FLEET_JOB_DONE
					    : CZ_FLEET_JOB_LIVE;
	PQclear(r);
	return 0;
}

int cz_fleet_status(struct cz_fleet *f, uint64_t seq, struct cz_fleet_status *st)
{
	struct status_arg a = { .seq = seq, .st = st };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, status_unit, &a);
	unlock(f);
	return rc;
}

struct cancel_arg {
	uint64_t seq;
	uint32_t uid;
	bool admin;
};

static int cancel_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct cancel_arg *a = arg;
	char seq[24], uid[16];
	snprintf(seq, sizeof seq, "%" PRIu64, a->seq);
	snprintf(uid, sizeof uid, "%" PRIu32, a->uid);
	int rc = 0;
	PGresult *r = QT(f, dl, &rc,
			 "UPDATE cz_fleet_job SET state = 3, ended = now()"
			 " WHERE seq = $1 AND state = 0 AND (owner = $2 OR $3::boolean)"
			 " RETURNING pg_notify('cz_fleet_done', seq::text)",
			 seq, uid, a->admin ? "true" : "false");
	if (!r)
		return rc;
	int done = PQntuples(r) == 1;
	PQclear(r);
	if (!done) {
		if (!(r = QT(f, dl, &rc, "SELECT owner, state FROM cz_fleet_job WHERE seq = $1", seq)))
			return rc;
		int n = PQntuples(r);
		uint32_t owner = n ? (uint32_t)get_i64(r, 0, 0) : 0;
		int state = n ? (int)get_i64(r, 0, 1) : 0;
		PQclear(r);
		if (!n) {
			seterr(f, "fleet: cancel: no job with seq %" PRIu64, a->seq);
			return -ENOENT;
		}
		if (!a->admin && owner != a->uid) {
			seterr(f, "fleet: cancel: job %" PRIu64 " belongs to uid %" PRIu32 ", not %" PRIu32, a->seq, owner,
			       a->uid);
			return -EPERM;
		}
		(void)state;
		seterr(f, "fleet: cancel: job %" PRIu64 " has ended", a->seq);
		return -EALREADY;
	}
	/* Its own statement, after the job's row lock is released (see fail_unit). */
	if (!(r = QT(f, dl, &rc, "UPDATE cz_fleet_part SET state = 4 WHERE seq = $1 AND state IN (0, 1)", seq)))
		return rc;
	PQclear(r);
	return 0;
}

int cz_fleet_cancel(struct cz_fleet *f, uint64_t seq, uint32_t uid, bool admin)
{
	struct cancel_arg a = { .seq = seq, .uid = uid, .admin = admin };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, cancel_unit, &a);
	unlock(f);
	return rc;
}

/* ------------------------------------------------------------------ prune */

struct prune_arg {
	int64_t retain_ms;
	int jobs, nodes;
};

static int prune_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	struct prune_arg *a = arg;
	char ms[24], lim[16];
	snprintf(ms, sizeof ms, "%" PRId64, a->retain_ms);
	snprintf(lim, sizeof lim, "%d", CZ_FLEET_PRUNE_BATCH);
	int rc = 0;
	/* Ended: failed or cancelled with ended set; or done, derived (every
	 * partition done), at its last partition's finish. */
	PGresult *r = QT(f, dl, &rc,
			 "WITH old AS (SELECT j.seq FROM cz_fleet_job j"
			 "  WHERE (j.state <> 0 AND j.ended < now() - $1::bigint * interval '1 millisecond')"
			 "     OR (j.state = 0 AND NOT EXISTS (SELECT 1 FROM cz_fleet_part p WHERE p.seq = j.seq"
			 "          AND (p.state <> 2 OR p.finished >= now() - $1::bigint * interval '1 millisecond')))"
			 "  ORDER BY j.seq LIMIT $2::integer FOR UPDATE SKIP LOCKED),"
			 " dj AS (DELETE FROM cz_fleet_job j USING old WHERE j.seq = old.seq RETURNING 1),"
			 " dn AS (DELETE FROM cz_fleet_node n"
			 "  WHERE n.heartbeat < now() - $1::bigint * interval '1 millisecond'"
			 "    AND NOT EXISTS (SELECT 1 FROM cz_fleet_part p WHERE p.node = n.id AND p.state = 1) RETURNING 1)"
			 " SELECT (SELECT count(*) FROM dj), (SELECT count(*) FROM dn)",
			 ms, lim);
	if (!r)
		return rc;
	a->jobs = (int)get_i64(r, 0, 0);
	a->nodes = (int)get_i64(r, 0, 1);
	PQclear(r);
	return 0;
}

int cz_fleet_prune(struct cz_fleet *f, int64_t retain_ms, int *nodes)
{
	struct prune_arg a = { .retain_ms = retain_ms < 0 ? 0 : retain_ms };
	pthread_mutex_lock(&f->lock);
	int rc = run_unit(f, prune_unit, &a);
	unlock(f);
	if (nodes)
		*nodes = rc == 0 ? a.nodes : 0;
	return rc < 0 ? rc : a.jobs;
}

/* ---------------------------------------------------------- LISTEN/NOTIFY */

static const char *const channel_name[] = { "cz_fleet_work", "cz_fleet_done" };

/* The notifications libpq has read on this connection, into f->heard. */
static void notifies_drain(struct cz_fleet *f)
{
	PGnotify *nt;
	while (f->pg && (nt = PQnotifies(f->pg))) {
		if (!strcmp(nt->relname, channel_name[0]))
			f->heard |= CZ_FLEET_CH_WORK;
		else if (!strcmp(nt->relname, channel_name[1])) {
			f->heard |= CZ_FLEET_CH_DONE;
			f->heard_seq = strtoull(nt->extra, NULL, 10);
			if (f->want_seq && f->heard_seq == f->want_seq)
				f->heard |= CZ_FLEET_CH__SEQ;
		}
		PQfreemem(nt);
	}
}

static int listen_unit(struct cz_fleet *f, void *arg, int64_t dl)
{
	(void)arg;
	for (unsigned c = 0; c < 2; c++) {
		if (!(f->listen & 1u << c) || (f->listening & 1u << c))
			continue;
		char sql[64];
		snprintf(sql, sizeof sql, "LISTEN %s", channel_name[c]);
		int rc = 0;
		PGresult *r = QT0(f, dl, &rc, sql);
		if (!r)
			return rc;
		PQclear(r);
		f->listening |= 1u << c;
	}
	return 0;
}

int cz_fleet_listen(struct cz_fleet *f, unsigned channels)
{
	pthread_mutex_lock(&f->lock);
	if (f->notify_off) {
		seterr(f, "fleet: no LISTEN: %s", f->notify_why);
		unlock(f);
		return -EIO;
	}
	f->listen |= channels & (CZ_FLEET_CH_WORK | CZ_FLEET_CH_DONE);
	int rc = run_unit(f, listen_unit, NULL);
	if (rc == -EIO) {
		f->listen = 0;
		f->st.listen_refused = 1;
	}
	unlock(f);
	return rc;
}

/* Under f->lock: the connection made again (at most once a second) and
 * LISTEN issued on it; false while the database is away. */
static bool listen_ready(struct cz_fleet *f)
{
	if (!f->listen)
		return false;   /* the server refused LISTEN: the waiters' fallback polls alone */
	if (f->pg && PQstatus(f->pg) == CONNECTION_OK && (f->listening & f->listen) == f->listen)
		return true;
	if (now_ns() < f->next_try_ns)
		return false;
	int rc = run_unit(f, listen_unit, NULL);
	if (rc == 0)
		return true;
	if (rc == -EIO) {       /* a server without LISTEN (YugabyteDB's YSQL): never asked again */
		f->listen = 0;
		f->st.listen_refused = 1;
		return false;
	}
	f->next_try_ns = now_ns() + 1000000000LL;
	drop(f);
	return false;
}

int cz_fleet_listen_again(struct cz_fleet *f)
{
	pthread_mutex_lock(&f->lock);
	drop(f);
	f->next_try_ns = 0;
	int rc = listen_ready(f) ? 0 : -ENOTCONN;
	unlock(f);
	return rc;
}

int cz_fleet_wait(struct cz_fleet *f, int extra_fd, int timeout_ms)
{
	int64_t deadline = now_ns() + (int64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000;
	pthread_mutex_lock(&f->lock);
	bool up = listen_ready(f);
	int got = 0;
	for (;;) {
		notifies_drain(f);
		got = (int)f->heard;
		if (got)
			break;
		struct pollfd p[2] = { { .fd = up && f->pg ? PQsocket(f->pg) : -1, .events = POLLIN },
				       { .fd = extra_fd, .events = POLLIN } };
		int ms = remaining_ms(deadline);
		if (ms == 0)
			break;
		int r = poll(p, 2, ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && (p[1].revents & POLLIN)) {
			got = CZ_FLEET_CH__FD;
			break;
		}
		if (r > 0 && p[0].revents) {
			if (!PQconsumeInput(f->pg)) {   /* the connection broke: again later, bounded */
				drop(f);
				up = false;
			}
		}
	}
	f->heard = 0;
	unlock(f);
	return got;
}

/* Waits until the job is no longer live: its status again when a "done"
 * notification names it, and at least every CZ_FLEET_AWAIT_POLL_MS (the
 * fallback, should a notification be lost with a connection), at most
 * timeout_ms. */
int cz_fleet_await(struct cz_fleet *f, uint64_t seq, int timeout_ms, struct cz_fleet_status *st)
{
	int64_t deadline = now_ns() + (int64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000;
	pthread_mutex_lock(&f->lock);
	if (!f->st.listen_refused && !f->notify_off)
		f->listen |= CZ_FLEET_CH_DONE;
	f->want_seq = seq;
	unlock(f);
	for (;;) {
		/* LISTEN before the status, so a finish between them is heard. */
		pthread_mutex_lock(&f->lock);
		listen_ready(f);
		unlock(f);
		int rc = cz_fleet_status(f, seq, st);
		if (rc < 0 && rc != -ENOTCONN && rc != -ETIMEDOUT)
			return rc;
		if (rc == 0 && st->state != CZ_FLEET_JOB_LIVE)
			return 0;
		int left = remaining_ms(deadline);
		if (left == 0) {
			seterr(f, "fleet: await %" PRIu64 ": still live after %d ms", seq, timeout_ms);
			return -ETIMEDOUT;
		}
		int64_t until = now_ns() + (int64_t)(left < CZ_FLEET_AWAIT_POLL_MS ? left : CZ_FLEET_AWAIT_POLL_MS) * 1000000;
		bool named = false;
		while (!named && now_ns() < until)
			named = cz_fleet_wait(f, -1, remaining_ms(until)) & CZ_FLEET_CH__SEQ;
		pthread_mutex_lock(&f->lock);
		named ? f->st.await_notified++ : f->st.await_fallback++;
		unlock(f);
	}
}

#endif /* CZ_HAVE_LIBPQ */

/* SPDX-License-Identifier: MIT */
/*
 * engine/control/fleet_node.c — cuzkd as a node of a fleet (issue #27,
 * `cuzkd --fleet URL`): the daemon's side of engine/fleet/.
 *
 * WHAT
 *   With --fleet, the database is the source of truth for jobs: the
 *   control plane's submit, await, status and cancel go to the database
 *   (engine/control/ops.c routes them here), and a claim thread takes
 *   partitions from it and feeds each into the local pipeline exactly as
 *   a local submit is fed: a one-partition local job named
 *   "fleet-SEQ.PART.ATTEMPT" (cz_req_submit_cached: spooled, journalled,
 *   dispatched, proved, verified by the finalizer), at the claim's
 *   priority.  The local job is the database row's cache: it is queued
 *   without waiting for a local fsync (its spool copy and journal record
 *   reach the disk with the journal's next group commit, off the claim
 *   path), so feeding a claim costs memory copies, not a commit each (it
 *   cost one journal commit per partition, serially: docs/BENCHMARKS.md
 *   "Fleet: the claim path").  When that local job is done its verified proof
 *   ({"proof":…,"public":…}, the two files the job wrote) is finished to
 *   the database (the first verified proof wins); when it fails the
 *   partition is failed there (requeued until its attempts run out).
 *
 * CLAIMS
 *   The node claims no more than it can start: its consumers (e->ncons)
 *   less the fleet partitions it holds (claimed, not yet finished), so
 *   the fleet-wide order bound is the fleet's total consumer count.  The
 *   claim thread sleeps on its own connection (LISTEN cz_fleet_work: a
 *   submit, a requeue, reaped leases anywhere in the fleet) and on an
 *   eventfd the journal's commit hook writes (a local job's end became
 *   durable), with a bounded fallback (CZ_FNODE_POLL_MS while it holds
 *   work, CZ_FNODE_IDLE_MS while not; without notifications -- --fleet-notify
 *   off, or auto on a database that refused the first handle's probe, whose
 *   answer every later handle takes -- it polls, CZ_FNODE_POLL_MS_NOLISTEN
 *   and CZ_FNODE_IDLE_MS_NOLISTEN).  Once the node's database connection
 *   has been made again (it broke: a cut link, a server restart) the claim
 *   thread makes its LISTEN connection again too, before its next claim:
 *   behind a link that was down that connection is alive but deaf -- the
 *   server's NOTIFY waits for its TCP retransmit, seconds after the link
 *   is back -- and the node would claim only by the fallback, losing every
 *   short burst of work to the others.  Awake, it looks at the local jobs
 *   it feeds (a zero-timeout await), finishes or fails those that ended
 *   (the first finish or fail that finds the database away ends that for
 *   the round, so a round costs one statement bound, not one per held
 *   partition; status fleet.this.away_rounds counts them), then claims
 *   for the free consumers.  Every claim is a trace event ("fleet_claim": job = the
 *   fleet's seq, part, arg = the claim's latency in µs; "fleet_empty": a
 *   claim for free consumers that found no claimable work), so a device's
 *   idle can be named "no claimable work" versus "claim latency".
 *
 * LEASES
 *   A renew thread calls cz_fleet_renew every lease/3 (heartbeat, with
 *   this node's duty over the last 10 s and its main idle cause, leases
 *   extended, expired ones fleet-wide reaped).  Once cz_fleet_leases_live
 *   turns false (cut off from the database for a lease) the node stops
 *   claiming; it still finishes what it holds when the database is back
 *   (first proof wins; a partition proved elsewhere meanwhile is a
 *   duplicate).  A node that stops (SIGTERM) or dies leaves its partitions
 *   to the lease: they return to the queue after it and are proved
 *   elsewhere.
 *
 * RESTART
 *   A node restarted on its state directory finds its fed claims in the
 *   journal as unfinished local jobs named fleet-SEQ.PART.ATTEMPT.  Proved
 *   again as local work, nothing would finish them (the claim thread that
 *   fed them is gone): wasted devices.  So cz_engine_fleet_drop_stale,
 *   before the keys load (nothing of them queued yet), cancels every such
 *   job (journalled: not again at the next start), and the join releases
 *   their partitions at registration (cz_fleet_release: those still
 *   claimed by that very claim go back to the queue at once, not a lease
 *   later; one claimed again since is left alone).  The database stays the
 *   source of truth: a partition is proved from its row, by whoever claims
 *   it next.
 *
 * PAYLOADS
 *   A submit's witnesses travel through the database up to
 *   CZ_FNODE_INLINE_MAX bytes each; a larger one must be named by an
 *   absolute path on a directory every node shares, and travels as that
 *   path and its SHA-256 (checked by the claimer, cz_fleet_payload_load).
 *   A claimed input is handed to the local job as a memory file (no file
 *   on the state directory); the local job's proof directory is removed
 *   once the database has the proof.  await writes a done job's proofs to
 *   STATE/fleet-proofs/ID/K.proof.json and K.public.json (the layout of
 *   a local job's directory) and answers with that "dir".
 *
 * BOUNDS
 *   Every database call is bounded by the handle's timeout (engine/fleet);
 *   none is made under the engine lock.  The claim thread's handle is its
 *   own (renew shares it: the held set is the handle's); the control
 *   plane's requests share a second one, and each await opens its own so
 *   a long wait never holds another request's handle.
 */
#define _GNU_SOURCE     /* memfd_create */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"
#include "engine/fleet/fleet.h"
#include "lib/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <inttypes.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CZ_FNODE_POLL_MS   250         /* the claim thread's fallback look while it holds work */
#define CZ_FNODE_IDLE_MS   500         /* ... and while the queue is empty (notifications wake it first) */
#define CZ_FNODE_POLL_MS_NOLISTEN 100  /* the same on a database without LISTEN (local ends still wake it) */
#define CZ_FNODE_IDLE_MS_NOLISTEN 25   /* ... polling the queue as before NOTIFY */
#define CZ_FNODE_MAX_HELD  256         /* consumers a node claims for, at most */
#define CZ_FNODE_PRUNE_MS  60000       /* the renew thread prunes the database this often */
#define CZ_FNODE_SAMPLES   1024        /* latency samples kept for status's p50/p99 (the last ones) */

/* The last CZ_FNODE_SAMPLES latencies, µs (one writer: the claim thread;
 * status reads a copy under mu). */
struct lat_ring {
	uint32_t us[CZ_FNODE_SAMPLES];
	uint64_t n;
};

struct fheld {
	struct cz_key key;
	char local[64];                 /* the local job's id */
	bool live;
};

struct cz_fnode {
	struct cz_engine *e;
	struct cz_engine_fleet opts;
	char conninfo[1024];
	struct cz_fleet *f;             /* claim, renew, finish, fail */
	struct cz_fleet *fc;            /* the control plane's submit, status, cancel */
	struct cz_fleet *fl;            /* the claim thread's LISTEN cz_fleet_work */
	int wake_fd;                    /* eventfd: a journal commit (a local job's end), or stop */
	bool no_listen;                 /* the database refused LISTEN: poll the queue */
	_Atomic uint64_t wakes_work, wakes_local, wakes_fallback;
	_Atomic uint64_t listen_remade; /* the LISTEN connection made again after n->f reconnected */
	uint64_t seen_reconnects;       /* n->f's reconnects when the LISTEN connection was last made (claim thread) */
	int64_t node_id;
	unsigned capacity;
	pthread_t claimer, renewer;
	bool claimer_up, renewer_up;
	_Atomic bool stop;
	pthread_mutex_t mu;             /* the stop flag's sleep; never held over a call */
	pthread_cond_t cv;
	struct fheld held[CZ_FNODE_MAX_HELD];
	_Atomic unsigned nheld;
	_Atomic uint64_t next_auto;     /* auto ids: @fN-K */
	/* counters (status "fleet") */
	_Atomic uint64_t claims, claimed, empty_claims, claim_us, finished, duplicates, failed, errors, fed_us;
	_Atomic uint64_t renew_errors, lost_dropped, pruned_jobs, pruned_nodes;
	_Atomic uint64_t away_rounds;   /* claim rounds cut short: a finish or fail found the database away */
	uint32_t stale_dropped, stale_released;  /* the journal's fleet partitions at start: dropped, released */
	bool was_empty;                 /* the last claim found nothing (the claim thread's) */
	struct lat_ring claim_lat;      /* a claim's round trip (the database's answer) */
	struct lat_ring fed_lat;        /* a partition's claim sent → queued in the local pipeline */
	char out_dir[PATH_MAX];
};

/* e->stopping, read under the lock that writes it. */
static bool engine_stopping(struct cz_engine *e)
{
	pthread_mutex_lock(&e->lock);
	bool st = e->stopping;
	pthread_mutex_unlock(&e->lock);
	return st;
}

static int64_t mono_ns(void)
{
	return cz_clock_ns(CLOCK_MONOTONIC);
}

static void lat_add(struct cz_fnode *n, struct lat_ring *r, uint32_t us)
{
	pthread_mutex_lock(&n->mu);
	r->us[r->n++ % CZ_FNODE_SAMPLES] = us;
	pthread_mutex_unlock(&n->mu);
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* {"n": samples in all, "p50": ms, "p99": ms, "max": ms} over the last CZ_FNODE_SAMPLES. */
static json_object *lat_json(struct cz_fnode *n, const struct lat_ring *r)
{
	static _Thread_local uint32_t v[CZ_FNODE_SAMPLES];
	pthread_mutex_lock(&n->mu);
	uint64_t total = r->n;
	size_t k = total < CZ_FNODE_SAMPLES ? (size_t)total : CZ_FNODE_SAMPLES;
	memcpy(v, r->us, k * sizeof v[0]);
	pthread_mutex_unlock(&n->mu);
	qsort(v, k, sizeof v[0], u32_cmp);
	json_object *o = json_object_new_object();
	json_object_object_add(o, "n", json_object_new_int64((int64_t)total));
	json_object_object_add(o, "p50", json_object_new_double(k ? v[(k - 1) / 2] / 1e3 : 0));
	json_object_object_add(o, "p99", json_object_new_double(k ? v[(k - 1) * 99 / 100] / 1e3 : 0));
	json_object_object_add(o, "max", json_object_new_double(k ? v[k - 1] / 1e3 : 0));
	return o;
}

/* Sleeps up to ms, or until stop. */
static void nap(struct cz_fnode *n, int ms)
{
	struct timespec until = cz_deadline(CLOCK_MONOTONIC, (int64_t)ms * 1000000);
	pthread_mutex_lock(&n->mu);
	if (!atomic_load(&n->stop))
		pthread_cond_timedwait(&n->cv, &n->mu, &until);
	pthread_mutex_unlock(&n->mu);
}

/* The local job's state: 0 running, 1 done (dir set), -1 ended otherwise (why set). */
static int local_state(struct cz_engine *e, const char *id, char *dir, size_t dcap, char *why, size_t wcap)
{
	json_object *q = json_object_new_object(), *v;
	json_object_object_add(q, "job", json_object_new_string(id));
	json_object_object_add(q, "timeout", json_object_new_int(0));
	json_object *r = cz_req_await(e, q, NULL);
	json_object_put(q);
	const char *st = json_object_object_get_ex(r, "state", &v) ? json_object_get_string(v) : "";
	int rc;
	if (!strcmp(st, "active"))
		rc = 0;
	else if (!strcmp(st, "done")) {
		rc = 1;
		snprintf(dir, dcap, "%s", json_object_object_get_ex(r, "dir", &v) ? json_object_get_string(v) : "");
	} else {
		rc = engine_stopping(e) ? 0 : -1;     /* shutting down: left to the lease */
		snprintf(why, wcap, "%s", json_object_object_get_ex(r, "error", &v) ? json_object_get_string(v) : "?");
	}
	json_object_put(r);
	return rc;
}

/* The proof a local job wrote, as the fleet stores it: {"proof":…,"public":…}. */
static char *proof_payload(const char *dir, size_t *len)
{
	char p[PATH_MAX + 32], q[PATH_MAX + 32];
	snprintf(p, sizeof p, "%.*s/0.proof.json", PATH_MAX, dir);
	snprintf(q, sizeof q, "%.*s/0.public.json", PATH_MAX, dir);
	json_object *pr = json_object_from_file(p), *pub = json_object_from_file(q);
	if (!pr || !pub) {
		json_object_put(pr);
		json_object_put(pub);
		return NULL;
	}
	json_object *o = json_object_new_object();
	json_object_object_add(o, "proof", pr);
	json_object_object_add(o, "public", pub);
	char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	if (s)
		*len = strlen(s);
	return s;
}

static void held_end(struct cz_fnode *n, struct fheld *h)
{
	h->live = false;
	atomic_fetch_sub(&n->nheld, 1);
}

/* One held partition looked at: finished or failed to the database when its
 * local job ended.  1 it ended here, 0 not yet, -1 the database is away (its
 * end is tried again next round). */
static int held_check(struct cz_fnode *n, struct fheld *h)
{
	char dir[PATH_MAX + 80] = "", why[400] = "";
	int st = local_state(n->e, h->local, dir, sizeof dir, why, sizeof why);
	if (st == 0)
		return 0;
	if (st == 1) {
		size_t len = 0;
		char *pl = proof_payload(dir, &len);
		int rc = pl ? cz_fleet_finish(n->f, h->key, pl, len) : -EIO;
		free(pl);
		if (rc == -ENOTCONN || rc == -ETIMEDOUT) {
			atomic_fetch_add(&n->errors, 1);
			return -1;      /* the database is away: again next round (first proof wins) */
		}
		if (rc >= 0 || rc == -ECANCELED)
			cz_job_rmdir(dir);      /* the database holds the proof now: no local copy kept */
		if (rc == 0)
			atomic_fetch_add(&n->finished, 1);
		else if (rc == 1)
			atomic_fetch_add(&n->duplicates, 1);
		else if (rc != -ECANCELED) {
			atomic_fetch_add(&n->errors, 1);
			fprintf(stderr, "cuzkd: fleet: finishing %" PRIu64 ".%u: %s\n", h->key.seq, h->key.part,
				pl ? cz_fleet_error(n->f) : "its proof files cannot be read");
		}
	} else {
		int rc = cz_fleet_fail(n->f, h->key, why);
		if (rc == -ENOTCONN || rc == -ETIMEDOUT)
			return -1;
		atomic_fetch_add(&n->failed, 1);
		fprintf(stderr, "cuzkd: fleet: partition %" PRIu64 ".%u failed here: %s\n", h->key.seq, h->key.part,
			why);
	}
	held_end(n, h);
	return 1;
}

/* A claim's input as a memory file (no file on the state directory, no fsync). */
static int payload_memfd(const void *buf, size_t len)
{
	int fd = memfd_create("cuzk-fleet-input", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (const char *p = buf; len;) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int rc = w < 0 ? -errno : -EIO;
			close(fd);
			return rc;
		}
		p += w;
		len -= (size_t)w;
	}
	return fd;
}

/* Held partitions whose lease this node lost (a renew found it expired or
 * taken by another node, or its job ended): their local jobs cancelled, so
 * a partition not started yet is dropped before it starts (the consumer
 * passes on an ended job's partition when it takes the device) and never
 * proved twice.  A claim thread that wakes past its leases (a stall, a
 * SIGSTOP) renews first, so it learns what it lost before it feeds or
 * finishes anything.  A local job that is done already is left to
 * held_check (its proof may still be the first).  away: this round found
 * the database away, so no renew is tried here (the renew thread keeps
 * trying every lease/3). */
static bool lost_drop(struct cz_fnode *n, bool away)
{
	if (!atomic_load(&n->nheld))
		return false;
	if (!away && !cz_fleet_leases_live(n->f) && cz_fleet_renew(n->f) < 0)
		atomic_fetch_add(&n->renew_errors, 1);
	bool any = false;
	for (unsigned k = 0; k < CZ_FNODE_MAX_HELD; k++) {
		struct fheld *h = &n->held[k];
		if (!h->live || cz_fleet_holds(n->f, h->key))
			continue;
		json_object *q = json_object_new_object(), *v;
		json_object_object_add(q, "job", json_object_new_string(h->local));
		json_object *r = cz_req_cancel(n->e, q);
		json_object_put(q);
		bool cancelled = json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v);
		json_object_put(r);
		if (!cancelled)
			continue;       /* ended meanwhile: held_check finishes or fails it */
		cz_trace(CZ_EV_FLEET_LOST, h->key.seq, h->key.part);
		atomic_fetch_add(&n->lost_dropped, 1);
		fprintf(stderr, "cuzkd: fleet: partition %" PRIu64 ".%u: its lease was lost; %s cancelled here\n",
			h->key.seq, h->key.part, h->local);
		held_end(n, h);
		any = true;
	}
	return any;
}

/* Feeds one claim into the local pipeline; 0, or -1 with the claim failed
 * to the database.  The local job is a cache of the database's row
 * (cz_req_submit_cached): queued without a local fsync, so a batch of
 * claims is fed at memory speed, not one journal commit each. */
static int feed(struct cz_fnode *n, struct cz_fleet_claim *c, struct fheld *h)
{
	void *buf = NULL;
	size_t len = 0;
	char why[512] = "";
	h->key = c->key;
	snprintf(h->local, sizeof h->local, "fleet-%" PRIu64 ".%u.%u", c->key.seq, c->key.part, c->attempt);
	int rc = cz_fleet_payload_load(c, CZ_FLEET_INLINE_MAX, &buf, &len), fd = -1;
	if (rc)
		snprintf(why, sizeof why, "its input: %s", rc == -EBADMSG ? "the shared file's digest does not match" :
			 strerror(-rc));
	else if ((fd = payload_memfd(buf, len)) < 0) {
		rc = fd;
		snprintf(why, sizeof why, "its input into memory: %s", strerror(-rc));
	}
	free(buf);
	if (!rc) {
		json_object *q = json_object_new_object(), *v;
		json_object_object_add(q, "circuit", json_object_new_string(c->circuit));
		json_object_object_add(q, "id", json_object_new_string(h->local));
		json_object_object_add(q, "priority", json_object_new_string(cz_prio_name(c->key.prio) ?
						cz_prio_name(c->key.prio) : "low"));
		if (c->is_input) {      /* a circom input (JSON): witness generated here */
			json_object *ia = json_object_new_array();
			json_object_array_add(ia, json_object_new_int(0));
			json_object_object_add(q, "inputs", ia);
		}
		json_object *r = cz_req_submit_cached(n->e, q, &fd, 1, (long)c->owner);
		json_object_put(q);
		if (!(json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v))) {
			rc = -1;
			snprintf(why, sizeof why, "%s", json_object_object_get_ex(r, "error", &v) ?
				 json_object_get_string(v) : "?");
		}
		json_object_put(r);
	}
	if (!rc) {
		h->live = true;
		return 0;
	}
	atomic_fetch_sub(&n->nheld, 1);
	if (atomic_load(&n->stop) || engine_stopping(n->e))
		return -1;      /* shutting down: the lease returns it */
	atomic_fetch_add(&n->failed, 1);
	fprintf(stderr, "cuzkd: fleet: partition %" PRIu64 ".%u not started here: %s\n", c->key.seq, c->key.part,
		why);
	cz_fleet_fail(n->f, c->key, why);
	return -1;
}

/* Claims for the free consumers; how many were claimed. */
static int claim_some(struct cz_fnode *n)
{
	unsigned held = atomic_load(&n->nheld);
	if (held >= n->capacity || (held && !cz_fleet_leases_live(n->f)) || engine_stopping(n->e))
		return 0;       /* full, or cut off: finish what is held first; or stopping */
	uint32_t want = n->capacity - held;
	struct cz_fleet_claim cl[CZ_FNODE_MAX_HELD];
	int64_t t0 = mono_ns();
	atomic_fetch_add(&n->nheld, want);      /* reserved before the claim: status never under-counts */
	int got = cz_fleet_claim(n->f, want, cl);
	uint32_t us = (uint32_t)((mono_ns() - t0) / 1000);
	atomic_fetch_sub(&n->nheld, want - (got > 0 ? (uint32_t)got : 0));
	atomic_fetch_add(&n->claims, 1);
	atomic_fetch_add(&n->claim_us, us);
	if (got >= 0)
		lat_add(n, &n->claim_lat, us);
	if (got <= 0) {
		if (got < 0)
			atomic_fetch_add(&n->errors, 1);
		else
			atomic_fetch_add(&n->empty_claims, 1);
		if (!n->was_empty)      /* the first of a run of empty claims: the run lasts until the next claim */
			cz_trace_arg(CZ_EV_FLEET_EMPTY, 0, want, us);
		n->was_empty = true;
		return 0;
	}
	n->was_empty = false;
	atomic_fetch_add(&n->claimed, (uint64_t)got);
	for (int i = 0; i < got; i++)   /* all at the claim's answer, before any is fed */
		cz_trace_arg(CZ_EV_FLEET_CLAIM, cl[i].key.seq, cl[i].key.part, us);
	for (int i = 0; i < got; i++) {
		struct fheld *h = NULL;
		for (unsigned k = 0; k < CZ_FNODE_MAX_HELD && !h; k++)
			if (!n->held[k].live)
				h = &n->held[k];
		if (h && feed(n, &cl[i], h) == 0) {
			uint32_t fed = (uint32_t)((mono_ns() - t0) / 1000);
			lat_add(n, &n->fed_lat, fed);
			atomic_fetch_add(&n->fed_us, fed);
			cz_trace_arg(CZ_EV_FLEET_FED, cl[i].key.seq, cl[i].key.part, fed);
		}
		cz_fleet_claim_free(&cl[i]);
	}
	return got;
}

/* Waits for something to do: new work in the database (NOTIFY
 * cz_fleet_work), a local job's end made durable (the journal's commit
 * hook writes wake_fd), stop; or the bounded fallback. */
static void claimer_wait(struct cz_fnode *n)
{
	bool held = atomic_load(&n->nheld);
	int ms = n->no_listen ? (held ? CZ_FNODE_POLL_MS_NOLISTEN : CZ_FNODE_IDLE_MS_NOLISTEN)
			      : held ? CZ_FNODE_POLL_MS : CZ_FNODE_IDLE_MS;
	int w = cz_fleet_wait(n->fl, n->wake_fd, ms);
	atomic_fetch_add(w & CZ_FLEET_CH__FD ? &n->wakes_local : w > 0 ? &n->wakes_work : &n->wakes_fallback, 1);
	if (w < 0)
		nap(n, CZ_FNODE_POLL_MS);       /* built without libpq: never here (join refuses) */
}

/* n->f's reconnect count once it has made its connection again since the
 * LISTEN connection was made (the link was broken, and the LISTEN
 * connection, behind the same link, may be alive but deaf:
 * cz_fleet_listen_again); else 0. */
static uint64_t listen_suspect(struct cz_fnode *n)
{
	struct cz_fleet_stats st;
	if (n->no_listen)
		return 0;
	cz_fleet_stats_get(n->f, &st);
	return st.reconnects > n->seen_reconnects ? st.reconnects : 0;
}

static void *claimer_main(void *arg)
{
	struct cz_fnode *n = arg;
	cz_trace_thread("fleet", 0);
	while (!atomic_load(&n->stop)) {
		uint64_t v;
		if (read(n->wake_fd, &v, sizeof v) < 0) {
			/* nothing pending (EAGAIN) */
		}
		bool ended = false, away = false;
		/* The first "database away" ends the round's statements: each would
		 * wait its own bound (timeout_ms a held partition), and a stop, a
		 * lost lease or the database's return would wait for them all. */
		for (unsigned k = 0; k < CZ_FNODE_MAX_HELD && !away && !atomic_load(&n->stop); k++) {
			int r = n->held[k].live ? held_check(n, &n->held[k]) : 0;
			ended |= r > 0;
			away = r < 0;
		}
		if (away)
			atomic_fetch_add(&n->away_rounds, 1);
		ended |= lost_drop(n, away);
		uint64_t rec = listen_suspect(n);
		if (rec) {      /* LISTEN again before the claim: work submitted after it is heard */
			/* Once, whatever the outcome: a failure leaves the deaf connection
			 * dropped, and the waits make it again at most once a second
			 * (trying here again at once would spin while the database is away). */
			n->seen_reconnects = rec;
			if (cz_fleet_listen_again(n->fl) == 0)
				atomic_fetch_add(&n->listen_remade, 1);
		}
		int got = claim_some(n);
		if (!got && !ended && !atomic_load(&n->stop) && !listen_suspect(n))
			claimer_wait(n);
	}
	return NULL;
}

/* The heartbeat's duty: the devices' mean duty over the last 10 s and their
 * main idle cause over it (the most idle ms summed over the devices). */
static void duty_report(struct cz_fnode *n)
{
	uint64_t lost;
	json_object *devs = cz_stat_devices_json(n->e, &lost), *by = json_object_new_object(), *w, *c;
	size_t nd = devs ? json_object_array_length(devs) : 0;
	double duty = 0, best = 0;
	const char *cause = "";
	for (size_t i = 0; i < nd; i++) {
		if (!json_object_object_get_ex(json_object_array_get_idx(devs, i), "last_10s", &w))
			continue;
		duty += json_object_get_double(json_object_object_get(w, "duty"));
		if (!json_object_object_get_ex(w, "idle_by_cause_ms", &c))
			continue;
		json_object_object_foreach(c, k, v) {
			json_object *sum;
			double ms = json_object_get_double(v) +
				    (json_object_object_get_ex(by, k, &sum) ? json_object_get_double(sum) : 0);
			json_object_object_add(by, k, json_object_new_double(ms));
		}
	}
	json_object_object_foreach(by, k, v) {
		if (json_object_get_double(v) > best) {
			best = json_object_get_double(v);
			cause = k;
		}
	}
	cz_fleet_node_duty(n->f, nd ? duty / (double)nd : -1, cause);
	json_object_put(by);
	json_object_put(devs);
}

static void *renewer_main(void *arg)
{
	struct cz_fnode *n = arg;
	int every = n->opts.lease_ms / 3;
	int64_t next_prune = 0;
	cz_trace_thread("fleet-renew", 0);
	while (!atomic_load(&n->stop)) {
		if (mono_ns() >= next_prune) {  /* every node prunes: the work is idempotent, SKIP LOCKED */
			int nodes = 0, jobs = cz_fleet_prune(n->f, n->opts.retain_s * 1000, &nodes);
			if (jobs > 0)
				atomic_fetch_add(&n->pruned_jobs, (uint64_t)jobs);
			atomic_fetch_add(&n->pruned_nodes, (uint64_t)nodes);
			next_prune = mono_ns() + (jobs == CZ_FLEET_PRUNE_BATCH ? every : CZ_FNODE_PRUNE_MS) * 1000000LL;
		}
		struct cz_fleet_stats a, b;
		cz_fleet_stats_get(n->f, &a);
		duty_report(n);         /* written by the renew's heartbeat: no statement of its own */
		if (cz_fleet_renew(n->f) < 0)
			atomic_fetch_add(&n->renew_errors, 1);
		cz_fleet_stats_get(n->f, &b);
		if (b.lost > a.lost || b.reconnects > a.reconnects)
			cz_fnode_poke(n->e);    /* leases lost: the claim thread drops them now; or the link
						 * was broken: it makes its LISTEN connection again now */
		nap(n, every);
	}
	return NULL;
}

static int mkdir_p(const char *p)
{
	return mkdir(p, 0700) && errno != EEXIST ? -errno : 0;
}

static void circuits_list(struct cz_engine *e, char *buf, size_t cap)
{
	size_t at = 0;
	buf[0] = 0;
	pthread_mutex_lock(&e->lock);
	for (struct cz_circuit *c = e->circuits; c && at < cap; c = c->next)
		at += (size_t)snprintf(buf + at, cap - at, "%s%s", at ? "," : "", c->name);
	pthread_mutex_unlock(&e->lock);
}

/* "fleet-SEQ.PART.ATTEMPT", exactly (feed's name), into *k. */
static bool stale_name(const char *id, struct cz_fleet_stale *k)
{
	unsigned long long seq;
	unsigned part, att;
	int end = 0;
	if (sscanf(id, "fleet-%llu.%u.%u%n", &seq, &part, &att, &end) != 3 || id[end])
		return false;
	k->key = (struct cz_key){ .seq = seq, .part = part };
	k->attempt = att;
	return true;
}

int cz_engine_fleet_drop_stale(struct cz_engine *e)
{
	uint32_t n = 0, cap = 0;
	struct cz_fleet_stale *k = NULL;
	char (*ids)[sizeof(((struct cz_job *)0)->id)] = NULL;
	pthread_mutex_lock(&e->lock);
	for (struct cz_job *j = e->jobs; j; j = j->next) {
		struct cz_fleet_stale one;
		if (atomic_load(&j->state) != CZ_JOB_ACTIVE || !stale_name(j->id, &one))
			continue;
		if (n == cap) {
			uint32_t nc = cap ? 2 * cap : 16;
			void *nk = realloc(k, nc * sizeof *k), *ni = nk ? realloc(ids, nc * sizeof *ids) : NULL;
			if (nk)
				k = nk;
			if (!ni)
				break;
			ids = ni;
			cap = nc;
		}
		k[n] = one;
		snprintf(ids[n++], sizeof ids[0], "%s", j->id);
	}
	pthread_mutex_unlock(&e->lock);
	uint32_t dropped = 0;
	for (uint32_t i = 0; i < n; i++) {   /* cancelled outside the lock, as a client's cancel */
		json_object *q = json_object_new_object(), *r, *v;
		json_object_object_add(q, "job", json_object_new_string(ids[i]));
		r = cz_req_cancel(e, q);
		json_object_put(q);
		if (json_object_object_get_ex(r, "ok", &v) && json_object_get_boolean(v))
			k[dropped++] = k[i];
		json_object_put(r);
	}
	free(ids);
	if (dropped)
		fprintf(stderr, "cuzkd: fleet: %u partition(s) this node had claimed before its restart dropped here "
			"(the database has them; released at registration)\n", dropped);
	e->fleet_stale = k;
	e->nfleet_stale = dropped;
	return (int)dropped;
}

/* At registration: the journal's fleet partitions back to the queue now. */
static void stale_release(struct cz_fnode *n)
{
	struct cz_engine *e = n->e;
	n->stale_dropped = e->nfleet_stale;
	int rc = cz_fleet_release(n->f, e->fleet_stale, e->nfleet_stale);
	if (rc > 0)
		n->stale_released = (uint32_t)rc;
	if (rc < 0)
		fprintf(stderr, "cuzkd: fleet: releasing the %u partition(s) claimed before the restart: %s (their "
			"leases return them)\n", e->nfleet_stale, cz_fleet_error(n->f));
	free(e->fleet_stale);
	e->fleet_stale = NULL;
	e->nfleet_stale = 0;
}

int cz_engine_fleet_join(struct cz_engine *e, const struct cz_engine_fleet *o, char *err, size_t cap)
{
	struct cz_fnode *n = calloc(1, sizeof *n);
	char host[256] = "?", circ[256];
	if (!n) {
		snprintf(err, cap, "fleet: out of memory");
		return -ENOMEM;
	}
	n->e = e;
	n->opts = *o;
	snprintf(n->conninfo, sizeof n->conninfo, "%s", o->url);
	n->opts.url = n->conninfo;
	if (!n->opts.lease_ms)
		n->opts.lease_ms = CZ_FLEET_LEASE_MS;
	if (!n->opts.timeout_ms)
		n->opts.timeout_ms = CZ_FLEET_TIMEOUT_MS;
	if (!n->opts.retain_s)
		n->opts.retain_s = CZ_FLEET_RETAIN_S;
	n->capacity = e->ncons < CZ_FNODE_MAX_HELD ? e->ncons : CZ_FNODE_MAX_HELD;
	pthread_condattr_t ca;
	pthread_mutex_init(&n->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&n->cv, &ca);
	pthread_condattr_destroy(&ca);
	snprintf(n->out_dir, sizeof n->out_dir, "%.3800s/fleet-proofs", e->state_dir);
	struct cz_fleet_opts fo = { .conninfo = n->conninfo, .timeout_ms = n->opts.timeout_ms,
				    .lease_ms = n->opts.lease_ms, .notify = (enum cz_fleet_notify)n->opts.notify };
	int rc;
	if ((rc = mkdir_p(n->out_dir))) {
		snprintf(err, cap, "fleet: %s: %s", n->out_dir, strerror(-rc));
		goto fail;
	}
	n->wake_fd = -1;
	if ((rc = cz_fleet_open(&fo, &n->f, err, cap)))
		goto fail;
	/* The first handle probed (auto): the others, and each await's, use its answer. */
	const char *off = cz_fleet_notify_off(n->f);
	n->opts.notify = fo.notify = off ? CZ_FLEET_NOTIFY_OFF : CZ_FLEET_NOTIFY_ON;
	if (off)
		fprintf(stderr, "cuzkd: fleet: no NOTIFY/LISTEN: %s: no statement calls pg_notify, waiters poll\n", off);
	if ((rc = cz_fleet_open(&fo, &n->fc, err, cap)) || (rc = cz_fleet_open(&fo, &n->fl, err, cap)))
		goto fail;
	if ((rc = cz_fleet_listen(n->fl, CZ_FLEET_CH_WORK)) == -EIO) {
		n->no_listen = true;
		fprintf(stderr, "cuzkd: fleet: no LISTEN (%s): the claim thread polls every %d ms instead\n",
			cz_fleet_error(n->fl), CZ_FNODE_IDLE_MS_NOLISTEN);
	} else if (rc) {
		snprintf(err, cap, "fleet: LISTEN: %s", cz_fleet_error(n->fl));
		goto fail;
	}
	if ((n->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		rc = -errno;
		snprintf(err, cap, "fleet: eventfd: %s", strerror(errno));
		goto fail;
	}
	gethostname(host, sizeof host - 1);
	circuits_list(e, circ, sizeof circ);
	struct cz_fleet_node_info info = { .host = host, .devices = e->ndev, .capacity = n->capacity,
					   .circuits = circ };
	if ((rc = cz_fleet_node_register(n->f, &info, &n->node_id))) {
		snprintf(err, cap, "fleet: registering this node: %s", cz_fleet_error(n->f));
		goto fail;
	}
	stale_release(n);
	e->fleet = n;
	atomic_store(&e->fleet_wake, n->wake_fd + 1);
	if (pthread_create(&n->renewer, NULL, renewer_main, n) == 0)
		n->renewer_up = true;
	if (pthread_create(&n->claimer, NULL, claimer_main, n) == 0)
		n->claimer_up = true;
	if (!n->renewer_up || !n->claimer_up) {
		snprintf(err, cap, "fleet: cannot start its threads");
		cz_fnode_stop(e);
		return -EAGAIN;
	}
	fprintf(stderr, "cuzkd: fleet: node %" PRId64 " (%s, %u consumers, lease %d ms) on the database\n",
		n->node_id, host, n->capacity, n->opts.lease_ms);
	return 0;
fail:
	cz_fleet_close(n->f);
	cz_fleet_close(n->fc);
	cz_fleet_close(n->fl);
	if (n->wake_fd >= 0)
		close(n->wake_fd);
	free(n);
	return rc < 0 ? rc : -EIO;
}

void cz_fnode_stop(struct cz_engine *e)
{
	struct cz_fnode *n = e->fleet;
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	atomic_store(&n->stop, true);
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	cz_fnode_poke(e);               /* the claim thread out of its wait */
	if (n->claimer_up)
		pthread_join(n->claimer, NULL);
	if (n->renewer_up)
		pthread_join(n->renewer, NULL);
	e->fleet = NULL;
	cz_fleet_close(n->f);
	cz_fleet_close(n->fc);
	cz_fleet_close(n->fl);
	/* wake_fd stays open: the journal's writer may be in cz_fnode_poke now
	 * (it runs until cz_journal_close, after this); one descriptor for the
	 * process's life, never reused for another file while it lives. */
	pthread_mutex_destroy(&n->mu);
	pthread_cond_destroy(&n->cv);
	free(n);
}

/* ---- the control plane in fleet mode ---- */

static json_object *fleet_err(struct cz_fleet *f, int rc, const char *what, const char *id)
{
	switch (rc) {
	case -ENOENT: return cz_ctl_err("unknown job '%s'", id);
	case -EPERM: return cz_ctl_err("unknown job '%s'", id);    /* another user's: as unknown (access.c) */
	case -EEXIST: return cz_ctl_err("%s: id '%s' is in use by another user's job: permission denied", what, id);
	case -EALREADY: return cz_ctl_err("job %s already ended", id);
	default: return cz_ctl_err("%s %s: the fleet's database: %s", what, id, cz_fleet_error(f));
	}
}

/* Reads witness i (an open descriptor) whole when it fits inline, else by
 * its path (absolute) and SHA-256. */
static json_object *payload_take(int fd, const char *path, uint32_t i, struct cz_fleet_payload *p)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return cz_ctl_err("witness %u%s%s: not a regular file", i, path ? " " : "", path ? path : "");
	bool inl = (uint64_t)st.st_size <= CZ_FNODE_INLINE_MAX;
	if (!inl && (!path || path[0] != '/'))
		return cz_ctl_err("witness %u: %lld bytes, over the fleet's inline limit of %u: name it by an "
				  "absolute path on a directory every node shares", i, (long long)st.st_size,
				  CZ_FNODE_INLINE_MAX);
	unsigned char *buf = malloc(inl && st.st_size ? (size_t)st.st_size : 1 << 20);
	EVP_MD_CTX *md = inl ? NULL : EVP_MD_CTX_new();
	if (!buf || (!inl && (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL)))) {
		free(buf);
		EVP_MD_CTX_free(md);
		return cz_ctl_err("out of memory");
	}
	size_t at = 0;
	for (;;) {
		size_t room = inl ? (size_t)st.st_size - at : 1 << 20;
		if (inl && !room)
			break;
		ssize_t r = pread(fd, inl ? buf + at : buf, room, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			EVP_MD_CTX_free(md);
			return cz_ctl_err("witness %u: reading it: %s", i, strerror(errno));
		}
		if (r == 0)
			break;
		if (!inl)
			EVP_DigestUpdate(md, buf, (size_t)r);
		at += (size_t)r;
	}
	if (inl) {
		p->bytes = buf;
		p->len = at;
	} else {
		EVP_DigestFinal_ex(md, p->sha256, NULL);
		EVP_MD_CTX_free(md);
		free(buf);
		p->path = path;
	}
	return NULL;
}

/* The inline inputs, after the witnesses: each one partition whose payload
 * is its JSON text (an input is small: always in the database). */
static json_object *inputs_inline_take(json_object *req, struct cz_fleet_payload *parts, uint32_t *np)
{
	json_object *a;
	if (!json_object_object_get_ex(req, "inputs", &a))
		return NULL;
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		json_object *v = json_object_array_get_idx(a, k);
		if (!json_object_is_type(v, json_type_object))
			continue;
		size_t len;
		const char *t = json_object_to_json_string_length(v, JSON_C_TO_STRING_PLAIN, &len);
		if (len > CZ_FNODE_INLINE_MAX)
			return cz_ctl_err("inputs[%zu]: %zu bytes, over the fleet's inline limit of %u", k, len,
					  CZ_FNODE_INLINE_MAX);
		char *b = malloc(len ? len : 1);
		if (!b)
			return cz_ctl_err("out of memory");
		memcpy(b, t, len);
		parts[*np] = (struct cz_fleet_payload){ .bytes = b, .len = len, .is_input = true };
		(*np)++;
	}
	return NULL;
}

json_object *cz_fnode_submit(struct cz_engine *e, json_object *req, int *fds, int nfds, long owner)
{
	struct cz_fnode *n = e->fleet;
	const char *circ = NULL, *pr = NULL, *id = NULL;
	enum cz_prio prio = CZ_PRIO_NORMAL;
	json_object *r, *paths = NULL;
	struct cz_fleet_payload parts[CZ_ENGINE_MAX_PARTS] = { 0 };
	uint32_t np = 0;
	char auto_id[64];

	if ((r = cz_field_str(req, "circuit", true, &circ)) || (r = cz_field_str(req, "priority", false, &pr)) ||
	    (r = cz_field_str(req, "id", false, &id)))
		goto out;
	if (pr && cz_prio_parse(pr, &prio)) {
		r = cz_ctl_err("unknown priority '%s' (" CZ_PRIO_NAMES ")", pr);
		goto out;
	}
	if (id && (!*id || strlen(id) >= 64 || strchr(id, '/') || id[0] == '.' || id[0] == '@')) {
		r = cz_ctl_err("job id '%s': 1 to 63 characters, no '/', not starting with '.' or '@'", id);
		goto out;
	}
	bool have_paths = json_object_object_get_ex(req, "witnesses", &paths);
	if (have_paths && (!json_object_is_type(paths, json_type_array) || nfds)) {
		r = cz_ctl_err("\"witnesses\" must be an array of paths, and not combined with passed descriptors");
		goto out;
	}
	bool fd_inp[CZ_CTL_MAX_FDS] = { 0 };
	uint32_t ninline = 0;
	if ((r = cz_req_inputs_parse(req, nfds, fd_inp, &ninline)))
		goto out;
	size_t count = have_paths ? json_object_array_length(paths) : (size_t)nfds;
	if (count + ninline == 0 || count + ninline > CZ_ENGINE_MAX_PARTS) {
		r = cz_ctl_err("a job has 1 to %d witnesses and inputs (got %zu)", CZ_ENGINE_MAX_PARTS,
			       count + ninline);
		goto out;
	}
	for (np = 0; np < count && !r; np++) {
		const char *path = NULL;
		int fd = -1;
		if (have_paths) {
			json_object *pv = json_object_array_get_idx(paths, np);
			if (!json_object_is_type(pv, json_type_string)) {
				r = cz_ctl_err("witness %u: not a path string", np);
				break;
			}
			path = json_object_get_string(pv);
			if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
				r = cz_ctl_err("witness %u %s: %s", np, path, strerror(errno));
				break;
			}
		} else
			fd = fds[np];
		r = payload_take(fd, path, np, &parts[np]);
		parts[np].is_input = !have_paths && fd_inp[np];
		if (have_paths)
			close(fd);
	}
	if (!r)
		r = inputs_inline_take(req, parts, &np);
	if (r)
		goto out;
	if (!id) {
		snprintf(auto_id, sizeof auto_id, "@f%" PRId64 "-%" PRIu64, n->node_id,
			 atomic_fetch_add(&n->next_auto, 1) + 1);
		id = auto_id;
	}
	struct cz_fleet_job_spec spec = { .owner = owner < 0 ? 0 : (uint32_t)owner, .id = id, .prio = prio,
					  .circuit = circ, .nparts = np, .parts = parts };
	uint64_t seq = 0;
	/* A retry of the same id by the same owner returns the first seq: safe
	 * after a timeout whose statement may have committed. */
	int rc = -ETIMEDOUT;
	for (int tries = 0; tries < 3 && (rc == -ETIMEDOUT || rc == -ENOTCONN) && !engine_stopping(e); tries++)
		rc = cz_fleet_submit(n->fc, &spec, &seq);
	if (rc)
		r = fleet_err(n->fc, rc, "submit", id);
	else {
		r = cz_ctl_ok();
		json_object_object_add(r, "job", json_object_new_string(id));
		json_object_object_add(r, "seq", json_object_new_int64((int64_t)seq));
		json_object_object_add(r, "partitions", json_object_new_int((int)np));
		json_object_object_add(r, "fleet", json_object_new_boolean(1));
	}
out:
	for (uint32_t i = 0; i < CZ_ENGINE_MAX_PARTS; i++)
		free((void *)parts[i].bytes);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	return r;
}

/* A done job's proofs into STATE/fleet-proofs/ID/: the layout of a local job's directory. */
static json_object *proofs_write(struct cz_fnode *n, struct cz_fleet *f, const char *id,
				 const struct cz_fleet_status *st, char *dir, size_t cap)
{
	snprintf(dir, cap, "%s/%s", n->out_dir, id);
	if (mkdir_p(dir))
		return cz_ctl_err("job %s: cannot make %s: %s", id, dir, strerror(errno));
	char why[PATH_MAX + 256];
	if (cz_fleet_proofs_write(f, st, dir, why, sizeof why))
		return cz_ctl_err("job %s: %s", id, why);
	return NULL;
}

#define AWAIT_SLICE_MS 2000

json_object *cz_fnode_await(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer)
{
	struct cz_fnode *n = e->fleet;
	const char *id = NULL;
	double timeout = -1;
	json_object *r;
	struct cz_fleet *f = NULL;
	char err[512], dir[PATH_MAX + 80];

	if ((r = cz_field_str(req, "job", true, &id)) || (r = cz_field_seconds(req, "timeout", 366.0 * 86400, &timeout)))
		return r;
	struct cz_fleet_opts fo = { .conninfo = n->conninfo, .timeout_ms = n->opts.timeout_ms,
				    .lease_ms = n->opts.lease_ms, .notify = (enum cz_fleet_notify)n->opts.notify };
	if (cz_fleet_open(&fo, &f, err, sizeof err))
		return cz_ctl_err("await %s: the fleet's database: %s", id, err);
	uint64_t seq = 0;
	struct cz_fleet_status st = { 0 };
	int rc = cz_fleet_find(f, id, &seq);
	int64_t end = timeout >= 0 ? mono_ns() + (int64_t)(timeout * 1e9) : INT64_MAX;
	while (!rc) {
		int64_t left = end - mono_ns();
		int slice = left < (int64_t)AWAIT_SLICE_MS * 1000000 ? (int)(left > 0 ? left / 1000000 : 0) : AWAIT_SLICE_MS;
		rc = cz_fleet_await(f, seq, slice, &st);
		if (rc != -ETIMEDOUT)
			break;
		if (mono_ns() >= end || engine_stopping(e) || (peer && atomic_load(&peer->gone)))
			break;
		rc = 0;
	}
	if (rc == -ETIMEDOUT && engine_stopping(e))
		r = cz_ctl_err("job %s: the daemon is shutting down", id);
	else if (rc == -ETIMEDOUT && peer && atomic_load(&peer->gone))
		r = cz_ctl_err("job %s: the client hung up", id);
	else if (rc == -ETIMEDOUT) {
		r = cz_ctl_err("job %s: still running after %.1f s", id, timeout);
		json_object_object_add(r, "state", json_object_new_string("active"));
		json_object_object_add(r, "timeout", json_object_new_boolean(1));
	} else if (rc)
		r = fleet_err(f, rc, "await", id);
	else if (st.state == CZ_FLEET_JOB_DONE && !(r = proofs_write(n, f, id, &st, dir, sizeof dir))) {
		r = cz_ctl_ok();
		json_object_object_add(r, "state", json_object_new_string("done"));
		json_object_object_add(r, "dir", json_object_new_string(dir));
	} else if (!r)
		r = cz_ctl_err("job %s %s", id, cz_fleet_job_state_name(st.state));
	if (!rc) {
		json_object_object_add(r, "job", json_object_new_string(id));
		json_object_object_add(r, "seq", json_object_new_int64((int64_t)st.seq));
		if (st.state != CZ_FLEET_JOB_DONE)
			json_object_object_add(r, "state", json_object_new_string(cz_fleet_job_state_name(st.state)));
		json_object_object_add(r, "partitions", json_object_new_int((int)st.nparts));
		json_object_object_add(r, "duplicates", json_object_new_int64((int64_t)st.duplicates));
	}
	cz_fleet_close(f);
	return r;
}

json_object *cz_fnode_cancel(struct cz_engine *e, json_object *req, struct cz_ctl_peer *peer)
{
	struct cz_fnode *n = e->fleet;
	const char *id = NULL;
	json_object *r;
	uint64_t seq;

	if ((r = cz_field_str(req, "job", true, &id)))
		return r;
	long view = cz_access_view(peer);
	int rc = cz_fleet_find(n->fc, id, &seq);
	if (!rc)
		rc = cz_fleet_cancel(n->fc, seq, view < 0 ? 0 : (uint32_t)view, view < 0);
	if (rc)
		return fleet_err(n->fc, rc, "cancel", id);
	r = cz_ctl_ok();
	json_object_object_add(r, "job", json_object_new_string(id));
	json_object_object_add(r, "fleet", json_object_new_boolean(1));
	return r;
}

/* status's "fleet" object: this node's counters, the nodes and the queue from the database. */
void cz_fnode_status(struct cz_engine *e, json_object *r)
{
	struct cz_fnode *n = e->fleet;
	json_object *o = json_object_new_object(), *me = json_object_new_object();
	struct cz_fleet_stats fs;
	cz_fleet_stats_get(n->f, &fs);
	json_object_object_add(me, "node", json_object_new_int64(n->node_id));
	json_object_object_add(me, "capacity", json_object_new_int((int)n->capacity));
	json_object_object_add(me, "held", json_object_new_int((int)atomic_load(&n->nheld)));
	json_object_object_add(me, "leases_live", json_object_new_boolean(cz_fleet_leases_live(n->f)));
	json_object_object_add(me, "claims", json_object_new_int64((int64_t)atomic_load(&n->claims)));
	json_object_object_add(me, "claimed", json_object_new_int64((int64_t)atomic_load(&n->claimed)));
	json_object_object_add(me, "empty_claims", json_object_new_int64((int64_t)atomic_load(&n->empty_claims)));
	json_object_object_add(me, "claim_ms", json_object_new_double((double)atomic_load(&n->claim_us) / 1e3));
	json_object_object_add(me, "claim_latency_ms", lat_json(n, &n->claim_lat));
	json_object_object_add(me, "fed_latency_ms", lat_json(n, &n->fed_lat));
	json_object_object_add(me, "finished", json_object_new_int64((int64_t)atomic_load(&n->finished)));
	json_object_object_add(me, "duplicates", json_object_new_int64((int64_t)atomic_load(&n->duplicates)));
	json_object_object_add(me, "failed", json_object_new_int64((int64_t)atomic_load(&n->failed)));
	json_object_object_add(me, "errors", json_object_new_int64((int64_t)atomic_load(&n->errors)));
	json_object_object_add(me, "wakes_work", json_object_new_int64((int64_t)atomic_load(&n->wakes_work)));
	json_object_object_add(me, "wakes_local", json_object_new_int64((int64_t)atomic_load(&n->wakes_local)));
	json_object_object_add(me, "wakes_fallback", json_object_new_int64((int64_t)atomic_load(&n->wakes_fallback)));
	json_object_object_add(me, "listen_remade", json_object_new_int64((int64_t)atomic_load(&n->listen_remade)));
	json_object_object_add(me, "renew_errors", json_object_new_int64((int64_t)atomic_load(&n->renew_errors)));
	json_object_object_add(me, "lost", json_object_new_int64((int64_t)fs.lost));
	json_object_object_add(me, "pruned_jobs", json_object_new_int64((int64_t)atomic_load(&n->pruned_jobs)));
	json_object_object_add(me, "pruned_nodes", json_object_new_int64((int64_t)atomic_load(&n->pruned_nodes)));
	json_object_object_add(me, "lost_dropped", json_object_new_int64((int64_t)atomic_load(&n->lost_dropped)));
	json_object_object_add(me, "away_rounds", json_object_new_int64((int64_t)atomic_load(&n->away_rounds)));
	json_object_object_add(me, "stale_dropped", json_object_new_int((int)n->stale_dropped));
	json_object_object_add(me, "stale_released", json_object_new_int((int)n->stale_released));
	json_object_object_add(me, "reaped", json_object_new_int64((int64_t)fs.reaped));
	json_object_object_add(me, "reconnects", json_object_new_int64((int64_t)fs.reconnects));
	json_object_object_add(o, "this", me);
	struct cz_fleet_node_row rows[64];
	int nn = cz_fleet_nodes(n->fc, n->opts.lease_ms, rows, 64);
	if (nn >= 0) {
		json_object *a = json_object_new_array();
		for (int i = 0; i < nn; i++) {
			json_object *x = json_object_new_object();
			json_object_object_add(x, "node", json_object_new_int64(rows[i].id));
			json_object_object_add(x, "host", json_object_new_string(rows[i].host));
			json_object_object_add(x, "pid", json_object_new_int(rows[i].pid));
			json_object_object_add(x, "devices", json_object_new_int((int)rows[i].devices));
			json_object_object_add(x, "capacity", json_object_new_int((int)rows[i].capacity));
			json_object_object_add(x, "circuits", json_object_new_string(rows[i].circuits));
			json_object_object_add(x, "heartbeat_age_ms", json_object_new_int64(rows[i].heartbeat_age_ms));
			json_object_object_add(x, "held", json_object_new_int((int)rows[i].held));
			json_object_object_add(x, "duty_10s", rows[i].duty_10s < 0 ? NULL :
					       json_object_new_double(rows[i].duty_10s));
			json_object_object_add(x, "idle_cause", json_object_new_string(rows[i].idle_cause));
			json_object_array_add(a, x);
		}
		json_object_object_add(o, "nodes", a);
	} else
		json_object_object_add(o, "error", json_object_new_string(cz_fleet_error(n->fc)));
	struct cz_fleet_queue q;
	if (cz_fleet_queue_get(n->fc, &q) == 0) {
		json_object *qq = json_object_new_object(), *cl = json_object_new_object();
		for (unsigned p = 0; p < CZ_PRIO__COUNT; p++) {
			json_object_object_add(qq, cz_prio_name(p), json_object_new_int64((int64_t)q.queued[p]));
			json_object_object_add(cl, cz_prio_name(p), json_object_new_int64((int64_t)q.claimed[p]));
		}
		json_object_object_add(o, "queued", qq);
		json_object_object_add(o, "claimed", cl);
	}
	json_object_object_add(r, "fleet", o);
}

/* ---- /metrics (docs/metrics.md "Fleet") ---- */

static void mput(char **b, size_t *len, size_t *cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void mput(char **b, size_t *len, size_t *cap, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = *b ? vsnprintf(*b + *len, *cap - *len, fmt, ap) : -1;
		va_end(ap);
		if (k >= 0 && (size_t)k < *cap - *len) {
			*len += (size_t)k;
			return;
		}
		size_t nc = *cap ? 2 * *cap : 4096;
		char *nb = realloc(*b, nc);
		if (!nb)
			return;
		*b = nb;
		*cap = nc;
	}
}

#define MHEAD(name, type, help) mput(&b, &len, &cap, "# HELP " name " " help "\n# TYPE " name " " type "\n")
#define MC(name, help, v) (MHEAD(name, "counter", help), \
			   mput(&b, &len, &cap, name " %llu\n", (unsigned long long)(v)))
#define MG(name, help, fmt, v) (MHEAD(name, "gauge", help), mput(&b, &len, &cap, name " " fmt "\n", v))

/* A summary of the last CZ_FNODE_SAMPLES latencies (quantiles) and the totals. */
static void msummary(char **bp, size_t *lp, size_t *cp, struct cz_fnode *n, const char *name, const char *help,
		     const struct lat_ring *r, uint64_t sum_us)
{
	json_object *o = lat_json(n, r);
	mput(bp, lp, cp, "# HELP %s %s\n# TYPE %s summary\n", name, help, name);
	mput(bp, lp, cp, "%s{quantile=\"0.5\"} %.6f\n%s{quantile=\"0.99\"} %.6f\n", name,
	     json_object_get_double(json_object_object_get(o, "p50")) / 1e3, name,
	     json_object_get_double(json_object_object_get(o, "p99")) / 1e3);
	mput(bp, lp, cp, "%s_sum %.6f\n%s_count %llu\n", name, (double)sum_us / 1e6, name,
	     (unsigned long long)json_object_get_int64(json_object_object_get(o, "n")));
	json_object_put(o);
}

/* Each live node's duty from its last heartbeat (nodes that reported one). */
static void mnodes_duty(char **bp, size_t *lp, size_t *cp, const struct cz_fleet_node_row *rows, int nn)
{
	mput(bp, lp, cp, "# HELP cuzk_fleet_node_duty_ratio A live node's devices' mean duty over the last 10 s, "
	     "as its last heartbeat wrote it (the database's view).\n# TYPE cuzk_fleet_node_duty_ratio gauge\n");
	for (int i = 0; i < nn; i++) {
		if (rows[i].duty_10s < 0)
			continue;
		char host[2 * sizeof rows[i].host];     /* a label value: \\ and " escaped, no newline */
		size_t k = 0;
		for (const char *c = rows[i].host; *c && k + 2 < sizeof host; c++) {
			if (*c == '\\' || *c == '"')
				host[k++] = '\\';
			host[k++] = *c == '\n' ? ' ' : *c;
		}
		host[k] = 0;
		mput(bp, lp, cp, "cuzk_fleet_node_duty_ratio{node=\"%lld\",host=\"%s\"} %.4f\n", (long long)rows[i].id,
		     host, rows[i].duty_10s);
	}
}

char *cz_engine_fleet_metrics_text(struct cz_engine *e, size_t *lenp)
{
	struct cz_fnode *n = e->fleet;
	if (!n)
		return NULL;
	char *b = NULL;
	size_t len = 0, cap = 0;
	struct cz_fleet_stats fs;
	cz_fleet_stats_get(n->f, &fs);
	MG("cuzk_fleet_node_id", "This node's id in the fleet's database.", "%lld", (long long)n->node_id);
	MG("cuzk_fleet_capacity_partitions", "Consumers this node claims for.", "%u", n->capacity);
	MG("cuzk_fleet_held_partitions", "Fleet partitions this node holds now (claimed, not finished).", "%u",
	   atomic_load(&n->nheld));
	MG("cuzk_fleet_leases_live", "1 while this node's leases are live by its own clock (0: cut off, it stops claiming).",
	   "%d", cz_fleet_leases_live(n->f) ? 1 : 0);
	MC("cuzk_fleet_claims_total", "Claims this node sent.", atomic_load(&n->claims));
	MC("cuzk_fleet_empty_claims_total", "Claims that found no claimable work.", atomic_load(&n->empty_claims));
	MC("cuzk_fleet_claimed_partitions_total", "Partitions this node claimed.", atomic_load(&n->claimed));
	MC("cuzk_fleet_finished_partitions_total", "Partitions this node finished first (its proof recorded).",
	   atomic_load(&n->finished));
	MC("cuzk_fleet_duplicate_partitions_total", "Finishes of this node that found a proof there (ignored).",
	   atomic_load(&n->duplicates));
	MC("cuzk_fleet_failed_partitions_total", "Partitions that failed here (requeued, or their job failed).",
	   atomic_load(&n->failed));
	MC("cuzk_fleet_lost_partitions_total", "Held partitions a renew found lost (lease expired, taken, job ended).", fs.lost);
	MC("cuzk_fleet_lost_dropped_total", "Of those, local jobs cancelled before they were proved here.",
	   atomic_load(&n->lost_dropped));
	MC("cuzk_fleet_reaped_partitions_total", "Expired leases this node returned to the queue.", fs.reaped);
	MC("cuzk_fleet_reconnects_total", "Database connections this node made again after one was lost.", fs.reconnects);
	MC("cuzk_fleet_errors_total", "Claims and finishes that failed on the database.", atomic_load(&n->errors));
	MC("cuzk_fleet_renew_errors_total", "Renews that failed on the database.", atomic_load(&n->renew_errors));
	MC("cuzk_fleet_statements_total", "SQL statements this node's claim handle sent (claim, renew, finish, fail).",
	   fs.statements);
	MC("cuzk_fleet_pruned_jobs_total", "Ended jobs this node deleted after the retention.", atomic_load(&n->pruned_jobs));
	msummary(&b, &len, &cap, n, "cuzk_fleet_claim_latency_seconds", "A claim's round trip to the database.",
		 &n->claim_lat, atomic_load(&n->claim_us));
	msummary(&b, &len, &cap, n, "cuzk_fleet_fed_latency_seconds",
		 "A partition's claim sent to its being queued in this node's pipeline.", &n->fed_lat,
		 atomic_load(&n->fed_us));
	static _Thread_local struct cz_fleet_node_row rows[256];
	struct cz_fleet_queue q;
	int nn = cz_fleet_nodes(n->fc, n->opts.lease_ms, rows, 256);
	int qrc = cz_fleet_queue_get(n->fc, &q);
	MG("cuzk_fleet_database_up", "1 when the fleet's database answered this scrape's two statements.", "%d",
	   nn >= 0 && qrc == 0);
	if (nn >= 0) {
		uint64_t devs = 0, consumers = 0, held = 0;
		for (int i = 0; i < nn; i++) {
			devs += rows[i].devices;
			consumers += rows[i].capacity;
			held += rows[i].held;
		}
		MG("cuzk_fleet_nodes", "Nodes whose heartbeat is within a lease (the database's view).", "%d", nn);
		MG("cuzk_fleet_devices", "Devices of those nodes.", "%llu", (unsigned long long)devs);
		MG("cuzk_fleet_consumers", "Consumers of those nodes: the fleet's order bound.", "%llu",
		   (unsigned long long)consumers);
		MG("cuzk_fleet_claimed_by_live_nodes_partitions", "Partitions those nodes hold.", "%llu",
		   (unsigned long long)held);
		mnodes_duty(&b, &len, &cap, rows, nn);
	}
	if (qrc == 0) {
		MHEAD("cuzk_fleet_queue_partitions", "gauge",
		      "Partitions of live jobs in the fleet's database, by priority and state (queued, claimed).");
		for (unsigned p = 0; p < CZ_PRIO__COUNT; p++)
			mput(&b, &len, &cap,
			     "cuzk_fleet_queue_partitions{priority=\"%s\",state=\"queued\"} %llu\n"
			     "cuzk_fleet_queue_partitions{priority=\"%s\",state=\"claimed\"} %llu\n",
			     cz_prio_name(p), (unsigned long long)q.queued[p], cz_prio_name(p),
			     (unsigned long long)q.claimed[p]);
	}
	*lenp = len;
	return b;
}

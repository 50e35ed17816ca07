/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/admit.c — admission: what a submit may add to the daemon.
 *
 * Three questions are answered at submit before a job exists, so a
 * refused job leaves nothing behind: the first two under the engine lock,
 * the third under a lock of its own before any witness is copied:
 *
 * 1. Can its partitions ever run?  A partition's buffers come out of the
 *    memory budget after the loaded keys' share: one that needs more than
 *    budget - keys can never be dispatched while those keys are loaded.
 *    Such a job used to be accepted and wait for ever, and (being the
 *    queue's head) hold back every other circuit's work behind it.  Now it
 *    is refused naming the bytes it needs and the bytes there are.  (A
 *    key loaded after the submit can still shrink the room: the
 *    dispatcher then fails the partition with the same figures.)
 *
 * 2. Is there room in the queue?  Every accepted, unfinished partition
 *    costs the daemon some memory and a spool file (its descriptor is
 *    closed once the witness is spooled), so their
 *    number is bounded (--max-queued-partitions).  Over the bound a submit
 *    is answered "queue full" with retry_after_ms: the time the excess
 *    takes to drain at the recent rate (a smoothed gap between finished
 *    partitions), at least 100 ms.  Before this bound the fd limit was the
 *    one that struck first, as a connection dropped mid-request with
 *    "too many descriptors with one message".
 *
 *    The places are taken here, at the check, not when the job is queued:
 *    a submit then spends milliseconds to seconds copying its witnesses
 *    and waiting for the journal's group commit with the lock released,
 *    and concurrent submits each admitted meanwhile used to overshoot the
 *    bound by as many jobs as were in flight.  A reserved place is the
 *    job's from then on (its partitions give theirs back at their terminal
 *    step), or given back at once if the submit fails before the job
 *    exists (cz_admit_release_locked): the bound is exact.
 *
 * 3. Do its witnesses fit in the spool?  (cz_admit_spool, after the
 *    places are taken and outside the engine lock: it asks the filesystem.)
 *    A spool file is a full copy of its witness, and the spool shares its
 *    filesystem with the journal and the proofs: the journal failing for
 *    want of space is the worst outcome (nothing more is durable until a
 *    restart), so a submit is admitted only if
 *        need <= free - reserve - in_flight
 *    need: its witnesses' sizes, each rounded up to the filesystem's block
 *          (in full even where a reflink will share the extents: which copy
 *          works is known only once it is tried);
 *    free: statvfs's f_bavail (what an unprivileged writer may use; ext4's
 *          root-reserved blocks stay a margin of their own);
 *    reserve: 4 x max(the journal's size, 1 MiB) (it grows to 4x its
 *          compacted size before compaction writes a copy beside it), plus
 *          what the proofs of every accepted unfinished partition will take
 *          (out_open: proof.json, public.json and proof.bin at their
 *          largest for the circuit, and four 4 KiB blocks for rounding and
 *          the job's directory), plus 1 MiB of slack;
 *    in_flight: bytes other submits have reserved and are still copying
 *          (they are not in f_bavail yet).
 *    spool_mu is held from the statvfs to the reservation, and a
 *    reservation is given back only once its copies are on disk (or
 *    removed), so concurrent submits cannot overshoot the space either.
 *    Over it the submit is answered "queue full" like the bound above
 *    (the spool is the queue's other bound), with spool_full and a retry
 *    hint from the drain rate: the excess in partitions of this job's
 *    witness size, times the smoothed gap between finished partitions.  A
 *    copy that still hits ENOSPC or EDQUOT (something else filled the
 *    filesystem meanwhile) is answered the same way, its partial files
 *    removed and nothing journaled (cz_admit_spool_nospace).
 *
 * The default bound is derived from what runs out first:
 * - descriptors: RLIMIT_NOFILE (cuzkd raises its soft limit to the hard
 *   one at start), less the ones open once the engine has started, less a
 *   reserve: every connection slot (64), one request's passed descriptors
 *   in flight (200) and 64 more (loaded keys, trace and log files);
 * - memory: 1/64 of physical RAM at ADMIT_PART_COST bytes a partition
 *   (its record, queue entry and rendered output);
 * and is logged at start with the figure that set it.  Spool space is the
 * third term, applied at each submit (3. above) rather than folded into a
 * number at start: a partition's spool cost is its circuit's witness size,
 * unknown until its key is loaded, and the free space moves with whatever
 * else shares the filesystem.  So the queue holds at most
 * min(--max-queued-partitions, what fits in the spool now) partitions,
 * with or without an explicit --max-queued-partitions; the start log and
 * status (admission.spool) say how much space there is.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"
#include "zk/io/groth16_io.h"
#include "zk/io/snarkjs_json.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A queued partition's memory, generously: its struct cz_part, a heap
 * entry, its proof.json and public.json in the job's output buffer. */
#define ADMIT_PART_COST (sizeof(struct cz_part) + sizeof(struct cz_qent) + 8192)
#define ADMIT_FD_RESERVE (CZ_CTL_MAX_CONN + CZ_CTL_MAX_FDS + 64)
/* Spool space: the journal's least room, slack, and what a recovered
 * job's partitions are taken to need for their proofs (their circuit is
 * not known until it is loaded again: a generous figure). */
#define SPOOL_JOURNAL_MIN (1ull << 20)
#define SPOOL_SLACK (1ull << 20)
#define SPOOL_OUT_RECOVERED (64ull << 10)
#define SPOOL_BLOCK 4096ull

static long fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;
	if (!d)
		return 64;      /* no /proc: a guess */
	while (readdir(d))
		n++;
	closedir(d);
	return n > 2 ? n - 3 : n;       /* ".", ".." and the DIR's own */
}

uint64_t cz_admit_default(const struct cz_engine *e, char *why, size_t cap)
{
	(void)e;
	struct rlimit rl;
	uint64_t by_fd = UINT64_MAX, by_mem = UINT64_MAX;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		long left = (long)rl.rlim_cur - fds_open() - ADMIT_FD_RESERVE;
		by_fd = left > 16 ? (uint64_t)left : 16;
	}
	if (pages > 0 && psz > 0)
		by_mem = (uint64_t)pages * (uint64_t)psz / 64 / ADMIT_PART_COST;
	uint64_t v = by_fd < by_mem ? by_fd : by_mem;
	if (v > (1u << 20))
		v = 1u << 20;
	if (by_fd <= by_mem)
		snprintf(why, cap, "from RLIMIT_NOFILE %llu less %ld open and %d reserved descriptors",
			 (unsigned long long)rl.rlim_cur, fds_open(), (int)ADMIT_FD_RESERVE);
	else
		snprintf(why, cap, "from 1/64 of RAM at %zu bytes a partition", (size_t)ADMIT_PART_COST);
	return v;
}

bool cz_admit_never_fits_locked(const struct cz_engine *e, uint64_t part_bytes)
{
	cz_mutex_assert_held(&e->lock);
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	return e->keys_bytes > st.limit || part_bytes > st.limit - e->keys_bytes;
}

/* A job with an input partition whose buffer and wasm memory together can
 * never fit the budget: the error naming the circuit, the need and the
 * budget (the dispatcher would fail it only when it reached the head). */
static json_object *input_never_fits_locked(struct cz_engine *e, const struct cz_circuit *c)
{
	cz_mutex_assert_held(&e->lock);
	uint64_t w = cz_witgen_charge_locked(e, c), need = c->part_bytes + w;
	if (!cz_admit_never_fits_locked(e, need))
		return NULL;
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	uint64_t room = st.limit > e->keys_bytes ? st.limit - e->keys_bytes : 0;
	return cz_ctl_err("circuit %s: an input partition needs %llu bytes (its %llu-byte buffer and "
			   "%llu bytes of wasm memory, %s), but with the loaded keys (%llu bytes) the "
			   "%llu-byte --mem-budget leaves %llu: it can never run; unload a key or raise "
			   "--mem-budget", c->name, (unsigned long long)need,
			   (unsigned long long)c->part_bytes, (unsigned long long)w,
			   c->wmem_peak ? "as measured" : "its bound before any run",
			   (unsigned long long)e->keys_bytes, (unsigned long long)st.limit,
			   (unsigned long long)room);
}

json_object *cz_admit_locked(struct cz_engine *e, const struct cz_circuit *c, uint32_t n, bool inputs)
{
	cz_mutex_assert_held(&e->lock);
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	json_object *never = inputs && !cz_admit_never_fits_locked(e, c->part_bytes)
			     ? input_never_fits_locked(e, c) : NULL;
	if (never)
		return never;
	if (cz_admit_never_fits_locked(e, c->part_bytes)) {
		uint64_t room = st.limit > e->keys_bytes ? st.limit - e->keys_bytes : 0;
		return cz_ctl_err("circuit %s: a partition needs %llu bytes, but with the loaded keys "
				   "(%llu bytes) the %llu-byte budget leaves %llu: it can never run; unload a "
				   "key or raise --mem-budget", c->name, (unsigned long long)c->part_bytes,
				   (unsigned long long)e->keys_bytes, (unsigned long long)st.limit,
				   (unsigned long long)room);
	}
	if (n > e->max_queued)
		return cz_ctl_err("a job of %u partitions can never be accepted: --max-queued-partitions is %llu",
				   n, (unsigned long long)e->max_queued);
	if (e->parts_open + n <= e->max_queued) {
		/* The places are this submit's from now (see 2. above). */
		e->parts_open += n;
		e->parts_accepting += n;
		e->out_open += n * cz_admit_out_disk(c);
		return NULL;
	}
	uint64_t excess = e->parts_open + n - e->max_queued;
	uint64_t per = e->done_ewma_ns ? e->done_ewma_ns : 1000000000ull;   /* unknown: 1 s */
	uint64_t ms = excess * per / 1000000;
	ms = ms < 100 ? 100 : ms > 3600000 ? 3600000 : ms;
	e->queue_refused++;
	json_object *r = cz_ctl_err("queue full: %llu partitions are accepted and not finished "
				     "(--max-queued-partitions %llu), no room for this job's %u: retry in "
				     "about %.1f s", (unsigned long long)e->parts_open,
				     (unsigned long long)e->max_queued, n, (double)ms / 1e3);
	json_object_object_add(r, "queue_full", json_object_new_boolean(1));
	json_object_object_add(r, "retry_after_ms", json_object_new_int64((int64_t)ms));
	return r;
}

uint64_t cz_admit_out_disk(const struct cz_circuit *c)
{
	return CZ_PROOF_JSON_MAX + cz_public_json_max(c->key.npub) + CZ_PROOF_BIN_BYTES + 4 * SPOOL_BLOCK;
}

/* A submit that reserved n places fails before its job exists. */
void cz_admit_release_locked(struct cz_engine *e, uint32_t n, uint64_t out_disk)
{
	cz_mutex_assert_held(&e->lock);
	e->parts_open = e->parts_open > n ? e->parts_open - n : 0;
	e->parts_accepting = e->parts_accepting > n ? e->parts_accepting - n : 0;
	uint64_t o = (uint64_t)n * out_disk;
	e->out_open = e->out_open > o ? e->out_open - o : 0;
}

/* Its submit answered: the places are its partitions' (status's count). */
void cz_admit_accepted_locked(struct cz_engine *e, uint32_t n)
{
	cz_mutex_assert_held(&e->lock);
	e->parts_accepting = e->parts_accepting > n ? e->parts_accepting - n : 0;
}

/* A job resumed from the journal at start holds its places like any:
 * its partitions give them back at their terminal step. */
void cz_admit_recovered(struct cz_engine *e, struct cz_job *j)
{
	j->out_disk = SPOOL_OUT_RECOVERED;
	e->parts_open += j->nparts;
	e->out_open += (uint64_t)j->nparts * j->out_disk;
}

void cz_admit_part_end_locked(struct cz_engine *e, const struct cz_part *p)
{
	cz_mutex_assert_held(&e->lock);
	if (e->parts_open)
		e->parts_open--;
	e->out_open = e->out_open > p->job->out_disk ? e->out_open - p->job->out_disk : 0;
	if (atomic_load(&p->state) == CZ_PART_DONE) {
		/* The gap since the previous one, only while work was waiting:
		 * an idle hour is not a service time. */
		uint64_t now = p->t_done;
		if (e->last_done_ns && now > e->last_done_ns) {
			uint64_t gap = now - e->last_done_ns;
			e->done_ewma_ns = e->done_ewma_ns ? (e->done_ewma_ns * 7 + gap) / 8 : gap;
		}
		e->last_done_ns = now;
	}
	if (!e->parts_open)
		e->last_done_ns = 0;
}

/* ---- spool space (3. above) ---- */

static uint64_t spool_journal_reserve(struct cz_engine *e)
{
	struct cz_journal_stat js;
	cz_journal_stat(e->jn, &js);
	uint64_t jb = js.bytes > SPOOL_JOURNAL_MIN ? js.bytes : SPOOL_JOURNAL_MIN;
	return 4 * jb + SPOOL_SLACK;
}

static uint64_t round_blk(uint64_t v, uint64_t blk)
{
	return blk ? (v + blk - 1) / blk * blk : v;
}

/* The retry hint for a job that lacks `excess` bytes: as many partitions
 * of its own witness size must finish (their spool files go), at the
 * recent rate; nothing accepted to finish: a minute (only an operator
 * freeing space helps, and the text says so). */
static uint64_t spool_retry_ms(struct cz_engine *e, uint64_t excess, uint64_t per_part, uint32_t n,
			       bool *draining)
{
	pthread_mutex_lock(&e->lock);
	/* The caller still holds this submit's n places. */
	uint64_t others = e->parts_open > n ? e->parts_open - n : 0;
	uint64_t gap = e->done_ewma_ns ? e->done_ewma_ns : 1000000000ull;
	e->queue_refused++;
	pthread_mutex_unlock(&e->lock);
	*draining = others > 0;
	if (!others)
		return 60000;
	uint64_t parts = per_part ? (excess + per_part - 1) / per_part : 1;
	if (parts > others)
		parts = others;
	uint64_t ms = parts * (gap / 1000000);
	return ms < 100 ? 100 : ms > 3600000 ? 3600000 : ms;
}

static json_object *spool_full_resp(json_object *r, uint64_t ms)
{
	json_object_object_add(r, "queue_full", json_object_new_boolean(1));
	json_object_object_add(r, "spool_full", json_object_new_boolean(1));
	json_object_object_add(r, "retry_after_ms", json_object_new_int64((int64_t)ms));
	return r;
}

json_object *cz_admit_spool(struct cz_engine *e, uint64_t out_disk, uint32_t n,
			    const off_t *size, uint64_t *held)
{
	struct statvfs vs;
	uint64_t jres = spool_journal_reserve(e);     /* the journal's lock, not ours */
	*held = 0;

	pthread_mutex_lock(&e->spool_mu);
	/* Read under spool_mu (the order is spool_mu, then the engine lock:
	 * never the other way), so a submit checked after this one counts
	 * the proofs of every job checked before it. */
	pthread_mutex_lock(&e->lock);
	uint64_t out = e->out_open;     /* this job's places (and proofs) included */
	pthread_mutex_unlock(&e->lock);
	if (fstatvfs(e->spoolfd, &vs)) {
		int er = errno;
		pthread_mutex_unlock(&e->spool_mu);
		return cz_ctl_err("%s/spool: statvfs: %s (its free space cannot be checked)", e->state_dir,
				   strerror(er));
	}
	uint64_t blk = vs.f_frsize ? vs.f_frsize : vs.f_bsize;
	uint64_t need = 0;
	for (uint32_t i = 0; i < n; i++)
		need += round_blk((uint64_t)size[i], blk);
	uint64_t freeb = (uint64_t)vs.f_bavail * blk, total = (uint64_t)vs.f_blocks * blk;
	uint64_t reserve = jres + out, busy = e->spool_inflight;
	uint64_t own = jres + (uint64_t)n * out_disk;     /* what the job needs alone */
	bool inodes = vs.f_files && vs.f_favail < 3ull * n + 64;        /* spool + output files */
	bool fits = need + reserve + busy <= freeb && !inodes;
	atomic_store(&e->spool_free_seen, freeb);
	atomic_store(&e->spool_reserve_seen, reserve);
	if (fits) {
		e->spool_inflight += need;
		*held = need;
	}
	atomic_store(&e->spool_inflight_seen, e->spool_inflight);
	pthread_mutex_unlock(&e->spool_mu);
	if (fits)
		return NULL;

	atomic_fetch_add(&e->spool_refused, 1);
	if (need + own > total)
		return cz_ctl_err("a job of %u witnesses (%llu bytes) can never be spooled: the filesystem of "
				   "%s/spool holds %llu bytes in all, and %llu of it are kept for the journal "
				   "and this job's proofs; give --state-dir a larger filesystem", n,
				   (unsigned long long)need, e->state_dir, (unsigned long long)total,
				   (unsigned long long)own);
	bool draining;
	uint64_t lack = need + reserve + busy > freeb ? need + reserve + busy - freeb : 0;
	uint64_t ms = spool_retry_ms(e, lack, n ? need / n : need, n, &draining);
	if (inodes)
		return spool_full_resp(cz_ctl_err("queue full: the spool has no inodes left for this job's "
						   "%u witnesses: %s/spool's filesystem has %llu free (%u "
						   "needed with its proofs' files and 64 kept): retry in about "
						   "%.1f s%s, or free inodes there", n, e->state_dir,
						   (unsigned long long)vs.f_favail, 3 * n, (double)ms / 1e3,
						   draining ? " as finished jobs' files are removed" : ""), ms);
	return spool_full_resp(cz_ctl_err("queue full: the spool has no room for this job's witnesses: "
					   "they need %llu bytes in %s/spool, which has %llu bytes free, "
					   "less %llu kept for the journal and accepted jobs' proofs and "
					   "%llu being copied by other submits: retry in about %.1f s%s, "
					   "or free space there", (unsigned long long)need, e->state_dir,
					   (unsigned long long)freeb, (unsigned long long)reserve,
					   (unsigned long long)busy, (double)ms / 1e3,
					   draining ? " (as finished jobs' witnesses are removed)"
						    : " (no accepted job is left to free it)"), ms);
}

/* The copies are on disk (in f_bavail's count) or removed: the bytes
 * reserved for them go back. */
void cz_admit_spool_done(struct cz_engine *e, uint64_t *held)
{
	if (!*held)
		return;
	pthread_mutex_lock(&e->spool_mu);
	e->spool_inflight = e->spool_inflight > *held ? e->spool_inflight - *held : 0;
	atomic_store(&e->spool_inflight_seen, e->spool_inflight);
	pthread_mutex_unlock(&e->spool_mu);
	*held = 0;
}

/* A copy or fsync into the spool failed with ENOSPC or EDQUOT although the
 * space was checked: something else filled the filesystem meanwhile.  The
 * caller has removed the job's spool files and journals nothing. */
json_object *cz_admit_spool_nospace(struct cz_engine *e, uint32_t k, uint32_t n, const off_t *size,
				    const char *what)
{
	struct statvfs vs;
	uint64_t need = 0, freeb = 0;
	for (uint32_t i = 0; i < n; i++)
		need += (uint64_t)size[i];
	if (!fstatvfs(e->spoolfd, &vs))
		freeb = (uint64_t)vs.f_bavail * (vs.f_frsize ? vs.f_frsize : vs.f_bsize);
	atomic_fetch_add(&e->spool_refused, 1);
	bool draining;
	uint64_t ms = spool_retry_ms(e, need, n ? need / n : need, n, &draining);
	return spool_full_resp(cz_ctl_err("queue full: the spool ran out of space at witness %u (%s): "
					   "this job's witnesses need %llu bytes in %s/spool, %llu are free "
					   "now; nothing of the job was kept or journaled: retry in about "
					   "%.1f s, or free space there", k, what, (unsigned long long)need,
					   e->state_dir, (unsigned long long)freeb, (double)ms / 1e3), ms);
}

/* At start: what the spool has, beside the bound logged by the caller. */
void cz_admit_spool_log(struct cz_engine *e)
{
	struct statvfs vs;
	if (fstatvfs(e->spoolfd, &vs)) {
		fprintf(stderr, "cuzkd: warning: %s/spool: statvfs: %s: submits will be refused until it "
			"answers\n", e->state_dir, strerror(errno));
		return;
	}
	uint64_t blk = vs.f_frsize ? vs.f_frsize : vs.f_bsize;
	uint64_t freeb = (uint64_t)vs.f_bavail * blk, res = spool_journal_reserve(e);
	pthread_mutex_lock(&e->lock);
	res += e->out_open;
	pthread_mutex_unlock(&e->lock);
	atomic_store(&e->spool_free_seen, freeb);
	atomic_store(&e->spool_reserve_seen, res);
	fprintf(stderr, "cuzkd: admission: the spool %s/spool has %llu bytes free of %llu, %llu kept for "
		"the journal and proofs: a submit is admitted only if its witnesses fit in the rest\n",
		e->state_dir, (unsigned long long)freeb, (unsigned long long)((uint64_t)vs.f_blocks * blk),
		(unsigned long long)res);
}

json_object *cz_admit_status_locked(const struct cz_engine *e)
{
	cz_mutex_assert_held(&e->lock);
	json_object *o = json_object_new_object(), *sp = json_object_new_object();
	json_object_object_add(o, "max_queued_partitions", json_object_new_int64((int64_t)e->max_queued));
	json_object_object_add(o, "open_partitions", json_object_new_int64((int64_t)e->parts_open));
	json_object_object_add(o, "accepting_partitions", json_object_new_int64((int64_t)e->parts_accepting));
	json_object_object_add(o, "refused_full", json_object_new_int64((int64_t)e->queue_refused));
	json_object_object_add(o, "keys_bytes", json_object_new_int64((int64_t)e->keys_bytes));
	json_object_object_add(sp, "free_bytes", json_object_new_int64((int64_t)atomic_load(&e->spool_free_seen)));
	json_object_object_add(sp, "reserve_bytes",
			       json_object_new_int64((int64_t)atomic_load(&e->spool_reserve_seen)));
	json_object_object_add(sp, "inflight_bytes",
			       json_object_new_int64((int64_t)atomic_load(&e->spool_inflight_seen)));
	json_object_object_add(sp, "refused", json_object_new_int64((int64_t)atomic_load(&e->spool_refused)));
	json_object_object_add(o, "spool", sp);
	return o;
}

/* SPDX-License-Identifier: MIT */
/*
 * engine/evidence/trace.c — per-thread event buffers.
 *
 * Each thread owns one buffer of CAP events used as a ring: the writer
 * stores the event at head % CAP, then publishes head + 1 with a release
 * store (W1).  A dump acquires head (pairs with W1), copies, re-reads head
 * and drops the entries the writer may have overwritten meanwhile, so it
 * never blocks a writer and never reports a torn event.  The live reader
 * (cz_trace_scan, for engine/evidence/stat.c) does the same one event at a time,
 * seqlock-style, and merges the buffers in time order without allocating.
 * A dump starts with one "thread" record per buffer, so a reader knows
 * every consumer (and so every device) even if it never ran.
 */
#define _GNU_SOURCE
#include "engine/evidence/trace.h"
#include "lib/clock.h"

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define CAP (1u << 15)
#define MAXBUF CZ_TRACE_MAXBUF

struct tbuf {
	_Atomic uint64_t head;
	_Atomic int live;       /* a thread owns it; 0 after that thread exits */
	char role[32];
	uint32_t unit;
	uint16_t idx;           /* its index in bufs[] of the process that made it */
	uint64_t t_reg;         /* when it was first registered */
	_Alignas(64) struct cz_trace_ev ev[CAP];
};

static struct tbuf *bufs[MAXBUF];
static _Atomic unsigned nbufs;
static _Thread_local struct tbuf *mine;
static _Thread_local uint16_t mine_idx;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* A thread's buffer outlives it (its events stay for the dump); the next
 * thread of the same role takes it over, so short-lived connection threads
 * do not use up buffers. */
static void on_exit_thread(void *v)
{
	atomic_store(&((struct tbuf *)v)->live, 0);
}

static void make_key(void)
{
	pthread_key_create(&exit_key, on_exit_thread);
}

static int adopt(const char *role, uint32_t unit)
{
	unsigned nb = atomic_load(&nbufs);
	for (unsigned i = 0; i < nb && i < MAXBUF; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		int dead = 0;
		if (b && b->unit == unit && !strcmp(b->role, role) &&
		    atomic_compare_exchange_strong(&b->live, &dead, 1)) {
			mine = b;
			mine_idx = b->idx;
			return 1;
		}
	}
	return 0;
}

static const char *const names[CZ_EV__COUNT] = {
	"submit", "dispatch", "budget_wait", "budget_got", "synth_start", "synth_end",
	"enqueue", "pop", "lock_wait", "lock_got", "compute_start", "compute_end",
	"final_start", "final_end", "output", "idle",
	"assign", "reclaim",
	"disp_wait", "drop", "skip", "sched", "warmup",
	"witgen_start", "witgen_end",
	"fleet_claim", "fleet_empty", "fleet_fed", "fleet_lost",
};

const char *cz_trace_name(enum cz_ev t)
{
	return t < CZ_EV__COUNT ? names[t] : "?";
}

uint64_t cz_trace_now(void)
{
	return (uint64_t)cz_now_ns();
}

void cz_trace_thread(const char *role, uint32_t unit)
{
	if (mine)
		return;
	pthread_once(&exit_once, make_key);
	if (adopt(role, unit)) {
		pthread_setspecific(exit_key, mine);
		return;
	}
	unsigned i = atomic_fetch_add(&nbufs, 1);
	if (i >= MAXBUF)
		return;         /* more threads than buffers: this one goes untraced */
	/* Populated now: a buffer's pages are resident from the start, so the
	 * daemon's RSS does not creep up as events fill it. */
	struct tbuf *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b == MAP_FAILED)
		return;
	snprintf(b->role, sizeof(b->role), "%s", role);
	b->unit = unit;
	b->t_reg = cz_trace_now();
	b->idx = (uint16_t)i;
	atomic_init(&b->live, 1);
	mine_idx = (uint16_t)i;
	/* R0: publish the initialized buffer; pairs with the acquire in dump (D0). */
	__atomic_store_n(&bufs[i], b, __ATOMIC_RELEASE);
	mine = b;
	pthread_setspecific(exit_key, b);
}

/*
 * Buffers in shared memory, for threads that may run in another process
 * (a device's consumers, engine/device/devproc.c): cuzkd makes one memfd per role
 * and unit and registers it as owned by nobody, so that a thread of the
 * same role and unit adopts it, here (thread isolation) or in a child that
 * maps the fd and attaches it at the same index (cz_trace_shared_attach).
 * Either way the dump and the live reader see its events like any other
 * buffer's: CLOCK_MONOTONIC is one clock for every process.  Like every
 * buffer it lives as long as the process, and a later engine in the same
 * process (tests) finds it again by role and unit.
 */
static int shfd[MAXBUF];                /* +1: 0 = not shared */
static pthread_mutex_t sh_lock = PTHREAD_MUTEX_INITIALIZER;

int cz_trace_shared(const char *role, uint32_t unit, int *fd)
{
	int rc = -1;
	pthread_mutex_lock(&sh_lock);
	unsigned nb = atomic_load(&nbufs);
	for (unsigned i = 0; i < nb && i < MAXBUF; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		if (b && shfd[i] && b->unit == unit && !strcmp(b->role, role)) {
			*fd = shfd[i] - 1;
			rc = 0;
			goto out;
		}
	}
	/* A few buffers stay for threads of other roles. */
	if (nb + 16 >= MAXBUF)
		goto out;
	int f = memfd_create("cz-trace", MFD_CLOEXEC);
	if (f < 0)
		goto out;
	struct tbuf *b = MAP_FAILED;
	if (!ftruncate(f, (off_t)sizeof(*b)))
		b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f, 0);
	if (b == MAP_FAILED) {
		close(f);
		goto out;
	}
	unsigned i = atomic_fetch_add(&nbufs, 1);
	if (i >= MAXBUF) {
		munmap(b, sizeof(*b));
		close(f);
		goto out;
	}
	snprintf(b->role, sizeof(b->role), "%s", role);
	b->unit = unit;
	b->t_reg = cz_trace_now();
	b->idx = (uint16_t)i;
	atomic_init(&b->live, 0);
	shfd[i] = f + 1;
	/* R0 */
	__atomic_store_n(&bufs[i], b, __ATOMIC_RELEASE);
	*fd = f;
	rc = 0;
out:
	pthread_mutex_unlock(&sh_lock);
	return rc;
}

int cz_trace_shared_attach(int fd)
{
	pthread_once(&exit_once, make_key);
	struct tbuf *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (b == MAP_FAILED)
		return -1;
	if (b->idx >= MAXBUF) {
		munmap(b, sizeof(*b));
		return -1;
	}
	/* R0 */
	__atomic_store_n(&bufs[b->idx], b, __ATOMIC_RELEASE);
	unsigned nb = atomic_load(&nbufs);
	while (nb <= b->idx && !atomic_compare_exchange_weak(&nbufs, &nb, b->idx + 1u))
		;
	return 0;
}

void cz_trace_shared_orphan(const char *role, uint32_t unit)
{
	unsigned nb = atomic_load(&nbufs);
	for (unsigned i = 0; i < nb && i < MAXBUF; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		if (b && shfd[i] && b->unit == unit && !strcmp(b->role, role))
			atomic_store(&b->live, 0);
	}
}

/*
 * For a process that makes one engine after another (the control-protocol
 * fuzzer, selftests/fuzz/fuzz_ctl.c): the events of every private buffer
 * no thread owns, and of the caller's own, are dropped, so that a later
 * engine's whole-trace dump does not carry every earlier engine's events
 * (up to CAP a buffer: a dump of seconds under ASan).  Only between
 * engines: no other thread may write or read them meanwhile.  Shared
 * buffers (a device process may still hold one) are left as they are.
 */
void cz_trace_forget(void)
{
	unsigned nb = atomic_load(&nbufs);
	for (unsigned i = 0; i < nb && i < MAXBUF; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		if (b && !shfd[i] && (b == mine || !atomic_load(&b->live)))
			atomic_store(&b->head, 0);
	}
}

static void trace_ev(enum cz_ev type, uint64_t job, uint32_t part, uint32_t unit, uint32_t arg);

void cz_trace(enum cz_ev type, uint64_t job, uint32_t part)
{
	trace_ev(type, job, part, UINT32_MAX, 0);
}

void cz_trace_unit(enum cz_ev type, uint64_t job, uint32_t part, uint32_t unit)
{
	trace_ev(type, job, part, unit, 0);
}

void cz_trace_arg(enum cz_ev type, uint64_t job, uint32_t part, uint32_t arg)
{
	trace_ev(type, job, part, UINT32_MAX, arg);
}

static void trace_ev(enum cz_ev type, uint64_t job, uint32_t part, uint32_t unit, uint32_t arg)
{
	struct tbuf *b = mine;
	if (!b) {
		cz_trace_thread("control", 0);
		if (!(b = mine))
			return;
	}
	uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
	struct cz_trace_ev *e = &b->ev[h % CAP];
	e->ns = cz_trace_now();
	e->job = job;
	e->part = part;
	e->type = (uint16_t)type;
	e->thread = mine_idx;
	e->unit = unit == UINT32_MAX ? b->unit : unit;
	e->arg = arg;
	/* W1: the event is written before head covers it; pairs with D1. */
	atomic_store_explicit(&b->head, h + 1, memory_order_release);
}

/* The thread's schedstat fd (+1: 0 = not opened yet, -1 = none) and the
 * run_delay it last read. */
static _Thread_local int sched_fd;
static _Thread_local uint64_t sched_last;

static int sched_read(uint64_t *delay)
{
	char b[96];
	ssize_t n = pread(sched_fd - 1, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return -1;
	b[n] = 0;
	/* "<on-cpu ns> <run-queue ns> <timeslices>": the second field. */
	const char *s = b;
	while (*s && *s != ' ')
		s++;
	uint64_t v = 0;
	int digits = 0;
	for (s++; *s >= '0' && *s <= '9'; s++, digits++)
		v = v * 10 + (uint64_t)(*s - '0');
	if (!digits)
		return -1;
	*delay = v;
	return 0;
}

int cz_trace_sched(int always)
{
	uint64_t d;
	if (sched_fd == 0) {
		int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
		sched_fd = fd < 0 ? -1 : fd + 1;
		if (sched_fd > 0 && sched_read(&sched_last))
			sched_fd = -1;
		return 0;       /* the baseline: nothing measured yet */
	}
	if (sched_fd < 0 || sched_read(&d))
		return 0;
	uint64_t us = d > sched_last ? (d - sched_last) / 1000 : 0;
	sched_last += us * 1000;        /* the sub-us rest carries to the next */
	if (!us && !always)
		return 0;
	trace_ev(CZ_EV_SCHED, 0, 0, UINT32_MAX, us > UINT32_MAX ? UINT32_MAX : (uint32_t)us);
	return 1;
}

static int ev_cmp(const void *a, const void *b)
{
	const struct cz_trace_ev *x = a, *y = b;
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

static size_t collect(struct cz_trace_ev **out)
{
	unsigned nb = atomic_load(&nbufs);
	size_t n = 0, cap = 0;
	struct cz_trace_ev *all = NULL;

	if (nb > MAXBUF)
		nb = MAXBUF;
	for (unsigned i = 0; i < nb; i++) {
		/* D0: pairs with R0 */
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		if (!b)
			continue;
		/* D1: pairs with W1: events below h are complete */
		uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
		uint64_t lo = h > CAP ? h - CAP : 0;
		if (n + (h - lo) > cap) {
			cap = (n + (h - lo)) * 2 + 1024;
			struct cz_trace_ev *t = realloc(all, cap * sizeof(*t));
			if (!t)
				break;
			all = t;
		}
		size_t start = n;
		for (uint64_t k = lo; k < h; k++)
			all[n++] = b->ev[k % CAP];
		/* Entries the writer lapped during the copy are dropped. */
		uint64_t h2 = atomic_load_explicit(&b->head, memory_order_acquire);
		uint64_t lo2 = h2 > CAP ? h2 - CAP : 0;
		if (lo2 > lo) {
			size_t drop = (size_t)(lo2 - lo) < n - start ? (size_t)(lo2 - lo) : n - start;
			memmove(all + start, all + start + drop, (n - start - drop) * sizeof(*all));
			n -= drop;
		}
	}
	if (n)
		qsort(all, n, sizeof(*all), ev_cmp);
	*out = all;
	return n;
}

const char *cz_trace_role(uint16_t t)
{
	struct tbuf *b = t < MAXBUF ? __atomic_load_n(&bufs[t], __ATOMIC_ACQUIRE) : NULL;
	return b ? b->role : "?";
}

#define role_of cz_trace_role

/* The next unread event of buffer i below horizon into *out: 1, or 0 when
 * there is none yet.  A seqlock-style read: copy, then re-read head; if the
 * writer lapped the slot meanwhile the copy may be torn, so skip ahead. */
static int scan_peek(struct cz_trace_cursor *cur, unsigned i, uint64_t horizon,
		     struct cz_trace_ev *out)
{
	/* D0 again: pairs with R0 */
	struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
	if (!b)
		return 0;
	for (;;) {
		/* D1 again: pairs with W1 */
		uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
		uint64_t pos = cur->pos[i];
		if (pos >= h)
			return 0;
		if (h - pos > CAP) {
			cur->lost += h - CAP - pos;
			cur->pos[i] = pos = h - CAP;
		}
		*out = b->ev[pos % CAP];
		/* S1: the copy is complete before head is re-read (the
		 * seqlock reader's fence; pairs with W1 of a lapping writer). */
		atomic_thread_fence(memory_order_acquire);
		uint64_t h2 = atomic_load_explicit(&b->head, memory_order_relaxed);
		if (h2 - pos > CAP)
			continue;
		return out->ns < horizon;
	}
}

void cz_trace_scan(struct cz_trace_cursor *cur, uint64_t horizon, cz_trace_fn *fn, void *arg)
{
	struct cz_trace_ev next[MAXBUF];
	bool have[MAXBUF];
	unsigned nb = atomic_load(&nbufs);

	if (nb > MAXBUF)
		nb = MAXBUF;
	for (unsigned i = 0; i < nb; i++)
		have[i] = scan_peek(cur, i, horizon, &next[i]);
	/* A k-way merge by linear scan: a few dozen buffers, so a heap would
	 * not pay for itself. */
	for (;;) {
		int m = -1;
		for (unsigned i = 0; i < nb; i++)
			if (have[i] && (m < 0 || next[i].ns < next[m].ns))
				m = (int)i;
		if (m < 0)
			return;
		if (fn)
			fn(arg, &next[m]);
		cur->pos[m]++;
		have[m] = scan_peek(cur, (unsigned)m, horizon, &next[m]);
	}
}

/* Chrome's duration events: which event opens or closes which span. */
static const char *span(uint16_t type, char *ph)
{
	switch (type) {
	case CZ_EV_SYNTH_START: *ph = 'B'; return "synth";
	case CZ_EV_SYNTH_END: *ph = 'E'; return "synth";
	case CZ_EV_WITGEN_START: *ph = 'B'; return "witness generation";
	case CZ_EV_WITGEN_END: *ph = 'E'; return "witness generation";
	case CZ_EV_COMPUTE_START: *ph = 'B'; return "compute";
	case CZ_EV_COMPUTE_END: *ph = 'E'; return "compute";
	case CZ_EV_FINAL_START: *ph = 'B'; return "finalize";
	case CZ_EV_FINAL_END: *ph = 'E'; return "finalize";
	case CZ_EV_LOCK_WAIT: *ph = 'B'; return "device lock wait";
	case CZ_EV_LOCK_GOT: *ph = 'E'; return "device lock wait";
	case CZ_EV_BUDGET_WAIT: *ph = 'B'; return "budget wait";
	case CZ_EV_BUDGET_GOT: *ph = 'E'; return "budget wait";
	default: *ph = 'i'; return cz_trace_name(type);
	}
}

int cz_trace_dump(FILE *f, int chrome)
{
	struct cz_trace_ev *ev;
	size_t n = collect(&ev);

	unsigned nb = atomic_load(&nbufs);
	if (nb > MAXBUF)
		nb = MAXBUF;
	if (chrome)
		fprintf(f, "{\"traceEvents\": [\n");
	/* The header: every thread that ever registered, with its role. */
	int first = 1;
	for (unsigned i = 0; i < nb; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);
		if (!b)
			continue;
		if (chrome)
			fprintf(f, "%s{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
				"\"args\": {\"name\": \"%s\"}}\n", first ? "" : ",", i, b->role);
		else
			fprintf(f, "{\"ns\": %llu, \"ev\": \"thread\", \"job\": 0, \"part\": 0, "
				"\"thread\": \"%s\", \"unit\": %u, \"arg\": 0}\n",
				(unsigned long long)b->t_reg, b->role, b->unit);
		first = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct cz_trace_ev *e = &ev[i];
		if (chrome) {
			char ph;
			const char *nm = span(e->type, &ph);
			fprintf(f, "%s{\"name\": \"%s\", \"ph\": \"%c\", \"ts\": %.3f, \"pid\": 1, \"tid\": %u, "
				"%s\"args\": {\"job\": %llu, \"part\": %u, \"thread\": \"%s\"}}\n",
				first && !i ? "" : ",", nm, ph, e->ns / 1e3, e->thread, ph == 'i' ? "\"s\": \"t\", " : "",
				(unsigned long long)e->job, e->part, role_of(e->thread));
		} else {
			fprintf(f, "{\"ns\": %llu, \"ev\": \"%s\", \"job\": %llu, \"part\": %u, "
				"\"thread\": \"%s\", \"unit\": %u, \"arg\": %u}\n",
				(unsigned long long)e->ns, cz_trace_name(e->type), (unsigned long long)e->job,
				e->part, role_of(e->thread), e->unit, e->arg);
		}
	}
	if (chrome)
		fprintf(f, "]}\n");
	free(ev);
	return ferror(f) ? -1 : 0;
}

void cz_trace_dump_threads(FILE *f)
{
	unsigned nb = atomic_load(&nbufs);
	if (nb > MAXBUF)
		nb = MAXBUF;
	for (unsigned i = 0; i < nb; i++) {
		struct tbuf *b = __atomic_load_n(&bufs[i], __ATOMIC_ACQUIRE);   /* D0: pairs with R0 */
		if (b)
			fprintf(f, "{\"ns\": %llu, \"ev\": \"thread\", \"job\": 0, \"part\": 0, "
				"\"thread\": \"%s\", \"unit\": %u, \"arg\": 0}\n",
				(unsigned long long)b->t_reg, b->role, b->unit);
	}
}

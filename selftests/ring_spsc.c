/* Description: single-producer single-consumer rings: geometry checks, FIFO against a model queue, thread and cross-process streams, futex wake-ups on both sides, an idle waiter costs no CPU. */
#define _GNU_SOURCE
#include "ring/ring.h"
#include "selftests/cz_test.h"
#include "selftests/ring_test.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SEC 1000000000ll

static void t_geometry(void)
{
	static _Alignas(64) char mem[1 << 16];
	int ok = cz_ring_bytes(3, 64) == 0 && cz_ring_bytes(8, 12) == 0 && cz_ring_bytes(0, 64) == 0 && cz_ring_bytes(1, 64) > 64 &&
		 cz_ring_bytes(8, 0) == 0 && cz_ring_bytes(8, 2048) == 0 && cz_ring_bytes(8, 64) > 8 * 64 &&
		 cz_ring_bytes(CZ_RING_COUNT_MAX * 2, 8) == 0;
	ok &= cz_ring_init(mem + 8, sizeof(mem) - 8, 8, 64) == -EINVAL;
	ok &= cz_ring_init(mem, 100, 8, 64) == -ENOSPC;
	ok &= cz_ring_init(mem, sizeof(mem), 6, 64) == -EINVAL;
	memset(mem, 0, sizeof(mem));
	errno = 0;
	ok &= cz_ring_attach(mem, sizeof(mem)) == NULL && errno == EINVAL;
	ok &= cz_ring_init(mem, sizeof(mem), 64, 64) == 0;
	ok &= cz_ring_attach(mem, cz_ring_bytes(64, 64) - 1) == NULL;
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	ok &= r == (void *)mem && cz_ring_capacity(r) == 64 && cz_ring_esize(r) == 64 &&
	      cz_ring_count(r) == 0 && !cz_ring_nonempty(r) && cz_ring_nonfull(r);
	ct_ok(ok, "geometry: bad sizes, alignment and foreign memory are refused");
}

/* Random bursts against a plain array queue of the same capacity. */
static void t_model(void)
{
	enum { CAP = 8, ES = 24, OPS = 200000 };
	static _Alignas(64) char mem[4096];
	uint64_t model[CAP], in[CAP + 4][ES / 8], out[CAP + 4][ES / 8];
	unsigned mhead = 0, mn = 0;
	uint64_t next = 1, s = 88172645463325252ull;
	int bad = 0;

	cz_ring_init(mem, sizeof(mem), CAP, ES);
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	for (int op = 0; op < OPS / RT_SCALE && !bad; op++) {
		unsigned n = (unsigned)(rt_rand(&s) % (CAP + 4));
		if (rt_rand(&s) & 1) {
			for (unsigned i = 0; i < n; i++)
				in[i][0] = next + i, in[i][1] = ~(next + i), in[i][2] = (next + i) * 3;
			unsigned want = n < CAP - mn ? n : CAP - mn;
			unsigned got = cz_ring_sp_enqueue_burst(r, in, n);
			bad |= got != want;
			for (unsigned i = 0; i < got; i++)
				model[(mhead + mn++) % CAP] = next++;
		} else {
			unsigned want = n < mn ? n : mn;
			unsigned got = cz_ring_sc_dequeue_burst(r, out, n);
			bad |= got != want;
			for (unsigned i = 0; i < got && !bad; i++) {
				uint64_t v = model[mhead];
				mhead = (mhead + 1) % CAP, mn--;
				bad |= out[i][0] != v || out[i][1] != ~v || out[i][2] != v * 3;
			}
		}
		bad |= cz_ring_count(r) != mn || cz_ring_nonempty(r) != (mn > 0) ||
		       cz_ring_nonfull(r) != (mn < CAP);
	}
	ct_ok(!bad, "FIFO: %d random bursts match a model queue (counts, values, empty/full)",
	      OPS / RT_SCALE);
}

struct stream {
	struct cz_ring *r;
	uint64_t n;
	int timeouts;
};

static void *produce(void *v)
{
	struct stream *s = v;
	struct cz_ring_desc buf[32];
	uint64_t seed = 12345, seq = 0;

	while (seq < s->n) {
		unsigned b = 1 + (unsigned)(rt_rand(&seed) % 32);
		if (b > s->n - seq)
			b = (unsigned)(s->n - seq);
		for (unsigned i = 0; i < b; i++)
			rt_desc(&buf[i], 1, seq + i);
		unsigned done = 0;
		while (done < b) {
			unsigned k = cz_ring_sp_enqueue_burst(s->r, buf + done, b - done);
			done += k;
			if (!k && cz_ring_wait_nonfull(s->r, 5 * SEC))
				s->timeouts++;
		}
		seq += b;
	}
	return NULL;
}

/* Consumes n descriptors of producer 1 in order; returns the number wrong. */
static uint64_t consume(struct cz_ring *r, uint64_t n, int *timeouts)
{
	struct cz_ring_desc buf[32];
	uint64_t seed = 999, seq = 0, bad = 0;

	while (seq < n) {
		unsigned want = 1 + (unsigned)(rt_rand(&seed) % 32);
		unsigned k = cz_ring_sc_dequeue_burst(r, buf, want);
		if (!k) {
			if (cz_ring_wait_nonempty(r, 5 * SEC) && ++*timeouts > 3)
				return n - seq + bad;
			continue;
		}
		for (unsigned i = 0; i < k; i++, seq++)
			bad += !rt_desc_is(&buf[i], 1, seq);
	}
	return bad;
}

static void t_threads(void)
{
	const uint64_t n = 2000000 / RT_SCALE;
	size_t bytes = cz_ring_bytes(256, 64);
	int fd;
	void *mem = rt_shm(bytes, &fd);
	cz_ring_init(mem, bytes, 256, 64);
	struct stream s = { cz_ring_attach(mem, bytes), n, 0 };
	int timeouts = 0;
	pthread_t t;
	int64_t t0 = cz_now_ns();

	pthread_create(&t, NULL, produce, &s);
	uint64_t bad = consume(s.r, n, &timeouts);
	pthread_join(t, NULL);
	ct_ok(!bad && !timeouts && !s.timeouts && !cz_ring_nonempty(s.r),
	      "threads: %llu descriptors in order with intact checksums (%llu bad, %d timeouts)",
	      (unsigned long long)n, (unsigned long long)bad, timeouts + s.timeouts);
	ct_diag("%.1f M descriptors/s with random bursts and sleeping", n / ((cz_now_ns() - t0) / 1e3));
	munmap(mem, bytes);
	close(fd);
}

static void t_processes(void)
{
	const uint64_t n = 1000000 / RT_SCALE;
	size_t bytes = cz_ring_bytes(128, 64);
	int fd;
	void *mem = rt_shm(bytes, &fd);
	cz_ring_init(mem, bytes, 128, 64);
	int timeouts = 0;

	fflush(stdout);
	pid_t pid = fork();
	if (!pid) {
		void *m2 = rt_remap(fd, bytes);
		struct stream s = { cz_ring_attach(m2, bytes), n, 0 };
		if (m2 == mem || !s.r)
			_exit(3);
		produce(&s);
		_exit(s.timeouts ? 1 : 0);
	}
	struct cz_ring *r = cz_ring_attach(mem, bytes);
	uint64_t bad = consume(r, n, &timeouts);
	int status;
	waitpid(pid, &status, 0);
	ct_ok(!bad && !timeouts && WIFEXITED(status) && !WEXITSTATUS(status),
	      "processes: %llu descriptors across a fork, ring mapped at two addresses (%llu bad)",
	      (unsigned long long)n, (unsigned long long)bad);
	munmap(mem, bytes);
	close(fd);
}

/* Wake-up: the consumer is asleep (sleepers counted) when one element is
 * enqueued; it must get it within 1 s.  Repeated; run in a child process so
 * the futex is shared between two address spaces. */
struct wake_area {
	_Atomic uint64_t got;       /* elements the sleeper received */
	_Atomic uint64_t late;      /* waits that timed out */
	_Atomic uint64_t max_ns;    /* slowest wake-up seen */
	_Atomic uint64_t sent_ns;   /* when the last element was enqueued */
};

static void wake_consumer(struct cz_ring *r, struct wake_area *w, uint64_t n)
{
	struct cz_ring_desc d;

	while (atomic_load(&w->got) < n) {
		if (cz_ring_wait_nonempty(r, SEC)) {
			atomic_fetch_add(&w->late, 1);
			if (atomic_load(&w->late) > 3)
				return;
			continue;
		}
		uint64_t lat = (uint64_t)cz_now_ns() - atomic_load(&w->sent_ns);
		if (cz_ring_sc_dequeue_burst(r, &d, 1) != 1)
			continue;
		if (lat > atomic_load(&w->max_ns))
			atomic_store(&w->max_ns, lat);
		if (!rt_desc_is(&d, 1, atomic_load(&w->got)))
			atomic_fetch_add(&w->late, 1000);
		atomic_fetch_add(&w->got, 1);
	}
}

struct wake_thread {
	struct cz_ring *r;
	struct wake_area *w;
	uint64_t n;
};

static void *wake_thread(void *v)
{
	struct wake_thread *a = v;
	wake_consumer(a->r, a->w, a->n);
	return NULL;
}

static void t_wakeup(int procs, int sym)
{
	const uint64_t n = (procs ? 2000 : 3000) / (RT_SANITIZED ? 4 : 1);
	size_t rb = cz_ring_bytes(16, 64), bytes = rb + 4096;
	int fd;
	char *mem = rt_shm(bytes, &fd);
	cz_ring_init(mem, rb, 16, 64);
	struct cz_ring *r = cz_ring_attach(mem, rb);
	struct wake_area *w = (struct wake_area *)(mem + rb);
	struct wake_thread a = { r, w, n };
	int asym = cz_ring_cons_bell(r)->asym;
	if (sym)  /* the symmetric protocol: full barriers on both sides */
		cz_ring_cons_bell(r)->asym = cz_ring_prod_bell(r)->asym = 0;
	uint64_t unslept = 0;
	pid_t pid = 0;
	pthread_t t;

	if (procs) {
		fflush(stdout);
		pid = fork();
		if (!pid) {
			char *m2 = rt_remap(fd, bytes);
			wake_consumer(cz_ring_attach(m2, rb), (struct wake_area *)(m2 + rb), n);
			_exit(0);
		}
	} else {
		pthread_create(&t, NULL, wake_thread, &a);
	}
	for (uint64_t i = 0; i < n && atomic_load(&w->late) <= 3; i++) {
		/* Wait (up to 2 s) until the consumer is counted as a sleeper. */
		int64_t until = cz_now_ns() + 2 * SEC;
		while (!cz_ring_bell_sleepers(cz_ring_cons_bell(r)) && cz_now_ns() < until)
			sched_yield();
		unslept += !cz_ring_bell_sleepers(cz_ring_cons_bell(r));
		struct cz_ring_desc d;
		rt_desc(&d, 1, i);
		atomic_store(&w->sent_ns, (uint64_t)cz_now_ns());
		cz_ring_sp_enqueue_burst(r, &d, 1);
		until = cz_now_ns() + 2 * SEC;
		while (atomic_load(&w->got) <= i && atomic_load(&w->late) <= 3 && cz_now_ns() < until)
			sched_yield();
	}
	if (procs) {
		int st;
		if (atomic_load(&w->got) < n)
			kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	} else {
		if (atomic_load(&w->got) < n)
			atomic_store(&w->got, n);  /* let the thread leave */
		pthread_join(t, NULL);
	}
	ct_ok(atomic_load(&w->got) >= n && !atomic_load(&w->late) && unslept < n / 10,
	      "wake-up (%s, %s barriers): %llu times a sleeping consumer got one element "
	      "within 1 s (%llu late, %llu not seen asleep)", procs ? "processes" : "threads",
	      sym || !asym ? "symmetric" : "membarrier",
	      (unsigned long long)n, (unsigned long long)atomic_load(&w->late),
	      (unsigned long long)unslept);
	ct_diag("slowest wake-up %.1f us", atomic_load(&w->max_ns) / 1e3);
	munmap(mem, bytes);
	close(fd);
}

/* Producer side: the ring is full, the producer sleeps in wait_nonfull, the
 * consumer frees one slot; the producer must be back within 1 s. */
struct full_area {
	struct cz_ring *r;
	_Atomic uint64_t sent;
	_Atomic int late;
	uint64_t n;
};

static void *full_producer(void *v)
{
	struct full_area *f = v;
	struct cz_ring_desc d;

	for (uint64_t i = 0; i < f->n; i++) {
		rt_desc(&d, 1, i);
		while (!cz_ring_sp_enqueue_burst(f->r, &d, 1))
			if (cz_ring_wait_nonfull(f->r, SEC) && atomic_fetch_add(&f->late, 1) > 3)
				return NULL;
		atomic_store(&f->sent, i + 1);
	}
	return NULL;
}

static void t_wakeup_full(void)
{
	const uint64_t n = 1000 / (RT_SANITIZED ? 4 : 1);
	static _Alignas(64) char mem[8192];
	cz_ring_init(mem, sizeof(mem), 4, 64);
	struct full_area f = { cz_ring_attach(mem, sizeof(mem)), 0, 0, n + 4 };
	struct cz_ring_desc d;
	uint64_t bad = 0, unslept = 0, got = 0;
	pthread_t t;

	pthread_create(&t, NULL, full_producer, &f);
	for (uint64_t i = 0; i < n + 4 && atomic_load(&f.late) <= 3; i++) {
		int64_t until = cz_now_ns() + 2 * SEC;
		/* Producer has filled the ring and is asleep waiting for room. */
		while ((atomic_load(&f.sent) < (i + 4 < n + 4 ? i + 4 : n + 4) ||
			(i < n && !cz_ring_bell_sleepers(cz_ring_prod_bell(f.r)))) &&
		       cz_now_ns() < until)
			sched_yield();
		unslept += i < n && !cz_ring_bell_sleepers(cz_ring_prod_bell(f.r));
		if (cz_ring_sc_dequeue_burst(f.r, &d, 1) != 1)
			break;
		bad += !rt_desc_is(&d, 1, i);
		got++;
	}
	pthread_join(t, NULL);
	ct_ok(got == n + 4 && !bad && !atomic_load(&f.late) && unslept < n / 10,
	      "wake-up on room: %llu times a producer asleep on a full ring resumed within 1 s "
	      "(%llu not seen asleep)", (unsigned long long)n, (unsigned long long)unslept);
}

/* An idle waiter sleeps: 300 ms of waiting must cost well under 30 ms CPU. */
static void *idle_waiter(void *v)
{
	int64_t a = cz_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int rc = cz_ring_wait_nonempty(v, 300 * 1000000ll);
	long cpu_ns = (long)(cz_clock_ns(CLOCK_THREAD_CPUTIME_ID) - a);
	return (void *)(intptr_t)(rc == -ETIMEDOUT ? cpu_ns : -1);
}

static void t_idle(void)
{
	static _Alignas(64) char mem[8192];
	cz_ring_init(mem, sizeof(mem), 8, 64);
	pthread_t t;
	void *res;
	int64_t t0 = cz_now_ns();

	pthread_create(&t, NULL, idle_waiter, cz_ring_attach(mem, sizeof(mem)));
	pthread_join(t, &res);
	long cpu_ns = (long)(intptr_t)res;
	int64_t wall = cz_now_ns() - t0;
	ct_ok(cpu_ns >= 0 && cpu_ns < 30000000 && wall >= 290000000,
	      "idle: a 300 ms wait on an empty ring times out and uses %.2f ms of CPU", cpu_ns / 1e6);
}

/* Closing a bell ends waits on it: one asleep with no time limit returns
 * -EPIPE promptly, later ones at once, but a ring with elements still
 * reports them first. */
static void *forever_waiter(void *v)
{
	return (void *)(intptr_t)cz_ring_wait_nonempty(v, -1);
}

static void t_close(void)
{
	static _Alignas(64) char mem[8192];
	cz_ring_init(mem, sizeof(mem), 8, 64);
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	struct cz_ring_bell *b = cz_ring_cons_bell(r);
	pthread_t t;
	void *res;
	int ok = 1;

	pthread_create(&t, NULL, forever_waiter, r);
	int64_t until = cz_now_ns() + 2 * SEC;
	while (!cz_ring_bell_sleepers(b) && cz_now_ns() < until)
		sched_yield();
	ok &= cz_ring_bell_sleepers(b) == 1;
	int64_t t0 = cz_now_ns();
	cz_ring_bell_close(b);
	pthread_join(t, &res);
	int64_t took = cz_now_ns() - t0;
	/* No time limit: that it returned at all, with -EPIPE, is the close's
	 * doing.  How long it took is a figure, not a bound (a loaded machine
	 * may not run the waiter for a while). */
	ok &= (intptr_t)res == -EPIPE;
	ok &= cz_ring_wait_nonempty(r, SEC) == -EPIPE;
	struct cz_ring_desc d;
	rt_desc(&d, 1, 0);
	ok &= cz_ring_sp_enqueue_burst(r, &d, 1) == 1 && cz_ring_wait_nonempty(r, SEC) == 0;
	ok &= cz_ring_wait_nonfull(r, SEC) == 0;  /* the other bell is open */
	cz_ring_bell_init(b);
	ok &= cz_ring_sc_dequeue_burst(r, &d, 1) == 1 && cz_ring_wait_nonempty(r, 1000000) == -ETIMEDOUT;
	ct_ok(ok, "close: a waiter asleep without a time limit returns -EPIPE; later "
	      "waits return at once, unless elements are there; init reopens");
	ct_diag("close woke the sleeping waiter after %.0f us", took / 1e3);
}

/* Thread tid of this process asleep (state S; the only sleep of the
 * waiters here is FUTEX_WAIT) before until: counted in sleepers is not yet
 * asleep, it re-checks first. */
static bool asleep(int tid, int64_t until)
{
	char path[64], st = 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	while (st != 'S' && cz_now_ns() < until) {
		FILE *f = fopen(path, "r");
		if (!f || fscanf(f, "%*d (%*[^)]) %c", &st) != 1)
			st = 0;
		if (f)
			fclose(f);
		if (st != 'S')
			usleep(1000);
	}
	return st == 'S';
}

/* Held wake-ups (cz_ring_bell_hold): an enqueue under hold leaves the
 * sleeper asleep, with its element there, until the flush; after the flush
 * the thread wakes at once again.  The waiter says when it returned. */
static _Atomic int held_returned, held_tid;

static void *held_waiter(void *v)
{
	atomic_store(&held_tid, (int)syscall(SYS_gettid));
	intptr_t rc = cz_ring_wait_nonempty(v, 5 * SEC);
	atomic_store(&held_returned, 1);
	return (void *)rc;
}

static int held_round(struct cz_ring *r, bool hold)
{
	struct cz_ring_bell *b = cz_ring_cons_bell(r);
	struct cz_ring_desc d;
	pthread_t t;
	void *res;
	int ok = 1;

	atomic_store(&held_returned, 0);
	pthread_create(&t, NULL, held_waiter, r);
	int64_t until = cz_now_ns() + 2 * SEC;
	while (!cz_ring_bell_sleepers(b) && cz_now_ns() < until)
		sched_yield();
	ok &= cz_ring_bell_sleepers(b) == 1;
	/* Counted in sleepers is not yet asleep: it re-checks first (and would
	 * see the element).  Asleep: state S, the only sleep is FUTEX_WAIT. */
	ok &= asleep(atomic_load(&held_tid), until);
	if (hold)
		cz_ring_bell_hold();
	rt_desc(&d, 1, 0);
	ok &= cz_ring_sp_enqueue_burst(r, &d, 1) == 1;
	if (hold) {
		cz_ring_bell_ring(b, 1);        /* twice the same bell: one entry */
		usleep(100000);
		/* asleep through 100 ms with its element there: the wake is held */
		ok &= !atomic_load(&held_returned) && cz_ring_bell_sleepers(b) == 1;
		cz_ring_bell_flush();
	}
	pthread_join(t, &res);
	ok &= (intptr_t)res == 0;
	ok &= cz_ring_sc_dequeue_burst(r, &d, 1) == 1;
	return ok;
}

static void t_hold(void)
{
	static _Alignas(64) char mem[8192];
	cz_ring_init(mem, sizeof(mem), 8, 64);
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	int ok = held_round(r, true);
	ok &= held_round(r, false);     /* no hold left behind: woken by the enqueue */
	ct_ok(ok, "hold: a wake-up held back leaves the sleeper asleep 100 ms with its element "
	      "there, the flush wakes it, and afterwards wake-ups go at once");
}

/* One sleep (cz_ring_wait_nonempty_once): a waiter woken while the ring
 * is empty (its element was taken back before it ran) returns -EAGAIN,
 * so its caller can sample the wake-up; the plain wait sleeps on inside
 * until its time limit.  The wake: a ring of the bell with nothing there,
 * once the waiter is asleep (state S). */
static _Atomic int once_tid;
static _Atomic bool once_plain;

static void *once_waiter(void *v)
{
	atomic_store(&once_tid, (int)syscall(SYS_gettid));
	return (void *)(intptr_t)(atomic_load(&once_plain) ? cz_ring_wait_nonempty(v, 400 * 1000000ll)
							   : cz_ring_wait_nonempty_once(v, 5 * SEC));
}

static int once_round(struct cz_ring *r, bool plain, int64_t *took)
{
	struct cz_ring_bell *b = cz_ring_cons_bell(r);
	pthread_t t;
	void *res;
	int64_t until = cz_now_ns() + 2 * SEC;

	atomic_store(&once_tid, 0);
	atomic_store(&once_plain, plain);
	pthread_create(&t, NULL, once_waiter, r);
	while ((!atomic_load(&once_tid) || !cz_ring_bell_sleepers(b)) && cz_now_ns() < until)
		sched_yield();
	bool slept = asleep(atomic_load(&once_tid), until);
	int64_t t0 = cz_now_ns();
	cz_ring_bell_ring(b, 1);
	pthread_join(t, &res);
	*took = cz_now_ns() - t0;
	return slept ? (int)(intptr_t)res : 1;
}

static void t_once(void)
{
	static _Alignas(64) char mem[8192];
	cz_ring_init(mem, sizeof(mem), 8, 64);
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	int64_t took1, took2;
	int once = once_round(r, false, &took1), plain = once_round(r, true, &took2);
	/* The once-waiter's return is the wake's doing (its limit is 5 s);
	 * how soon is a figure.  The plain one sleeps on to its 400 ms. */
	ct_ok(once == -EAGAIN && plain == -ETIMEDOUT && took2 >= 300 * 1000000ll,
	      "once: a waiter woken to an empty ring returns -EAGAIN (%d, after %.2f ms); the plain wait "
	      "sleeps on to its 400 ms limit (%d after %.0f ms)", once, took1 / 1e6, plain, took2 / 1e6);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	ct_plan(13);
	t_geometry();
	t_model();
	t_threads();
	t_processes();
	t_wakeup(0, 0);
	t_wakeup(1, 0);
	t_wakeup(1, 1);
	t_wakeup_full();
	t_idle();
	t_hold();
	t_once();
	t_close();
	ct_ok(cz_ring_owner_dead(getpid()) == 0, "owner_dead: a live pid reads as alive");
	return ct_exit();
}

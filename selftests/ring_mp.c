/* Description: multi-producer rings (MPSC and MPMC) under thread and cross-process stress: every descriptor delivered exactly once, intact, in per-producer FIFO order, with sleeping on both sides. */
#define _GNU_SOURCE
#include "ring/ring.h"
#include "selftests/cz_test.h"
#include "selftests/ring_test.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#define SEC 1000000000ll
#define MAXP 8

/*
 * Shared bookkeeping placed after the ring in the same memfd: one byte per
 * (producer, seq) counting deliveries, and per consumer the last sequence
 * seen from each producer (for the FIFO check).
 */
struct books {
	_Atomic uint64_t delivered;
	_Atomic uint64_t bad;        /* corrupt, out of order, or unknown */
	_Atomic uint64_t timeouts;
	uint64_t per_producer;
	_Atomic uint8_t seen[];      /* [MAXP][per_producer] */
};

struct arena {
	int fd;
	char *mem;
	size_t ring_bytes, bytes;
};

static void arena_make(struct arena *a, uint32_t count, uint64_t per_producer)
{
	a->ring_bytes = (cz_ring_bytes(count, 64) + 63) & ~(size_t)63;
	a->bytes = a->ring_bytes + sizeof(struct books) + MAXP * per_producer;
	a->mem = rt_shm(a->bytes, &a->fd);
	cz_ring_init(a->mem, a->ring_bytes, count, 64);
	((struct books *)(a->mem + a->ring_bytes))->per_producer = per_producer;
}

static void arena_free(struct arena *a)
{
	munmap(a->mem, a->bytes);
	close(a->fd);
}

struct role {
	char *mem;               /* this thread's or process's mapping */
	size_t ring_bytes;
	unsigned id;             /* producer index 0.., or consumer index */
	unsigned owner;          /* owner id for mp/mc calls */
	unsigned nprod;
	uint64_t total;          /* all descriptors, for consumers to stop */
	int mc;                  /* consumers: use mc dequeue */
	unsigned ncons;          /* consumers in all */
};

static void *producer(void *v)
{
	struct role *ro = v;
	struct cz_ring *r = cz_ring_attach(ro->mem, ro->ring_bytes);
	struct books *b = (struct books *)(ro->mem + ro->ring_bytes);
	struct cz_ring_desc buf[16];
	uint64_t seed = 77 + ro->id, seq = 0, n = b->per_producer;

	while (seq < n) {
		unsigned k = 1 + (unsigned)(rt_rand(&seed) % 16);
		if (k > n - seq)
			k = (unsigned)(n - seq);
		for (unsigned i = 0; i < k; i++)
			rt_desc(&buf[i], ro->id, seq + i);
		unsigned done = 0;
		while (done < k) {
			unsigned m = cz_ring_mp_enqueue_burst(r, ro->owner, buf + done, k - done);
			done += m;
			if (!m && cz_ring_wait_nonfull(r, 5 * SEC) &&
			    atomic_fetch_add(&b->timeouts, 1) > 3)
				return NULL;
		}
		seq += k;
	}
	return NULL;
}

#define PILL 0xffffffffu  /* "all delivered, stop": the MPMC consumers' exit signal */

static void put_pills(struct cz_ring *r, unsigned owner, unsigned n)
{
	struct cz_ring_desc pill = { .key.part = PILL };

	while (n) {
		if (cz_ring_mp_enqueue_burst(r, owner, &pill, 1))
			n--;
		else
			cz_ring_wait_nonfull(r, SEC);
	}
}

static void *consumer(void *v)
{
	struct role *ro = v;
	struct cz_ring *r = cz_ring_attach(ro->mem, ro->ring_bytes);
	struct books *b = (struct books *)(ro->mem + ro->ring_bytes);
	struct cz_ring_desc buf[16];
	int64_t last[MAXP];
	uint64_t seed = 5 + ro->id;

	for (int i = 0; i < MAXP; i++)
		last[i] = -1;
	for (;;) {
		unsigned want = 1 + (unsigned)(rt_rand(&seed) % 16);
		unsigned k = ro->mc ? cz_ring_mc_dequeue_burst(r, ro->owner, buf, want)
				    : cz_ring_sc_dequeue_burst(r, buf, want);
		if (!k) {
			if (cz_ring_wait_nonempty(r, 5 * SEC) && atomic_fetch_add(&b->timeouts, 1) > 3)
				return NULL;
			continue;
		}
		unsigned pills = 0;
		for (unsigned i = 0; i < k; i++) {
			uint32_t p = buf[i].key.part;
			uint64_t s = buf[i].key.seq;
			if (p == PILL) {
				pills++;
				continue;
			}
			if (p >= ro->nprod || s >= b->per_producer || !rt_desc_is(&buf[i], p, s) ||
			    (int64_t)s <= last[p]) {
				atomic_fetch_add(&b->bad, 1);
				continue;
			}
			last[p] = (int64_t)s;
			atomic_fetch_add(&b->seen[p * b->per_producer + s], 1);
		}
		uint64_t old = atomic_fetch_add(&b->delivered, k - pills);
		if (old < ro->total && old + k - pills >= ro->total && ro->mc) {
			/* We delivered the last one: one pill for each other consumer. */
			put_pills(r, ro->owner, ro->ncons - 1);
			return NULL;
		}
		if (pills) {
			put_pills(r, ro->owner, pills - 1);  /* pass extra pills on */
			return NULL;
		}
		if (old + k >= ro->total)
			return NULL;
	}
}

static int check_books(struct books *b, unsigned nprod, uint64_t *missing)
{
	*missing = 0;
	for (uint64_t i = 0; i < nprod * b->per_producer; i++)
		*missing += atomic_load(&b->seen[i]) != 1;
	return !*missing && !atomic_load(&b->bad) && !atomic_load(&b->timeouts);
}

static void run(const char *what, unsigned nprod, unsigned ncons, int procs, uint32_t count,
		uint64_t per_producer)
{
	struct arena a;
	arena_make(&a, count, per_producer);
	struct books *b = (struct books *)(a.mem + a.ring_bytes);
	struct role roles[2 * MAXP];
	pthread_t tid[2 * MAXP];
	pid_t pid[2 * MAXP];
	unsigned nr = nprod + ncons;
	int64_t t0 = cz_now_ns();

	for (unsigned i = 0; i < nr; i++) {
		int prod = i < nprod;
		roles[i] = (struct role){ a.mem, a.ring_bytes, prod ? i : i - nprod, 1 + i, nprod,
					  nprod * per_producer, ncons > 1, ncons };
		if (procs) {
			fflush(stdout);
			pid[i] = fork();
			if (!pid[i]) {
				roles[i].mem = rt_remap(a.fd, a.bytes);  /* another address */
				(prod ? producer : consumer)(&roles[i]);
				_exit(0);
			}
		} else {
			pthread_create(&tid[i], NULL, prod ? producer : consumer, &roles[i]);
		}
	}
	int exits_ok = 1;
	for (unsigned i = 0; i < nr; i++) {
		if (procs) {
			int st;
			waitpid(pid[i], &st, 0);
			exits_ok &= WIFEXITED(st) && !WEXITSTATUS(st);
		} else {
			pthread_join(tid[i], NULL);
		}
	}
	double secs = (cz_now_ns() - t0) / 1e9;
	uint64_t missing;
	int ok = check_books(b, nprod, &missing) && exits_ok &&
		 atomic_load(&b->delivered) == nprod * per_producer;
	ct_ok(ok, "%s: %u producers x %llu -> %u consumer%s over %u slots: exactly once, "
	      "per-producer FIFO (%llu missing/duplicated, %llu bad, %llu timeouts)",
	      what, nprod, (unsigned long long)per_producer, ncons, ncons > 1 ? "s" : "", count,
	      (unsigned long long)missing, (unsigned long long)atomic_load(&b->bad),
	      (unsigned long long)atomic_load(&b->timeouts));
	ct_diag("%.2f M descriptors/s", nprod * per_producer / secs / 1e6);
	arena_free(&a);
}

/*
 * Stale positions: an mp producer and an mc consumer are held (by the test
 * hook) right after reading their starting position, while 4096 laps go
 * through the ring.  When released they must find their way to the current
 * position: the producer's element arrives after everything before it, once;
 * the consumer takes the next element, not an old one.
 */
static _Thread_local int tl_hold;    /* this thread stops at its next hint */
static _Atomic int held, release_held;

static void hold_hook(struct cz_ring *r, int where, uint64_t pos, unsigned n)
{
	(void)r, (void)pos, (void)n;
	if (where != CZ_RING_HOOK_HINT || !tl_hold)
		return;
	tl_hold = 0;
	atomic_store(&held, 1);
	while (!atomic_load(&release_held))
		usleep(100);
}

struct stale_arg {
	struct cz_ring *r;
	int consumer;
	unsigned got;
	struct cz_ring_desc d;
};

static void *stale_thread(void *v)
{
	struct stale_arg *a = v;
	tl_hold = 1;
	if (a->consumer) {
		a->got = cz_ring_mc_dequeue_burst(a->r, 9, &a->d, 1);
	} else {
		rt_desc(&a->d, 5, 0);
		a->got = cz_ring_mp_enqueue_burst(a->r, 9, &a->d, 1);
	}
	return NULL;
}

static void t_stale(void)
{
	static _Alignas(64) char mem[16384];
	cz_ring_init(mem, sizeof(mem), 64, 64);
	struct cz_ring *r = cz_ring_attach(mem, sizeof(mem));
	struct cz_ring_desc d[64];
	uint64_t bad = 0, seq = 0;
	const uint64_t laps = 4096;

	cz_ring_test_hook = hold_hook;
	for (int who = 0; who < 2; who++) {
		struct stale_arg a = { .r = r, .consumer = who };
		pthread_t t;
		atomic_store(&held, 0);
		atomic_store(&release_held, 0);
		if (who) {  /* give the consumer something to be stale about */
			rt_desc(&d[0], 1, seq++);
			bad += cz_ring_mp_enqueue_burst(r, 1, d, 1) != 1;
		}
		pthread_create(&t, NULL, stale_thread, &a);
		while (!atomic_load(&held))
			usleep(100);
		if (who) {  /* take the element it was about to take */
			bad += cz_ring_mc_dequeue_burst(r, 2, d, 1) != 1 || !rt_desc_is(&d[0], 1, seq - 1);
		}
		for (uint64_t l = 0; l < laps; l++) {
			for (int i = 0; i < 64; i++)
				rt_desc(&d[i], 1, seq + (uint64_t)i);
			bad += cz_ring_mp_enqueue_burst(r, 1, d, 64) != 64;
			bad += cz_ring_mc_dequeue_burst(r, 2, d, 64) != 64;
			for (int i = 0; i < 64; i++)
				bad += !rt_desc_is(&d[i], 1, seq + (uint64_t)i);
			seq += 64;
		}
		if (who) {  /* one more element, for the stale consumer */
			rt_desc(&d[0], 1, seq++);
			bad += cz_ring_mp_enqueue_burst(r, 1, d, 1) != 1;
		}
		int64_t t0 = cz_now_ns();
		atomic_store(&release_held, 1);
		pthread_join(t, NULL);
		int64_t took = cz_now_ns() - t0;
		if (who) {
			bad += a.got != 1 || !rt_desc_is(&a.d, 1, seq - 1);
		} else {
			bad += a.got != 1;
			bad += cz_ring_mc_dequeue_burst(r, 2, d, 64) != 1 || !rt_desc_is(&d[0], 5, 0);
		}
		bad += cz_ring_nonempty(r);
		ct_diag("stale %s caught up in %.0f us", who ? "consumer" : "producer", took / 1e3);
	}
	cz_ring_test_hook = NULL;
	ct_ok(!bad, "stale positions: a producer and a consumer held for %llu laps resume at the "
	      "current position, nothing lost or repeated", (unsigned long long)laps);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	ct_plan(7);
	run("MPSC threads", 4, 1, 0, 64, 300000 / RT_SCALE);
	run("MPSC threads, tiny ring", 3, 1, 0, 2, 30000 / RT_SCALE);
	run("MPMC threads", 3, 3, 0, 32, 200000 / RT_SCALE);
	run("MPSC processes", 3, 1, 1, 16, 300000 / RT_SCALE);
	run("MPMC processes", 2, 2, 1, 8, 150000 / RT_SCALE);
	run("MPMC threads, 8x8", 8, 8, 0, 64, 40000 / RT_SCALE);
	t_stale();
	return ct_exit();
}

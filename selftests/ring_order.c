/* Description: the ordered dispatcher: the heap pops in (prio, job, partition) order against a sorted-array oracle; a producer -> inbox -> dispatcher -> short per-consumer rings -> completion ring pipeline (threads, and processes mapping the file at different addresses) delivers exactly once in key order; a late critical item overtakes a deep queue of normal ones. */
#define _GNU_SOURCE
#include "ring/order.h"
#include "selftests/cz_test.h"
#include "selftests/ring_test.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>

#define SEC 1000000000ll

/* The oracle compares keys itself rather than trusting cz_key_cmp. */
static int key_less(const struct cz_ring_desc *a, const struct cz_ring_desc *b)
{
	uint64_t ka[3] = { a->key.prio, a->key.seq, a->key.part }, kb[3] = { b->key.prio, b->key.seq, b->key.part };
	for (int i = 0; i < 3; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i];
	return 0;
}

static void rand_desc(struct cz_ring_desc *d, uint64_t *seed, uint64_t uniq)
{
	memset(d, 0, sizeof(*d));
	d->key.prio = (uint32_t)(rt_rand(seed) % 4);
	d->key.seq = rt_rand(seed) % 50;
	d->key.part = (uint32_t)(uniq);  /* unique, so keys never tie */
	d->off[0] = uniq * 77;
	d->csum = cz_ring_desc_csum(d);
}

static void t_heap(void)
{
	enum { CAP = 500 };
	size_t bytes = cz_ring_order_bytes(CAP);
	void *mem = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	struct cz_ring_desc model[CAP], d;
	unsigned mn = 0;
	uint64_t seed = 31337, uniq = 0;
	int bad = 0;

	bad |= cz_ring_order_init(mem, 10, CAP) != -ENOSPC || cz_ring_order_init(mem, bytes, 0) != -EINVAL;
	bad |= cz_ring_order_init(mem, bytes, CAP) != 0;
	struct cz_ring_order *q = cz_ring_order_attach(mem, bytes);
	bad |= !q || cz_ring_order_attach(mem, bytes - 1) != NULL;
	for (int op = 0; op < 200000 / RT_SCALE && !bad; op++) {
		if (rt_rand(&seed) % 100 < 52) {
			rand_desc(&d, &seed, uniq++);
			int rc = cz_ring_order_push(q, &d);
			if (mn == CAP) {
				bad |= rc != -ENOSPC;
			} else {
				bad |= rc != 0;
				unsigned i = mn++;  /* insertion into a sorted array */
				while (i && key_less(&d, &model[i - 1])) {
					model[i] = model[i - 1];
					i--;
				}
				model[i] = d;
			}
		} else {
			int rc = cz_ring_order_pop(q, &d);
			if (!mn) {
				bad |= rc != 0;
			} else {
				bad |= rc != 1 || memcmp(&d, &model[0], sizeof(d));
				memmove(model, model + 1, --mn * sizeof(d));
			}
		}
		bad |= cz_ring_order_count(q) != mn;
	}
	ct_ok(!bad, "heap: %d random pushes/pops match a sorted-array oracle, full and empty refused",
	      200000 / RT_SCALE);
	free(mem);
}

/*
 * The pipeline, all in one shared mapping:
 *   producers --mp--> inbox --sc--> [dispatcher: heap] --sp--> out[c] (depth D)
 *   out[c] --sc--> consumer c --mp--> completion --sc--> finalizer
 * The dispatcher's bell is shared by the inbox (consumer side) and every
 * out ring (producer side), so it sleeps on one futex for all of them.
 */
#define MAXC 4

/* The part every process shares: flags, counters and the geometry that lets
 * a process find the rings in its own mapping of the file. */
struct ctl {
	_Atomic int stop;
	_Atomic int crit_sent;       /* set after the critical item is in the inbox */
	_Atomic int crit_seen;
	_Atomic unsigned normals_after;  /* normals its consumer took after crit_sent */
	_Atomic unsigned inversions;     /* consumers: keys not increasing */
	_Atomic unsigned received;
	unsigned ncons, depth, inbox_n, heap_n, work_us, check_order;
	size_t bytes;
};

struct pipe {  /* this process's view */
	char *mem;
	struct ctl *ctl;
	struct cz_ring_bell *bell;
	struct cz_ring *inbox, *out[MAXC], *done;
	struct cz_ring_order *q;
	int fd;
};

#define CTL_BYTES 128
#define ALIGN64(x) (((x) + 63) & ~(size_t)63)

/* Walks the layout: initialises it when init, else attaches. */
static void pipe_layout(struct pipe *p, char *base, int init)
{
	struct ctl *c = (struct ctl *)base;
	size_t rin = cz_ring_bytes(c->inbox_n, 64), rout = cz_ring_bytes(c->depth, 64),
	       rdone = cz_ring_bytes(1024, 64), rq = cz_ring_order_bytes(c->heap_n);
	char *m = base + CTL_BYTES;

	p->mem = base;
	p->ctl = c;
	p->bell = (struct cz_ring_bell *)m;
	if (init)
		cz_ring_bell_init(p->bell);
	m += 64;
	if (init)
		cz_ring_init_bells(m, rin, c->inbox_n, 64, p->bell, NULL);
	p->inbox = cz_ring_attach(m, rin);
	m += ALIGN64(rin);
	for (unsigned i = 0; i < c->ncons; i++) {
		if (init)
			cz_ring_init_bells(m, rout, c->depth, 64, NULL, p->bell);
		p->out[i] = cz_ring_attach(m, rout);
		m += ALIGN64(rout);
	}
	if (init)
		cz_ring_init(m, rdone, 1024, 64);
	p->done = cz_ring_attach(m, rdone);
	m += ALIGN64(rdone);
	if (init)
		cz_ring_order_init(m, rq, c->heap_n);
	p->q = cz_ring_order_attach(m, rq);
	if (!p->inbox || !p->done || !p->q) {
		fprintf(stderr, "ring_order: layout does not attach\n");
		exit(2);
	}
}

static void pipe_make(struct pipe *p, unsigned ncons, uint32_t depth, uint32_t inbox_n,
		      uint32_t heap_n)
{
	size_t bytes = CTL_BYTES + 64 + ALIGN64(cz_ring_bytes(inbox_n, 64)) +
		       ncons * ALIGN64(cz_ring_bytes(depth, 64)) +
		       ALIGN64(cz_ring_bytes(1024, 64)) + cz_ring_order_bytes(heap_n);
	char *base = rt_shm(bytes, &p->fd);
	struct ctl *c = (struct ctl *)base;
	_Static_assert(sizeof(struct ctl) <= CTL_BYTES, "ctl fits its slot");
	c->ncons = ncons;
	c->depth = depth;
	c->inbox_n = inbox_n;
	c->heap_n = heap_n;
	c->bytes = bytes;
	pipe_layout(p, base, 1);
}

/* Another view of the same file, at another address (for a child process). */
static void pipe_remap(struct pipe *p, const struct pipe *from)
{
	char *base = rt_remap(from->fd, from->ctl->bytes);
	p->fd = from->fd;
	pipe_layout(p, base, 0);
}

static void pipe_free(struct pipe *p)
{
	munmap(p->mem, p->ctl->bytes);
	close(p->fd);
}

static void *dispatcher(void *v)
{
	struct pipe *p = v;
	while (!atomic_load(&p->ctl->stop)) {
		if (!cz_ring_order_pump(p->q, p->inbox, p->out, p->ctl->ncons) &&
		    cz_ring_order_wait(p->q, p->inbox, p->out, p->ctl->ncons, SEC / 5) == -EINVAL)
			atomic_fetch_add(&p->ctl->inversions, 1000);
	}
	return NULL;
}

struct cons_arg {
	struct pipe *p;
	unsigned c;
};

static void *consumer(void *v)
{
	struct cons_arg *a = v;
	struct pipe *p = a->p;
	struct ctl *c = p->ctl;
	struct cz_ring_desc d, prev;
	unsigned after = 0, n = 0;

	while (!atomic_load(&c->stop)) {
		int sent = atomic_load(&c->crit_sent);
		if (!cz_ring_sc_dequeue_burst(p->out[a->c], &d, 1)) {
			cz_ring_wait_nonempty(p->out[a->c], SEC / 5);
			continue;
		}
		if (c->check_order && n++ && !key_less(&prev, &d))
			atomic_fetch_add(&c->inversions, 1);
		prev = d;
		atomic_fetch_add(&c->received, 1);
		if (d.key.prio == 0 && d.kind == 0xc) {
			atomic_store(&c->normals_after, after);
			atomic_store(&c->crit_seen, 1);
		} else if (sent) {
			after++;
		}
		if (c->work_us)
			usleep(c->work_us);
		/* Report completion: the same descriptor goes to the finalizer. */
		while (!cz_ring_mp_enqueue_burst(p->done, 1 + a->c, &d, 1))
			cz_ring_wait_nonfull(p->done, SEC / 5);
	}
	return NULL;
}

/* Dispatcher and consumers as threads, or each in its own process with its
 * own mapping of the file (then the dispatcher's shared bell is reached
 * through offsets from rings mapped at different addresses). */
struct crew {
	pthread_t t[1 + MAXC];
	pid_t pid[1 + MAXC];
	struct cons_arg ca[MAXC];
	int procs;
};

static void pipe_start(struct pipe *p, struct crew *w, int procs)
{
	w->procs = procs;
	for (unsigned i = 0; i <= p->ctl->ncons; i++) {
		if (procs) {
			fflush(stdout);
			w->pid[i] = fork();
			if (w->pid[i])
				continue;
			static struct pipe mine;
			pipe_remap(&mine, p);
			if (!i) {
				dispatcher(&mine);
			} else {
				struct cons_arg a = { &mine, i - 1 };
				consumer(&a);
			}
			_exit(0);
		}
		if (!i) {
			pthread_create(&w->t[0], NULL, dispatcher, p);
		} else {
			w->ca[i - 1] = (struct cons_arg){ p, i - 1 };
			pthread_create(&w->t[i], NULL, consumer, &w->ca[i - 1]);
		}
	}
}

static int pipe_stop(struct pipe *p, struct crew *w)
{
	int ok = 1;
	atomic_store(&p->ctl->stop, 1);
	for (unsigned i = 0; i <= p->ctl->ncons; i++) {
		if (w->procs) {
			int st;
			waitpid(w->pid[i], &st, 0);
			ok &= WIFEXITED(st) && !WEXITSTATUS(st);
		} else {
			pthread_join(w->t[i], NULL);
		}
	}
	return ok;
}

/* Finalizer: collect n completions of items numbered below range; each
 * must be intact and new. */
static uint64_t finalize(struct pipe *p, uint64_t n, uint64_t range, uint8_t *seen)
{
	struct cz_ring_desc d[32];
	uint64_t got = 0, bad = 0;
	while (got < n) {
		unsigned k = cz_ring_sc_dequeue_burst(p->done, d, 32);
		if (!k && cz_ring_wait_nonempty(p->done, 5 * SEC)) {
			bad += n - got;
			break;
		}
		for (unsigned i = 0; i < k; i++, got++) {
			uint64_t u = d[i].off[0] / 77;
			bad += u >= range || d[i].csum != cz_ring_desc_csum(&d[i]) || seen[u]++;
		}
	}
	return bad;
}

/* All items are in the inbox before the dispatcher starts: every consumer
 * must see strictly increasing keys, and all arrive exactly once. */
static void t_pipeline_order(unsigned ncons, uint32_t depth, int procs)
{
	const uint64_t n = 4000 / (RT_SANITIZED ? 4 : 1);
	struct pipe p;
	struct crew w;
	pipe_make(&p, ncons, depth, 4096, 4096);
	p.ctl->check_order = 1;
	uint8_t *seen = calloc(n, 1);
	uint64_t seed = 99, bad = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct cz_ring_desc d;
		rand_desc(&d, &seed, i);
		bad += cz_ring_mp_enqueue_burst(p.inbox, 1, &d, 1) != 1;
	}
	pipe_start(&p, &w, procs);
	bad += finalize(&p, n, n, seen);
	bad += !pipe_stop(&p, &w);
	unsigned inv = atomic_load(&p.ctl->inversions);
	ct_ok(!bad && !inv && atomic_load(&p.ctl->received) == n,
	      "pipeline (%s), %u consumer%s, rings of depth %u: %llu items exactly once, each "
	      "consumer in key order (%u inversions)", procs ? "processes" : "threads", ncons,
	      ncons > 1 ? "s" : "", depth, (unsigned long long)n, inv);
	free(seen);
	pipe_free(&p);
}

/* Live producers keep feeding while consumers work: exactly once. */
struct feeder {
	struct pipe *p;
	unsigned id;
	uint64_t from, n;
};

static void *feed(void *v)
{
	struct feeder *f = v;
	uint64_t seed = 1000 + f->id;
	for (uint64_t i = f->from; i < f->from + f->n; i++) {
		struct cz_ring_desc d;
		rand_desc(&d, &seed, i);
		while (!cz_ring_mp_enqueue_burst(f->p->inbox, 10 + f->id, &d, 1))
			cz_ring_wait_nonfull(f->p->inbox, SEC / 5);
	}
	return NULL;
}

static void t_pipeline_live(int procs)
{
	const uint64_t per = (procs ? 30000 : 60000) / RT_SCALE;
	struct pipe p;
	struct crew w;
	pipe_make(&p, 3, 2, 256, 1024);
	uint8_t *seen = calloc(3 * per, 1);
	pthread_t ft[3];
	struct feeder f[3];
	int64_t t0 = cz_now_ns();
	pipe_start(&p, &w, procs);
	for (unsigned i = 0; i < 3; i++) {
		f[i] = (struct feeder){ &p, i, i * per, per };
		pthread_create(&ft[i], NULL, feed, &f[i]);
	}
	uint64_t bad = finalize(&p, 3 * per, 3 * per, seen);
	for (unsigned i = 0; i < 3; i++)
		pthread_join(ft[i], NULL);
	bad += !pipe_stop(&p, &w);
	ct_ok(!bad, "pipeline live (%s): 3 producers x %llu through inbox, dispatcher, 3 consumers "
	      "and the completion ring, each exactly once", procs ? "processes" : "threads",
	      (unsigned long long)per);
	ct_diag("%.2f M items/s through the whole pipeline", 3 * per / ((cz_now_ns() - t0) / 1e3));
	free(seen);
	pipe_free(&p);
}

/*
 * Late critical item: 1000 normal items queued, consumers busy (work_us per
 * item).  After some work, a prio-0 item arrives in the inbox.  The consumer
 * that gets it may first receive only what was already committed to its
 * ring (depth) plus at most one popped while the item arrived.  A FIFO would
 * make it wait behind ~1000.
 */
static void t_late_critical(unsigned ncons, uint32_t depth)
{
	struct pipe p;
	struct crew w;
	pipe_make(&p, ncons, depth, 2048, 2048);
	p.ctl->work_us = 200;
	uint64_t n = 1000;
	uint8_t *seen = calloc(n + 1, 1);
	for (uint64_t i = 0; i < n; i++) {
		struct cz_ring_desc d = { .key = { .prio = 5, .seq = i }, .off = { i * 77 } };
		d.csum = cz_ring_desc_csum(&d);
		cz_ring_mp_enqueue_burst(p.inbox, 1, &d, 1);
	}
	pipe_start(&p, &w, 0);
	uint64_t bad = finalize(&p, 20, n + 1, seen);
	struct cz_ring_desc c = { .key = { .prio = 0, .seq = 5000 }, .kind = 0xc, .off = { n * 77 } };
	c.csum = cz_ring_desc_csum(&c);
	cz_ring_mp_enqueue_burst(p.inbox, 2, &c, 1);
	atomic_store(&p.ctl->crit_sent, 1);
	int64_t until = cz_now_ns() + 5 * SEC;
	while (!atomic_load(&p.ctl->crit_seen) && cz_now_ns() < until)
		usleep(100);
	bad += !pipe_stop(&p, &w);
	unsigned after = atomic_load(&p.ctl->normals_after);
	ct_ok(!bad && atomic_load(&p.ctl->crit_seen) && after <= depth + 1,
	      "late critical, %u consumer%s, depth %u: its consumer took %u normal item%s before it "
	      "(bound %u; a FIFO would be ~%llu)", ncons, ncons > 1 ? "s" : "", depth, after,
	      after == 1 ? "" : "s", depth + 1, (unsigned long long)(n - 20));
	free(seen);
	pipe_free(&p);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	ct_plan(10);
	t_heap();
	t_pipeline_order(1, 2, 0);
	t_pipeline_order(3, 2, 0);
	t_pipeline_order(4, 1, 0);
	t_pipeline_order(3, 1, 1);
	t_pipeline_live(0);
	t_pipeline_live(1);
	t_late_critical(1, 1);
	t_late_critical(1, 2);
	t_late_critical(3, 2);
	return ct_exit();
}

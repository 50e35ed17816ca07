/* SPDX-License-Identifier: MIT */
/*
 * cz_trace.h — the end-to-end selftests' order oracle (e2e_order.c,
 * e2e_devproc.c): fetch a running cuzkd's trace into DIR/trace.jsonl, read
 * it back as plain JSON (when each partition was enqueued and when it
 * started computing, on which consumer) and count inversions: partitions
 * with a higher key that started after a lower one had been ready 1 ms.
 *
 * It is the tests' oracle: it uses none of engine/'s code and must stay
 * independent of it, so it lives here, beside the tests.  Include it after
 * cz_daemon.h.
 */
#ifndef CZ_TRACE_H
#define CZ_TRACE_H

#include "selftests/cz_daemon.h"

#define MAXP 512
#define MAXJ 64

struct tpart {
	int64_t seq, part;
	int prio;               /* from the submission order */
	int64_t ready, start;   /* enqueue / compute_start ns, -1 if never */
	int dev;
	int worker;             /* the synthesis worker that enqueued it, -1 if none */
};

struct trace {
	struct tpart p[MAXP];
	int np;
	int64_t seqs[MAXJ];     /* job sequence numbers in submission order */
	int nj;
	int64_t submit_ns[MAXJ];
};

static inline struct tpart *tpart_of(struct trace *t, int64_t seq, int64_t part)
{
	for (int i = 0; i < t->np; i++)
		if (t->p[i].seq == seq && t->p[i].part == part)
			return &t->p[i];
	if (t->np == MAXP)
		return NULL;
	struct tpart *p = &t->p[t->np++];
	*p = (struct tpart){ .seq = seq, .part = part, .prio = -1, .ready = -1, .start = -1, .dev = -1,
				   .worker = -1 };
	return p;
}

/* prios[i]: the priority (0 critical .. 3 low) of the i-th job submitted to
 * this daemon since it started. */
static inline int trace_read(struct daemon *d, struct trace *t, const int *prios, int njobs)
{
	FILE *f = daemon_trace_file(d, "trace.jsonl");
	if (!f)
		return -1;
	memset(t, 0, sizeof(*t));
	char line[1024];
	while (f && fgets(line, sizeof(line), f)) {
		json_object *e = json_tokener_parse(line);
		const char *ev = str_of(e, "ev");
		int64_t seq = int_of(e, "job"), part = int_of(e, "part"), ns = int_of(e, "ns");
		if (!strcmp(ev, "submit") && t->nj < MAXJ) {
			t->submit_ns[t->nj] = ns;
			t->seqs[t->nj++] = seq;
		} else if (!strcmp(ev, "enqueue") || !strcmp(ev, "compute_start")) {
			struct tpart *tp = tpart_of(t, seq, part);
			if (tp && ev[0] == 'e' && tp->ready < 0) {
				tp->ready = ns;
				tp->worker = !strcmp(str_of(e, "thread"), "synth") ? (int)int_of(e, "unit") : -1;
			}
			if (tp && ev[0] == 'c' && tp->start < 0) {
				const char *th = str_of(e, "thread");
				tp->start = ns;
				tp->dev = !strncmp(th, "consumer ", 9) ? atoi(th + 9) : -1;
			}
		}
		json_object_put(e);
	}
	if (f)
		fclose(f);
	if (t->nj != njobs) {
		ct_diag("the trace shows %d submits, %d expected", t->nj, njobs);
		return -1;
	}
	for (int i = 0; i < t->np; i++)
		for (int j = 0; j < t->nj; j++)
			if (t->p[i].seq == t->seqs[j])
				t->p[i].prio = prios[j];
	return 0;
}

static inline int key_cmp(const struct tpart *a, const struct tpart *b)
{
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->part < b->part ? -1 : a->part > b->part;
}

#define GRACE_NS 1000000   /* "had been ready for 1 ms" */

/* For each partition b: the partitions with a higher key that started (on
 * any device) after b had been ready for GRACE_NS and before b started.
 * Returns the worst b's count; *worst_b names it. */
static inline int inversions(const struct trace *t, const struct tpart **worst_b)
{
	int worst = 0;
	*worst_b = NULL;
	for (int i = 0; i < t->np; i++) {
		const struct tpart *b = &t->p[i];
		if (b->ready < 0 || b->start < 0)
			continue;
		int n = 0;
		for (int j = 0; j < t->np; j++) {
			const struct tpart *a = &t->p[j];
			if (a->start >= 0 && a->start >= b->ready + GRACE_NS && a->start < b->start &&
			    key_cmp(a, b) > 0)
				n++;
		}
		if (n > worst || !*worst_b) {
			worst = n;
			*worst_b = b;
		}
	}
	return worst;
}

static inline int all_started(const struct trace *t, int expect)
{
	int n = 0;
	for (int i = 0; i < t->np; i++)
		n += t->p[i].start >= 0 && t->p[i].ready >= 0;
	if (n != expect)
		ct_diag("%d partitions ready and started in the trace, %d expected", n, expect);
	return n == expect;
}

#endif /* CZ_TRACE_H */

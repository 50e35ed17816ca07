/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/testhook.c — the pipe's test hooks, for the tests that
 * break it on purpose (see pipe.h):
 *
 *   cz_pipe_test_corrupt  the next n descriptors are written with a wrong
 *                         checksum (slot.c, cz_pipe_desc): the checksum
 *                         handling of the consumer and done rings;
 *   CZ_TEST_DEVKILL       a device child raises SIGKILL (or SIGSTOP) at a
 *                         point of the claim (order.c: cz_pipe_claim and
 *                         take_lower call cz_pipe_test_kill), so that a test
 *                         can kill a consumer at each instruction that
 *                         matters for recovery (precover.c).
 *
 * Off, each costs one load per descriptor (relaxed) or per claim; nothing
 * here runs in a product path unless a test asked for it.
 */
#include "engine/pipeline/pipe_pvt.h"
#include "engine/engine_pvt.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

_Atomic unsigned cz_pipe_test_corrupt;

/* ---- a device child killed at a point of the claim ---- */

_Atomic unsigned cz_pipe_test_kills;
static struct { unsigned where, nth; bool stop; } test_kill_at[8];

/* "D:WHERE:N[:stop],..." (CZ_TEST_DEVKILL): device dev's child raises
 * SIGKILL at WHERE (claim: right after the ring hands it a descriptor,
 * before holds[] names it; held: after holds[0], before the ring slot is
 * freed; lower: take_lower's take, before holds[1]) on the device's N-th
 * claim (lower: N-th take) counted over all of its processes (the counters
 * are in the shared region).  With ":stop" it logs the partition it holds
 * there and raises SIGSTOP instead, so that a test can look at the state
 * it left (the ring slot claimed in its name) before it kills it itself.
 * Entries of other devices are ignored.  0, or -EINVAL. */
int cz_pipe_test_kill_parse(const char *spec, unsigned dev)
{
	static const char *const names[] = { [CZ_PIPE_KILL_CLAIM] = "claim", [CZ_PIPE_KILL_HELD] = "held",
					     [CZ_PIPE_KILL_LOWER] = "lower" };
	unsigned n = 0;
	for (const char *q = spec; q && *q;) {
		unsigned d, nth;
		char w[8];
		int used = 0;
		if (sscanf(q, "%u:%7[a-z]:%u%n", &d, w, &nth, &used) != 3 || !nth)
			return -EINVAL;
		unsigned k = CZ_PIPE_KILL_CLAIM;
		while (k <= CZ_PIPE_KILL_LOWER && strcmp(w, names[k]))
			k++;
		if (k > CZ_PIPE_KILL_LOWER || n == sizeof(test_kill_at) / sizeof(test_kill_at[0]))
			return -EINVAL;
		q += used;
		bool stop = !strncmp(q, ":stop", 5);
		q += stop ? 5 : 0;
		if (d == dev)
			test_kill_at[n++] = (typeof(test_kill_at[0])){ k, nth, stop };
		if (*q && *q != ',')
			return -EINVAL;
		q += *q == ',';
	}
	atomic_store(&cz_pipe_test_kills, n);
	return 0;
}

/* x: what c has just taken, from consumer o's ring. */
void cz_pipe_test_kill(struct cz_pipe *p, unsigned c, unsigned where, const struct cz_ring_desc *x, unsigned o)
{
	struct cz_pipe_dev *dv = &p->devs[c % p->ndev];
	/* claim counts, held reads the same count */
	unsigned k = where == CZ_PIPE_KILL_LOWER ? atomic_fetch_add(&dv->test_lowers, 1) + 1
		   : where == CZ_PIPE_KILL_CLAIM ? atomic_fetch_add(&dv->test_claims, 1) + 1
		   : atomic_load(&dv->test_claims);
	for (unsigned i = 0; i < atomic_load(&cz_pipe_test_kills); i++)
		if (test_kill_at[i].where == where && test_kill_at[i].nth == k) {
			fprintf(stderr, "cz-dev%u: test %s at %s #%u: consumer %u holds job %llu partition %u "
				"(priority %u) from consumer %u's ring (CZ_TEST_DEVKILL)\n", c % p->ndev,
				test_kill_at[i].stop ? "stop" : "kill",
				where == CZ_PIPE_KILL_LOWER ? "lower" : where == CZ_PIPE_KILL_CLAIM ? "claim"
				: "held", k, c, (unsigned long long)x->key.seq, x->key.part, x->key.prio, o);
			raise(test_kill_at[i].stop ? SIGSTOP : SIGKILL);
		}
}

/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/pipe_pvt.h — what the pipe's files share (pipe.c says
 * which file holds which concern); engine/pipeline's own, do not include
 * from elsewhere.
 */
#ifndef CZ_PIPE_PVT_H
#define CZ_PIPE_PVT_H

#include "engine/pipeline/pipe.h"

#include <errno.h>

#define WAIT_NS (200 * 1000 * 1000)   /* sleeps re-check the stop flag this often */
#define SLOT_FINAL (1u << 31)   /* in cz_pipe_slot.attempt: the finalizer took this attempt */

/* What a consumer publishes about a descriptor it took: its attempt and
 * slot (+1), so the supervisor retries exactly that hand-out. */
static inline uint64_t hold_of(const struct cz_ring_desc *d)
{
	return (d->off[2] << 32) | (uint32_t)(d->off[1] + 1);
}

static inline int enqueue(struct cz_ring *r, unsigned owner, const void *d)
{
	errno = 0;      /* EINVAL: a bad owner id; left alone: a full ring */
	if (cz_ring_mp_enqueue_burst(r, owner, d, 1))
		return 0;
	return errno == EINVAL ? -EINVAL : -ENOSPC;
}

/* order.c: the order thread (started by cz_pipe_create). */
void *cz_pipe_order_main(void *v);

/* slot.c: the slot descriptor d names (or -1: dropped), marking it `bad`
 * (CZ_SLOT_BAD_*) if d failed its checksum; a descriptor for a slot's
 * hand-out, checksummed (or not, for cz_pipe_test_corrupt). */
int cz_pipe_slot_of(struct cz_pipe *p, const struct cz_ring_desc *d, unsigned bad);
void cz_pipe_desc(struct cz_ring_desc *d, const struct cz_key *key, uint64_t buf_off,
		  uint64_t slot, uint32_t attempt);

/* testhook.c: consumer c, at point `where` of its claim (CZ_PIPE_KILL_*),
 * has taken x from consumer o's ring: raise SIGKILL/SIGSTOP if a test
 * asked for it here (only called while cz_pipe_test_kills is set). */
void cz_pipe_test_kill(struct cz_pipe *p, unsigned c, unsigned where, const struct cz_ring_desc *x,
		       unsigned o);

#endif

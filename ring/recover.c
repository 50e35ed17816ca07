/* SPDX-License-Identifier: MIT */
/*
 * ring/recover.c — undoing the claims of a dead mp producer or mc consumer.
 *
 * A claim is a CAS that writes the claimant's owner id into the slot's state
 * word together with the position, so every claimed slot names its owner
 * atomically: there is no window in which a slot is claimed but anonymous.
 * Recovery therefore needs no log — it scans the count state words once:
 *   PCLAIM(p, dead, len) -> SKIP(p), and SKIP(q) for each q in (p, p+len)
 *                           still EMPTY(q) (published members are kept)
 *   CCLAIM(p, dead) -> EMPTY(p + count)  after copying the element out
 * Members before the head: a producer seeing the head SKIP must find no
 * EMPTY member behind it.
 * Each change is a CAS from the exact word read, so a recovery racing a
 * second recovery of the same owner repairs every slot once.
 * Cost: O(count) loads, paid only when a process died.
 */
#include "ring/ring_pvt.h"

#include <errno.h>
#include <string.h>

int cz_ring_recover(struct cz_ring *r, unsigned dead, void *out, unsigned max, unsigned *nout)
{
	_Atomic uint64_t *st = ring_states(r);
	unsigned got = 0, skipped = 0, short_of_room = 0;

	if (nout)
		*nout = 0;
	if (!dead || dead > CZ_RING_OWNER_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < r->count; i++) {
		/* Acquire: pairs with W1 through the claimant's CAS (an RMW continues
		 * the producer's release sequence), so a CCLAIM slot's bytes are
		 * visible before we copy them. */
		uint64_t v = atomic_load_explicit(&st[i], memory_order_acquire);
		if (st_owner(v) != dead)
			continue;
		uint64_t pos = v >> ST_TAG_SHIFT;
		if (st_kind(v) == S_PCLAIM) {
			for (unsigned j = 1; j < st_len(v); j++) {
				uint64_t e = st_make(pos + j, 0, S_EMPTY);
				/* Release: pairs with A2, as below. */
				if (atomic_compare_exchange_strong_explicit(
					    &st[(pos + j) & r->mask], &e, st_make(pos + j, 0, S_SKIP),
					    memory_order_release, memory_order_relaxed))
					skipped++;
			}
			/* Release: pairs with A2 — consumers that see SKIP see nothing else. */
			if (atomic_compare_exchange_strong_explicit(&st[i], &v, st_make(pos, 0, S_SKIP),
								    memory_order_release,
								    memory_order_relaxed))
				skipped++;
		} else if (st_kind(v) == S_CCLAIM) {
			if (got == max) {
				short_of_room = 1;
				continue;
			}
			memcpy((char *)out + (size_t)got * r->esize, ring_slot(r, pos), r->esize);
			/* R2: pairs with A1 — our copy completes before the slot is reused. */
			if (atomic_compare_exchange_strong_explicit(
				    &st[i], &v, st_make(pos + r->count, 0, S_EMPTY),
				    memory_order_release, memory_order_relaxed))
				got++;
		}
	}
	if (nout)
		*nout = got;
	/* Wake everyone on both sides: a consumer may be asleep in front of a
	 * slot that is now SKIP, a producer in front of one that is now EMPTY. */
	if (skipped || got) {
		cz_ring_bell_ring(cz_ring_cons_bell(r), UINT32_MAX);
		cz_ring_bell_ring(cz_ring_prod_bell(r), UINT32_MAX);
	}
	return short_of_room ? -ENOSPC : (int)(skipped + got);
}

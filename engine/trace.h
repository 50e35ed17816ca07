/* SPDX-License-Identifier: MIT */
/*
 * engine/trace.h — timestamped pipeline events, so every idle gap has a
 * measured cause.  Each thread appends to its own buffer (no lock, no shared
 * cache line on the hot path: one relaxed load, a 32-byte store and one
 * release store, ~5 ns); a dump reads all buffers.
 */
#ifndef CZ_TRACE_H
#define CZ_TRACE_H

#include <stdint.h>
#include <stdio.h>

enum cz_ev {
	CZ_EV_SUBMIT, CZ_EV_DISPATCH, CZ_EV_BUDGET_WAIT, CZ_EV_BUDGET_GOT,
	CZ_EV_SYNTH_START, CZ_EV_SYNTH_END, CZ_EV_ENQUEUE, CZ_EV_POP,
	CZ_EV_LOCK_WAIT, CZ_EV_LOCK_GOT, CZ_EV_COMPUTE_START, CZ_EV_COMPUTE_END,
	CZ_EV_FINAL_START, CZ_EV_FINAL_END, CZ_EV_OUTPUT, CZ_EV_IDLE,
	CZ_EV_ASSIGN,           /* order thread: partition given to consumer `unit` */
	CZ_EV_RECLAIM,          /* order thread: taken back from consumer `unit` (swap, or an idle device) */
	CZ_EV__COUNT
};

struct cz_trace_ev {
	uint64_t ns;            /* CLOCK_MONOTONIC */
	uint64_t job;
	uint32_t part;
	uint16_t type;          /* enum cz_ev */
	uint16_t thread;        /* the buffer's index */
	uint32_t unit;          /* consumer / worker number, or 0 */
	uint32_t pad;
};

/* Registers the calling thread's buffer under a role name ("consumer 0.1"). */
void cz_trace_thread(const char *role, uint32_t unit);
void cz_trace(enum cz_ev type, uint64_t job, uint32_t part);
/* The same, naming another unit than the caller's (the consumer the order
 * thread gives a partition to). */
void cz_trace_unit(enum cz_ev type, uint64_t job, uint32_t part, uint32_t unit);
uint64_t cz_trace_now(void);
const char *cz_trace_name(enum cz_ev type);
/* JSON lines, one event each, in time order (chrome: Chrome trace format). */
int cz_trace_dump(FILE *f, int chrome);

#endif

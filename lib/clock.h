/* SPDX-License-Identifier: MIT */
/*
 * lib/clock.h — the one clock helper: monotonic time, CPU time, deadlines.
 *
 * Every timing in the tree (stage times, trace stamps, wait deadlines,
 * benchmark figures) reads these, so all of them count from the same
 * origin and in the same units.  Monotonic time (CLOCK_MONOTONIC) is what
 * waited and what a trace orders by; CPU time (the process's, all threads,
 * or the calling thread's) is how much work was done, which a loaded,
 * shared machine disturbs much less than wall time.
 *
 * Cost: one clock_gettime, a vDSO call of ~20 ns for the monotonic clock,
 * a system call (~0.2-0.5 us) for the CPU clocks.  Inline, so C and CUDA
 * host code both use it without a link dependency.
 */
#ifndef CZ_CLOCK_H
#define CZ_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on clock id; an int64 holds 292 years of them. */
static inline int64_t cz_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Monotonic time, ns and ms (a double holds ns exactly for 104 days of
 * uptime, to well under a ns for years). */
static inline int64_t cz_now_ns(void) { return cz_clock_ns(CLOCK_MONOTONIC); }
static inline double cz_now_ms(void) { return (double)cz_now_ns() / 1e6; }

/* Whole ms of monotonic time: what poll-style deadlines count in. */
static inline int64_t cz_now_whole_ms(void) { return cz_now_ns() / 1000000; }

/* A point in time as the timespec clock_nanosleep, pthread_cond_timedwait
 * and pthread_mutex_timedlock take (t >= 0 ns on that call's clock). */
static inline struct timespec cz_timespec_at(int64_t t)
{
	return (struct timespec){ .tv_sec = (time_t)(t / 1000000000), .tv_nsec = (long)(t % 1000000000) };
}

/* The deadline ns from now on clock id (ns >= 0): the one copy of the
 * timespec arithmetic every bounded wait uses. */
static inline struct timespec cz_deadline(clockid_t id, int64_t ns)
{
	return cz_timespec_at(cz_clock_ns(id) + ns);
}

/* CPU time in ms: the whole process (every thread), or the calling thread. */
static inline double cz_cpu_ms(void) { return (double)cz_clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e6; }
static inline double cz_thread_cpu_ms(void)
{
	return (double)cz_clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1e6;
}

/* The calling thread's CPU time, ns (a system call or vDSO read). */
static inline uint64_t cz_thread_cpu_ns(void)
{
	return (uint64_t)cz_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

#endif

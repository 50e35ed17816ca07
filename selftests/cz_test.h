/* SPDX-License-Identifier: MIT */
/*
 * cz_test.h — the selftests' TAP 13 helper (our own, kselftest-style).
 *
 * A test program calls ct_plan(n), then one ct_ok()/ct_skip() per test
 * point, then returns ct_exit().  Exit status: 0 all passed, 1 any failed,
 * 4 everything skipped (the kselftest convention).
 *
 * A program that stops before its plan fails: ct_exit() adds a "not ok"
 * point when fewer (or more) points ran than ct_plan() announced, and
 * selftests/run.sh counts the points against the "1..N" line on its own, so
 * a crash or an _exit() that never reaches ct_exit() fails too.
 */
#ifndef CZ_TEST_H
#define CZ_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int ct_n, ct_pass, ct_fail, ct_skipped;
static int ct_planned = -1;     /* -1 until ct_plan() */

static inline void ct_plan(int n)
{
	ct_planned = n;
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline int ct_okv(int cond, const char *fmt, va_list ap)
{
	ct_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", ct_n);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	if (cond)
		ct_pass++;
	else
		ct_fail++;
	return cond;
}

/* One test point; returns cond so callers can stop early on failure. */
__attribute__((format(printf, 2, 3)))
static inline int ct_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cond = ct_okv(cond, fmt, ap);
	va_end(ap);
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline void ct_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;
	ct_n++;
	ct_skipped++;
	printf("ok %d - ", ct_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", reason);
	fflush(stdout);
}

/* ThreadSanitizer holds an asynchronous signal until the thread next calls
 * into its runtime (an intercepted libc call); a translated circuit's loop
 * makes none, so a time limit's timer signal never lands and the run goes
 * on for ever.  Built with TSan, a time-limit point skips with this reason
 * (e2e_witness.c, e2e_wasmjobs.c). */
#if defined(__SANITIZE_THREAD__)
#define CT_TSAN_NO_TIMER 1
#else
#define CT_TSAN_NO_TIMER 0
#endif
#define CT_TSAN_NO_TIMER_WHY                                                                   \
	"ThreadSanitizer delivers the time limit's signal only at its next interceptor, which a " \
	"circuit's loop never reaches"

/* splitmix64: the tests' random numbers, independent of the code under
 * test and the same on every run for a given seed (*state). */
static inline uint64_t ct_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A diagnostic line (TAP comment). */
#define ct_diag(...) (printf("# " __VA_ARGS__), printf("\n"), fflush(stdout))

static inline int ct_exit(void)
{
	if (ct_planned < 0 || ct_n != ct_planned) {
		/* The plan is the test's contract: a short run is a failure, not a pass. */
		printf("not ok %d - plan: %d test points ran, %d planned\n", ct_n + 1, ct_n, ct_planned);
		ct_fail++;
	}
	printf("# %d passed, %d failed, %d skipped\n", ct_pass, ct_fail, ct_skipped);
	if (ct_fail)
		return 1;
	if (ct_skipped && ct_skipped == ct_n)
		return 4;
	return 0;
}

#endif /* CZ_TEST_H */

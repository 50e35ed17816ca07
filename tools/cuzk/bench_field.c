/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_field.c — `cuzk bench fp` and `cuzk bench fr`: the cost of
 * one field operation, on every multiplication path the CPU has.
 *
 * mul, sqr and add run as dependent chains (x = x·y), so the figures are
 * latencies, which is what curve formulas and NTT butterflies see.
 * --iters N sets the chain length (default 10^7); inversions run N/1000 times.
 */
#include "tools/cuzk/cmd.h"
#include "zk/fp.h"
#include "zk/fr.h"

#include <stdio.h>

static void report(const struct cz_bench_opts *o, const char *field, const char *what,
		   const char *path, long n, double ms)
{
	char extra[128], op[32];
	snprintf(extra, sizeof(extra), "\"ns_per_op\": %.2f, \"path\": \"%s\"",
		 ms * 1e6 / (double)n, path);
	snprintf(op, sizeof(op), "%s_%s", field, what);
	cz_bench_report(o, op, (uint64_t)n, 1, ms, extra);
}

/* One function per field, stamped from this macro so each chain calls the
 * field's own functions directly (an indirect call would add to the figure). */
#define BENCH_FIELD(PFX, NAME)                                                         \
	static void NAME##_bench_path(const struct cz_bench_opts *o, const char *path,  \
				      long n)                                           \
	{                                                                               \
		PFX x, y, z;                                                            \
		double t0;                                                              \
		long ni = n / 1000 > 0 ? n / 1000 : 1;                                  \
		PFX##_from_u64(&x, 0x1234567890abcdefULL);                              \
		PFX##_from_u64(&y, 0xfedcba0987654321ULL);                              \
		PFX##_sqr(&y, &y);                                                      \
		PFX##_sqr(&x, &x);                                                      \
		PFX##_sqr(&x, &x);                                                      \
		z = x;                                                                  \
		t0 = cz_bench_now_ms();                                                 \
		for (long i = 0; i < n; i++)                                            \
			PFX##_mul(&x, &x, &y);                                          \
		report(o, #NAME, "mul", path, n, cz_bench_now_ms() - t0);               \
		t0 = cz_bench_now_ms();                                                 \
		for (long i = 0; i < n; i++)                                            \
			PFX##_sqr(&x, &x);                                              \
		report(o, #NAME, "sqr", path, n, cz_bench_now_ms() - t0);               \
		t0 = cz_bench_now_ms();                                                 \
		for (long i = 0; i < n; i++)                                            \
			PFX##_add(&x, &x, &y);                                          \
		report(o, #NAME, "add", path, n, cz_bench_now_ms() - t0);               \
		t0 = cz_bench_now_ms();                                                 \
		for (long i = 0; i < ni; i++)                                           \
			PFX##_inv(&x, &x);                                              \
		report(o, #NAME, "inv", path, ni, cz_bench_now_ms() - t0);             \
		t0 = cz_bench_now_ms();                                                 \
		for (long i = 0; i < ni; i++)                                           \
			PFX##_inv_vartime(&x, &x);                                      \
		report(o, #NAME, "inv_vartime", path, ni, cz_bench_now_ms() - t0);     \
		if (PFX##_eq(&x, &z)) /* keeps the chains live */                       \
			printf("# checksum hit\n");                                     \
	}                                                                               \
                                                                                        \
	int cz_bench_##NAME(const struct cz_bench_opts *o)                              \
	{                                                                               \
		long n = o->iters > 0 ? o->iters : 10000000;                            \
		if (cz_fp_have_adx()) {                                                 \
			cz_field_force_portable(false);                                 \
			NAME##_bench_path(o, "adx", n);                                 \
		}                                                                       \
		cz_field_force_portable(true);                                          \
		NAME##_bench_path(o, "portable", n);                                    \
		cz_field_force_portable(false);                                         \
		return 0;                                                               \
	}

BENCH_FIELD(cz_fp, fp)
BENCH_FIELD(cz_fr, fr)

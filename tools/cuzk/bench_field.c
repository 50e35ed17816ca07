/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/bench_field.c — `cuzk bench fp` and `cuzk bench fr`: the cost of
 * one field operation, on every multiplication path the CPU has.
 *
 * mul, sqr, add and sub (and the inlinable _inl forms of zk/field/field_inline.h)
 * run as dependent chains (x = x·y), so the figures are
 * latencies, which is what curve formulas and NTT butterflies see.
 * --iters N sets the chain length (default 10^7); inversions run N/1000 times.
 *
 * The build machines are shared, so each chain runs in short slices
 * (about a millisecond, at least 20) and ns_per_op is the fastest slice
 * (ns_mean the whole run); "ghz" is the core
 * clock measured just before with a dependent imul chain (3 cycles each), and
 * cycles_per_op = ns_per_op · ghz, the figure that compares across machines.
 */
#include "tools/cuzk/cmd.h"
#include "lib/clock.h"
#include "zk/field/field_inline.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"
#include "zk/field/fr.h"
#include "zk/msm/fp_ifma.h"
#include "zk/field/bn254_fp.h"

#include <stdio.h>

/* Slices of about a millisecond (SLICE ops; at least MIN_SLICES of them):
 * short enough that some run between preemptions on a busy machine. */
#define SLICE 20000    /* mul, sqr, add */
#define SLICE_INV 50   /* inversions */
#define MIN_SLICES 20

/* Core clock in GHz: a chain of dependent 64-bit imuls, 3 cycles each. */
static double core_ghz(void)
{
	double best = 0;
	for (int r = 0; r < 5; r++) {
		uint64_t x = 3;
		double t0 = cz_now_ms();
		for (int i = 0; i < 200000; i++)
			__asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0"
					 : "+r"(x));
		double ghz = 200000.0 * 4 * 3 / ((cz_now_ms() - t0) * 1e6);
		best = ghz > best ? ghz : best;
	}
	return best;
}

/* best_ms: the fastest slice, of per ops; ms: all n of them. */
static void report(const struct cz_bench_opts *o, const char *field, const char *what,
		   const char *path, long n, long per, double ms, double best_ms, double ghz)
{
	char extra[192], op[32];
	double ns = best_ms * 1e6 / (double)per;
	snprintf(extra, sizeof(extra),
		 "\"ns_per_op\": %.2f, \"ns_mean\": %.2f, \"ghz\": %.2f, \"cycles_per_op\": %.1f, "
		 "\"path\": \"%s\"",
		 ns, ms * 1e6 / (double)n, ghz, ns * ghz, path);
	snprintf(op, sizeof(op), "%s_%s", field, what);
	cz_bench_report(o, op, (uint64_t)n, 1, ms, extra);
}

/* Runs STMT about n times in slices; reports total and fastest slice. */
#define TIMED(o, field, what, path, n, slice, ghz, STMT)                              \
	do {                                                                           \
		long ns_ = (n) / (slice) > MIN_SLICES ? (n) / (slice) : MIN_SLICES;    \
		long per_ = (n) / ns_ > 0 ? (n) / ns_ : 1;                             \
		double all_ = 0, best_ = 1e300;                                        \
		for (long s_ = 0; s_ < ns_; s_++) {                                    \
			double t_ = cz_now_ms();                                 \
			for (long i_ = 0; i_ < per_; i_++)                             \
				STMT;                                                  \
			t_ = cz_now_ms() - t_;                                   \
			all_ += t_;                                                    \
			best_ = t_ < best_ ? t_ : best_;                               \
		}                                                                      \
		report(o, field, what, path, per_ * ns_, per_, all_, best_, ghz);     \
	} while (0)

static void fp_bench_tput(const struct cz_bench_opts *o, const char *path, long n, double ghz);

/* Fp2 rides along with `bench fp`: mul (Karatsuba, lazy reduction), sqr. */
static void fp_bench_extra(const struct cz_bench_opts *o, const char *path, long n, double ghz)
{
	cz_fp2 x, y, z;
	cz_fp_from_u64(&x.c0, 3), cz_fp_from_u64(&x.c1, 5);
	cz_fp_from_u64(&y.c0, 7), cz_fp_from_u64(&y.c1, 11);
	cz_fp2_sqr(&y, &y);
	z = x;
	fp_bench_tput(o, path, n, ghz);
	TIMED(o, "fp2", "mul", path, n / 4, SLICE, ghz, cz_fp2_mul(&x, &x, &y));
	TIMED(o, "fp2", "sqr", path, n / 4, SLICE, ghz, cz_fp2_sqr(&x, &x));
	if (cz_fp2_eq(&x, &z))
		printf("# checksum hit\n");
}

/*
 * Multiplication throughput, the figure a batch of independent products
 * (the MSM's flush) sees: eight independent chains, x_k = x_k·y_k, on the
 * scalar path (interleaved in one loop, so the core overlaps them) and on
 * each vector Fp the CPU has (eight lanes: one zmm chain; four lanes: two
 * ymm chains in one loop).  ns_per_op is per product.  Op fp_mul_tput8 for
 * BLS12-381's Fp, bn254_fp_mul_tput8 for BN254's, side by side in one run.
 */
#define TPUT_STEPS 64
static void tput_report(const struct cz_bench_opts *o, const char *op, const char *path,
			long steps, double ms, double best_ms, long per, double ghz)
{
	char extra[192];
	double ns = best_ms * 1e6 / (8.0 * (double)per * TPUT_STEPS);
	snprintf(extra, sizeof(extra),
		 "\"ns_per_op\": %.2f, \"ns_mean\": %.2f, \"ghz\": %.2f, \"cycles_per_op\": %.1f, "
		 "\"path\": \"%s\"",
		 ns, ms * 1e6 / (8.0 * (double)steps * TPUT_STEPS), ghz, ns * ghz, path);
	cz_bench_report(o, op, (uint64_t)(8 * steps * TPUT_STEPS), 1, ms, extra);
}

#define TPUT_FN(NAME, OP, T, PFX, OPS8, OPS4, OPSA)                                        \
	static void NAME(const struct cz_bench_opts *o, const char *path, long n, double ghz) \
	{                                                                               \
		const struct cz_fpv_ops *vec[4] = { NULL, &OPS8, &OPS4, &OPSA };        \
		static const char *const vname[4] = { NULL, "ifma-8lane", "ifma-4lane", "avx2-4lane" }; \
		T x[8], y[8];                                                           \
		long steps = n / (8 * TPUT_STEPS), ns_ = MIN_SLICES * 4, per;          \
		for (int k = 0; k < 8; k++) {                                           \
			PFX##_from_u64(&x[k], 0x1234567 + (uint64_t)k);                 \
			PFX##_from_u64(&y[k], 0x7654321 + (uint64_t)k);                 \
			PFX##_sqr(&y[k], &y[k]);                                        \
		}                                                                       \
		if (steps < ns_)                                                        \
			steps = ns_;                                                    \
		per = steps / ns_;                                                      \
		for (int v = 0; v < 4; v++) {                                           \
			double all = 0, best = 1e300;                                   \
			if (v && !cz_fpv_usable(vec[v]))                                \
				continue;                                               \
			for (long s = 0; s < ns_; s++) {                                \
				double t = cz_now_ms();                                 \
				for (long i = 0; i < per; i++) {                        \
					if (v) {                                        \
						vec[v]->mul_chain(x, y, TPUT_STEPS);    \
					} else {                                        \
						for (int j = 0; j < TPUT_STEPS; j++)    \
							for (int k = 0; k < 8; k++)     \
								PFX##_mul_inl(&x[k], &x[k], &y[k]); \
					}                                               \
				}                                                       \
				t = cz_now_ms() - t;                                    \
				all += t;                                               \
				best = t < best ? t : best;                             \
			}                                                               \
			tput_report(o, OP, v ? vname[v] : path, per * ns_, all, best, per, ghz); \
		}                                                                       \
		if (PFX##_eq(&x[0], &y[0]))                                             \
			printf("# checksum hit\n");                                    \
	}

TPUT_FN(tput_fp, "fp_mul_tput8", cz_fp, cz_fp, cz_fpv_bls12_381_8, cz_fpv_bls12_381_4,
	cz_fpv_bls12_381_avx2)
TPUT_FN(tput_bn254_fp, "bn254_fp_mul_tput8", cz_bn254_fp, cz_bn254_fp, cz_fpv_bn254_8, cz_fpv_bn254_4,
	cz_fpv_bn254_avx2)

static void fp_bench_tput(const struct cz_bench_opts *o, const char *path, long n, double ghz)
{
	tput_fp(o, path, n, ghz);
	tput_bn254_fp(o, path, n, ghz);
}

static void fr_bench_extra(const struct cz_bench_opts *o, const char *path, long n, double ghz)
{
	(void)o, (void)path, (void)n, (void)ghz;
}

/* One function per field, stamped from this macro so each chain calls the
 * field's own functions directly (an indirect call would add to the figure). */
#define BENCH_FIELD(PFX, NAME)                                                         \
	static void NAME##_bench_path(const struct cz_bench_opts *o, const char *path,  \
				      long n)                                           \
	{                                                                               \
		PFX x, y, z;                                                            \
		long ni = n / 1000 > MIN_SLICES ? n / 1000 : MIN_SLICES;                \
		double ghz = core_ghz();                                                \
		PFX##_from_u64(&x, 0x1234567890abcdefULL);                              \
		PFX##_from_u64(&y, 0xfedcba0987654321ULL);                              \
		PFX##_sqr(&y, &y);                                                      \
		PFX##_sqr(&x, &x);                                                      \
		PFX##_sqr(&x, &x);                                                      \
		z = x;                                                                  \
		TIMED(o, #NAME, "mul", path, n, SLICE, ghz, PFX##_mul(&x, &x, &y));            \
		TIMED(o, #NAME, "sqr", path, n, SLICE, ghz, PFX##_sqr(&x, &x));                \
		TIMED(o, #NAME, "add", path, n, SLICE, ghz, PFX##_add(&x, &x, &y));            \
		TIMED(o, #NAME, "sub", path, n, SLICE, ghz, PFX##_sub(&x, &x, &y));            \
		TIMED(o, #NAME, "mul_inl", path, n, SLICE, ghz, PFX##_mul_inl(&x, &x, &y));    \
		TIMED(o, #NAME, "add_inl", path, n, SLICE, ghz, PFX##_add_inl(&x, &x, &y));    \
		TIMED(o, #NAME, "sub_inl", path, n, SLICE, ghz, PFX##_sub_inl(&x, &x, &y));    \
		TIMED(o, #NAME, "inv", path, ni, SLICE_INV, ghz, PFX##_inv(&x, &x));               \
		TIMED(o, #NAME, "inv_vartime", path, ni, SLICE_INV, ghz, PFX##_inv_vartime(&x, &x)); \
		NAME##_bench_extra(o, path, n, ghz);                                    \
		if (PFX##_eq(&x, &z)) /* keeps the chains live */                       \
			printf("# checksum hit\n");                                    \
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

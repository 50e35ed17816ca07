/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fpv_inst_tmpl_pvt.h — stamps one (curve, lane count) instance of the vector
 * field and MSM flush (zk/field/fpv_tmpl_pvt.h, zk/msm/msm_ifma_tmpl_pvt.h) and its struct
 * cz_fpv_ops (zk/msm/fp_ifma.h).  Private to the instance files
 * (zk/msm/fp_ifma.c, fp_ifma256.c, bn254_fp_ifma.c, bn254_fp_ifma256.c), each
 * of which defines, then includes this:
 *   FV_L, FV_N, FV_SN, FV_MOD, FV_ONE, FV_INV   zk/field/fpv_tmpl_pvt.h's parameters
 *   FV_ST, FV_ST2      the scalar Fp and Fp2 types (layout: limbs; c0, c1)
 *   FV_SMUL, FV_SINV   scalar mul and inversion (the flush's one inversion)
 *   FV_OPS, FV_CURVE   the exported table's name, the curve's name
 *
 * Only the code between the target pragmas is compiled for AVX-512 (for
 * AVX2 in the FV_AVX2 instances); the constructor above it runs on any x86-64, and nothing below it is called
 * unless zk/msm/ifma.c found the instructions this lane count needs.
 */
#include "zk/msm/fp_ifma.h"
#include "zk/msm/msm_pvt.h"

#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__)

static void fv_setup(void);

/* This instance's constants, once the CPU is known to run it (the choice
 * of path, and CZ_NO_IFMA, are zk/msm/ifma.c's). */
__attribute__((constructor)) static void fv_inst_init(void)
{
#ifdef FV_AVX2
	if (cz_avx2_have())
#else
	if (cz_ifma_have_lanes(FV_L))
#endif
		fv_setup();
}

#pragma GCC push_options
#ifdef FV_AVX2
#pragma GCC target("avx2")
#elif FV_L == 4
#pragma GCC target("avx512f,avx512ifma,avx512vl")
#else
#pragma GCC target("avx512f,avx512ifma")
#endif

#include "zk/field/fpv_tmpl_pvt.h"
#include "zk/msm/msm_ifma_tmpl_pvt.h"

_Static_assert(sizeof(FV_ST) == 8 * FV_SN, "the scalar element is FV_SN limbs");
_Static_assert(sizeof(FV_ST2) == 2 * sizeof(FV_ST), "the scalar Fp2 is c0, c1");

#define FV_HALVES (8 / FV_L) /* vector operations per eight elements */

/* Lanes h·FV_L.. of eight scalar-layout elements at stride bytes. */
static void lanes_in(fv *r, const void *a, size_t stride, int h)
{
	int64_t idx[FV_L];
	for (int k = 0; k < FV_L; k++)
		idx[k] = (int64_t)((size_t)(h * FV_L + k) * stride);
	fv_gather(r, FV_ALL, fvw_loadu(idx), a);
}

static void lanes_out(void *r, size_t stride, const fv *a, int h)
{
	int64_t idx[FV_L];
	for (int k = 0; k < FV_L; k++)
		idx[k] = (int64_t)((size_t)(h * FV_L + k) * stride);
	fv_scatter(r, FV_ALL, fvw_loadu(idx), a);
}

static void fv_mul8(void *r, const void *a, const void *b)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv x, y;
		lanes_in(&x, a, sizeof(FV_ST), h);
		lanes_in(&y, b, sizeof(FV_ST), h);
		fv_mul(&x, &x, &y);
		lanes_out(r, sizeof(FV_ST), &x, h);
	}
}

static void fv_sqr8(void *r, const void *a)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv x;
		lanes_in(&x, a, sizeof(FV_ST), h);
		fv_sqr(&x, &x);
		lanes_out(r, sizeof(FV_ST), &x, h);
	}
}

static void fv_add8(void *r, const void *a, const void *b)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv x, y;
		lanes_in(&x, a, sizeof(FV_ST), h);
		lanes_in(&y, b, sizeof(FV_ST), h);
		fv_add(&x, &x, &y);
		lanes_out(r, sizeof(FV_ST), &x, h);
	}
}

static void fv_sub8(void *r, const void *a, const void *b)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv x, y;
		lanes_in(&x, a, sizeof(FV_ST), h);
		lanes_in(&y, b, sizeof(FV_ST), h);
		fv_sub(&x, &x, &y, 2);
		lanes_out(r, sizeof(FV_ST), &x, h);
	}
}

static void fv_canon8(void *r, const void *a)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv x;
		lanes_in(&x, a, sizeof(FV_ST), h);
		fv_canon(&x, &x, 8);
		lanes_out(r, sizeof(FV_ST), &x, h);
	}
}

static void fp2_lanes_in(fv2 *r, const void *a, int h)
{
	lanes_in(&r->c0, a, sizeof(FV_ST2), h);
	lanes_in(&r->c1, (const char *)a + sizeof(FV_ST), sizeof(FV_ST2), h);
}

static void fp2_lanes_out(void *r, fv2 *a, int h)
{
	fv_canon(&a->c0, &a->c0, 2);
	fv_canon(&a->c1, &a->c1, 2);
	lanes_out(r, sizeof(FV_ST2), &a->c0, h);
	lanes_out((char *)r + sizeof(FV_ST), sizeof(FV_ST2), &a->c1, h);
}

static void fv2_mul8(void *r, const void *a, const void *b)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv2 x, y;
		fp2_lanes_in(&x, a, h);
		fp2_lanes_in(&y, b, h);
		fv2_mul(&x, &x, &y);
		fp2_lanes_out(r, &x, h);
	}
}

static void fv2_sqr8(void *r, const void *a)
{
	for (int h = 0; h < FV_HALVES; h++) {
		fv2 x;
		fp2_lanes_in(&x, a, h);
		fv2_sqr(&x, &x);
		fp2_lanes_out(r, &x, h);
	}
}

/* Eight chains as FV_HALVES vector chains in one loop, so four lanes get
 * the same independent work per step as eight. */
static void fv_mul_chain(void *x, const void *y, long n)
{
	fv a[FV_HALVES], b[FV_HALVES];
	for (int h = 0; h < FV_HALVES; h++) {
		lanes_in(&a[h], x, sizeof(FV_ST), h);
		lanes_in(&b[h], y, sizeof(FV_ST), h);
	}
	for (long i = 0; i < n; i++)
		for (int h = 0; h < FV_HALVES; h++)
			fv_mul(&a[h], &a[h], &b[h]);
	for (int h = 0; h < FV_HALVES; h++) {
		fv_canon(&a[h], &a[h], 2);
		lanes_out(x, sizeof(FV_ST), &a[h], h);
	}
}

static size_t fv_g1_bytes(uint32_t n)
{
	return (size_t)(n + FV_L - 1) / FV_L * FV_GROUP_BYTES_G1;
}

static size_t fv_g2_bytes(uint32_t n)
{
	return (size_t)(n + FV_L - 1) / FV_L * FV_GROUP_BYTES_G2;
}

static unsigned long fv_flush_count(void)
{
	return atomic_load_explicit(&fv_flushes, memory_order_relaxed);
}

#pragma GCC pop_options

const struct cz_fpv_ops FV_OPS = {
	.curve = FV_CURVE,
	.lanes = FV_L,
#ifdef FV_AVX2
	.avx2 = true,
#endif
	.limbs = FV_SN,
	.mul8 = fv_mul8,
	.sqr8 = fv_sqr8,
	.add8 = fv_add8,
	.sub8 = fv_sub8,
	.canon8 = fv_canon8,
	.fp2_mul8 = fv2_mul8,
	.fp2_sqr8 = fv2_sqr8,
	.mul_chain = fv_mul_chain,
	.g1_flush = fv_g1_flush,
	.g2_flush = fv_g2_flush,
	.g1_bytes = fv_g1_bytes,
	.g2_bytes = fv_g2_bytes,
	.flushes = fv_flush_count,
};

#else /* no x86-64 vector path: lanes 0, never called */

const struct cz_fpv_ops FV_OPS = { .curve = FV_CURVE, .lanes = 0, .limbs = FV_SN };

#endif

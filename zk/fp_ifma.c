/* SPDX-License-Identifier: MIT */
/*
 * zk/fp_ifma.c — the BLS12-381 instance of the eight-lane field
 * (zk/fpv_impl.h) and of the MSM's vector flush (zk/msm_ifma_impl.h), and
 * the test and bench entry points of zk/fp_ifma.h.
 *
 * Only the code between the target pragmas is compiled for AVX-512; the
 * constructor above it runs on any x86-64, and nothing below it is called
 * unless zk/ifma.c found IFMA.  Another curve is one more file like this
 * with its own constants (FV_N = 5 limbs for a 254-bit modulus) and its own
 * kernel names; the choice of path (zk/ifma.c) is shared.
 */
#include "zk/fp_ifma.h"
#include "zk/bls12_381.h"
#include "zk/msm_pvt.h"

#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__)

static void ifma_setup(void);

/* This instance's constants, once the CPU is known to have IFMA (the
 * choice itself, and CZ_NO_IFMA, are zk/ifma.c's). */
__attribute__((constructor)) static void fp_ifma_init(void)
{
	if (cz_ifma_have())
		ifma_setup();
}

#pragma GCC push_options
#pragma GCC target("avx512f,avx512ifma")

#define FV_N 8
#define FV_SN CZ_FP_LIMBS
#define FV_MOD CZ_BLS12_381_P
#define FV_ONE CZ_BLS12_381_P_ONE
#define FV_INV CZ_BLS12_381_P_INV
#include "zk/fpv_impl.h"

#define FV_ST cz_fp
#define FV_SMUL cz_fp_mul
#define FV_SINV cz_fp_inv_vartime
#define FV_G1_FLUSH cz_msm_g1_flush_ifma
#define FV_G2_FLUSH cz_msm_g2_flush_ifma
#include "zk/msm_ifma_impl.h"

_Static_assert(sizeof(cz_fp) == 8 * FV_SN, "cz_fp is FV_SN limbs");

static void ifma_setup(void)
{
	fv_setup();
}

/* Eight scalar-layout elements in and out (tests, benches). */
static void lanes_in(fv *r, const cz_fp *a, size_t stride)
{
	long long s = (long long)stride;
	__m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
	fv_gather(r, 0xff, idx, a);
}

static void lanes_out(cz_fp *r, size_t stride, const fv *a)
{
	long long s = (long long)stride;
	__m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
	fv_scatter(r, 0xff, idx, a);
}

void cz_fp_ifma_mul8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8])
{
	fv x, y;
	lanes_in(&x, a, sizeof(cz_fp));
	lanes_in(&y, b, sizeof(cz_fp));
	fv_mul(&x, &x, &y);
	lanes_out(r, sizeof(cz_fp), &x);
}

void cz_fp_ifma_sqr8(cz_fp r[8], const cz_fp a[8])
{
	fv x;
	lanes_in(&x, a, sizeof(cz_fp));
	fv_sqr(&x, &x);
	lanes_out(r, sizeof(cz_fp), &x);
}

void cz_fp_ifma_add8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8])
{
	fv x, y;
	lanes_in(&x, a, sizeof(cz_fp));
	lanes_in(&y, b, sizeof(cz_fp));
	fv_add(&x, &x, &y);
	lanes_out(r, sizeof(cz_fp), &x);
}

void cz_fp_ifma_sub8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8])
{
	fv x, y;
	lanes_in(&x, a, sizeof(cz_fp));
	lanes_in(&y, b, sizeof(cz_fp));
	fv_sub(&x, &x, &y, 2);
	lanes_out(r, sizeof(cz_fp), &x);
}

void cz_fp_ifma_canon8(cz_fp r[8], const cz_fp a[8])
{
	fv x;
	lanes_in(&x, a, sizeof(cz_fp));
	fv_canon(&x, &x, 8);
	lanes_out(r, sizeof(cz_fp), &x);
}

static void fp2_lanes_in(fv2 *r, const cz_fp2 *a)
{
	lanes_in(&r->c0, &a->c0, sizeof(cz_fp2));
	lanes_in(&r->c1, &a->c1, sizeof(cz_fp2));
}

static void fp2_lanes_out(cz_fp2 *r, fv2 *a)
{
	fv_canon(&a->c0, &a->c0, 2);
	fv_canon(&a->c1, &a->c1, 2);
	lanes_out(&r->c0, sizeof(cz_fp2), &a->c0);
	lanes_out(&r->c1, sizeof(cz_fp2), &a->c1);
}

void cz_fp2_ifma_mul8(cz_fp2 r[8], const cz_fp2 a[8], const cz_fp2 b[8])
{
	fv2 x, y;
	fp2_lanes_in(&x, a);
	fp2_lanes_in(&y, b);
	fv2_mul(&x, &x, &y);
	fp2_lanes_out(r, &x);
}

void cz_fp2_ifma_sqr8(cz_fp2 r[8], const cz_fp2 a[8])
{
	fv2 x;
	fp2_lanes_in(&x, a);
	fv2_sqr(&x, &x);
	fp2_lanes_out(r, &x);
}

void cz_fp_ifma_mul_chain(cz_fp x[8], const cz_fp y[8], long n)
{
	fv a, b;
	lanes_in(&a, x, sizeof(cz_fp));
	lanes_in(&b, y, sizeof(cz_fp));
	for (long i = 0; i < n; i++)
		fv_mul(&a, &a, &b);
	fv_canon(&a, &a, 2);
	lanes_out(x, sizeof(cz_fp), &a);
}

size_t cz_msm_g1_ifma_bytes(uint32_t n)
{
	return (size_t)(n + 7) / 8 * FV_GROUP_BYTES_G1;
}

size_t cz_msm_g2_ifma_bytes(uint32_t n)
{
	return (size_t)(n + 7) / 8 * FV_GROUP_BYTES_G2;
}

unsigned long cz_msm_ifma_flush_count(void)
{
	return atomic_load_explicit(&fv_flushes, memory_order_relaxed);
}

#pragma GCC pop_options

#else /* no x86-64 vector path: the scalar one always */

void cz_fp_ifma_mul8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]) { (void)r, (void)a, (void)b; abort(); }
void cz_fp_ifma_sqr8(cz_fp r[8], const cz_fp a[8]) { (void)r, (void)a; abort(); }
void cz_fp_ifma_add8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]) { (void)r, (void)a, (void)b; abort(); }
void cz_fp_ifma_sub8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]) { (void)r, (void)a, (void)b; abort(); }
void cz_fp_ifma_canon8(cz_fp r[8], const cz_fp a[8]) { (void)r, (void)a; abort(); }
void cz_fp2_ifma_mul8(cz_fp2 r[8], const cz_fp2 a[8], const cz_fp2 b[8]) { (void)r, (void)a, (void)b; abort(); }
void cz_fp2_ifma_sqr8(cz_fp2 r[8], const cz_fp2 a[8]) { (void)r, (void)a; abort(); }
void cz_fp_ifma_mul_chain(cz_fp x[8], const cz_fp y[8], long n) { (void)x, (void)y, (void)n; abort(); }
void cz_msm_g1_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *s) { (void)e, (void)n, (void)bkt, (void)s; abort(); }
void cz_msm_g2_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *s) { (void)e, (void)n, (void)bkt, (void)s; abort(); }
size_t cz_msm_g1_ifma_bytes(uint32_t n) { (void)n; return 0; }
size_t cz_msm_g2_ifma_bytes(uint32_t n) { (void)n; return 0; }
unsigned long cz_msm_ifma_flush_count(void) { return 0; }

#endif

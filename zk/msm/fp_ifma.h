/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fp_ifma.h — prime fields eight or four lanes at a time on AVX-512 IFMA,
 * and the MSM's batch-affine flush built on them, for every curve.  The
 * arithmetic is written once (zk/field/fpv_tmpl_pvt.h, zk/msm/msm_ifma_tmpl_pvt.h, stamped by
 * zk/msm/fpv_inst_tmpl_pvt.h); each (curve, lane count) is one small file giving the
 * curve's own constants: zk/msm/fp_ifma.c and zk/msm/fp_ifma256.c (BLS12-381,
 * 8 limbs of 52 bits), zk/msm/bn254_fp_ifma.c and zk/msm/bn254_fp_ifma256.c (BN254,
 * 5 limbs).  Each exports its operations as one struct cz_fpv_ops.
 *
 * A CPU with AVX2 but no IFMA (AMD Zen 2/3, Intel before Ice Lake) runs
 * the same code on four 64-bit lanes with 29-bit limbs and vpmuludq
 * products: zk/msm/bn254_fp_avx2.c and zk/msm/fp_avx2.c.
 *
 * Selection (zk/msm/ifma.c), once at start-up:
 *   cz_ifma_on     the vector path runs: the CPU (and the OS's saved state)
 *                  has AVX-512F and AVX512-IFMA, and the environment has no
 *                  CZ_NO_IFMA set to anything but "0"; or, failing that,
 *                  the CPU has AVX2 and the environment CZ_AVX2 set to
 *                  anything but "0" (then cz_fpv_avx2 is set too: opt-in, as
 *                  it measured faster than the scalar flush only on BN254 G1
 *                  on a Zen 4, and on no group on an Intel Xeon).
 *                  Else the scalar mulx/adx or portable path runs (so
 *                  CZ_NO_IFMA=1 runs what a CPU without IFMA runs by default,
 *                  CZ_NO_IFMA=1 CZ_AVX2=1 its AVX2 path)
 *   cz_ifma_lanes  8 (zmm) or 4 (ymm, needs AVX-512VL as well): 8 unless
 *                  CZ_IFMA_LANES=4 says otherwise; the measurement that
 *                  chose the default is in docs/BENCHMARKS.md
 * Tests and benches flip them with cz_ifma_force_off / cz_ifma_set_lanes /
 * cz_fpv_force_avx2.  Nothing outside the instance files is compiled for
 * AVX-512 or AVX2, so the binary runs on any x86-64.
 */
#ifndef CZ_FP_IFMA_H
#define CZ_FP_IFMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern bool cz_ifma_on;
extern unsigned cz_ifma_lanes;
extern bool cz_fpv_avx2;                  /* cz_ifma_on runs the AVX2 instances */
bool cz_avx2_have(void);                  /* the CPU (and OS) can run AVX2 */
bool cz_ifma_have(void);                  /* the CPU can run 8 lanes */
bool cz_ifma_have_lanes(unsigned lanes);  /* ... this many (8, or 4: + AVX-512VL) */
void cz_ifma_force_off(bool off);         /* not thread safe; between phases */
bool cz_ifma_set_lanes(unsigned lanes);   /* false (unchanged) if the CPU can't */
/* on: the vector path on the AVX2 instances (false if the CPU can't);
 * off: back to IFMA where the CPU has it, else the scalar path.  Not
 * thread safe; between phases. */
bool cz_fpv_force_avx2(bool on);

/*
 * One (curve, lane count) instance.  The lane functions are for tests and
 * benches: each takes eight elements in the curve's scalar layout (its
 * 64-bit limbs, Montgomery form; Fp2 as c0, c1), converts them at the batch
 * boundary, runs the vector operation (twice, on halves, with four lanes)
 * and converts back.  Inputs may be unreduced, within the bound each names
 * (m the modulus, W = 2^(64·limbs)); the mul/sqr/add/sub results are the
 * vector code's redundant values, not reduced, so a test can check the
 * bounds the MSM relies on.
 */
struct msm_ent;
struct cz_fpv_ops {
	const char *curve;   /* "bls12-381", "bn254" */
	unsigned lanes;      /* 8 or 4; 0: not built for this target */
	bool avx2;           /* an AVX2 instance (29-bit limbs), not IFMA */
	unsigned limbs;      /* 64-bit limbs of the scalar element */
	/* r = a·b/R mod m, r < a·b/W + m (< 2m when a, b < 2m, or a < 2m and
	 * b < 4m if floor(W/m) >= 8, BLS12-381 but not BN254); a < W. */
	void (*mul8)(void *r, const void *a, const void *b);
	void (*sqr8)(void *r, const void *a);
	void (*add8)(void *r, const void *a, const void *b); /* a + b, a + b < W */
	void (*sub8)(void *r, const void *a, const void *b); /* a + 2m - b, b <= 2m, < W */
	void (*canon8)(void *r, const void *a);              /* a mod m for a < min(8m, W) */
	/* Fp2 = Fp[u]/(u^2 + 1), components < 2m in; results canonical. */
	void (*fp2_mul8)(void *r, const void *a, const void *b);
	void (*fp2_sqr8)(void *r, const void *a);
	/* x = x·y, n times, eight independent chains (the throughput bench). */
	void (*mul_chain)(void *x, const void *y, long n);
	/* The MSM's batch-affine flush (zk/msm/msm_tmpl_pvt.h): n entries, buckets
	 * bkt (the curve's G1 / G2 affine points), scratch of g1_bytes(n) /
	 * g2_bytes(n), 64-byte aligned. */
	void (*g1_flush)(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
	void (*g2_flush)(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
	size_t (*g1_bytes)(uint32_t n);
	size_t (*g2_bytes)(uint32_t n);
	unsigned long (*flushes)(void);      /* vector flushes run so far */
};

extern const struct cz_fpv_ops cz_fpv_bls12_381_8, cz_fpv_bls12_381_4;
extern const struct cz_fpv_ops cz_fpv_bn254_8, cz_fpv_bn254_4;
extern const struct cz_fpv_ops cz_fpv_bls12_381_avx2, cz_fpv_bn254_avx2;
bool cz_fpv_usable(const struct cz_fpv_ops *o); /* built, and the CPU can run it */

/* The MSM instances' VEC_FLUSH / VEC_BYTES (zk/msm/msm_g1.c, ..., bn254_msm_g2.c):
 * the flush of the selected lane count; scratch for either.  Only when
 * cz_ifma_on. */
void cz_msm_g1_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
void cz_msm_g2_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
void cz_bn254_msm_g1_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
void cz_bn254_msm_g2_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
size_t cz_msm_g1_ifma_bytes(uint32_t n);
size_t cz_msm_g2_ifma_bytes(uint32_t n);
size_t cz_bn254_msm_g1_ifma_bytes(uint32_t n);
size_t cz_bn254_msm_g2_ifma_bytes(uint32_t n);
unsigned long cz_msm_ifma_flush_count(void);   /* vector flushes so far, all instances */

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/fp_ifma.h — BLS12-381 Fp (and Fp2) eight lanes at a time on AVX-512
 * IFMA, and the MSM's batch-affine flush built on it.  The arithmetic is
 * generic (zk/fpv_impl.h, zk/msm_ifma_impl.h); zk/fp_ifma.c instantiates it
 * with the constants of zk/bls12_381.h.
 *
 * Selection (zk/ifma.c): cz_ifma_on is set once at start-up when the CPU (and the OS's
 * saved state) has AVX-512F and AVX512-IFMA, unless the environment has
 * CZ_NO_IFMA set to anything but "0" (then the scalar mulx/adx or portable
 * path runs, as on a CPU without IFMA).  Tests and benches flip it with
 * cz_ifma_force_off().  Nothing outside zk/fp_ifma.c is compiled for
 * AVX-512, so the binary runs on any x86-64.
 *
 * The lane functions below are for tests and benches: each takes eight
 * elements in the scalar layout (six 64-bit limbs, Montgomery form), converts
 * them at the batch boundary, runs one vector operation, and converts back.
 * Their inputs may be unreduced (any 384-bit integer within the bound each
 * names); the mul/sqr/add/sub results are the vector code's redundant
 * values, not reduced, so a test can check the bounds it relies on.
 */
#ifndef CZ_FP_IFMA_H
#define CZ_FP_IFMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zk/fp.h"
#include "zk/fp2.h"

extern bool cz_ifma_on;
bool cz_ifma_have(void);            /* the CPU can run the vector path */
void cz_ifma_force_off(bool off);   /* not thread safe; between phases */

/* r = a·b/R mod p, r < a·b/2^384 + p (< 2p when a, b < 2p, or a < 2p and
 * b < 4p); a < 2^384 (any value of the type). */
void cz_fp_ifma_mul8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]);
void cz_fp_ifma_sqr8(cz_fp r[8], const cz_fp a[8]);
void cz_fp_ifma_add8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]); /* a + b, a + b < 2^384 */
void cz_fp_ifma_sub8(cz_fp r[8], const cz_fp a[8], const cz_fp b[8]); /* a + 2p - b, b <= 2p */
void cz_fp_ifma_canon8(cz_fp r[8], const cz_fp a[8]);  /* a mod p for a < 8p */
/* Fp2, components < 2p in; results reduced (canonical). */
void cz_fp2_ifma_mul8(cz_fp2 r[8], const cz_fp2 a[8], const cz_fp2 b[8]);
void cz_fp2_ifma_sqr8(cz_fp2 r[8], const cz_fp2 a[8]);
/* x = x·y, n times, eight independent chains (the bench's throughput). */
void cz_fp_ifma_mul_chain(cz_fp x[8], const cz_fp y[8], long n);

/* The MSM's batch-affine flush (zk/msm_tmpl_pvt.h): n entries, buckets
 * bkt (cz_g1_affine / cz_g2_affine), scratch of the _bytes(n) size, 64-byte
 * aligned.  Only when cz_ifma_on. */
struct msm_ent;
void cz_msm_g1_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
void cz_msm_g2_flush_ifma(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch);
size_t cz_msm_g1_ifma_bytes(uint32_t n);
size_t cz_msm_g2_ifma_bytes(uint32_t n);
unsigned long cz_msm_ifma_flush_count(void);   /* vector flushes so far */

#endif

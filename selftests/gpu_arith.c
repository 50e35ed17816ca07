/* SPDX-License-Identifier: MIT */
/* Description: the CUDA kernels' 32-bit-limb Fr/Fp (BLS12-381 and BN254) and G1 XYZZ/Jacobian arithmetic (gpu/field32.h, gpu/g1_32.h), run on the host, equals zk/ on random and edge values. */
#include "gpu/g1_32.h"
#include "selftests/cz_test.h"
#include "zk/curve/g1.h"
#include "zk/field/bn254.h"
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fr.h"
#include "zk/curve/bn254_g1.h"

#include <string.h>

_Static_assert(sizeof(cz_fr32) == sizeof(cz_fr), "cz_fr32 is cz_fr's bytes");
_Static_assert(sizeof(cz_fp32) == sizeof(cz_fp), "cz_fp32 is cz_fp's bytes");
_Static_assert(sizeof(cz_bn254_fr32) == sizeof(cz_bn254_fr), "cz_bn254_fr32 is cz_bn254_fr's bytes");
_Static_assert(sizeof(cz_bn254_fp32) == sizeof(cz_bn254_fp), "cz_bn254_fp32 is cz_bn254_fp's bytes");
_Static_assert(sizeof(cz_g1a32) == sizeof(cz_g1_affine), "affine layout");
_Static_assert(sizeof(cz_g1xyzz32) == sizeof(cz_g1_xyzz), "xyzz layout");
_Static_assert(sizeof(cz_bn254_g1a32) == sizeof(cz_bn254_g1_affine), "BN254 affine layout");
_Static_assert(sizeof(cz_bn254_g1xyzz32) == sizeof(cz_bn254_g1_xyzz), "BN254 xyzz layout");
_Static_assert(sizeof(cz_g1jac32) == sizeof(cz_g1_jac), "jacobian layout");

#define NRAND 3000

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void) /* splitmix64: independent of the code under test */
{
	return ct_splitmix64(&rng);
}

/* ---- the two fields through one set of macros -------------------------- */

#define FIELD_TESTS(Z, Z32, NL, MOD, TOPMASK)                                                   \
	static void Z##_rand(cz_##Z *r)                                                          \
	{                                                                                        \
		uint64_t raw[NL];                                                                \
		do {                                                                             \
			for (int i = 0; i < NL; i++)                                             \
				raw[i] = rnd();                                                  \
			raw[NL - 1] &= TOPMASK;                                                  \
		} while (!cz_##Z##_to_mont(r, raw));                                             \
	}                                                                                        \
	/* Edge values: 0, 1, -1, 2, limbs m-1 and m-2 (as Montgomery residues), 2^k-1. */       \
	static int Z##_edges(cz_##Z *e)                                                          \
	{                                                                                        \
		const uint64_t m[] = MOD;                                                        \
		uint64_t raw[NL];                                                                \
		int n = 0;                                                                       \
		e[n++] = cz_##Z##_zero;                                                          \
		e[n++] = cz_##Z##_one;                                                           \
		cz_##Z##_neg(&e[n++], &cz_##Z##_one);                                            \
		cz_##Z##_add(&e[n++], &cz_##Z##_one, &cz_##Z##_one);                             \
		memcpy(e[n++].l, m, sizeof(m));                                                  \
		e[n - 1].l[0] -= 1;                                                              \
		memcpy(e[n++].l, m, sizeof(m));                                                  \
		e[n - 1].l[0] -= 2;                                                              \
		memset(e[n].l, 0, sizeof(e[n].l));                                               \
		e[n++].l[0] = 1;                                                                 \
		for (int k = 31; k < 64 * NL - 8; k += 32) {                                     \
			memset(raw, 0, sizeof(raw));                                             \
			for (int b = 0; b < k; b++)                                              \
				raw[b / 64] |= 1ULL << (b % 64);                                 \
			memcpy(e[n++].l, raw, sizeof(raw));                                      \
		}                                                                                \
		return n;                                                                        \
	}                                                                                        \
	static int Z##_check(const cz_##Z *a, const cz_##Z *b)                                   \
	{                                                                                        \
		cz_##Z want;                                                                     \
		Z32 x, y, got;                                                                   \
		int bad = 0;                                                                     \
		memcpy(&x, a, sizeof(x));                                                        \
		memcpy(&y, b, sizeof(y));                                                        \
		cz_##Z##_add(&want, a, b), Z32##_add(&got, &x, &y);                              \
		bad |= memcmp(&want, &got, sizeof(got)) != 0;                                    \
		cz_##Z##_sub(&want, a, b), Z32##_sub(&got, &x, &y);                              \
		bad |= (memcmp(&want, &got, sizeof(got)) != 0) << 1;                             \
		cz_##Z##_mul(&want, a, b), Z32##_mul(&got, &x, &y);                              \
		bad |= (memcmp(&want, &got, sizeof(got)) != 0) << 2;                             \
		cz_##Z##_sqr(&want, a), Z32##_sqr(&got, &x);                                     \
		bad |= (memcmp(&want, &got, sizeof(got)) != 0) << 3;                             \
		cz_##Z##_dbl(&want, a), Z32##_dbl(&got, &x);                                     \
		bad |= (memcmp(&want, &got, sizeof(got)) != 0) << 4;                             \
		cz_##Z##_neg(&want, a), Z32##_neg(&got, &x);                                     \
		bad |= (memcmp(&want, &got, sizeof(got)) != 0) << 5;                             \
		uint64_t raw[NL];                                                                \
		cz_##Z##_from_mont(raw, a), Z32##_from_mont(&got, &x);                           \
		bad |= (memcmp(raw, &got, sizeof(got)) != 0) << 6;                               \
		bad |= (cz_##Z##_eq(a, b) != Z32##_eq(&x, &y)) << 7;                             \
		bad |= (cz_##Z##_is_zero(a) != Z32##_is_zero(&x)) << 8;                          \
		return bad;                                                                      \
	}                                                                                        \
	static void Z##_tests(const char *name)                                                  \
	{                                                                                        \
		cz_##Z e[4 * NL + 16], a, b;                                                     \
		int ne = Z##_edges(e), bad = 0, first = -1;                                      \
		for (int i = 0; i < ne; i++)                                                     \
			for (int j = 0; j < ne; j++) {                                           \
				int r = Z##_check(&e[i], &e[j]);                                 \
				if (r && first < 0)                                              \
					first = i * 1000 + j, bad = r;                           \
			}                                                                        \
		ct_ok(first < 0, "%s: add/sub/mul/sqr/dbl/neg/from_mont/eq on %d x %d edge values"   \
		      " (first failure %d, ops mask 0x%x)", name, ne, ne, first, bad);           \
		bad = 0;                                                                         \
		for (int i = 0; i < NRAND; i++) {                                                \
			Z##_rand(&a);                                                            \
			Z##_rand(&b);                                                            \
			bad |= Z##_check(&a, &b);                                                \
			bad |= Z##_check(&a, &e[i % ne]);                                        \
			bad |= Z##_check(&e[i % ne], &a);                                        \
			bad |= Z##_check(&a, &a);                                                \
		}                                                                                \
		ct_ok(!bad, "%s: all ops on %d random pairs and random x edge (ops mask 0x%x)",  \
		      name, NRAND, bad);                                                         \
	}

FIELD_TESTS(fr, cz_fr32, CZ_FR_LIMBS, CZ_BLS12_381_R, 0x7fffffffffffffffULL)
FIELD_TESTS(fp, cz_fp32, CZ_FP_LIMBS, CZ_BLS12_381_P, 0x1fffffffffffffffULL)
FIELD_TESTS(bn254_fr, cz_bn254_fr32, CZ_BN254_FR_LIMBS, CZ_BN254_R, 0x3fffffffffffffffULL)
FIELD_TESTS(bn254_fp, cz_bn254_fp32, CZ_BN254_FP_LIMBS, CZ_BN254_P, 0x3fffffffffffffffULL)

/* ---- G1, both curves ---------------------------------------------------- */

/* p's bytes as a T (a copy: the layouts match, the types do not alias). */
static void *cp(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}
#define AS(T, p) (*(T *)cp(&(T){ 0 }, (p), sizeof(T)))

#define ZG(n) cz_g1_##n
#define G32(n) cz_g1##n
#define GC(n) bls_##n
#define GNAME "G1"
#include "selftests/gpu_g1_check.h"
#undef ZG
#undef G32
#undef GC
#undef GNAME

#define ZG(n) cz_bn254_g1_##n
#define G32(n) cz_bn254_g1##n
#define GC(n) bn254_##n
#define GNAME "BN254 G1"
#include "selftests/gpu_g1_check.h"
#undef ZG
#undef G32
#undef GC
#undef GNAME

int main(void)
{
	ct_plan(24);
	fr_tests("Fr (8 x 32-bit limbs)");
	fp_tests("Fp (12 x 32-bit limbs)");
	bn254_fr_tests("BN254 Fr (8 x 32-bit limbs)");
	bn254_fp_tests("BN254 Fp (8 x 32-bit limbs)");
	bls_g1_tests();
	bn254_g1_tests();
	return ct_exit();
}

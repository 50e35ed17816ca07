/* SPDX-License-Identifier: MIT */
/* Description: the CUDA kernels' 32-bit-limb Fr/Fp and G1 XYZZ/Jacobian arithmetic (gpu/field32.h, gpu/g1_32.h), run on the host, equals zk/ on random and edge values. */
#include "gpu/g1_32.h"
#include "selftests/cz_test.h"
#include "zk/g1.h"

#include <string.h>

_Static_assert(sizeof(cz_fr32) == sizeof(cz_fr), "cz_fr32 is cz_fr's bytes");
_Static_assert(sizeof(cz_fp32) == sizeof(cz_fp), "cz_fp32 is cz_fp's bytes");
_Static_assert(sizeof(cz_g1a32) == sizeof(cz_g1_affine), "affine layout");
_Static_assert(sizeof(cz_g1xyzz32) == sizeof(cz_g1_xyzz), "xyzz layout");
_Static_assert(sizeof(cz_g1jac32) == sizeof(cz_g1_jac), "jacobian layout");

#define NRAND 3000

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void) /* splitmix64: independent of the code under test */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
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

/* ---- G1 ----------------------------------------------------------------- */

static void rand_point(cz_g1_affine *r)
{
	cz_g1_jac g, p;
	uint64_t k[2] = { rnd(), rnd() };
	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	cz_g1_mul_vartime(&p, &g, k, 2);
	cz_g1_jac_to_affine(r, &p);
}

static void rand_xyzz(cz_g1_xyzz *r)
{
	cz_g1_jac g, p;
	uint64_t k[2] = { rnd(), rnd() };
	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	cz_g1_mul_vartime(&p, &g, k, 2);
	cz_g1_jac_to_xyzz(r, &p); /* Z != 1: a general representative */
}

/* p's bytes as a T (a copy: the layouts match, the types do not alias). */
static void *cp(void *dst, const void *src, size_t n)
{
	return memcpy(dst, src, n);
}
#define AS(T, p) (*(T *)cp(&(T){ 0 }, (p), sizeof(T)))

static int xyzz_same(const cz_g1xyzz32 *got, const cz_g1_xyzz *want)
{
	return memcmp(got, want, sizeof(*want)) == 0 ||
	       cz_g1_xyzz_eq(&AS(cz_g1_xyzz, got), want);
}

static int jac_same(const cz_g1jac32 *got, const cz_g1_jac *want)
{
	return cz_g1_jac_eq(&AS(cz_g1_jac, got), want);
}

static void g1_tests(void)
{
	enum { NP = 200 };
	int bad_madd = 0, bad_add = 0, bad_dbl = 0, bad_jadd = 0, bad_jdbl = 0, bad_conv = 0;
	int bad_edge = 0, bad_mul = 0;

	for (int i = 0; i < NP; i++) {
		cz_g1_affine b;
		cz_g1_xyzz a, c, want;
		cz_g1_jac aj, wj;
		cz_g1xyzz32 got;
		cz_g1jac32 gj;

		rand_point(&b);
		rand_xyzz(&a);
		rand_xyzz(&c);
		cz_g1_xyzz_add_affine(&want, &a, &b);
		cz_g1xyzz32_add_affine(&got, &AS(cz_g1xyzz32, &a), &AS(cz_g1a32, &b));
		bad_madd += !xyzz_same(&got, &want);
		cz_g1_xyzz_add(&want, &a, &c);
		cz_g1xyzz32_add(&got, &AS(cz_g1xyzz32, &a), &AS(cz_g1xyzz32, &c));
		bad_add += !xyzz_same(&got, &want);
		cz_g1_xyzz_dbl(&want, &a);
		cz_g1xyzz32_dbl(&got, &AS(cz_g1xyzz32, &a));
		bad_dbl += !xyzz_same(&got, &want);

		cz_g1_xyzz_to_jac(&aj, &a);
		cz_g1_jac_add_affine(&wj, &aj, &b);
		cz_g1jac32_add_affine(&gj, &AS(cz_g1jac32, &aj), &AS(cz_g1a32, &b));
		bad_jadd += !jac_same(&gj, &wj);
		cz_g1_jac_dbl(&wj, &aj);
		cz_g1jac32_dbl(&gj, &AS(cz_g1jac32, &aj));
		bad_jdbl += !jac_same(&gj, &wj);
		cz_g1xyzz32_to_jac(&gj, &AS(cz_g1xyzz32, &a));
		bad_conv += !jac_same(&gj, &aj);

		/* the aliased form r = a + b, as the bucket loop calls it */
		got = AS(cz_g1xyzz32, &a);
		cz_g1xyzz32_add_affine(&got, &got, &AS(cz_g1a32, &b));
		cz_g1_xyzz_add_affine(&want, &a, &b);
		bad_madd += !xyzz_same(&got, &want);

		uint32_t k = (uint32_t)rnd() >> (i % 32);
		cz_g1xyzz32_mul_u32(&got, &AS(cz_g1xyzz32, &a), k);
		uint64_t k64 = k;
		cz_g1_mul_vartime(&wj, &aj, &k64, 1);
		cz_g1_xyzz_to_jac(&aj, &AS(cz_g1_xyzz, &got));
		bad_mul += !cz_g1_jac_eq(&aj, &wj);
	}
	ct_ok(!bad_madd, "G1 XYZZ + affine (madd-2008-s) = zk/ on %d random pairs, plain and aliased (%d bad)", NP, bad_madd);
	ct_ok(!bad_add, "G1 XYZZ + XYZZ (add-2008-s) = zk/ on %d random pairs (%d bad)", NP, bad_add);
	ct_ok(!bad_dbl, "G1 XYZZ doubling = zk/ on %d random points (%d bad)", NP, bad_dbl);
	ct_ok(!bad_jadd, "G1 Jacobian + affine (madd-2007-bl) = zk/ on %d random pairs (%d bad)", NP, bad_jadd);
	ct_ok(!bad_jdbl, "G1 Jacobian doubling = zk/ on %d random points (%d bad)", NP, bad_jdbl);
	ct_ok(!bad_conv, "G1 XYZZ -> Jacobian = zk/ on %d random points (%d bad)", NP, bad_conv);
	ct_ok(!bad_mul, "G1 XYZZ small-scalar multiple = cz_g1_mul_vartime on %d points (%d bad)", NP, bad_mul);

	/* Edges: infinity on either side, P + P (doubling path), P + (-P). */
	for (int i = 0; i < 20; i++) {
		cz_g1_affine b, nb, inf = { { { 0 } }, { { 0 } } };
		cz_g1_xyzz a, want, infx;
		cz_g1xyzz32 got;
		cz_g1_jac aj, wj;
		cz_g1jac32 gj;

		rand_point(&b);
		cz_g1_affine_neg(&nb, &b);
		cz_g1_xyzz_set_inf(&infx);
		rand_xyzz(&a);
		const cz_g1_affine *bs[] = { &b, &nb, &inf };
		cz_g1_xyzz from_b;
		cz_g1_xyzz_from_affine(&from_b, &b);
		const cz_g1_xyzz *as[] = { &from_b, &infx, &a };
		for (int x = 0; x < 3; x++)
			for (int y = 0; y < 3; y++) {
				cz_g1_xyzz_add_affine(&want, as[x], bs[y]);
				cz_g1xyzz32_add_affine(&got, &AS(cz_g1xyzz32, as[x]), &AS(cz_g1a32, bs[y]));
				bad_edge += !xyzz_same(&got, &want);
				cz_g1_xyzz bx;
				cz_g1_xyzz_from_affine(&bx, bs[y]);
				cz_g1_xyzz_add(&want, as[x], &bx);
				cz_g1xyzz32_add(&got, &AS(cz_g1xyzz32, as[x]), &AS(cz_g1xyzz32, &bx));
				bad_edge += !xyzz_same(&got, &want);
				cz_g1_xyzz_to_jac(&aj, as[x]);
				cz_g1_jac_add_affine(&wj, &aj, bs[y]);
				cz_g1jac32_add_affine(&gj, &AS(cz_g1jac32, &aj), &AS(cz_g1a32, bs[y]));
				bad_edge += !jac_same(&gj, &wj);
			}
		cz_g1xyzz32_dbl(&got, &AS(cz_g1xyzz32, &infx));
		bad_edge += !cz_g1xyzz32_is_inf(&got);
	}
	ct_ok(!bad_edge, "G1 edges: infinity either side, P + P, P + (-P), for XYZZ and Jacobian (%d bad)",
	      bad_edge);
}

int main(void)
{
	ct_plan(12);
	fr_tests("Fr (8 x 32-bit limbs)");
	fp_tests("Fp (12 x 32-bit limbs)");
	g1_tests();
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/* Description: the eight-lane AVX-512 IFMA Fp and Fp2 (zk/fp_ifma.h): every lane against GMP and against the scalar path, on random values, edges and the lazy ranges. */
#include "selftests/cz_test.h"
#include "zk/fp.h"
#include "zk/fp2.h"
#include "zk/fp_ifma.h"

#include <gmp.h>
#include <string.h>

/* p from the BLS12-381 specification, not from the library's constants. */
#define P_HEX "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"
#define ROUNDS 400
#define NPOINTS 14

static mpz_t p, Rinv, two_p, four_p;
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

/* The element's limbs as an integer (the redundant value itself). */
static void get(mpz_t z, const cz_fp *a)
{
	mpz_import(z, CZ_FP_LIMBS, -1, 8, 0, 0, a->l);
}

static void set(cz_fp *a, const mpz_t z)
{
	memset(a, 0, sizeof(*a));
	mpz_export(a->l, NULL, -1, 8, 0, 0, z);
}

/* Uniform in [0, bound). */
static void rand_below(cz_fp *a, const mpz_t bound)
{
	mpz_t z;
	mpz_init(z);
	do {
		for (int i = 0; i < CZ_FP_LIMBS; i++)
			a->l[i] = rnd();
		a->l[CZ_FP_LIMBS - 1] >>= 64 * CZ_FP_LIMBS - mpz_sizeinbase(bound, 2);
		get(z, a);
	} while (mpz_cmp(z, bound) >= 0);
	mpz_clear(z);
}

/* Edge values: 0, 1, R mod p (the element 1), p-1, p, p+1, 2p-1, and
 * 4p-1 / 2^383-ish only where the bound allows (lazy range). */
#define NEDGE 7
static void edge(cz_fp *a, int i, const mpz_t bound)
{
	mpz_t z;
	mpz_init(z);
	switch (i) {
	case 0: mpz_set_ui(z, 0); break;
	case 1: mpz_set_ui(z, 1); break;
	case 2: mpz_set_ui(z, 1), mpz_mul_2exp(z, z, 384), mpz_mod(z, z, p); break;
	case 3: mpz_sub_ui(z, p, 1); break;
	case 4: mpz_set(z, p); break;
	case 5: mpz_add_ui(z, p, 1); break;
	default: mpz_sub_ui(z, bound, 1); break; /* the top of the lazy range */
	}
	if (mpz_cmp(z, bound) >= 0)
		mpz_sub_ui(z, bound, 1);
	set(a, z);
	mpz_clear(z);
}

/* Lane inputs for round r: random below the bounds; every 4th round all
 * lanes equal; every 2nd an edge in one lane; edge rounds cover all
 * pairs of edges in all lanes. */
static void fill(cz_fp a[8], cz_fp b[8], int r, const mpz_t ba, const mpz_t bb)
{
	for (int k = 0; k < 8; k++) {
		rand_below(&a[k], ba);
		rand_below(&b[k], bb);
	}
	if (r < NEDGE * NEDGE) {
		for (int k = 0; k < 8; k++) {
			edge(&a[k], (r + k) % NEDGE, ba);
			edge(&b[k], (r / NEDGE + 3 * k) % NEDGE, bb);
		}
	} else if (r % 4 == 0) {
		for (int k = 1; k < 8; k++)
			a[k] = a[0], b[k] = b[0];
	} else if (r % 2 == 0) {
		int k = (int)(rnd() % 8);
		edge(&a[k], (int)(rnd() % NEDGE), ba);
		edge(&b[k], (int)(rnd() % NEDGE), bb);
	}
}

/* r = a·b/R mod p and r < bound, every lane. */
static int check_mul(const cz_fp *r, const cz_fp *a, const cz_fp *b, const mpz_t bound)
{
	mpz_t x, y, w, g;
	int bad = 0;
	mpz_inits(x, y, w, g, NULL);
	for (int k = 0; k < 8; k++) {
		get(x, &a[k]), get(y, &b[k]), get(g, &r[k]);
		mpz_mul(w, x, y), mpz_mul(w, w, Rinv), mpz_mod(w, w, p);
		bad += mpz_cmp(g, bound) >= 0;
		mpz_mod(g, g, p);
		bad += mpz_cmp(g, w) != 0;
	}
	mpz_clears(x, y, w, g, NULL);
	return bad;
}

static int t_mul(const char *what, const mpz_t ba, const mpz_t bb, int sqr)
{
	cz_fp a[8], b[8], r[8];
	int bad = 0;
	for (int i = 0; i < ROUNDS; i++) {
		fill(a, b, i, ba, bb);
		if (sqr) {
			cz_fp_ifma_sqr8(r, a);
			bad += check_mul(r, a, a, two_p);
		} else {
			cz_fp_ifma_mul8(r, a, b);
			bad += check_mul(r, a, b, two_p);
		}
	}
	return ct_ok(bad == 0, "%s: %d rounds x 8 lanes equal a*b/R mod p (GMP) and stay < 2p (%d bad)",
		     what, ROUNDS, bad);
}

int main(void)
{
	mpz_t t, u, v, w;

	ct_plan(NPOINTS);
	if (!cz_ifma_have()) {
		for (int i = 0; i < NPOINTS; i++)
			ct_skip("this CPU has no AVX-512 IFMA", "vector Fp point %d", i + 1);
		return ct_exit();
	}
	mpz_inits(p, Rinv, two_p, four_p, t, u, v, w, NULL);
	mpz_set_str(p, P_HEX, 16);
	mpz_setbit(t, 384);
	mpz_invert(Rinv, t, p);
	mpz_mul_2exp(two_p, p, 1);
	mpz_mul_2exp(four_p, p, 2);

	/* 1-4: mul and sqr, reduced and lazy inputs */
	t_mul("mul, a, b < p", p, p, 0);
	t_mul("mul, a, b < 2p (lazy)", two_p, two_p, 0);
	t_mul("mul, a < 2p, b < 4p (lazy)", two_p, four_p, 0);
	t_mul("sqr, a < 2p (lazy)", two_p, two_p, 1);

	/* 5: against the scalar path: canonical inputs, canon(vector) == cz_fp_mul */
	{
		cz_fp a[8], b[8], r[8], c[8], s;
		int bad = 0;
		for (int i = 0; i < ROUNDS; i++) {
			fill(a, b, i, p, p);
			cz_fp_ifma_mul8(r, a, b);
			cz_fp_ifma_canon8(c, r);
			for (int k = 0; k < 8; k++) {
				cz_fp_mul(&s, &a[k], &b[k]);
				bad += memcmp(&s, &c[k], sizeof(s)) != 0;
			}
		}
		ct_ok(bad == 0, "mul: every lane equals the scalar path bit for bit after reduction (%d bad)", bad);
	}

	/* 6-8: add, sub, canon as exact integers */
	{
		cz_fp a[8], b[8], r[8];
		int bad_add = 0, bad_sub = 0, bad_can = 0;
		mpz_t eight_p;
		mpz_init(eight_p);
		mpz_mul_2exp(eight_p, p, 3);
		for (int i = 0; i < ROUNDS; i++) {
			fill(a, b, i, four_p, four_p);
			cz_fp_ifma_add8(r, a, b);
			for (int k = 0; k < 8; k++) {
				get(t, &a[k]), get(u, &b[k]), get(v, &r[k]);
				mpz_add(w, t, u);
				bad_add += mpz_cmp(v, w) != 0;
			}
			fill(a, b, i, four_p, two_p);
			mpz_add_ui(u, two_p, 1);
			for (int k = 0; k < 8; k++) /* b <= 2p: include 2p itself */
				if (i < NEDGE * NEDGE && k == 0)
					set(&b[k], two_p);
			cz_fp_ifma_sub8(r, a, b);
			for (int k = 0; k < 8; k++) {
				get(t, &a[k]), get(u, &b[k]), get(v, &r[k]);
				mpz_add(w, t, two_p), mpz_sub(w, w, u);
				bad_sub += mpz_cmp(v, w) != 0;
			}
			fill(a, b, i, eight_p, eight_p);
			cz_fp_ifma_canon8(r, a);
			for (int k = 0; k < 8; k++) {
				get(t, &a[k]), get(v, &r[k]);
				mpz_mod(w, t, p);
				bad_can += mpz_cmp(v, w) != 0;
			}
		}
		mpz_clear(eight_p);
		ct_ok(bad_add == 0, "add: a + b exactly, a, b < 4p (%d bad)", bad_add);
		ct_ok(bad_sub == 0, "sub: a + 2p - b exactly, a < 4p, b <= 2p (%d bad)", bad_sub);
		ct_ok(bad_can == 0, "canon: a mod p for a < 8p, edges p-1, p, p+1, 8p-1 (%d bad)", bad_can);
	}

	/* 9: the conversion round trip (64-bit -> 52-bit limbs -> 64-bit) via a
	 * multiplication by R mod p (x·R/R = x): every bit position survives. */
	{
		cz_fp a[8], one[8], r[8];
		int bad = 0;
		for (int k = 0; k < 8; k++)
			one[k] = cz_fp_one;
		for (int i = 0; i < ROUNDS; i++) {
			for (int k = 0; k < 8; k++) {
				memset(&a[k], 0, sizeof(a[k]));
				int bit = (i * 8 + k) % 381;
				a[k].l[bit / 64] = 1ull << (bit % 64);
				if (i % 2)
					rand_below(&a[k], p);
			}
			cz_fp_ifma_mul8(r, a, one);
			cz_fp_ifma_canon8(r, r);
			for (int k = 0; k < 8; k++) {
				get(t, &a[k]), mpz_mod(t, t, p), get(v, &r[k]);
				bad += mpz_cmp(t, v) != 0;
			}
		}
		ct_ok(bad == 0, "every bit position converts in and out (x*R/R = x, %d bad)", bad);
	}

	/* 10: a chain of 1000 products per lane equals the scalar chain */
	{
		cz_fp x[8], y[8], s[8];
		int bad = 0;
		for (int k = 0; k < 8; k++) {
			rand_below(&x[k], p), rand_below(&y[k], p);
			s[k] = x[k];
		}
		cz_fp_ifma_mul_chain(x, y, 1000);
		for (int k = 0; k < 8; k++) {
			for (int i = 0; i < 1000; i++)
				cz_fp_mul(&s[k], &s[k], &y[k]);
			bad += memcmp(&s[k], &x[k], sizeof(s[k])) != 0;
		}
		ct_ok(bad == 0, "1000-step product chains (lazy throughout) equal the scalar chains (%d bad)", bad);
	}

	/* 11-14: Fp2, against GMP and the scalar Fp2, reduced and lazy inputs */
	for (int lazy = 0; lazy < 2; lazy++) {
		cz_fp2 a[8], b[8], r[8], s;
		cz_fp a0[8], a1[8], b0[8], b1[8];
		int bad_g = 0, bad_s = 0;
		mpz_t x0, x1, y0, y1, c0, c1;
		mpz_inits(x0, x1, y0, y1, c0, c1, NULL);
		const mpz_t *bd = lazy ? &two_p : &p;
		for (int i = 0; i < ROUNDS; i++) {
			fill(a0, b0, i, *bd, *bd);
			fill(a1, b1, i / 3 + 5, *bd, *bd);
			for (int k = 0; k < 8; k++)
				a[k] = (cz_fp2){ a0[k], a1[k] }, b[k] = (cz_fp2){ b0[k], b1[k] };
			int sq = i % 2;
			if (sq)
				cz_fp2_ifma_sqr8(r, a);
			else
				cz_fp2_ifma_mul8(r, a, b);
			for (int k = 0; k < 8; k++) {
				const cz_fp2 *bb = sq ? &a[k] : &b[k];
				get(x0, &a[k].c0), get(x1, &a[k].c1), get(y0, &bb->c0), get(y1, &bb->c1);
				mpz_mul(c0, x0, y0), mpz_submul(c0, x1, y1);
				mpz_mul(c1, x0, y1), mpz_addmul(c1, x1, y0);
				mpz_mul(c0, c0, Rinv), mpz_mod(c0, c0, p);
				mpz_mul(c1, c1, Rinv), mpz_mod(c1, c1, p);
				get(t, &r[k].c0), get(u, &r[k].c1);
				bad_g += mpz_cmp(t, c0) != 0 || mpz_cmp(u, c1) != 0;
				/* the scalar Fp2 takes reduced inputs: reduce them by GMP */
				cz_fp2 ra, rb;
				mpz_mod(x0, x0, p), mpz_mod(x1, x1, p), mpz_mod(y0, y0, p), mpz_mod(y1, y1, p);
				set(&ra.c0, x0), set(&ra.c1, x1), set(&rb.c0, y0), set(&rb.c1, y1);
				if (sq)
					cz_fp2_sqr(&s, &ra);
				else
					cz_fp2_mul(&s, &ra, &rb);
				bad_s += memcmp(&s, &r[k], sizeof(s)) != 0;
			}
		}
		mpz_clears(x0, x1, y0, y1, c0, c1, NULL);
		ct_ok(bad_g == 0, "fp2 mul/sqr, components < %s: every lane equals GMP, reduced (%d bad)",
		      lazy ? "2p" : "p", bad_g);
		ct_ok(bad_s == 0, "fp2 mul/sqr, components < %s: every lane equals the scalar cz_fp2_mul/sqr of the reduced inputs (%d bad)",
		      lazy ? "2p" : "p", bad_s);
	}

	mpz_clears(p, Rinv, two_p, four_p, t, u, v, w, NULL);
	return ct_exit();
}

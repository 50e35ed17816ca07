/* SPDX-License-Identifier: MIT */
/* Description: the AVX-512 IFMA vector Fp and Fp2 (zk/msm/fp_ifma.h) of BLS12-381 and BN254, on 8 (zmm) and 4 (ymm) lanes, and the AVX2 one (4 lanes, 29-bit limbs): every lane against GMP and against the scalar path, on random values, edges and the lazy ranges. */
/*
 * One run of the same 14 checks per (curve, lane count).  Elements are
 * handled as plain limb arrays of the curve's size (6 or 4 64-bit limbs),
 * so the checks are written once; the oracle is GMP with the moduli typed
 * in here from the curves' specifications, and the scalar field code for
 * the bit-for-bit comparisons.
 */
#include "selftests/cz_test.h"
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fp2.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"
#include "zk/msm/fp_ifma.h"

#include <gmp.h>
#include <string.h>

#define ROUNDS 400
#define NCHECK 14
#define MAXL 6 /* 64-bit limbs, the larger curve */

static void bls_mul(void *r, const void *a, const void *b) { cz_fp_mul(r, a, b); }
static void bls_fp2_mul(void *r, const void *a, const void *b) { cz_fp2_mul(r, a, b); }
static void bls_fp2_sqr(void *r, const void *a) { cz_fp2_sqr(r, a); }
static void bn_mul(void *r, const void *a, const void *b) { cz_bn254_fp_mul(r, a, b); }
static void bn_fp2_mul(void *r, const void *a, const void *b) { cz_bn254_fp2_mul(r, a, b); }
static void bn_fp2_sqr(void *r, const void *a) { cz_bn254_fp2_sqr(r, a); }

/* p from each curve's specification, not from the library's constants. */
static const struct curve {
	const char *name, *p_hex;
	int limbs;
	const struct cz_fpv_ops *ops[3]; /* IFMA 8 lanes, IFMA 4 lanes, AVX2 */
	void (*smul)(void *r, const void *a, const void *b);
	void (*fp2_mul)(void *r, const void *a, const void *b);
	void (*fp2_sqr)(void *r, const void *a);
} curves[] = {
	{ "bls12-381",
	  "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
	  6, { &cz_fpv_bls12_381_8, &cz_fpv_bls12_381_4, &cz_fpv_bls12_381_avx2 }, bls_mul, bls_fp2_mul, bls_fp2_sqr },
	{ "bn254", "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
	  4, { &cz_fpv_bn254_8, &cz_fpv_bn254_4, &cz_fpv_bn254_avx2 }, bn_mul, bn_fp2_mul, bn_fp2_sqr },
};

static const struct curve *cv;
static const struct cz_fpv_ops *ops;
#define KIND (ops->avx2 ? " (AVX2, 29-bit limbs)" : "")
static int L;              /* limbs of the current curve */
static mpz_t p, W, Rinv, two_p, four_p, eight_p;
static unsigned long head; /* floor(W / p) */
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	return ct_splitmix64(&rng);
}


/* Element k of an array of L-limb elements. */
static uint64_t *at(uint64_t *base, int k)
{
	return base + (size_t)k * (size_t)L;
}

static void get(mpz_t z, const uint64_t *a)
{
	mpz_import(z, (size_t)L, -1, 8, 0, 0, a);
}

static void set(uint64_t *a, const mpz_t z)
{
	memset(a, 0, 8 * (size_t)L);
	mpz_export(a, NULL, -1, 8, 0, 0, z);
}

static void mpz_min(mpz_t r, const mpz_t a, const mpz_t b)
{
	mpz_set(r, mpz_cmp(a, b) < 0 ? a : b);
}

/* Uniform in [0, bound), bound <= W. */
static void rand_below(uint64_t *a, const mpz_t bound)
{
	mpz_t z;
	mpz_init(z);
	size_t bits = mpz_sizeinbase(bound, 2);
	do {
		for (int i = 0; i < L; i++)
			a[i] = rnd();
		if (bits < 64 * (size_t)L)
			a[L - 1] >>= 64 * (size_t)L - bits;
		get(z, a);
	} while (mpz_cmp(z, bound) >= 0);
	mpz_clear(z);
}

/* Edge values: 0, 1, R mod p (the element 1), p-1, p, p+1, and the top of
 * the lazy range (bound - 1); each capped below the bound. */
#define NEDGE 7
static void edge(uint64_t *a, int i, const mpz_t bound)
{
	mpz_t z;
	mpz_init(z);
	switch (i) {
	case 0: mpz_set_ui(z, 0); break;
	case 1: mpz_set_ui(z, 1); break;
	case 2: mpz_mod(z, W, p); break;
	case 3: mpz_sub_ui(z, p, 1); break;
	case 4: mpz_set(z, p); break;
	case 5: mpz_add_ui(z, p, 1); break;
	default: mpz_sub_ui(z, bound, 1); break;
	}
	if (mpz_cmp(z, bound) >= 0)
		mpz_sub_ui(z, bound, 1);
	set(a, z);
	mpz_clear(z);
}

/* Lane inputs for round r: random below the bounds; the first NEDGE^2
 * rounds cover all pairs of edges in all lanes; then every 4th round all
 * lanes equal, every other even one an edge in one lane. */
static void fill(uint64_t *a, uint64_t *b, int r, const mpz_t ba, const mpz_t bb)
{
	for (int k = 0; k < 8; k++) {
		rand_below(at(a, k), ba);
		rand_below(at(b, k), bb);
	}
	if (r < NEDGE * NEDGE) {
		for (int k = 0; k < 8; k++) {
			edge(at(a, k), (r + k) % NEDGE, ba);
			edge(at(b, k), (r / NEDGE + 3 * k) % NEDGE, bb);
		}
	} else if (r % 4 == 0) {
		for (int k = 1; k < 8; k++) {
			memcpy(at(a, k), at(a, 0), 8 * (size_t)L);
			memcpy(at(b, k), at(b, 0), 8 * (size_t)L);
		}
	} else if (r % 2 == 0) {
		int k = (int)(rnd() % 8);
		edge(at(a, k), (int)(rnd() % NEDGE), ba);
		edge(at(b, k), (int)(rnd() % NEDGE), bb);
	}
}

/* r = a·b/R mod p and r < bound, every lane. */
static int check_mul(uint64_t *r, uint64_t *a, uint64_t *b, const mpz_t bound)
{
	mpz_t x, y, w, g;
	int bad = 0;
	mpz_inits(x, y, w, g, NULL);
	for (int k = 0; k < 8; k++) {
		get(x, at(a, k)), get(y, at(b, k)), get(g, at(r, k));
		mpz_mul(w, x, y), mpz_mul(w, w, Rinv), mpz_mod(w, w, p);
		bad += mpz_cmp(g, bound) >= 0;
		mpz_mod(g, g, p);
		bad += mpz_cmp(g, w) != 0;
	}
	mpz_clears(x, y, w, g, NULL);
	return bad;
}

static void t_mul(const char *what, const mpz_t ba, const mpz_t bb, int sqr)
{
	uint64_t a[8 * MAXL], b[8 * MAXL], r[8 * MAXL];
	int bad = 0;
	for (int i = 0; i < ROUNDS; i++) {
		fill(a, b, i, ba, bb);
		if (sqr) {
			ops->sqr8(r, a);
			bad += check_mul(r, a, a, two_p);
		} else {
			ops->mul8(r, a, b);
			bad += check_mul(r, a, b, two_p);
		}
	}
	ct_ok(bad == 0, "%s/%u lanes%s: %s: %d rounds x 8 elements equal a*b/R mod p (GMP) and stay < 2p (%d bad)",
	      cv->name, ops->lanes, KIND, what, ROUNDS, bad);
}

static void run(void)
{
	mpz_t t, u, v, w, bnd;
	mpz_inits(t, u, v, w, bnd, NULL);
	mpz_set_str(p, cv->p_hex, 16);
	mpz_set_ui(W, 0);
	mpz_setbit(W, 64 * (mp_bitcnt_t)L);
	mpz_invert(Rinv, W, p);
	mpz_mul_2exp(two_p, p, 1);
	mpz_mul_2exp(four_p, p, 2);
	mpz_mul_2exp(eight_p, p, 3);
	mpz_fdiv_q(t, W, p);
	head = mpz_get_ui(t);

	/* 1-4: mul and sqr, reduced and lazy inputs; a < 2p, b < 4p needs
	 * 8p^2 < p·W (head >= 8: BLS12-381), else a < p, b < 4p (BN254, head 5:
	 * the flush's x·3x is of this kind) */
	t_mul("mul, a, b < p", p, p, 0);
	t_mul("mul, a, b < 2p (lazy)", two_p, two_p, 0);
	if (head >= 8)
		t_mul("mul, a < 2p, b < 4p (lazy)", two_p, four_p, 0);
	else
		t_mul("mul, a < p, b < 4p (lazy)", p, four_p, 0);
	t_mul("sqr, a < 2p (lazy)", two_p, two_p, 1);

	/* 5: against the scalar path: canonical inputs, canon(vector) == scalar mul */
	{
		uint64_t a[8 * MAXL], b[8 * MAXL], r[8 * MAXL], c[8 * MAXL], s[MAXL];
		int bad = 0;
		for (int i = 0; i < ROUNDS; i++) {
			fill(a, b, i, p, p);
			ops->mul8(r, a, b);
			ops->canon8(c, r);
			for (int k = 0; k < 8; k++) {
				cv->smul(s, at(a, k), at(b, k));
				bad += memcmp(s, at(c, k), 8 * (size_t)L) != 0;
			}
		}
		ct_ok(bad == 0, "%s/%u lanes%s: mul: every lane equals the scalar path bit for bit after reduction (%d bad)",
		      cv->name, ops->lanes, KIND, bad);
	}

	/* 6-8: add, sub, canon as exact integers, within W */
	{
		uint64_t a[8 * MAXL], b[8 * MAXL], r[8 * MAXL];
		int bad_add = 0, bad_sub = 0, bad_can = 0;
		mpz_t ba, bs, bc;
		mpz_inits(ba, bs, bc, NULL);
		mpz_fdiv_q_2exp(t, W, 1);
		mpz_min(ba, four_p, t);            /* a + b < W */
		mpz_sub(t, W, two_p);
		mpz_min(bs, four_p, t);            /* a + 2p < W */
		mpz_min(bc, eight_p, W);
		for (int i = 0; i < ROUNDS; i++) {
			fill(a, b, i, ba, ba);
			ops->add8(r, a, b);
			for (int k = 0; k < 8; k++) {
				get(t, at(a, k)), get(u, at(b, k)), get(v, at(r, k));
				mpz_add(w, t, u);
				bad_add += mpz_cmp(v, w) != 0;
			}
			mpz_add_ui(bnd, two_p, 1);
			fill(a, b, i, bs, bnd);    /* b <= 2p: the edge bound-1 is 2p itself */
			ops->sub8(r, a, b);
			for (int k = 0; k < 8; k++) {
				get(t, at(a, k)), get(u, at(b, k)), get(v, at(r, k));
				mpz_add(w, t, two_p), mpz_sub(w, w, u);
				bad_sub += mpz_cmp(v, w) != 0;
			}
			fill(a, b, i, bc, bc);
			ops->canon8(r, a);
			for (int k = 0; k < 8; k++) {
				get(t, at(a, k)), get(v, at(r, k));
				mpz_mod(w, t, p);
				bad_can += mpz_cmp(v, w) != 0;
			}
		}
		ct_ok(bad_add == 0, "%s/%u lanes%s: add: a + b exactly, a, b < min(4p, W/2) (%d bad)",
		      cv->name, ops->lanes, KIND, bad_add);
		ct_ok(bad_sub == 0, "%s/%u lanes%s: sub: a + 2p - b exactly, a < min(4p, W-2p), b <= 2p (%d bad)",
		      cv->name, ops->lanes, KIND, bad_sub);
		ct_ok(bad_can == 0, "%s/%u lanes%s: canon: a mod p for a < min(8p, W), edges p-1, p, p+1, top (%d bad)",
		      cv->name, ops->lanes, KIND, bad_can);
		mpz_clears(ba, bs, bc, NULL);
	}

	/* 9: the conversion round trip (64-bit -> 52-bit limbs -> 64-bit) via a
	 * multiplication by R mod p (x·R/R = x): every bit position survives. */
	{
		uint64_t a[8 * MAXL], one[8 * MAXL], r[8 * MAXL];
		int bad = 0, pbits = (int)mpz_sizeinbase(p, 2);
		mpz_mod(t, W, p);
		for (int k = 0; k < 8; k++)
			set(at(one, k), t);
		for (int i = 0; i < ROUNDS; i++) {
			for (int k = 0; k < 8; k++) {
				memset(at(a, k), 0, 8 * (size_t)L);
				int bit = (i * 8 + k) % pbits;
				at(a, k)[bit / 64] = 1ull << (bit % 64);
				if (i % 2)
					rand_below(at(a, k), p);
			}
			ops->mul8(r, a, one);
			ops->canon8(r, r);
			for (int k = 0; k < 8; k++) {
				get(t, at(a, k)), mpz_mod(t, t, p), get(v, at(r, k));
				bad += mpz_cmp(t, v) != 0;
			}
		}
		ct_ok(bad == 0, "%s/%u lanes%s: every bit position converts in and out (x*R/R = x, %d bad)",
		      cv->name, ops->lanes, KIND, bad);
	}

	/* 10: a chain of 1000 products per lane equals the scalar chain */
	{
		uint64_t x[8 * MAXL], y[8 * MAXL], s[8 * MAXL];
		int bad = 0;
		for (int k = 0; k < 8; k++) {
			rand_below(at(x, k), p), rand_below(at(y, k), p);
			memcpy(at(s, k), at(x, k), 8 * (size_t)L);
		}
		ops->mul_chain(x, y, 1000);
		for (int k = 0; k < 8; k++) {
			for (int i = 0; i < 1000; i++)
				cv->smul(at(s, k), at(s, k), at(y, k));
			bad += memcmp(at(s, k), at(x, k), 8 * (size_t)L) != 0;
		}
		ct_ok(bad == 0, "%s/%u lanes%s: 1000-step product chains (lazy throughout) equal the scalar chains (%d bad)",
		      cv->name, ops->lanes, KIND, bad);
	}

	/* 11-14: Fp2, against GMP and the scalar Fp2, reduced and lazy inputs */
	for (int lazy = 0; lazy < 2; lazy++) {
		uint64_t a[16 * MAXL], b[16 * MAXL], r[16 * MAXL], s[2 * MAXL];
		uint64_t a0[8 * MAXL], a1[8 * MAXL], b0[8 * MAXL], b1[8 * MAXL];
		int bad_g = 0, bad_s = 0;
		mpz_t x0, x1, y0, y1, c0, c1;
		mpz_inits(x0, x1, y0, y1, c0, c1, NULL);
		const mpz_t *bd = lazy ? &two_p : &p;
		for (int i = 0; i < ROUNDS; i++) {
			fill(a0, b0, i, *bd, *bd);
			fill(a1, b1, i / 3 + 5, *bd, *bd);
			for (int k = 0; k < 8; k++) { /* element k: c0 at 2k, c1 at 2k+1 */
				memcpy(at(a, 2 * k), at(a0, k), 8 * (size_t)L);
				memcpy(at(a, 2 * k + 1), at(a1, k), 8 * (size_t)L);
				memcpy(at(b, 2 * k), at(b0, k), 8 * (size_t)L);
				memcpy(at(b, 2 * k + 1), at(b1, k), 8 * (size_t)L);
			}
			int sq = i % 2;
			if (sq)
				ops->fp2_sqr8(r, a);
			else
				ops->fp2_mul8(r, a, b);
			for (int k = 0; k < 8; k++) {
				uint64_t *bb = sq ? a : b;
				get(x0, at(a, 2 * k)), get(x1, at(a, 2 * k + 1));
				get(y0, at(bb, 2 * k)), get(y1, at(bb, 2 * k + 1));
				mpz_mul(c0, x0, y0), mpz_submul(c0, x1, y1);
				mpz_mul(c1, x0, y1), mpz_addmul(c1, x1, y0);
				mpz_mul(c0, c0, Rinv), mpz_mod(c0, c0, p);
				mpz_mul(c1, c1, Rinv), mpz_mod(c1, c1, p);
				get(t, at(r, 2 * k)), get(u, at(r, 2 * k + 1));
				bad_g += mpz_cmp(t, c0) != 0 || mpz_cmp(u, c1) != 0;
				/* the scalar Fp2 takes reduced inputs: reduce them by GMP */
				uint64_t ra[2 * MAXL], rb[2 * MAXL];
				mpz_mod(x0, x0, p), mpz_mod(x1, x1, p), mpz_mod(y0, y0, p), mpz_mod(y1, y1, p);
				set(ra, x0), set(ra + L, x1), set(rb, y0), set(rb + L, y1);
				if (sq)
					cv->fp2_sqr(s, ra);
				else
					cv->fp2_mul(s, ra, rb);
				bad_s += memcmp(s, at(r, 2 * k), 16 * (size_t)L) != 0;
			}
		}
		mpz_clears(x0, x1, y0, y1, c0, c1, NULL);
		ct_ok(bad_g == 0, "%s/%u lanes%s: fp2 mul/sqr, components < %s: every lane equals GMP, reduced (%d bad)",
		      cv->name, ops->lanes, KIND, lazy ? "2p" : "p", bad_g);
		ct_ok(bad_s == 0, "%s/%u lanes%s: fp2 mul/sqr, components < %s: every lane equals the scalar fp2 mul/sqr of the reduced inputs (%d bad)",
		      cv->name, ops->lanes, KIND, lazy ? "2p" : "p", bad_s);
	}
	mpz_clears(t, u, v, w, bnd, NULL);
}

int main(void)
{
	const int ncurves = (int)(sizeof(curves) / sizeof(curves[0]));

	ct_plan(ncurves * 3 * NCHECK);
	mpz_inits(p, W, Rinv, two_p, four_p, eight_p, NULL);
	for (int c = 0; c < ncurves; c++)
		for (int w = 0; w < 3; w++) {
			cv = &curves[c];
			ops = cv->ops[w];
			L = cv->limbs;
			unsigned lanes = w == 0 ? 8 : 4;
			if (!cz_fpv_usable(ops) || ops->lanes != lanes || ops->avx2 != (w == 2)) {
				for (int i = 0; i < NCHECK; i++)
					ct_skip(w == 2	 ? "this CPU has no AVX2"
						: w == 1 ? "this CPU has no AVX-512 IFMA with AVX-512VL"
							 : "this CPU has no AVX-512 IFMA",
						"%s/%u lanes%s: vector Fp point %d", cv->name, lanes,
						w == 2 ? " (AVX2, 29-bit limbs)" : "", i + 1);
				continue;
			}
			if ((int)ops->limbs != L)
				ct_diag("%s: instance has %u limbs, expected %d", cv->name, ops->limbs, L);
			run();
		}
	mpz_clears(p, W, Rinv, two_p, four_p, eight_p, NULL);
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * selftests/zk_field_check.h — the checks every prime field passes, against
 * GMP as the oracle.  Included by selftests/zk_fp.c and zk_fr.c after they
 * define:
 *   FT          element type (cz_fp)          FT_PFX   name prefix (cz_fp)
 *   FT_LIMBS    limb count                    FT_BYTES encoded bytes
 *   FT_MOD_HEX  the modulus in hex, from the curve's specification (not the
 *               library's constants)
 *
 * The only bridge between GMP and the library is the "le_mont" byte
 * encoding, a plain copy of the limbs: an element's Montgomery residue M is
 * read with to_bytes_le_mont and turned into M·R^-1 mod m by GMP, so every
 * arithmetic check depends on no other library conversion.
 *
 * field_checks() emits FIELD_CHECKS test points; the program runs it once per
 * multiplication path.
 */
#ifndef ZK_FIELD_CHECK_H
#define ZK_FIELD_CHECK_H

#include "selftests/cz_test.h"
#include "zk/field/fp.h" /* cz_fp_have_adx, cz_field_force_portable: all fields */
#include "zk/field/field_inline.h" /* the _inl forms of every operation */

#include <gmp.h>
#include <stdint.h>
#include <string.h>

#define FC_CAT2(a, b) a##_##b
#define FC_CAT(a, b) FC_CAT2(a, b)
#define FT_F(name) FC_CAT(FT_PFX, name)

#define FIELD_CHECKS 31
#define NRAND 2000

static mpz_t fc_m, fc_R, fc_Rinv, fc_half;
static uint64_t fc_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t fc_rand64(void)
{
	return ct_splitmix64(&fc_rng);
}

static void fc_init(void)
{
	mpz_inits(fc_m, fc_R, fc_Rinv, fc_half, NULL);
	mpz_set_str(fc_m, FT_MOD_HEX, 16);
	mpz_setbit(fc_R, 64 * FT_LIMBS);
	mpz_mod(fc_R, fc_R, fc_m);
	mpz_invert(fc_Rinv, fc_R, fc_m);
	mpz_sub_ui(fc_half, fc_m, 1);
	mpz_fdiv_q_2exp(fc_half, fc_half, 1);
}

/* GMP value of an element: M·R^-1 mod m. */
static void fc_get(mpz_t z, const FT *a)
{
	uint8_t b[FT_BYTES];
	FT_F(to_bytes_le_mont)(b, a);
	mpz_import(z, FT_BYTES, -1, 1, 0, 0, b);
	mpz_mul(z, z, fc_Rinv);
	mpz_mod(z, z, fc_m);
}

/* z (reduced) into an element: M = z·R mod m, stored as le_mont bytes. */
static void fc_set(FT *a, const mpz_t z)
{
	uint8_t b[FT_BYTES] = { 0 };
	mpz_t t;
	mpz_init(t);
	mpz_mul(t, z, fc_R);
	mpz_mod(t, t, fc_m);
	mpz_export(b, NULL, -1, 1, 0, 0, t);
	if (!FT_F(from_bytes_le_mont)(a, b))
		abort();
	mpz_clear(t);
}

/* The i-th test value: a few edge values first, then random ones (some with
 * runs of all-ones or all-zero limbs before reduction). */
#define NEDGE 12
static void fc_value(mpz_t z, int i)
{
	switch (i) {
	case 0: mpz_set_ui(z, 0); return;
	case 1: mpz_set_ui(z, 1); return;
	case 2: mpz_set_ui(z, 2); return;
	case 3: mpz_sub_ui(z, fc_m, 1); return;
	case 4: mpz_sub_ui(z, fc_m, 2); return;
	case 5: mpz_set(z, fc_half); return;
	case 6: mpz_add_ui(z, fc_half, 1); return;
	case 7: mpz_set_ui(z, UINT64_MAX); return;
	case 8: mpz_set(z, fc_R); return;              /* R mod m */
	case 9: mpz_set(z, fc_Rinv); return;
	case 10: mpz_set_ui(z, 0); mpz_setbit(z, 64 * FT_LIMBS - 2); mpz_mod(z, z, fc_m); return;
	case 11: mpz_sub_ui(z, fc_m, 3); return;
	}
	uint64_t l[FT_LIMBS];
	unsigned style = (unsigned)fc_rand64() % 8;
	for (int j = 0; j < FT_LIMBS; j++) {
		l[j] = fc_rand64();
		if (style == 0 && (fc_rand64() & 1))
			l[j] = UINT64_MAX;
		if (style == 1 && (fc_rand64() & 1))
			l[j] = 0;
	}
	mpz_import(z, FT_LIMBS, -1, 8, 0, 0, l);
	mpz_mod(z, z, fc_m);
}

static int fc_eq(const FT *a, const mpz_t want)
{
	mpz_t got;
	mpz_init(got);
	fc_get(got, a);
	int ok = mpz_cmp(got, want) == 0;
	mpz_clear(got);
	return ok;
}

/* Binary operations and unary ones, each its own test point. */
static void fc_arith(const char *path)
{
	mpz_t x, y, w, t;
	FT a, b, r;
	int bad[8] = { 0 };
	mpz_inits(x, y, w, t, NULL);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i % (NEDGE + 40) < NEDGE ? i % (NEDGE + 40) : NEDGE);
		fc_value(y, (i / 7) % 3 == 0 ? i / 7 % NEDGE : NEDGE);
		fc_set(&a, x);
		fc_set(&b, y);
		FT_F(add)(&r, &a, &b);
		mpz_add(w, x, y), mpz_mod(w, w, fc_m);
		bad[0] += !fc_eq(&r, w);
		FT_F(sub)(&r, &a, &b);
		mpz_sub(w, x, y), mpz_mod(w, w, fc_m);
		bad[1] += !fc_eq(&r, w);
		FT_F(dbl)(&r, &a);
		mpz_mul_2exp(w, x, 1), mpz_mod(w, w, fc_m);
		bad[2] += !fc_eq(&r, w);
		FT_F(neg)(&r, &a);
		mpz_neg(w, x), mpz_mod(w, w, fc_m);
		bad[3] += !fc_eq(&r, w);
		FT_F(mul)(&r, &a, &b);
		mpz_mul(w, x, y), mpz_mod(w, w, fc_m);
		bad[4] += !fc_eq(&r, w);
		FT_F(sqr)(&r, &a);
		mpz_mul(w, x, x), mpz_mod(w, w, fc_m);
		bad[5] += !fc_eq(&r, w);
		/* aliasing: r = a op r */
		r = b;
		FT_F(mul)(&r, &a, &r);
		mpz_mul(w, x, y), mpz_mod(w, w, fc_m);
		bad[6] += !fc_eq(&r, w);
		r = a;
		FT_F(sub)(&r, &r, &b);
		mpz_sub(w, x, y), mpz_mod(w, w, fc_m);
		bad[6] += !fc_eq(&r, w);
		/* predicates */
		bad[7] += FT_F(is_zero)(&a) != (mpz_sgn(x) == 0);
		bad[7] += FT_F(eq)(&a, &b) != (mpz_cmp(x, y) == 0);
		bad[7] += FT_F(eq)(&a, &a) != 1;
	}
	ct_ok(!bad[0], "%s: add matches GMP on %d pairs (%d bad)", path, NRAND, bad[0]);
	ct_ok(!bad[1], "%s: sub matches GMP (%d bad)", path, bad[1]);
	ct_ok(!bad[2], "%s: dbl matches GMP (%d bad)", path, bad[2]);
	ct_ok(!bad[3], "%s: neg matches GMP, neg(0) = 0 (%d bad)", path, bad[3]);
	ct_ok(!bad[4], "%s: mul matches GMP (%d bad)", path, bad[4]);
	ct_ok(!bad[5], "%s: sqr matches GMP (%d bad)", path, bad[5]);
	ct_ok(!bad[6], "%s: mul/sub with the output aliasing an input (%d bad)", path, bad[6]);
	ct_ok(!bad[7], "%s: is_zero and eq agree with GMP (%d bad)", path, bad[7]);
	mpz_clears(x, y, w, t, NULL);
}

/* The inlinable forms (zk/field/field_inline.h) against GMP, including every
 * output/input aliasing pattern a formula uses (r = a op r, r = r op r). */
static void fc_inline(const char *path)
{
	mpz_t x, y, w;
	FT a, b, r;
	int bad[6] = { 0 }, badal = 0;
	mpz_inits(x, y, w, NULL);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i % (NEDGE + 40) < NEDGE ? i % (NEDGE + 40) : NEDGE);
		fc_value(y, (i / 5) % 3 == 0 ? i / 5 % NEDGE : NEDGE);
		fc_set(&a, x);
		fc_set(&b, y);
		FT_F(add_inl)(&r, &a, &b);
		mpz_add(w, x, y), mpz_mod(w, w, fc_m);
		bad[0] += !fc_eq(&r, w);
		r = b, FT_F(add_inl)(&r, &a, &r);
		badal += !fc_eq(&r, w);
		FT_F(sub_inl)(&r, &a, &b);
		mpz_sub(w, x, y), mpz_mod(w, w, fc_m);
		bad[1] += !fc_eq(&r, w);
		r = b, FT_F(sub_inl)(&r, &a, &r);
		badal += !fc_eq(&r, w);
		r = a, FT_F(sub_inl)(&r, &r, &b);
		badal += !fc_eq(&r, w);
		r = a, FT_F(sub_inl)(&r, &r, &r);
		badal += !fc_eq(&r, (mpz_set_ui(w, 0), w));
		FT_F(dbl_inl)(&r, &a);
		mpz_mul_2exp(w, x, 1), mpz_mod(w, w, fc_m);
		bad[2] += !fc_eq(&r, w);
		r = a, FT_F(dbl_inl)(&r, &r);
		badal += !fc_eq(&r, w);
		FT_F(neg_inl)(&r, &a);
		mpz_neg(w, x), mpz_mod(w, w, fc_m);
		bad[3] += !fc_eq(&r, w);
		r = a, FT_F(neg_inl)(&r, &r);
		badal += !fc_eq(&r, w);
		FT_F(mul_inl)(&r, &a, &b);
		mpz_mul(w, x, y), mpz_mod(w, w, fc_m);
		bad[4] += !fc_eq(&r, w);
		r = b, FT_F(mul_inl)(&r, &a, &r);
		badal += !fc_eq(&r, w);
		FT_F(sqr_inl)(&r, &a);
		mpz_mul(w, x, x), mpz_mod(w, w, fc_m);
		bad[5] += !fc_eq(&r, w);
		r = a, FT_F(sqr_inl)(&r, &r);
		badal += !fc_eq(&r, w);
	}
	ct_ok(!bad[0] && !bad[1] && !bad[2] && !bad[3] && !bad[4] && !bad[5],
	      "%s: inline add/sub/dbl/neg/mul/sqr match GMP on %d pairs (bad %d %d %d %d %d %d)",
	      path, NRAND, bad[0], bad[1], bad[2], bad[3], bad[4], bad[5]);
	ct_ok(!badal, "%s: inline ops with the output aliasing inputs (%d bad)", path, badal);
	mpz_clears(x, y, w, NULL);
}

/* Lazy reduction: the wide product of the residues, redc and wide_sub. */
static void fc_wide(const char *path)
{
	mpz_t x, y, w, t, mR;
	FT a, b, r;
	FC_CAT(FT_PFX, wide) p, q, d;
	uint64_t l[2 * FT_LIMBS];
	int bad[3] = { 0 };
	mpz_inits(x, y, w, t, mR, NULL);
	mpz_set_ui(mR, 0), mpz_setbit(mR, 64 * FT_LIMBS), mpz_mul(mR, mR, fc_m);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_value(y, i < NEDGE ? NEDGE - 1 - i : NEDGE);
		fc_set(&a, x);
		fc_set(&b, y);
		/* mul_wide: the product of the Montgomery residues as integers */
		FT_F(mul_wide)(&p, &a, &b);
		mpz_mul(w, x, fc_R), mpz_mod(w, w, fc_m);
		mpz_mul(t, y, fc_R), mpz_mod(t, t, fc_m);
		mpz_mul(w, w, t);
		memset(l, 0, sizeof(l));
		mpz_export(l, NULL, -1, 8, 0, 0, w);
		bad[0] += memcmp(l, p.l, sizeof(l)) != 0;
		/* redc of that is the Montgomery product */
		FT_F(redc)(&r, &p);
		mpz_mul(w, x, y), mpz_mod(w, w, fc_m);
		bad[1] += !fc_eq(&r, w);
		/* redc of any t < m·R, including m·R - 1: t·R^-1 mod m */
		for (int j = 0; j < 2 * FT_LIMBS; j++)
			l[j] = fc_rand64();
		mpz_import(t, 2 * FT_LIMBS, -1, 8, 0, 0, l);
		mpz_mod(t, t, mR);
		if (i == 0)
			mpz_sub_ui(t, mR, 1);
		if (i == 1)
			mpz_set_ui(t, 0);
		memset(q.l, 0, sizeof(q.l));
		mpz_export(q.l, NULL, -1, 8, 0, 0, t);
		FT_F(redc)(&r, &q);
		mpz_mul(w, t, fc_Rinv), mpz_mod(w, w, fc_m);
		mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m); /* r's value is M·R^-1 */
		bad[1] += !fc_eq(&r, w);
		/* wide_sub: p - q mod m·R, in [0, m·R) */
		FT_F(wide_sub)(&d, &p, &q);
		mpz_import(w, 2 * FT_LIMBS, -1, 8, 0, 0, p.l);
		mpz_sub(w, w, t), mpz_mod(w, w, mR);
		memset(l, 0, sizeof(l));
		mpz_export(l, NULL, -1, 8, 0, 0, w);
		bad[2] += memcmp(l, d.l, sizeof(l)) != 0;
		FT_F(wide_sub)(&d, &q, &p);
		mpz_neg(w, w), mpz_mod(w, w, mR);
		memset(l, 0, sizeof(l));
		mpz_export(l, NULL, -1, 8, 0, 0, w);
		bad[2] += memcmp(l, d.l, sizeof(l)) != 0;
		/* wide_add: p + q mod m·R (q near m·R for i == 0) */
		FT_F(wide_add)(&d, &p, &q);
		mpz_import(w, 2 * FT_LIMBS, -1, 8, 0, 0, p.l);
		mpz_add(w, w, t), mpz_mod(w, w, mR);
		memset(l, 0, sizeof(l));
		mpz_export(l, NULL, -1, 8, 0, 0, w);
		bad[2] += memcmp(l, d.l, sizeof(l)) != 0;
	}
	ct_ok(!bad[0], "%s: mul_wide = the 2N-limb product of the residues (GMP) (%d bad)", path,
	      bad[0]);
	ct_ok(!bad[1], "%s: redc(t) = t/R mod m for products and any t < m*R (%d bad)", path,
	      bad[1]);
	ct_ok(!bad[2], "%s: wide_sub, wide_add = a -/+ b mod m*R (%d bad)", path, bad[2]);
	mpz_clears(x, y, w, t, mR, NULL);
}

static void fc_inverse(const char *path)
{
	mpz_t x, w;
	FT a, r;
	int bad[5] = { 0 };
	int n = NRAND / 2;
	mpz_inits(x, w, NULL);
	for (int i = 0; i < n; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_set(&a, x);
		if (mpz_sgn(x))
			mpz_invert(w, x, fc_m);
		else
			mpz_set_ui(w, 0);
		FT_F(inv)(&r, &a);
		bad[0] += !fc_eq(&r, w);
		FT_F(inv_vartime)(&r, &a);
		bad[1] += !fc_eq(&r, w);
		r = a;
		FT_F(inv_vartime)(&r, &r);
		bad[1] += !fc_eq(&r, w);
	}
	ct_ok(!bad[0], "%s: inv matches GMP on %d values, inv(0) = 0 (%d bad)", path, n, bad[0]);
	ct_ok(!bad[1], "%s: inv_vartime matches GMP, inv_vartime(0) = 0 (%d bad)", path, bad[1]);

	/* inv_vartime's approximated binary GCD on structured values (powers of
	 * two, 2^k - 1, m - 2^k, small numbers) and many random ones; it must
	 * never need its Fermat fallback. */
	unsigned long fb0 = cz_field_inv_fallback_count();
	int nv = 0;
	for (int i = 0; i < 20000; i++) {
		int k = i % (64 * FT_LIMBS);
		switch (i / (64 * FT_LIMBS)) {
		case 0: mpz_set_ui(x, 0), mpz_setbit(x, (mp_bitcnt_t)k); break;
		case 1: mpz_set_ui(x, 0), mpz_setbit(x, (mp_bitcnt_t)k + 1), mpz_sub_ui(x, x, 1); break;
		case 2: mpz_set_ui(w, 0), mpz_setbit(w, (mp_bitcnt_t)k), mpz_sub(x, fc_m, w); break;
		case 3: mpz_set_ui(x, (unsigned long)k + 1); break;
		default: fc_value(x, NEDGE);
		}
		mpz_mod(x, x, fc_m);
		if (!mpz_sgn(x))
			continue;
		fc_set(&a, x);
		mpz_invert(w, x, fc_m);
		FT_F(inv_vartime)(&r, &a);
		bad[3] += !fc_eq(&r, w);
		nv++;
	}
	unsigned long fb = cz_field_inv_fallback_count() - fb0;
	ct_ok(!bad[3] && !fb, "%s: inv_vartime on %d structured and random values (%d bad, %lu fallbacks)",
	      path, nv, bad[3], fb);

	/* batch_inv with zeros sprinkled in, out-of-place and in place */
	enum { NB = 257 };
	static FT in[NB], out[NB], scratch[NB];
	static mpz_t want[NB];
	for (int i = 0; i < NB; i++) {
		mpz_init(want[i]);
		fc_value(x, i % 17 == 3 ? 0 : i < NEDGE ? i : NEDGE);
		fc_set(&in[i], x);
		if (mpz_sgn(x))
			mpz_invert(want[i], x, fc_m);
	}
	for (size_t n2 = 0; n2 <= NB; n2 += NB / 4 + (n2 == 0)) {
		FT_F(batch_inv)(out, in, n2, scratch);
		for (size_t i = 0; i < n2; i++)
			bad[2] += !fc_eq(&out[i], want[i]);
	}
	memcpy(out, in, sizeof(in));
	FT_F(batch_inv)(out, out, NB, scratch);
	for (int i = 0; i < NB; i++)
		bad[2] += !fc_eq(&out[i], want[i]);
	for (int i = 0; i < NB; i++)
		mpz_clear(want[i]);
	ct_ok(!bad[2], "%s: batch_inv (zeros kept, in place too) matches GMP (%d bad)", path,
	      bad[2]);
	mpz_clears(x, w, NULL);
}

static void fc_sqrt_legendre(const char *path)
{
	mpz_t x, w;
	FT a, r, s;
	int bad[3] = { 0 }, nsq = 0, nnon = 0;
	int n = NRAND / 2;
	mpz_inits(x, w, NULL);
	for (int i = 0; i < n; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		if (i >= NEDGE && (i & 1)) { /* half of them squares for sure */
			mpz_mul(x, x, x);
			mpz_mod(x, x, fc_m);
		}
		fc_set(&a, x);
		int leg = mpz_sgn(x) ? mpz_legendre(x, fc_m) : 0;
		bad[0] += FT_F(legendre)(&a) != leg;
		r = FT_F(zero);
		bool ok = FT_F(sqrt)(&r, &a);
		if (ok != (leg >= 0)) {
			bad[1]++;
			continue;
		}
		if (!ok) {
			nnon++;
			continue;
		}
		nsq++;
		fc_get(w, &r);
		mpz_mul(w, w, w);
		mpz_mod(w, w, fc_m);
		bad[1] += mpz_cmp(w, x) != 0;
		s = a; /* in place */
		bad[1] += !FT_F(sqrt)(&s, &s) || !FT_F(eq)(&s, &r);
	}
	ct_ok(!bad[0], "%s: legendre matches mpz_legendre on %d values (%d bad)", path, n, bad[0]);
	ct_ok(!bad[1] && nsq > n / 3 && nnon > n / 8,
	      "%s: sqrt: %d roots square back, %d non-residues refused (%d bad)", path, nsq,
	      nnon, bad[1]);
	mpz_clears(x, w, NULL);
}

static void fc_pow(const char *path)
{
	mpz_t x, e, w;
	FT a, r;
	uint64_t el[FT_LIMBS + 2];
	int bad = 0;
	mpz_inits(x, e, w, NULL);
	for (int i = 0; i < 300; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_set(&a, x);
		size_t nl = (size_t)i % (FT_LIMBS + 3);
		for (size_t j = 0; j < nl; j++)
			el[j] = i % 5 == 0 ? (uint64_t)i * 0x10001u : fc_rand64();
		if (i % 11 == 0 && nl)
			el[nl - 1] = 0; /* leading zero limb */
		mpz_import(e, nl, -1, 8, 0, 0, el);
		mpz_powm(w, x, e, fc_m);
		FT_F(pow)(&r, &a, el, nl);
		bad += !fc_eq(&r, w);
	}
	ct_ok(!bad, "%s: pow matches mpz_powm, exponents of 0..%d limbs (%d bad)", path,
	      FT_LIMBS + 2, bad);
	mpz_clears(x, e, w, NULL);
}

static void fc_small(const char *path)
{
	mpz_t x, w;
	FT a;
	int bad[3] = { 0 };
	mpz_inits(x, w, NULL);
	for (int i = 0; i < NRAND; i++) {
		uint64_t v = i < 70 ? (i < 64 ? (uint64_t)1 << i : (uint64_t)i - 64) : fc_rand64();
		if (i == 69)
			v = UINT64_MAX;
		FT_F(from_u64)(&a, v);
		mpz_set_ui(w, v);
		bad[0] += !fc_eq(&a, w);
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_set(&a, x);
		bad[1] += FT_F(is_odd)(&a) != (int)mpz_odd_p(x);
		bad[2] += FT_F(lexicographically_largest)(&a) != (mpz_cmp(x, fc_half) > 0);
	}
	ct_ok(!bad[0], "%s: from_u64 matches GMP (%d bad)", path, bad[0]);
	ct_ok(!bad[1], "%s: is_odd matches GMP (%d bad)", path, bad[1]);
	ct_ok(!bad[2], "%s: lexicographically_largest is y > (m-1)/2 (%d bad)", path, bad[2]);
	FT_F(from_u64)(&a, 1);
	ct_ok(FT_F(eq)(&a, &FT_F(one)) && FT_F(is_zero)(&FT_F(zero)) && FT_F(is_one)(&a),
	      "%s: the zero and one constants", path);
	mpz_clears(x, w, NULL);
}

/* Byte encodings vs GMP's export, and their round trips. */
static void fc_encodings(const char *path)
{
	mpz_t x, w;
	FT a, b;
	uint8_t got[FT_BYTES], want[FT_BYTES];
	uint64_t raw[FT_LIMBS], rawwant[FT_LIMBS];
	int bad[4] = { 0 };
	mpz_inits(x, w, NULL);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_set(&a, x);
		/* le_mont: x·R mod m, little-endian */
		memset(want, 0, sizeof(want));
		mpz_mul(w, x, fc_R), mpz_mod(w, w, fc_m);
		mpz_export(want, NULL, -1, 1, 0, 0, w);
		FT_F(to_bytes_le_mont)(got, &a);
		bad[0] += memcmp(got, want, FT_BYTES) != 0;
		bad[0] += !FT_F(from_bytes_le_mont)(&b, got) || !FT_F(eq)(&a, &b);
		/* le: standard form */
		memset(want, 0, sizeof(want));
		mpz_export(want, NULL, -1, 1, 0, 0, x);
		FT_F(to_bytes_le)(got, &a);
		bad[1] += memcmp(got, want, FT_BYTES) != 0;
		bad[1] += !FT_F(from_bytes_le)(&b, got) || !FT_F(eq)(&a, &b);
		/* be: standard form, big-endian */
		memset(want, 0, sizeof(want));
		size_t cnt = 0;
		mpz_export(want + FT_BYTES - (mpz_sizeinbase(x, 256) * (mpz_sgn(x) != 0)), &cnt, 1,
			   1, 0, 0, x);
		FT_F(to_bytes_be)(got, &a);
		bad[2] += memcmp(got, want, FT_BYTES) != 0;
		bad[2] += !FT_F(from_bytes_be)(&b, got) || !FT_F(eq)(&a, &b);
		/* raw limbs */
		memset(rawwant, 0, sizeof(rawwant));
		mpz_export(rawwant, NULL, -1, 8, 0, 0, x);
		FT_F(from_mont)(raw, &a);
		bad[3] += memcmp(raw, rawwant, sizeof(raw)) != 0;
		bad[3] += !FT_F(to_mont)(&b, raw) || !FT_F(eq)(&a, &b);
	}
	ct_ok(!bad[0], "%s: le_mont bytes = x*R mod m (GMP), round trip (%d bad)", path, bad[0]);
	ct_ok(!bad[1], "%s: le bytes = GMP export, round trip (%d bad)", path, bad[1]);
	ct_ok(!bad[2], "%s: be bytes = GMP export, round trip (%d bad)", path, bad[2]);
	ct_ok(!bad[3], "%s: from_mont/to_mont limbs = GMP, round trip (%d bad)", path, bad[3]);

	/* Non-canonical values: m, m+1, 2m-1, the largest encodable, random >= m. */
	int nrej = 0, badrej = 0;
	for (int i = 0; i < 600; i++) {
		switch (i) {
		case 0: mpz_set(x, fc_m); break;
		case 1: mpz_add_ui(x, fc_m, 1); break;
		case 2: mpz_mul_2exp(x, fc_m, 1), mpz_sub_ui(x, x, 1); break;
		case 3: mpz_set_ui(x, 0), mpz_setbit(x, 8 * FT_BYTES), mpz_sub_ui(x, x, 1); break;
		case 4: mpz_set_ui(x, 0), mpz_setbit(x, mpz_sizeinbase(fc_m, 2)); break;
		case 5: mpz_set_ui(x, 0), mpz_setbit(x, mpz_sizeinbase(fc_m, 2)), mpz_sub_ui(x, x, 1); break;
		default: {
			uint8_t rb[FT_BYTES];
			for (int j = 0; j < FT_BYTES; j++)
				rb[j] = (uint8_t)fc_rand64();
			mpz_import(x, FT_BYTES, -1, 1, 0, 0, rb);
			if (i & 1) { /* near m: m + small */
				mpz_fdiv_r_2exp(x, x, 20);
				mpz_add(x, x, fc_m);
			}
			if (mpz_cmp(x, fc_m) < 0)
				continue;
		}
		}
		nrej++;
		memset(want, 0, sizeof(want));
		mpz_export(want, NULL, -1, 1, 0, 0, x);
		badrej += FT_F(from_bytes_le)(&a, want) || FT_F(from_bytes_le_mont)(&a, want);
		uint8_t be[FT_BYTES];
		for (int j = 0; j < FT_BYTES; j++)
			be[j] = want[FT_BYTES - 1 - j];
		badrej += FT_F(from_bytes_be)(&a, be);
		uint64_t rl[FT_LIMBS] = { 0 };
		mpz_export(rl, NULL, -1, 8, 0, 0, x);
		badrej += FT_F(to_mont)(&a, rl);
	}
	ct_ok(!badrej && nrej > 200, "%s: all decoders reject %d values >= m (%d accepted)", path,
	      nrej, badrej);

	/* Decimal. */
	char dec[FT_BYTES * 3 + 8], *gs;
	int baddec = 0;
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_set(&a, x);
		size_t len = FT_F(to_dec)(dec, sizeof(dec), &a);
		gs = mpz_get_str(NULL, 10, x);
		baddec += strcmp(dec, gs) != 0 || len != strlen(gs);
		baddec += !FT_F(from_dec)(&b, gs) || !FT_F(eq)(&a, &b);
		free(gs);
	}
	ct_ok(!baddec, "%s: to_dec = mpz_get_str, from_dec round trip (%d bad)", path, baddec);

	int badin = 0;
	const char *junk[] = { "", "-1", "+1", " 1", "1 ", "12a", "0x10", "1.0", NULL };
	for (int i = 0; junk[i]; i++)
		badin += FT_F(from_dec)(&a, junk[i]);
	badin += FT_F(from_dec)(&a, NULL);
	char big[400];
	gs = mpz_get_str(NULL, 10, fc_m); /* m itself */
	badin += FT_F(from_dec)(&a, gs);
	free(gs);
	mpz_mul_2exp(x, fc_m, 1);
	gs = mpz_get_str(NULL, 10, x);
	badin += FT_F(from_dec)(&a, gs);
	free(gs);
	memset(big, '9', sizeof(big) - 1), big[sizeof(big) - 1] = 0; /* overflows every limb */
	badin += FT_F(from_dec)(&a, big);
	memset(big, '0', sizeof(big) - 1), big[sizeof(big) - 2] = '7'; /* leading zeros: ok */
	badin += !FT_F(from_dec)(&a, big) || !fc_eq(&a, (mpz_set_ui(w, 7), w));
	/* to_dec into a short buffer: full length returned, empty string written */
	fc_value(x, 3);
	fc_set(&a, x);
	size_t full = FT_F(to_dec)(dec, sizeof(dec), &a);
	dec[0] = 'x';
	badin += FT_F(to_dec)(dec, full, &a) != full || dec[0] != 0;
	badin += FT_F(to_dec)(dec, full + 1, &a) != full || strlen(dec) != full;
	ct_ok(!badin, "%s: from_dec rejects junk, signs, spaces, >= m; to_dec honours cap (%d bad)",
	      path, badin);
	mpz_clears(x, w, NULL);
}

static void field_checks(const char *path)
{
	fc_arith(path);        /* 8 */
	fc_inline(path);       /* 2 */
	fc_wide(path);         /* 3 */
	fc_inverse(path);      /* 4 */
	fc_sqrt_legendre(path); /* 2 */
	fc_pow(path);          /* 1 */
	fc_small(path);        /* 4 */
	fc_encodings(path);    /* 7 */
}

/* Runs field_checks under the adx path (or skips it) and the portable one. */
static void field_checks_both_paths(void)
{
	if (cz_fp_have_adx()) {
		cz_field_force_portable(false);
		field_checks("adx");
	} else {
		for (int i = 0; i < FIELD_CHECKS; i++)
			ct_skip("CPU lacks BMI2/ADX", "adx path check %d", i + 1);
	}
	cz_field_force_portable(true);
	field_checks("portable");
	cz_field_force_portable(false);
}

#endif

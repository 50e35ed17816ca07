/* SPDX-License-Identifier: MIT */
/* Description: BLS12-381 G1 formulas, scalar mul, subgroup check and zcash encodings vs a naive affine oracle and published vectors. */
#include "zk/bls12_381_curve.h"
#include "zk/g1.h"

#define T_F cz_fp
#define T_F_ADD cz_fp_add
#define T_F_SUB cz_fp_sub
#define T_F_NEG cz_fp_neg
#define T_F_MUL cz_fp_mul
#define T_F_SQR cz_fp_sqr
#define T_F_INV cz_fp_inv
#define T_F_SQRT cz_fp_sqrt
#define T_F_IS_ZERO cz_fp_is_zero
#define T_F_EQ cz_fp_eq
#define T_F_SMALL cz_fp_from_u64
#define T_F_RAND fp_rand
#define T_SET_B(r) cz_fp_from_u64(r, 4)
#define T_AFF cz_g1_affine
#define T_JAC cz_g1_jac
#define T_XYZZ cz_g1_xyzz
#define T_NAME(n) cz_g1_##n
#define T_GEN cz_g1_generator

static void fp_rand(cz_fp *r);
#include "selftests/zk_curve_test.h"

static void fp_rand(cz_fp *r)
{
	uint64_t raw[CZ_FP_LIMBS];
	for (int i = 0; i < CZ_FP_LIMBS; i++)
		raw[i] = rnd();
	raw[CZ_FP_LIMBS - 1] &= 0x0fffffffffffffffULL; /* < p, whose top limb is 0x1a01... */
	cz_fp_to_mont(r, raw);
}

static void unhex(uint8_t *out, const char *hex, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		out[i] = (uint8_t)v;
	}
}

/* The zcash / IETF published encodings of the generator. */
static const char gen_compressed[] =
	"97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char gen_uncompressed[] =
	"17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
	"08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char p_hex[] =
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

static void t_constants(void)
{
	cz_fp t, u;
	uint8_t b[CZ_FP_BYTES];
	int bad = 0;

	cz_fp_from_u64(&t, 4);
	bad += !cz_fp_eq(&t, &cz_bls12_381_g1_b);
	cz_fp_from_u64(&t, 12);
	bad += !cz_fp_eq(&t, &cz_bls12_381_g1_b3);
	unhex(b, gen_uncompressed, CZ_FP_BYTES);
	bad += !cz_fp_from_bytes_be(&t, b) || !cz_fp_eq(&t, &cz_g1_generator.x);
	unhex(b, gen_uncompressed + 2 * CZ_FP_BYTES, CZ_FP_BYTES);
	bad += !cz_fp_from_bytes_be(&t, b) || !cz_fp_eq(&t, &cz_g1_generator.y);
	ct_ok(!bad, "b = 4, 3b = 12, generator = the published coordinates");

	/* beta is a primitive cube root of 1, and sigma(G) = -x^2·G (oracle). */
	cz_fp_sqr(&t, &cz_bls12_381_g1_beta);
	cz_fp_mul(&t, &t, &cz_bls12_381_g1_beta);
	bad = !cz_fp_eq(&t, &cz_fp_one) || cz_fp_eq(&cz_bls12_381_g1_beta, &cz_fp_one);
	unsigned __int128 x2 = (unsigned __int128)CZ_BLS12_381_X_ABS * CZ_BLS12_381_X_ABS;
	uint64_t x2l[2] = { (uint64_t)x2, (uint64_t)(x2 >> 64) };
	opt g = o_gen(), s;
	o_mul(&s, &g, x2l, 2);
	o_neg(&s, &s);
	cz_fp_mul(&u, &g.x, &cz_bls12_381_g1_beta);
	bad += !cz_fp_eq(&u, &s.x) || !cz_fp_eq(&g.y, &s.y);
	ct_ok(!bad, "beta^3 = 1, beta != 1, (beta·Gx, Gy) = -x^2·G");

	/* h1 = (x - 1)^2 / 3, and x^4 - x^2 + 1 = r */
	unsigned __int128 xm1 = (unsigned __int128)CZ_BLS12_381_X_ABS + 1; /* |x - 1|, x < 0 */
	unsigned __int128 h1 = ((unsigned __int128)cz_bls12_381_g1_cofactor[1] << 64) |
			       cz_bls12_381_g1_cofactor[0];
	bad = xm1 * xm1 != 3 * h1;
	/* r = x2^2 - x2 + 1 over 256 bits, x2 = x^2 */
	uint64_t a = (uint64_t)x2, c = (uint64_t)(x2 >> 64), rr[4];
	unsigned __int128 m00 = (unsigned __int128)a * a, m01 = (unsigned __int128)a * c,
			  m11 = (unsigned __int128)c * c;
	unsigned __int128 acc = (uint64_t)m00;
	rr[0] = (uint64_t)acc;
	acc = (acc >> 64) + (m00 >> 64) + 2 * (unsigned __int128)(uint64_t)m01;
	rr[1] = (uint64_t)acc;
	acc = (acc >> 64) + 2 * (m01 >> 64) + (uint64_t)m11;
	rr[2] = (uint64_t)acc;
	acc = (acc >> 64) + (m11 >> 64);
	rr[3] = (uint64_t)acc;
	/* minus x2, plus 1 */
	unsigned __int128 borrow = 0;
	uint64_t sub[4] = { a, c, 0, 0 };
	for (int i = 0; i < 4; i++) {
		unsigned __int128 d = (unsigned __int128)rr[i] - sub[i] - borrow;
		rr[i] = (uint64_t)d;
		borrow = (d >> 64) & 1;
	}
	rr[0] += 1; /* no carry out: the compare below would catch one */
	bad += memcmp(rr, group_r, sizeof(rr)) != 0;
	ct_ok(!bad, "cofactor h1 = (x-1)^2/3 and r = x^4 - x^2 + 1 from x");
}

static int expect(int got, int want, const char *what, int *bad)
{
	if (got != want) {
		ct_diag("%s: got %d (%s), want %d", what, got, cz_point_strerror(got), want);
		++*bad;
	}
	return got == want;
}

static void t_codec(void)
{
	uint8_t c[CZ_G1_COMPRESSED_BYTES], u[CZ_G1_UNCOMPRESSED_BYTES], w[CZ_G1_UNCOMPRESSED_BYTES];
	cz_g1_affine a, na;
	opt g = o_gen(), p, t;
	int bad = 0;

	cz_g1_to_compressed(c, &cz_g1_generator);
	unhex(w, gen_compressed, sizeof(c));
	bad += memcmp(c, w, sizeof(c)) != 0;
	bad += cz_g1_from_compressed(&a, w) != 0 || !cz_g1_affine_eq(&a, &cz_g1_generator);
	cz_g1_to_uncompressed(u, &cz_g1_generator);
	unhex(w, gen_uncompressed, sizeof(u));
	bad += memcmp(u, w, sizeof(u)) != 0;
	bad += cz_g1_from_uncompressed(&a, w) != 0 || !cz_g1_affine_eq(&a, &cz_g1_generator);
	ct_ok(!bad, "generator: published compressed 97f1d3a7... and uncompressed encodings, both ways");

	bad = 0;
	for (int i = 0; i < 8; i++) {
		p = i ? o_rand_sub() : g;
		if (i == 1)
			o_neg(&p, &g);
		to_aff(&na, &p);
		cz_g1_to_compressed(c, &na);
		bad += (cz_fp_lexicographically_largest(&na.y) ? 0x20 : 0) != (c[0] & 0x20);
		bad += (c[0] & 0xc0) != 0x80;
		bad += cz_g1_from_compressed(&a, c) != 0 || !cz_g1_affine_eq(&a, &na);
		cz_g1_to_uncompressed(u, &na);
		bad += (u[0] & 0xe0) != 0;
		bad += cz_g1_from_uncompressed(&a, u) != 0 || !cz_g1_affine_eq(&a, &na);
	}
	ct_ok(!bad, "round trips of G, -G and random subgroup points (both encodings, sign flag)");

	bad = 0;
	t.inf = 1;
	to_aff(&na, &t);
	cz_g1_to_compressed(c, &na);
	cz_g1_to_uncompressed(u, &na);
	bad += c[0] != 0xc0 || u[0] != 0x40;
	for (size_t i = 1; i < sizeof(u); i++)
		bad += u[i] != 0 || (i < sizeof(c) && c[i] != 0);
	bad += cz_g1_from_compressed(&a, c) != 0 || !cz_g1_affine_is_inf(&a);
	bad += cz_g1_from_uncompressed(&a, u) != 0 || !cz_g1_affine_is_inf(&a);
	ct_ok(!bad, "infinity: exactly c0 00.. / 40 00.., and decodes to (0, 0)");

	/* Rejections, one code each. */
	bad = 0;
	unhex(c, gen_compressed, sizeof(c));
	unhex(u, gen_uncompressed, sizeof(u));
	memcpy(w, c, sizeof(c));
	w[0] &= 0x7f;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_FLAGS, "compressed without 0x80", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x80;
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_FLAGS, "uncompressed with 0x80", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x20;
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_FLAGS, "uncompressed with sign", &bad);
	memset(w, 0, sizeof(w));
	w[0] = 0xe0;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_FLAGS, "infinity with sign", &bad);
	w[0] = 0xc0;
	w[47] = 1;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_FLAGS, "infinity, non-zero tail", &bad);
	w[47] = 0;
	w[0] = 0xc1;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_FLAGS, "infinity, non-zero byte 0", &bad);
	memset(w, 0, sizeof(w));
	w[0] = 0x40;
	w[95] = 1;
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_FLAGS, "uncompressed infinity, tail", &bad);
	memcpy(w, u, sizeof(u));
	w[0] |= 0x40;
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_FLAGS, "infinity flag on G", &bad);
	ct_ok(!bad, "bad flags rejected with CZ_EPOINT_FLAGS (8 cases)");

	bad = 0;
	unhex(w, p_hex, CZ_FP_BYTES);
	w[0] |= 0x80;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_RANGE, "compressed x = p", &bad);
	memset(w, 0xff, CZ_FP_BYTES);
	w[0] = 0x9f;
	expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_RANGE, "compressed x = 2^381 - 1", &bad);
	memcpy(w, u, sizeof(u));
	unhex(w + CZ_FP_BYTES, p_hex, CZ_FP_BYTES);
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_RANGE, "uncompressed y = p", &bad);
	unhex(w, p_hex, CZ_FP_BYTES);
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_RANGE, "uncompressed x = p", &bad);
	ct_ok(!bad, "coordinates >= p rejected with CZ_EPOINT_RANGE (4 cases)");

	bad = 0;
	{
		cz_fp x, y2;
		uint64_t v = 1;
		for (;; v++) { /* the first x with x^3 + 4 a non-square */
			cz_fp_from_u64(&x, v);
			cz_fp_sqr(&y2, &x);
			cz_fp_mul(&y2, &y2, &x);
			cz_fp_add(&y2, &y2, &ob);
			if (cz_fp_legendre(&y2) == -1)
				break;
		}
		cz_fp_to_bytes_be(w, &x);
		w[0] |= 0x80;
		expect(cz_g1_from_compressed(&a, w), CZ_EPOINT_CURVE, "x^3 + 4 non-square", &bad);
	}
	memcpy(w, u, sizeof(u));
	w[sizeof(u) - 1] ^= 1;
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_CURVE, "G with y off by one bit", &bad);
	memset(w, 0, sizeof(w));
	expect(cz_g1_from_uncompressed(&a, w), CZ_EPOINT_CURVE, "(0, 0) without the flag", &bad);
	ct_ok(!bad, "off-curve points rejected with CZ_EPOINT_CURVE (3 cases)");

	bad = 0;
	do {
		o_rand_curve(&p);
		o_mul(&t, &p, group_r, 4);
	} while (t.inf);
	to_aff(&na, &p);
	cz_g1_to_compressed(c, &na);
	cz_g1_to_uncompressed(u, &na);
	expect(cz_g1_from_compressed(&a, c), CZ_EPOINT_SUBGROUP, "compressed, outside G1", &bad);
	expect(cz_g1_from_uncompressed(&a, u), CZ_EPOINT_SUBGROUP, "uncompressed, outside G1", &bad);
	const char *e[5] = { cz_point_strerror(0), cz_point_strerror(CZ_EPOINT_FLAGS),
			     cz_point_strerror(CZ_EPOINT_RANGE), cz_point_strerror(CZ_EPOINT_CURVE),
			     cz_point_strerror(CZ_EPOINT_SUBGROUP) };
	for (int i = 0; i < 5; i++)
		for (int j = 0; j < i; j++)
			bad += !e[i] || !e[j] || !strcmp(e[i], e[j]);
	ct_ok(!bad, "points outside G1 rejected with CZ_EPOINT_SUBGROUP; strerror texts distinct");
}

int main(void)
{
	ct_plan(T_GENERIC_COUNT + 3 + 7);
	t_all_generic();
	t_constants();
	t_codec();
	return ct_exit();
}

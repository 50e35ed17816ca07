/* SPDX-License-Identifier: MIT */
/* Description: BLS12-381 G2 formulas, scalar mul, psi subgroup check and zcash encodings vs a naive affine oracle and published vectors. */
#include "zk/curve/bls12_381_curve.h"
#include "zk/curve/g2.h"

#define T_F cz_fp2
#define T_F_ADD cz_fp2_add
#define T_F_SUB cz_fp2_sub
#define T_F_NEG cz_fp2_neg
#define T_F_MUL cz_fp2_mul
#define T_F_SQR cz_fp2_sqr
#define T_F_INV cz_fp2_inv
#define T_F_SQRT cz_fp2_sqrt
#define T_F_IS_ZERO cz_fp2_is_zero
#define T_F_EQ cz_fp2_eq
#define T_F_SMALL fp2_small
#define T_F_RAND fp2_rand
#define T_SET_B(r) (fp2_small(&(r)->c0, 4), fp2_small(&(r)->c1, 4))
#define T_AFF cz_g2_affine
#define T_JAC cz_g2_jac
#define T_XYZZ cz_g2_xyzz
#define T_NAME(n) cz_g2_##n
#define T_GEN cz_g2_generator

/* fp2_small works on both cz_fp2 (c0 = v, c1 = 0) and, for T_SET_B, cz_fp. */
#define fp2_small(r, v)                                                              \
	_Generic((r), cz_fp2 *: fp2_from_u64, cz_fp *: cz_fp_from_u64)((r), (v))
static void fp2_from_u64(cz_fp2 *r, uint64_t v)
{
	cz_fp_from_u64(&r->c0, v);
	r->c1 = cz_fp_zero;
}
static void fp2_rand(cz_fp2 *r);
static void fp2_to_be(uint8_t *out, const cz_fp2 *a);
static bool fp2_nonsquare(const cz_fp2 *a);
#define T_GROUP "G2"
#define T_COMPRESSED_BYTES CZ_G2_COMPRESSED_BYTES
#define T_UNCOMPRESSED_BYTES CZ_G2_UNCOMPRESSED_BYTES
#define T_F_LARGEST cz_fp2_lexicographically_largest
#define T_F_TO_BE fp2_to_be
#define T_F_NONSQUARE fp2_nonsquare
/* The zcash / IETF published encodings of the generator. */
#define T_GEN_COMPRESSED                                                                                \
	"93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" \
	"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
#define T_GEN_UNCOMPRESSED                                                                              \
	"13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e" \
	"024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8" \
	"0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be" \
	"0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"

#include "selftests/zk_curve_test.h"

static void fp2_rand(cz_fp2 *r)
{
	fp_rand(&r->c0);
	fp_rand(&r->c1);
}

/* zcash order: c1 then c0 */
static void fp2_to_be(uint8_t *out, const cz_fp2 *a)
{
	cz_fp_to_bytes_be(out, &a->c1);
	cz_fp_to_bytes_be(out + CZ_FP_BYTES, &a->c0);
}

static bool fp2_from_hex(cz_fp2 *r, const char *hex)
{
	uint8_t b[2 * CZ_FP_BYTES];
	unhex(b, hex, sizeof(b));
	return cz_fp_from_bytes_be(&r->c1, b) && cz_fp_from_bytes_be(&r->c0, b + CZ_FP_BYTES);
}

/* a in Fp2 is a square iff its norm c0^2 + c1^2 is a square in Fp. */
static bool fp2_nonsquare(const cz_fp2 *a)
{
	cz_fp n, s;
	cz_fp_sqr(&n, &a->c0);
	cz_fp_sqr(&s, &a->c1);
	cz_fp_add(&n, &n, &s);
	return cz_fp_legendre(&n) == -1;
}

static void fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t n)
{
	cz_fp2 acc = cz_fp2_one;
	for (size_t i = n * 64; i-- > 0;) {
		cz_fp2_sqr(&acc, &acc);
		if ((e[i / 64] >> (i % 64)) & 1)
			cz_fp2_mul(&acc, &acc, a);
	}
	*r = acc;
}

static void t_constants(void)
{
	static const uint64_t pm1_3[6] = { 0x9354ffffffffe38eULL, 0x0a395554e5c6aaaaULL,
					   0xcd104635a790520cULL, 0xcc27c3d6fbd7063fULL,
					   0x190937e76bc3e447ULL, 0x08ab05f8bdd54cdeULL };
	static const uint64_t pm1_2[6] = { 0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
					   0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
					   0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL };
	cz_fp2 t, xi;
	int bad = 0;

	T_SET_B(&t);
	bad += !cz_fp2_eq(&t, &cz_bls12_381_g2_b);
	fp2_small(&t.c0, 12);
	fp2_small(&t.c1, 12);
	bad += !cz_fp2_eq(&t, &cz_bls12_381_g2_b3);
	bad += !fp2_from_hex(&t, gen_uncompressed) || !cz_fp2_eq(&t, &cz_g2_generator.x);
	bad += !fp2_from_hex(&t, gen_uncompressed + 4 * CZ_FP_BYTES) ||
	       !cz_fp2_eq(&t, &cz_g2_generator.y);
	ct_ok(!bad, "b = 4(1+u), 3b = 12(1+u), generator = the published coordinates");

	/* cx·(1+u)^((p-1)/3) = 1 and cy·(1+u)^((p-1)/2) = 1 */
	bad = 0;
	fp2_small(&xi.c0, 1);
	fp2_small(&xi.c1, 1);
	fp2_pow(&t, &xi, pm1_3, 6);
	cz_fp2_mul(&t, &t, &cz_bls12_381_g2_psi_cx);
	bad += !cz_fp2_eq(&t, &cz_fp2_one);
	fp2_pow(&t, &xi, pm1_2, 6);
	cz_fp2_mul(&t, &t, &cz_bls12_381_g2_psi_cy);
	bad += !cz_fp2_eq(&t, &cz_fp2_one);
	/* psi(G) = x·G with the oracle, x = -|x| */
	uint64_t xabs = CZ_BLS12_381_X_ABS;
	opt g = o_gen(), want, got, p;
	cz_g2_jac j;
	o_mul(&want, &g, &xabs, 1);
	o_neg(&want, &want);
	to_jac(&j, &g);
	cz_g2_psi(&j, &j);
	bad += !jac_is(&j, &want);
	/* psi maps E' to itself, also outside G2 */
	for (int i = 0; i < 3; i++) {
		o_rand_curve(&p);
		to_jac(&j, &p);
		cz_g2_psi(&j, &j);
		from_jac(&got, &j);
		bad += !o_on_curve(&got);
	}
	ct_ok(!bad, "psi constants: cx = (1+u)^-((p-1)/3), cy = (1+u)^-((p-1)/2); psi(G) = x·G; psi(E') = E'");
}

int main(void)
{
	ct_plan(T_GENERIC_COUNT + 2 + T_CODEC_COUNT);
	t_all_generic();
	t_constants();
	t_codec();
	return ct_exit();
}

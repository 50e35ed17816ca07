/* SPDX-License-Identifier: MIT */
/* Description: BN254 G2 (D-type twist over Fp2) formulas, scalar mul, psi subgroup check, cofactor vs a naive oracle, GMP and ffjavascript's k·G. */
#include "zk/curve/bn254_curve.h"
#include "zk/curve/bn254_g2.h"
#include "zk/field/fp.h" /* cz_fp_have_adx, cz_field_force_portable */

#include <gmp.h>

#define T_FP cz_bn254_fp
#define T_FP_LIMBS CZ_BN254_FP_LIMBS
#define T_FP_TOP_MASK 0x1fffffffffffffffULL /* p's top limb is 0x3064... */
#define T_FR cz_bn254_fr
/* r from EIP-196 */
#define T_GROUP_R                                                                    \
	{ 0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,        \
	  0x30644e72e131a029ULL }
#define T_F cz_bn254_fp2
#define T_F_ADD cz_bn254_fp2_add
#define T_F_SUB cz_bn254_fp2_sub
#define T_F_NEG cz_bn254_fp2_neg
#define T_F_MUL cz_bn254_fp2_mul
#define T_F_SQR cz_bn254_fp2_sqr
#define T_F_INV cz_bn254_fp2_inv
#define T_F_SQRT cz_bn254_fp2_sqrt
#define T_F_IS_ZERO cz_bn254_fp2_is_zero
#define T_F_EQ cz_bn254_fp2_eq
#define T_F_SMALL fp2_from_u64
#define T_F_RAND fp2_rand
#define T_SET_B set_b
#define T_AFF cz_bn254_g2_affine
#define T_JAC cz_bn254_g2_jac
#define T_XYZZ cz_bn254_g2_xyzz
#define T_NAME(n) cz_bn254_g2_##n
#define T_GEN cz_bn254_g2_generator

static void fp2_from_u64(cz_bn254_fp2 *r, uint64_t v)
{
	cz_bn254_fp_from_u64(&r->c0, v);
	r->c1 = cz_bn254_fp_zero;
}

/* b = 3/(9 + u), rebuilt from small integers (not the library's constant). */
static void set_b(cz_bn254_fp2 *r)
{
	cz_bn254_fp2 xi, three;
	cz_bn254_fp_from_u64(&xi.c0, 9);
	cz_bn254_fp_from_u64(&xi.c1, 1);
	fp2_from_u64(&three, 3);
	cz_bn254_fp2_inv(&xi, &xi);
	cz_bn254_fp2_mul(r, &three, &xi);
}
static void fp2_rand(cz_bn254_fp2 *r);

#include "selftests/zk_curve_test.h"
#include "selftests/bn254_vectors.h"

static void fp2_rand(cz_bn254_fp2 *r)
{
	fp_rand(&r->c0);
	fp_rand(&r->c1);
}

static bool aff_from_dec(cz_bn254_g2_affine *a, char **v)
{
	return cz_bn254_fp_from_dec(&a->x.c0, v[0]) && cz_bn254_fp_from_dec(&a->x.c1, v[1]) &&
	       cz_bn254_fp_from_dec(&a->y.c0, v[2]) && cz_bn254_fp_from_dec(&a->y.c1, v[3]);
}

/* Square-and-multiply with the library's (GMP-tested) Fp2 mul. */
static void fp2_pow_mpz(cz_bn254_fp2 *r, const cz_bn254_fp2 *a, const mpz_t e)
{
	cz_bn254_fp2 acc;
	fp2_from_u64(&acc, 1);
	for (long i = (long)mpz_sizeinbase(e, 2) - 1; i >= 0; i--) {
		cz_bn254_fp2_sqr(&acc, &acc);
		if (mpz_tstbit(e, (mp_bitcnt_t)i))
			cz_bn254_fp2_mul(&acc, &acc, a);
	}
	*r = acc;
}

static void t_constants(void)
{
	cz_bn254_fp2 t, xi;
	int bad = 0;
	char *v[8];
	cz_bn254_g2_affine g;

	set_b(&t);
	bad += !cz_bn254_fp2_eq(&t, &cz_bn254_g2_b);
	cz_bn254_fp2_add(&xi, &t, &t);
	cz_bn254_fp2_add(&t, &xi, &t);
	bad += !cz_bn254_fp2_eq(&t, &cz_bn254_g2_b3);
	bv_rewind();
	bad += bv_next("g2_gen", v, 8) != 4 || !aff_from_dec(&g, v) ||
	       !cz_bn254_g2_affine_eq(&g, &cz_bn254_g2_generator);
	ct_ok(!bad, "b = 3/(9+u), 3b, generator = ffjavascript's G2.g (EIP-197)");

	/* psi constants from p (GMP): cx = xi^((p-1)/3), cy = xi^((p-1)/2) */
	mpz_t p, r, e, h;
	mpz_inits(p, r, e, h, NULL);
	bv_rewind();
	bad = bv_next("p", v, 8) != 1 || mpz_set_str(p, v[0], 10);
	bv_rewind();
	bad += bv_next("r", v, 8) != 1 || mpz_set_str(r, v[0], 10);
	cz_bn254_fp_from_u64(&xi.c0, 9);
	cz_bn254_fp_from_u64(&xi.c1, 1);
	mpz_sub_ui(e, p, 1), mpz_divexact_ui(e, e, 3);
	fp2_pow_mpz(&t, &xi, e);
	bad += !cz_bn254_fp2_eq(&t, &cz_bn254_g2_psi_cx);
	mpz_sub_ui(e, p, 1), mpz_divexact_ui(e, e, 2);
	fp2_pow_mpz(&t, &xi, e);
	bad += !cz_bn254_fp2_eq(&t, &cz_bn254_g2_psi_cy);
	/* psi(G) = 6x^2·G = p·G with the oracle; psi maps E' to itself */
	uint64_t x62[2] = CZ_BN254_6X2;
	opt og = o_gen(), want, got, pt;
	cz_bn254_g2_jac j;
	o_mul(&want, &og, x62, 2);
	to_jac(&j, &og);
	cz_bn254_g2_psi(&j, &j);
	bad += !jac_is(&j, &want);
	for (int i = 0; i < 3; i++) {
		o_rand_curve(&pt);
		to_jac(&j, &pt);
		cz_bn254_g2_psi(&j, &j);
		from_jac(&got, &j);
		bad += !o_on_curve(&got);
	}
	ct_ok(!bad, "psi: cx = xi^((p-1)/3), cy = xi^((p-1)/2) (GMP exponents); psi(G) = 6x^2·G; psi(E') = E'");

	/* p - r = 6x^2, h2 = 2p - r, and #E'(Fp2) = (p + 1 - t)(p - 1 + t) = h2·r,
	 * t = 6x^2 + 1 the trace of Frobenius on E(Fp) */
	mpz_t x, s, n;
	mpz_inits(x, s, n, NULL);
	mpz_set_ui(x, CZ_BN254_X);
	mpz_mul(s, x, x), mpz_mul_ui(s, s, 6);
	mpz_sub(e, p, r);
	bad = mpz_cmp(e, s) != 0;
	mpz_import(e, 2, -1, 8, 0, 0, x62);
	bad += mpz_cmp(e, s) != 0;
	mpz_mul_2exp(h, p, 1), mpz_sub(h, h, r);
	mpz_import(e, CZ_BN254_H2_LIMBS, -1, 8, 0, 0, cz_bn254_g2_cofactor);
	bad += mpz_cmp(e, h) != 0;
	mpz_add_ui(s, s, 1); /* t */
	mpz_add_ui(n, p, 1), mpz_sub(n, n, s);
	mpz_sub_ui(e, p, 1), mpz_add(e, e, s);
	mpz_mul(n, n, e);
	mpz_mul(e, h, r);
	bad += mpz_cmp(n, e) != 0;
	ct_ok(!bad, "p - r = 6x^2, cofactor h2 = 2p - r, #E'(Fp2) = h2·r (GMP)");
	mpz_clears(p, r, e, h, x, s, n, NULL);
}

/* k·G from ffjavascript (G2.timesFr), by mul and mul_vartime. */
static void t_vectors(void)
{
	int bad = 0, n = bv_check_mul("g2_mul", 5, aff_from_dec, 1, &bad);
	ct_ok(!bad && n >= 7, "k·G = ffjavascript's G2.timesFr for %d scalars, each in G2 (%d bad)", n,
	      bad);
}

int main(void)
{
	if (bv_load()) {
		ct_plan(1);
		ct_skip("no selftests/data/bn254_vectors.txt", "BN254 G2 vectors");
		return ct_exit();
	}
	ct_plan(T_GENERIC_COUNT + 4 + T_CODEC_COUNT);
	t_all_generic();
	t_constants();
	t_vectors();
	t_codec();
	return ct_exit();
}

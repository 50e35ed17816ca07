/* SPDX-License-Identifier: MIT */
/* Description: BN254 G1 formulas, scalar mul and subgroup (cofactor 1) vs a naive affine oracle and ffjavascript's k·G. */
#include "zk/curve/bn254_curve.h"
#include "zk/curve/bn254_g1.h"
#include "zk/field/fp.h" /* cz_fp_have_adx, cz_field_force_portable */

#define T_FP cz_bn254_fp
#define T_FP_LIMBS CZ_BN254_FP_LIMBS
#define T_FP_TOP_MASK 0x1fffffffffffffffULL /* p's top limb is 0x3064... */
#define T_FR cz_bn254_fr
/* r from EIP-196 */
#define T_GROUP_R                                                                    \
	{ 0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,        \
	  0x30644e72e131a029ULL }
#define T_COFACTOR_ONE 1
#define T_F cz_bn254_fp
#define T_F_ADD cz_bn254_fp_add
#define T_F_SUB cz_bn254_fp_sub
#define T_F_NEG cz_bn254_fp_neg
#define T_F_MUL cz_bn254_fp_mul
#define T_F_SQR cz_bn254_fp_sqr
#define T_F_INV cz_bn254_fp_inv
#define T_F_SQRT cz_bn254_fp_sqrt
#define T_F_IS_ZERO cz_bn254_fp_is_zero
#define T_F_EQ cz_bn254_fp_eq
#define T_F_SMALL cz_bn254_fp_from_u64
#define T_F_RAND fp_rand
#define T_SET_B(r) cz_bn254_fp_from_u64(r, 3)
#define T_AFF cz_bn254_g1_affine
#define T_JAC cz_bn254_g1_jac
#define T_XYZZ cz_bn254_g1_xyzz
#define T_NAME(n) cz_bn254_g1_##n
#define T_GEN cz_bn254_g1_generator

#include "selftests/zk_curve_test.h"
#include "selftests/bn254_vectors.h"

static bool aff_from_dec(cz_bn254_g1_affine *a, char **v)
{
	return cz_bn254_fp_from_dec(&a->x, v[0]) && cz_bn254_fp_from_dec(&a->y, v[1]);
}

static void t_constants(void)
{
	cz_bn254_fp t;
	int bad = 0;
	cz_bn254_fp_from_u64(&t, 3);
	bad += !cz_bn254_fp_eq(&t, &cz_bn254_g1_b);
	cz_bn254_fp_from_u64(&t, 9);
	bad += !cz_bn254_fp_eq(&t, &cz_bn254_g1_b3);
	char *v[8];
	cz_bn254_g1_affine g;
	bv_rewind();
	bad += bv_next("g1_gen", v, 8) != 2 || !aff_from_dec(&g, v) ||
	       !cz_bn254_g1_affine_eq(&g, &cz_bn254_g1_generator);
	ct_ok(!bad, "b = 3, 3b = 9, generator = ffjavascript's G1.g = (1, 2)");
}

/* k·G from ffjavascript (G1.timesFr), by mul and mul_vartime. */
static void t_vectors(void)
{
	int bad = 0, n = bv_check_mul("g1_mul", 3, aff_from_dec, 0, &bad);
	ct_ok(!bad && n >= 7, "k·G = ffjavascript's G1.timesFr for %d scalars (%d bad)", n, bad);
}

int main(void)
{
	if (bv_load()) {
		ct_plan(1);
		ct_skip("no selftests/data/bn254_vectors.txt", "BN254 G1 vectors");
		return ct_exit();
	}
	ct_plan(T_GENERIC_COUNT + 2 + T_CODEC_COUNT);
	t_all_generic();
	t_constants();
	t_vectors();
	t_codec();
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g2.c — BN254 G2, y^2 = x^3 + 3/(9 + u) over Fp2 (D-type twist):
 * zk/curve/curve_tmpl_pvt.h over cz_bn254_fp2, plus psi, the subgroup check and
 * cofactor clearing.
 *
 * Subgroup check (El Housni, Guillevic, Piellard, "Co-factor clearing and
 * subgroup membership testing on pairing-friendly curves", 2022, for BN
 * curves): psi acts on G2 as multiplication by p ≡ 6x^2 (mod r), and
 * psi(P) = 6x^2·P holds only on G2.  Cost: one 127-bit public-scalar
 * multiplication and a Frobenius (about 127 doublings and 60 additions)
 * instead of a 254-bit one.  selftests/zk_bn254_g2.c compares it with
 * r·P = O on points inside and outside G2.
 */
#include "zk/curve/bn254_g2.h"

#include "zk/curve/bn254_curve.h"
#include "zk/field/field_inline.h"

#define CI_F cz_bn254_fp2
#define CI_F_ADD cz_bn254_fp2_add_inl
#define CI_F_SUB cz_bn254_fp2_sub_inl
#define CI_F_DBL cz_bn254_fp2_dbl_inl
#define CI_F_NEG cz_bn254_fp2_neg_inl
#define CI_F_MUL cz_bn254_fp2_mul
#define CI_F_SQR cz_bn254_fp2_sqr
#define CI_F_INV cz_bn254_fp2_inv
#define CI_F_IS_ZERO cz_bn254_fp2_is_zero
#define CI_F_EQ cz_bn254_fp2_eq
#define CI_F_ZERO (&cz_bn254_fp2_zero)
#define CI_F_ONE (&cz_bn254_fp2_one)
#define CI_B (&cz_bn254_g2_b)
#define CI_B3 (&cz_bn254_g2_b3)
#define CI_AFF cz_bn254_g2_affine
#define CI_JAC cz_bn254_g2_jac
#define CI_XYZZ cz_bn254_g2_xyzz
#define CI_NAME(n) cz_bn254_g2_##n
#define CI_S cz_bn254_fr
#define CI_S_LIMBS CZ_BN254_FR_LIMBS
#define CI_S_FROM_MONT cz_bn254_fr_from_mont
#include "zk/curve/curve_tmpl_pvt.h"

/* psi(X, Y, Z) = (conj(X)·cx, conj(Y)·cy, conj(Z)) in Jacobian coordinates
 * (Frobenius commutes with the Z scaling, the constants are affine). */
void cz_bn254_g2_psi(cz_bn254_g2_jac *r, const cz_bn254_g2_jac *p)
{
	cz_bn254_fp2_conj(&r->x, &p->x);
	cz_bn254_fp2_mul(&r->x, &r->x, &cz_bn254_g2_psi_cx);
	cz_bn254_fp2_conj(&r->y, &p->y);
	cz_bn254_fp2_mul(&r->y, &r->y, &cz_bn254_g2_psi_cy);
	cz_bn254_fp2_conj(&r->z, &p->z);
}

bool cz_bn254_g2_affine_in_subgroup(const cz_bn254_g2_affine *p)
{
	static const uint64_t x62[2] = CZ_BN254_6X2;
	cz_bn254_g2_jac pj, q, s;

	if (cz_bn254_g2_affine_is_inf(p))
		return true;
	if (!cz_bn254_g2_affine_on_curve(p))
		return false;
	cz_bn254_g2_jac_from_affine(&pj, p);
	cz_bn254_g2_mul_vartime(&q, &pj, x62, 2);
	cz_bn254_g2_psi(&s, &pj);
	return cz_bn254_g2_jac_eq(&s, &q);
}

/* Multiplication by the cofactor h2 = 2p - r maps E'(Fp2) onto G2. */
void cz_bn254_g2_clear_cofactor(cz_bn254_g2_jac *r, const cz_bn254_g2_jac *p)
{
	cz_bn254_g2_mul_vartime(r, p, cz_bn254_g2_cofactor, CZ_BN254_H2_LIMBS);
}

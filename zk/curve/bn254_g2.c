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

#define CG_F cz_bn254_fp2
#define CG_FP2
#define CG_GROUP cz_bn254_g2
#define CG_CONST cz_bn254_g2
#define CG_S cz_bn254_fr
#define CG_S_LIMBS CZ_BN254_FR_LIMBS
#include "zk/curve/curve_inst_tmpl_pvt.h"

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

/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/curve_inst_tmpl_pvt.h — one curve group's point arithmetic
 * (zk/curve/curve_tmpl_pvt.h) named by its prefixes, so that the four group
 * files (zk/curve/g1.c, g2.c, bn254_g1.c, bn254_g2.c) say only what differs:
 * the curve, the group and what is special to it.  The includer defines:
 *   CG_F       the coordinate field's prefix (cz_fp, cz_fp2, cz_bn254_fp, ...)
 *   CG_FP2     (optional) the coordinate field is an Fp2 (its mul and sqr
 *              are the out-of-line ones; Fp's are the inline ones)
 *   CG_LAZY    (optional) the field has CG_F##_mul_lazy and _sqr_lazy
 *   CG_GROUP   the group's prefix (cz_g1, cz_bn254_g2): its types and names
 *   CG_CONST   the prefix of its constants b and 3b (cz_bls12_381_g1, ...)
 *   CG_S, CG_S_LIMBS  the scalar field's prefix and limb count
 *   CG_PSI_SCALAR, CG_PSI_LIMBS, CG_PSI_NEG  (G2 only) the scalar psi
 *              multiplies G2 by: its limbs (an initializer), their count,
 *              and 1 if it is the negative of that (BLS12: x = -|x|)
 *   CG_H_LIMBS (G2 only) the limbs of the cofactor CG_CONST##_cofactor
 * and includes the group's header and its curve's constants first.
 *
 * With CG_PSI_SCALAR, G2's psi, subgroup check and cofactor clearing
 * follow (the same code for both curves; why each check holds is in the
 * group's file): psi(X, Y, Z) = (conj(X)·cx, conj(Y)·cy, conj(Z)) in
 * Jacobian coordinates (Frobenius commutes with the Z scaling, the
 * constants CG_CONST##_psi_cx, _psi_cy are affine); P is in G2 iff
 * psi(P) = [CG_PSI_SCALAR]P; h·P maps E'(Fp2) onto G2.
 */
#include "zk/field/field_inline.h"

#define CG_CAT2(a, b) a##b
#define CG_CAT(a, b) CG_CAT2(a, b)

#define CI_F CG_F
#define CI_F_ADD CG_CAT(CG_F, _add_inl)
#define CI_F_SUB CG_CAT(CG_F, _sub_inl)
#define CI_F_DBL CG_CAT(CG_F, _dbl_inl)
#define CI_F_NEG CG_CAT(CG_F, _neg_inl)
#ifdef CG_FP2
#define CI_F_MUL CG_CAT(CG_F, _mul)
#define CI_F_SQR CG_CAT(CG_F, _sqr)
#else
#define CI_F_MUL CG_CAT(CG_F, _mul_inl)
#define CI_F_SQR CG_CAT(CG_F, _sqr_inl)
#endif
#ifdef CG_LAZY
#define CI_F_MUL_LAZY CG_CAT(CG_F, _mul_lazy)
#define CI_F_SQR_LAZY CG_CAT(CG_F, _sqr_lazy)
#endif
#define CI_F_INV CG_CAT(CG_F, _inv)
#define CI_F_IS_ZERO CG_CAT(CG_F, _is_zero)
#define CI_F_EQ CG_CAT(CG_F, _eq)
#define CI_F_ZERO (&CG_CAT(CG_F, _zero))
#define CI_F_ONE (&CG_CAT(CG_F, _one))
#define CI_B (&CG_CAT(CG_CONST, _b))
#define CI_B3 (&CG_CAT(CG_CONST, _b3))
#define CI_AFF CG_CAT(CG_GROUP, _affine)
#define CI_JAC CG_CAT(CG_GROUP, _jac)
#define CI_XYZZ CG_CAT(CG_GROUP, _xyzz)
#define CI_NAME(n) CG_CAT(CG_GROUP, _##n)
#define CI_S CG_S
#define CI_S_LIMBS CG_S_LIMBS
#define CI_S_FROM_MONT CG_CAT(CG_S, _from_mont)
#include "zk/curve/curve_tmpl_pvt.h"

#ifdef CG_PSI_SCALAR
void CI_NAME(psi)(CI_JAC *r, const CI_JAC *p)
{
	CG_CAT(CG_F, _conj)(&r->x, &p->x);
	CG_CAT(CG_F, _mul)(&r->x, &r->x, &CG_CAT(CG_CONST, _psi_cx));
	CG_CAT(CG_F, _conj)(&r->y, &p->y);
	CG_CAT(CG_F, _mul)(&r->y, &r->y, &CG_CAT(CG_CONST, _psi_cy));
	CG_CAT(CG_F, _conj)(&r->z, &p->z);
}

bool CI_NAME(affine_in_subgroup)(const CI_AFF *p)
{
	static const uint64_t k[CG_PSI_LIMBS] = CG_PSI_SCALAR;
	CI_JAC pj, q, s;

	if (CI_NAME(affine_is_inf)(p))
		return true;
	if (!CI_NAME(affine_on_curve)(p))
		return false;
	CI_NAME(jac_from_affine)(&pj, p);
	CI_NAME(mul_vartime)(&q, &pj, k, CG_PSI_LIMBS);
	if (CG_PSI_NEG)
		CI_NAME(jac_neg)(&q, &q);
	CI_NAME(psi)(&s, &pj);
	return CI_NAME(jac_eq)(&s, &q);
}

void CI_NAME(clear_cofactor)(CI_JAC *r, const CI_JAC *p)
{
	CI_NAME(mul_vartime)(r, p, CG_CAT(CG_CONST, _cofactor), CG_H_LIMBS);
}
#endif

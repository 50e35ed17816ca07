/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bls12_381_curve.h — the BLS12-381 curve constants that G1/G2 code needs
 * beyond the generators (which g1.h / g2.h export): the curve coefficient b,
 * 3b for the complete formulas, the endomorphism constants of the fast
 * subgroup checks, the curve parameter x and the cofactors.
 *
 * Field constants are in Montgomery form (they are cz_fp / cz_fp2 values);
 * integers (x, cofactors) are plain little-endian limbs.  Every value here is
 * checked by selftests/zk_g1.c and zk_g2.c against its defining property.
 */
#ifndef CZ_BLS12_381_CURVE_H
#define CZ_BLS12_381_CURVE_H

#include "zk/field/fp.h"
#include "zk/field/fp2.h"

/* The BLS parameter x = -0xd201000000010000 (r = x^4 - x^2 + 1). */
#define CZ_BLS12_381_X_ABS 0xd201000000010000ULL
#define CZ_BLS12_381_X_IS_NEG 1

extern const cz_fp cz_bls12_381_g1_b;   /* 4 */
extern const cz_fp cz_bls12_381_g1_b3;  /* 12 = 3b */
extern const cz_fp2 cz_bls12_381_g2_b;  /* 4(1 + u) */
extern const cz_fp2 cz_bls12_381_g2_b3; /* 12(1 + u) */

/* A primitive cube root of unity in Fp, chosen so that the endomorphism
 * sigma(x, y) = (beta·x, y) acts on G1 as multiplication by -x^2 mod r. */
extern const cz_fp cz_bls12_381_g1_beta;

/* psi(x, y) = (conj(x)·cx, conj(y)·cy), the untwist-Frobenius-twist
 * endomorphism of the twist; on G2 it acts as multiplication by x.
 * cx = 1/(1+u)^((p-1)/3), cy = 1/(1+u)^((p-1)/2). */
extern const cz_fp2 cz_bls12_381_g2_psi_cx;
extern const cz_fp2 cz_bls12_381_g2_psi_cy;

/* Cofactors: #E(Fp) = h1·r, #E'(Fp2) = h2·r. */
#define CZ_BLS12_381_H1_LIMBS 2
#define CZ_BLS12_381_H2_LIMBS 8
extern const uint64_t cz_bls12_381_g1_cofactor[CZ_BLS12_381_H1_LIMBS];
extern const uint64_t cz_bls12_381_g2_cofactor[CZ_BLS12_381_H2_LIMBS];

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_curve.h — the BN254 curve constants that G1/G2 code needs beyond
 * the generators (which bn254_g1.h / bn254_g2.h export): the curve
 * coefficients b and 3b, the psi endomorphism of the subgroup check, the
 * BN parameter x and the G2 cofactor.  (G1 has cofactor 1: every point of
 * E(Fp) is in G1.)
 *
 * Field constants are in Montgomery form (cz_bn254_fp / cz_bn254_fp2
 * values); integers are plain little-endian limbs.  Every value here is
 * checked by selftests/zk_bn254_g1.c and zk_bn254_g2.c against its
 * defining property.
 */
#ifndef CZ_BN254_CURVE_H
#define CZ_BN254_CURVE_H

#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fp2.h"

/* The BN parameter x = 0x44e992b44a6909f1 (positive): p = 36x^4 + 36x^3 +
 * 24x^2 + 6x + 1, r = 36x^4 + 36x^3 + 18x^2 + 6x + 1, so p - r = 6x^2. */
#define CZ_BN254_X 0x44e992b44a6909f1ULL
/* 6x^2 = p - r, 127 bits: psi acts on G2 as multiplication by it. */
#define CZ_BN254_6X2 { 0xf83e9682e87cfd46ULL, 0x6f4d8248eeb859fbULL }

extern const cz_bn254_fp cz_bn254_g1_b;   /* 3 */
extern const cz_bn254_fp cz_bn254_g1_b3;  /* 9 = 3b */
extern const cz_bn254_fp2 cz_bn254_g2_b;  /* 3/(9 + u), the D-type twist */
extern const cz_bn254_fp2 cz_bn254_g2_b3; /* 9/(9 + u) */

/* psi(x, y) = (conj(x)·cx, conj(y)·cy), the untwist-Frobenius-twist
 * endomorphism of the D-type twist: cx = xi^((p-1)/3), cy = xi^((p-1)/2),
 * xi = 9 + u.  On G2 it is multiplication by p ≡ 6x^2 (mod r). */
extern const cz_bn254_fp2 cz_bn254_g2_psi_cx;
extern const cz_bn254_fp2 cz_bn254_g2_psi_cy;

/* #E'(Fp2) = h2·r with h2 = 2p - r (254 bits). */
#define CZ_BN254_H2_LIMBS 4
extern const uint64_t cz_bn254_g2_cofactor[CZ_BN254_H2_LIMBS];

#endif

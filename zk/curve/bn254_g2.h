/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g2.h — BN254 G2: y^2 = x^3 + 3/(9 + u) over Fp2 (the D-type
 * sextic twist; snarkjs' bn128 G2), cofactor 2p - r.  The API of every
 * group (zk/curve/curve_decl_tmpl_pvt.h), and psi.
 */
#ifndef CZ_BN254_G2_H
#define CZ_BN254_G2_H

#include "zk/field/bn254_fp2.h"
#include "zk/field/bn254_fr.h"
#include "zk/curve/curve_decl_tmpl_pvt.h"

CZ_CURVE_DECLARE(cz_bn254_g2, cz_bn254_fp2, cz_bn254_fr);

/* The untwist-Frobenius-twist endomorphism; 6x^2·P (= p·P) on G2. */
void cz_bn254_g2_psi(cz_bn254_g2_jac *r, const cz_bn254_g2_jac *p);

#endif

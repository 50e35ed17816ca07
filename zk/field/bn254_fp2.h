/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp2.h — BN254 Fp2 = Fp[u]/(u^2 + 1), the field of G2
 * coordinates (snarkjs' F2: c0 + c1·u).  The same generic code as
 * BLS12-381's (zk/field/fp2_tmpl_pvt.h); the tower's non-residue is xi = 9 + u
 * (mul_nonres), the twist is y^2 = x^3 + 3/xi.
 */
#ifndef CZ_BN254_FP2_H
#define CZ_BN254_FP2_H

#include "zk/field/bn254_fp.h"

CZ_FP2_DECLARE(cz_bn254_fp2, cz_bn254_fp);

#endif

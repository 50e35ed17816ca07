/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254_fp12.h — the BN254 pairing tower: Fp6 = Fp2[v]/(v^3 - xi),
 * xi = 9 + u, and Fp12 = Fp6[w]/(w^2 - v), snarkjs' (ffjavascript's) tower
 * for bn128.  The API of both curves' towers (zk/field/tower_decl_tmpl_pvt.h); the code
 * is zk/field/fp6_tmpl_pvt.h and zk/field/fp12_tmpl_pvt.h.  cz_bn254_frob_coeffs(k) gives
 * gamma_k[i] = xi^(i·(p^k - 1)/6), k = 1, 2, 3.
 */
#ifndef CZ_BN254_FP12_H
#define CZ_BN254_FP12_H

#include "zk/field/bn254_fp2.h"
#include "zk/field/tower_decl_tmpl_pvt.h"

CZ_FP6_DECLARE(cz_bn254_fp6, cz_bn254_fp2, cz_bn254_frob_coeffs);
CZ_FP12_DECLARE(cz_bn254_fp12, cz_bn254_fp6, cz_bn254_fp2);

#endif

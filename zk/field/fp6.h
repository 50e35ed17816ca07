/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp6.h — BLS12-381 Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: the middle
 * floor of the pairing tower (Fp2 -> Fp6 -> Fp12).  The API of both
 * curves' towers (zk/field/tower_decl_tmpl_pvt.h); the code is zk/field/fp6_tmpl_pvt.h.
 */
#ifndef CZ_FP6_H
#define CZ_FP6_H

#include "zk/field/fp2.h"
#include "zk/field/tower_decl_tmpl_pvt.h"

CZ_FP6_DECLARE(cz_fp6, cz_fp2, cz_bls12_381_frob_coeffs);

#endif

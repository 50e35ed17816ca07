/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp12.h — BLS12-381 Fp12 = Fp6[w]/(w^2 - v), the pairing target field.
 * The API of both curves' towers (zk/field/tower_decl_tmpl_pvt.h explains the w view and
 * each function); the code is zk/field/fp12_tmpl_pvt.h.  cz_bls12_381_frob_coeffs(k)
 * (zk/field/fp6.h) gives gamma_k[i] = xi^(i·(p^k - 1)/6), k = 1, 2, 3.
 */
#ifndef CZ_FP12_H
#define CZ_FP12_H

#include "zk/field/fp6.h"

CZ_FP12_DECLARE(cz_fp12, cz_fp6, cz_fp2);

#endif

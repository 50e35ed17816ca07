/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fp2.h — BLS12-381 Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates.
 * Element c0 + c1·u.  Encodings of Fp2 (snarkjs: c0 then c1; zcash: c1 then
 * c0) belong to the callers that know the format.  The code is generic
 * (zk/field/fp2_tmpl_pvt.h, declared by zk/field/field_decl_tmpl_pvt.h); the tower's non-residue
 * is xi = 1 + u (mul_nonres).
 */
#ifndef CZ_FP2_H
#define CZ_FP2_H

#include "zk/field/fp.h"

CZ_FP2_DECLARE(cz_fp2, cz_fp);

#endif

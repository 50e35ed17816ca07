/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_g1.h — BN254 G1: y^2 = x^3 + 3 over Fp, cofactor 1 (snarkjs'
 * bn128 G1).  The API of every group (zk/curve/curve_decl_tmpl_pvt.h).
 */
#ifndef CZ_BN254_G1_H
#define CZ_BN254_G1_H

#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fr.h"
#include "zk/curve/curve_decl_tmpl_pvt.h"

CZ_CURVE_DECLARE(cz_bn254_g1, cz_bn254_fp, cz_bn254_fr);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/io/bn254_zkey.h — snarkjs Groth16 proving keys (.zkey) over BN254 (bn128):
 * the same format, reader, writer and contracts as zk/io/zkey.h, with BN254's
 * primes, points (coordinates a·2^256 mod p) and subgroup checks.  A .zkey
 * of the other curve is refused naming both ("curve bls12381/BLS12-381,
 * expected bn128/BN254").
 */
#ifndef CZ_BN254_ZKEY_H
#define CZ_BN254_ZKEY_H

#include "zk/field/bn254_fr.h"
#include "zk/curve/bn254_g1.h"
#include "zk/curve/bn254_g2.h"
#include "zk/io/zkey.h"

_Static_assert(CZ_BN254_FR_BYTES == CZ_FR_BYTES, "coefficient records are the same size");
CZ_ZKEY_DECLARE(cz_bn254_zkey, cz_bn254_zkey, cz_bn254_zkey_coef, cz_bn254_zkey_parts,
		cz_bn254_fr, cz_bn254_g1, cz_bn254_g2, cz_bn254_groth16_vk);
/* The witness belongs to this key: nVars values (the curve is the types'). */
struct cz_bn254_wtns;
int cz_bn254_zkey_check_wtns(const struct cz_bn254_zkey *z, const struct cz_bn254_wtns *w,
			     char err[CZ_ERRLEN]);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/bn254_ntt.h — number-theoretic transforms over the BN254 scalar field,
 * compatible with snarkjs/rapidsnark for bn128: the same transforms, code
 * and contracts as zk/ntt/ntt.h, with snarkjs' bn128 roots (omega_{2^28} =
 * 5^((r-1)/2^28), zk/field/bn254_fr.h).  Domains up to 2^27: the coset shift is
 * omega_{2n}, and r - 1 has only 28 factors of 2 (snarkjs' limit for bn128
 * Groth16 as well).
 */
#ifndef CZ_BN254_NTT_H
#define CZ_BN254_NTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/pool.h"
#include "zk/field/bn254_fr.h"
#include "zk/ntt/ntt.h"

#define CZ_BN254_NTT_MAX_LOG2 27
CZ_NTT_DECLARE(cz_bn254_ntt, cz_bn254_ntt_domain, cz_bn254_fr);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/bn254_groth16.h — Groth16 over BN254 (snarkjs' bn128): the proof and
 * verifying key, the prover and the verification equation, with the same code,
 * rules and messages as BLS12-381's (zk/groth16/groth16.h).  snarkjs' JSON
 * files for them ("curve": "bn128") are zk/io/snarkjs_json.h's.
 */
#ifndef CZ_BN254_GROTH16_H
#define CZ_BN254_GROTH16_H

#include <stdbool.h>
#include <stdint.h>

#include "zk/field/bn254_fr.h"
#include "zk/curve/bn254_g1.h"
#include "zk/curve/bn254_g2.h"
#include "zk/groth16/groth16.h" /* CZ_GROTH16_DECLARE, CZ_GROTH16_PROOF_DECLARE, cz_scalar */

/* The prover: the same code and contracts as BLS12-381's (zk/groth16/groth16.h),
 * over BN254's types: struct cz_bn254_groth16_key, _msms, _secrets, and
 * cz_bn254_groth16_device, _finish, _prove, ... */
CZ_GROTH16_DECLARE(cz_bn254_groth16, cz_bn254_fr, cz_bn254_g1, cz_bn254_g2, cz_bn254_ntt_domain);
/* struct cz_bn254_groth16_proof, _vk, cz_bn254_groth16_verify and the
 * INSECURE cz_bn254_groth16_devsetup: zk/groth16/groth16.h's. */
CZ_GROTH16_PROOF_DECLARE(cz_bn254_groth16, cz_bn254_fr, cz_bn254_fp, cz_bn254_g1, cz_bn254_g2,
			 cz_bn254_cs);

#endif

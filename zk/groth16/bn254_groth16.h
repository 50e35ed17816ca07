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
#include "zk/groth16/groth16.h" /* CZ_GROTH16_DECLARE, cz_scalar */

struct cz_bn254_groth16_proof {
	cz_bn254_g1_affine a;   /* pi_a */
	cz_bn254_g2_affine b;   /* pi_b */
	cz_bn254_g1_affine c;   /* pi_c */
};

struct cz_bn254_groth16_vk {
	uint32_t n_public;              /* public inputs, not counting the constant 1 */
	cz_bn254_g1_affine alpha1;
	cz_bn254_g2_affine beta2, gamma2, delta2;
	cz_bn254_g1_affine *ic;         /* n_public + 1 points, malloc'd (cz_bn254_groth16_vk_free) */
	/* snarkjs's e(alpha1, beta2)^lambda (zk/curve/bn254_pairing.h) in its Fp12
	 * order (c0.c0.c0, c0.c0.c1, ... c1.c2.c1); written only if
	 * have_alphabeta. */
	bool have_alphabeta;
	cz_bn254_fp alphabeta[12];
};

/* true iff the proof verifies for the public inputs pub[0 .. n_public). */
bool cz_bn254_groth16_verify(const struct cz_bn254_groth16_vk *vk, const cz_bn254_fr *pub,
			     const struct cz_bn254_groth16_proof *p);

/* The prover: the same code and contracts as BLS12-381's (zk/groth16/groth16.h),
 * over BN254's types: struct cz_bn254_groth16_key, _msms, _secrets, and
 * cz_bn254_groth16_device, _finish, _prove, ... */
CZ_GROTH16_DECLARE(cz_bn254_groth16, cz_bn254_fr, cz_bn254_g1, cz_bn254_g2, cz_bn254_ntt_domain);
/* INSECURE single-party setup (zk/groth16/groth16.h's cz_groth16_devsetup), BN254. */
struct cz_bn254_cs;
int cz_bn254_groth16_devsetup(const struct cz_bn254_cs *cs, uint64_t seed,
			      struct cz_bn254_groth16_key *k, struct cz_pool *pool);

#endif

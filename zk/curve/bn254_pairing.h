/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bn254_pairing.h — the BN254 optimal ate pairing e: G1 x G2 -> GT ⊂
 * Fp12 (snarkjs' bn128 pairing).
 *
 * e(P, Q) = (f_{6x+2,Q}(P) · l_{T,psi(Q)}(P) · l_{T',-psi^2(Q)}(P))^((p^12 - 1)/r);
 * the exponent is exactly (p^12 - 1)/r (not a multiple), as in EIP-197's
 * reference.  ffjavascript (snarkjs) raises to lambda·(p^12 - 1)/r with
 * lambda = 2x(6x^2 + 3x + 1), coprime to r, so its values are e^lambda;
 * selftests/zk_bn254_pairing.c checks exactly that.  Verification
 * equations (a product equal to 1) hold for both alike.  Inputs must be on
 * their curves and in the order-r subgroups; a point at infinity, stored
 * as (0, 0), makes its pair contribute 1.  Invalid inputs give a
 * meaningless value, never a crash.  Variable time: only public data
 * (proofs, keys) goes through here.
 */
#ifndef CZ_BN254_PAIRING_H
#define CZ_BN254_PAIRING_H

#include "zk/field/bn254_fp12.h"
#include "zk/curve/bn254_g1.h"
#include "zk/curve/bn254_g2.h"

void cz_bn254_pairing(cz_bn254_fp12 *r, const cz_bn254_g1_affine *p, const cz_bn254_g2_affine *q);
/* r = prod e(p[i], q[i]): n Miller loops sharing their squarings, one final
 * exponentiation.  n = 0 gives 1. */
void cz_bn254_multi_pairing(cz_bn254_fp12 *r, const cz_bn254_g1_affine *p,
			    const cz_bn254_g2_affine *q, size_t n);
/* true iff prod e(p[i], q[i]) = 1 — the Groth16 verification equation. */
bool cz_bn254_pairing_check(const cz_bn254_g1_affine *p, const cz_bn254_g2_affine *q, size_t n);

/* The two halves, for tests and for callers that cache a Miller loop. */
void cz_bn254_pairing_miller_loop(cz_bn254_fp12 *f, const cz_bn254_g1_affine *p,
				  const cz_bn254_g2_affine *q, size_t n);
void cz_bn254_pairing_final_exp(cz_bn254_fp12 *r, const cz_bn254_fp12 *f);

#endif

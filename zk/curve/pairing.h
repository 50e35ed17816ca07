/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/pairing.h — the BLS12-381 optimal ate pairing e: G1 x G2 -> GT ⊂ Fp12.
 *
 * e(P, Q) = f_{|x|,Q}(P)^((p^12 - 1)/r), conjugated for the negative x; the
 * exponent is exactly (p^12 - 1)/r (not a multiple), so values agree with
 * other implementations of the standard pairing.
 * Inputs must be on their curves and in the order-r subgroups (the point
 * decoders check this); a point at infinity, stored as (0, 0), makes its
 * pair contribute 1.  Invalid inputs give a meaningless value, never a crash.
 * Variable time: only public data (proofs, keys) goes through here.
 */
#ifndef CZ_PAIRING_H
#define CZ_PAIRING_H

#include "zk/field/fp12.h"
#include "zk/curve/g1.h"
#include "zk/curve/g2.h"

void cz_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q);
/* r = prod e(p[i], q[i]): n Miller loops sharing their squarings, one final
 * exponentiation.  n = 0 gives 1. */
void cz_multi_pairing(cz_fp12 *r, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
/* true iff prod e(p[i], q[i]) = 1 — the Groth16 verification equation. */
bool cz_pairing_check(const cz_g1_affine *p, const cz_g2_affine *q, size_t n);

/* The two halves, for tests and for callers that cache a Miller loop. */
void cz_pairing_miller_loop(cz_fp12 *f, const cz_g1_affine *p, const cz_g2_affine *q, size_t n);
void cz_pairing_final_exp(cz_fp12 *r, const cz_fp12 *f);

/* The curve parameter x (zk/curve/bls12_381_pairing.c): |x| and its sign. */
extern const uint64_t cz_bls12_381_x_abs;
extern const bool cz_bls12_381_x_is_neg;

#endif

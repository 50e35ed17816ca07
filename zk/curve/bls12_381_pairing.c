/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bls12_381_pairing.c — the BLS12-381 constants of the pairing.
 *
 * The curve is fixed by one parameter, x = -0xd201000000010000:
 * p = (x - 1)^2 (x^4 - x^2 + 1)/3 + x, r = x^4 - x^2 + 1.  The Miller loop runs
 * over the bits of |x|, and the final exponentiation's hard part raises to
 * polynomials in x (zk/curve/pairing.c).
 *
 * The Frobenius coefficients are derived from the field on first use
 * (zk/field/fp12_tmpl_pvt.h); selftests/zk_fp12.c checks the maps against a^(p^k).
 */
#include "zk/field/fp12.h"
#include "zk/curve/pairing.h"

const uint64_t cz_bls12_381_x_abs = 0xd201000000010000ull;
const bool cz_bls12_381_x_is_neg = true;

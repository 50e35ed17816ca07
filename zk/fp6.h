/* SPDX-License-Identifier: MIT */
/*
 * zk/fp6.h — Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u: the middle floor of the
 * BLS12-381 pairing tower (Fp2 -> Fp6 -> Fp12).
 *
 * Element c0 + c1·v + c2·v^2.  Values are always fully reduced (their Fp2
 * coefficients are).  Every function accepts aliasing of r with any input.
 */
#ifndef CZ_FP6_H
#define CZ_FP6_H

#include "zk/fp2.h"

typedef struct { cz_fp2 c0, c1, c2; } cz_fp6;

extern const cz_fp6 cz_fp6_zero;
void cz_fp6_set_one(cz_fp6 *r);

void cz_fp6_add(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_sub(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);
void cz_fp6_dbl(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_neg(cz_fp6 *r, const cz_fp6 *a);
void cz_fp6_mul(cz_fp6 *r, const cz_fp6 *a, const cz_fp6 *b);   /* 6 Fp2 mul */
void cz_fp6_sqr(cz_fp6 *r, const cz_fp6 *a);                    /* 2 mul + 3 sqr */
void cz_fp6_mul_by_v(cz_fp6 *r, const cz_fp6 *a);               /* times v */
/* Sparse products for line functions: b = b0 + b1·v (5 Fp2 mul), b = b1·v (3). */
void cz_fp6_mul_by_01(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b0, const cz_fp2 *b1);
void cz_fp6_mul_by_1(cz_fp6 *r, const cz_fp6 *a, const cz_fp2 *b1);
void cz_fp6_inv(cz_fp6 *r, const cz_fp6 *a);                    /* inv(0) = 0 */
/* r = a^(p^k), 0 <= k (any k; the map has order 6). */
void cz_fp6_frobenius(cz_fp6 *r, const cz_fp6 *a, unsigned k);
bool cz_fp6_is_zero(const cz_fp6 *a);
bool cz_fp6_eq(const cz_fp6 *a, const cz_fp6 *b);

#endif

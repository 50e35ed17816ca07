/* SPDX-License-Identifier: MIT */
/*
 * zk/fp12.h — Fp12 = Fp6[w]/(w^2 - v), the pairing target field.
 *
 * Element c0 + c1·w, c0 and c1 in Fp6.  Since w^6 = v^3 = xi, the element is
 * also sum g_i·w^i (i < 6) over Fp2 with g0 = c0.c0, g1 = c1.c0, g2 = c0.c1,
 * g3 = c1.c1, g4 = c0.c2, g5 = c1.c2; the Frobenius map and the line
 * functions of zk/pairing.c are written in that view.
 * Every function accepts aliasing of r with any input.
 */
#ifndef CZ_FP12_H
#define CZ_FP12_H

#include "zk/fp6.h"

typedef struct { cz_fp6 c0, c1; } cz_fp12;

extern const cz_fp12 cz_fp12_zero;
void cz_fp12_set_one(cz_fp12 *r);

void cz_fp12_add(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_sub(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b);
void cz_fp12_mul(cz_fp12 *r, const cz_fp12 *a, const cz_fp12 *b); /* 18 Fp2 mul */
void cz_fp12_sqr(cz_fp12 *r, const cz_fp12 *a);                   /* 2 Fp6 mul */
void cz_fp12_conj(cz_fp12 *r, const cz_fp12 *a);  /* a^(p^6); the inverse in GT */
void cz_fp12_inv(cz_fp12 *r, const cz_fp12 *a);                   /* inv(0) = 0 */
/* r = a^e, e little-endian 64-bit limbs; square-and-multiply, variable time. */
void cz_fp12_pow(cz_fp12 *r, const cz_fp12 *a, const uint64_t *e, size_t elimbs);
/* r = a^(p^k), any k (the map has order 12). */
void cz_fp12_frobenius(cz_fp12 *r, const cz_fp12 *a, unsigned k);
/* r = a·(l0 + l1·w^2 + l4·w^3), a line function (13 Fp2 mul). */
void cz_fp12_mul_by_014(cz_fp12 *r, const cz_fp12 *a, const cz_fp2 *l0, const cz_fp2 *l1,
			const cz_fp2 *l4);
/* Squaring in the cyclotomic subgroup {a : a^(p^4 - p^2 + 1) = 1}, where every
 * value lands after the final exponentiation's easy part: Granger–Scott,
 * 9 Fp2 sqr instead of 12 Fp2 mul.  Gives garbage for other elements. */
void cz_fp12_cyclotomic_sqr(cz_fp12 *r, const cz_fp12 *a);
bool cz_fp12_is_zero(const cz_fp12 *a);
bool cz_fp12_is_one(const cz_fp12 *a);
bool cz_fp12_eq(const cz_fp12 *a, const cz_fp12 *b);

/* The curve's Frobenius constants gamma_k[i] = xi^(i·(p^k - 1)/6), i < 6,
 * k = 1, 2, 3 (zk/bls12_381_pairing.c, computed once on first use):
 * (g·w^i)^(p^k) = frob^k(g)·gamma_k[i]·w^i. */
const cz_fp2 *cz_bls12_381_frob_coeffs(unsigned k);

#endif

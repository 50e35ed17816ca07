/* SPDX-License-Identifier: MIT */
/*
 * zk/fp2.h — Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates.
 * Element c0 + c1·u.  Encodings of Fp2 (snarkjs: c0 then c1; zcash: c1 then
 * c0) belong to the callers that know the format.
 */
#ifndef CZ_FP2_H
#define CZ_FP2_H

#include "zk/fp.h"

typedef struct { cz_fp c0, c1; } cz_fp2;

extern const cz_fp2 cz_fp2_zero;
extern const cz_fp2 cz_fp2_one;

void cz_fp2_add(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sub(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_dbl(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_neg(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_conj(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_mul(cz_fp2 *r, const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_sqr(cz_fp2 *r, const cz_fp2 *a);
void cz_fp2_mul_fp(cz_fp2 *r, const cz_fp2 *a, const cz_fp *b);
void cz_fp2_mul_nonres(cz_fp2 *r, const cz_fp2 *a);  /* times (1 + u), the Fp6 non-residue */
void cz_fp2_inv(cz_fp2 *r, const cz_fp2 *a);          /* inv(0) = 0 */
bool cz_fp2_sqrt(cz_fp2 *r, const cz_fp2 *a);         /* false for a non-square */
bool cz_fp2_is_zero(const cz_fp2 *a);
bool cz_fp2_eq(const cz_fp2 *a, const cz_fp2 *b);
void cz_fp2_frobenius(cz_fp2 *r, const cz_fp2 *a);    /* a^p = conj(a) */
/* "Lexicographically largest" test used by the zcash compressed-point flag. */
bool cz_fp2_lexicographically_largest(const cz_fp2 *a);
bool cz_fp_lexicographically_largest(const cz_fp *a);

#endif

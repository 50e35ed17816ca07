/* SPDX-License-Identifier: MIT */
/*
 * zk/g2.h — BLS12-381 G2: y^2 = x^3 + 4(1 + u) over Fp2 (the M-type twist).
 *
 * Affine points use (0, 0) for the point at infinity (it is not on the curve,
 * and it is how .zkey files store infinity).  Jacobian (X/Z^2, Y/Z^3) and
 * XYZZ (X/ZZ, Y/ZZZ, ZZ^3 = ZZZ^2) points have Z = 0 / ZZ = 0 at infinity.
 * All functions accept infinity anywhere.
 */
#ifndef CZ_G2_H
#define CZ_G2_H

#include "zk/fp2.h"
#include "zk/fr.h"
#include "zk/g1.h" /* CZ_EPOINT_* */

typedef struct { cz_fp2 x, y; } cz_g2_affine;
typedef struct { cz_fp2 x, y, z; } cz_g2_jac;
typedef struct { cz_fp2 x, y, zz, zzz; } cz_g2_xyzz;

#define CZ_G2_COMPRESSED_BYTES 96
#define CZ_G2_UNCOMPRESSED_BYTES 192

extern const cz_g2_affine cz_g2_generator;

bool cz_g2_affine_is_inf(const cz_g2_affine *p);
bool cz_g2_affine_eq(const cz_g2_affine *a, const cz_g2_affine *b);
void cz_g2_affine_neg(cz_g2_affine *r, const cz_g2_affine *p);
bool cz_g2_affine_on_curve(const cz_g2_affine *p);    /* infinity: true */
bool cz_g2_affine_in_subgroup(const cz_g2_affine *p); /* on curve and r·P = O */

void cz_g2_jac_set_inf(cz_g2_jac *r);
bool cz_g2_jac_is_inf(const cz_g2_jac *p);
void cz_g2_jac_from_affine(cz_g2_jac *r, const cz_g2_affine *p);
void cz_g2_jac_to_affine(cz_g2_affine *r, const cz_g2_jac *p);
void cz_g2_jac_batch_to_affine(cz_g2_affine *r, const cz_g2_jac *p, size_t n);
bool cz_g2_jac_eq(const cz_g2_jac *a, const cz_g2_jac *b);
void cz_g2_jac_neg(cz_g2_jac *r, const cz_g2_jac *p);
void cz_g2_jac_dbl(cz_g2_jac *r, const cz_g2_jac *p);
void cz_g2_jac_add(cz_g2_jac *r, const cz_g2_jac *a, const cz_g2_jac *b);
void cz_g2_jac_add_affine(cz_g2_jac *r, const cz_g2_jac *a, const cz_g2_affine *b);
/* r = k·P, k a field element (any value < r); constant time in k. */
void cz_g2_mul(cz_g2_jac *r, const cz_g2_jac *p, const cz_fr *k);

void cz_g2_xyzz_set_inf(cz_g2_xyzz *r);
void cz_g2_xyzz_add_affine(cz_g2_xyzz *r, const cz_g2_xyzz *a, const cz_g2_affine *b);
void cz_g2_xyzz_add(cz_g2_xyzz *r, const cz_g2_xyzz *a, const cz_g2_xyzz *b);
void cz_g2_xyzz_dbl(cz_g2_xyzz *r, const cz_g2_xyzz *p);
void cz_g2_xyzz_to_jac(cz_g2_jac *r, const cz_g2_xyzz *p);

/* Additions beyond the first API (zk/curve_impl.h has the formulas' costs). */
bool cz_g2_jac_on_curve(const cz_g2_jac *p);        /* infinity: true */
bool cz_g2_xyzz_is_inf(const cz_g2_xyzz *p);
bool cz_g2_jac_eq_affine(const cz_g2_jac *a, const cz_g2_affine *b);
bool cz_g2_xyzz_eq(const cz_g2_xyzz *a, const cz_g2_xyzz *b);
void cz_g2_xyzz_neg(cz_g2_xyzz *r, const cz_g2_xyzz *p);
void cz_g2_xyzz_from_affine(cz_g2_xyzz *r, const cz_g2_affine *p);
void cz_g2_jac_to_xyzz(cz_g2_xyzz *r, const cz_g2_jac *p);
/* r = k·P for a PUBLIC integer k of nlimbs little-endian limbs; variable time. */
void cz_g2_mul_vartime(cz_g2_jac *r, const cz_g2_jac *p, const uint64_t *k, size_t nlimbs);
/* r = h·P, h the cofactor: maps any curve point into the subgroup. */
void cz_g2_clear_cofactor(cz_g2_jac *r, const cz_g2_jac *p);
/* The untwist-Frobenius-twist endomorphism; x·P on G2. */
void cz_g2_psi(cz_g2_jac *r, const cz_g2_jac *p);

/* zcash encodings (big-endian x as c1 then c0, flag bits in the top three bits of byte 0:
 * compressed, infinity, y is lexicographically largest).  Decoders return 0
 * or a negative CZ_EPOINT_* code; they check on-curve and subgroup. */
void cz_g2_to_compressed(uint8_t out[CZ_G2_COMPRESSED_BYTES], const cz_g2_affine *p);
int cz_g2_from_compressed(cz_g2_affine *r, const uint8_t in[CZ_G2_COMPRESSED_BYTES]);
void cz_g2_to_uncompressed(uint8_t out[CZ_G2_UNCOMPRESSED_BYTES], const cz_g2_affine *p);
int cz_g2_from_uncompressed(cz_g2_affine *r, const uint8_t in[CZ_G2_UNCOMPRESSED_BYTES]);

#endif

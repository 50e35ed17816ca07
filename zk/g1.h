/* SPDX-License-Identifier: MIT */
/*
 * zk/g1.h — BLS12-381 G1: y^2 = x^3 + 4 over Fp.
 *
 * Affine points use (0, 0) for the point at infinity (it is not on the curve,
 * and it is how .zkey files store infinity).  Jacobian (X/Z^2, Y/Z^3) and
 * XYZZ (X/ZZ, Y/ZZZ, ZZ^3 = ZZZ^2) points have Z = 0 / ZZ = 0 at infinity.
 * All functions accept infinity anywhere.
 */
#ifndef CZ_G1_H
#define CZ_G1_H

#include "zk/fp.h"
#include "zk/fr.h"

typedef struct { cz_fp x, y; } cz_g1_affine;
typedef struct { cz_fp x, y, z; } cz_g1_jac;
typedef struct { cz_fp x, y, zz, zzz; } cz_g1_xyzz;

#define CZ_G1_COMPRESSED_BYTES 48
#define CZ_G1_UNCOMPRESSED_BYTES 96

extern const cz_g1_affine cz_g1_generator;

bool cz_g1_affine_is_inf(const cz_g1_affine *p);
bool cz_g1_affine_eq(const cz_g1_affine *a, const cz_g1_affine *b);
void cz_g1_affine_neg(cz_g1_affine *r, const cz_g1_affine *p);
bool cz_g1_affine_on_curve(const cz_g1_affine *p);    /* infinity: true */
bool cz_g1_affine_in_subgroup(const cz_g1_affine *p); /* on curve and r·P = O */

void cz_g1_jac_set_inf(cz_g1_jac *r);
bool cz_g1_jac_is_inf(const cz_g1_jac *p);
void cz_g1_jac_from_affine(cz_g1_jac *r, const cz_g1_affine *p);
void cz_g1_jac_to_affine(cz_g1_affine *r, const cz_g1_jac *p);
void cz_g1_jac_batch_to_affine(cz_g1_affine *r, const cz_g1_jac *p, size_t n);
bool cz_g1_jac_eq(const cz_g1_jac *a, const cz_g1_jac *b);
void cz_g1_jac_neg(cz_g1_jac *r, const cz_g1_jac *p);
void cz_g1_jac_dbl(cz_g1_jac *r, const cz_g1_jac *p);
void cz_g1_jac_add(cz_g1_jac *r, const cz_g1_jac *a, const cz_g1_jac *b);
void cz_g1_jac_add_affine(cz_g1_jac *r, const cz_g1_jac *a, const cz_g1_affine *b);
/* r = k·P, k a field element (any value < r); constant time in k. */
void cz_g1_mul(cz_g1_jac *r, const cz_g1_jac *p, const cz_fr *k);

void cz_g1_xyzz_set_inf(cz_g1_xyzz *r);
void cz_g1_xyzz_add_affine(cz_g1_xyzz *r, const cz_g1_xyzz *a, const cz_g1_affine *b);
void cz_g1_xyzz_add(cz_g1_xyzz *r, const cz_g1_xyzz *a, const cz_g1_xyzz *b);
void cz_g1_xyzz_dbl(cz_g1_xyzz *r, const cz_g1_xyzz *p);
void cz_g1_xyzz_to_jac(cz_g1_jac *r, const cz_g1_xyzz *p);

/* Additions beyond the first API (zk/curve_impl.h has the formulas' costs). */
bool cz_g1_jac_on_curve(const cz_g1_jac *p);        /* infinity: true */
bool cz_g1_xyzz_is_inf(const cz_g1_xyzz *p);
bool cz_g1_jac_eq_affine(const cz_g1_jac *a, const cz_g1_affine *b);
bool cz_g1_xyzz_eq(const cz_g1_xyzz *a, const cz_g1_xyzz *b);
void cz_g1_xyzz_neg(cz_g1_xyzz *r, const cz_g1_xyzz *p);
void cz_g1_xyzz_from_affine(cz_g1_xyzz *r, const cz_g1_affine *p);
void cz_g1_jac_to_xyzz(cz_g1_xyzz *r, const cz_g1_jac *p);
/* r = k·P for a PUBLIC integer k of nlimbs little-endian limbs; variable time. */
void cz_g1_mul_vartime(cz_g1_jac *r, const cz_g1_jac *p, const uint64_t *k, size_t nlimbs);
/* r = h·P, h the cofactor: maps any curve point into the subgroup. */
void cz_g1_clear_cofactor(cz_g1_jac *r, const cz_g1_jac *p);

/* zcash encodings (big-endian x, flag bits in the top three bits of byte 0:
 * compressed, infinity, y is lexicographically largest).  Decoders return 0
 * or a negative CZ_EPOINT_* code; they check on-curve and subgroup. */
enum { CZ_EPOINT_FLAGS = -1, CZ_EPOINT_RANGE = -2, CZ_EPOINT_CURVE = -3, CZ_EPOINT_SUBGROUP = -4 };
const char *cz_point_strerror(int err);
void cz_g1_to_compressed(uint8_t out[CZ_G1_COMPRESSED_BYTES], const cz_g1_affine *p);
int cz_g1_from_compressed(cz_g1_affine *r, const uint8_t in[CZ_G1_COMPRESSED_BYTES]);
void cz_g1_to_uncompressed(uint8_t out[CZ_G1_UNCOMPRESSED_BYTES], const cz_g1_affine *p);
int cz_g1_from_uncompressed(cz_g1_affine *r, const uint8_t in[CZ_G1_UNCOMPRESSED_BYTES]);

#endif

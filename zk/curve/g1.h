/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/g1.h — BLS12-381 G1: y^2 = x^3 + 4 over Fp.
 *
 * Affine points use (0, 0) for the point at infinity (it is not on the curve,
 * and it is how .zkey files store infinity).  Jacobian (X/Z^2, Y/Z^3) and
 * XYZZ (X/ZZ, Y/ZZZ, ZZ^3 = ZZZ^2) points have Z = 0 / ZZ = 0 at infinity.
 * All functions accept infinity anywhere.
 */
#ifndef CZ_G1_H
#define CZ_G1_H

#include "zk/field/fp.h"
#include "zk/field/fr.h"
#include "zk/curve/curve_decl_tmpl_pvt.h"

CZ_CURVE_DECLARE(cz_g1, cz_fp, cz_fr);

#define CZ_G1_COMPRESSED_BYTES 48
#define CZ_G1_UNCOMPRESSED_BYTES 96

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

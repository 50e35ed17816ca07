/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/g2.h — BLS12-381 G2: y^2 = x^3 + 4(1 + u) over Fp2 (the M-type twist).
 *
 * Affine points use (0, 0) for the point at infinity (it is not on the curve,
 * and it is how .zkey files store infinity).  Jacobian (X/Z^2, Y/Z^3) and
 * XYZZ (X/ZZ, Y/ZZZ, ZZ^3 = ZZZ^2) points have Z = 0 / ZZ = 0 at infinity.
 * All functions accept infinity anywhere.
 */
#ifndef CZ_G2_H
#define CZ_G2_H

#include "zk/field/fp2.h"
#include "zk/field/fr.h"
#include "zk/curve/curve_decl_tmpl_pvt.h"
#include "zk/curve/g1.h" /* CZ_EPOINT_* */

CZ_CURVE_DECLARE(cz_g2, cz_fp2, cz_fr);

#define CZ_G2_COMPRESSED_BYTES 96
#define CZ_G2_UNCOMPRESSED_BYTES 192

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

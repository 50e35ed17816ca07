/* SPDX-License-Identifier: MIT */
/*
 * zk/point_codec.c — the zcash encodings of G1 and G2 points (Filecoin
 * parameter files, proofs, the IETF BLS signature draft).
 *
 * Layout: big-endian coordinates; a G2 coordinate c0 + c1·u is written c1
 * then c0.  The top three bits of byte 0 are flags:
 *   0x80  compressed (x only; y recovered by a square root)
 *   0x40  infinity (all other bits and bytes zero)
 *   0x20  compressed only: y is the lexicographically largest root
 * Decoders check, in this order, the flags (CZ_EPOINT_FLAGS), each
 * coordinate < p (CZ_EPOINT_RANGE), the curve equation / square-root
 * existence (CZ_EPOINT_CURVE) and subgroup membership (CZ_EPOINT_SUBGROUP),
 * so every failure has one code.  On failure *r is left unspecified.
 */
#include <string.h>

#include "zk/bls12_381_curve.h"
#include "zk/g1.h"
#include "zk/g2.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20
#define FLAG_MASK 0xe0

const char *cz_point_strerror(int err)
{
	switch (err) {
	case 0:
		return "valid point";
	case CZ_EPOINT_FLAGS:
		return "bad flag bits (compressed/infinity/sign) or non-zero infinity encoding";
	case CZ_EPOINT_RANGE:
		return "coordinate not below the field modulus p";
	case CZ_EPOINT_CURVE:
		return "point not on the curve";
	case CZ_EPOINT_SUBGROUP:
		return "point not in the prime-order subgroup";
	default:
		return "unknown point error";
	}
}

/* Checks the flag byte against the expected compression; for infinity also
 * that every other bit is zero.  Returns 1 for infinity, 0 for a finite
 * point, or CZ_EPOINT_FLAGS. */
static int check_flags(const uint8_t *in, size_t len, bool compressed)
{
	uint8_t f = in[0] & FLAG_MASK;

	if (!(f & FLAG_COMPRESSED) != !compressed)
		return CZ_EPOINT_FLAGS;
	if (!compressed && (f & FLAG_SIGN))
		return CZ_EPOINT_FLAGS;
	if (!(f & FLAG_INFINITY))
		return 0;
	if (f & FLAG_SIGN || in[0] & ~FLAG_MASK)
		return CZ_EPOINT_FLAGS;
	for (size_t i = 1; i < len; i++)
		if (in[i])
			return CZ_EPOINT_FLAGS;
	return 1;
}

/* A big-endian Fp value whose first byte may carry flags. */
static bool fp_from_be_masked(cz_fp *r, const uint8_t *in, bool first)
{
	uint8_t b[CZ_FP_BYTES];

	memcpy(b, in, sizeof(b));
	if (first)
		b[0] &= (uint8_t)~FLAG_MASK;
	return cz_fp_from_bytes_be(r, b);
}

/* ---- G1 --------------------------------------------------------------- */

void cz_g1_to_compressed(uint8_t out[CZ_G1_COMPRESSED_BYTES], const cz_g1_affine *p)
{
	if (cz_g1_affine_is_inf(p)) {
		memset(out, 0, CZ_G1_COMPRESSED_BYTES);
		out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
		return;
	}
	cz_fp_to_bytes_be(out, &p->x);
	out[0] |= FLAG_COMPRESSED;
	if (cz_fp_lexicographically_largest(&p->y))
		out[0] |= FLAG_SIGN;
}

void cz_g1_to_uncompressed(uint8_t out[CZ_G1_UNCOMPRESSED_BYTES], const cz_g1_affine *p)
{
	if (cz_g1_affine_is_inf(p)) {
		memset(out, 0, CZ_G1_UNCOMPRESSED_BYTES);
		out[0] = FLAG_INFINITY;
		return;
	}
	cz_fp_to_bytes_be(out, &p->x);
	cz_fp_to_bytes_be(out + CZ_FP_BYTES, &p->y);
}

int cz_g1_from_compressed(cz_g1_affine *r, const uint8_t in[CZ_G1_COMPRESSED_BYTES])
{
	int f = check_flags(in, CZ_G1_COMPRESSED_BYTES, true);
	cz_fp y2;

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = cz_fp_zero;
		r->y = cz_fp_zero;
		return 0;
	}
	if (!fp_from_be_masked(&r->x, in, true))
		return CZ_EPOINT_RANGE;
	cz_fp_sqr(&y2, &r->x);
	cz_fp_mul(&y2, &y2, &r->x);
	cz_fp_add(&y2, &y2, &cz_bls12_381_g1_b);
	if (!cz_fp_sqrt(&r->y, &y2))
		return CZ_EPOINT_CURVE;
	if (cz_fp_lexicographically_largest(&r->y) != !!(in[0] & FLAG_SIGN))
		cz_fp_neg(&r->y, &r->y);
	if (!cz_g1_affine_in_subgroup(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

int cz_g1_from_uncompressed(cz_g1_affine *r, const uint8_t in[CZ_G1_UNCOMPRESSED_BYTES])
{
	int f = check_flags(in, CZ_G1_UNCOMPRESSED_BYTES, false);

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = cz_fp_zero;
		r->y = cz_fp_zero;
		return 0;
	}
	if (!fp_from_be_masked(&r->x, in, true) || !fp_from_be_masked(&r->y, in + CZ_FP_BYTES, false))
		return CZ_EPOINT_RANGE;
	/* (0, 0) is our infinity, but with the flag clear it is just off-curve. */
	if (cz_g1_affine_is_inf(r) || !cz_g1_affine_on_curve(r))
		return CZ_EPOINT_CURVE;
	if (!cz_g1_affine_in_subgroup(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

/* ---- G2 --------------------------------------------------------------- */

static void fp2_to_be(uint8_t out[2 * CZ_FP_BYTES], const cz_fp2 *a)
{
	cz_fp_to_bytes_be(out, &a->c1);
	cz_fp_to_bytes_be(out + CZ_FP_BYTES, &a->c0);
}

static bool fp2_from_be(cz_fp2 *r, const uint8_t in[2 * CZ_FP_BYTES], bool first)
{
	return fp_from_be_masked(&r->c1, in, first) && fp_from_be_masked(&r->c0, in + CZ_FP_BYTES, false);
}

void cz_g2_to_compressed(uint8_t out[CZ_G2_COMPRESSED_BYTES], const cz_g2_affine *p)
{
	if (cz_g2_affine_is_inf(p)) {
		memset(out, 0, CZ_G2_COMPRESSED_BYTES);
		out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
		return;
	}
	fp2_to_be(out, &p->x);
	out[0] |= FLAG_COMPRESSED;
	if (cz_fp2_lexicographically_largest(&p->y))
		out[0] |= FLAG_SIGN;
}

void cz_g2_to_uncompressed(uint8_t out[CZ_G2_UNCOMPRESSED_BYTES], const cz_g2_affine *p)
{
	if (cz_g2_affine_is_inf(p)) {
		memset(out, 0, CZ_G2_UNCOMPRESSED_BYTES);
		out[0] = FLAG_INFINITY;
		return;
	}
	fp2_to_be(out, &p->x);
	fp2_to_be(out + 2 * CZ_FP_BYTES, &p->y);
}

int cz_g2_from_compressed(cz_g2_affine *r, const uint8_t in[CZ_G2_COMPRESSED_BYTES])
{
	int f = check_flags(in, CZ_G2_COMPRESSED_BYTES, true);
	cz_fp2 y2;

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = cz_fp2_zero;
		r->y = cz_fp2_zero;
		return 0;
	}
	if (!fp2_from_be(&r->x, in, true))
		return CZ_EPOINT_RANGE;
	cz_fp2_sqr(&y2, &r->x);
	cz_fp2_mul(&y2, &y2, &r->x);
	cz_fp2_add(&y2, &y2, &cz_bls12_381_g2_b);
	if (!cz_fp2_sqrt(&r->y, &y2))
		return CZ_EPOINT_CURVE;
	if (cz_fp2_lexicographically_largest(&r->y) != !!(in[0] & FLAG_SIGN))
		cz_fp2_neg(&r->y, &r->y);
	if (!cz_g2_affine_in_subgroup(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

int cz_g2_from_uncompressed(cz_g2_affine *r, const uint8_t in[CZ_G2_UNCOMPRESSED_BYTES])
{
	int f = check_flags(in, CZ_G2_UNCOMPRESSED_BYTES, false);

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = cz_fp2_zero;
		r->y = cz_fp2_zero;
		return 0;
	}
	if (!fp2_from_be(&r->x, in, true) || !fp2_from_be(&r->y, in + 2 * CZ_FP_BYTES, false))
		return CZ_EPOINT_RANGE;
	if (cz_g2_affine_is_inf(r) || !cz_g2_affine_on_curve(r))
		return CZ_EPOINT_CURVE;
	if (!cz_g2_affine_in_subgroup(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

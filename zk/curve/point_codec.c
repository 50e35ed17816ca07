/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/point_codec.c — the zcash encodings of G1 and G2 points (Filecoin
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

#include "zk/curve/bls12_381_curve.h"
#include "zk/curve/g1.h"
#include "zk/curve/g2.h"

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

/* One big-endian coordinate; the first of a point may carry the flags. */
static void fp_to_be(uint8_t out[CZ_FP_BYTES], const cz_fp *a)
{
	cz_fp_to_bytes_be(out, a);
}

static bool fp_from_be(cz_fp *r, const uint8_t *in, bool first)
{
	uint8_t b[CZ_FP_BYTES];

	memcpy(b, in, sizeof(b));
	if (first)
		b[0] &= (uint8_t)~FLAG_MASK;
	return cz_fp_from_bytes_be(r, b);
}

/* c1 first, then c0. */
static void fp2_to_be(uint8_t out[2 * CZ_FP_BYTES], const cz_fp2 *a)
{
	cz_fp_to_bytes_be(out, &a->c1);
	cz_fp_to_bytes_be(out + CZ_FP_BYTES, &a->c0);
}

static bool fp2_from_be(cz_fp2 *r, const uint8_t in[2 * CZ_FP_BYTES], bool first)
{
	return fp_from_be(&r->c1, in, first) && fp_from_be(&r->c0, in + CZ_FP_BYTES, false);
}

#define G g1
#define GU G1
#define F fp
#include "zk/curve/point_codec_tmpl_pvt.h"
#undef G
#undef GU
#undef F

#define G g2
#define GU G2
#define F fp2
#include "zk/curve/point_codec_tmpl_pvt.h"
#undef G
#undef GU
#undef F

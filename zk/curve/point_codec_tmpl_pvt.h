/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/point_codec_tmpl_pvt.h — internal to zk/curve/point_codec.c; do not include
 * directly.  The four zcash codecs of one group, written once.  The includer
 * defines G (g1 | g2), GU (G1 | G2) and F (fp | fp2: the coordinate field),
 * and provides static F_to_be(out, a) and F_from_be(r, in, first) for one
 * big-endian coordinate (first: the flag bits of byte 0 are masked off).
 * The layout, the flags and the order of the checks are in point_codec.c.
 */
#define PC_CAT_(a, b) a##b
#define PC_CAT(a, b) PC_CAT_(a, b)
#define PC_G(name) PC_CAT(PC_CAT(cz_, G), name)         /* cz_g1_name */
#define PC_F(name) PC_CAT(PC_CAT(cz_, F), name)         /* cz_fp_name */
#define PC_AFF PC_G(_affine)
#define PC_CB (PC_CAT(PC_CAT(CZ_, GU), _UNCOMPRESSED_BYTES) / 2)   /* one coordinate */
#define PC_COMP_BYTES PC_CAT(PC_CAT(CZ_, GU), _COMPRESSED_BYTES)
#define PC_UNCOMP_BYTES PC_CAT(PC_CAT(CZ_, GU), _UNCOMPRESSED_BYTES)
#define PC_TO_BE PC_CAT(F, _to_be)
#define PC_FROM_BE PC_CAT(F, _from_be)

void PC_G(_to_compressed)(uint8_t out[PC_COMP_BYTES], const PC_AFF *p)
{
	if (PC_G(_affine_is_inf)(p)) {
		memset(out, 0, PC_COMP_BYTES);
		out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
		return;
	}
	PC_TO_BE(out, &p->x);
	out[0] |= FLAG_COMPRESSED;
	if (PC_F(_lexicographically_largest)(&p->y))
		out[0] |= FLAG_SIGN;
}

void PC_G(_to_uncompressed)(uint8_t out[PC_UNCOMP_BYTES], const PC_AFF *p)
{
	if (PC_G(_affine_is_inf)(p)) {
		memset(out, 0, PC_UNCOMP_BYTES);
		out[0] = FLAG_INFINITY;
		return;
	}
	PC_TO_BE(out, &p->x);
	PC_TO_BE(out + PC_CB, &p->y);
}

int PC_G(_from_compressed)(PC_AFF *r, const uint8_t in[PC_COMP_BYTES])
{
	int f = check_flags(in, PC_COMP_BYTES, true);
	PC_F() y2;

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = PC_F(_zero);
		r->y = PC_F(_zero);
		return 0;
	}
	if (!PC_FROM_BE(&r->x, in, true))
		return CZ_EPOINT_RANGE;
	PC_F(_sqr)(&y2, &r->x);
	PC_F(_mul)(&y2, &y2, &r->x);
	PC_F(_add)(&y2, &y2, &PC_CAT(PC_CAT(cz_bls12_381_, G), _b));
	if (!PC_F(_sqrt)(&r->y, &y2))
		return CZ_EPOINT_CURVE;
	if (PC_F(_lexicographically_largest)(&r->y) != !!(in[0] & FLAG_SIGN))
		PC_F(_neg)(&r->y, &r->y);
	if (!PC_G(_affine_in_subgroup)(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

int PC_G(_from_uncompressed)(PC_AFF *r, const uint8_t in[PC_UNCOMP_BYTES])
{
	int f = check_flags(in, PC_UNCOMP_BYTES, false);

	if (f < 0)
		return f;
	if (f == 1) {
		r->x = PC_F(_zero);
		r->y = PC_F(_zero);
		return 0;
	}
	if (!PC_FROM_BE(&r->x, in, true) || !PC_FROM_BE(&r->y, in + PC_CB, false))
		return CZ_EPOINT_RANGE;
	/* (0, 0) is our infinity, but with the flag clear it is just off-curve. */
	if (PC_G(_affine_is_inf)(r) || !PC_G(_affine_on_curve)(r))
		return CZ_EPOINT_CURVE;
	if (!PC_G(_affine_in_subgroup)(r))
		return CZ_EPOINT_SUBGROUP;
	return 0;
}

#undef PC_CAT_
#undef PC_CAT
#undef PC_G
#undef PC_F
#undef PC_AFF
#undef PC_CB
#undef PC_COMP_BYTES
#undef PC_UNCOMP_BYTES
#undef PC_TO_BE
#undef PC_FROM_BE

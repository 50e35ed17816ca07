/* SPDX-License-Identifier: MIT */
/*
 * curves/shkey.c — a resident key in a shared region.
 *
 * At load the key's arrays (points, coefficients, row index) move out of
 * the heap into one memfd region (alloc/region.h; hugepages where
 * reserved) and the key's pointers are re-pointed there, so cuzkd keeps a
 * single copy.  The region starts with a header that says where each array
 * lies, by offset: a device child (engine/device/devproc.c) that receives the fd
 * maps it read-only and builds its own struct cz_groth16_key over it
 * (cz_shkey_attach), so a restarted child reads no file and copies nothing.
 * The key's fixed-base tables (zk/msm/msm_fixed.h) are arrays of the
 * region like the others (the header keeps each one's window and stride),
 * so a child proves with them too; tables planned before the share get
 * their place zeroed and are built there after it (engine/control/tables.c),
 * so the region holds their only copy.
 * Both curves' keys are shared alike (curves/shkey_tmpl_pvt.h); the
 * header's magic says which curve a region holds (cz_shkey_curve).
 */
#include "curves/shkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NARR (8 + CZ_G16_FX)   /* the key's arrays, then its fixed-base tables */
#define ALIGN64(x) (((x) + 63) & ~(size_t)63)

/* Spreads r's pages round-robin over the nodes in mask (bit n: node n),
 * before any is touched; then prefaults it as cz_region_create would. */
static void interleave(struct cz_region *r, uint64_t mask)
{
	unsigned long m[1] = { (unsigned long)mask };
	if (mask & (mask - 1) &&
	    syscall(SYS_mbind, r->base, r->size, 3 /* MPOL_INTERLEAVE */, m, 65ul, 0u))
		fprintf(stderr, "cuzkd: cannot interleave a key over nodes 0x%llx: %s (its pages go where "
			"first touched)\n", (unsigned long long)mask, strerror(errno));
	cz_region_populate(r, 0, r->size);
}

#define SK(n) cz_shkey_##n
#define SK_KEY cz_groth16_key
#define SK_COEF cz_groth16_coef
#define SK_G1 cz_g1
#define SK_G2 cz_g2
#define SK_KEY_FREE cz_groth16_key_free
#define SK_MAGIC "cuzkkey1"
#include "curves/shkey_tmpl_pvt.h"
#undef SK
#undef SK_KEY
#undef SK_COEF
#undef SK_G1
#undef SK_G2
#undef SK_KEY_FREE
#undef SK_MAGIC

#define SK(n) cz_bn254_shkey_##n
#define SK_KEY cz_bn254_groth16_key
#define SK_COEF cz_bn254_groth16_coef
#define SK_G1 cz_bn254_g1
#define SK_G2 cz_bn254_g2
#define SK_KEY_FREE cz_bn254_groth16_key_free
#define SK_MAGIC "cuzkkbn1"
#include "curves/shkey_tmpl_pvt.h"

int cz_shkey_curve(const struct cz_region *r, enum cz_curve *curve)
{
	if (r->size < 8)
		return -EPROTO;
	if (!memcmp(r->base, "cuzkkey1", 8))
		*curve = CZ_CURVE_BLS12_381;
	else if (!memcmp(r->base, "cuzkkbn1", 8))
		*curve = CZ_CURVE_BN254;
	else
		return -EPROTO;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * curves/shkey.h — a resident key's arrays in one shared region, named by
 * offsets in its header, so a device child maps the key instead of reading
 * it (curves/shkey.c).
 */
#ifndef CZ_SHKEY_H
#define CZ_SHKEY_H

#include "alloc/region.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/curve/curve_id.h"
#include "zk/groth16/groth16.h"

#include <stddef.h>
#include <stdint.h>

/* Moves k's arrays into a new region r and re-points k there, its pages
 * interleaved over the NUMA nodes in `nodes` (bit n: node n; fewer than
 * two: wherever first touched).  A fixed-base table that is planned
 * (P_key_tables_plan: shaped, tab NULL) gets its place too, zeroed, with
 * tab pointing there for P_key_tables_fill to build in place (so the
 * region holds the only copy of the tables; fill it before the region is
 * sent to anyone).  0, or -errno with err set (k is then untouched). */
int cz_shkey_share(struct cz_groth16_key *k, struct cz_region *r, uint64_t nodes, char *err, size_t cap);
/* Frees k: its region if it has one (r->base), else its heap arrays. */
void cz_shkey_free(struct cz_groth16_key *k, struct cz_region *r);
/* k over a mapping of such a region (another process's; read-only is
 * enough): 0, or -EPROTO when the header disagrees with the mapping. */
int cz_shkey_attach(const struct cz_region *r, struct cz_groth16_key *k);
/* The same three for a BN254 key. */
int cz_bn254_shkey_share(struct cz_bn254_groth16_key *k, struct cz_region *r, uint64_t nodes,
			 char *err, size_t cap);
void cz_bn254_shkey_free(struct cz_bn254_groth16_key *k, struct cz_region *r);
int cz_bn254_shkey_attach(const struct cz_region *r, struct cz_bn254_groth16_key *k);
/* The curve of the key a region holds, from its header: 0, or -EPROTO. */
int cz_shkey_curve(const struct cz_region *r, enum cz_curve *curve);

#endif

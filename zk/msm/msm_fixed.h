/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/msm_fixed.h — MSMs over fixed bases with precomputed tables: for a
 * key the daemon keeps resident, each base P_i is stored with its multiples
 * 2^(r·s·c)·P_i (r < rows), so one bucket set serves s windows at once (all
 * of them when s = 1): no per-window running sum and no doublings between
 * them.  Design, table layout, cost model: zk/msm/msm_fixed.c.
 *
 * Scalars and bases as zk/msm/msm.h (plain integers < r; (0, 0) is
 * infinity).  A table is built once from the bases (seconds: 255 doublings
 * per base in all) and then serves any number of MSMs over any prefix of
 * them.
 */
#ifndef CZ_MSM_FIXED_H
#define CZ_MSM_FIXED_H

#include <stddef.h>
#include <stdint.h>

#include "zk/msm/bn254_msm.h"
#include "zk/msm/msm.h"

struct cz_pool;

/* Tables for n bases.  tab holds n·rows affine points, point-major:
 * tab[i·rows + r] = 2^(r·stride·c)·P_i, so one base's multiples lie
 * together and a pass over the points reads the table once, in order. */
struct cz_msm_fixed {
	void *tab;          /* aligned_alloc'd; NULL: no table */
	size_t n;           /* bases */
	unsigned c;         /* window bits */
	unsigned nwin;      /* windows, ceil(255 / c) */
	unsigned stride;    /* windows per row: row r covers r·stride .. r·stride + stride - 1 */
	unsigned rows;      /* ceil(nwin / stride) */
	uint64_t bytes;     /* n · rows · sizeof(affine point) */
};

/* Bytes of a table of n points of aff_bytes for window c, stride s. */
uint64_t cz_msm_fixed_bytes(size_t n, size_t aff_bytes, unsigned c, unsigned s);

/* The (c, stride) the cost model (zk/msm/msm_fixed.c) finds fastest for an
 * MSM of n full-width scalars on threads threads, among tables of at most
 * max_bytes.  1 with *c, *stride set when a table beats the variable-base
 * MSM; 0 when none does (or none fits). */
int cz_msm_fixed_choose(size_t n, unsigned threads, size_t aff_bytes, uint64_t max_bytes,
			unsigned *c, unsigned *stride);

/* Sets f's shape for n bases of aff_bytes at window c (3..20), stride s
 * (1..nwin): n, c, nwin, stride, rows, bytes; tab NULL.  0, or -EINVAL (f
 * zeroed).  The caller may then point tab at f->bytes of its own memory
 * (a shared region) and fill it (_fixed_fill below). */
int cz_msm_fixed_shape(struct cz_msm_fixed *f, size_t n, size_t aff_bytes, unsigned c, unsigned s);

/* Frees f's table (f may be zeroed or NULL; never one whose tab is the
 * caller's memory, see _fixed_fill). */
void cz_msm_fixed_free(struct cz_msm_fixed *f);

/* _fixed_build: builds f for bases[0..n) at window c (3..20) and stride s
 * (1..nwin) on pool (may be NULL), its table aligned_alloc'd.  done (may
 * be NULL) counts the bases finished, for a progress report.  0, or
 * -EINVAL (c or s out of range), -ENOMEM.
 * _fixed_fill: the same into memory the caller owns: f shaped by
 * cz_msm_fixed_shape for these bases (sizeof AFF), f->tab pointing at
 * f->bytes writable bytes (entries written in place: no copy of the table
 * is ever held, only a chunk's scratch, 256 bases' rows of
 * Jacobian points a thread).  0, -EINVAL (no tab, or f not shaped for
 * AFF), -ENOMEM (scratch; tab is left, the caller's to drop). */
#define CZ_MSM_FIXED_DECLARE(MSM, AFF, JAC)                                                      \
	int MSM##_fixed_build(struct cz_msm_fixed *f, const AFF *bases, size_t n, unsigned c,   \
			      unsigned s, struct cz_pool *pool, _Atomic uint64_t *done);         \
	int MSM##_fixed_fill(struct cz_msm_fixed *f, const AFF *bases, struct cz_pool *pool,    \
			     _Atomic uint64_t *done);                                           \
	int MSM##_fixed(JAC *r, const struct cz_msm_fixed *f, const AFF *bases,                 \
			const cz_scalar *scalars, size_t n, struct cz_pool *pool);               \
	int MSM##_fixed_tuned(JAC *r, const struct cz_msm_fixed *f, const AFF *bases,           \
			      const cz_scalar *scalars, size_t n, struct cz_pool *pool,          \
			      const struct cz_msm_tune *tune)
/* r = Σ scalars[i]·bases[i], i < n <= f->n, with f built from bases: the
 * same result as the variable-base MSM (zk/msm/msm.h).  0 or -ENOMEM.
 * _tuned: tune's chunks and batch override the plan (window and bucket
 * kind are the table's). */
CZ_MSM_FIXED_DECLARE(cz_msm_g1, cz_g1_affine, cz_g1_jac);
CZ_MSM_FIXED_DECLARE(cz_msm_g2, cz_g2_affine, cz_g2_jac);
CZ_MSM_FIXED_DECLARE(cz_bn254_msm_g1, cz_bn254_g1_affine, cz_bn254_g1_jac);
CZ_MSM_FIXED_DECLARE(cz_bn254_msm_g2, cz_bn254_g2_affine, cz_bn254_g2_jac);

#endif

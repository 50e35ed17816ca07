/* SPDX-License-Identifier: MIT */
/* zk/msm/fixed_base.c — windowed fixed-base multiplication, G1 and G2 of both
 * curves (see fixed_base.h): one macro body, four instances. */
#include "zk/msm/fixed_base.h"
#include "lib/pool.h"

#include <errno.h>
#include <stdlib.h>

#define WBITS 8
#define NWIN 32                 /* 32 × 8 = 256 ≥ 255 scalar bits */
#define WSIZE (1 << WBITS)
#define CHUNK 1024

#define FIXED_BASE(G, FR)                                                                       \
	struct G##_fb {                                                                     \
		G##_affine *tab; /* [NWIN][WSIZE]; entry 0 unused */                  \
		G##_affine *out;                                                       \
		const FR *k;                                                             \
		size_t n;                                                                   \
		int err;                                                                    \
	};                                                                                  \
                                                                                            \
	static void G##_fb_chunk(void *v, size_t ci)                                        \
	{                                                                                   \
		struct G##_fb *f = v;                                                       \
		size_t lo = ci * CHUNK, hi = lo + CHUNK < f->n ? lo + CHUNK : f->n;         \
		G##_jac *acc = malloc((hi - lo) * sizeof(*acc));                       \
		if (!acc) {                                                                 \
			__atomic_store_n(&f->err, -ENOMEM, __ATOMIC_RELAXED);              \
			return;                                                             \
		}                                                                           \
		for (size_t i = lo; i < hi; i++) {                                          \
			uint64_t e[4];                                                    \
			FR##_from_mont(e, &f->k[i]);                                       \
			G##_jac_set_inf(&acc[i - lo]);                                 \
			for (int w = 0; w < NWIN; w++) {                                    \
				unsigned d = (unsigned)(e[w / 8] >> (8 * (w % 8))) & 0xff;  \
				if (d)                                                      \
					G##_jac_add_affine(&acc[i - lo], &acc[i - lo], \
								&f->tab[w * WSIZE + d]);   \
			}                                                                   \
		}                                                                           \
		G##_jac_batch_to_affine(f->out + lo, acc, hi - lo);                    \
		free(acc);                                                                  \
	}                                                                                   \
                                                                                            \
	int G##_fixed_base_many(G##_affine *out, const G##_affine *g,        \
				     const FR *k, size_t n, struct cz_pool *pool)        \
	{                                                                                   \
		struct G##_fb f = { .out = out, .k = k, .n = n };                           \
		G##_jac *row = malloc(WSIZE * sizeof(*row));                           \
		f.tab = malloc((size_t)NWIN * WSIZE * sizeof(*f.tab));                      \
		if (!row || !f.tab) {                                                       \
			free(row);                                                          \
			free(f.tab);                                                        \
			return -ENOMEM;                                                     \
		}                                                                           \
		G##_jac base;                                                          \
		G##_jac_from_affine(&base, g);                                         \
		for (int w = 0; w < NWIN; w++) {                                            \
			G##_jac_set_inf(&row[0]);                                      \
			for (int d = 1; d < WSIZE; d++)                                     \
				G##_jac_add(&row[d], &row[d - 1], &base);              \
			G##_jac_batch_to_affine(f.tab + w * WSIZE, row, WSIZE);        \
			for (int b = 0; b < WBITS; b++)                                     \
				G##_jac_dbl(&base, &base);                             \
		}                                                                           \
		free(row);                                                                  \
		cz_pool_for(pool, (n + CHUNK - 1) / CHUNK, G##_fb_chunk, &f);               \
		free(f.tab);                                                                \
		return f.err;                                                               \
	}

FIXED_BASE(cz_g1, cz_fr)
FIXED_BASE(cz_g2, cz_fr)
FIXED_BASE(cz_bn254_g1, cz_bn254_fr)
FIXED_BASE(cz_bn254_g2, cz_bn254_fr)

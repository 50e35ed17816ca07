/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt_perm.c — the NTT's element-wise passes: the bit-reversal
 * permutation, and the scalings by powers (coset shifts, 1/n) fused with the
 * index reversal k -> n-k that turns a forward DFT into an inverse one.
 *
 * Bit reversal in tiles.  Write i = (hi, mid, lo) with hi and lo of 4 bits:
 * rev(i) = (rev lo, rev mid, rev hi).  So the 16x16 tile of elements with a
 * given mid (16 rows of 16 contiguous elements, 512 bytes each) maps, as a
 * transpose with both coordinates reversed, onto the tile of rev(mid).  Tile
 * pairs are swapped through two stack buffers: every access is a whole row
 * of cache lines, instead of one random line per element.  No arithmetic.
 */
#include "zk/ntt_pvt.h"
#include "zk/field_inline.h"

#include <string.h>

#define TILE_LOG2 4
#define TILE ((size_t)1 << TILE_LOG2)

static size_t rev_bits(size_t x, unsigned bits)
{
	size_t r = 0;

	for (unsigned i = 0; i < bits; i++, x >>= 1)
		r = (r << 1) | (x & 1);
	return r;
}

struct bitrev_job {
	cz_fr *a;
	unsigned log2n;
};

static void bitrev_tiles(void *arg, size_t lo, size_t hi)
{
	const struct bitrev_job *p = arg;
	unsigned L = p->log2n, midbits = L - 2 * TILE_LOG2;
	size_t rowstride = (size_t)1 << (L - TILE_LOG2);
	cz_fr t1[TILE * TILE], t2[TILE * TILE];
	size_t r4[TILE];

	for (size_t i = 0; i < TILE; i++)
		r4[i] = rev_bits(i, TILE_LOG2);
	for (size_t m = lo; m < hi; m++) {
		size_t mr = rev_bits(m, midbits);
		if (mr < m)
			continue;  /* done with its partner */
		cz_fr *tm = p->a + (m << TILE_LOG2), *tr = p->a + (mr << TILE_LOG2);
		for (size_t r = 0; r < TILE; r++)
			memcpy(&t1[r * TILE], &tm[r * rowstride], TILE * sizeof(cz_fr));
		if (mr != m)
			for (size_t r = 0; r < TILE; r++)
				memcpy(&t2[r * TILE], &tr[r * rowstride], TILE * sizeof(cz_fr));
		/* new (x, mr, y) = old (rev y, m, rev x), and symmetrically. */
		for (size_t x = 0; x < TILE; x++)
			for (size_t y = 0; y < TILE; y++)
				tr[x * rowstride + y] = t1[r4[y] * TILE + r4[x]];
		if (mr != m)
			for (size_t x = 0; x < TILE; x++)
				for (size_t y = 0; y < TILE; y++)
					tm[x * rowstride + y] = t2[r4[y] * TILE + r4[x]];
	}
}

void cz_ntt_bitrev(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool)
{
	unsigned L = d->log2n;

	if (L < 2 * TILE_LOG2) {
		for (size_t i = 0; i < d->n; i++) {
			size_t j = rev_bits(i, L);
			if (i < j) {
				cz_fr t = a[i];
				a[i] = a[j];
				a[j] = t;
			}
		}
		return;
	}
	struct bitrev_job j = { .a = a, .log2n = L };
	/* copies only: count a multiplication per 8 elements */
	cz_ntt_par(pool, (size_t)1 << (L - 2 * TILE_LOG2), d->n / 8, bitrev_tiles, &j);
}

static void pow_u64(cz_fr *r, const cz_fr *z, uint64_t e)
{
	cz_fr_pow(r, z, &e, 1);
}

struct scale_job {
	cz_fr *a;
	size_t n;
	const cz_fr *c, *z, *zinv;
};

/* Cost: 2 multiplications per element (apply, advance the power). */
static void scale_pow_range(void *arg, size_t lo, size_t hi)
{
	const struct scale_job *p = arg;
	cz_fr f;

	pow_u64(&f, p->z, lo);
	for (size_t k = lo; k < hi; k++) {
		cz_fr_mul_inl(&p->a[k], &p->a[k], &f);
		cz_fr_mul_inl(&f, &f, p->z);
	}
}

void cz_ntt_scale_pow(const struct cz_ntt_domain *d, cz_fr *a, const cz_fr *z,
		      struct cz_pool *pool)
{
	struct scale_job j = { .a = a, .n = d->n, .z = z };
	cz_ntt_par(pool, d->n, 2 * d->n, scale_pow_range, &j);
}

/*
 * Over k in [lo, hi) within [0, n/2]: swaps a[k] and a[n-k] while scaling
 * them by f = c z^k and fd = c z^(n-k).  Cost: one multiplication per
 * element, two with z (the powers advance by z and 1/z).
 */
static void reverse_scale_range(void *arg, size_t lo, size_t hi)
{
	const struct scale_job *p = arg;
	size_t n = p->n;
	cz_fr f = *p->c, fd = *p->c;

	if (p->z) {
		cz_fr t;
		pow_u64(&t, p->z, lo);
		cz_fr_mul_inl(&f, &f, &t);
		pow_u64(&t, p->z, n - lo);
		cz_fr_mul_inl(&fd, &fd, &t);
	}
	for (size_t k = lo; k < hi; k++) {
		if (k == 0 || 2 * k == n) {
			cz_fr_mul_inl(&p->a[k], &p->a[k], &f);
		} else {
			cz_fr x = p->a[k];
			cz_fr_mul_inl(&p->a[k], &p->a[n - k], &f);
			cz_fr_mul_inl(&p->a[n - k], &x, &fd);
		}
		if (p->z) {
			cz_fr_mul_inl(&f, &f, p->z);
			cz_fr_mul_inl(&fd, &fd, p->zinv);
		}
	}
}

void cz_ntt_reverse_scale(const struct cz_ntt_domain *d, cz_fr *a, const cz_fr *c,
			  const cz_fr *z, const cz_fr *zinv, struct cz_pool *pool)
{
	struct scale_job j = { .a = a, .n = d->n, .c = c, .z = z, .zinv = zinv };
	cz_ntt_par(pool, d->n / 2 + 1, z ? 2 * d->n : d->n, reverse_scale_range, &j);
}

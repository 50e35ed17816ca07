/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt_tmpl_pvt.h — the NTT written once over a scalar field; private to
 * its instances, zk/ntt/ntt.c (BLS12-381's Fr: cz_ntt_*) and zk/ntt/bn254_ntt.c
 * (BN254's: cz_bn254_ntt_*).  The includer defines
 *   NT_FR        the field type and prefix (cz_fr); its _inl forms
 *                (zk/field/field_inline.h) and root_of_unity must exist
 *   NT(n)        the public name of n (cz_ntt_##n)
 *   NT_DOMAIN    the domain's struct tag (cz_ntt_domain)
 *   NT_MAX_LOG2  the largest domain (the field's two-adicity minus one:
 *                the coset shift is omega_{2n})
 * The three parts follow: the domain and the public transforms, the
 * butterflies, the element-wise passes.  The design is in zk/ntt/ntt.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zk/field/field_inline.h"
#include "zk/ntt/ntt_pvt.h"

#define NT_CAT2(a, b) a##_##b
#define NT_CAT(a, b) NT_CAT2(a, b)
#define NT_F(n) NT_CAT(NT_FR, n)
typedef NT_FR nt_fr;

struct NT_DOMAIN {
	unsigned log2n;        /* L */
	size_t n;              /* 2^L */
	unsigned block_log2;   /* B: the last B levels run inside blocks of 2^B */
	unsigned radix_log2;   /* K_max: the levels before them, at most K_max per pass */
	nt_fr *tw;             /* tw[k] = omega_n^rev_{L-1}(k), k < n/2 (one entry when n = 1) */
	nt_fr n_inv;           /* 1/n */
	nt_fr g, g_inv;        /* the coset shift omega_{2n} and its inverse */
#ifdef NT_VEC
	/* The vector path's coset scaling (zk/ntt/ntt_vec_tmpl_pvt.h), for L >= 3:
	 * the coefficient at bit-reversed position 8v + l is scaled by
	 * g^rev_L(8v + l) / n = cs[v] * cg[l] */
	nt_fr *cs;             /* cs[v] = g^rev_{L-3}(v) / n, v < n/8 */
	nt_fr cg[8];           /* cg[l] = g^(2^(L-3) rev_3(l)) */
#endif
};

static void nt_kernel(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool);
static void nt_bitrev(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool);
static void nt_scale_pow(const struct NT_DOMAIN *d, nt_fr *a, const nt_fr *z,
			 struct cz_pool *pool);
static void nt_reverse_scale(const struct NT_DOMAIN *d, nt_fr *a, const nt_fr *c,
			     const nt_fr *z, const nt_fr *zinv, struct cz_pool *pool);
#ifdef NT_VEC
static int nt_vec_tables(struct NT_DOMAIN *d);
#endif

/* ==== the domain and the public transforms ============================== */

#define DEFAULT_BLOCK_LOG2 12
#define DEFAULT_RADIX_LOG2 8

static nt_fr *alloc_fr(size_t count)
{
	size_t bytes = (count * sizeof(nt_fr) + 63) & ~(size_t)63;
	return aligned_alloc(64, bytes);
}

struct NT_DOMAIN *NT(domain_create_tuned)(unsigned log2n, unsigned block_log2,
						 unsigned radix_log2)
{
	if (log2n > NT_MAX_LOG2) {
		errno = EINVAL;
		return NULL;
	}
	struct NT_DOMAIN *d = calloc(1, sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	size_t n = (size_t)1 << log2n;
	unsigned b = block_log2 ? block_log2 : DEFAULT_BLOCK_LOG2;
	unsigned k = radix_log2 ? radix_log2 : DEFAULT_RADIX_LOG2;

	d->log2n = log2n;
	d->n = n;
	d->block_log2 = b < log2n ? b : log2n;
	d->radix_log2 = k < 8 ? k : 8;  /* the pass buffer holds 2^8 rows */
	d->tw = alloc_fr(n > 1 ? n / 2 : 1);
	if (!d->tw) {
		NT(domain_destroy)(d);
		errno = ENOMEM;
		return NULL;
	}

	/* tw[m + k] = tw[k] * omega_{4m} for k < m: rev(m + k) = rev(k) + n/4m. */
	d->tw[0] = NT_F(one);
	for (unsigned lvl = 0; lvl + 1 < log2n; lvl++) {
		size_t m = (size_t)1 << lvl;
		nt_fr z;
		NT_F(root_of_unity)(&z, lvl + 2);
		for (size_t i = 0; i < m; i++)
			NT_F(mul)(&d->tw[m + i], &d->tw[i], &z);
	}

	nt_fr nn;
	NT_F(from_u64)(&nn, n);
	NT_F(inv)(&d->n_inv, &nn);
	NT_F(root_of_unity)(&d->g, log2n + 1);
	NT_F(inv)(&d->g_inv, &d->g);
#ifdef NT_VEC
	if (log2n >= 3 && nt_vec_tables(d)) {
		NT(domain_destroy)(d);
		errno = ENOMEM;
		return NULL;
	}
#endif
	return d;
}

#ifdef NT_VEC
/* The vector path's scaling tables: n/8 + 11 multiplications, 4n bytes.
 * rev_M(u + 2^i) = rev_M(u) + 2^(M-1-i) for u < 2^i, so cs doubles level by
 * level like tw above. */
static int nt_vec_tables(struct NT_DOMAIN *d)
{
	unsigned M = d->log2n - 3;
	size_t m = d->n / 8;
	nt_fr p[32], gm;

	if (!(d->cs = alloc_fr(m)))
		return -1;
	p[0] = d->g;                            /* p[i] = g^(2^i) */
	for (unsigned i = 1; i <= M; i++)
		NT_F(mul)(&p[i], &p[i - 1], &p[i - 1]);
	d->cs[0] = d->n_inv;
	for (unsigned i = 0; i < M; i++)
		for (size_t u = 0; u < ((size_t)1 << i); u++)
			NT_F(mul)(&d->cs[u + ((size_t)1 << i)], &d->cs[u], &p[M - 1 - i]);
	gm = p[M];                              /* g^(2^M) */
	static const unsigned rev3[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };
	for (unsigned l = 0; l < 8; l++) {
		d->cg[l] = NT_F(one);
		for (unsigned e = 0; e < rev3[l]; e++)
			NT_F(mul)(&d->cg[l], &d->cg[l], &gm);
	}
	return 0;
}
#endif

struct NT_DOMAIN *NT(domain_create)(unsigned log2n)
{
	return NT(domain_create_tuned)(log2n, 0, 0);
}

void NT(domain_destroy)(struct NT_DOMAIN *d)
{
	if (!d)
		return;
	free(d->tw);
#ifdef NT_VEC
	free(d->cs);
#endif
	free(d);
}

size_t NT(domain_bytes)(const struct NT_DOMAIN *d)
{
	size_t b = sizeof(*d) + (d->n > 1 ? d->n / 2 : 1) * sizeof(nt_fr);   /* as alloc_fr above */
#ifdef NT_VEC
	if (d->cs)
		b += d->n / 8 * sizeof(nt_fr);
#endif
	return b;
}

unsigned NT(domain_log2)(const struct NT_DOMAIN *d)
{
	return d->log2n;
}

size_t NT(domain_size)(const struct NT_DOMAIN *d)
{
	return d->n;
}

void NT(forward)(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	nt_kernel(d, a, pool);
	nt_bitrev(d, a, pool);
}

void NT(inverse)(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	NT(forward)(d, a, pool);
	nt_reverse_scale(d, a, &d->n_inv, NULL, NULL, pool);
}

void NT(coset_forward)(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	nt_scale_pow(d, a, &d->g, pool);
	NT(forward)(d, a, pool);
}

void NT(coset_inverse)(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	NT(forward)(d, a, pool);
	nt_reverse_scale(d, a, &d->n_inv, &d->g_inv, &d->g, pool);
}

void NT(to_odd_coset)(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	NT(forward)(d, a, pool);
	nt_reverse_scale(d, a, &d->n_inv, &d->g, &d->g_inv, pool);
	NT(forward)(d, a, pool);
}

/* ==== the butterflies ================================================== */
/*
 * zk/ntt_kernel.c — the forward DFT's butterflies: natural order in,
 * bit-reversed order out, in place.
 *
 * Cooley-Tukey butterflies with one twiddle per block: the level with
 * half-size h (h = n/2, n/4, .. 1) has m = n/2h blocks of 2h elements, and
 * block k maps each pair (x, y) = (a[2hk + j], a[2hk + j + h]), j < h, to
 * (x + w y, x - w y) with w = omega_2m^rev(k) = tw[k], where
 * tw[k] = omega_n^rev_{L-1}(k) (ntt.c).  (Block k holds the residue of the
 * polynomial modulo X^2h - omega_m^rev(k); the butterfly splits it in two.)
 * A level reads the prefix tw[0 .. m) in order, so the table is read
 * sequentially, and a pass's columns all share the same few twiddles.
 *
 * Cost: one multiplication per butterfly except in block 0 (w = 1):
 * L n/2 - (n - 1) in all, about L/2 - 1 per element.
 */
#define PASS_COLS 4          /* columns per unit: 4 * 32 bytes = two cache lines a row */
#define PASS_MAX_ROWS 256    /* 2^K rows, K <= 8 */

/* (x, y) <- (x + w y, x - w y); w NULL means 1. */
static inline void butterfly(nt_fr *x, nt_fr *y, const nt_fr *w)
{
	nt_fr t;

	if (w)
		NT_F(mul_inl)(&t, y, w);
	else
		t = *y;
	NT_F(sub_inl)(y, x, &t);
	NT_F(add_inl)(x, x, &t);
}

struct pass_job {
	const struct NT_DOMAIN *d;
	nt_fr *a;
	size_t h;        /* half-size of the pass's first level */
	unsigned k;      /* levels in this pass */
	size_t cols;     /* columns per unit: min(PASS_COLS, q) */
};

/*
 * A pass over the levels with half-sizes h, h/2, .. q = h/2^(k-1).  The
 * elements a[blk*2h + j + r*q], r < 2^k, are closed under these levels for
 * each top block blk and column j < q; a unit is `cols` adjacent columns,
 * gathered into a buffer of 2^k rows.  At level t, row r lies in block
 * blk*2^t + (r >> (k-t)), whatever the column.
 */
static void pass_units(void *arg, size_t lo, size_t hi)
{
	const struct pass_job *p = arg;
	const nt_fr *tw = p->d->tw;
	size_t rows = (size_t)1 << p->k, q = p->h >> (p->k - 1), cols = p->cols;
	size_t groups = q / cols;
	nt_fr buf[PASS_MAX_ROWS * PASS_COLS];

	for (size_t u = lo; u < hi; u++) {
		size_t blk = u / groups, j0 = (u % groups) * cols;
		nt_fr *base = p->a + blk * 2 * p->h + j0;

		for (size_t r = 0; r < rows; r++)
			memcpy(&buf[r * cols], &base[r * q], cols * sizeof(nt_fr));
		for (unsigned t = 0; t < p->k; t++) {
			size_t hr = rows >> (t + 1);  /* half-size in rows */
			for (size_t rb = 0, kb = blk << t; rb < rows; rb += 2 * hr, kb++) {
				const nt_fr *w = kb ? &tw[kb] : NULL;
				for (size_t r = rb; r < rb + hr; r++) {
					nt_fr *x = &buf[r * cols], *y = x + hr * cols;
					for (size_t c = 0; c < cols; c++)
						butterfly(&x[c], &y[c], w);
				}
			}
		}
		for (size_t r = 0; r < rows; r++)
			memcpy(&base[r * q], &buf[r * cols], cols * sizeof(nt_fr));
	}
}

struct block_job {
	const struct NT_DOMAIN *d;
	nt_fr *a;
};

/* The last B levels inside contiguous blocks of 2^B elements. */
static void block_units(void *arg, size_t lo, size_t hi)
{
	const struct block_job *p = arg;
	const nt_fr *tw = p->d->tw;
	size_t len = (size_t)1 << p->d->block_log2;

	for (size_t b = lo; b < hi; b++) {
		nt_fr *x = p->a + b * len;
		for (size_t h = len / 2; h >= 1; h >>= 1) {
			size_t k = b * (len / (2 * h));  /* the first sub-block's index at this level */
			for (size_t i = 0; i < len; i += 2 * h, k++) {
				const nt_fr *w = k ? &tw[k] : NULL;
				for (size_t j = i; j < i + h; j++)
					butterfly(&x[j], &x[j + h], w);
			}
		}
	}
}

static void nt_kernel(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	unsigned outer = d->log2n - d->block_log2;
	unsigned npass = (outer + d->radix_log2 - 1) / d->radix_log2;
	size_t h = d->n / 2;

	/* Spread the outer levels evenly over the passes: 9 = 5 + 4, not 8 + 1. */
	for (unsigned i = 0; i < npass; i++) {
		unsigned k = (outer + npass - 1 - i) / (npass - i);
		size_t q = h >> (k - 1);
		struct pass_job pj = { .d = d, .a = a, .h = h, .k = k,
				       .cols = q < PASS_COLS ? q : PASS_COLS };
		cz_ntt_par(pool, (d->n / (2 * h)) * (q / pj.cols), d->n / 2 * k, pass_units, &pj);
		outer -= k;
		h >>= k;
	}
	struct block_job bj = { .d = d, .a = a };
	cz_ntt_par(pool, d->n >> d->block_log2, d->n / 2 * d->block_log2, block_units, &bj);
}

/* ==== the element-wise passes ========================================== */
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
	nt_fr *a;
	unsigned log2n;
};

static void bitrev_tiles(void *arg, size_t lo, size_t hi)
{
	const struct bitrev_job *p = arg;
	unsigned L = p->log2n, midbits = L - 2 * TILE_LOG2;
	size_t rowstride = (size_t)1 << (L - TILE_LOG2);
	nt_fr t1[TILE * TILE], t2[TILE * TILE];
	size_t r4[TILE];

	for (size_t i = 0; i < TILE; i++)
		r4[i] = rev_bits(i, TILE_LOG2);
	for (size_t m = lo; m < hi; m++) {
		size_t mr = rev_bits(m, midbits);
		if (mr < m)
			continue;  /* done with its partner */
		nt_fr *tm = p->a + (m << TILE_LOG2), *tr = p->a + (mr << TILE_LOG2);
		for (size_t r = 0; r < TILE; r++)
			memcpy(&t1[r * TILE], &tm[r * rowstride], TILE * sizeof(nt_fr));
		if (mr != m)
			for (size_t r = 0; r < TILE; r++)
				memcpy(&t2[r * TILE], &tr[r * rowstride], TILE * sizeof(nt_fr));
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

static void nt_bitrev(const struct NT_DOMAIN *d, nt_fr *a, struct cz_pool *pool)
{
	unsigned L = d->log2n;

	if (L < 2 * TILE_LOG2) {
		for (size_t i = 0; i < d->n; i++) {
			size_t j = rev_bits(i, L);
			if (i < j) {
				nt_fr t = a[i];
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

static void pow_u64(nt_fr *r, const nt_fr *z, uint64_t e)
{
	NT_F(pow)(r, z, &e, 1);
}

struct scale_job {
	nt_fr *a;
	size_t n;
	const nt_fr *c, *z, *zinv;
};

/* Cost: 2 multiplications per element (apply, advance the power). */
static void scale_pow_range(void *arg, size_t lo, size_t hi)
{
	const struct scale_job *p = arg;
	nt_fr f;

	pow_u64(&f, p->z, lo);
	for (size_t k = lo; k < hi; k++) {
		NT_F(mul_inl)(&p->a[k], &p->a[k], &f);
		NT_F(mul_inl)(&f, &f, p->z);
	}
}

static void nt_scale_pow(const struct NT_DOMAIN *d, nt_fr *a, const nt_fr *z,
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
	nt_fr f = *p->c, fd = *p->c;

	if (p->z) {
		nt_fr t;
		pow_u64(&t, p->z, lo);
		NT_F(mul_inl)(&f, &f, &t);
		pow_u64(&t, p->z, n - lo);
		NT_F(mul_inl)(&fd, &fd, &t);
	}
	for (size_t k = lo; k < hi; k++) {
		if (k == 0 || 2 * k == n) {
			NT_F(mul_inl)(&p->a[k], &p->a[k], &f);
		} else {
			nt_fr x = p->a[k];
			NT_F(mul_inl)(&p->a[k], &p->a[n - k], &f);
			NT_F(mul_inl)(&p->a[n - k], &x, &fd);
		}
		if (p->z) {
			NT_F(mul_inl)(&f, &f, p->z);
			NT_F(mul_inl)(&fd, &fd, p->zinv);
		}
	}
}

static void nt_reverse_scale(const struct NT_DOMAIN *d, nt_fr *a, const nt_fr *c,
			  const nt_fr *z, const nt_fr *zinv, struct cz_pool *pool)
{
	struct scale_job j = { .a = a, .n = d->n, .c = c, .z = z, .zinv = zinv };
	cz_ntt_par(pool, d->n / 2 + 1, z ? 2 * d->n : d->n, reverse_scale_range, &j);
}

#undef NT_F

/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt_vec_tmpl_pvt.h — the device stage's transforms eight elements at a
 * time on AVX-512 IFMA: a, b, c to the odd coset and h = a·b − c there, out
 * of Montgomery form (what NT(to_odd_coset) three times and the prover's
 * subtraction do, zk/groth16/groth16_tmpl_pvt.h).  Private to zk/ntt/bn254_ntt.c,
 * which defines NT_VEC, includes zk/ntt/ntt_tmpl_pvt.h (the domain, with the
 * scaling tables NT_VEC adds), then this with
 *   NT_VEC_MOD, NT_VEC_ONE, NT_VEC_INV   the field's modulus, R mod r and
 *                                        -r^-1 mod 2^64 (zk/field/bn254.h,
 *                                        zk/field/bls12_381.h)
 *   NT_VEC_TIGHT   defined where 2^256 < 4r (BLS12-381's Fr, 2^256 ~ 2.2r):
 *                  values stay below 2r, every product's operands below
 *                  2r and r (zk/field/fpv_tmpl_pvt.h's bounds); without it
 *                  (BN254's Fr, 2^256 > 5r) K's values may reach 4r
 * The field must have four 64-bit limbs.  zk/ntt/ntt.c (BLS12-381) and
 * zk/ntt/bn254_ntt.c (BN254) include it.
 *
 * Design.  The scalar path runs per vector forward (kernel + bit reversal),
 * an index-reversing scale, forward again: two permutation passes and
 * 4-limb scalar products.  Here the arithmetic is the vector field's (five
 * 52-bit limbs, eight lanes), and no permutation pass is left:
 *   1. K, the kernel's own butterflies (x + w y, x - w y), w = tw[k]: natural
 *      order in, bit-reversed out, position p holding n·c[-rev(p) mod n]
 *      (c the coefficients).
 *   2. One pass that moves position q(p) = p ^ (2^floor(log2 p) - 1) to p
 *      (rev(q) = -rev(p): each run [2^t, 2^(t+1)) reversed) while scaling by
 *      g^rev(p) / n, so p holds the shifted coefficient c[rev(p)]·g^rev(p):
 *      the coefficients of a(gX) in bit-reversed order.
 *   3. G, Gentleman-Sande butterflies (x + y, (x - y) w) with the same
 *      twiddles, levels in reverse order: the inverse of K over omega^-1,
 *      which maps bit-reversed coefficients to the natural-order DFT.
 * So each vector is transformed with one multiplication per butterfly and
 * two per element for the scale, as before, and h comes out in natural
 * order, as the H points expect.
 *
 * Memory.  In place, in the caller's arrays, nothing allocated: a first
 * pass rewrites each run of eight elements (a chunk, 256 bytes) limb-major
 * (limb i of element 8v + l at word 8i + l of chunk v), so a chunk loads as
 * four vectors and converts to the 52-bit form with shifts.  Values are
 * redundant between passes: below 4r in K (Harvey's lazy butterfly, one
 * reduction each; below 2r, two reductions, with NT_VEC_TIGHT), below 2r
 * from the scale on.  The last pass writes h in
 * the scalar layout, canonical; a, b, c are left as scratch (the device
 * stage's contract).
 *
 * Blocking, as the scalar kernel's: the levels with a half-size of 2^B
 * (B = NV_BLOCK_LOG2) or more run as passes over all three vectors, two
 * levels a pass (four chunks loaded, two levels done, stored: radix 4) and
 * an odd one alone; the rest run inside blocks of 2^B elements (128 KiB),
 * two levels a load as well, the last three levels of K (the first of G)
 * inside one chunk, with lane permutations.  The coset scale's tables are
 * the domain's (cs, cg).
 *
 * Threads: every pass is cut into whole units (chunk pairs or quadruples,
 * blocks, chunks) over the pool by cz_ntt_par; an element's arithmetic does
 * not depend on the split.  Checked against the scalar path, for every size
 * 2^6..2^13, 2^15 and 2^16 (both parities of the level count inside and
 * outside the blocks), 1 to 3 threads, by selftests/zk_bn254_ntt_vec.
 */
#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)

#define NV_BLOCK_LOG2 12

static bool nv_ready;   /* the CPU runs it, and the constants are set */
static void fv_setup(void);

/* __builtin_cpu_supports asks the OS as well (XCR0: the zmm state saved). */
__attribute__((constructor)) static void nv_init(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma")) {
		fv_setup();
		nv_ready = true;
	}
}

#pragma GCC push_options
#pragma GCC target("avx512f,avx512ifma")

#define FV_L 8
#define FV_N 5
#define FV_SN 4
#define FV_MOD NT_VEC_MOD
#define FV_ONE NT_VEC_ONE
#define FV_INV NT_VEC_INV
#include "zk/field/fpv_tmpl_pvt.h"

_Static_assert(sizeof(nt_fr) == 32, "four 64-bit limbs");

/* Lane l's byte offset of element l in the scalar layout. */
FV_AI fvw nv_lane32(void)
{
	return _mm512_set_epi64(7 * 32, 6 * 32, 5 * 32, 4 * 32, 3 * 32, 2 * 32, 32, 0);
}

FV_AI void nv_load(fv *x, const nt_fr *chunk)
{
	fvw w[FV_SN];
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++)
		w[i] = fvw_loadu((const char *)chunk + 64 * i);
	fv_from64(x, w);
}

/* x normalized, < 2^256 */
FV_AI void nv_store(nt_fr *chunk, const fv *x)
{
	fvw w[FV_SN];
	fv_to64(w, x);
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++)
		fvw_storeu((char *)chunk + 64 * i, w[i]);
}

/* All lanes t (canonical, Montgomery). */
FV_AI void nv_bcast(fv *w, const nt_fr *t)
{
	fvw x[FV_SN];
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++)
		x[i] = fvw_set1(t->l[i]);
	fv_from64(w, x);
}

/* Lane l: tab[k0 + l / per] (per = 8, 4, 2: one, two, four entries). */
FV_AI void nv_gather_tw(fv *w, const nt_fr *tab, size_t k0, unsigned shift)
{
	fvw idx = fvw_srli(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), shift);
	idx = fvw_slli(fvw_add(idx, fvw_set1(k0)), 5);
	fv_gather(w, FV_ALL, idx, tab);
}

FV_AI void nv_perm(fv *r, const fv *a, fvw idx)
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = _mm512_permutexvar_epi64(idx, a->l[j]);
}

/* ---- butterflies ----
 * Without NT_VEC_TIGHT, K's values stay below 4r (Harvey's lazy butterfly:
 * x is reduced below 2r first, w·y < 4r·r/W + r < 2r, so x + w·y and
 * x - w·y + 2r stay below 4r < 2^256); with it, below 2r (both outputs
 * reduced).  G's below 2r; w < r throughout. */

/* K's: (x, y) <- (x + w y, x - w y). */
FV_AI void nv_ct(fv *x, fv *y, const fv *w)
{
	fv t;
#ifndef NT_VEC_TIGHT
	fv_csub(x, x, 2);       /* < 2r */
	fv_mul(&t, w, y);       /* < 2r */
	fv_sub(y, x, &t, 2);    /* x + 2r - t < 4r */
	fv_add(x, x, &t);       /* < 4r */
#else
	fv_mul(&t, w, y);       /* y < 2r: < 2r·r/W + r < 2r */
	fv_sub(y, x, &t, 2);
	fv_add(x, x, &t);
	fv_csub(x, x, 2);       /* < 2r */
	fv_csub(y, y, 2);
#endif
}

/* G's: (x, y) <- (x + y, (x - y) w). */
FV_AI void nv_gs(fv *x, fv *y, const fv *w)
{
	fv d;
	fv_sub(&d, x, y, 2);    /* < 4r */
	fv_add(x, x, y);        /* < 4r */
	fv_csub(x, x, 2);
#ifdef NT_VEC_TIGHT
	fv_csub(&d, &d, 2);     /* a product's first operand is below 2^256 */
#endif
	fv_mul(y, &d, w);       /* < 4r·r/W + r < 2r */
}

/* The same inside one chunk, half-size hl = 4, 2, 1: lane l pairs with
 * l ^ hl (pidx), the y lanes are those with bit hl (ym), w holds each
 * pair's twiddle in both its lanes. */
FV_AI void nv_pair(fv *x, fv *y, const fv *v, fvw pidx, __mmask8 ym)
{
	fv p;
	nv_perm(&p, v, pidx);
	fv_blend(y, ym, &p, v);  /* ym ? v : p: each lane its pair's y */
	fv_blend(x, ym, v, &p);  /* and its x */
}

FV_AI void nv_ct_in(fv *v, const fv *w, fvw pidx, __mmask8 ym)
{
	fv x, y, t, d;
	nv_pair(&x, &y, v, pidx, ym);
#ifndef NT_VEC_TIGHT
	fv_csub(&x, &x, 2);
#endif
	fv_mul(&t, w, &y);
	fv_sub(&d, &x, &t, 2);
	fv_add(&x, &x, &t);
	fv_blend(v, ym, &x, &d);
#ifdef NT_VEC_TIGHT
	fv_csub(v, v, 2);
#endif
}

FV_AI void nv_gs_in(fv *v, const fv *w, fvw pidx, __mmask8 ym)
{
	fv x, y, s, d;
	nv_pair(&x, &y, v, pidx, ym);
	fv_add(&s, &x, &y);
	fv_sub(&d, &x, &y, 2);
#ifdef NT_VEC_TIGHT
	fv_csub(&d, &d, 2);
#endif
	fv_mul(&d, &d, w);
	fv_csub(&s, &s, 2);
	fv_blend(v, ym, &s, &d);
}

/* Two levels at once on chunks c, c + q, c + 2q, c + 3q (q = H/2 chunks,
 * H the first level's half-size in chunks, k its block): K's levels H,
 * H/2 or G's H/2, H; one load and store a chunk for both. */
FV_AI void nv_r4(nt_fr *a, size_t c, size_t q, size_t k, const nt_fr *tw, bool gs)
{
	fv x[4], w0, w1, w2;
	for (int i = 0; i < 4; i++)
		nv_load(&x[i], a + 8 * (c + (size_t)i * q));
	nv_bcast(&w0, &tw[k]);
	nv_bcast(&w1, &tw[2 * k]);
	nv_bcast(&w2, &tw[2 * k + 1]);
	if (!gs) {
		nv_ct(&x[0], &x[2], &w0);
		nv_ct(&x[1], &x[3], &w0);
		nv_ct(&x[0], &x[1], &w1);
		nv_ct(&x[2], &x[3], &w2);
	} else {
		nv_gs(&x[0], &x[1], &w1);
		nv_gs(&x[2], &x[3], &w2);
		nv_gs(&x[0], &x[2], &w0);
		nv_gs(&x[1], &x[3], &w0);
	}
	for (int i = 0; i < 4; i++)
		nv_store(a + 8 * (c + (size_t)i * q), &x[i]);
}

/* One level on chunks c, c + H with block k's twiddle. */
FV_AI void nv_r2(nt_fr *a, size_t c, size_t H, size_t k, const nt_fr *tw, bool gs)
{
	fv x, y, w;
	nv_load(&x, a + 8 * c);
	nv_load(&y, a + 8 * (c + H));
	nv_bcast(&w, &tw[k]);
	if (gs)
		nv_gs(&x, &y, &w);
	else
		nv_ct(&x, &y, &w);
	nv_store(a + 8 * c, &x);
	nv_store(a + 8 * (c + H), &y);
}

#define NV_P4 _mm512_set_epi64(3, 2, 1, 0, 7, 6, 5, 4)
#define NV_P2 _mm512_set_epi64(5, 4, 7, 6, 1, 0, 3, 2)
#define NV_P1 _mm512_set_epi64(6, 7, 4, 5, 2, 3, 0, 1)

/* ---- the passes ---- */

struct nv_job {
	const struct NT_DOMAIN *d;
	nt_fr *x[3];
	uint64_t *h;
	size_t per;      /* units per vector */
	size_t hc;       /* a level pass's (first) half-size, in chunks */
	bool r4;         /* a level pass does two levels */
	unsigned blog;   /* blocks of 2^blog elements */
};

/* To the chunk layout, in place: unit = one chunk. */
static void nv_to_chunks(void *arg, size_t lo, size_t hi)
{
	const struct nv_job *j = arg;
	const fvw idx = nv_lane32();
	for (size_t u = lo; u < hi; u++) {
		char *p = (char *)(j->x[u / j->per] + 8 * (u % j->per));
		fvw w[FV_SN];
		FV_UNROLL
		for (int i = 0; i < FV_SN; i++)
			w[i] = fvw_gather(FV_ALL, idx, p + 8 * i);
		FV_UNROLL
		for (int i = 0; i < FV_SN; i++)
			fvw_storeu(p + 64 * i, w[i]);
	}
}

/* Levels of half-size 8·hc (>= 2^blog) over whole vectors, j->r4 of them
 * (1 or 2: K's hc, hc/2 or G's hc/2, hc): unit = one chunk pair, or
 * quadruple; block k of the first level (2·hc chunks) has twiddle tw[k]. */
FV_AI void nv_level(void *arg, size_t lo, size_t hi, bool gs)
{
	const struct nv_job *j = arg;
	size_t hc = j->hc;
	const nt_fr *tw = j->d->tw;
	for (size_t u = lo; u < hi; u++) {
		nt_fr *a = j->x[u / j->per];
		size_t p = u % j->per;
		if (j->r4) {    /* hc/2 units a block */
			size_t k = p / (hc / 2), c = k * 2 * hc + p % (hc / 2);
			nv_r4(a, c, hc / 2, k, tw, gs);
		} else {
			size_t k = p / hc, c = k * 2 * hc + p % hc;
			nv_r2(a, c, hc, k, tw, gs);
		}
	}
}

static void nv_ct_level(void *arg, size_t lo, size_t hi) { nv_level(arg, lo, hi, false); }
static void nv_gs_level(void *arg, size_t lo, size_t hi) { nv_level(arg, lo, hi, true); }

/* Level hc (half-size 8·hc < 2^blog) inside the block at element e0, and
 * with r4 the next one too (K: hc/2; G: the one before, hc/2 first). */
FV_AI void nv_block_level(const struct nv_job *j, nt_fr *base, size_t e0, size_t nc,
			  size_t hc, bool r4, bool gs)
{
	const nt_fr *tw = j->d->tw;
	for (size_t i = 0; i < nc; i += 2 * hc) {
		size_t k = (e0 + 8 * i) / (16 * hc);
		if (r4)
			for (size_t c = i; c < i + hc / 2; c++)
				nv_r4(base, c, hc / 2, k, tw, gs);
		else
			for (size_t c = i; c < i + hc; c++)
				nv_r2(base, c, hc, k, tw, gs);
	}
}

/* The levels below 2^blog, unit = one block: K's from the largest down
 * and the three inside each chunk; or G's, the other way round. */
FV_AI void nv_block(void *arg, size_t lo, size_t hi, bool gs)
{
	const struct nv_job *j = arg;
	const nt_fr *tw = j->d->tw;
	size_t nc = (size_t)1 << (j->blog - 3);
	unsigned levels = j->blog - 3;  /* chunk levels: hc = nc/2 .. 1 */
	fv x, w;

	for (size_t u = lo; u < hi; u++) {
		size_t b = u % j->per, e0 = b << j->blog;
		nt_fr *base = j->x[u / j->per] + e0;
		if (!gs) {
			size_t hc = nc / 2;
			for (unsigned l = 0; l < levels; l += 2, hc >>= 2)
				nv_block_level(j, base, e0, nc, hc, l + 1 < levels, false);
		}
		for (size_t c = 0; c < nc; c++) {
			size_t v = e0 / 8 + c;  /* the chunk's index in the vector */
			nv_load(&x, base + 8 * c);
			if (!gs) {
				nv_gather_tw(&w, tw, v, 3);
				nv_ct_in(&x, &w, NV_P4, 0xf0);
				nv_gather_tw(&w, tw, 2 * v, 2);
				nv_ct_in(&x, &w, NV_P2, 0xcc);
				nv_gather_tw(&w, tw, 4 * v, 1);
				nv_ct_in(&x, &w, NV_P1, 0xaa);
			} else {
				nv_gather_tw(&w, tw, 4 * v, 1);
				nv_gs_in(&x, &w, NV_P1, 0xaa);
				nv_gather_tw(&w, tw, 2 * v, 2);
				nv_gs_in(&x, &w, NV_P2, 0xcc);
				nv_gather_tw(&w, tw, v, 3);
				nv_gs_in(&x, &w, NV_P4, 0xf0);
			}
			nv_store(base + 8 * c, &x);
		}
		if (gs) {
			/* the same pairs of levels as K's, each pair G's way round */
			size_t hc = levels & 1 ? 4 : 2;
			if (levels & 1)
				nv_block_level(j, base, e0, nc, 1, false, true);
			for (unsigned l = levels & 1; l < levels; l += 2, hc <<= 2)
				nv_block_level(j, base, e0, nc, hc, true, true);
		}
	}
}

static void nv_ct_block(void *arg, size_t lo, size_t hi) { nv_block(arg, lo, hi, false); }
static void nv_gs_block(void *arg, size_t lo, size_t hi) { nv_block(arg, lo, hi, true); }

/* Step 2, unit = chunk v: position 8v + l takes q(8v + l) = 8v' + (l ^ 7),
 * v' = v ^ (2^floor(log2 v) - 1), scaled by cs[v]·cg[l]; the pair (v, v')
 * is done by its smaller chunk.  Chunk 0 permutes within itself. */
static void nv_scale(void *arg, size_t lo, size_t hi)
{
	const struct nv_job *j = arg;
	const struct NT_DOMAIN *d = j->d;
	const fvw rev = _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7);
	const fvw q0 = _mm512_set_epi64(4, 5, 6, 7, 2, 3, 1, 0);
	fv g, s, x, y;

	fv_gather(&g, FV_ALL, nv_lane32(), d->cg);
	for (size_t u = lo; u < hi; u++) {
		nt_fr *a = j->x[u / j->per];
		size_t v = u % j->per;
		if (v == 0) {
			nv_load(&x, a);
			nv_perm(&x, &x, q0);
			nv_bcast(&s, &d->cs[0]);
			fv_mul(&s, &s, &g);
			fv_csub(&s, &s, 1);
			fv_mul(&x, &x, &s);
			nv_store(a, &x);
			continue;
		}
		size_t v2 = v ^ (((size_t)1 << (63 - __builtin_clzll(v))) - 1);
		if (v2 < v)
			continue;
		nv_load(&x, a + 8 * v);
		nv_load(&y, a + 8 * v2);
		nv_perm(&x, &x, rev);
		nv_perm(&y, &y, rev);
		nv_bcast(&s, &d->cs[v]);
		fv_mul(&s, &s, &g);
		fv_csub(&s, &s, 1);     /* < r: x, y < 4r (2r), so the products < 2r */
		fv_mul(&y, &y, &s);
		nv_store(a + 8 * v, &y);
		if (v2 != v) {
			nv_bcast(&s, &d->cs[v2]);
			fv_mul(&s, &s, &g);
			fv_csub(&s, &s, 1);
			fv_mul(&x, &x, &s);
			nv_store(a + 8 * v2, &x);
		}
	}
}

/* h = a·b − c out of Montgomery form, canonical, in the scalar layout:
 * unit = chunk v of all three. */
static void nv_dsub(void *arg, size_t lo, size_t hi)
{
	const struct nv_job *j = arg;
	const fvw idx = nv_lane32();
	fv x, y, z, one;

	fv_set_zero(&one);
	one.l[0] = fvw_set1(1);
	for (size_t v = lo; v < hi; v++) {
		nv_load(&x, j->x[0] + 8 * v);
		nv_load(&y, j->x[1] + 8 * v);
		nv_load(&z, j->x[2] + 8 * v);
#ifdef NT_VEC_TIGHT
		fv_csub(&y, &y, 1);      /* a, b < 2r: one of them below r */
#endif
		fv_mul(&x, &x, &y);      /* < 2r */
		fv_sub(&x, &x, &z, 2);   /* < 4r */
#ifdef NT_VEC_TIGHT
		fv_csub(&x, &x, 2);
#endif
		fv_mul(&x, &x, &one);    /* x/R: <= r */
		fv_csub(&x, &x, 1);
		fv_scatter(j->h + 32 * v, FV_ALL, idx, &x);
	}
}

#pragma GCC pop_options

bool NT(h_vec)(const struct NT_DOMAIN *d, nt_fr *a, nt_fr *b, nt_fr *c, uint64_t *h,
	       struct cz_pool *pool)
{
	if (!nv_ready || d->log2n < 6 || !d->cs)
		return false;
	size_t n = d->n;
	unsigned blog = d->log2n < NV_BLOCK_LOG2 ? d->log2n : NV_BLOCK_LOG2;
	size_t nc = (size_t)1 << (blog - 3), blocks = n >> blog;
	struct nv_job j = { .d = d, .x = { a, b, c }, .h = h, .blog = blog };

	j.per = n / 8;
	cz_ntt_par(pool, 3 * j.per, 3 * n / 8, nv_to_chunks, &j);
	/* the outer levels two by two (K: hc, hc/2), the odd one last */
	size_t phc[64];
	bool pr4[64];
	unsigned np = 0;
	for (size_t hc = n / 16; hc >= nc; hc >>= pr4[np++] ? 2 : 1) {
		phc[np] = hc;
		pr4[np] = hc / 2 >= nc;
	}
	for (unsigned i = 0; i < np; i++) {
		j.hc = phc[i], j.r4 = pr4[i];
		j.per = n / (j.r4 ? 32 : 16);
		cz_ntt_par(pool, 3 * j.per, 3 * n / 2 * (j.r4 ? 2 : 1), nv_ct_level, &j);
	}
	j.per = blocks;
	cz_ntt_par(pool, 3 * blocks, 3 * n / 2 * blog, nv_ct_block, &j);
	j.per = n / 8;
	cz_ntt_par(pool, 3 * j.per, 3 * 2 * n, nv_scale, &j);
	j.per = blocks;
	cz_ntt_par(pool, 3 * blocks, 3 * n / 2 * blog, nv_gs_block, &j);
	for (unsigned i = np; i-- > 0;) {
		j.hc = phc[i], j.r4 = pr4[i];
		j.per = n / (j.r4 ? 32 : 16);
		cz_ntt_par(pool, 3 * j.per, 3 * n / 2 * (j.r4 ? 2 : 1), nv_gs_level, &j);
	}
	cz_ntt_par(pool, n / 8, 2 * n, nv_dsub, &j);
	return true;
}

#else

bool NT(h_vec)(const struct NT_DOMAIN *d, nt_fr *a, nt_fr *b, nt_fr *c, uint64_t *h,
	       struct cz_pool *pool)
{
	(void)d, (void)a, (void)b, (void)c, (void)h, (void)pool;
	return false;
}

#endif

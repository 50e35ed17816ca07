/* SPDX-License-Identifier: MIT */
/* Description: the CUDA NTT and MSM kernel bodies (gpu/ntt32.h, gpu/msm32.h), run on the host thread by thread with qsort for CUB's sort, equal zk/'s NTTs, Groth16 quotient and cz_msm_g1. */
#include "gpu/msm32.h"
#include "gpu/ntt32.h"
#include "selftests/cz_test.h"
#include "zk/msm.h"
#include "zk/ntt.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

static cz_fr fr_rand(void)
{
	uint64_t raw[4];
	cz_fr r;
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = rnd();
		raw[3] &= 0x7fffffffffffffffULL;
	} while (!cz_fr_to_mont(&r, raw));
	return r;
}

/* zk/ and F32 elements are the same bytes; copies keep the types apart. */
static cz_fr32 to32(const cz_fr *a)
{
	cz_fr32 r;
	memcpy(&r, a, sizeof(r));
	return r;
}

/* ---- NTT, as gpu/ntt.cu drives the bodies -------------------------------- */

struct tabs {
	cz_fr32 *hi, *lo;
	unsigned s;
};

/* hi[j] = c·z^(j·2^s), lo[i] = z^i: the two-table form of c·z^k, k < 2^L. */
static void tabs_make(struct tabs *t, unsigned L, const cz_fr *c, const cz_fr *z)
{
	t->s = (L + 1) / 2;
	size_t nlo = (size_t)1 << t->s, nhi = (size_t)1 << (L - t->s);
	cz_fr p = cz_fr_one, zs;
	t->lo = malloc(nlo * sizeof(cz_fr32));
	t->hi = malloc(nhi * sizeof(cz_fr32));
	for (size_t i = 0; i < nlo; i++) {
		t->lo[i] = to32(&p);
		cz_fr_mul(&p, &p, z);
	}
	zs = p; /* z^(2^s) */
	p = *c;
	for (size_t j = 0; j < nhi; j++) {
		t->hi[j] = to32(&p);
		cz_fr_mul(&p, &p, &zs);
	}
}

static void tabs_free(struct tabs *t)
{
	free(t->hi);
	free(t->lo);
}

struct dom {
	unsigned L, B;
	cz_fr32 *tw;
	struct tabs inv, coset, coset_inv, odd;
};

static void dom_make(struct dom *d, unsigned L, unsigned B)
{
	cz_fr w, g, gi, ninv, nn;
	struct tabs t;

	d->L = L;
	d->B = B < L ? B : L;
	cz_fr_root_of_unity(&w, L);
	cz_fr_root_of_unity(&g, L + 1);
	cz_fr_inv(&gi, &g);
	cz_fr_from_u64(&nn, (uint64_t)1 << L);
	cz_fr_inv(&ninv, &nn);
	size_t half = L ? (size_t)1 << (L - 1) : 1;
	d->tw = malloc(half * sizeof(cz_fr32));
	/* the twiddles are built the device's way: the two-table kernel */
	tabs_make(&t, L ? L - 1 : 0, &cz_fr_one, &w);
	for (size_t k = 0; k < half; k++)
		cz_ntt32_pow2tab(&d->tw[k], (uint32_t)k, t.hi, t.lo, t.s);
	tabs_free(&t);
	tabs_make(&d->inv, L, &ninv, &cz_fr_one);
	tabs_make(&d->coset, L, &cz_fr_one, &g);
	tabs_make(&d->coset_inv, L, &ninv, &gi);
	tabs_make(&d->odd, L, &ninv, &g);
}

static void dom_free(struct dom *d)
{
	free(d->tw);
	tabs_free(&d->inv);
	tabs_free(&d->coset);
	tabs_free(&d->coset_inv);
	tabs_free(&d->odd);
}

/* The DIF: global stages, then the shared-memory block kernel's stages. */
static void emu_dif(const struct dom *d, cz_fr32 *a)
{
	unsigned L = d->L, B = d->B;
	size_t half = L ? (size_t)1 << (L - 1) : 0;

	for (unsigned hlog = L; hlog-- > B;)
		for (size_t t = 0; t < half; t++)
			cz_ntt32_bfly(a, (uint32_t)t, hlog, d->tw, L);
	if (B == 0)
		return;
	size_t bs = (size_t)1 << B;
	cz_fr32 *s = malloc(bs * sizeof(*s));
	for (size_t blk = 0; blk < ((size_t)1 << L) / bs; blk++) {
		memcpy(s, a + blk * bs, bs * sizeof(*s));
		for (unsigned hlog = B; hlog-- > 0;)
			for (size_t t = 0; t < bs / 2; t++)
				cz_ntt32_bfly(s, (uint32_t)t, hlog, d->tw, L);
		memcpy(a + blk * bs, s, bs * sizeof(*s));
	}
	free(s);
}

static void emu_gather(const struct dom *d, cz_fr32 *dst, const cz_fr32 *src, unsigned flags,
		       const struct tabs *t)
{
	for (size_t k = 0; k < ((size_t)1 << d->L); k++)
		cz_ntt32_gather(dst, src, (uint32_t)k, d->L, flags, t ? t->hi : NULL,
				t ? t->lo : NULL, t ? t->s : 0);
}

enum { FWD, INV, COSET_FWD, COSET_INV, ODD };

static void emu_ntt(const struct dom *d, cz_fr32 *a, int op)
{
	size_t n = (size_t)1 << d->L;
	cz_fr32 *t = malloc(n * sizeof(*t));
	const unsigned BR = CZ_NTT32_BITREV, NG = CZ_NTT32_NEGATE, SC = CZ_NTT32_SCALE;

	switch (op) {
	case FWD:
		emu_dif(d, a);
		emu_gather(d, t, a, BR, NULL);
		break;
	case INV:
		emu_dif(d, a);
		emu_gather(d, t, a, BR | NG | SC, &d->inv);
		break;
	case COSET_FWD:
		emu_gather(d, t, a, SC, &d->coset);
		emu_dif(d, t);
		memcpy(a, t, n * sizeof(*t));
		emu_gather(d, t, a, BR, NULL);
		break;
	case COSET_INV:
		emu_dif(d, a);
		emu_gather(d, t, a, BR | NG | SC, &d->coset_inv);
		break;
	case ODD:
		emu_dif(d, a);
		emu_gather(d, t, a, BR | NG | SC, &d->odd);
		emu_dif(d, t);
		memcpy(a, t, n * sizeof(*t));
		emu_gather(d, t, a, BR, NULL);
		break;
	}
	memcpy(a, t, n * sizeof(*t));
	free(t);
}

static void ntt_tests(void)
{
	static const char *names[] = { "forward", "inverse", "coset_forward", "coset_inverse",
				       "to_odd_coset" };
	static const unsigned sizes[][2] = { { 0, 0 }, { 1, 1 }, { 3, 2 }, { 6, 4 }, { 9, 4 },
					     { 10, 10 }, { 12, 5 } };
	const size_t nsz = sizeof(sizes) / sizeof(sizes[0]);
	int bad[5] = { 0 }, bad_h = 0;

	for (size_t si = 0; si < nsz; si++) {
		unsigned L = sizes[si][0];
		size_t n = (size_t)1 << L;
		struct dom d;
		struct cz_ntt_domain *zd = cz_ntt_domain_create(L);
		cz_fr *ref = malloc(3 * n * sizeof(cz_fr));
		cz_fr32 *got = malloc(3 * n * sizeof(cz_fr32));

		dom_make(&d, L, sizes[si][1]);
		for (int op = 0; op < 5; op++) {
			for (size_t i = 0; i < n; i++)
				ref[i] = fr_rand();
			memcpy(got, ref, n * sizeof(cz_fr));
			switch (op) {
			case FWD: cz_ntt_forward(zd, ref, NULL); break;
			case INV: cz_ntt_inverse(zd, ref, NULL); break;
			case COSET_FWD: cz_ntt_coset_forward(zd, ref, NULL); break;
			case COSET_INV: cz_ntt_coset_inverse(zd, ref, NULL); break;
			case ODD: cz_ntt_to_odd_coset(zd, ref, NULL); break;
			}
			emu_ntt(&d, got, op);
			bad[op] += memcmp(ref, got, n * sizeof(cz_fr)) != 0;
		}

		/* The Groth16 step: three odd-coset transforms left bit-reversed,
		 * then h = a·b - c in standard form. */
		for (size_t i = 0; i < 3 * n; i++)
			ref[i] = fr_rand();
		memcpy(got, ref, 3 * n * sizeof(cz_fr));
		cz_fr32 *t = malloc(n * sizeof(*t)), *h = malloc(n * sizeof(*h));
		for (int p = 0; p < 3; p++) {
			cz_fr32 *x = got + p * n;
			emu_dif(&d, x);
			emu_gather(&d, t, x, CZ_NTT32_BITREV | CZ_NTT32_NEGATE | CZ_NTT32_SCALE, &d.odd);
			emu_dif(&d, t);
			memcpy(x, t, n * sizeof(*t));
			cz_ntt_to_odd_coset(zd, ref + p * n, NULL);
		}
		for (size_t k = 0; k < n; k++)
			cz_ntt32_abc(h, got, got + n, got + 2 * n, (uint32_t)k, L);
		for (size_t k = 0; k < n; k++) {
			cz_fr x;
			uint64_t raw[4];
			cz_fr_mul(&x, &ref[k], &ref[n + k]);
			cz_fr_sub(&x, &x, &ref[2 * n + k]);
			cz_fr_from_mont(raw, &x);
			bad_h += memcmp(raw, &h[k], sizeof(raw)) != 0;
		}
		free(t);
		free(h);
		dom_free(&d);
		cz_ntt_domain_destroy(zd);
		free(ref);
		free(got);
	}
	for (int op = 0; op < 5; op++)
		ct_ok(!bad[op], "NTT %s: kernel bodies = zk/ntt at 2^0 .. 2^12, block sizes 2^0 .. 2^10 (%d sizes bad)",
		      names[op], bad[op]);
	ct_ok(!bad_h, "Groth16 quotient h = a·b - c on the odd coset = zk/ (%d points bad)", bad_h);
}

/* ---- MSM, as gpu/msm.cu drives the bodies ----------------------------------- */

struct kv {
	uint32_t k, v;
};

static int kv_cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* batch: windows per sort (the device picks it from memory; tests vary it). */
static void emu_msm(cz_g1_jac *res, const cz_g1_affine *bases_z, const cz_scalar *sc_z, size_t n,
		    unsigned c, unsigned batch)
{
	cz_g1a32 *bases = malloc((n + 1) * sizeof(*bases));
	cz_fr32 *sc = malloc((n + 1) * sizeof(*sc));
	uint32_t *big = malloc((n + 1) * sizeof(uint32_t)), *ones = malloc((n + 1) * sizeof(uint32_t));
	size_t m = 0, nones = 0;

	memcpy(bases, bases_z, n * sizeof(*bases));
	memcpy(sc, sc_z, n * sizeof(*sc));
	for (size_t i = 0; i < n; i++) {
		int cl = cz_msm32_class(&sc[i]);
		if (cl == CZ_MSM32_BIG)
			big[m++] = (uint32_t)i;
		else if (cl == CZ_MSM32_ONE)
			ones[nones++] = (uint32_t)i;
	}
	if (!c)
		c = cz_msm32_window(m);
	unsigned nwin = cz_msm32_nwin(c);
	size_t nb = (size_t)nwin << c;
	cz_g1xyzz32 *buckets = malloc(nb * sizeof(*buckets));
	uint32_t nseg = ((uint32_t)1 << c) / CZ_MSM32_GROUP;
	cz_g1xyzz32 *seg = malloc((size_t)nwin * nseg * sizeof(*seg)), *tmp;
	tmp = malloc((size_t)nwin * nseg * sizeof(*tmp) + (1u << 10) * sizeof(*tmp));

	for (unsigned w0 = 0; w0 < nwin; w0 += batch) {
		unsigned w1 = w0 + batch < nwin ? w0 + batch : nwin;
		size_t nent = (size_t)(w1 - w0) * m, nbk = (size_t)(w1 - w0) << c;
		uint32_t *key = malloc((nent + 1) * 4), *val = malloc((nent + 1) * 4);
		uint32_t *st = calloc(nbk, 4), *en = calloc(nbk, 4);
		struct kv *kv = malloc((nent + 1) * sizeof(*kv));
		for (unsigned w = w0; w < w1; w++)
			for (size_t t = 0; t < m; t++)
				cz_msm32_pair(key, val, sc, big, (uint32_t)m, (uint32_t)t, w, w0, c);
		for (size_t i = 0; i < nent; i++)
			kv[i] = (struct kv){ key[i], val[i] };
		qsort(kv, nent, sizeof(*kv), kv_cmp);
		for (size_t i = 0; i < nent; i++)
			key[i] = kv[i].k, val[i] = kv[i].v;
		for (size_t i = 0; i < nent; i++)
			cz_msm32_bounds(st, en, key, nent, i);
		for (size_t b = 0; b < nbk; b++)
			cz_msm32_bucket(buckets, st, en, val, bases, (uint32_t)b, w0, c);
		free(key), free(val), free(st), free(en), free(kv);
	}
	for (unsigned w = 0; w < nwin; w++)
		for (uint32_t s = 0; s < nseg; s++)
			cz_msm32_segment(seg, buckets, w, s, nseg, c);
	for (uint32_t per = nseg; per > 1;) {  /* per: results per window */
		unsigned k = per < CZ_MSM32_GROUP ? per : CZ_MSM32_GROUP;
		size_t cnt = (size_t)nwin * per;
		for (size_t g = 0; g < cnt / k; g++)
			cz_msm32_group(tmp, seg, cnt, g, k);
		memcpy(seg, tmp, cnt / k * sizeof(*seg));
		per /= k;
	}
	/* the ones: 1024 partial sums, then groups down to one */
	size_t nt = 1024, cnt = nt;
	cz_g1xyzz32 one_sum;
	for (size_t t = 0; t < nt; t++)
		cz_msm32_ones(tmp, bases, ones, nones, t, nt);
	while (cnt > 1) {
		size_t nx = (cnt + CZ_MSM32_GROUP - 1) / CZ_MSM32_GROUP;
		cz_g1xyzz32 *o = malloc(nx * sizeof(*o));
		for (size_t g = 0; g < nx; g++)
			cz_msm32_group(o, tmp, cnt, g, CZ_MSM32_GROUP);
		memcpy(tmp, o, nx * sizeof(*o));
		free(o);
		cnt = nx;
	}
	one_sum = tmp[0];
	cz_g1xyzz32 r;
	cz_msm32_horner(&r, seg, nwin, c, &one_sum);
	cz_g1jac32 j;
	cz_g1xyzz32_to_jac(&j, &r);
	memcpy(res, &j, sizeof(*res));
	free(bases), free(sc), free(big), free(ones), free(buckets), free(seg), free(tmp);
}

static void rand_points(cz_g1_affine *p, size_t n)
{
	cz_g1_jac g, q;
	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	for (size_t i = 0; i < n; i++) {
		uint64_t k = rnd();
		cz_g1_mul_vartime(&q, &g, &k, 1);
		cz_g1_jac_to_affine(&p[i], &q);
	}
}

static cz_scalar scalar_rand(void)
{
	cz_fr f = fr_rand();
	cz_scalar s;
	cz_fr_from_mont(s.l, &f);
	return s;
}

static void msm_tests(void)
{
	enum { NMAX = 600 };
	cz_g1_affine *p = malloc(NMAX * sizeof(*p));
	cz_scalar *k = malloc(NMAX * sizeof(*k));
	static const struct {
		const char *what;
		size_t n;
		int kind;        /* 0 random, 1 mostly 0/1, 2 all one, 3 with infinities, 4 edges */
		unsigned c, batch;
	} cases[] = {
		{ "1 random", 1, 0, 0, 64 },
		{ "2 random", 2, 0, 0, 64 },
		{ "600 random, c auto", 600, 0, 0, 64 },
		{ "600 random, c = 11, 5 windows per sort", 600, 0, 11, 5 },
		{ "600 random, c = 9, 1 window per sort", 600, 0, 9, 1 },
		{ "600 mostly 0/1 (90%)", 600, 1, 0, 64 },
		{ "600 all one", 600, 2, 0, 64 },
		{ "300 random with infinity bases", 300, 3, 0, 64 },
		{ "300 edges: 0, 1, 2, r - 1, 2^k, repeats", 300, 4, 0, 64 },
		{ "0 points", 0, 0, 0, 64 },
	};
	const size_t ncases = sizeof(cases) / sizeof(cases[0]);

	rand_points(p, NMAX);
	for (size_t ci = 0; ci < ncases; ci++) {
		size_t n = cases[ci].n;
		cz_g1_affine *b = malloc((n + 1) * sizeof(*b));
		memcpy(b, p, n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			k[i] = scalar_rand();
			switch (cases[ci].kind) {
			case 1:
				if (rnd() % 10)
					k[i] = (cz_scalar){ { rnd() & 1, 0, 0, 0 } };
				break;
			case 2:
				k[i] = (cz_scalar){ { 1, 0, 0, 0 } };
				break;
			case 3:
				if (i % 7 == 0)
					memset(&b[i], 0, sizeof(b[i]));
				break;
			case 4: {
				cz_fr m1;
				cz_fr_neg(&m1, &cz_fr_one);
				switch (i % 6) {
				case 0: k[i] = (cz_scalar){ { 0, 0, 0, 0 } }; break;
				case 1: k[i] = (cz_scalar){ { 2, 0, 0, 0 } }; break;
				case 2: cz_fr_from_mont(k[i].l, &m1); break;
				case 3: k[i] = (cz_scalar){ { 0 } }; k[i].l[(i / 6) % 4] = 1ULL << (i % 64); break;
				case 4: b[i] = b[i - 1]; break;  /* a repeated base */
				default: break;
				}
				break;
			}
			default:
				break;
			}
		}
		cz_g1_jac want, got;
		cz_msm_g1(&want, b, k, n, NULL);
		emu_msm(&got, b, k, n, cases[ci].c, cases[ci].batch);
		ct_ok(cz_g1_jac_eq(&want, &got), "MSM %s: kernel bodies = cz_msm_g1", cases[ci].what);
		free(b);
	}
	free(p);
	free(k);
}

static void digit_tests(void)
{
	int bad = 0;
	for (int it = 0; it < 200; it++) {
		cz_scalar s = scalar_rand();
		cz_fr32 s32;
		memcpy(&s32, &s, sizeof(s32));
		for (unsigned c = 1; c <= 24; c++)
			for (unsigned w = 0; w < cz_msm32_nwin(c); w++) {
				uint32_t want = 0;
				for (unsigned b = 0; b < c && w * c + b < 256; b++) {
					unsigned bit = w * c + b;
					want |= (uint32_t)((s.l[bit / 64] >> (bit % 64)) & 1) << b;
				}
				bad += want != cz_msm32_digit(&s32, w, c);
			}
	}
	ct_ok(!bad, "MSM window digits = the scalar's bits, c = 1 .. 24 (%d bad)", bad);
}

int main(void)
{
	ct_plan(6 + 10 + 1);
	ntt_tests();
	msm_tests();
	digit_tests();
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * selftests/gpu_kernels_check.h — the NTT and MSM kernel bodies run on the
 * host the way gpu/ntt.cu and gpu/msm.cu drive them, against zk/, for one
 * curve; included by selftests/gpu_kernels.c once per curve after defining:
 *   KC(n)      this curve's name of test function n
 *   KNAME      the curve's name for messages
 *   ZF(n)      zk/'s Fr (cz_fr_##n), ZF_T its type, ZF_TOP the top limb's mask
 *   F32T       the 32-bit Fr type, N32(n) the NTT bodies
 *   ZN(n)      zk/'s NTT (cz_ntt_##n), ZN_DOM its domain struct
 *   G32(n)     the 32-bit G1 (cz_g1##n), M32(n) the MSM bodies
 *   ZG(n)      zk/'s G1 (cz_g1_##n), ZMSM zk/'s G1 MSM, COMBINE the host Horner
 */

static ZF_T KC(fr_rand)(void)
{
	uint64_t raw[4];
	ZF_T r;
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = rnd();
		raw[3] &= ZF_TOP;
	} while (!ZF(to_mont)(&r, raw));
	return r;
}

/* zk/ and F32 elements are the same bytes; copies keep the types apart. */
static F32T KC(to32)(const ZF_T *a)
{
	F32T r;
	memcpy(&r, a, sizeof(r));
	return r;
}

/* ---- NTT, as gpu/ntt.cu drives the bodies -------------------------------- */

struct KC(tabs) {
	F32T *hi, *lo;
	unsigned s;
};

/* hi[j] = c·z^(j·2^s), lo[i] = z^i: the two-table form of c·z^k, k < 2^L. */
static void KC(tabs_make)(struct KC(tabs) *t, unsigned L, const ZF_T *c, const ZF_T *z)
{
	t->s = (L + 1) / 2;
	size_t nlo = (size_t)1 << t->s, nhi = (size_t)1 << (L - t->s);
	ZF_T p = ZF(one), zs;
	t->lo = malloc(nlo * sizeof(F32T));
	t->hi = malloc(nhi * sizeof(F32T));
	for (size_t i = 0; i < nlo; i++) {
		t->lo[i] = KC(to32)(&p);
		ZF(mul)(&p, &p, z);
	}
	zs = p; /* z^(2^s) */
	p = *c;
	for (size_t j = 0; j < nhi; j++) {
		t->hi[j] = KC(to32)(&p);
		ZF(mul)(&p, &p, &zs);
	}
}

static void KC(tabs_free)(struct KC(tabs) *t)
{
	free(t->hi);
	free(t->lo);
}

struct KC(dom) {
	unsigned L, B;
	F32T *tw;
	struct KC(tabs) inv, coset, coset_inv, odd;
};

static void KC(dom_make)(struct KC(dom) *d, unsigned L, unsigned B)
{
	ZF_T w, g, gi, ninv, nn;
	struct KC(tabs) t;

	d->L = L;
	d->B = B < L ? B : L;
	ZF(root_of_unity)(&w, L);
	ZF(root_of_unity)(&g, L + 1);
	ZF(inv)(&gi, &g);
	ZF(from_u64)(&nn, (uint64_t)1 << L);
	ZF(inv)(&ninv, &nn);
	/* the twiddles from their own two tables, as the device builds them */
	size_t half = L ? (size_t)1 << (L - 1) : 1;
	d->tw = malloc(half * sizeof(F32T));
	if (L) {
		KC(tabs_make)(&t, L - 1, &ZF(one), &w);
		for (size_t j = 0; j < half; j++)
			N32(pow2tab)(&d->tw[j], (uint32_t)j, t.hi, t.lo, t.s);
		KC(tabs_free)(&t);
	} else {
		d->tw[0] = KC(to32)(&ZF(one));
	}
	KC(tabs_make)(&d->inv, L, &ninv, &ZF(one));
	KC(tabs_make)(&d->coset, L, &ZF(one), &g);
	KC(tabs_make)(&d->coset_inv, L, &ninv, &gi);
	KC(tabs_make)(&d->odd, L, &ninv, &g);
}

static void KC(dom_free)(struct KC(dom) *d)
{
	free(d->tw);
	KC(tabs_free)(&d->inv);
	KC(tabs_free)(&d->coset);
	KC(tabs_free)(&d->coset_inv);
	KC(tabs_free)(&d->odd);
}

/* The DIF: global stages, then k_block's stages on the limb-major, swizzled
 * shared layout (gpu/ntt32.h), loaded and stored as the kernel does. */
static void KC(emu_dif)(const struct KC(dom) *d, F32T *a)
{
	unsigned L = d->L, B = d->B;
	size_t half = L ? (size_t)1 << (L - 1) : 0;

	for (unsigned hlog = L; hlog-- > B;)
		for (size_t t = 0; t < half; t++)
			N32(bfly)(a, (uint32_t)t, hlog, d->tw, L);
	if (B == 0)
		return;
	size_t bs = (size_t)1 << B;
	uint32_t *sh = malloc(bs * sizeof(F32T));
	for (size_t blk = 0; blk < ((size_t)1 << L) / bs; blk++) {
		F32T *x = a + blk * bs;
		for (size_t t = 0; t < bs / 2; t++) {
			N32(sh_put)(sh, (uint32_t)t, B, &x[t]);
			N32(sh_put)(sh, (uint32_t)(t + bs / 2), B, &x[t + bs / 2]);
		}
		for (unsigned hlog = B; hlog-- > 0;)
			for (size_t t = 0; t < bs / 2; t++)
				N32(bfly_sh)(sh, (uint32_t)t, hlog, d->tw, L, B);
		for (size_t t = 0; t < bs / 2; t++) {
			N32(sh_get)(&x[t], sh, (uint32_t)t, B);
			N32(sh_get)(&x[t + bs / 2], sh, (uint32_t)(t + bs / 2), B);
		}
	}
	free(sh);
}

static void KC(emu_gather)(const struct KC(dom) *d, F32T *dst, const F32T *src, unsigned flags,
			   const struct KC(tabs) *t)
{
	for (size_t k = 0; k < ((size_t)1 << d->L); k++)
		N32(gather)(dst, src, (uint32_t)k, d->L, flags, t ? t->hi : NULL, t ? t->lo : NULL,
			    t ? t->s : 0);
}

static void KC(emu_ntt)(const struct KC(dom) *d, F32T *a, int op)
{
	size_t n = (size_t)1 << d->L;
	F32T *t = malloc(n * sizeof(*t));
	const unsigned BR = CZ_NTT32_BITREV, NG = CZ_NTT32_NEGATE, SC = CZ_NTT32_SCALE;

	switch (op) {
	case FWD:
		KC(emu_dif)(d, a);
		KC(emu_gather)(d, t, a, BR, NULL);
		break;
	case INV:
		KC(emu_dif)(d, a);
		KC(emu_gather)(d, t, a, BR | NG | SC, &d->inv);
		break;
	case COSET_FWD:
		KC(emu_gather)(d, t, a, SC, &d->coset);
		KC(emu_dif)(d, t);
		memcpy(a, t, n * sizeof(*t));
		KC(emu_gather)(d, t, a, BR, NULL);
		break;
	case COSET_INV:
		KC(emu_dif)(d, a);
		KC(emu_gather)(d, t, a, BR | NG | SC, &d->coset_inv);
		break;
	case ODD:
		KC(emu_dif)(d, a);
		KC(emu_gather)(d, t, a, BR | NG | SC, &d->odd);
		KC(emu_dif)(d, t);
		memcpy(a, t, n * sizeof(*t));
		KC(emu_gather)(d, t, a, BR, NULL);
		break;
	}
	memcpy(a, t, n * sizeof(*t));
	free(t);
}

static void KC(ntt_tests)(void)
{
	static const unsigned sizes[][2] = { { 0, 0 }, { 1, 1 }, { 3, 2 }, { 6, 4 }, { 9, 4 },
					     { 10, 10 }, { 12, 5 }, { 12, 10 } };
	const size_t nsz = sizeof(sizes) / sizeof(sizes[0]);
	int bad[5] = { 0 }, bad_h = 0;

	for (size_t si = 0; si < nsz; si++) {
		unsigned L = sizes[si][0];
		size_t n = (size_t)1 << L;
		struct KC(dom) d;
		struct ZN_DOM *zd = ZN(domain_create)(L);
		ZF_T *ref = malloc(3 * n * sizeof(ZF_T));
		F32T *got = malloc(3 * n * sizeof(F32T));

		KC(dom_make)(&d, L, sizes[si][1]);
		for (int op = 0; op < 5; op++) {
			for (size_t i = 0; i < n; i++)
				ref[i] = KC(fr_rand)();
			memcpy(got, ref, n * sizeof(ZF_T));
			switch (op) {
			case FWD: ZN(forward)(zd, ref, NULL); break;
			case INV: ZN(inverse)(zd, ref, NULL); break;
			case COSET_FWD: ZN(coset_forward)(zd, ref, NULL); break;
			case COSET_INV: ZN(coset_inverse)(zd, ref, NULL); break;
			case ODD: ZN(to_odd_coset)(zd, ref, NULL); break;
			}
			KC(emu_ntt)(&d, got, op);
			bad[op] += memcmp(ref, got, n * sizeof(ZF_T)) != 0;
		}

		/* The Groth16 step: three odd-coset transforms left bit-reversed,
		 * then h = a·b - c in standard form. */
		for (size_t i = 0; i < 3 * n; i++)
			ref[i] = KC(fr_rand)();
		memcpy(got, ref, 3 * n * sizeof(ZF_T));
		F32T *t = malloc(n * sizeof(*t)), *h = malloc(n * sizeof(*h));
		for (int p = 0; p < 3; p++) {
			F32T *x = got + p * n;
			KC(emu_dif)(&d, x);
			KC(emu_gather)(&d, t, x, CZ_NTT32_BITREV | CZ_NTT32_NEGATE | CZ_NTT32_SCALE, &d.odd);
			KC(emu_dif)(&d, t);
			memcpy(x, t, n * sizeof(*t));
			ZN(to_odd_coset)(zd, ref + p * n, NULL);
		}
		for (size_t k = 0; k < n; k++)
			N32(abc)(h, got, got + n, got + 2 * n, (uint32_t)k, L);
		for (size_t k = 0; k < n; k++) {
			ZF_T x;
			uint64_t raw[4];
			ZF(mul)(&x, &ref[k], &ref[n + k]);
			ZF(sub)(&x, &x, &ref[2 * n + k]);
			ZF(from_mont)(raw, &x);
			bad_h += memcmp(raw, &h[k], sizeof(raw)) != 0;
		}
		free(t);
		free(h);
		KC(dom_free)(&d);
		ZN(domain_destroy)(zd);
		free(ref);
		free(got);
	}
	for (int op = 0; op < 5; op++)
		ct_ok(!bad[op], "%s NTT %s: kernel bodies = zk/ at 2^0 .. 2^12, shared-memory blocks 2^0 .. 2^10 (%d sizes bad)",
		      KNAME, ntt_names[op], bad[op]);
	ct_ok(!bad_h, "%s Groth16 quotient h = a·b - c on the odd coset = zk/ (%d points bad)", KNAME,
	      bad_h);
}

/* ---- MSM, as gpu/msm.cu drives the bodies ----------------------------------- */

/* Step 5 for one batch as buckets_fill() runs it: one "thread" a bucket when
 * no run exceeds T, else the hot-bucket chunk levels.  Returns the levels. */
static unsigned KC(emu_buckets)(G32(xyzz32) *buckets, uint32_t *st, uint32_t *en, const uint32_t *val,
				const G32(a32) *bases, size_t nent, size_t nbk, size_t w0k, uint32_t T)
{
	uint32_t maxrun = 0;
	for (size_t b = 0; b < nbk; b++)
		if (cz_msm32_runlen(st, en, b) > maxrun)
			maxrun = cz_msm32_runlen(st, en, b);
	if (maxrun <= T) {
		for (size_t b = 0; b < nbk; b++)
			M32(bucket)(buckets, st, en, val, bases, (uint32_t)b, w0k);
		return 0;
	}
	unsigned levels = cz_msm32_hot_levels(maxrun, T);
	size_t cap = (nent < nbk ? nent : nbk) + nent / T + 1;
	G32(xyzz32) *p[2] = { malloc(cap * sizeof(G32(xyzz32))), malloc(cap * sizeof(G32(xyzz32))) };
	uint32_t *nch = malloc((nbk + 1) * 4), *off = malloc((nbk + 1) * 4);
	for (unsigned lv = 0; lv < levels; lv++) {
		for (size_t b = 0; b < nbk; b++)
			cz_msm32_nchunks(nch, st, en, b, T);
		nch[nbk] = 0;
		for (size_t b = 0, acc = 0; b <= nbk; b++) {  /* CUB's exclusive sum */
			off[b] = (uint32_t)acc;
			acc += nch[b];
		}
		for (uint32_t j = 0; j < off[nbk]; j++) {
			if (lv == 0)
				M32(chunk_affine)(p[0], off, nbk, st, en, val, bases, j, T);
			else
				M32(chunk_xyzz)(p[lv & 1], off, nbk, st, en, p[(lv - 1) & 1], j, T);
		}
		for (size_t b = 0; b < nbk; b++)
			cz_msm32_runs_next(st, en, off, b);
	}
	for (size_t b = 0; b < nbk; b++)
		M32(bucket_xyzz)(buckets, st, en, p[(levels - 1) & 1], (uint32_t)b, w0k);
	free(p[0]), free(p[1]), free(nch), free(off);
	return levels;
}

/* batch: windows per sort (the device picks it from memory; tests vary it);
 * T: the hot-run limit.  *levels: the most chunk levels a batch used. */
static void KC(emu_msm)(ZG(jac) *res, const ZG(affine) *bases_z, const cz_scalar *sc_z, size_t n,
			unsigned c, unsigned batch, uint32_t T, unsigned *levels)
{
	G32(a32) *bases = malloc((n + 1) * sizeof(*bases));
	F32T *sc = malloc((n + 1) * sizeof(*sc));
	uint32_t *big = malloc((n + 1) * sizeof(uint32_t)), *ones = malloc((n + 1) * sizeof(uint32_t));
	size_t m = 0, nones = 0;

	*levels = 0;
	memcpy(bases, bases_z, n * sizeof(*bases));
	memcpy(sc, sc_z, n * sizeof(*sc));
	for (size_t i = 0; i < n; i++) {
		int cl = M32(class)(&sc[i]);
		if (cl == CZ_MSM32_BIG)
			big[m++] = (uint32_t)i;
		else if (cl == CZ_MSM32_ONE)
			ones[nones++] = (uint32_t)i;
	}
	if (!c)
		c = M32(window)(m);
	unsigned nwin = M32(nwin)(c);
	uint32_t K = cz_msm32_nbuckets(c), nseg = cz_msm32_nseg(c);
	G32(xyzz32) *buckets = malloc((size_t)nwin * K * sizeof(*buckets));
	G32(xyzz32) *seg = malloc((size_t)nwin * nseg * sizeof(*seg)), *tmp;
	size_t nt = cz_msm32_ones_threads(132, 128, nones);
	tmp = malloc(((size_t)nwin * nseg + nt) * sizeof(*tmp));

	for (unsigned w0 = 0; w0 < nwin; w0 += batch) {
		unsigned nw = w0 + batch < nwin ? batch : nwin - w0;
		size_t nent = (size_t)nw * m, nbk = (size_t)nw * K;
		uint32_t *key = malloc((nent + 1) * 4), *val = malloc((nent + 1) * 4);
		uint32_t *st = calloc(nbk + 1, 4), *en = calloc(nbk + 1, 4);
		struct kv *kv = malloc((nent + 1) * sizeof(*kv));
		for (size_t t = 0; t < m; t++)
			M32(pairs)(key, val, sc, big, (uint32_t)m, (uint32_t)t, w0, nw, c);
		for (size_t i = 0; i < nent; i++)
			kv[i] = (struct kv){ key[i], val[i] };
		qsort(kv, nent, sizeof(*kv), kv_cmp);
		for (size_t i = 0; i < nent; i++)
			key[i] = kv[i].k, val[i] = kv[i].v;
		for (size_t i = 0; i < nent; i++)
			cz_msm32_bounds(st, en, key, nent, i);
		unsigned lv = KC(emu_buckets)(buckets, st, en, val, bases, nent, nbk, (size_t)w0 * K, T);
		if (lv > *levels)
			*levels = lv;
		free(key), free(val), free(st), free(en), free(kv);
	}
	for (unsigned w = 0; w < nwin; w++)
		for (uint32_t s = 0; s < nseg; s++)
			M32(segment)(seg, buckets, w, s, nseg, c);
	for (uint32_t per = nseg; per > 1;) {  /* per: results per window */
		unsigned k = per < CZ_MSM32_GROUP ? per : CZ_MSM32_GROUP;
		size_t cnt = (size_t)nwin * per;
		for (size_t g = 0; g < cnt / k; g++)
			M32(group)(tmp, seg, cnt, g, k);
		memcpy(seg, tmp, cnt / k * sizeof(*seg));
		per /= k;
	}
	/* the ones: partial sums as an H200 (132 SMs) would make, then groups */
	size_t cnt = nt;
	for (size_t t = 0; t < nt; t++)
		M32(ones)(tmp, bases, ones, nones, t, nt);
	while (cnt > 1) {
		size_t nx = (cnt + CZ_MSM32_GROUP - 1) / CZ_MSM32_GROUP;
		G32(xyzz32) *o = malloc(nx * sizeof(*o));
		for (size_t g = 0; g < nx; g++)
			M32(group)(o, tmp, cnt, g, CZ_MSM32_GROUP);
		memcpy(tmp, o, nx * sizeof(*o));
		free(o);
		cnt = nx;
	}
	COMBINE(res, seg, nwin, c, &tmp[0]);
	free(bases), free(sc), free(big), free(ones), free(buckets), free(seg), free(tmp);
}

static void KC(rand_points)(ZG(affine) *p, size_t n)
{
	ZG(jac) g, q;
	ZG(jac_from_affine)(&g, &ZG(generator));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = rnd();
		ZG(mul_vartime)(&q, &g, &k, 1);
		ZG(jac_to_affine)(&p[i], &q);
	}
}

static cz_scalar KC(scalar_rand)(void)
{
	ZF_T f = KC(fr_rand)();
	cz_scalar s;
	ZF(from_mont)(s.l, &f);
	return s;
}

static void KC(msm_tests)(void)
{
	enum { NMAX = 600 };
	ZG(affine) *p = malloc(NMAX * sizeof(*p));
	cz_scalar *k = malloc(NMAX * sizeof(*k));
	static const struct {
		const char *what;
		size_t n;
		int kind;        /* 0 random, 1 mostly 0/1, 2 all one, 3 with infinities, 4 edges,
				    5 one repeated scalar, 6 -1 repeated, 7 half one value */
		unsigned c, batch;
		uint32_t T;      /* the hot-run limit */
		int want_levels; /* 0: no chunking expected; -1: either; else at least this */
	} cases[] = {
		{ "1 random", 1, 0, 0, 64, CZ_MSM32_HOT, 0 },
		{ "2 random", 2, 0, 0, 64, CZ_MSM32_HOT, 0 },
		{ "600 random, c auto", 600, 0, 0, 64, CZ_MSM32_HOT, 0 },
		{ "600 random, c = 11, 5 windows per sort (a top window of 3 bits)", 600, 0, 11, 5, CZ_MSM32_HOT, -1 },
		{ "600 random, c = 9, 1 window per sort", 600, 0, 9, 1, CZ_MSM32_HOT, -1 },
		{ "600 random, c = 4 (one segment a window)", 600, 0, 4, 64, 1u << 30, 0 },
		{ "600 mostly 0/1 (90%)", 600, 1, 0, 64, CZ_MSM32_HOT, 0 },
		{ "600 all one", 600, 2, 0, 64, CZ_MSM32_HOT, 0 },
		{ "300 random with infinity bases", 300, 3, 0, 64, CZ_MSM32_HOT, 0 },
		{ "300 edges: 0, 1, 2, r - 1, 2^k, repeats (runs of 50: chunked)", 300, 4, 0, 64, CZ_MSM32_HOT, 1 },
		{ "0 points", 0, 0, 0, 64, CZ_MSM32_HOT, 0 },
		{ "600 of one scalar: hot buckets, T = 32", 600, 5, 0, 64, CZ_MSM32_HOT, 1 },
		{ "600 of one scalar: hot buckets, T = 4 (4 levels)", 600, 5, 0, 3, 4, 4 },
		{ "600 of r - 1 (all digits negative), T = 8", 600, 6, 0, 64, 8, 2 },
		{ "600, half one scalar, half random, T = 2", 600, 7, 10, 2, 2, 7 },
	};
	const size_t ncases = sizeof(cases) / sizeof(cases[0]);

	KC(rand_points)(p, NMAX);
	cz_scalar rep = KC(scalar_rand)();
	for (size_t ci = 0; ci < ncases; ci++) {
		size_t n = cases[ci].n;
		ZG(affine) *b = malloc((n + 1) * sizeof(*b));
		memcpy(b, p, n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			k[i] = KC(scalar_rand)();
			ZF_T m1;
			ZF(neg)(&m1, &ZF(one));
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
			case 4:
				switch (i % 6) {
				case 0: k[i] = (cz_scalar){ { 0, 0, 0, 0 } }; break;
				case 1: k[i] = (cz_scalar){ { 2, 0, 0, 0 } }; break;
				case 2: ZF(from_mont)(k[i].l, &m1); break;
				case 3: k[i] = (cz_scalar){ { 0 } }; k[i].l[(i / 6) % 4] = 1ULL << (i % 64); break;
				case 4: b[i] = b[i - 1]; break;  /* a repeated base */
				default: break;
				}
				break;
			case 5:
				k[i] = rep;
				break;
			case 6:
				ZF(from_mont)(k[i].l, &m1);
				break;
			case 7:
				if (i % 2)
					k[i] = rep;
				break;
			default:
				break;
			}
		}
		ZG(jac) want, got;
		unsigned lv;
		ZMSM(&want, b, k, n, NULL);
		KC(emu_msm)(&got, b, k, n, cases[ci].c, cases[ci].batch, cases[ci].T, &lv);
		int wl = cases[ci].want_levels;
		int lv_ok = wl < 0 || (wl ? (int)lv >= wl : lv == 0);
		ct_ok(ZG(jac_eq)(&want, &got) && lv_ok, "%s MSM %s: kernel bodies = zk/ (chunk levels %u)",
		      KNAME, cases[ci].what, lv);
		free(b);
	}
	free(p);
	free(k);
}

/* Signed digits put back together are the scalar: Σ d_w 2^(c·w) = s, with
 * |d_w| <= 2^(c-1), for every window size, from the pairs step's output. */
static void KC(digit_tests)(void)
{
	int bad = 0, range = 0;
	for (int it = 0; it < 100; it++) {
		cz_scalar s = KC(scalar_rand)();
		if (it == 0)
			ZF(from_mont)(s.l, &ZF(zero));
		if (it == 1) {
			ZF_T m1;
			ZF(neg)(&m1, &ZF(one));
			ZF(from_mont)(s.l, &m1);
		}
		F32T s32;
		memcpy(&s32, &s, sizeof(s32));
		for (unsigned c = 4; c <= 20; c++) {
			unsigned nwin = M32(nwin)(c);
			uint32_t K = cz_msm32_nbuckets(c), big = 0;
			uint32_t key[CZ_MSM32_MAXWIN], val[CZ_MSM32_MAXWIN];
			M32(pairs)(key, val, &s32, &big, 1, 0, 0, nwin, c);
			/* acc = Σ d_w 2^(c·w) as a 320-bit two's complement number */
			uint64_t acc[5] = { 0 };
			for (int w = (int)nwin - 1; w >= 0; w--) {
				int64_t d = 0;
				if (key[w] != nwin * K) {
					if (key[w] / K != (uint32_t)w)
						range++;
					d = (int64_t)(key[w] % K) + 1;
					if (val[w] & CZ_MSM32_NEG)
						d = -d;
				}
				/* acc = acc·2^c + d */
				for (int l = 4; l > 0; l--)
					acc[l] = (acc[l] << c) | (acc[l - 1] >> (64 - c));
				acc[0] <<= c;
				uint64_t add = (uint64_t)d, ext = d < 0 ? ~0ULL : 0, cy = 0;
				for (int l = 0; l < 5; l++) {
					uint64_t a = l == 0 ? add : ext;
					uint64_t t = acc[l] + a;
					uint64_t c1 = t < acc[l];
					acc[l] = t + cy;
					cy = c1 | (acc[l] < t);
				}
			}
			bad += memcmp(acc, s.l, 32) != 0 || acc[4] != 0;
		}
	}
	ct_ok(!bad && !range, "%s MSM signed digits: Σ d_w·2^(c·w) = s, keys in their window, c = 4 .. 20 (%d bad, %d out of range)",
	      KNAME, bad, range);
}

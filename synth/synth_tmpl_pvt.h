/* SPDX-License-Identifier: MIT */
/*
 * synth/synth_tmpl_pvt.h — synthesis (design in synth/synth.c) written once
 * over the curve; private to synth/synth.c, which includes it for
 * BLS12-381 (cz_synth_abc) and BN254 (cz_bn254_synth_abc).  The includer
 * defines SY(n) (names: cz_synth_##n), SY_G16(n) (the prover's tags:
 * cz_groth16_##n) and SY_FR (the scalar field prefix and type).
 */
#define SY_CAT2(a, b) a##_##b
#define SY_CAT(a, b) SY_CAT2(a, b)
#define SYF(n) SY_CAT(SY_FR, n)

/* a[row] or b[row] += value·w[var]: value = v·R², w standard, so the
 * Montgomery product is Mont(v·w).  One Fr mul and add per coefficient. */
static void SY(coef)(const struct SY_G16(coef) *cf, const cz_scalar *w, SY_FR *a, SY_FR *b)
{
	SY_FR *dst = cf->matrix ? &b[cf->row] : &a[cf->row];
	SY_FR x, wv;
	memcpy(&wv, &w[cf->var], sizeof(wv));
	SYF(mul_inl)(&x, &cf->value, &wv);
	SYF(add_inl)(dst, dst, &x);
}

struct SY(arg) {
	const struct SY_G16(key) *k;
	const cz_scalar *w;
	SY_FR *a, *b, *c;
	size_t n, chunk;
};

static void SY(rows)(void *v, size_t ci)
{
	struct SY(arg) *s = v;
	const struct SY_G16(key) *k = s->k;
	size_t lo = ci * s->chunk, hi = lo + s->chunk < s->n ? lo + s->chunk : s->n;

	memset(s->a + lo, 0, (hi - lo) * sizeof(SY_FR));
	memset(s->b + lo, 0, (hi - lo) * sizeof(SY_FR));
	for (size_t i = k->row_off[lo]; i < k->row_off[hi]; i++)
		SY(coef)(&k->coefs[i], s->w, s->a, s->b);
	for (size_t i = lo; i < hi; i++)
		SYF(mul_inl)(&s->c[i], &s->a[i], &s->b[i]);
}

void SY(abc)(const struct SY_G16(key) *k, const cz_scalar *w, SY_FR *a, SY_FR *b, SY_FR *c,
	     struct cz_pool *pool)
{
	size_t n = (size_t)1 << k->log2n;

	if (k->row_off) {
		/* ~8 chunks a thread balance uneven rows; 64..4096 rows a chunk */
		size_t chunk = n / (8 * cz_pool_nthreads(pool));
		chunk = chunk < 64 ? 64 : chunk > 4096 ? 4096 : chunk;
		struct SY(arg) s = { k, w, a, b, c, n, chunk };
		cz_pool_for(pool, (n + s.chunk - 1) / s.chunk, SY(rows), &s);
		return;
	}
	memset(a, 0, n * sizeof(*a));
	memset(b, 0, n * sizeof(*b));
	for (size_t i = 0; i < k->ncoefs; i++)
		SY(coef)(&k->coefs[i], w, a, b);
	for (size_t i = 0; i < n; i++)
		SYF(mul_inl)(&c[i], &a[i], &b[i]);
}

#undef SYF

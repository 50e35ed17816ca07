/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16_setup_tmpl_pvt.h — the INSECURE development setup (design in
 * zk/groth16/groth16_setup.c) written once over the curve; private to
 * zk/groth16/groth16_setup.c (BLS12-381: cz_groth16_devsetup) and
 * zk/groth16/bn254_groth16_setup.c (BN254: cz_bn254_groth16_devsetup).  The
 * includer defines SU_G16(n) (the prover's names: cz_groth16_##n), SU_CS(n)
 * and SU_CS_T (the constraint system's: cz_cs_##n, cz_cs), SU_FR (the
 * scalar field), SU_G1 SU_G2 (group prefixes) and SU_TWO_ADICITY.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SU_CAT2(a, b) a##_##b
#define SU_CAT(a, b) SU_CAT2(a, b)
#define SUF(n) SU_CAT(SU_FR, n)
#define SUA(n) SU_CAT(SU_G1, n)
#define SUB(n) SU_CAT(SU_G2, n)

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void toxic(SU_FR *r, uint64_t *s)
{
	uint64_t raw[4];
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = mix(s);
		raw[4 - 1] &= 0x0fffffffffffffffULL;
	} while (!SUF(to_mont)(r, raw) || SUF(is_zero)(r));
}

/* out[j] = num·x_j / (den·(τ − x_j)), x_j = shift·ω^j: the Lagrange-style
 * factor both bases need.  One batch inversion. */
static int lagrange(SU_FR *out, size_t n, const SU_FR *omega, const SU_FR *shift,
		    const SU_FR *tau, const SU_FR *num, const SU_FR *den)
{
	SU_FR *x = malloc(n * sizeof(SU_FR)), *scratch = malloc(n * sizeof(SU_FR));
	if (!x || !scratch) {
		free(x);
		free(scratch);
		return -ENOMEM;
	}
	SU_FR xj = *shift;
	for (size_t j = 0; j < n; j++) {
		x[j] = xj;
		SUF(sub)(&out[j], tau, &xj);
		SUF(mul)(&out[j], &out[j], den);
		SUF(mul)(&xj, &xj, omega);
	}
	SUF(batch_inv)(out, out, n, scratch);
	for (size_t j = 0; j < n; j++) {
		SUF(mul)(&out[j], &out[j], &x[j]);
		SUF(mul)(&out[j], &out[j], num);
	}
	free(x);
	free(scratch);
	return 0;
}

static void fr_pow2k(SU_FR *r, const SU_FR *a, unsigned k)
{
	*r = *a;
	while (k--)
		SUF(sqr)(r, r);
}

/* u, v, w (nvars each) from the matrices and the Lagrange values L; also the
 * coefficient list with values in .zkey form (v·R²). */
static int qap(const struct SU_CS_T *cs, const SU_FR *L, SU_FR *u, SU_FR *v, SU_FR *w,
	       struct SU_G16(key) *k)
{
	SU_FR *acc[3] = { u, v, w };
	SU_FR rr;

	/* rr has limbs R²: multiplying Mont(v) by it gives the .zkey form v·R² */
	SUF(to_mont)(&rr, SUF(one).l);

	k->ncoefs = cs->m[0].nterms + cs->m[1].nterms + cs->npub + 1;
	k->coefs = malloc(k->ncoefs * sizeof(*k->coefs));
	if (!k->coefs)
		return -ENOMEM;
	size_t nc = 0;
	for (int m = 0; m < 3; m++) {
		for (uint32_t row = 0; row < cs->nrows; row++) {
			for (uint32_t t = cs->m[m].off[row]; t < cs->m[m].off[row + 1]; t++) {
				const struct SU_CS(term) *tm = &cs->m[m].terms[t];
				SU_FR x;
				SUF(mul)(&x, &tm->coef, &L[row]);
				SUF(add)(&acc[m][tm->var], &acc[m][tm->var], &x);
				if (m == 2)
					continue;
				struct SU_G16(coef) *c = &k->coefs[nc++];
				c->matrix = (uint32_t)m;
				c->row = row;
				c->var = tm->var;
				SUF(mul)(&c->value, &tm->coef, &rr);
			}
		}
	}
	for (uint32_t s = 0; s <= cs->npub; s++) {
		uint32_t row = cs->nrows + s;
		SUF(add)(&u[s], &u[s], &L[row]);
		struct SU_G16(coef) *c = &k->coefs[nc++];
		c->matrix = 0;
		c->row = row;
		c->var = s;
		c->value = rr;
	}
	return 0;
}

int SU_G16(devsetup)(const struct SU_CS_T *cs, uint64_t seed, struct SU_G16(key) *k,
			struct cz_pool *pool)
{
	unsigned log2n = 0;
	while (((size_t)1 << log2n) < (size_t)cs->nrows + cs->npub + 1)
		log2n++;
	size_t n = (size_t)1 << log2n, nv = cs->nvars;
	SU_FR tau, alpha, beta, gamma, delta, omega, g, zn, num, den, ginv, dinv;
	int rc = -ENOMEM;

	memset(k, 0, sizeof(*k));
	if (log2n + 1 > SU_TWO_ADICITY)
		return -EINVAL;
	k->nvars = cs->nvars;
	k->npub = cs->npub;
	k->log2n = log2n;
	toxic(&tau, &seed);
	toxic(&alpha, &seed);
	toxic(&beta, &seed);
	toxic(&gamma, &seed);
	toxic(&delta, &seed);

	SU_FR *L = malloc(n * sizeof(SU_FR));
	SU_FR *uvw = calloc(3 * nv, sizeof(SU_FR));
	SU_FR *sc = malloc((nv > n ? nv : n) * sizeof(SU_FR));
	k->ic = malloc(((size_t)cs->npub + 1) * sizeof(SUA(affine)));
	k->a = malloc(nv * sizeof(SUA(affine)));
	k->b1 = malloc(nv * sizeof(SUA(affine)));
	k->b2 = malloc(nv * sizeof(SUB(affine)));
	k->c = malloc((nv - cs->npub - 1) * sizeof(SUA(affine)));
	k->h = malloc(n * sizeof(SUA(affine)));
	if (!L || !uvw || !sc || !k->ic || !k->a || !k->b1 || !k->b2 || !k->c || !k->h)
		goto out;

	/* L_j(τ) = (τ^n − 1)·ω^j / (n·(τ − ω^j)) */
	SUF(root_of_unity)(&omega, log2n);
	fr_pow2k(&zn, &tau, log2n);
	SUF(sub)(&num, &zn, &SUF(one));
	SUF(from_u64)(&den, n);
	if (lagrange(L, n, &omega, &SUF(one), &tau, &num, &den))
		goto out;
	SU_FR *u = uvw, *v = uvw + nv, *w = uvw + 2 * nv;
	if (qap(cs, L, u, v, w, k))
		goto out;

	const SUA(affine) *G1 = &SUA(generator);
	const SUB(affine) *G2 = &SUB(generator);
	SU_FR t5[5] = { alpha, beta, delta };
	SUA(affine) p1[3];
	SUB(affine) p2[3];
	if (SUA(fixed_base_many)(p1, G1, t5, 3, NULL))
		goto out;
	k->alpha1 = p1[0], k->beta1 = p1[1], k->delta1 = p1[2];
	t5[0] = beta, t5[1] = gamma, t5[2] = delta;
	if (SUB(fixed_base_many)(p2, G2, t5, 3, NULL))
		goto out;
	k->beta2 = p2[0], k->gamma2 = p2[1], k->delta2 = p2[2];

	if (SUA(fixed_base_many)(k->a, G1, u, nv, pool) ||
	    SUA(fixed_base_many)(k->b1, G1, v, nv, pool) ||
	    SUB(fixed_base_many)(k->b2, G2, v, nv, pool))
		goto out;

	/* (β·u + α·v + w)/γ for public, /δ for private signals */
	SUF(inv)(&ginv, &gamma);
	SUF(inv)(&dinv, &delta);
	for (size_t i = 0; i < nv; i++) {
		SU_FR x, y;
		SUF(mul)(&x, &beta, &u[i]);
		SUF(mul)(&y, &alpha, &v[i]);
		SUF(add)(&x, &x, &y);
		SUF(add)(&x, &x, &w[i]);
		SUF(mul)(&sc[i], &x, i <= cs->npub ? &ginv : &dinv);
	}
	size_t npc = (size_t)cs->npub + 1;
	if (SUA(fixed_base_many)(k->ic, G1, sc, npc, pool) ||
	    SUA(fixed_base_many)(k->c, G1, sc + npc, nv - npc, pool))
		goto out;

	/* H_j = (τ^2n − 1)·x_j / (2n·δ·(τ − x_j)), x_j = ω_2n·ω^j */
	SUF(root_of_unity)(&g, log2n + 1);
	SUF(sqr)(&num, &zn);
	SUF(sub)(&num, &num, &SUF(one));
	SUF(from_u64)(&den, 2 * n);
	SUF(mul)(&den, &den, &delta);
	if (lagrange(sc, n, &omega, &g, &tau, &num, &den))
		goto out;
	if (SUA(fixed_base_many)(k->h, G1, sc, n, pool))
		goto out;
	SU_G16(key_index)(k);   /* failure only costs parallel synthesis */
	rc = 0;
out:
	free(L);
	free(uvw);
	free(sc);
	if (rc)
		SU_G16(key_free)(k);
	return rc;
}

#undef SUF
#undef SUA
#undef SUB

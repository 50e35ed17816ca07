/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16_setup.c — an INSECURE single-party Groth16 setup for
 * development and benchmarks (`cuzk devsetup`): the toxic waste τ, α, β, γ,
 * δ is derived from a seed, so whoever knows the seed can forge proofs.
 *
 * The key has the layout snarkjs's `groth16 setup` produces, so the snarkjs
 * prover and ours both work with it:
 *   A_i = u_i(τ)·G1, B1_i = v_i(τ)·G1, B2_i = v_i(τ)·G2
 *   IC_i = (β·u_i + α·v_i + w_i)(τ)/γ·G1 (public),  C_i = …/δ·G1 (private)
 *   H_j such that Σ d_j·H_j = h(τ)·Z(τ)/δ·G1 for d_j = (a·b − c)(x_j), the
 *   prover's values on the odd coset x_j = ω_2n·ω^j.  There Z(x_j) = −2, so
 *   h(x_j) = −d_j/2 and, with the coset's Lagrange basis,
 *   H_j = (τ^2n − 1)·x_j / (2n·δ·(τ − x_j))·G1.
 * Rows n_rows .. n_rows + npub of A carry the public signals (one coefficient
 * 1 each), as snarkjs adds them, so that A's columns for public inputs are
 * linearly independent.
 */
#include "zk/groth16.h"
#include "zk/cs.h"
#include "zk/fixed_base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void toxic(cz_fr *r, uint64_t *s)
{
	uint64_t raw[CZ_FR_LIMBS];
	do {
		for (int i = 0; i < CZ_FR_LIMBS; i++)
			raw[i] = mix(s);
		raw[CZ_FR_LIMBS - 1] &= 0x0fffffffffffffffULL;
	} while (!cz_fr_to_mont(r, raw) || cz_fr_is_zero(r));
}

/* out[j] = num·x_j / (den·(τ − x_j)), x_j = shift·ω^j: the Lagrange-style
 * factor both bases need.  One batch inversion. */
static int lagrange(cz_fr *out, size_t n, const cz_fr *omega, const cz_fr *shift,
		    const cz_fr *tau, const cz_fr *num, const cz_fr *den)
{
	cz_fr *x = malloc(n * sizeof(cz_fr)), *scratch = malloc(n * sizeof(cz_fr));
	if (!x || !scratch) {
		free(x);
		free(scratch);
		return -ENOMEM;
	}
	cz_fr xj = *shift;
	for (size_t j = 0; j < n; j++) {
		x[j] = xj;
		cz_fr_sub(&out[j], tau, &xj);
		cz_fr_mul(&out[j], &out[j], den);
		cz_fr_mul(&xj, &xj, omega);
	}
	cz_fr_batch_inv(out, out, n, scratch);
	for (size_t j = 0; j < n; j++) {
		cz_fr_mul(&out[j], &out[j], &x[j]);
		cz_fr_mul(&out[j], &out[j], num);
	}
	free(x);
	free(scratch);
	return 0;
}

static void fr_pow2k(cz_fr *r, const cz_fr *a, unsigned k)
{
	*r = *a;
	while (k--)
		cz_fr_sqr(r, r);
}

/* u, v, w (nvars each) from the matrices and the Lagrange values L; also the
 * coefficient list with values in .zkey form (v·R²). */
static int qap(const struct cz_cs *cs, const cz_fr *L, cz_fr *u, cz_fr *v, cz_fr *w,
	       struct cz_groth16_key *k)
{
	cz_fr *acc[3] = { u, v, w };
	cz_fr rr;

	/* rr has limbs R²: multiplying Mont(v) by it gives the .zkey form v·R² */
	cz_fr_to_mont(&rr, cz_fr_one.l);

	k->ncoefs = cs->m[0].nterms + cs->m[1].nterms + cs->npub + 1;
	k->coefs = malloc(k->ncoefs * sizeof(*k->coefs));
	if (!k->coefs)
		return -ENOMEM;
	size_t nc = 0;
	for (int m = 0; m < 3; m++) {
		for (uint32_t row = 0; row < cs->nrows; row++) {
			for (uint32_t t = cs->m[m].off[row]; t < cs->m[m].off[row + 1]; t++) {
				const struct cz_cs_term *tm = &cs->m[m].terms[t];
				cz_fr x;
				cz_fr_mul(&x, &tm->coef, &L[row]);
				cz_fr_add(&acc[m][tm->var], &acc[m][tm->var], &x);
				if (m == 2)
					continue;
				struct cz_groth16_coef *c = &k->coefs[nc++];
				c->matrix = (uint32_t)m;
				c->row = row;
				c->var = tm->var;
				cz_fr_mul(&c->value, &tm->coef, &rr);
			}
		}
	}
	for (uint32_t s = 0; s <= cs->npub; s++) {
		uint32_t row = cs->nrows + s;
		cz_fr_add(&u[s], &u[s], &L[row]);
		struct cz_groth16_coef *c = &k->coefs[nc++];
		c->matrix = 0;
		c->row = row;
		c->var = s;
		c->value = rr;
	}
	return 0;
}

int cz_groth16_devsetup(const struct cz_cs *cs, uint64_t seed, struct cz_groth16_key *k,
			struct cz_pool *pool)
{
	unsigned log2n = 0;
	while (((size_t)1 << log2n) < (size_t)cs->nrows + cs->npub + 1)
		log2n++;
	size_t n = (size_t)1 << log2n, nv = cs->nvars;
	cz_fr tau, alpha, beta, gamma, delta, omega, g, zn, num, den, ginv, dinv;
	int rc = -ENOMEM;

	memset(k, 0, sizeof(*k));
	if (log2n + 1 > CZ_FR_TWO_ADICITY)
		return -EINVAL;
	k->nvars = cs->nvars;
	k->npub = cs->npub;
	k->log2n = log2n;
	toxic(&tau, &seed);
	toxic(&alpha, &seed);
	toxic(&beta, &seed);
	toxic(&gamma, &seed);
	toxic(&delta, &seed);

	cz_fr *L = malloc(n * sizeof(cz_fr));
	cz_fr *uvw = calloc(3 * nv, sizeof(cz_fr));
	cz_fr *sc = malloc((nv > n ? nv : n) * sizeof(cz_fr));
	k->ic = malloc(((size_t)cs->npub + 1) * sizeof(cz_g1_affine));
	k->a = malloc(nv * sizeof(cz_g1_affine));
	k->b1 = malloc(nv * sizeof(cz_g1_affine));
	k->b2 = malloc(nv * sizeof(cz_g2_affine));
	k->c = malloc((nv - cs->npub - 1) * sizeof(cz_g1_affine));
	k->h = malloc(n * sizeof(cz_g1_affine));
	if (!L || !uvw || !sc || !k->ic || !k->a || !k->b1 || !k->b2 || !k->c || !k->h)
		goto out;

	/* L_j(τ) = (τ^n − 1)·ω^j / (n·(τ − ω^j)) */
	cz_fr_root_of_unity(&omega, log2n);
	fr_pow2k(&zn, &tau, log2n);
	cz_fr_sub(&num, &zn, &cz_fr_one);
	cz_fr_from_u64(&den, n);
	if (lagrange(L, n, &omega, &cz_fr_one, &tau, &num, &den))
		goto out;
	cz_fr *u = uvw, *v = uvw + nv, *w = uvw + 2 * nv;
	if (qap(cs, L, u, v, w, k))
		goto out;

	const cz_g1_affine *G1 = &cz_g1_generator;
	const cz_g2_affine *G2 = &cz_g2_generator;
	cz_fr t5[5] = { alpha, beta, delta };
	cz_g1_affine p1[3];
	cz_g2_affine p2[3];
	if (cz_g1_fixed_base_many(p1, G1, t5, 3, NULL))
		goto out;
	k->alpha1 = p1[0], k->beta1 = p1[1], k->delta1 = p1[2];
	t5[0] = beta, t5[1] = gamma, t5[2] = delta;
	if (cz_g2_fixed_base_many(p2, G2, t5, 3, NULL))
		goto out;
	k->beta2 = p2[0], k->gamma2 = p2[1], k->delta2 = p2[2];

	if (cz_g1_fixed_base_many(k->a, G1, u, nv, pool) ||
	    cz_g1_fixed_base_many(k->b1, G1, v, nv, pool) ||
	    cz_g2_fixed_base_many(k->b2, G2, v, nv, pool))
		goto out;

	/* (β·u + α·v + w)/γ for public, /δ for private signals */
	cz_fr_inv(&ginv, &gamma);
	cz_fr_inv(&dinv, &delta);
	for (size_t i = 0; i < nv; i++) {
		cz_fr x, y;
		cz_fr_mul(&x, &beta, &u[i]);
		cz_fr_mul(&y, &alpha, &v[i]);
		cz_fr_add(&x, &x, &y);
		cz_fr_add(&x, &x, &w[i]);
		cz_fr_mul(&sc[i], &x, i <= cs->npub ? &ginv : &dinv);
	}
	size_t npc = (size_t)cs->npub + 1;
	if (cz_g1_fixed_base_many(k->ic, G1, sc, npc, pool) ||
	    cz_g1_fixed_base_many(k->c, G1, sc + npc, nv - npc, pool))
		goto out;

	/* H_j = (τ^2n − 1)·x_j / (2n·δ·(τ − x_j)), x_j = ω_2n·ω^j */
	cz_fr_root_of_unity(&g, log2n + 1);
	cz_fr_sqr(&num, &zn);
	cz_fr_sub(&num, &num, &cz_fr_one);
	cz_fr_from_u64(&den, 2 * n);
	cz_fr_mul(&den, &den, &delta);
	if (lagrange(sc, n, &omega, &g, &tau, &num, &den))
		goto out;
	if (cz_g1_fixed_base_many(k->h, G1, sc, n, pool))
		goto out;
	cz_groth16_key_index(k);   /* failure only costs parallel synthesis */
	rc = 0;
out:
	free(L);
	free(uvw);
	free(sc);
	if (rc)
		cz_groth16_key_free(k);
	return rc;
}

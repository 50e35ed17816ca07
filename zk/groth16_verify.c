/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16_verify.c — the Groth16 verification equation
 *   e(A, B) = e(α, β) · e(Σ pub_i·IC_i, γ) · e(C, δ)
 * checked as one multi-pairing e(−A, B)·e(α, β)·e(X, γ)·e(C, δ) = 1 with a
 * single final exponentiation (a few milliseconds).
 */
#include "zk/groth16.h"
#include "zk/pairing.h"

#include <stdlib.h>

void cz_groth16_vk_from_key(struct cz_groth16_vk *vk, const struct cz_groth16_key *k)
{
	vk->n_public = k->npub;
	vk->have_alphabeta = false;
	vk->alpha1 = k->alpha1;
	vk->beta2 = k->beta2;
	vk->gamma2 = k->gamma2;
	vk->delta2 = k->delta2;
	vk->ic = k->ic;
}

/* The multi-pairing, given x = IC_0 + Σ pub_i·IC_{i+1}. */
static bool verify_x(const struct cz_groth16_vk *vk, const cz_g1_jac *x,
		     const struct cz_groth16_proof *p)
{
	cz_g1_affine g1[4];
	cz_g2_affine g2[4];

	cz_g1_affine_neg(&g1[0], &p->a);
	g2[0] = p->b;
	g1[1] = vk->alpha1;
	g2[1] = vk->beta2;
	cz_g1_jac_to_affine(&g1[2], x);
	g2[2] = vk->gamma2;
	g1[3] = p->c;
	g2[3] = vk->delta2;
	return cz_pairing_check(g1, g2, 4);
}

static void ic_add(cz_g1_jac *x, const struct cz_groth16_vk *vk, uint32_t i, const cz_fr *v)
{
	cz_g1_jac t, ic;

	cz_g1_jac_from_affine(&ic, &vk->ic[i + 1]);
	cz_g1_mul(&t, &ic, v);
	cz_g1_jac_add(x, x, &t);
}

bool cz_groth16_verify(const struct cz_groth16_vk *vk, const cz_fr *pub,
		       const struct cz_groth16_proof *p)
{
	cz_g1_jac x;

	cz_g1_jac_from_affine(&x, &vk->ic[0]);
	for (uint32_t i = 0; i < vk->n_public; i++)
		ic_add(&x, vk, i, &pub[i]);
	return verify_x(vk, &x, p);
}

/* The daemon's finalizer runs this per partition: the public inputs are
 * converted one at a time from the witness, so nothing is allocated. */
bool cz_groth16_check_proof(const struct cz_groth16_key *k, const cz_scalar *w,
			    const struct cz_groth16_proof *p)
{
	struct cz_groth16_vk vk;
	cz_g1_jac x;
	cz_fr v;

	cz_groth16_vk_from_key(&vk, k);
	cz_g1_jac_from_affine(&x, &vk.ic[0]);
	for (uint32_t i = 0; i < k->npub; i++) {
		if (!cz_fr_to_mont(&v, w[1 + i].l))
			return false;
		ic_add(&x, &vk, i, &v);
	}
	return verify_x(&vk, &x, p);
}

uint64_t cz_groth16_key_bytes(const struct cz_groth16_key *k)
{
	uint64_t n = 1ull << k->log2n, nv = k->nvars, npc = (uint64_t)k->npub + 1;
	uint64_t g1 = npc /* ic */ + 2 * nv /* a, b1 */ + (nv > npc ? nv - npc : 0) /* c */ + n /* h */;

	return g1 * sizeof(cz_g1_affine) + nv * sizeof(cz_g2_affine) +
	       k->ncoefs * sizeof(struct cz_groth16_coef) +
	       (k->row_off ? (n + 1) * sizeof(*k->row_off) : 0);
}

void cz_groth16_key_free(struct cz_groth16_key *k)
{
	free(k->ic);
	free(k->a);
	free(k->b1);
	free(k->b2);
	free(k->c);
	free(k->h);
	free(k->coefs);
	free(k->row_off);
	k->row_off = NULL;
	k->ic = k->a = k->b1 = k->c = k->h = NULL;
	k->b2 = NULL;
	k->coefs = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16_verify.c — the Groth16 verification equation for BLS12-381
 * (zk/groth16_verify_tmpl_pvt.h, which BN254 shares), and the key's
 * helpers.
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

#define GV_NAME cz_groth16_verify
#define GV_G1 cz_g1
#define GV_G2 cz_g2
#define GV_FR cz_fr
#define GV_PROOF cz_groth16_proof
#define GV_VK cz_groth16_vk
#define GV_PAIRING_CHECK cz_pairing_check
#include "zk/groth16_verify_tmpl_pvt.h"

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
		gv_ic_add(&x, &vk, i, &v);
	}
	return gv_verify_x(&vk, &x, p);
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

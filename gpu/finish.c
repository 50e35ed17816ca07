/* SPDX-License-Identifier: MIT */
/*
 * gpu/finish.c — what the backends that compute (cpu, cuda) share: the
 * device stage's results turned into a verified proof, its public inputs
 * in Montgomery form (gpu/backend.h, cz_backend_groth16_finish).
 */
#include "gpu/backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cz_backend_groth16_finish(const struct cz_dev_work *w, void *pub, union cz_dev_proof *p,
			      char *err, size_t cap)
{
	int rc;

	/* the public inputs: < r, the witness reader checked */
	if (cz_dev_work_bn254(w)) {
		const struct cz_bn254_groth16_key *k = w->bn_key;
		struct cz_bn254_groth16_secrets sec;
		cz_bn254_fr *pv = pub;
		for (uint32_t i = 0; i < k->npub; i++)
			cz_bn254_fr_to_mont(&pv[i], w->w[1 + i].l);
		rc = cz_bn254_groth16_finish(k, &w->bn_out, w->w, &p->bn, &sec, NULL);
	} else {
		const struct cz_groth16_key *k = w->key;
		struct cz_groth16_secrets sec;
		cz_fr *pv = pub;
		for (uint32_t i = 0; i < k->npub; i++)
			cz_fr_to_mont(&pv[i], w->w[1 + i].l);
		rc = cz_groth16_finish(k, &w->out, w->w, &p->bls, &sec, NULL);
	}
	if (rc == CZ_GROTH16_ERANDOM)
		snprintf(err, cap, "getrandom failed drawing the blinding r, s: %s", strerror(errno));
	else if (rc == CZ_GROTH16_UNSAT)
		snprintf(err, cap, "witness does not satisfy the circuit");
	else if (rc)
		snprintf(err, cap, "finalize failed (%d)", rc);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * gpu/backend.c — the table of backends (adding one is one row here) and
 * what the backends that compute share: turning the device stage's results
 * into a verified proof.
 */
#include "gpu/backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const struct cz_backend *const backends[] = {
	&cz_backend_cpu,
	&cz_backend_null,
#ifdef CZ_HAVE_CUDA
	&cz_backend_cuda,
#endif
};
#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct cz_backend *cz_backend_find(const char *name)
{
	for (size_t i = 0; i < NBACKENDS; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}

static char names[128];

static void names_build(void)
{
	size_t len = 0;
	for (size_t i = 0; i < NBACKENDS; i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					backends[i]->name);
#ifndef CZ_HAVE_CUDA
	snprintf(names + len, sizeof(names) - len, "; cuda needs a build with nvcc");
#endif
}

const char *cz_backend_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, names_build);
	return names;
}

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

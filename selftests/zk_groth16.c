/* SPDX-License-Identifier: MIT */
/* Description: built-in circuit, dev setup, prove, verify; tampering and bad witnesses rejected. */
#include "zk/builtin.h"
#include "zk/groth16.h"
#include "lib/pool.h"
#include "synth/synth.h"
#include "selftests/cz_test.h"

#include <string.h>

static void to_scalars(cz_scalar *s, const cz_fr *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cz_fr_from_mont(s[i].l, &w[i]);
}

static int prove_and_check(unsigned log2n, struct cz_pool *pool)
{
	struct cz_cs cs;
	struct cz_groth16_key k;
	struct cz_groth16_proof p;
	struct cz_groth16_vk vk;
	cz_fr *w, pub[2];
	char err[256];
	int ok = 1;

	if (!ct_ok(cz_builtin_build("merkle", log2n, 42, &cs, &w, err) == 0, "2^%u: build merkle: %s", log2n, err))
		return 0;
	ct_ok(cs.nrows + cs.npub + 1 == (1u << log2n), "2^%u: rows + public + 1 = 2^%u exactly (%u rows)",
	      log2n, log2n, cs.nrows);
	ct_ok(cz_cs_check(&cs, w) == -1, "2^%u: the built-in witness satisfies every row", log2n);
	ok &= ct_ok(cz_groth16_devsetup(&cs, 7, &k, pool) == 0 && k.log2n == log2n, "2^%u: devsetup", log2n);

	size_t n = (size_t)1 << log2n;
	cz_scalar *ws = malloc(cs.nvars * sizeof(*ws));
	cz_fr *abc = malloc(3 * n * sizeof(*abc));
	to_scalars(ws, w, cs.nvars);
	cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	int rc = cz_groth16_prove(&k, ws, abc, abc + n, abc + 2 * n, &p, pool, NULL);
	ok &= ct_ok(rc == CZ_GROTH16_OK, "2^%u: proof verifies (rc %d)", log2n, rc);

	cz_groth16_vk_from_key(&vk, &k);
	pub[0] = w[1], pub[1] = w[2];
	ct_ok(cz_groth16_verify(&vk, pub, &p), "2^%u: verify with public inputs from the witness", log2n);
	cz_fr_add(&pub[1], &pub[1], &cz_fr_one);
	ct_ok(!cz_groth16_verify(&vk, pub, &p), "2^%u: changed public input rejected", log2n);
	pub[1] = w[2];
	struct cz_groth16_proof q = p;
	cz_g1_affine_neg(&q.a, &q.a);
	ct_ok(!cz_groth16_verify(&vk, pub, &q), "2^%u: changed A rejected", log2n);
	q = p;
	q.c = p.a;
	ct_ok(!cz_groth16_verify(&vk, pub, &q), "2^%u: changed C rejected", log2n);

	/* A wire changed: the witness no longer satisfies the circuit. */
	ws[1].l[0] ^= 1;
	cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	rc = cz_groth16_prove(&k, ws, abc, abc + n, abc + 2 * n, &p, pool, NULL);
	ct_ok(rc == CZ_GROTH16_UNSAT, "2^%u: unsatisfying witness gives UNSAT, not a proof (rc %d)", log2n, rc);

	free(abc);
	free(ws);
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&k);
	return ok;
}

int main(void)
{
	struct cz_pool *pool = cz_pool_create(2);
	ct_plan(3 * 10);
	prove_and_check(6, NULL);
	prove_and_check(10, pool);
	prove_and_check(12, pool);
	cz_pool_destroy(pool);
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/* Description: synthesis from snarkjs keys equals A·w, B·w, C·w evaluated from circom's own .r1cs. */
#include "synth/synth.h"
#include "zk/io/groth16_io.h"
#include "zk/io/r1cs.h"
#include "lib/pool.h"
#include "selftests/cz_test.h"

#include <stdlib.h>
#include <string.h>

/* Row i of matrix m times w (Montgomery), straight from the .r1cs. */
static void row_dot(cz_fr *r, const struct cz_r1cs_matrix *m, uint32_t i, const cz_fr *w)
{
	*r = cz_fr_zero;
	for (uint64_t j = m->start[i]; j < m->start[i + 1]; j++) {
		cz_fr x;
		cz_fr_mul(&x, &m->value[j], &w[m->wire[j]]);
		cz_fr_add(r, r, &x);
	}
}

static void check(const char *name, struct cz_pool *pool)
{
	char err[CZ_ERRLEN], path[256];
	struct cz_groth16_key k;
	struct cz_r1cs_matrix m[3];

	snprintf(path, sizeof(path), "selftests/data/%s.zkey", name);
	int rc = cz_groth16_key_load(&k, path, NULL, err, sizeof(err));
	snprintf(path, sizeof(path), "selftests/data/%s.r1cs", name);
	struct cz_r1cs *r = cz_r1cs_open(path, err);
	if (!ct_ok(!rc && r && !cz_r1cs_load(r, m, err) && k.row_off, "%s: key (indexed) and r1cs load: %s", name, err))
		return;
	size_t n = (size_t)1 << k.log2n;
	cz_scalar *w = malloc(k.nvars * sizeof(*w));
	cz_fr *wm = malloc(k.nvars * sizeof(*wm)), *abc = malloc(6 * n * sizeof(cz_fr));
	snprintf(path, sizeof(path), "selftests/data/%s_1.wtns", name);
	cz_wtns_read_path(path, k.nvars, w, err, sizeof(err));
	for (uint32_t i = 0; i < k.nvars; i++)
		cz_fr_to_mont(&wm[i], w[i].l);

	cz_synth_abc(&k, w, abc, abc + n, abc + 2 * n, pool);
	int bad = 0;
	for (uint32_t i = 0; i < r->n_constraints; i++) {
		cz_fr e[3];
		for (int t = 0; t < 3; t++)
			row_dot(&e[t], &m[t], i, wm);
		bad += !cz_fr_eq(&e[0], &abc[i]) || !cz_fr_eq(&e[1], &abc[n + i]) || !cz_fr_eq(&e[2], &abc[2 * n + i]);
	}
	ct_ok(!bad, "%s: a, b, c equal A·w, B·w, C·w of the .r1cs on all %u constraints", name, r->n_constraints);
	bad = 0;
	for (size_t i = r->n_constraints; i < n; i++) {
		size_t s = i - r->n_constraints;
		const cz_fr *want_a = s <= k.npub ? &wm[s] : &cz_fr_zero;
		bad += !cz_fr_eq(&abc[i], want_a) || !cz_fr_is_zero(&abc[n + i]) || !cz_fr_is_zero(&abc[2 * n + i]);
	}
	ct_ok(!bad, "%s: the public-input rows carry w[0..npub] in a, the rest of the domain is zero", name);

	/* The unindexed (serial) path gives the same vectors. */
	uint32_t *off = k.row_off;
	k.row_off = NULL;
	cz_synth_abc(&k, w, abc + 3 * n, abc + 4 * n, abc + 5 * n, NULL);
	k.row_off = off;
	ct_ok(!memcmp(abc, abc + 3 * n, 3 * n * sizeof(cz_fr)), "%s: row-split and serial synthesis agree", name);

	free(w);
	free(wm);
	free(abc);
	cz_r1cs_matrices_free(m);
	cz_r1cs_close(r);
	cz_groth16_key_free(&k);
}

int main(void)
{
	struct cz_pool *pool = cz_pool_create(3);
	ct_plan(8);
	check("mulchain", pool);
	check("rangehash", NULL);
	cz_pool_destroy(pool);
	return ct_exit();
}

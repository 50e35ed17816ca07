/* SPDX-License-Identifier: MIT */
/*
 * synth/synth.c — synthesis: witness → a = A·w, b = B·w, c = a∘b on the
 * n-domain, the CPU stage that the daemon's synthesis workers run before a
 * partition goes to a device.
 *
 * Input is the .zkey's coefficient list (the A and B matrices plus one row
 * per public signal), as snarkjs's prover uses it: c is a∘b, never C·w.
 * Each coefficient holds v·R² so that one Montgomery product with the
 * standard-form witness value gives v·w in Montgomery form: the witness is
 * never converted.  Indexed keys (coefficients sorted by row, row_off:
 * zk/groth16_key.c builds it with every key) split rows among threads with
 * no sharing; unindexed ones run serially.
 * Cost: one Fr mul and add per coefficient, one Fr mul per row.
 */
#include "synth/synth.h"
#include "zk/field_inline.h"
#include "lib/pool.h"

#include <string.h>

/* a[row] or b[row] += value·w[var]: value = v·R², w standard, so the
 * Montgomery product is Mont(v·w).  One Fr mul and add per coefficient. */
static void synth_coef(const struct cz_groth16_coef *cf, const cz_scalar *w, cz_fr *a, cz_fr *b)
{
	cz_fr *dst = cf->matrix ? &b[cf->row] : &a[cf->row];
	cz_fr x, wv;
	memcpy(&wv, &w[cf->var], sizeof(wv));
	cz_fr_mul_inl(&x, &cf->value, &wv);
	cz_fr_add_inl(dst, dst, &x);
}

struct synth_arg {
	const struct cz_groth16_key *k;
	const cz_scalar *w;
	cz_fr *a, *b, *c;
	size_t n, chunk;
};

static void synth_rows(void *v, size_t ci)
{
	struct synth_arg *s = v;
	const struct cz_groth16_key *k = s->k;
	size_t lo = ci * s->chunk, hi = lo + s->chunk < s->n ? lo + s->chunk : s->n;

	memset(s->a + lo, 0, (hi - lo) * sizeof(cz_fr));
	memset(s->b + lo, 0, (hi - lo) * sizeof(cz_fr));
	for (size_t i = k->row_off[lo]; i < k->row_off[hi]; i++)
		synth_coef(&k->coefs[i], s->w, s->a, s->b);
	for (size_t i = lo; i < hi; i++)
		cz_fr_mul_inl(&s->c[i], &s->a[i], &s->b[i]);
}

void cz_synth_abc(const struct cz_groth16_key *k, const cz_scalar *w, cz_fr *a, cz_fr *b,
		  cz_fr *c, struct cz_pool *pool)
{
	size_t n = (size_t)1 << k->log2n;

	if (k->row_off) {
		/* ~8 chunks a thread balance uneven rows; 64..4096 rows a chunk */
		size_t chunk = n / (8 * cz_pool_nthreads(pool));
		chunk = chunk < 64 ? 64 : chunk > 4096 ? 4096 : chunk;
		struct synth_arg s = { k, w, a, b, c, n, chunk };
		cz_pool_for(pool, (n + s.chunk - 1) / s.chunk, synth_rows, &s);
		return;
	}
	memset(a, 0, n * sizeof(*a));
	memset(b, 0, n * sizeof(*b));
	for (size_t i = 0; i < k->ncoefs; i++)
		synth_coef(&k->coefs[i], w, a, b);
	for (size_t i = 0; i < n; i++)
		cz_fr_mul_inl(&c[i], &a[i], &b[i]);
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16_prove.c — the prover's device and finalize stages (see
 * zk/groth16.h; synthesis, the first, is synth/synth.c).
 *
 * Cost at n = 2^20 on one core, as a guide to where time goes: synth (not
 * here) is one Fr mul per coefficient (~3 M), the device stage 3 × (2 NTTs + n shift
 * muls) and MSMs over nvars (A, B1, C: G1; B2: G2) and n (H) points; the
 * MSMs dominate.  finalize is a handful of scalar multiplications.
 */
#include "zk/groth16.h"
#include "zk/field_inline.h"
#include "zk/ntt.h"
#include "lib/pool.h"
#include "lib/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct dsub_arg {
	const cz_fr *a, *b, *c;
	cz_scalar *h;
	size_t n, chunk;
};

static void dsub_chunk(void *v, size_t ci)
{
	struct dsub_arg *d = v;
	size_t end = (ci + 1) * d->chunk < d->n ? (ci + 1) * d->chunk : d->n;
	for (size_t i = ci * d->chunk; i < end; i++) {
		cz_fr x;
		cz_fr_mul_inl(&x, &d->a[i], &d->b[i]);
		cz_fr_sub_inl(&x, &x, &d->c[i]);
		cz_fr_from_mont(d->h[i].l, &x);
	}
}

int cz_groth16_device(const struct cz_groth16_key *k, const struct cz_ntt_domain *d,
		      const cz_scalar *w, cz_fr *a, cz_fr *b, cz_fr *c, cz_scalar *hbuf,
		      struct cz_groth16_msms *out, struct cz_pool *pool,
		      struct cz_groth16_times *t)
{
	size_t n = (size_t)1 << k->log2n;
	size_t npc = (size_t)k->npub + 1;
	double t0 = cz_now_ms(), t1;
	int rc = 0;

	cz_ntt_to_odd_coset(d, a, pool);
	cz_ntt_to_odd_coset(d, b, pool);
	cz_ntt_to_odd_coset(d, c, pool);
	struct dsub_arg da = { a, b, c, hbuf, n, 4096 };
	cz_pool_for(pool, (n + da.chunk - 1) / da.chunk, dsub_chunk, &da);
	t1 = cz_now_ms();
	if (t)
		t->ntt = t1 - t0;

#define TIMED(field, call)                                  \
	do {                                                \
		rc |= (call);                               \
		double t2 = cz_now_ms();                    \
		if (t)                                      \
			t->field = t2 - t1;                 \
		t1 = t2;                                    \
	} while (0)
	TIMED(msm_a, cz_msm_g1(&out->a, k->a, w, k->nvars, pool));
	TIMED(msm_b1, cz_msm_g1(&out->b1, k->b1, w, k->nvars, pool));
	TIMED(msm_b2, cz_msm_g2(&out->b2, k->b2, w, k->nvars, pool));
	TIMED(msm_c, cz_msm_g1(&out->c, k->c, w + npc, k->nvars - npc, pool));
	TIMED(msm_h, cz_msm_g1(&out->h, k->h, hbuf, n, pool));
#undef TIMED
	return rc ? -ENOMEM : 0;
}

void cz_groth16_finalize(const struct cz_groth16_key *k, const struct cz_groth16_msms *m,
			 const cz_fr *r, const cz_fr *s, struct cz_groth16_proof *p)
{
	cz_g1_jac pa, pb1, pc, t, d1;
	cz_g2_jac pb, t2, d2;
	cz_fr rs;

	/* A = α + Σ w·A + r·δ */
	cz_g1_jac_from_affine(&d1, &k->delta1);
	cz_g1_mul(&t, &d1, r);
	cz_g1_jac_add_affine(&pa, &m->a, &k->alpha1);
	cz_g1_jac_add(&pa, &pa, &t);
	/* B = β + Σ w·B2 + s·δ (G2), and its G1 twin for C */
	cz_g2_jac_from_affine(&d2, &k->delta2);
	cz_g2_mul(&t2, &d2, s);
	cz_g2_jac_add_affine(&pb, &m->b2, &k->beta2);
	cz_g2_jac_add(&pb, &pb, &t2);
	cz_g1_mul(&t, &d1, s);
	cz_g1_jac_add_affine(&pb1, &m->b1, &k->beta1);
	cz_g1_jac_add(&pb1, &pb1, &t);
	/* C = Σ w·C + H + s·A + r·B1 − r·s·δ */
	cz_g1_jac_add(&pc, &m->c, &m->h);
	cz_g1_mul(&t, &pa, s);
	cz_g1_jac_add(&pc, &pc, &t);
	cz_g1_mul(&t, &pb1, r);
	cz_g1_jac_add(&pc, &pc, &t);
	cz_fr_mul_inl(&rs, r, s);
	cz_g1_mul(&t, &d1, &rs);
	cz_g1_jac_neg(&t, &t);
	cz_g1_jac_add(&pc, &pc, &t);
	explicit_bzero(&rs, sizeof(rs));        /* r·s gives r from s and back */

	cz_g1_jac_to_affine(&p->a, &pa);
	cz_g2_jac_to_affine(&p->b, &pb);
	cz_g1_jac_to_affine(&p->c, &pc);
}

/* 512 random bits reduced mod r: bias below 2^-250.  Every temporary
 * holds part of r, so each is wiped (blst scrubs its secret copies too). */
static void fr_random(cz_fr *r, const uint8_t b[64])
{
	cz_fr hi, lo, f;
	uint64_t raw[CZ_FR_LIMBS];
	memcpy(raw, b, 32);
	raw[3] &= 0x0fffffffffffffffULL;
	cz_fr_to_mont(&lo, raw);
	memcpy(raw, b + 32, 32);
	raw[3] &= 0x0fffffffffffffffULL;
	cz_fr_to_mont(&hi, raw);
	cz_fr_from_u64(&f, 1ULL << 63);
	cz_fr_mul_inl(&f, &f, &f);                 /* 2^126 */
	cz_fr_mul_inl(&f, &f, &f);                 /* 2^252 */
	cz_fr_mul_inl(&hi, &hi, &f);
	cz_fr_add_inl(r, &hi, &lo);
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(&hi, sizeof(hi));
	explicit_bzero(&lo, sizeof(lo));
}

void cz_groth16_secrets_wipe(struct cz_groth16_secrets *sec)
{
	explicit_bzero(sec, sizeof(*sec));
}

int cz_groth16_blinding(struct cz_groth16_secrets *sec)
{
	size_t got = 0;

	while (got < sizeof(sec->rnd)) {
		ssize_t k = getrandom(sec->rnd + got, sizeof(sec->rnd) - got, 0);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return CZ_GROTH16_ERANDOM;      /* errno is getrandom's */
		}
		got += (size_t)k;
	}
	fr_random(&sec->r, sec->rnd);
	fr_random(&sec->s, sec->rnd + 64);
	return 0;
}

int cz_groth16_finish(const struct cz_groth16_key *k, const struct cz_groth16_msms *m,
		      const cz_scalar *w, struct cz_groth16_proof *p,
		      struct cz_groth16_secrets *sec, struct cz_groth16_times *t)
{
	double t0 = cz_now_ms();
	int rc = cz_groth16_blinding(sec);

	if (!rc) {
		cz_groth16_finalize(k, m, &sec->r, &sec->s, p);
		double t1 = cz_now_ms();
		rc = cz_groth16_check_proof(k, w, p) ? CZ_GROTH16_OK : CZ_GROTH16_UNSAT;
		if (t) {
			t->finalize = t1 - t0;
			t->verify = cz_now_ms() - t1;
		}
	}
	int saved = errno;      /* getrandom's, for CZ_GROTH16_ERANDOM */
	cz_groth16_secrets_wipe(sec);
	errno = saved;
	return rc;
}

int cz_groth16_prove(const struct cz_groth16_key *k, const cz_scalar *w, cz_fr *a, cz_fr *b,
		     cz_fr *c, struct cz_groth16_proof *p, struct cz_pool *pool,
		     struct cz_groth16_times *t)
{
	size_t n = (size_t)1 << k->log2n;
	struct cz_groth16_msms m;
	struct cz_groth16_secrets sec;
	int rc = CZ_GROTH16_ENOMEM;

	cz_scalar *h = malloc(n * sizeof(cz_scalar));
	struct cz_ntt_domain *d = cz_ntt_domain_create(k->log2n);
	if (!h || !d)
		goto out;
	if (cz_groth16_device(k, d, w, a, b, c, h, &m, pool, t))
		goto out;
	rc = cz_groth16_finish(k, &m, w, p, &sec, t);
out:
	{
		int saved = errno;
		cz_ntt_domain_destroy(d);
		/* a = A·w, b = B·w, c, h: the witness in other words */
		if (h)
			explicit_bzero(h, n * sizeof(cz_scalar));
		explicit_bzero(a, n * sizeof(*a));
		explicit_bzero(b, n * sizeof(*b));
		explicit_bzero(c, n * sizeof(*c));
		free(h);
		errno = saved;
	}
	return rc;
}

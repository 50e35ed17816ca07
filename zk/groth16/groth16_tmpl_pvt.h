/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16_tmpl_pvt.h — the prover (zk/groth16/groth16.h: the key's row index,
 * the device and finalize stages, the blinding and the built-in check),
 * written once over the curve; private to zk/groth16/groth16_prove.c (BLS12-381:
 * cz_groth16_*) and zk/groth16/bn254_groth16_prove.c (BN254: cz_bn254_groth16_*).
 *
 * The includer defines G16(n) (public names: cz_groth16_##n), G16_FR (the
 * scalar field prefix and type), G16_G1 G16_G2 (group prefixes), G16_NTT
 * (the NTT's prefix: cz_ntt, cz_bn254_ntt), G16_D (its domain tag),
 * G16_MSM (the MSM's prefix: cz_msm, cz_bn254_msm), and includes
 * zk/groth16/groth16_verify_tmpl_pvt.h over the same types first (gv_ic_add and
 * gv_verify_x check a proof against a witness without allocating).
 *
 * Cost at n = 2^20 on one core, as a guide to where time goes: synth (not
 * here: synth/synth.c) is one Fr mul per coefficient (~3 M), the device
 * stage 3 × (2 NTTs + n shift muls) and MSMs over nvars (A, B1, C: G1; B2:
 * G2) and n (H) points; the MSMs dominate.  finalize is a handful of
 * scalar multiplications.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lib/clock.h"
#include "lib/pool.h"
#include "zk/field/field_inline.h"
#include "zk/msm/fp_ifma.h"

#define G16_CAT2(a, b) a##_##b
#define G16_CAT(a, b) G16_CAT2(a, b)
#define G16F(n) G16_CAT(G16_FR, n)
#define G16A(n) G16_CAT(G16_G1, n)
#define G16B(n) G16_CAT(G16_G2, n)
#define G16N(n) G16_CAT(G16_NTT, n)
#define G16M(n) G16_CAT(G16_MSM, n)
typedef G16_FR g16_fr;
#define G16_KEY G16(key)

/* ---- the key's row index ----
 *
 * The index is part of the key (zk/groth16/groth16.h), built here by whatever makes
 * a key (the loader, cz_groth16_devsetup) and read by synthesis
 * (synth/synth.c), which splits rows among threads with no sharing when it
 * is there and runs serially when it is not.  Building it in zk/ keeps the
 * layering one-way: synth/ reads zk/'s key, zk/ never calls synth/.
 * Cost: one counting sort, O(ncoefs + n), and 4·(n + 1) bytes of offsets.
 * Counting sort by row: stable, so each row keeps the file's order. */
int G16(key_index)(struct G16_KEY *k)
{
	size_t n = (size_t)1 << k->log2n;
	uint32_t *off = calloc(n + 1, sizeof(*off));
	struct G16(coef) *sorted = cz_groth16_key_alloc((k->ncoefs ? k->ncoefs : 1) * sizeof(*sorted));

	if (!off || !sorted || k->ncoefs > UINT32_MAX) {
		free(off);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k->ncoefs; i++)
		off[k->coefs[i].row + 1]++;
	for (size_t r = 0; r < n; r++)
		off[r + 1] += off[r];
	uint32_t *pos = malloc(n * sizeof(*pos));
	if (!pos) {
		free(off);
		free(sorted);
		return -ENOMEM;
	}
	memcpy(pos, off, n * sizeof(*pos));
	for (size_t i = 0; i < k->ncoefs; i++)
		sorted[pos[k->coefs[i].row]++] = k->coefs[i];
	free(pos);
	free(k->coefs);
	k->coefs = sorted;
	free(k->row_off);
	k->row_off = off;
	return 0;
}

uint64_t G16(key_bytes)(const struct G16_KEY *k)
{
	uint64_t n = 1ull << k->log2n, nv = k->nvars, npc = (uint64_t)k->npub + 1;
	uint64_t g1 = npc /* ic */ + 2 * nv /* a, b1 */ + (nv > npc ? nv - npc : 0) /* c */ + n /* h */;

	uint64_t fx = 0;
	for (int i = 0; i < CZ_G16_FX; i++)
		fx += k->fx[i].tab ? k->fx[i].bytes : 0;
	return g1 * sizeof(G16A(affine)) + nv * sizeof(G16B(affine)) +
	       k->ncoefs * sizeof(struct G16(coef)) +
	       (k->row_off ? (n + 1) * sizeof(*k->row_off) : 0) + fx;
}

void G16(key_free)(struct G16_KEY *k)
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
	for (int i = 0; i < CZ_G16_FX; i++)
		cz_msm_fixed_free(&k->fx[i]);
	k->ic = k->a = k->b1 = k->c = k->h = NULL;
	k->b2 = NULL;
	k->coefs = NULL;
}

void G16(vk_from_key)(struct G16(vk) *vk, const struct G16_KEY *k)
{
	vk->n_public = k->npub;
	vk->have_alphabeta = false;
	vk->alpha1 = k->alpha1;
	vk->beta2 = k->beta2;
	vk->gamma2 = k->gamma2;
	vk->delta2 = k->delta2;
	vk->ic = k->ic;
}

/* The daemon's finalizer runs this per partition: the public inputs are
 * converted one at a time from the witness, so nothing is allocated. */
bool G16(check_proof)(const struct G16_KEY *k, const cz_scalar *w, const struct G16(proof) *p)
{
	struct G16(vk) vk;
	G16A(jac) x;
	g16_fr v;

	G16(vk_from_key)(&vk, k);
	G16A(jac_from_affine)(&x, &vk.ic[0]);
	for (uint32_t i = 0; i < k->npub; i++) {
		if (!G16F(to_mont)(&v, w[1 + i].l))
			return false;
		gv_ic_add(&x, &vk, i, &v);
	}
	return gv_verify_x(&vk, &x, p);
}

/* ---- the device stage ---- */

struct g16_dsub_arg {
	const g16_fr *a, *b, *c;
	cz_scalar *h;
	size_t n, chunk;
};

/* h = a·b − c on the coset, out of Montgomery form for the MSM. */
static void g16_dsub_chunk(void *v, size_t ci)
{
	struct g16_dsub_arg *d = v;
	size_t end = (ci + 1) * d->chunk < d->n ? (ci + 1) * d->chunk : d->n;
	for (size_t i = ci * d->chunk; i < end; i++) {
		g16_fr x;
		G16F(mul_inl)(&x, &d->a[i], &d->b[i]);
		G16F(sub_inl)(&x, &x, &d->c[i]);
		G16F(from_mont)(d->h[i].l, &x);
	}
}

int G16(device)(const struct G16_KEY *k, const struct G16_D *d, const cz_scalar *w, g16_fr *a,
		g16_fr *b, g16_fr *c, cz_scalar *hbuf, struct G16(msms) *out, struct cz_pool *pool,
		struct cz_groth16_times *t)
{
	size_t n = (size_t)1 << k->log2n;
	size_t npc = (size_t)k->npub + 1;
	double t0 = cz_now_ms(), t1;
	int rc = 0;

	/* the vector path's transforms where the vector path runs (zk/msm/fp_ifma.h's
	 * selection: IFMA, not the AVX2 stand-in), else the scalar ones */
	if (!(cz_ifma_on && !cz_fpv_avx2 && G16N(h_vec)(d, a, b, c, hbuf->l, pool))) {
		G16N(to_odd_coset)(d, a, pool);
		G16N(to_odd_coset)(d, b, pool);
		G16N(to_odd_coset)(d, c, pool);
		struct g16_dsub_arg da = { a, b, c, hbuf, n, 4096 };
		cz_pool_for(pool, (n + da.chunk - 1) / da.chunk, g16_dsub_chunk, &da);
	}
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
	/* with the key's table where it has one (zk/msm/msm_fixed.h) */
#define G16_MSM_FX(g, i, r, bases, sc, m)                                                  \
	(k->fx[i].tab ? G16M(g##_fixed)(r, &k->fx[i], bases, sc, m, pool)                \
		      : G16M(g)(r, bases, sc, m, pool))
	TIMED(msm_a, G16_MSM_FX(g1, CZ_G16_FX_A, &out->a, k->a, w, k->nvars));
	TIMED(msm_b1, G16_MSM_FX(g1, CZ_G16_FX_B1, &out->b1, k->b1, w, k->nvars));
	TIMED(msm_b2, G16_MSM_FX(g2, CZ_G16_FX_B2, &out->b2, k->b2, w, k->nvars));
	TIMED(msm_c, G16_MSM_FX(g1, CZ_G16_FX_C, &out->c, k->c, w + npc, k->nvars - npc));
	TIMED(msm_h, G16_MSM_FX(g1, CZ_G16_FX_H, &out->h, k->h, hbuf, n));
#undef G16_MSM_FX
#undef TIMED
	return rc ? -ENOMEM : 0;
}

/* ---- fixed-base tables for a resident key ---- */

/* Query i's bases and their count. */
static const void *g16_fx_query(const struct G16_KEY *k, int i, size_t *n, size_t *aff)
{
	size_t npc = (size_t)k->npub + 1;
	*aff = i == CZ_G16_FX_B2 ? sizeof(G16B(affine)) : sizeof(G16A(affine));
	switch (i) {
	case CZ_G16_FX_A: *n = k->nvars; return k->a;
	case CZ_G16_FX_B1: *n = k->nvars; return k->b1;
	case CZ_G16_FX_B2: *n = k->nvars; return k->b2;
	case CZ_G16_FX_C: *n = k->nvars - npc; return k->c;
	default: *n = (size_t)1 << k->log2n; return k->h;
	}
}

uint64_t G16(key_tables_plan)(struct G16_KEY *k, uint64_t max_bytes, unsigned threads, uint64_t *total)
{
	double all = 0;
	size_t n, aff;
	uint64_t tot = 0, bytes = 0;

	for (int i = 0; i < CZ_G16_FX; i++) {
		g16_fx_query(k, i, &n, &aff);
		all += (double)n * (double)aff;
	}
	for (int i = 0; i < CZ_G16_FX; i++) {
		const void *b = g16_fx_query(k, i, &n, &aff);
		double share = all > 0 ? (double)max_bytes * ((double)n * (double)aff / all) : 0;
		unsigned c, s;
		memset(&k->fx[i], 0, sizeof(k->fx[i]));
		if (b && n && cz_msm_fixed_choose(n, threads, aff, (uint64_t)share, &c, &s) &&
		    !cz_msm_fixed_shape(&k->fx[i], n, aff, c, s)) {
			tot += n;
			bytes += k->fx[i].bytes;
		}
	}
	if (total)
		*total = tot;
	return bytes;
}

int G16(key_tables_fill)(struct G16_KEY *k, struct cz_pool *pool, _Atomic uint64_t *done)
{
	size_t n, aff;
	int rc = 0;
	for (int i = 0; i < CZ_G16_FX && !rc; i++) {
		const void *b = g16_fx_query(k, i, &n, &aff);
		if (!k->fx[i].bytes)
			continue;
		if (i == CZ_G16_FX_B2)
			rc = G16M(g2_fixed_fill)(&k->fx[i], b, pool, done);
		else
			rc = G16M(g1_fixed_fill)(&k->fx[i], b, pool, done);
	}
	return rc;
}

int G16(key_tables)(struct G16_KEY *k, uint64_t max_bytes, unsigned threads, struct cz_pool *pool,
		    _Atomic uint64_t *done, uint64_t *total)
{
	int rc = 0;
	G16(key_tables_plan)(k, max_bytes, threads, total);
	for (int i = 0; i < CZ_G16_FX && !rc; i++)
		if (k->fx[i].bytes && !(k->fx[i].tab = aligned_alloc(64, (k->fx[i].bytes + 63) & ~(uint64_t)63)))
			rc = -ENOMEM;
	if (!rc)
		rc = G16(key_tables_fill)(k, pool, done);
	if (rc)
		for (int i = 0; i < CZ_G16_FX; i++)
			cz_msm_fixed_free(&k->fx[i]);
	return rc;
}

/* ---- the finalize stage ---- */

void G16(finalize)(const struct G16_KEY *k, const struct G16(msms) *m, const g16_fr *r,
		   const g16_fr *s, struct G16(proof) *p)
{
	G16A(jac) pa, pb1, pc, t, d1;
	G16B(jac) pb, t2, d2;
	g16_fr rs;

	/* A = α + Σ w·A + r·δ */
	G16A(jac_from_affine)(&d1, &k->delta1);
	G16A(mul)(&t, &d1, r);
	G16A(jac_add_affine)(&pa, &m->a, &k->alpha1);
	G16A(jac_add)(&pa, &pa, &t);
	/* B = β + Σ w·B2 + s·δ (G2), and its G1 twin for C */
	G16B(jac_from_affine)(&d2, &k->delta2);
	G16B(mul)(&t2, &d2, s);
	G16B(jac_add_affine)(&pb, &m->b2, &k->beta2);
	G16B(jac_add)(&pb, &pb, &t2);
	G16A(mul)(&t, &d1, s);
	G16A(jac_add_affine)(&pb1, &m->b1, &k->beta1);
	G16A(jac_add)(&pb1, &pb1, &t);
	/* C = Σ w·C + H + s·A + r·B1 − r·s·δ */
	G16A(jac_add)(&pc, &m->c, &m->h);
	G16A(mul)(&t, &pa, s);
	G16A(jac_add)(&pc, &pc, &t);
	G16A(mul)(&t, &pb1, r);
	G16A(jac_add)(&pc, &pc, &t);
	G16F(mul_inl)(&rs, r, s);
	G16A(mul)(&t, &d1, &rs);
	G16A(jac_neg)(&t, &t);
	G16A(jac_add)(&pc, &pc, &t);
	explicit_bzero(&rs, sizeof(rs));        /* r·s gives r from s and back */

	G16A(jac_to_affine)(&p->a, &pa);
	G16B(jac_to_affine)(&p->b, &pb);
	G16A(jac_to_affine)(&p->c, &pc);
}

/* 512 random bits reduced mod r: two 252-bit halves (below either curve's
 * r: BLS12-381's is 255 bits, BN254's 254) as hi·2^252 + lo, bias below
 * 2^-250.  Every temporary holds part of r, so each is wiped (blst scrubs
 * its secret copies too). */
static void g16_fr_random(g16_fr *r, const uint8_t b[64])
{
	g16_fr hi, lo, f;
	uint64_t raw[4];
	memcpy(raw, b, 32);
	raw[3] &= 0x0fffffffffffffffULL;
	G16F(to_mont)(&lo, raw);
	memcpy(raw, b + 32, 32);
	raw[3] &= 0x0fffffffffffffffULL;
	G16F(to_mont)(&hi, raw);
	G16F(from_u64)(&f, 1ULL << 63);
	G16F(mul_inl)(&f, &f, &f);                 /* 2^126 */
	G16F(mul_inl)(&f, &f, &f);                 /* 2^252 */
	G16F(mul_inl)(&hi, &hi, &f);
	G16F(add_inl)(r, &hi, &lo);
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(&hi, sizeof(hi));
	explicit_bzero(&lo, sizeof(lo));
}

void G16(secrets_wipe)(struct G16(secrets) *sec)
{
	explicit_bzero(sec, sizeof(*sec));
}

int G16(blinding)(struct G16(secrets) *sec)
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
	g16_fr_random(&sec->r, sec->rnd);
	g16_fr_random(&sec->s, sec->rnd + 64);
	return 0;
}

int G16(finish)(const struct G16_KEY *k, const struct G16(msms) *m, const cz_scalar *w,
		struct G16(proof) *p, struct G16(secrets) *sec, struct cz_groth16_times *t)
{
	double t0 = cz_now_ms();
	int rc = G16(blinding)(sec);

	if (!rc) {
		G16(finalize)(k, m, &sec->r, &sec->s, p);
		double t1 = cz_now_ms();
		rc = G16(check_proof)(k, w, p) ? CZ_GROTH16_OK : CZ_GROTH16_UNSAT;
		if (t) {
			t->finalize = t1 - t0;
			t->verify = cz_now_ms() - t1;
		}
	}
	int saved = errno;      /* getrandom's, for CZ_GROTH16_ERANDOM */
	G16(secrets_wipe)(sec);
	errno = saved;
	return rc;
}

int G16(prove)(const struct G16_KEY *k, const cz_scalar *w, g16_fr *a, g16_fr *b, g16_fr *c,
	       struct G16(proof) *p, struct cz_pool *pool, struct cz_groth16_times *t)
{
	size_t n = (size_t)1 << k->log2n;
	struct G16(msms) m;
	struct G16(secrets) sec;
	int rc = CZ_GROTH16_ENOMEM;

	cz_scalar *h = cz_groth16_key_alloc(n * sizeof(cz_scalar));  /* huge pages: one-shot runs fault it fresh */
	struct G16_D *d = G16N(domain_create)(k->log2n);
	if (!h || !d)
		goto out;
	if (G16(device)(k, d, w, a, b, c, h, &m, pool, t))
		goto out;
	rc = G16(finish)(k, &m, w, p, &sec, t);
out:
	{
		int saved = errno;
		G16N(domain_destroy)(d);
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

#undef G16F
#undef G16A
#undef G16B
#undef G16N
#undef G16M
#undef G16_KEY

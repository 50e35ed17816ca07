/* SPDX-License-Identifier: MIT */
/* Description: the CUDA backend on a real device, both curves: device arithmetic, NTTs, G1 MSMs and the Groth16 device stage (BLS12-381 and BN254 work through the backend) equal zk/ and the proofs verify (a BN254 circuit too); one key address seen with both curves is never read as the other's; skips without nvcc or without a device (in the full check a missing device fails). */
/*
 * CZ_GPU_CHECK=full (tools/gpu-check.sh) adds the large sizes and orders the
 * run cheapest and most telling first: the device's arithmetic, NTTs 2^10 ..
 * 2^24, MSMs 2^10 .. 2^24, Groth16 partitions at 2^10, 2^16 and 2^20 of
 * both curves (BN254: a random key, against zk/'s device stage; and at
 * 2^10 a BN254 circuit whose proof must verify).  Each
 * result prints as it lands (stdout is line-buffered), timed rows are
 * device time from CUDA events (no copies, no table builds) next to their
 * target and zk/ on all host cores, and a sticky error stops the run at
 * once: the rest is skipped, the step that died and the CUDA error (file and
 * line of the launch; with CZ_CUDA_SYNC=1 every launch is checked
 * synchronously, so the line names the kernel) are printed.
 * CZ_GPU_CHECK=dry (tools/gpu-check.sh --dry-run) prints the same plan and
 * table with every device row "no device", for machines without one.
 */
#include "gpu/backend.h"
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "synth/synth.h"
#include "zk/msm/bn254_msm.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/groth16/builtin.h"
#include "zk/groth16/cs.h"
#include "zk/groth16/groth16.h"
#include "zk/ntt/ntt.h"

#include <stdlib.h>
#include <string.h>

#ifndef CZ_HAVE_CUDA
int main(void)
{
	ct_plan(1);
	ct_skip("built without CUDA (nvcc not found)", "CUDA backend");
	return ct_exit();
}
#else
#include "gpu/cuda_pvt.h"
#include "gpu/field32.h" /* CZ_F32_PTX */
#include "lib/clock.h"

static uint64_t rng = 0x6a09e667f3bcc909ULL;
static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

static int full, dry;
static struct cz_pool *pool;
static struct cz_cuda_dev *cu;  /* NULL: no device (the steps skip) */
static const char *dead_after; /* the step after which the device went out of service */
static char table[8192];
static size_t tlen;

#define ROW(...) (tlen += (size_t)snprintf(table + tlen, sizeof(table) - tlen, __VA_ARGS__))

/* A step runs only while a device answers; otherwise its points skip. */
static int step_skip(int points, const char *what)
{
	if (cu && !dead_after)
		return 0;
	for (int i = 0; i < points; i++)
		ct_skip(dead_after ? "the device went out of service earlier" : "no CUDA device", "%s",
			what);
	return 1;
}

/* After a step: a sticky error stops the run here, saying where. */
static void step_done(const char *what)
{
	if (cu && !dead_after && cz_cuda_dead(cu)) {
		dead_after = what;
		ct_diag("device out of service during \"%s\" (the CUDA error and the launch's file:line are on stderr; rerun with CZ_CUDA_SYNC=1 to have it name the kernel); the rest is skipped",
			what);
	}
}

#define FIELD_RAND(Z, NL, TOP)                                                   \
	static cz_##Z Z##_rand(void)                                             \
	{                                                                        \
		uint64_t raw[NL];                                                \
		cz_##Z r;                                                        \
		do {                                                             \
			for (int i = 0; i < NL; i++)                             \
				raw[i] = rnd();                                  \
			raw[NL - 1] &= TOP;                                      \
		} while (!cz_##Z##_to_mont(&r, raw));                            \
		return r;                                                        \
	}
FIELD_RAND(fr, 4, 0x7fffffffffffffffULL)
FIELD_RAND(fp, 6, 0x1fffffffffffffffULL)
FIELD_RAND(bn254_fr, 4, 0x3fffffffffffffffULL)
FIELD_RAND(bn254_fp, 4, 0x3fffffffffffffffULL)

/* n points, cheaply: P_i = P_{i-1} + G, then one batch conversion; at most
 * 2^20 distinct ones, repeated beyond (the MSM's result is checked against
 * zk/ on the same bases, so repeats are fine, and 2^24 sequential additions
 * would take the host longer than the device check). */
#define POINTS(NAME, G, CAP)                                                          \
	static G##_affine *NAME(size_t n)                                             \
	{                                                                             \
		size_t d = n < ((size_t)1 << (CAP)) ? n : (size_t)1 << (CAP);         \
		G##_affine *p = malloc((n + 1) * sizeof(*p));                         \
		G##_jac *j = malloc((d + 1) * sizeof(*j)), g, q;                      \
		uint64_t k = rnd() | 1;                                               \
		G##_jac_from_affine(&g, &G##_generator);                              \
		G##_mul_vartime(&q, &g, &k, 1);                                       \
		j[0] = q;                                                             \
		for (size_t i = 1; i < d; i++)                                        \
			G##_jac_add_affine(&j[i], &j[i - 1], &G##_generator);         \
		G##_jac_batch_to_affine(p, j, d);                                     \
		for (size_t i = d; i < n; i++)                                        \
			p[i] = p[i % d];                                              \
		free(j);                                                              \
		return p;                                                             \
	}
POINTS(points, cz_g1, 20)
POINTS(bn254_points, cz_bn254_g1, 20)
POINTS(bn254_g2_points, cz_bn254_g2, 16)   /* G2 additions cost more: 2^16 distinct */

/* The device's own field and point arithmetic against zk/, both curves,
 * before the pipelines that use it: 3 points. */
static void arith_test(void)
{
	enum { N = 4096 };
	if (step_skip(3, "device arithmetic"))
		return;
	struct cz_cuda_arith_in *in = calloc(N, sizeof(*in));
	struct cz_cuda_arith_out *out = calloc(N, sizeof(*out));
	cz_g1_affine *p = points(N + 1);
	cz_bn254_g1_affine *bp = bn254_points(N + 1);
	int bad[6] = { 0 }, bad_ptx = 0;

	for (size_t i = 0; i < N; i++) {
		struct cz_cuda_arith_in *x = &in[i];
		x->fa = fr_rand(), x->fb = fr_rand(), x->pa = fp_rand(), x->pb = fp_rand();
		x->bfa = bn254_fr_rand(), x->bfb = bn254_fr_rand();
		x->bpa = bn254_fp_rand(), x->bpb = bn254_fp_rand();
		switch (i % 8) {  /* edges: 0, 1, -1, equal operands */
		case 0: x->fa = cz_fr_zero; x->pb = cz_fp_zero; x->bfa = cz_bn254_fr_zero; x->bpb = cz_bn254_fp_zero; break;
		case 1: x->fb = cz_fr_one; x->pa = cz_fp_one; x->bfb = cz_bn254_fr_one; x->bpa = cz_bn254_fp_one; break;
		case 2:
			cz_fr_neg(&x->fa, &cz_fr_one);
			cz_fp_neg(&x->pb, &cz_fp_one);
			cz_bn254_fr_neg(&x->bfa, &cz_bn254_fr_one);
			cz_bn254_fp_neg(&x->bpb, &cz_bn254_fp_one);
			break;
		case 3: x->fb = x->fa; x->pb = x->pa; x->bfb = x->bfa; x->bpb = x->bpa; break;
		default: break;
		}
		cz_g1_jac j;
		cz_g1_jac_from_affine(&j, &p[i]);
		cz_g1_jac_dbl(&j, &j);           /* Z != 1 */
		cz_g1_jac_to_xyzz(&x->p, &j);
		x->q = p[(i + 1) % N];
		cz_bn254_g1_jac bj;
		cz_bn254_g1_jac_from_affine(&bj, &bp[i]);
		cz_bn254_g1_jac_dbl(&bj, &bj);
		cz_bn254_g1_jac_to_xyzz(&x->bp, &bj);
		x->bq = bp[(i + 1) % N];
		if (i % 16 == 5) {                /* infinity */
			memset(&x->q, 0, sizeof(x->q));
			memset(&x->bq, 0, sizeof(x->bq));
		}
		if (i % 16 == 6) {
			cz_g1_xyzz_set_inf(&x->p);
			cz_bn254_g1_xyzz_set_inf(&x->bp);
		}
		if (i % 16 == 7) {                /* doubling */
			cz_g1_xyzz_from_affine(&x->p, &x->q);
			cz_bn254_g1_xyzz_from_affine(&x->bp, &x->bq);
		}
	}
	int rc = cz_cuda_arith(cu, in, out, N);
	for (size_t i = 0; i < N && !rc; i++) {
		const struct cz_cuda_arith_in *x = &in[i];
		cz_fr f[4];
		cz_fp q[4];
		cz_bn254_fr bf[4];
		cz_bn254_fp bq[4];
		cz_g1_xyzz s;
		cz_bn254_g1_xyzz bs;
		cz_fr_add(&f[0], &x->fa, &x->fb), cz_fr_sub(&f[1], &x->fa, &x->fb);
		cz_fr_mul(&f[2], &x->fa, &x->fb), cz_fr_sqr(&f[3], &x->fa);
		cz_fp_add(&q[0], &x->pa, &x->pb), cz_fp_sub(&q[1], &x->pa, &x->pb);
		cz_fp_mul(&q[2], &x->pa, &x->pb), cz_fp_sqr(&q[3], &x->pa);
		cz_bn254_fr_add(&bf[0], &x->bfa, &x->bfb), cz_bn254_fr_sub(&bf[1], &x->bfa, &x->bfb);
		cz_bn254_fr_mul(&bf[2], &x->bfa, &x->bfb), cz_bn254_fr_sqr(&bf[3], &x->bfa);
		cz_bn254_fp_add(&bq[0], &x->bpa, &x->bpb), cz_bn254_fp_sub(&bq[1], &x->bpa, &x->bpb);
		cz_bn254_fp_mul(&bq[2], &x->bpa, &x->bpb), cz_bn254_fp_sqr(&bq[3], &x->bpa);
		cz_g1_xyzz_add_affine(&s, &x->p, &x->q);
		cz_bn254_g1_xyzz_add_affine(&bs, &x->bp, &x->bq);
		bad[0] += memcmp(f, out[i].fr, sizeof(f)) != 0;
		bad[1] += memcmp(q, out[i].fp, sizeof(q)) != 0;
		bad[2] += !cz_g1_xyzz_eq(&s, &out[i].sum);
		bad[3] += memcmp(bf, out[i].bfr, sizeof(bf)) != 0;
		bad[4] += memcmp(bq, out[i].bfp, sizeof(bq)) != 0;
		bad[5] += !cz_bn254_g1_xyzz_eq(&bs, &out[i].bsum);
		bad_ptx += out[i].ptx_bad != 0;
	}
	ct_ok(!rc && !bad[0] && !bad[1] && !bad[2],
	      "device BLS12-381 Fr/Fp add, sub, mul, sqr and G1 XYZZ + affine = zk/ on %d inputs (rc %d; bad Fr %d, Fp %d, G1 %d)",
	      N, rc, bad[0], bad[1], bad[2]);
	ct_ok(!rc && !bad[3] && !bad[4] && !bad[5],
	      "device BN254 Fr/Fp add, sub, mul, sqr and G1 XYZZ + affine = zk/ on %d inputs (rc %d; bad Fr %d, Fp %d, G1 %d)",
	      N, rc, bad[3], bad[4], bad[5]);
	ct_ok(!rc && !bad_ptx, "device inline-PTX mul (CZ_F32_PTX, %s) = portable mul, both curves, on %d inputs (%d bad)",
	      CZ_F32_PTX ? "in use" : "not in use", N, bad_ptx);
	free(in);
	free(out);
	free(p);
	free(bp);
	step_done("device arithmetic");
}

static const char *ntt_names[] = { "forward", "inverse", "coset_forward", "coset_inverse",
				   "to_odd_coset" };

/* One NTT size, all five transforms, one curve: 1 point. */
#define NTT_CASE(NAME, Z, ZN, ZD, DEVNTT, CURVE)                                                     \
	static void NAME(unsigned L)                                                                 \
	{                                                                                            \
		char what[64];                                                                       \
		snprintf(what, sizeof(what), "%s NTT 2^%u", CURVE, L);                               \
		const char *tgt = L == 24 && !strcmp(CURVE, "BLS12-381") ? " (target <= 5)" : "";    \
		if (step_skip(1, what)) {                                                            \
			if (L >= 20)                                                                 \
				ROW("# %-26s device   no device%s\n", what, tgt);                     \
			return;                                                                      \
		}                                                                                    \
		size_t n = (size_t)1 << L;                                                           \
		struct ZD *zd = ZN##_domain_create(L);                                               \
		cz_##Z *ref = malloc(n * sizeof(*ref)), *got = malloc(n * sizeof(*got));            \
		int bad = 0, rc = 0;                                                                 \
		float tdev[5] = { 0 };                                                               \
		double th = 0;                                                                       \
		for (int op = 0; op < 5; op++) {                                                     \
			for (size_t i = 0; i < n; i++)                                               \
				ref[i] = Z##_rand();                                                 \
			memcpy(got, ref, n * sizeof(*ref));                                          \
			double t0 = cz_now_ms();                                                     \
			switch (op) {                                                                \
			case 0: ZN##_forward(zd, ref, pool); break;                                  \
			case 1: ZN##_inverse(zd, ref, pool); break;                                  \
			case 2: ZN##_coset_forward(zd, ref, pool); break;                            \
			case 3: ZN##_coset_inverse(zd, ref, pool); break;                            \
			case 4: ZN##_to_odd_coset(zd, ref, pool); break;                             \
			}                                                                            \
			if (op == 0)                                                                 \
				th = cz_now_ms() - t0;                                               \
			rc |= DEVNTT(cu, L, got, op, &tdev[op]);                                     \
			if (memcmp(ref, got, n * sizeof(*ref))) {                                    \
				bad |= 1 << op;                                                      \
				ct_diag("%s %s differs", what, ntt_names[op]);                       \
			}                                                                            \
		}                                                                                    \
		ct_ok(!rc && !bad, "%s, all five transforms = zk/ (rc %d, bad mask 0x%x; forward %.2f ms on the device)", \
		      what, rc, bad, tdev[0]);                                                       \
		if (L >= 20)                                                                         \
			ROW("# %-26s device %8.2f ms%-14s  host %8.1f ms (odd coset %.2f ms)\n", what, \
			    tdev[0], tgt, th, tdev[4]);                                              \
		ZN##_domain_destroy(zd);                                                             \
		free(ref);                                                                           \
		free(got);                                                                           \
		step_done(what);                                                                     \
	}
NTT_CASE(ntt_case, fr, cz_ntt, cz_ntt_domain, cz_cuda_ntt, "BLS12-381")
NTT_CASE(bn254_ntt_case, bn254_fr, cz_bn254_ntt, cz_bn254_ntt_domain, cz_cuda_bn254_ntt, "BN254")

enum { K_RANDOM, K_01, K_ONE, K_INF, K_ZERO, K_HOT };
static const char *kinds[] = { "random", "90% 0/1", "all one", "1/7 infinity", "all zero",
			       "one scalar (hot)" };

/* One MSM case against zk/: 1 point; a timed row for the large ones. */
#define MSM_CASE(NAME, G, FR, PTS, ZMSM, DEVMSM, CURVE)                                                \
	static void NAME(size_t n, int kind, unsigned window)                                          \
	{                                                                                              \
		char what[96];                                                                         \
		snprintf(what, sizeof(what), "%s MSM n = %zu, %s, window %u", CURVE, n, kinds[kind],   \
			 window);                                                                      \
		const char *tgt = n == ((size_t)1 << 24) && kind == K_RANDOM &&                        \
					  !strcmp(CURVE, "BLS12-381") ? " (target <= 150)" : "";       \
		if (step_skip(1, what)) {                                                              \
			if (n >= ((size_t)1 << 16))                                                    \
				ROW("# %-44s device   no device%s\n", what, tgt);                       \
			return;                                                                        \
		}                                                                                      \
		G##_affine *b = PTS(n);                                                                \
		cz_scalar *k = malloc((n + 1) * sizeof(*k)), rep;                                      \
		cz_##FR f = FR##_rand();                                                               \
		cz_##FR##_from_mont(rep.l, &f);                                                        \
		for (size_t i = 0; i < n; i++) {                                                       \
			f = FR##_rand();                                                               \
			cz_##FR##_from_mont(k[i].l, &f);                                               \
			if (kind == K_01 && rnd() % 10)                                                \
				k[i] = (cz_scalar){ { rnd() & 1, 0, 0, 0 } };                          \
			if (kind == K_ONE)                                                             \
				k[i] = (cz_scalar){ { 1, 0, 0, 0 } };                                  \
			if (kind == K_INF && i % 7 == 0)                                               \
				memset(&b[i], 0, sizeof(b[i]));                                        \
			if (kind == K_ZERO)                                                            \
				k[i] = (cz_scalar){ { 0, 0, 0, 0 } };                                  \
			if (kind == K_HOT)                                                             \
				k[i] = rep;                                                            \
		}                                                                                      \
		G##_jac want, got;                                                                     \
		float tdev = 0;                                                                        \
		double t0 = cz_now_ms();                                                               \
		ZMSM(&want, b, k, n, pool);                                                            \
		double th = cz_now_ms() - t0;                                                          \
		int rc = DEVMSM(cu, &got, b, k, n, window, &tdev);                                     \
		ct_ok(!rc && G##_jac_eq(&want, &got), "%s = zk/ (rc %d; %.2f ms on the device)", what, \
		      rc, tdev);                                                                       \
		if (n >= ((size_t)1 << 16))                                                            \
			ROW("# %-44s device %8.2f ms%-16s  host %8.1f ms\n", what, tdev, tgt, th);     \
		free(b);                                                                               \
		free(k);                                                                               \
		step_done(what);                                                                       \
	}
MSM_CASE(msm_case, cz_g1, fr, points, cz_msm_g1, cz_cuda_msm_g1, "BLS12-381")
MSM_CASE(bn254_msm_case, cz_bn254_g1, bn254_fr, bn254_points, cz_bn254_msm_g1, cz_cuda_bn254_msm_g1,
	 "BN254")

static void to_scalars(cz_scalar *s, const cz_fr *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cz_fr_from_mont(s[i].l, &w[i]);
}

/* One partition through the backend (B2 on host threads meanwhile), then
 * finalize and verify; the MSM results also equal the CPU device stage's:
 * 6 points. */
static void groth16_test(const struct cz_backend *be, struct cz_device *dev, unsigned L)
{
	struct cz_cs cs;
	struct cz_groth16_key key;
	cz_fr *w;
	char err[256], what[64];

	snprintf(what, sizeof(what), "Groth16 2^%u", L);
	const char *tgt = L == 20 ? " (target <= 250)" : "";
	if (step_skip(6, what)) {
		ROW("# %-26s device   no device%s\n", what, tgt);
		return;
	}
	if (!ct_ok(cz_builtin_build("merkle", L, 42, &cs, &w, err) == 0, "2^%u: build merkle: %s", L, err)) {
		ct_skip("no circuit", "2^%u", L), ct_skip("no circuit", "2^%u", L);
		ct_skip("no circuit", "2^%u", L), ct_skip("no circuit", "2^%u", L);
		ct_skip("no circuit", "2^%u", L);
		return;
	}
	double t0 = cz_now_ms();
	int rc = cz_groth16_devsetup(&cs, 7, &key, pool);
	double tsetup = cz_now_ms() - t0;
	size_t n = (size_t)1 << L;
	cz_scalar *ws = malloc(cs.nvars * sizeof(*ws)), *h = malloc(n * sizeof(*h));
	cz_fr *abc = malloc(3 * n * sizeof(cz_fr)), *abc2 = malloc(3 * n * sizeof(cz_fr));
	struct cz_ntt_domain *dom = cz_ntt_domain_create(L);
	struct cz_groth16_msms ref;
	ct_ok(rc == 0, "2^%u: devsetup (%.0f ms)", L, tsetup);
	to_scalars(ws, w, cs.nvars);
	cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
	memcpy(abc2, abc, 3 * n * sizeof(cz_fr));

	t0 = cz_now_ms();
	cz_groth16_device(&key, dom, ws, abc2, abc2 + n, abc2 + 2 * n, h, &ref, pool, NULL);
	double tcpu = cz_now_ms() - t0;

	struct cz_dev_work wk = { .key = &key, .dom = dom, .w = ws, .a = abc, .b = abc + n,
				  .c = abc + 2 * n, .h = h };
	double tdev[2];
	rc = 0;
	for (int rep = 0; rep < 2; rep++) {  /* the second run finds the key resident */
		cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
		t0 = cz_now_ms();
		rc |= be->prove(dev, &wk);
		tdev[rep] = cz_now_ms() - t0;
	}
	/* the device stage alone, by CUDA events, with the key resident */
	struct cz_cuda_g16 in = { .key_id = &key, .nvars = key.nvars, .npc = key.npub + 1,
				  .log2n = key.log2n, .a = key.a, .b1 = key.b1, .c = key.c,
				  .h = key.h, .w = ws, .pa = abc, .pb = abc + n, .pc = abc + 2 * n };
	struct cz_cuda_g16_out go = { 0 };
	cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
	int rc2 = cz_cuda_groth16(cu, &in, &go);
	ct_ok(!rc && !rc2, "2^%u: backend cuda prove, twice, and the device stage alone (rc %d, %d)", L,
	      rc, rc2);
	ct_ok(cz_g1_jac_eq(&wk.out.a, &ref.a) && cz_g1_jac_eq(&wk.out.b1, &ref.b1) &&
	      cz_g1_jac_eq(&wk.out.c, &ref.c) && cz_g1_jac_eq(&wk.out.h, &ref.h) &&
	      cz_g2_jac_eq(&wk.out.b2, &ref.b2) && cz_g1_jac_eq(&go.a, &ref.a) &&
	      cz_g1_jac_eq(&go.h, &ref.h),
	      "2^%u: device stage A, B1, C, H, B2 = zk/ cz_groth16_device", L);
	struct cz_groth16_secrets sec;
	struct cz_groth16_proof pr;
	rc = cz_groth16_finish(&key, &wk.out, ws, &pr, &sec, NULL);
	ct_ok(rc == CZ_GROTH16_OK, "2^%u: the proof from the device stage verifies (rc %d)", L, rc);
	/* unload_key drops the resident copy (cz_cuda_forget_key): the next
	 * prove uploads the key again and gets the same results. */
	be->unload_key(dev, &key);
	cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
	rc = be->prove(dev, &wk);
	ct_ok(!rc && cz_g1_jac_eq(&wk.out.a, &ref.a) && cz_g1_jac_eq(&wk.out.h, &ref.h) &&
	      cz_g2_jac_eq(&wk.out.b2, &ref.b2),
	      "2^%u: after unload_key the key is uploaded again, results unchanged (rc %d)", L, rc);
	be->unload_key(dev, &key);      /* before the key is freed, as the engine does */
	cz_cuda_forget_key(cu, &key);
	ROW("# %-26s device %8.1f ms%-16s  host %8.1f ms; events: copies %.1f, NTTs %.1f, MSMs %.1f ms; prove %.1f ms (first, key upload incl., %.1f); setup %.0f ms\n",
	    what, go.ms_ntt + go.ms_msm, tgt, tcpu,
	    go.ms_h2d, go.ms_ntt, go.ms_msm, tdev[1], tdev[0], tsetup);

	cz_ntt_domain_destroy(dom);
	free(ws);
	free(h);
	free(abc);
	free(abc2);
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&key);
	step_done(what);
}

/* ---- BN254 (bn128) through the backend ---- */

/* A BN254 partition of 2^L through the backend with a random key (points
 * on the curve, no circuit: the device stage is MSMs and NTTs, so its
 * results are checked against zk/'s cz_bn254_groth16_device on the same
 * inputs): 3 points. */
static void bn254_groth16_test(const struct cz_backend *be, struct cz_device *dev, unsigned L)
{
	char what[64];

	snprintf(what, sizeof(what), "BN254 Groth16 2^%u", L);
	if (step_skip(3, what)) {
		ROW("# %-26s device   no device\n", what);
		return;
	}
	size_t n = (size_t)1 << L;
	struct cz_bn254_groth16_key k = { .nvars = (uint32_t)n, .npub = 2, .log2n = L };
	cz_bn254_g1_affine *pts = bn254_points(n + 3);
	k.a = pts, k.b1 = pts + 1, k.c = pts + 2, k.h = pts + 3;
	k.b2 = bn254_g2_points(n);
	cz_scalar *ws = malloc(n * sizeof(*ws)), *h = malloc(n * sizeof(*h));
	cz_bn254_fr *abc = malloc(3 * n * sizeof(*abc)), *abc2 = malloc(3 * n * sizeof(*abc2));
	struct cz_bn254_ntt_domain *dom = cz_bn254_ntt_domain_create(L);
	for (size_t i = 0; i < n; i++) {  /* a witness's shape: mostly 0 and 1 */
		cz_bn254_fr f = bn254_fr_rand();
		cz_bn254_fr_from_mont(ws[i].l, &f);
		if (rnd() % 10 < 7)
			ws[i] = (cz_scalar){ { rnd() & 1, 0, 0, 0 } };
	}
	for (size_t i = 0; i < 3 * n; i++)
		abc[i] = bn254_fr_rand();
	memcpy(abc2, abc, 3 * n * sizeof(*abc));
	struct cz_bn254_groth16_msms ref;
	double t0 = cz_now_ms();
	cz_bn254_groth16_device(&k, dom, ws, abc2, abc2 + n, abc2 + 2 * n, h, &ref, pool, NULL);
	double tcpu = cz_now_ms() - t0;

	struct cz_dev_work wk = { .curve = CZ_CURVE_BN254, .bn_key = &k, .bn_dom = dom, .w = ws,
				  .bn_a = abc2, .bn_b = abc2 + n, .bn_c = abc2 + 2 * n, .h = h };
	double tdev[2];
	int rc = 0, same = 1;
	for (int rep = 0; rep < 2; rep++) {  /* the second run finds the key resident */
		memcpy(abc2, abc, 3 * n * sizeof(*abc));
		t0 = cz_now_ms();
		rc |= be->prove(dev, &wk);
		tdev[rep] = cz_now_ms() - t0;
		same &= cz_bn254_g1_jac_eq(&wk.bn_out.a, &ref.a) && cz_bn254_g1_jac_eq(&wk.bn_out.b1, &ref.b1) &&
			cz_bn254_g1_jac_eq(&wk.bn_out.c, &ref.c) && cz_bn254_g1_jac_eq(&wk.bn_out.h, &ref.h) &&
			cz_bn254_g2_jac_eq(&wk.bn_out.b2, &ref.b2);
	}
	struct cz_cuda_bn254_g16 in = { .key_id = &k, .nvars = k.nvars, .npc = k.npub + 1,
					.log2n = L, .a = k.a, .b1 = k.b1, .c = k.c, .h = k.h,
					.w = ws, .pa = abc, .pb = abc + n, .pc = abc + 2 * n };
	struct cz_cuda_bn254_g16_out go = { 0 };
	int rc2 = cz_cuda_bn254_groth16(cu, &in, &go);
	ct_ok(!rc && !rc2, "%s: backend cuda prove of a BN254 work, twice, and the device stage alone (rc %d, %d)",
	      what, rc, rc2);
	ct_ok(!rc && !rc2 && same && cz_bn254_g1_jac_eq(&go.a, &ref.a) && cz_bn254_g1_jac_eq(&go.h, &ref.h),
	      "%s: device stage A, B1, C, H, B2 = zk/ cz_bn254_groth16_device, both runs", what);
	be->unload_key(dev, &k);
	memcpy(abc2, abc, 3 * n * sizeof(*abc));
	rc = be->prove(dev, &wk);
	ct_ok(!rc && cz_bn254_g1_jac_eq(&wk.bn_out.a, &ref.a) && cz_bn254_g1_jac_eq(&wk.bn_out.h, &ref.h) &&
	      cz_bn254_g2_jac_eq(&wk.bn_out.b2, &ref.b2),
	      "%s: after unload_key the key is uploaded again, results unchanged (rc %d)", what, rc);
	be->unload_key(dev, &k);
	cz_cuda_forget_key(cu, &k);
	ROW("# %-26s device %8.1f ms%-16s  host %8.1f ms; events: copies %.1f, NTTs %.1f, MSMs %.1f ms; prove %.1f ms (first, key upload incl., %.1f)\n",
	    what, go.ms_ntt + go.ms_msm, "", tcpu, go.ms_h2d, go.ms_ntt, go.ms_msm, tdev[1], tdev[0]);
	cz_bn254_ntt_domain_destroy(dom);
	free(pts), free(k.b2), free(ws), free(h), free(abc), free(abc2);
	step_done(what);
}

/* A BN254 circuit made here (no files: the GPU machine's build has no
 * json-c, and zk/'s key readers need it): x^(m+1) by a chain of m
 * multiplications, public signals out = x^(m+1) and x, m = 2^L - 4 so the
 * snarkjs domain is 2^L; an INSECURE devsetup key; one partition through
 * backend cuda, whose proof must verify (cz_backend_groth16_finish) and
 * whose device results equal zk/'s: 2 points. */
static void bn254_circuit_test(const struct cz_backend *be, struct cz_device *dev, unsigned L)
{
	char what[64], err[256] = "";
	size_t n = (size_t)1 << L, m = n - 4;
	uint32_t nvars = (uint32_t)(3 + m);
	struct cz_bn254_cs cs;
	struct cz_bn254_groth16_key k;

	snprintf(what, sizeof(what), "BN254 x^(m+1) circuit 2^%u", L);
	if (step_skip(2, what))
		return;
	cz_bn254_fr *wf = malloc(nvars * sizeof(*wf)), one = cz_bn254_fr_one;
	cz_scalar *ws = malloc(nvars * sizeof(*ws)), *h = malloc(n * sizeof(*h));
	wf[0] = one;
	wf[2] = bn254_fr_rand();
	cz_bn254_fr_mul(&wf[3], &wf[2], &wf[2]);
	for (uint32_t i = 4; i < nvars; i++)
		cz_bn254_fr_mul(&wf[i], &wf[i - 1], &wf[2]);
	wf[1] = wf[nvars - 1];
	int rc = cz_bn254_cs_init(&cs, nvars, 2);
	for (uint32_t i = 3; !rc && i < nvars; i++) {   /* w_i = w_(i-1) · x, w_3 = x · x */
		rc |= cz_bn254_cs_row(&cs) < 0;
		rc |= cz_bn254_cs_term(&cs, 0, i == 3 ? 2 : i - 1, &one);
		rc |= cz_bn254_cs_term(&cs, 1, 2, &one);
		rc |= cz_bn254_cs_term(&cs, 2, i, &one);
	}
	if (!rc) {                                      /* out = w_last · 1 */
		rc |= cz_bn254_cs_row(&cs) < 0;
		rc |= cz_bn254_cs_term(&cs, 0, nvars - 1, &one);
		rc |= cz_bn254_cs_term(&cs, 1, 0, &one);
		rc |= cz_bn254_cs_term(&cs, 2, 1, &one);
	}
	long bad_row = rc ? 0 : cz_bn254_cs_check(&cs, wf);
	double t0 = cz_now_ms();
	if (!rc && bad_row < 0)
		rc = cz_bn254_groth16_devsetup(&cs, 9, &k, pool);
	double tsetup = cz_now_ms() - t0;
	cz_bn254_cs_free(&cs);
	if (rc || bad_row >= 0 || k.log2n != L) {
		ct_ok(0, "%s: circuit and devsetup (rc %d, unsatisfied row %ld, 2^%u)", what, rc, bad_row,
		      rc ? 0 : k.log2n);
		ct_skip("no key", "%s", what);
		if (!rc)
			cz_bn254_groth16_key_free(&k);
		free(wf), free(ws), free(h);
		return;
	}
	for (uint32_t i = 0; i < nvars; i++)
		cz_bn254_fr_from_mont(ws[i].l, &wf[i]);
	cz_bn254_fr *abc = malloc(3 * n * sizeof(*abc)), *pub = calloc(k.npub + 1, sizeof(*pub));
	struct cz_bn254_ntt_domain *dom = cz_bn254_ntt_domain_create(L);
	struct cz_bn254_groth16_msms ref;
	union cz_dev_proof pr;
	cz_bn254_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	cz_bn254_groth16_device(&k, dom, ws, abc, abc + n, abc + 2 * n, h, &ref, pool, NULL);
	cz_bn254_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	struct cz_dev_work wk = { .curve = CZ_CURVE_BN254, .bn_key = &k, .bn_dom = dom, .w = ws,
				  .bn_a = abc, .bn_b = abc + n, .bn_c = abc + 2 * n, .h = h };
	rc = be->prove(dev, &wk);
	int frc = rc ? rc : cz_backend_groth16_finish(&wk, pub, &pr, err, sizeof(err));
	ct_ok(!rc && !frc, "%s: proved through backend cuda, the proof verifies against the key (rc %d, %d %s; devsetup %.0f ms)",
	      what, rc, frc, err, tsetup);
	ct_ok(!rc && cz_bn254_g1_jac_eq(&wk.bn_out.a, &ref.a) && cz_bn254_g1_jac_eq(&wk.bn_out.b1, &ref.b1) &&
	      cz_bn254_g1_jac_eq(&wk.bn_out.c, &ref.c) && cz_bn254_g1_jac_eq(&wk.bn_out.h, &ref.h) &&
	      cz_bn254_g2_jac_eq(&wk.bn_out.b2, &ref.b2),
	      "%s: device stage A, B1, C, H, B2 = zk/ cz_bn254_groth16_device", what);
	be->unload_key(dev, &k);
	cz_bn254_ntt_domain_destroy(dom);
	free(wf), free(ws), free(h), free(abc), free(pub);
	cz_bn254_groth16_key_free(&k);
	step_done(what);
}

/* One key address, both curves (the engine's keys share one in a union):
 * a BLS12-381 stage, then a BN254 one under the same key_id, then the
 * BLS12-381 one again, random keys of 2^10; each equals zk/'s device stage,
 * so the cache never hands one curve's resident points to the other: 1
 * point. */
static void curve_cache_test(void)
{
	const char *what = "one key address, both curves";
	enum { L = 10 };
	size_t n = (size_t)1 << L;
	static int shared;      /* the key_id both stages name */

	if (step_skip(1, what))
		return;
	struct cz_groth16_key bk = { .nvars = (uint32_t)n, .npub = 1, .log2n = L };
	struct cz_bn254_groth16_key nk = { .nvars = (uint32_t)n, .npub = 1, .log2n = L };
	cz_g1_affine *bp = points(n + 3);
	cz_bn254_g1_affine *np = bn254_points(n + 3);
	bk.a = bp, bk.b1 = bp + 1, bk.c = bp + 2, bk.h = bp + 3;
	nk.a = np, nk.b1 = np + 1, nk.c = np + 2, nk.h = np + 3;
	cz_scalar *bw = malloc(n * sizeof(*bw)), *nw = malloc(n * sizeof(*nw));
	cz_fr *ba = malloc(3 * n * sizeof(*ba));
	cz_bn254_fr *na = malloc(3 * n * sizeof(*na));
	struct { cz_g1_jac a, b1, c, h; } bref;
	struct { cz_bn254_g1_jac a, b1, c, h; } nref;
	for (size_t i = 0; i < n; i++) {
		cz_fr f = fr_rand();
		cz_bn254_fr g = bn254_fr_rand();
		cz_fr_from_mont(bw[i].l, &f);
		cz_bn254_fr_from_mont(nw[i].l, &g);
	}
	for (size_t i = 0; i < 3 * n; i++)
		ba[i] = fr_rand(), na[i] = bn254_fr_rand();
	/* the oracle: zk/'s device stage, G1 half, on copies (B2 is not asked of
	 * the device here) */
	{
		struct cz_ntt_domain *bd = cz_ntt_domain_create(L);
		struct cz_bn254_ntt_domain *nd = cz_bn254_ntt_domain_create(L);
		cz_fr *t = malloc(3 * n * sizeof(*t));
		cz_bn254_fr *u = malloc(3 * n * sizeof(*u));
		cz_scalar *hb = malloc(n * sizeof(*hb)), *hn = malloc(n * sizeof(*hn));
		memcpy(t, ba, 3 * n * sizeof(*t));
		memcpy(u, na, 3 * n * sizeof(*u));
		for (int i = 0; i < 3; i++) {
			cz_ntt_to_odd_coset(bd, t + i * n, pool);
			cz_bn254_ntt_to_odd_coset(nd, u + i * n, pool);
		}
		for (size_t i = 0; i < n; i++) {
			cz_fr x;
			cz_bn254_fr y;
			cz_fr_mul(&x, &t[i], &t[n + i]);
			cz_fr_sub(&x, &x, &t[2 * n + i]);
			cz_fr_from_mont(hb[i].l, &x);
			cz_bn254_fr_mul(&y, &u[i], &u[n + i]);
			cz_bn254_fr_sub(&y, &y, &u[2 * n + i]);
			cz_bn254_fr_from_mont(hn[i].l, &y);
		}
		cz_msm_g1(&bref.a, bk.a, bw, n, pool);
		cz_msm_g1(&bref.b1, bk.b1, bw, n, pool);
		cz_msm_g1(&bref.c, bk.c, bw + 2, n - 2, pool);
		cz_msm_g1(&bref.h, bk.h, hb, n, pool);
		cz_bn254_msm_g1(&nref.a, nk.a, nw, n, pool);
		cz_bn254_msm_g1(&nref.b1, nk.b1, nw, n, pool);
		cz_bn254_msm_g1(&nref.c, nk.c, nw + 2, n - 2, pool);
		cz_bn254_msm_g1(&nref.h, nk.h, hn, n, pool);
		cz_ntt_domain_destroy(bd);
		cz_bn254_ntt_domain_destroy(nd);
		free(t), free(u), free(hb), free(hn);
	}
	struct cz_cuda_g16 bi = { .key_id = &shared, .nvars = bk.nvars, .npc = 2, .log2n = L,
				  .a = bk.a, .b1 = bk.b1, .c = bk.c, .h = bk.h, .w = bw,
				  .pa = ba, .pb = ba + n, .pc = ba + 2 * n };
	struct cz_cuda_bn254_g16 ni = { .key_id = &shared, .nvars = nk.nvars, .npc = 2, .log2n = L,
					.a = nk.a, .b1 = nk.b1, .c = nk.c, .h = nk.h, .w = nw,
					.pa = na, .pb = na + n, .pc = na + 2 * n };
	int good = 1, rc = 0;
	for (int rep = 0; good && rep < 3; rep++) {
		if (rep == 1) {
			struct cz_cuda_bn254_g16_out o;
			rc = cz_cuda_bn254_groth16(cu, &ni, &o);
			good &= !rc && cz_bn254_g1_jac_eq(&o.a, &nref.a) && cz_bn254_g1_jac_eq(&o.b1, &nref.b1) &&
				cz_bn254_g1_jac_eq(&o.c, &nref.c) && cz_bn254_g1_jac_eq(&o.h, &nref.h);
		} else {
			struct cz_cuda_g16_out o;
			rc = cz_cuda_groth16(cu, &bi, &o);
			good &= !rc && cz_g1_jac_eq(&o.a, &bref.a) && cz_g1_jac_eq(&o.b1, &bref.b1) &&
				cz_g1_jac_eq(&o.c, &bref.c) && cz_g1_jac_eq(&o.h, &bref.h);
		}
	}
	ct_ok(good, "%s: BLS12-381, BN254, BLS12-381 stages (2^%d random keys) under one key_id each = zk/ (rc %d)",
	      what, L, rc);
	cz_cuda_forget_key(cu, &shared);
	free(bp), free(np), free(bw), free(nw), free(ba), free(na);
	step_done(what);
}

int main(void)
{
	const struct cz_backend *be = cz_backend_find("cuda");
	char why[256] = "";
	const char *env = getenv("CZ_GPU_CHECK");
	static const unsigned ntt_quick[] = { 0, 1, 5, 10, 11, 13 };
	static const unsigned ntt_full[] = { 0, 1, 5, 10, 13, 16, 20, 22, 24 };
	static const unsigned bn_ntt_quick[] = { 5, 10 };
	static const unsigned bn_ntt_full[] = { 5, 10, 16, 20, 24 };
	static const struct { size_t n; int kind; unsigned window; } msm_quick[] = {
		{ 1, K_RANDOM, 0 }, { 2, K_RANDOM, 0 }, { 100, K_RANDOM, 0 }, { 3000, K_RANDOM, 0 },
		{ 3000, K_01, 0 }, { 3000, K_ONE, 0 }, { 3000, K_INF, 0 }, { 3000, K_ZERO, 0 },
		{ 3000, K_HOT, 0 }, { 3000, K_RANDOM, 11 }, { 0, K_RANDOM, 0 },
	}, msm_big[] = {
		{ 1 << 10, K_RANDOM, 0 }, { 1 << 12, K_HOT, 0 }, { 1 << 16, K_RANDOM, 0 },
		{ 1 << 16, K_01, 0 }, { 1 << 16, K_HOT, 0 }, { 1 << 20, K_RANDOM, 0 },
		{ 1 << 20, K_01, 0 }, { 1 << 24, K_RANDOM, 0 },
	}, bn_msm_quick[] = { { 3000, K_RANDOM, 0 }, { 3000, K_HOT, 0 }, { 3000, K_01, 0 } },
	   bn_msm_big[] = { { 1 << 16, K_RANDOM, 0 }, { 1 << 20, K_RANDOM, 0 } };
	static const unsigned g16_quick[] = { 10 }, g16_full[] = { 10, 16, 20 };
	static const unsigned bn_g16_quick[] = { 10 }, bn_g16_full[] = { 10, 16, 20 };
#define NE(a) (sizeof(a) / sizeof((a)[0]))

	setvbuf(stdout, NULL, _IOLBF, 0);  /* each result as it lands, through tee */
	dry = env && !strcmp(env, "dry");
	full = dry || (env && !strcmp(env, "full"));
	const unsigned *nt = full ? ntt_full : ntt_quick, *bnt = full ? bn_ntt_full : bn_ntt_quick;
	size_t nnt = full ? NE(ntt_full) : NE(ntt_quick), nbnt = full ? NE(bn_ntt_full) : NE(bn_ntt_quick);
	const unsigned *g16 = full ? g16_full : g16_quick;
	size_t ng16 = full ? NE(g16_full) : NE(g16_quick);
	const unsigned *bng16 = full ? bn_g16_full : bn_g16_quick;
	size_t nbng16 = full ? NE(bn_g16_full) : NE(bn_g16_quick);
	size_t nmsm = NE(msm_quick) + (full ? NE(msm_big) : 0) + NE(bn_msm_quick) + (full ? NE(bn_msm_big) : 0);
	int total = 4 + 3 + (int)(nnt + nbnt) + (int)nmsm + 6 * (int)ng16 + 3 * (int)nbng16 + 2 + 1 + 1;
	_Static_assert(sizeof(g16_quick) == sizeof(bn_g16_quick) && sizeof(g16_full) == sizeof(bn_g16_full),
		      "one BN254 size after each BLS12-381 size");
	ct_plan(total);
	if (!ct_ok(be != NULL, "backend \"cuda\" is registered"))
		return ct_exit();
	int n = dry ? 0 : cz_cuda_count(why, sizeof(why));
	if (dry)
		snprintf(why, sizeof(why), "dry run: no device asked for");
	ct_ok(n >= 0 && (dry || be->count() == n), "device count %d agrees with the backend's (%s)", n,
	      n ? "devices present" : why);
	struct cz_device *dev = NULL;
	if (n <= 0) {
		/* In `make check` (no GPU here) a missing device is a skip; in the
		 * full check (tools/gpu-check.sh, on a machine lent with a GPU) it is
		 * the failure to report, with the CUDA error's name: a driver too old
		 * for the statically linked runtime must not read as "0 failed". */
		ct_diag("%s", why);
		if (full && !dry)
			ct_ok(0, "a CUDA device answers: %s", why);
		else
			ct_skip("no CUDA device", "a CUDA device answers");
		ct_skip("no CUDA device", "open device 0");
	} else {
		pool = cz_pool_create(0);
		struct cz_backend_opts o = { .threads = 0 };
		dev = be->open(0, &o, why, sizeof(why));
		if (ct_ok(dev != NULL, "open device 0 through the backend: %s", dev ? be->describe(dev) : why)) {
			cu = cz_cuda_open(0, why, sizeof(why));
			ct_ok(cu != NULL, "cz_cuda_open(0): %s", cu ? cz_cuda_describe(cu) : why);
		} else {
			ct_skip("the backend could not open it", "cz_cuda_open(0)");
		}
	}

	/* cheapest and most telling first */
	arith_test();
	for (size_t i = 0; i < nnt; i++)
		ntt_case(nt[i]);
	for (size_t i = 0; i < nbnt; i++)
		bn254_ntt_case(bnt[i]);
	for (size_t i = 0; i < NE(msm_quick); i++)
		msm_case(msm_quick[i].n, msm_quick[i].kind, msm_quick[i].window);
	for (size_t i = 0; i < NE(bn_msm_quick); i++)
		bn254_msm_case(bn_msm_quick[i].n, bn_msm_quick[i].kind, bn_msm_quick[i].window);
	for (size_t i = 0; full && i < NE(msm_big); i++)
		msm_case(msm_big[i].n, msm_big[i].kind, msm_big[i].window);
	for (size_t i = 0; full && i < NE(bn_msm_big); i++)
		bn254_msm_case(bn_msm_big[i].n, bn_msm_big[i].kind, bn_msm_big[i].window);
	/* Groth16 by size, both curves; after the smallest, a BN254 circuit's
	 * proof and the two curves under one key address */
	for (size_t i = 0; i < ng16; i++) {
		groth16_test(be, dev, g16[i]);
		bn254_groth16_test(be, dev, bng16[i]);
		if (i == 0) {
			bn254_circuit_test(be, dev, 10);
			curve_cache_test();
		}
	}
	if (cu)
		ct_ok(!cz_cuda_dead(cu), "device still in service%s%s", dead_after ? ": died during " : "",
		      dead_after ? dead_after : "");
	else
		ct_skip("no CUDA device", "device still in service");
	if (cu)
		cz_cuda_close(cu);
	if (dev)
		be->close(dev);
	if (pool)
		cz_pool_destroy(pool);
	if (tlen) {
		printf("# %-60s\n", "device vs host (device: CUDA events; host: zk/ on all cores)");
		fputs(table, stdout);
	}
	return ct_exit();
}
#endif

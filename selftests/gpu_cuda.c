/* SPDX-License-Identifier: MIT */
/* Description: the CUDA backend on a real device: device NTTs, G1 MSMs and the Groth16 device stage equal zk/ and the proofs verify; skips without nvcc or without a device. */
/*
 * CZ_GPU_CHECK=full (tools/gpu-check.sh) adds the large sizes: NTTs to 2^24,
 * MSMs at 2^16 and 2^20, Groth16 partitions at 2^16 and 2^20, and prints a
 * table of device vs host times at the end.
 */
#include "gpu/backend.h"
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/builtin.h"
#include "zk/cs.h"
#include "synth/synth.h"
#include "zk/groth16.h"
#include "zk/ntt.h"

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

static cz_fr fr_rand(void)
{
	uint64_t raw[4];
	cz_fr r;
	do {
		for (int i = 0; i < 4; i++)
			raw[i] = rnd();
		raw[3] &= 0x7fffffffffffffffULL;
	} while (!cz_fr_to_mont(&r, raw));
	return r;
}

static int full;
static struct cz_pool *pool;
static char table[4096];
static size_t tlen;

#define ROW(...) (tlen += (size_t)snprintf(table + tlen, sizeof(table) - tlen, __VA_ARGS__))

static cz_fp fp_rand(void)
{
	uint64_t raw[6];
	cz_fp r;
	do {
		for (int i = 0; i < 6; i++)
			raw[i] = rnd();
		raw[5] &= 0x1fffffffffffffffULL;
	} while (!cz_fp_to_mont(&r, raw));
	return r;
}

static cz_g1_affine *points(size_t n);

/* The device's own field and point arithmetic against zk/, before the
 * pipelines that use it. */
static void arith_test(struct cz_cuda_dev *d)
{
	enum { N = 4096 };
	struct cz_cuda_arith_in *in = calloc(N, sizeof(*in));
	struct cz_cuda_arith_out *out = calloc(N, sizeof(*out));
	cz_g1_affine *p = points(N + 1);
	int bad_fr = 0, bad_fp = 0, bad_pt = 0, bad_ptx = 0;

	for (size_t i = 0; i < N; i++) {
		in[i].fa = fr_rand();
		in[i].fb = fr_rand();
		in[i].pa = fp_rand();
		in[i].pb = fp_rand();
		switch (i % 8) {  /* edges: 0, 1, -1, equal operands */
		case 0: in[i].fa = cz_fr_zero; in[i].pb = cz_fp_zero; break;
		case 1: in[i].fb = cz_fr_one; in[i].pa = cz_fp_one; break;
		case 2: cz_fr_neg(&in[i].fa, &cz_fr_one); cz_fp_neg(&in[i].pb, &cz_fp_one); break;
		case 3: in[i].fb = in[i].fa; in[i].pb = in[i].pa; break;
		default: break;
		}
		cz_g1_jac j;
		cz_g1_jac_from_affine(&j, &p[i]);
		cz_g1_jac_dbl(&j, &j);           /* Z != 1 */
		cz_g1_jac_to_xyzz(&in[i].p, &j);
		in[i].q = p[(i + 1) % N];
		if (i % 16 == 5)
			memset(&in[i].q, 0, sizeof(in[i].q));      /* infinity */
		if (i % 16 == 6)
			cz_g1_xyzz_set_inf(&in[i].p);
		if (i % 16 == 7)
			cz_g1_xyzz_from_affine(&in[i].p, &in[i].q); /* doubling */
	}
	int rc = cz_cuda_arith(d, in, out, N);
	for (size_t i = 0; i < N && !rc; i++) {
		cz_fr f[4];
		cz_fp q[4];
		cz_g1_xyzz s;
		cz_fr_add(&f[0], &in[i].fa, &in[i].fb);
		cz_fr_sub(&f[1], &in[i].fa, &in[i].fb);
		cz_fr_mul(&f[2], &in[i].fa, &in[i].fb);
		cz_fr_sqr(&f[3], &in[i].fa);
		cz_fp_add(&q[0], &in[i].pa, &in[i].pb);
		cz_fp_sub(&q[1], &in[i].pa, &in[i].pb);
		cz_fp_mul(&q[2], &in[i].pa, &in[i].pb);
		cz_fp_sqr(&q[3], &in[i].pa);
		cz_g1_xyzz_add_affine(&s, &in[i].p, &in[i].q);
		bad_fr += memcmp(f, out[i].fr, sizeof(f)) != 0;
		bad_fp += memcmp(q, out[i].fp, sizeof(q)) != 0;
		bad_pt += !cz_g1_xyzz_eq(&s, &out[i].sum);
		bad_ptx += out[i].ptx_bad != 0;
	}
	ct_ok(!rc && !bad_fr && !bad_fp && !bad_pt,
	      "device Fr/Fp add, sub, mul, sqr and G1 XYZZ + affine = zk/ on %d inputs (rc %d; bad Fr %d, Fp %d, G1 %d)",
	      N, rc, bad_fr, bad_fp, bad_pt);
	ct_ok(!rc && !bad_ptx, "device inline-PTX mul (CZ_F32_PTX, %s) = portable mul on %d inputs (%d bad)",
	      CZ_F32_PTX ? "in use" : "not in use", N, bad_ptx);
	free(in);
	free(out);
	free(p);
}

static void ntt_tests(struct cz_cuda_dev *d)
{
	static const char *names[] = { "forward", "inverse", "coset_forward", "coset_inverse",
				       "to_odd_coset" };
	static const unsigned small[] = { 0, 1, 5, 10, 11, 13 }, big[] = { 16, 20, 24 };
	unsigned sizes[16], ns = 0;

	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		sizes[ns++] = small[i];
	for (size_t i = 0; full && i < sizeof(big) / sizeof(big[0]); i++)
		sizes[ns++] = big[i];
	for (unsigned si = 0; si < ns; si++) {
		unsigned L = sizes[si];
		size_t n = (size_t)1 << L;
		struct cz_ntt_domain *zd = cz_ntt_domain_create(L);
		cz_fr *ref = malloc(n * sizeof(cz_fr)), *got = malloc(n * sizeof(cz_fr));
		int bad = 0, rc = 0;
		double tg = 0, tc = 0;
		for (int op = 0; op < 5; op++) {
			for (size_t i = 0; i < n; i++)
				ref[i] = fr_rand();
			memcpy(got, ref, n * sizeof(cz_fr));
			double t0 = cz_now_ms();
			switch (op) {
			case 0: cz_ntt_forward(zd, ref, pool); break;
			case 1: cz_ntt_inverse(zd, ref, pool); break;
			case 2: cz_ntt_coset_forward(zd, ref, pool); break;
			case 3: cz_ntt_coset_inverse(zd, ref, pool); break;
			case 4: cz_ntt_to_odd_coset(zd, ref, pool); break;
			}
			double t1 = cz_now_ms();
			rc |= cz_cuda_ntt(d, L, got, op);
			tg += cz_now_ms() - t1;
			tc += t1 - t0;
			if (memcmp(ref, got, n * sizeof(cz_fr))) {
				bad |= 1 << op;
				ct_diag("2^%u %s differs", L, names[op]);
			}
		}
		ct_ok(!rc && !bad, "device NTT 2^%u, all five transforms = zk/ntt (rc %d, bad mask 0x%x)", L,
		      rc, bad);
		if (L >= 16)
			ROW("# ntt 2^%-2u x5        device %8.1f ms   host %8.1f ms (incl. copies)\n", L, tg, tc);
		cz_ntt_domain_destroy(zd);
		free(ref);
		free(got);
	}
}

/* n points, cheaply: P_i = P_{i-1} + Q, then one batch conversion. */
static cz_g1_affine *points(size_t n)
{
	cz_g1_affine *p = malloc((n + 1) * sizeof(*p));
	cz_g1_jac *j = malloc((n + 1) * sizeof(*j)), g, q;
	uint64_t k = rnd() | 1;
	cz_g1_jac_from_affine(&g, &cz_g1_generator);
	cz_g1_mul_vartime(&q, &g, &k, 1);
	j[0] = q;
	for (size_t i = 1; i < n; i++)
		cz_g1_jac_add_affine(&j[i], &j[i - 1], &cz_g1_generator);
	cz_g1_jac_batch_to_affine(p, j, n);
	free(j);
	return p;
}

static void msm_tests(struct cz_cuda_dev *d)
{
	static const struct {
		size_t n;
		int kind;       /* 0 random, 1 90% 0/1, 2 all one, 3 infinities, 4 all zero */
		unsigned window;
		int big;
	} cases[] = {
		{ 1, 0, 0, 0 }, { 2, 0, 0, 0 }, { 100, 0, 0, 0 }, { 3000, 0, 0, 0 }, { 3000, 1, 0, 0 },
		{ 3000, 2, 0, 0 }, { 3000, 3, 0, 0 }, { 3000, 4, 0, 0 }, { 3000, 0, 11, 0 },
		{ 0, 0, 0, 0 }, { 1 << 16, 0, 0, 1 }, { 1 << 16, 1, 0, 1 }, { 1 << 20, 0, 0, 1 },
		{ 1 << 20, 1, 0, 1 },
	};
	static const char *kinds[] = { "random", "90% 0/1", "all one", "1/7 infinity", "all zero" };
	size_t nmax = full ? (size_t)1 << 20 : 3000;
	cz_g1_affine *p = points(nmax), *b = malloc((nmax + 1) * sizeof(*b));
	cz_scalar *k = malloc((nmax + 1) * sizeof(*k));

	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		size_t n = cases[ci].n;
		if (cases[ci].big && !full)
			continue;
		memcpy(b, p, n * sizeof(*b));
		for (size_t i = 0; i < n; i++) {
			cz_fr f = fr_rand();
			cz_fr_from_mont(k[i].l, &f);
			if (cases[ci].kind == 1 && rnd() % 10)
				k[i] = (cz_scalar){ { rnd() & 1, 0, 0, 0 } };
			if (cases[ci].kind == 2)
				k[i] = (cz_scalar){ { 1, 0, 0, 0 } };
			if (cases[ci].kind == 3 && i % 7 == 0)
				memset(&b[i], 0, sizeof(b[i]));
			if (cases[ci].kind == 4)
				k[i] = (cz_scalar){ { 0, 0, 0, 0 } };
		}
		cz_g1_jac want, got;
		double t0 = cz_now_ms();
		cz_msm_g1(&want, b, k, n, pool);
		double t1 = cz_now_ms();
		int rc = cz_cuda_msm_g1(d, &got, b, k, n, cases[ci].window);
		double t2 = cz_now_ms();
		ct_ok(!rc && cz_g1_jac_eq(&want, &got), "device MSM n = %zu, %s, window %u = cz_msm_g1 (rc %d)",
		      n, kinds[cases[ci].kind], cases[ci].window, rc);
		if (cases[ci].big)
			ROW("# msm 2^%-2d %-8s   device %8.1f ms   host %8.1f ms (incl. copies)\n",
			    n == (1 << 16) ? 16 : 20, kinds[cases[ci].kind], t2 - t1, t1 - t0);
	}
	free(p);
	free(b);
	free(k);
}

static void to_scalars(cz_scalar *s, const cz_fr *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cz_fr_from_mont(s[i].l, &w[i]);
}

/* One partition through the backend (B2 on host threads meanwhile), then
 * finalize and verify; the MSM results also equal the CPU device stage's. */
static void groth16_test(const struct cz_backend *be, struct cz_device *dev, unsigned L)
{
	struct cz_cs cs;
	struct cz_groth16_key key;
	cz_fr *w;
	char err[256];

	if (!ct_ok(cz_builtin_build("merkle", L, 42, &cs, &w, err) == 0, "2^%u: build merkle: %s", L, err))
		return;
	double t0 = cz_now_ms();
	if (!ct_ok(cz_groth16_devsetup(&cs, 7, &key, pool) == 0, "2^%u: devsetup", L)) {
		cz_cs_free(&cs);
		free(w);
		return;
	}
	double tsetup = cz_now_ms() - t0;
	size_t n = (size_t)1 << L;
	cz_scalar *ws = malloc(cs.nvars * sizeof(*ws)), *h = malloc(n * sizeof(*h));
	cz_fr *abc = malloc(3 * n * sizeof(cz_fr)), *abc2 = malloc(3 * n * sizeof(cz_fr));
	struct cz_ntt_domain *dom = cz_ntt_domain_create(L);
	struct cz_groth16_msms ref;
	to_scalars(ws, w, cs.nvars);
	cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
	memcpy(abc2, abc, 3 * n * sizeof(cz_fr));

	t0 = cz_now_ms();
	cz_groth16_device(&key, dom, ws, abc2, abc2 + n, abc2 + 2 * n, h, &ref, pool, NULL);
	double tcpu = cz_now_ms() - t0;

	struct cz_dev_work wk = { .key = &key, .dom = dom, .w = ws, .a = abc, .b = abc + n,
				  .c = abc + 2 * n, .h = h };
	int rc = 0;
	double tdev[2];
	for (int rep = 0; rep < 2; rep++) {  /* the second run finds the key resident */
		cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
		t0 = cz_now_ms();
		rc |= be->prove(dev, &wk);
		tdev[rep] = cz_now_ms() - t0;
	}
	ct_ok(!rc, "2^%u: backend cuda prove (rc %d)", L, rc);
	ct_ok(cz_g1_jac_eq(&wk.out.a, &ref.a) && cz_g1_jac_eq(&wk.out.b1, &ref.b1) &&
	      cz_g1_jac_eq(&wk.out.c, &ref.c) && cz_g1_jac_eq(&wk.out.h, &ref.h) &&
	      cz_g2_jac_eq(&wk.out.b2, &ref.b2),
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
	ROW("# groth16 2^%-2u         device %8.1f ms (first %.1f, key upload incl.)   host %8.1f ms   [setup %.0f ms]\n",
	    L, tdev[1], tdev[0], tcpu, tsetup);

	cz_ntt_domain_destroy(dom);
	free(ws);
	free(h);
	free(abc);
	free(abc2);
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&key);
}

int main(void)
{
	const struct cz_backend *be = cz_backend_find("cuda");
	char why[256] = "";
	const char *env = getenv("CZ_GPU_CHECK");

	full = env && !strcmp(env, "full");
	int total = full ? 5 + 9 + 14 + 3 * 6 + 1 + 1 : 5 + 6 + 10 + 6 + 1 + 1;
	ct_plan(total);
	if (!ct_ok(be != NULL, "backend \"cuda\" is registered"))
		return ct_exit();
	int n = cz_cuda_count(why, sizeof(why));
	ct_ok(n >= 0 && be->count() == n, "device count %d agrees with the backend's (%s)", n,
	      n ? "devices present" : why);
	if (n <= 0) {
		/* In `make check` (no GPU here) a missing device is a skip; in the
		 * full check (tools/gpu-check.sh, on a machine lent with a GPU) it is
		 * the failure to report, with the CUDA error's name: a driver too old
		 * for the statically linked runtime must not read as "0 failed". */
		int first = 2;
		ct_diag("%s", why);
		if (full) {
			ct_ok(0, "a CUDA device answers: %s", why);
			first = 3;
		}
		for (int i = first; i < total; i++)
			ct_skip("no CUDA device", "device test %d", i + 1);
		return ct_exit();
	}
	pool = cz_pool_create(0);
	struct cz_backend_opts o = { .threads = 0 };
	struct cz_device *dev = be->open(0, &o, why, sizeof(why));
	if (!ct_ok(dev != NULL, "open device 0: %s", dev ? be->describe(dev) : why))
		return ct_exit();
	struct cz_cuda_dev *cu = cz_cuda_open(0, why, sizeof(why));
	if (!ct_ok(cu != NULL, "cz_cuda_open(0): %s", cu ? "ok" : why))
		return ct_exit();
	arith_test(cu);
	ntt_tests(cu);
	msm_tests(cu);
	groth16_test(be, dev, 10);
	if (full) {
		groth16_test(be, dev, 16);
		groth16_test(be, dev, 20);
	}
	ct_ok(!cz_cuda_dead(cu), "device still in service");
	cz_cuda_close(cu);
	be->close(dev);
	cz_pool_destroy(pool);
	if (tlen) {
		printf("# %-60s\n", "device vs host (host: zk/ on all cores)");
		fputs(table, stdout);
	}
	return ct_exit();
}
#endif

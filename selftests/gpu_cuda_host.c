/* SPDX-License-Identifier: MIT */
/* Description: the cuda backend's host side without a GPU (gpu/cuda_host.h), both curves: B2 on the device's persistent threads equals the naive sum for BLS12-381 and BN254 keys; the prove path sends a BLS12-381 work to the device's BLS12-381 stage and a bn128 work to its BN254 stage (a stand-in device computing with zk/), the results equal zk/'s device stage and the proofs verify (BN254: under snarkjs's vk.json); a dead device, a device error, a work of no curve; after warm-up the B2 threads (cz-b2.N, cz-poolN.K) and the proving thread make no heap or mapping call per partition of either curve (selftests/shim/heapcount.so); with a GPU, the real backend proves a bn128 key. */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "selftests/cz_test.h"

#ifndef CZ_HAVE_CUDA
int main(void)
{
	ct_plan(1);
	ct_skip("built without CUDA (nvcc not found)", "the cuda backend's host side");
	return ct_exit();
}
#else
#include "gpu/cuda_host.h"
#include "lib/pool.h"
#include "synth/synth.h"
#include "zk/msm/bn254_msm.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/groth16/builtin.h"
#include "zk/groth16/cs.h"
#include "zk/curve/g2.h"
#include "zk/io/groth16_io.h"
#include "zk/msm/msm.h"
#include "zk/ntt/ntt.h"
#include "zk/io/snarkjs_json.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WARM 3          /* B2s that grow the pool's scratch */
#define MEASURED 20     /* "partitions" counted */

static struct cz_groth16_key key;
static cz_fr *wf;
static cz_scalar *ws;
static const char *bn_dir = "selftests/data/bn128";
static struct cz_bn254_groth16_key bkey;        /* mulchain.zkey */
static cz_scalar *bws;                          /* mulchain_1.wtns */

static int fixtures(void)
{
	struct cz_cs cs;
	char err[256], p[256];
	if (cz_builtin_build("merkle", 8, 5, &cs, &wf, err) || cz_groth16_devsetup(&cs, 11, &key, NULL))
		return -1;
	cz_cs_free(&cs);
	ws = calloc(key.nvars, sizeof(*ws));
	if (!ws)
		return -1;
	for (uint32_t i = 0; i < key.nvars; i++)
		cz_fr_from_mont(ws[i].l, &wf[i]);
	snprintf(p, sizeof(p), "%s/mulchain.zkey", bn_dir);
	if (cz_bn254_groth16_key_load(&bkey, p, NULL, err, sizeof(err)))
		return -1;
	bws = calloc(bkey.nvars, sizeof(*bws));
	snprintf(p, sizeof(p), "%s/mulchain_1.wtns", bn_dir);
	if (!bws || cz_bn254_wtns_read_path(p, bkey.nvars, bws, err, sizeof(err)))
		return -1;
	return 0;
}

/* The oracles: sum w_i * B2_i by the curve's scalar multiplication. */
static void naive(cz_g2_jac *r)
{
	cz_g2_jac p, t;
	cz_g2_jac_set_inf(r);
	for (uint32_t i = 0; i < key.nvars; i++) {
		cz_g2_jac_from_affine(&p, &key.b2[i]);
		cz_g2_mul(&t, &p, &wf[i]);
		cz_g2_jac_add(r, r, &t);
	}
}

static void bn_naive(cz_bn254_g2_jac *r, const struct cz_bn254_groth16_key *k, const cz_scalar *w)
{
	cz_bn254_g2_jac p, t;
	cz_bn254_fr f;
	cz_bn254_g2_jac_set_inf(r);
	for (uint32_t i = 0; i < k->nvars; i++) {
		cz_bn254_fr_to_mont(&f, w[i].l);
		cz_bn254_g2_jac_from_affine(&p, &k->b2[i]);
		cz_bn254_g2_mul(&t, &p, &f);
		cz_bn254_g2_jac_add(r, r, &t);
	}
}

static struct cz_dev_work bls_work(void)
{
	return (struct cz_dev_work){ .curve = CZ_CURVE_BLS12_381, .key = &key, .w = ws };
}

static struct cz_dev_work bn_work(void)
{
	return (struct cz_dev_work){ .curve = CZ_CURVE_BN254, .bn_key = &bkey, .w = bws };
}

/* ---- a stand-in device: the stage's G1 half with zk/, from the inputs only ---- */

struct fake {
	int dead, fail;                 /* what dead() and the stages answer */
	int calls_bls, calls_bn;
	struct cz_cuda_g16 in_bls;      /* the last inputs each stage got */
	struct cz_cuda_bn254_g16 in_bn;
};

static int fake_dead(void *dev)
{
	return ((struct fake *)dev)->dead;
}

/* The device stage as gpu/cuda_dev.cu computes it, from in alone (a, b, c
 * copied: the device's copies leave the host's as they were). */
#define FAKE_G16(NAME, IN, OUT, CNT, LAST, FR, NT, MSM)                                         \
	static int NAME(void *dev, const IN *in, OUT *out)                                      \
	{                                                                                       \
		struct fake *f = dev;                                                           \
		size_t n = (size_t)1 << in->log2n, npc = in->npc;                               \
		f->CNT++;                                                                       \
		f->LAST = *in;                                                                  \
		if (f->fail)                                                                    \
			return f->fail;                                                         \
		FR *t = malloc(3 * n * sizeof(*t));                                             \
		cz_scalar *h = malloc(n * sizeof(*h));                                          \
		struct NT##_domain *d = NT##_domain_create(in->log2n);                          \
		if (!t || !h || !d) {                                                           \
			free(t), free(h), NT##_domain_destroy(d);                               \
			return -ENOMEM;                                                         \
		}                                                                               \
		memcpy(t, in->pa, n * sizeof(*t));                                              \
		memcpy(t + n, in->pb, n * sizeof(*t));                                          \
		memcpy(t + 2 * n, in->pc, n * sizeof(*t));                                      \
		for (int i = 0; i < 3; i++)                                                     \
			NT##_to_odd_coset(d, t + i * n, NULL);                                  \
		for (size_t i = 0; i < n; i++) {                                                \
			FR x;                                                                   \
			FR##_mul(&x, &t[i], &t[n + i]);                                         \
			FR##_sub(&x, &x, &t[2 * n + i]);                                        \
			FR##_from_mont(h[i].l, &x);                                             \
		}                                                                               \
		int rc = MSM##_g1(&out->a, in->a, in->w, in->nvars, NULL);                      \
		rc |= MSM##_g1(&out->b1, in->b1, in->w, in->nvars, NULL);                       \
		rc |= MSM##_g1(&out->c, in->c, in->w + npc, in->nvars - npc, NULL);             \
		rc |= MSM##_g1(&out->h, in->h, h, n, NULL);                                     \
		NT##_domain_destroy(d);                                                         \
		free(t);                                                                        \
		free(h);                                                                        \
		return rc ? -ENOMEM : 0;                                                        \
	}
FAKE_G16(fake_g16, struct cz_cuda_g16, struct cz_cuda_g16_out, calls_bls, in_bls, cz_fr, cz_ntt,
	 cz_msm)
FAKE_G16(fake_bn_g16, struct cz_cuda_bn254_g16, struct cz_cuda_bn254_g16_out, calls_bn, in_bn,
	 cz_bn254_fr, cz_bn254_ntt, cz_bn254_msm)

static const struct cz_cuda_dev_ops fake_ops = {
	.dead = fake_dead, .groth16 = fake_g16, .bn254_groth16 = fake_bn_g16,
};

#define MSMS_EQ(G1, G2, x, y)                                                              \
	(G1##_jac_eq(&(x).a, &(y).a) && G1##_jac_eq(&(x).b1, &(y).b1) &&                     \
	 G1##_jac_eq(&(x).c, &(y).c) && G1##_jac_eq(&(x).h, &(y).h) && G2##_jac_eq(&(x).b2, &(y).b2))

/* The prove path on the stand-in: which stage each curve's work reaches,
 * with what, and what comes back: 3 + 2·2 + 3 points. */
static void dispatch_tests(struct cz_cuda_host *h)
{
	struct cz_pool *pool = cz_pool_create(2);
	char err[CZ_ERRLEN] = "";

	/* BLS12-381: the merkle 2^8 key */
	{
		size_t n = (size_t)1 << key.log2n;
		struct fake f = { 0 };
		cz_fr *abc = malloc(3 * n * sizeof(*abc)), *abc2 = malloc(3 * n * sizeof(*abc2));
		cz_scalar *hb = malloc(n * sizeof(*hb));
		struct cz_ntt_domain *dom = cz_ntt_domain_create(key.log2n);
		struct cz_groth16_msms ref;
		cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
		memcpy(abc2, abc, 3 * n * sizeof(*abc));
		cz_groth16_device(&key, dom, ws, abc2, abc2 + n, abc2 + 2 * n, hb, &ref, pool, NULL);
		struct cz_dev_work w = { .curve = CZ_CURVE_BLS12_381, .key = &key, .dom = dom, .w = ws,
					 .a = abc, .b = abc + n, .c = abc + 2 * n, .h = hb };
		int rc = cz_cuda_host_prove(h, &fake_ops, &f, &w);
		const struct cz_cuda_g16 *in = &f.in_bls;
		ct_ok(!rc && f.calls_bls == 1 && f.calls_bn == 0 && in->key_id == &key &&
		      in->nvars == key.nvars && in->npc == key.npub + 1 && in->log2n == key.log2n &&
		      in->a == key.a && in->b1 == key.b1 && in->c == key.c && in->h == key.h &&
		      in->w == ws && in->pa == abc && in->pb == abc + n && in->pc == abc + 2 * n,
		      "BLS12-381 work: the device's BLS12-381 stage, once, with the key's points, scalars and a, b, c (rc %d, calls %d/%d)",
		      rc, f.calls_bls, f.calls_bn);
		ct_ok(!rc && MSMS_EQ(cz_g1, cz_g2, w.out, ref),
		      "BLS12-381 work: A, B1, C, H from the device and B2 from the host threads = zk/ cz_groth16_device");
		cz_fr *pub = calloc(key.npub + 1, sizeof(*pub));
		union cz_dev_proof pr;
		rc = cz_backend_groth16_finish(&w, pub, &pr, err, sizeof(err));
		ct_ok(rc == 0, "BLS12-381 work: the backend's finish verifies the proof against the key (rc %d %s)",
		      rc, err);
		free(pub);
		cz_ntt_domain_destroy(dom);
		free(abc), free(abc2), free(hb);
	}

	/* BN254: snarkjs's bn128 keys, proofs checked under snarkjs's vk.json */
	static const char *circ[] = { "mulchain", "rangehash" };
	for (int ci = 0; ci < 2; ci++) {
		struct cz_bn254_groth16_key k;
		struct cz_bn254_groth16_vk vk = { 0 };
		char p[256], q[256];
		cz_bn254_fr *spub = NULL;
		size_t nspub = 0;
		snprintf(p, sizeof(p), "%s/%s.zkey", bn_dir, circ[ci]);
		if (cz_bn254_groth16_key_load(&k, p, pool, err, sizeof(err))) {
			ct_ok(0, "%s: bn128 key load: %s", circ[ci], err);
			ct_ok(0, "%s: (no key)", circ[ci]);
			continue;
		}
		size_t n = (size_t)1 << k.log2n;
		cz_scalar *w = calloc(k.nvars, sizeof(*w)), *hb = malloc(n * sizeof(*hb));
		cz_bn254_fr *abc = malloc(3 * n * sizeof(*abc)), *abc2 = malloc(3 * n * sizeof(*abc2));
		struct cz_bn254_ntt_domain *dom = cz_bn254_ntt_domain_create(k.log2n);
		struct cz_bn254_groth16_msms ref;
		struct fake f = { 0 };
		snprintf(p, sizeof(p), "%s/%s_1.wtns", bn_dir, circ[ci]);
		int rc = cz_bn254_wtns_read_path(p, k.nvars, w, err, sizeof(err));
		if (!rc) {
			cz_bn254_synth_abc(&k, w, abc, abc + n, abc + 2 * n, pool);
			memcpy(abc2, abc, 3 * n * sizeof(*abc));
			rc = cz_bn254_groth16_device(&k, dom, w, abc2, abc2 + n, abc2 + 2 * n, hb, &ref,
						     pool, NULL);
		}
		struct cz_dev_work wk = { .curve = CZ_CURVE_BN254, .bn_key = &k, .bn_dom = dom, .w = w,
					  .bn_a = abc, .bn_b = abc + n, .bn_c = abc + 2 * n, .h = hb };
		if (!rc)
			rc = cz_cuda_host_prove(h, &fake_ops, &f, &wk);
		const struct cz_cuda_bn254_g16 *in = &f.in_bn;
		ct_ok(!rc && f.calls_bn == 1 && f.calls_bls == 0 && in->key_id == &k &&
		      in->nvars == k.nvars && in->npc == k.npub + 1 && in->log2n == k.log2n &&
		      in->a == k.a && in->b1 == k.b1 && in->c == k.c && in->h == k.h && in->w == w &&
		      in->pa == abc && in->pb == abc + n && in->pc == abc + 2 * n &&
		      MSMS_EQ(cz_bn254_g1, cz_bn254_g2, wk.bn_out, ref),
		      "%s (bn128, 2^%u): the device's BN254 stage, once, with the key's points, scalars and a, b, c; A, B1, C, H and the host's B2 = zk/ cz_bn254_groth16_device (rc %d, calls %d/%d)",
		      circ[ci], k.log2n, rc, f.calls_bls, f.calls_bn);
		cz_bn254_fr *pub = calloc(k.npub + 1, sizeof(*pub));
		union cz_dev_proof pr;
		int frc = rc ? rc : cz_backend_groth16_finish(&wk, pub, &pr, err, sizeof(err));
		snprintf(p, sizeof(p), "%s/%s_vk.json", bn_dir, circ[ci]);
		snprintf(q, sizeof(q), "%s/%s_public_1.json", bn_dir, circ[ci]);
		int ok = !frc && !cz_bn254_groth16_vk_json_read(p, &vk, err) &&
			 !cz_bn254_public_json_read(q, &spub, &nspub, err) && nspub == k.npub &&
			 !memcmp(spub, pub, nspub * sizeof(*spub)) && cz_bn254_groth16_verify(&vk, spub, &pr.bn);
		ct_ok(ok, "%s: the backend's finish, then the proof verifies under snarkjs's vk.json with snarkjs's public.json (rc %d %s)",
		      circ[ci], frc, err);
		free(pub), free(spub);
		cz_bn254_groth16_vk_free(&vk);
		cz_bn254_ntt_domain_destroy(dom);
		free(w), free(hb), free(abc), free(abc2);
		cz_bn254_groth16_key_free(&k);
	}

	/* A dead device: -ENODEV before anything starts (B2 not posted: its
	 * result is left as it was). */
	{
		struct fake f = { .dead = 1 };
		struct cz_dev_work w = bn_work();
		memset(&w.bn_out, 0x5a, sizeof(w.bn_out));
		unsigned char was[sizeof(w.bn_out)];
		memcpy(was, &w.bn_out, sizeof(was));
		int rc = cz_cuda_host_prove(h, &fake_ops, &f, &w);
		ct_ok(rc == -ENODEV && f.calls_bls + f.calls_bn == 0 && !memcmp(was, &w.bn_out, sizeof(was)),
		      "a device out of service: -ENODEV, no stage called, no B2 started (rc %d)", rc);
	}
	/* A device error: returned, B2 still joined (it wrote its result), and
	 * the host side takes the next partition. */
	{
		struct fake f = { .fail = -EIO };
		struct cz_dev_work w = bn_work();
		cz_bn254_g2_jac want;
		bn_naive(&want, &bkey, bws);
		int rc = cz_cuda_host_prove(h, &fake_ops, &f, &w);
		int b2ok = cz_bn254_g2_jac_eq(&w.bn_out.b2, &want);
		f.fail = 0;
		struct cz_dev_work w2 = bls_work();
		cz_g2_jac want2;
		naive(&want2);
		size_t n = (size_t)1 << key.log2n;
		cz_fr *abc = calloc(3 * n, sizeof(*abc));
		cz_scalar *hb = calloc(n, sizeof(*hb));
		cz_synth_abc(&key, ws, abc, abc + n, abc + 2 * n, pool);
		w2.a = abc, w2.b = abc + n, w2.c = abc + 2 * n, w2.h = hb;
		int rc2 = cz_cuda_host_prove(h, &fake_ops, &f, &w2);
		ct_ok(rc == -EIO && b2ok && rc2 == 0 && cz_g2_jac_eq(&w2.out.b2, &want2) &&
		      f.calls_bn == 1 && f.calls_bls == 1,
		      "a device error (-EIO) is returned with B2 joined (BN254 B2 = the naive sum), and the next prove (BLS12-381) runs (rc %d, then %d)",
		      rc, rc2);
		free(abc), free(hb);
	}
	/* A work of no curve, and one without a key: refused, nothing run. */
	{
		struct fake f = { 0 };
		struct cz_dev_work w = bn_work();
		w.curve = (enum cz_curve)7;
		int rc = cz_cuda_host_prove(h, &fake_ops, &f, &w);
		struct cz_dev_work w2 = bn_work();
		w2.bn_key = NULL;
		int rc2 = cz_cuda_host_prove(h, &fake_ops, &f, &w2);
		ct_ok(rc == -EINVAL && rc2 == -EINVAL && f.calls_bls + f.calls_bn == 0,
		      "a work of curve 7 and a work without a key: -EINVAL, no stage called (rc %d, %d)", rc, rc2);
	}
	cz_pool_destroy(pool);
}

/* The backend row, and with a GPU the real thing: a bn128 key proved
 * through it (2 points). */
static void backend_tests(void)
{
	const struct cz_backend *be = cz_backend_find("cuda");
	ct_ok(be && be->bn254 && be->prove && be->finish == cz_backend_groth16_finish && be->unload_key,
	      "backend cuda is registered and takes bn128 keys (.bn254), with finish and unload_key");
	int n = be ? be->count() : 0;
	if (n <= 0) {
		ct_skip("no CUDA device", "backend cuda proves mulchain.zkey (bn128) on device 0");
		return;
	}
	char err[CZ_ERRLEN] = "";
	struct cz_backend_opts o = { .threads = 2 };
	struct cz_device *dev = be->open(0, &o, err, sizeof(err));
	size_t sz = (size_t)1 << bkey.log2n;
	cz_bn254_fr *abc = calloc(3 * sz, sizeof(*abc));
	cz_scalar *hb = calloc(sz, sizeof(*hb));
	struct cz_bn254_ntt_domain *dom = cz_bn254_ntt_domain_create(bkey.log2n);
	int rc = dev ? 0 : -ENODEV;
	union cz_dev_proof pr;
	cz_bn254_fr *pub = calloc(bkey.npub + 1, sizeof(*pub));
	for (int rep = 0; !rc && rep < 2; rep++) {  /* the second after unload_key: uploaded again */
		cz_bn254_synth_abc(&bkey, bws, abc, abc + sz, abc + 2 * sz, NULL);
		struct cz_dev_work w = { .curve = CZ_CURVE_BN254, .bn_key = &bkey, .bn_dom = dom,
					 .w = bws, .bn_a = abc, .bn_b = abc + sz, .bn_c = abc + 2 * sz,
					 .h = hb };
		rc = be->prove(dev, &w);
		if (!rc)
			rc = cz_backend_groth16_finish(&w, pub, &pr, err, sizeof(err));
		be->unload_key(dev, &bkey);
	}
	ct_ok(dev && rc == 0, "backend cuda proves mulchain.zkey (bn128) on device 0 and finish verifies it, twice, unload_key between (rc %d %s)",
	      rc, err);
	if (dev)
		be->close(dev);
	free(abc), free(hb), free(pub);
	cz_bn254_ntt_domain_destroy(dom);
}

/* ---- the shim's control files (as selftests/e2e_heap.c) ---- */

static int wait_gone(const char *p)
{
	for (int i = 0; i < 2000; i++) {
		if (access(p, F_OK))
			return 0;
		usleep(5000);
	}
	return -1;
}

static int ctl_file(const char *base, const char *suffix)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	return wait_gone(p);
}

/* The child, under the shim: the host side proves like a device would,
 * the proving thread named as a consumer is. */
static int child(const char *base)
{
	char err[256];
	cz_g2_jac want;
	cz_bn254_g2_jac bwant;

	pthread_setname_np(pthread_self(), "cz-cons7.0");
	if (fixtures())
		return 10;
	naive(&want);
	bn_naive(&bwant, &bkey, bws);
	struct cz_cuda_host *h = cz_cuda_host_open(7, 2, err, sizeof(err));
	if (!h)
		return 11;
	int bad = 0;
	struct cz_dev_work w = bls_work(), bw = bn_work();
	for (int i = 0; i < 2 * WARM; i++) {  /* both curves grow the pool's scratch */
		struct cz_dev_work *x = i & 1 ? &bw : &w;
		cz_cuda_host_b2_post(h, x);
		bad |= cz_cuda_host_b2_wait(h);
	}
	if (ctl_file(base, ".arm"))
		return 12;
	for (int i = 0; i < MEASURED; i++) {
		struct cz_dev_work *x = i & 1 ? &bw : &w;
		cz_cuda_host_b2_post(h, x);
		bad |= cz_cuda_host_b2_wait(h);
	}
	if (ctl_file(base, ".dump"))
		return 13;
	bad |= !cz_g2_jac_eq(&w.out.b2, &want) || !cz_bn254_g2_jac_eq(&bw.bn_out.b2, &bwant);
	cz_cuda_host_close(h);
	return bad ? 14 : 0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], shim[PATH_MAX + 32], dir[] = "/tmp/cuzk-cudahost-XXXXXX", base[PATH_MAX];

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	ct_plan(2 + 10 + 2 + 2);
	if (!realpath(argv[0], self) || !mkdtemp(dir)) {
		ct_ok(0, "set up");
		for (int i = 1; i < 2 + 10 + 2 + 2; i++)
			ct_ok(0, "(not run)");
		return ct_exit();
	}
	char *selfdir = strdup(self);
	snprintf(shim, sizeof(shim), "%s/heapcount.so", dirname(selfdir));
	free(selfdir);
	snprintf(base, sizeof(base), "%s/count", dir);

	/* In this process, no shim: the threads start, B2 is right for both
	 * curves, the prove path dispatches by curve, close joins. */
	char err[256];
	cz_g2_jac want;
	cz_bn254_g2_jac bwant;
	int ok = !fixtures();
	if (ok)
		naive(&want), bn_naive(&bwant, &bkey, bws);
	struct cz_cuda_host *h = ok ? cz_cuda_host_open(3, 2, err, sizeof(err)) : NULL;
	int right = h != NULL, bright = h != NULL;
	for (int i = 0; h && i < 3; i++) {
		struct cz_dev_work w = bls_work(), bw = bn_work();
		cz_cuda_host_b2_post(h, &w);
		right &= !cz_cuda_host_b2_wait(h) && cz_g2_jac_eq(&w.out.b2, &want);
		cz_cuda_host_b2_post(h, &bw);
		bright &= !cz_cuda_host_b2_wait(h) && cz_bn254_g2_jac_eq(&bw.bn_out.b2, &bwant);
	}
	ct_ok(right, "B2 on the host side's persistent threads (%u of them) equals the naive sum of %u terms, 3 times",
	      h ? cz_cuda_host_threads(h) : 0, key.nvars);
	ct_ok(bright, "BN254 B2 (mulchain.zkey, bn128) on the same threads equals the naive sum of %u terms, 3 times, between BLS12-381 ones",
	      bkey.nvars);
	if (h) {
		dispatch_tests(h);
	} else {
		for (int i = 0; i < 10; i++)
			ct_ok(0, "(no host side: fixtures %d)", ok);
	}
	cz_cuda_host_close(h);
	backend_tests();

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* a sanitizer's runtime must be the first library: no shim (as e2e_heap) */
	ct_skip("sanitizer build: the heap counter cannot be preloaded", "heap calls per B2");
	ct_skip("sanitizer build: the heap counter cannot be preloaded", "the counted child ran");
	return ct_exit();
#endif
	if (access(shim, R_OK)) {
		ct_skip("no heapcount.so next to this test (make builds it)", "heap calls per B2");
		ct_skip("no heapcount.so next to this test", "the counted child ran");
		return ct_exit();
	}
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", shim, 1);
		setenv("CZ_HEAPCOUNT", base, 1);
		execl(self, self, "--child", base, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	ct_ok(rc == 0, "under the shim: %d warm-up and %d measured B2s, BLS12-381 and BN254 by turns, each equal to the naive sum (child exit %d)",
	      2 * WARM, MEASURED, rc);
	FILE *f = fopen(base, "r");
	char name[32], line[512];
	unsigned long long calls = 0, n[9];
	int threads = 0, tid;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %d %llu %llu %llu %llu %llu %llu %llu %llu %llu", name, &tid, &n[0], &n[1],
			   &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8]) != 11)
			continue;
		if (strncmp(name, "cz-b2.", 6) && strncmp(name, "cz-pool", 7) && strncmp(name, "cz-cons", 7))
			continue;
		threads++;
		for (int i = 0; i < 9; i++)
			calls += n[i];
		ct_diag("%s: malloc %llu calloc %llu realloc %llu free %llu memalign %llu mmap %llu munmap %llu", name,
			n[0], n[1], n[2], n[3], n[4], n[6], n[7]);
	}
	if (f)
		fclose(f);
	ct_ok(rc == 0 && f && calls == 0,
	      "after warm-up the proving thread, cz-b2.7 and cz-pool7.* made %llu heap or mapping calls over %d B2s of both curves "
	      "(%d threads reported any)", calls, MEASURED, threads);
	if (!ct_fail) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ct_diag("could not remove %s", dir);
	}
	cz_groth16_key_free(&key);
	cz_bn254_groth16_key_free(&bkey);
	free(wf);
	free(ws);
	free(bws);
	return ct_exit();
}
#endif

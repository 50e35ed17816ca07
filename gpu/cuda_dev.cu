/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_dev.cu — CUDA devices for the prover: discovery, per-device
 * state, resident proving keys, error policy, and the Groth16 device stage.
 *
 * What and why.  The daemon's consumers hand one synthesized partition at a
 * time to a device (gpu/backend.h); this file turns that into H2D copies,
 * three odd-coset NTTs and h = a·b - c (gpu/ntt.cu), and the four G1 MSMs
 * (gpu/msm.cu), all on one stream, with the results read back as four
 * points.  The G2 MSM runs on host cores meanwhile (gpu/cuda.c).
 *
 * Per device: one stream, one lock (every entry point holds it: a device
 * runs one partition at a time, which is also the engine's contract), the
 * NTT tables per domain size, and up to CZ_CUDA_KEYS resident proving keys.
 *
 * Memory residency.  A key's G1 points (A, B1, C: nvars each, H: n; 96
 * bytes a point, ~50 GB for a 2^27 circuit) are copied once per (device,
 * key) and stay until evicted (LRU, when a new key does not fit) or
 * forgotten.  The cache is keyed by the key's address; since an address can
 * be reused after free, an entry also records the sizes and four sample
 * points and is reloaded when they differ.  Scratch (a, b, c, the MSM's
 * pairs and buckets) comes from the stream-ordered pool (cudaMallocAsync)
 * and is returned in stream order at the end of each call; the pool keeps
 * the pages, so steady state makes no driver allocations.
 *
 * Failure modes.  Every CUDA call is checked.  Out of memory returns
 * -ENOMEM (the partition fails, the device stays in service).  A sticky
 * error (illegal address, ECC, launch failure, ...) poisons the context: the
 * device is marked out of service with one line on stderr and every later
 * call returns -ENODEV, so the daemon fails or requeues the partition.  A
 * wrong result without an error is caught by the finalizer, which verifies
 * every proof; the device never hands out a proof itself.
 */
#include "gpu/cuda_pvt.cuh"
#include "lib/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorECCUncorrectable:
	case cudaErrorAssert:
	case cudaErrorLaunchTimeout:
	case cudaErrorDevicesUnavailable:
	case cudaErrorNoDevice:
	case cudaErrorContextIsDestroyed:
	case cudaErrorUnknown:
		return 1;
	default:
		return 0;
	}
}

int cz_cuda_fail(struct cz_cuda_dev *d, cudaError_t err, const char *what, const char *file,
		 int line)
{
	(void)cudaGetLastError();  /* clear a non-sticky error for the next call */
	if (err == cudaErrorMemoryAllocation) {
		fprintf(stderr, "cuzk: cuda device %d: out of device memory (%s at %s:%d)\n", d->id,
			what, file, line);
		return -ENOMEM;
	}
	if (sticky(err)) {
		if (!d->dead)
			fprintf(stderr, "cuzk: cuda device %d (%s): %s: %s at %s:%d; device out of service\n",
				d->id, d->desc, cudaGetErrorName(err), cudaGetErrorString(err), file, line);
		d->dead = 1;
		(void)what;
		return -EIO;
	}
	fprintf(stderr, "cuzk: cuda device %d: %s: %s (%s at %s:%d)\n", d->id, cudaGetErrorName(err),
		cudaGetErrorString(err), what, file, line);
	return -EIO;
}

extern "C" int cz_cuda_count(char *why, size_t cap)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess) {
		snprintf(why, cap, "no CUDA device (%s: %s)", cudaGetErrorName(e), cudaGetErrorString(e));
		(void)cudaGetLastError();
		return 0;
	}
	if (n == 0)
		snprintf(why, cap, "no CUDA device");
	return n;
}

extern "C" struct cz_cuda_dev *cz_cuda_open(unsigned index, char *err, size_t cap)
{
	struct cz_cuda_dev *d = (struct cz_cuda_dev *)calloc(1, sizeof(*d));
	cudaDeviceProp p;
	cudaMemPool_t pool;
	char bus[32] = "?";
	cudaError_t e;

	if (!d) {
		snprintf(err, cap, "cuda device %u: out of memory", index);
		return NULL;
	}
	d->id = (int)index;
	pthread_mutex_init(&d->lock, NULL);
	e = cudaSetDevice(d->id);
	if (e == cudaSuccess)
		e = cudaGetDeviceProperties(&p, d->id);
	if (e == cudaSuccess)
		e = cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking);
	if (e == cudaSuccess)
		e = cudaDeviceGetDefaultMemPool(&pool, d->id);
	if (e == cudaSuccess) {
		/* keep freed scratch in the pool between partitions */
		uint64_t keep = UINT64_MAX;
		e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
	}
	if (e == cudaSuccess)
		/* ptxas: k_segment's call chain needs 1152 bytes of stack, over the
		 * 1 KiB default; 2 KiB a thread costs ~0.5 GiB on an H200 */
		e = cudaDeviceSetLimit(cudaLimitStackSize, 2048);
	if (e != cudaSuccess) {
		snprintf(err, cap, "cuda device %u: %s: %s", index, cudaGetErrorName(e),
			 cudaGetErrorString(e));
		pthread_mutex_destroy(&d->lock);
		free(d);
		return NULL;
	}
	cudaDeviceGetPCIBusId(bus, sizeof(bus), d->id);
	d->smem = p.sharedMemPerBlock;
	d->sms = p.multiProcessorCount;
	snprintf(d->desc, sizeof(d->desc), "%.200s (%.31s), %.1f GiB, %d SMs, sm_%d%d", p.name, bus,
		 p.totalGlobalMem / (1024.0 * 1024 * 1024), p.multiProcessorCount, p.major, p.minor);
	return d;
}

static void key_drop(struct cz_cuda_key *k)
{
	cudaFree(k->a);
	cudaFree(k->b1);
	cudaFree(k->c);
	cudaFree(k->h);
	memset(k, 0, sizeof(*k));
}

extern "C" void cz_cuda_close(struct cz_cuda_dev *d)
{
	if (!d)
		return;
	cudaSetDevice(d->id);
	cudaStreamSynchronize(d->s);
	for (int i = 0; i < CZ_CUDA_KEYS; i++)
		if (d->keys[i].id)
			key_drop(&d->keys[i]);
	for (int i = 0; i <= CZ_CUDA_MAX_LOG2; i++)
		cz_cuda_dom_free(d->dom[i]);
	cudaStreamDestroy(d->s);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

extern "C" const char *cz_cuda_describe(const struct cz_cuda_dev *d)
{
	return d->desc;
}

extern "C" int cz_cuda_dead(const struct cz_cuda_dev *d)
{
	return d->dead;
}

extern "C" void cz_cuda_forget_key(struct cz_cuda_dev *d, const void *key_id)
{
	pthread_mutex_lock(&d->lock);
	cudaSetDevice(d->id);
	cudaStreamSynchronize(d->s);
	for (int i = 0; i < CZ_CUDA_KEYS; i++)
		if (d->keys[i].id == key_id)
			key_drop(&d->keys[i]);
	pthread_mutex_unlock(&d->lock);
}

static void key_fingerprint(cz_g1_affine fp[4], const struct cz_cuda_g16 *in)
{
	static const cz_g1_affine inf = {};
	size_t n = (size_t)1 << in->log2n;
	fp[0] = in->nvars ? in->a[in->nvars - 1] : inf;
	fp[1] = in->nvars ? in->b1[0] : inf;
	fp[2] = in->nvars > in->npc ? in->c[0] : inf;
	fp[3] = in->h[n - 1];
}

static int upload(struct cz_cuda_dev *d, cz_g1a32 **dst, const cz_g1_affine *src, size_t n)
{
	CZ_CK(d, cudaMalloc((void **)dst, (n ? n : 1) * sizeof(cz_g1a32)));
	if (n)
		CZ_CK(d, cudaMemcpyAsync(*dst, src, n * sizeof(cz_g1a32), cudaMemcpyHostToDevice, d->s));
	return 0;
}

/* The occupied slot used least recently, or NULL if none is occupied. */
static struct cz_cuda_key *key_lru(struct cz_cuda_dev *d)
{
	struct cz_cuda_key *v = NULL;
	for (int i = 0; i < CZ_CUDA_KEYS; i++)
		if (d->keys[i].id && (!v || d->keys[i].used < v->used))
			v = &d->keys[i];
	return v;
}

/* The resident copy of in's key points, loading (and evicting) as needed. */
static int key_get(struct cz_cuda_dev *d, const struct cz_cuda_g16 *in, struct cz_cuda_key **out)
{
	cz_g1_affine fp[4];
	struct cz_cuda_key *k = NULL;
	size_t n = (size_t)1 << in->log2n;

	key_fingerprint(fp, in);
	for (int i = 0; i < CZ_CUDA_KEYS; i++) {
		struct cz_cuda_key *e = &d->keys[i];
		if (e->id != in->key_id)
			continue;
		if (e->nvars == in->nvars && e->npc == in->npc && e->log2n == in->log2n &&
		    !memcmp(e->fp, fp, sizeof(fp))) {
			e->used = ++d->stamp;
			*out = e;
			return 0;
		}
		key_drop(e);  /* same address, another key */
	}
	for (int i = 0; i < CZ_CUDA_KEYS && !k; i++)
		if (!d->keys[i].id)
			k = &d->keys[i];
	if (!k) {
		k = key_lru(d);
		CZ_CK(d, cudaStreamSynchronize(d->s));
		key_drop(k);
	}
	for (;;) {
		int rc = upload(d, &k->a, in->a, in->nvars);
		if (!rc)
			rc = upload(d, &k->b1, in->b1, in->nvars);
		if (!rc)
			rc = upload(d, &k->c, in->c, in->nvars - in->npc);
		if (!rc)
			rc = upload(d, &k->h, in->h, n);
		if (!rc)
			break;
		key_drop(k);
		struct cz_cuda_key *victim = key_lru(d);
		if (rc != -ENOMEM || !victim)
			return rc;
		/* evict the least recently used key, hand the pool's idle pages
		 * back, and try again */
		CZ_CK(d, cudaStreamSynchronize(d->s));
		key_drop(victim);
		cudaMemPool_t pool;
		if (cudaDeviceGetDefaultMemPool(&pool, d->id) == cudaSuccess)
			cudaMemPoolTrimTo(pool, 0);
	}
	k->id = in->key_id;
	k->nvars = in->nvars;
	k->npc = in->npc;
	k->log2n = in->log2n;
	memcpy(k->fp, fp, sizeof(fp));
	k->used = ++d->stamp;
	*out = k;
	return 0;
}

/*
 * The stage, on one stream.  Buffers X0..X3 of n elements: a, b, c arrive in
 * X0..X2; each polynomial's odd-coset transform is DIF (in place), gather
 * into the free buffer, DIF there, which frees the first buffer for the next
 * polynomial.  The results stay bit-reversed: h's kernel reads them so.
 */
static int g16(struct cz_cuda_dev *d, const struct cz_cuda_g16 *in, struct cz_cuda_g16_out *out)
{
	size_t n = (size_t)1 << in->log2n, nc = in->nvars - in->npc;
	struct cz_cuda_key *k = nullptr;
	struct cz_cuda_dom *m;
	cz_scratch sc(d);
	cz_fr32 *x[4], *w;
	cz_g1xyzz32 *res;
	double t0 = cz_now_ms(), t1;

	CZ_TRY(key_get(d, in, &k));
	CZ_TRY(cz_cuda_dom_get(d, in->log2n, &m));
	for (int i = 0; i < 4; i++)
		CZ_TRY(sc.get(&x[i], n));
	CZ_TRY(sc.get(&w, in->nvars));
	CZ_TRY(sc.get(&res, 4));
	const cz_fr *src[3] = { in->pa, in->pb, in->pc };
	for (int i = 0; i < 3; i++)
		CZ_CK(d, cudaMemcpyAsync(x[i], src[i], n * sizeof(cz_fr32), cudaMemcpyHostToDevice, d->s));
	if (in->nvars)
		CZ_CK(d, cudaMemcpyAsync(w, in->w, in->nvars * sizeof(cz_fr32), cudaMemcpyHostToDevice,
					 d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	t1 = cz_now_ms();
	out->ms_h2d = t1 - t0;

	cz_fr32 *ev[3];
	int freebuf = 3;
	for (int i = 0; i < 3; i++) {
		CZ_TRY(cz_cuda_dif(d, m, x[i]));
		CZ_TRY(cz_cuda_gather(d, m, x[freebuf], x[i], CZ_NTT32_BITREV | CZ_NTT32_NEGATE,
				      CZ_TAB_ODD));
		CZ_TRY(cz_cuda_dif(d, m, x[freebuf]));
		ev[i] = x[freebuf];
		freebuf = i;
	}
	cz_fr32 *h = x[freebuf];
	CZ_TRY(cz_cuda_abc(d, m, h, ev[0], ev[1], ev[2]));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	t0 = cz_now_ms();
	out->ms_ntt = t0 - t1;

	CZ_TRY(cz_cuda_msm_dev(d, &res[0], k->a, w, in->nvars, 0));
	CZ_TRY(cz_cuda_msm_dev(d, &res[1], k->b1, w, in->nvars, 0));
	CZ_TRY(cz_cuda_msm_dev(d, &res[2], k->c, w + in->npc, nc, 0));
	CZ_TRY(cz_cuda_msm_dev(d, &res[3], k->h, h, n, 0));
	cz_g1xyzz32 hr[4];
	CZ_CK(d, cudaMemcpyAsync(hr, res, sizeof(hr), cudaMemcpyDeviceToHost, d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	out->ms_msm = cz_now_ms() - t0;
	cz_g1_jac *dst[4] = { &out->a, &out->b1, &out->c, &out->h };
	for (int i = 0; i < 4; i++) {
		cz_g1_xyzz p;
		memcpy(&p, &hr[i], sizeof(p));
		cz_g1_xyzz_to_jac(dst[i], &p);
	}
	return 0;
}

extern "C" int cz_cuda_groth16(struct cz_cuda_dev *d, const struct cz_cuda_g16 *in,
			       struct cz_cuda_g16_out *out)
{
	int rc;

	if (in->log2n > CZ_CUDA_MAX_LOG2 || in->npc > in->nvars)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (d->dead) {
		rc = -ENODEV;
	} else {
		cudaSetDevice(d->id);
		rc = g16(d, in, out);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* Mirrors struct cz_cuda_arith_in/out in the device's types (same bytes). */
struct arith_in {
	cz_fr32 fa, fb;
	cz_fp32 pa, pb;
	cz_g1xyzz32 p;
	cz_g1a32 q;
};
struct arith_out {
	cz_fr32 fr[4];
	cz_fp32 fp[4];
	cz_g1xyzz32 sum;
	uint64_t ptx_bad;
};
static_assert(sizeof(struct arith_in) == sizeof(struct cz_cuda_arith_in), "arith_in layout");
static_assert(sizeof(struct arith_out) == sizeof(struct cz_cuda_arith_out), "arith_out layout");

static __global__ void __launch_bounds__(128) k_arith(struct arith_out *o, const struct arith_in *in, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const struct arith_in *x = &in[i];
	struct arith_out *y = &o[i];
	cz_fr32_add(&y->fr[0], &x->fa, &x->fb);
	cz_fr32_sub(&y->fr[1], &x->fa, &x->fb);
	cz_fr32_mul(&y->fr[2], &x->fa, &x->fb);
	cz_fr32_sqr(&y->fr[3], &x->fa);
	cz_fp32_add(&y->fp[0], &x->pa, &x->pb);
	cz_fp32_sub(&y->fp[1], &x->pa, &x->pb);
	cz_fp32_mul(&y->fp[2], &x->pa, &x->pb);
	cz_fp32_sqr(&y->fp[3], &x->pa);
	cz_g1xyzz32_add_affine(&y->sum, &x->p, &x->q);
#if defined(__CUDA_ARCH__)
	cz_fr32 u, v;
	cz_fp32 g, h;
	uint64_t bad = 0;
	cz_fr32_mul_port(&u, &x->fa, &x->fb);
	cz_fr32_mul_ptx(&v, &x->fa, &x->fb);
	bad |= (uint64_t)!cz_fr32_eq(&u, &v);
	cz_fr32_mul_port(&u, &x->fa, &x->fa);
	cz_fr32_mul_ptx(&v, &x->fa, &x->fa);
	bad |= (uint64_t)!cz_fr32_eq(&u, &v) << 1;
	cz_fp32_mul_port(&g, &x->pa, &x->pb);
	cz_fp32_mul_ptx(&h, &x->pa, &x->pb);
	bad |= (uint64_t)!cz_fp32_eq(&g, &h) << 2;
	cz_fp32_mul_port(&g, &x->pa, &x->pa);
	cz_fp32_mul_ptx(&h, &x->pa, &x->pa);
	bad |= (uint64_t)!cz_fp32_eq(&g, &h) << 3;
	y->ptx_bad = bad;
#endif
}

static int arith(struct cz_cuda_dev *d, const struct cz_cuda_arith_in *in,
		 struct cz_cuda_arith_out *out, size_t n)
{
	cz_scratch sc(d);
	struct arith_in *di;
	struct arith_out *dout;

	CZ_TRY(sc.get(&di, n));
	CZ_TRY(sc.get(&dout, n));
	if (!n)
		return 0;
	CZ_CK(d, cudaMemcpyAsync(di, in, n * sizeof(*di), cudaMemcpyHostToDevice, d->s));
	k_arith<<<cz_blocks(n, 128), 128, 0, d->s>>>(dout, di, n);
	CZ_CK_LAUNCH(d);
	CZ_CK(d, cudaMemcpyAsync(out, dout, n * sizeof(*dout), cudaMemcpyDeviceToHost, d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	return 0;
}

extern "C" int cz_cuda_arith(struct cz_cuda_dev *d, const struct cz_cuda_arith_in *in,
			     struct cz_cuda_arith_out *out, size_t n)
{
	int rc;

	pthread_mutex_lock(&d->lock);
	if (d->dead) {
		rc = -ENODEV;
	} else {
		cudaSetDevice(d->id);
		rc = arith(d, in, out, n);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_dev.cu — CUDA devices for the prover: discovery, per-device
 * state, resident proving keys, error policy, and the Groth16 device stage.
 *
 * What and why.  The daemon's consumers hand one synthesized partition at a
 * time to a device (gpu/backend.h); this file turns that into H2D copies,
 * three odd-coset NTTs and h = a·b - c (gpu/ntt.cu), and the four G1 MSMs
 * (gpu/msm.cu), all on one stream, with the results read back as four
 * points; one template over the curve, for BLS12-381 and BN254 keys.  The
 * G2 MSM runs on host cores meanwhile (gpu/cuda.c).
 *
 * Per device: one stream, one lock (every entry point holds it: a device
 * runs one partition at a time, which is also the engine's contract), the
 * NTT tables per domain size, and up to CZ_CUDA_KEYS resident proving keys.
 *
 * Opening checks what the device can run: a kernel's attributes are read
 * (cudaFuncGetAttributes), which fails with cudaErrorNoKernelImageForDevice
 * when the build's device code (gpu/gpu.mk: sm_90 and compute_90 PTX) does
 * not fit the device, so an older GPU is refused at open instead of failing
 * every partition while in service.
 *
 * Memory residency.  A key's G1 points (A, B1, C: nvars each, H: n; 96
 * bytes a point for BLS12-381, 64 for BN254, ~50 GB for a 2^27 BLS12-381
 * circuit) are copied once per (device, key) and stay until evicted (LRU,
 * when a new key does not fit) or forgotten.  The cache is keyed by the
 * key's address and curve; since an address can be reused after free (and
 * the engine's keys of both curves share one), an entry also records the
 * curve, the sizes and four sample points and is reloaded when they differ.  Scratch (a, b, c, the MSM's
 * pairs and buckets) comes from the stream-ordered pool (cudaMallocAsync)
 * and is returned in stream order at the end of each call; the pool keeps
 * the pages, so steady state makes no driver allocations.  Sizing counts
 * the pool's idle pages as free (cz_cuda_mem_free), and a key upload that
 * finds no memory trims the pool before it gives up.  Host memory the engine
 * keeps resident (partition arenas, keys) is pinned once with
 * cz_cuda_host_register, so its copies go by DMA at full link speed.
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
#include "gpu/msm_host.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

extern "C" int cz_cuda_pci_bus_id(unsigned index, char *buf, size_t cap)
{
	/* No context is made: the driver answers from its device table. */
	if (cudaDeviceGetPCIBusId(buf, (int)cap, (int)index) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	return 0;
}

/* Never launched: its attributes say whether the build's code runs here. */
static __global__ void k_probe(uint32_t *x)
{
	if (x)
		*x = 0;
}

extern "C" struct cz_cuda_dev *cz_cuda_open(unsigned index, char *err, size_t cap)
{
	struct cz_cuda_dev *d = (struct cz_cuda_dev *)calloc(1, sizeof(*d));
	cudaDeviceProp p = {};
	cudaFuncAttributes fa;
	char bus[32] = "?";
	const char *step = "cudaSetDevice";
	cudaError_t e;

	if (!d) {
		snprintf(err, cap, "cuda device %u: out of memory", index);
		return NULL;
	}
	d->id = (int)index;
	const char *sy = getenv("CZ_CUDA_SYNC");
	d->sync = sy && *sy && strcmp(sy, "0");
	pthread_mutex_init(&d->lock, NULL);
	e = cudaSetDevice(d->id);
	if (e == cudaSuccess) {
		step = "cudaGetDeviceProperties";
		e = cudaGetDeviceProperties(&p, d->id);
	}
	if (e == cudaSuccess) {
		step = "the build's device code (sm_90) on this device";
		e = cudaFuncGetAttributes(&fa, (const void *)k_probe);
	}
	if (e == cudaSuccess) {
		step = "cudaStreamCreate";
		e = cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking);
	}
	if (e == cudaSuccess) {
		step = "cudaEventCreate";
		e = cudaEventCreate(&d->ev[0]);
	}
	if (e == cudaSuccess)
		e = cudaEventCreate(&d->ev[1]);
	if (e == cudaSuccess) {
		step = "cudaDeviceGetDefaultMemPool";
		e = cudaDeviceGetDefaultMemPool(&d->pool, d->id);
	}
	if (e == cudaSuccess) {
		/* keep freed scratch in the pool between partitions */
		uint64_t keep = UINT64_MAX;
		e = cudaMemPoolSetAttribute(d->pool, cudaMemPoolAttrReleaseThreshold, &keep);
	}
	if (e == cudaSuccess) {
		step = "cudaMallocHost";
		e = cudaMallocHost(&d->hsums, CZ_CUDA_HSUMS * sizeof(cz_g1xyzz32));
	}
	if (e == cudaSuccess) {
		/* ptxas: k_segment's call chain needs 1152 bytes of stack, over the
		 * 1 KiB default; 2 KiB a thread costs ~0.5 GiB on an H200 */
		step = "cudaDeviceSetLimit";
		e = cudaDeviceSetLimit(cudaLimitStackSize, 2048);
	}
	if (e != cudaSuccess) {
		if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
			snprintf(err, cap,
				 "cuda device %u (%.100s, compute capability %d.%d): %s: %s; this build targets sm_90 (CUDA_ARCH in gpu/gpu.mk)",
				 index, p.name, p.major, p.minor, cudaGetErrorName(e),
				 cudaGetErrorString(e));
		else
			snprintf(err, cap, "cuda device %u: %s: %s: %s", index, step,
				 cudaGetErrorName(e), cudaGetErrorString(e));
		(void)cudaGetLastError();
		if (d->hsums)
			cudaFreeHost(d->hsums);
		if (d->ev[1])
			cudaEventDestroy(d->ev[1]);
		if (d->ev[0])
			cudaEventDestroy(d->ev[0]);
		if (d->s)
			cudaStreamDestroy(d->s);
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
	for (int c = 0; c < 2; c++)
		for (int i = 0; i <= CZ_CUDA_MAX_LOG2; i++)
			cz_cuda_dom_free(d->dom[c][i]);
	cudaEventDestroy(d->ev[0]);
	cudaEventDestroy(d->ev[1]);
	cudaFreeHost(d->hsums);
	cudaStreamDestroy(d->s);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

void cz_cuda_pool_trim(struct cz_cuda_dev *d)
{
	cudaStreamSynchronize(d->s);  /* frees in flight reach the pool first */
	cudaMemPoolTrimTo(d->pool, 0);
	(void)cudaGetLastError();
}

extern "C" int cz_cuda_host_register(void *base, size_t len)
{
	if (!base || !len)
		return 0;
	cudaError_t e = cudaHostRegister(base, len, cudaHostRegisterPortable);
	if (e != cudaSuccess && e != cudaErrorHostMemoryAlreadyRegistered) {
		/* a key's region is mapped read-only in device children */
		(void)cudaGetLastError();
		e = cudaHostRegister(base, len, cudaHostRegisterPortable | cudaHostRegisterReadOnly);
	}
	if (e == cudaErrorHostMemoryAlreadyRegistered)
		e = cudaSuccess;  /* once per range: a second call is a no-op */
	if (e != cudaSuccess) {
		fprintf(stderr, "cuzk: cuda: pinning %zu MiB at %p: %s: %s; copies from it stay pageable\n",
			len >> 20, base, cudaGetErrorName(e), cudaGetErrorString(e));
		(void)cudaGetLastError();
		return -EIO;
	}
	return 0;
}

extern "C" void cz_cuda_host_unregister(void *base)
{
	if (base && cudaHostUnregister(base) != cudaSuccess)
		(void)cudaGetLastError();  /* never registered: nothing to undo */
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

/* A curve's Groth16 device stage under one set of names, for key_get and
 * g16 below: its C interface's in and out, host and device point types,
 * and the steps that are not overloads on the element type. */
struct g16_bls {
	typedef struct cz_cuda_g16 in_t;
	typedef struct cz_cuda_g16_out out_t;
	typedef cz_g1_affine haff;
	typedef cz_g1_jac hjac;
	typedef cz_g1a32 aff;
	typedef cz_g1xyzz32 xyzz;
	typedef cz_fr32 fr;
	enum { curve = 0 };
	static int dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **m)
	{
		return cz_cuda_dom_get(d, L, m);
	}
	static int msm(struct cz_cuda_dev *d, xyzz *o, const aff *b, const fr *s, size_t n,
		       struct cz_cuda_msm_shape *sh)
	{
		return cz_cuda_msm_dev(d, o, b, s, n, 0, sh);
	}
	static void combine(hjac *r, const xyzz *w, unsigned nwin, unsigned c, const xyzz *ones)
	{
		cz_msm32_combine(r, w, nwin, c, ones);
	}
};
struct g16_bn254 {
	typedef struct cz_cuda_bn254_g16 in_t;
	typedef struct cz_cuda_bn254_g16_out out_t;
	typedef cz_bn254_g1_affine haff;
	typedef cz_bn254_g1_jac hjac;
	typedef cz_bn254_g1a32 aff;
	typedef cz_bn254_g1xyzz32 xyzz;
	typedef cz_bn254_fr32 fr;
	enum { curve = 1 };
	static int dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **m)
	{
		return cz_cuda_bn254_dom_get(d, L, m);
	}
	static int msm(struct cz_cuda_dev *d, xyzz *o, const aff *b, const fr *s, size_t n,
		       struct cz_cuda_msm_shape *sh)
	{
		return cz_cuda_bn254_msm_dev(d, o, b, s, n, 0, sh);
	}
	static void combine(hjac *r, const xyzz *w, unsigned nwin, unsigned c, const xyzz *ones)
	{
		cz_bn254_msm32_combine(r, w, nwin, c, ones);
	}
};
static_assert(sizeof(cz_g1_affine) == sizeof(cz_g1a32) &&
		      sizeof(cz_bn254_g1_affine) == sizeof(cz_bn254_g1a32),
	      "host and device affine points are the same bytes");
static_assert(sizeof(cz_bn254_g1_affine) <= sizeof(cz_g1_affine),
	      "a key's fingerprint holds either curve's points");
static_assert(sizeof(cz_bn254_g1xyzz32) <= sizeof(cz_g1xyzz32),
	      "d->hsums holds either curve's window sums");

template <class C>
static void key_fingerprint(unsigned char fp[4 * sizeof(cz_g1_affine)], const typename C::in_t *in)
{
	typedef typename C::haff A;
	static const A inf = {};
	size_t n = (size_t)1 << in->log2n;
	const A *p[4] = { in->nvars ? &in->a[in->nvars - 1] : &inf, in->nvars ? &in->b1[0] : &inf,
			  in->nvars > in->npc ? &in->c[0] : &inf, &in->h[n - 1] };

	memset(fp, 0, 4 * sizeof(cz_g1_affine));
	for (int i = 0; i < 4; i++)
		memcpy(fp + i * sizeof(A), p[i], sizeof(A));
}

template <class C>
static int upload(struct cz_cuda_dev *d, void **dst, const typename C::haff *src, size_t n)
{
	CZ_CK(d, cudaMalloc(dst, (n ? n : 1) * sizeof(typename C::aff)));
	if (n)
		CZ_CK(d, cz_cuda_h2d(d, *dst, src, n * sizeof(typename C::aff)));
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

/* The resident copy of in's key points, loading (and evicting) as needed.
 * An entry is found by (key_id, curve): the engine's key structs of both
 * curves share one address in a union, so an address seen with the other
 * curve is another key, dropped and uploaded as this one. */
template <class C>
static int key_get(struct cz_cuda_dev *d, const typename C::in_t *in, struct cz_cuda_key **out)
{
	unsigned char fp[4 * sizeof(cz_g1_affine)];
	struct cz_cuda_key *k = NULL;
	size_t n = (size_t)1 << in->log2n;

	key_fingerprint<C>(fp, in);
	for (int i = 0; i < CZ_CUDA_KEYS; i++) {
		struct cz_cuda_key *e = &d->keys[i];
		if (e->id != in->key_id)
			continue;
		if (e->curve == C::curve && e->nvars == in->nvars && e->npc == in->npc &&
		    e->log2n == in->log2n && !memcmp(e->fp, fp, sizeof(fp))) {
			e->used = ++d->stamp;
			*out = e;
			return 0;
		}
		CZ_CK(d, cudaStreamSynchronize(d->s));
		key_drop(e);  /* same address, another key (or the other curve's) */
	}
	for (int i = 0; i < CZ_CUDA_KEYS && !k; i++)
		if (!d->keys[i].id)
			k = &d->keys[i];
	if (!k) {
		k = key_lru(d);
		CZ_CK(d, cudaStreamSynchronize(d->s));
		key_drop(k);
	}
	for (bool trimmed = false;;) {
		int rc = upload<C>(d, &k->a, in->a, in->nvars);
		if (!rc)
			rc = upload<C>(d, &k->b1, in->b1, in->nvars);
		if (!rc)
			rc = upload<C>(d, &k->c, in->c, in->nvars - in->npc);
		if (!rc)
			rc = upload<C>(d, &k->h, in->h, n);
		if (!rc)
			break;
		key_drop(k);
		if (rc != -ENOMEM)
			return rc;
		/* first hand the pool's idle pages back (cudaMalloc does not draw
		 * on them), then evict the least recently used key, and try again */
		struct cz_cuda_key *victim = key_lru(d);
		if (trimmed && !victim)
			return rc;
		if (trimmed) {
			CZ_CK(d, cudaStreamSynchronize(d->s));
			key_drop(victim);
		}
		cz_cuda_pool_trim(d);
		trimmed = true;
	}
	k->id = in->key_id;
	k->curve = C::curve;
	k->nvars = in->nvars;
	k->npc = in->npc;
	k->log2n = in->log2n;
	memcpy(k->fp, fp, sizeof(fp));
	k->used = ++d->stamp;
	*out = k;
	return 0;
}

/*
 * The stage, on one stream, for either curve (the same kernels, one template
 * instance each).  Buffers X0..X3 of n elements: a, b, c arrive in
 * X0..X2; each polynomial's odd-coset transform is DIF (in place), gather
 * into the free buffer, DIF there, which frees the first buffer for the next
 * polynomial.  The results stay bit-reversed: h's kernel reads them so.
 */
template <class C>
static int g16(struct cz_cuda_dev *d, const typename C::in_t *in, typename C::out_t *out)
{
	typedef typename C::fr F;
	typedef typename C::xyzz X;
	typedef typename C::aff A;
	size_t n = (size_t)1 << in->log2n, nc = in->nvars - in->npc;
	struct cz_cuda_key *k = nullptr;
	struct cz_cuda_dom *m;
	cz_scratch sc(d);
	F *x[4], *w;
	X *res;
	cudaEvent_t ev[4] = { d->ev[0], d->ev[1], nullptr, nullptr };
	enum { W = CZ_MSM32_MAXWIN + 1 };

	CZ_TRY(key_get<C>(d, in, &k));
	CZ_TRY(C::dom_get(d, in->log2n, &m));
	for (int i = 0; i < 4; i++)
		CZ_TRY(sc.get(&x[i], n));
	CZ_TRY(sc.get(&w, in->nvars));
	CZ_TRY(sc.get(&res, 4 * W));
	/* two more events for the three intervals; made per call, they are
	 * cheap next to a partition */
	CZ_CK(d, cudaEventCreate(&ev[2]));
	cudaError_t e = cudaEventCreate(&ev[3]);
	if (e != cudaSuccess) {
		cudaEventDestroy(ev[2]);
		return cz_cuda_fail(d, e, "cudaEventCreate", __FILE__, __LINE__);
	}
	struct evs {
		cudaEvent_t a, b;
		~evs() { cudaEventDestroy(a); cudaEventDestroy(b); }
	} own = { ev[2], ev[3] };

	const void *src[3] = { in->pa, in->pb, in->pc };
	CZ_CK(d, cudaEventRecord(ev[0], d->s));
	for (int i = 0; i < 3; i++)
		CZ_CK(d, cz_cuda_h2d(d, x[i], src[i], n * sizeof(F)));
	if (in->nvars)
		CZ_CK(d, cz_cuda_h2d(d, w, in->w, in->nvars * sizeof(F)));
	CZ_CK(d, cudaEventRecord(ev[1], d->s));

	F *evl[3];
	int freebuf = 3;
	for (int i = 0; i < 3; i++) {
		CZ_TRY(cz_cuda_dif(d, m, x[i]));
		CZ_TRY(cz_cuda_gather(d, m, x[freebuf], x[i], CZ_NTT32_BITREV | CZ_NTT32_NEGATE,
				      CZ_TAB_ODD));
		CZ_TRY(cz_cuda_dif(d, m, x[freebuf]));
		evl[i] = x[freebuf];
		freebuf = i;
	}
	F *h = x[freebuf];
	CZ_TRY(cz_cuda_abc(d, m, h, evl[0], evl[1], evl[2]));
	CZ_CK(d, cudaEventRecord(ev[2], d->s));

	struct cz_cuda_msm_shape sh[4];
	CZ_TRY(C::msm(d, res, (const A *)k->a, w, in->nvars, &sh[0]));
	CZ_TRY(C::msm(d, res + W, (const A *)k->b1, w, in->nvars, &sh[1]));
	CZ_TRY(C::msm(d, res + 2 * W, (const A *)k->c, w + in->npc, nc, &sh[2]));
	CZ_TRY(C::msm(d, res + 3 * W, (const A *)k->h, h, n, &sh[3]));
	X *hr = (X *)d->hsums;  /* pinned, 4·W entries, under d->lock */
	CZ_CK(d, cudaMemcpyAsync(hr, res, 4 * W * sizeof(*hr), cudaMemcpyDeviceToHost, d->s));
	CZ_CK(d, cudaEventRecord(ev[3], d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	CZ_CK(d, cudaEventElapsedTime(&out->ms_h2d, ev[0], ev[1]));
	CZ_CK(d, cudaEventElapsedTime(&out->ms_ntt, ev[1], ev[2]));
	CZ_CK(d, cudaEventElapsedTime(&out->ms_msm, ev[2], ev[3]));
	typename C::hjac *dst[4] = { &out->a, &out->b1, &out->c, &out->h };
	for (int i = 0; i < 4; i++)
		C::combine(dst[i], hr + i * W, sh[i].nwin, sh[i].c, hr + i * W + sh[i].nwin);
	return 0;
}

template <class C>
static int groth16(struct cz_cuda_dev *d, const typename C::in_t *in, typename C::out_t *out)
{
	int rc;

	if (in->log2n > CZ_CUDA_MAX_LOG2 || in->npc > in->nvars)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	if (d->dead) {
		rc = -ENODEV;
	} else {
		cudaSetDevice(d->id);
		rc = g16<C>(d, in, out);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

extern "C" int cz_cuda_groth16(struct cz_cuda_dev *d, const struct cz_cuda_g16 *in,
			       struct cz_cuda_g16_out *out)
{
	return groth16<g16_bls>(d, in, out);
}

extern "C" int cz_cuda_bn254_groth16(struct cz_cuda_dev *d, const struct cz_cuda_bn254_g16 *in,
				     struct cz_cuda_bn254_g16_out *out)
{
	return groth16<g16_bn254>(d, in, out);
}

/* Mirrors struct cz_cuda_arith_in/out in the device's types (same bytes). */
struct arith_in {
	cz_fr32 fa, fb;
	cz_fp32 pa, pb;
	cz_g1xyzz32 p;
	cz_g1a32 q;
	cz_bn254_fr32 bfa, bfb;
	cz_bn254_fp32 bpa, bpb;
	cz_bn254_g1xyzz32 bp;
	cz_bn254_g1a32 bq;
};
struct arith_out {
	cz_fr32 fr[4];
	cz_fp32 fp[4];
	cz_g1xyzz32 sum;
	cz_bn254_fr32 bfr[4];
	cz_bn254_fp32 bfp[4];
	cz_bn254_g1xyzz32 bsum;
	uint64_t ptx_bad, pad;
};
static_assert(sizeof(struct arith_in) == sizeof(struct cz_cuda_arith_in), "arith_in layout");
static_assert(sizeof(struct arith_out) == sizeof(struct cz_cuda_arith_out), "arith_out layout");
static_assert(offsetof(struct arith_out, ptx_bad) == offsetof(struct cz_cuda_arith_out, ptx_bad),
	      "arith_out layout");
static_assert(offsetof(struct arith_in, bq) == offsetof(struct cz_cuda_arith_in, bq), "arith_in layout");

/* One field's four results and its PTX agreement bits (at bit). */
#define ARITH_FIELD(F, r, a, b, bad, bit)                                      \
	do {                                                                   \
		F##_add(&(r)[0], a, b);                                        \
		F##_sub(&(r)[1], a, b);                                        \
		F##_mul(&(r)[2], a, b);                                        \
		F##_sqr(&(r)[3], a);                                           \
		ARITH_PTX(F, a, b, bad, bit);                                  \
	} while (0)
#if defined(__CUDA_ARCH__)
#define ARITH_PTX(F, a, b, bad, bit)                                           \
	do {                                                                   \
		F u_, v_;  /* each field's type is its prefix */              \
		F##_mul_port(&u_, a, b);                                       \
		F##_mul_ptx(&v_, a, b);                                        \
		bad |= (uint64_t)!F##_eq(&u_, &v_) << (bit);                   \
		F##_mul_port(&u_, a, a);                                       \
		F##_mul_ptx(&v_, a, a);                                        \
		bad |= (uint64_t)!F##_eq(&u_, &v_) << ((bit) + 1);             \
	} while (0)
#else
#define ARITH_PTX(F, a, b, bad, bit) (void)(bad)
#endif

static __global__ void __launch_bounds__(128) k_arith(struct arith_out *o, const struct arith_in *in, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const struct arith_in *x = &in[i];
	struct arith_out *y = &o[i];
	uint64_t bad = 0;
	ARITH_FIELD(cz_fr32, y->fr, &x->fa, &x->fb, bad, 0);
	ARITH_FIELD(cz_fp32, y->fp, &x->pa, &x->pb, bad, 2);
	ARITH_FIELD(cz_bn254_fr32, y->bfr, &x->bfa, &x->bfb, bad, 4);
	ARITH_FIELD(cz_bn254_fp32, y->bfp, &x->bpa, &x->bpb, bad, 6);
	cz_g1xyzz32_add_affine(&y->sum, &x->p, &x->q);
	cz_bn254_g1xyzz32_add_affine(&y->bsum, &x->bp, &x->bq);
	y->ptx_bad = bad;
	y->pad = 0;
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
	CZ_CK_LAUNCH(d, "k_arith");
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

/* SPDX-License-Identifier: MIT */
/*
 * gpu/ntt.cu — the NTT over Fr on the device, for both curves: the kernels
 * around the gpu/ntt32.h bodies, and the per-device domain tables.  One
 * template over the curve (struct ntt_bls, struct ntt_bn254 bind the bodies
 * and zk/'s host field for the tables).
 *
 * A DIF of n = 2^L runs the stages with half-size h >= 2^B as one launch per
 * stage (one butterfly per thread, streaming the array with 128-bit loads:
 * the elements are 16-byte aligned, gpu/field32.h), then the last B stages in
 * one launch where each block loads 2^B contiguous elements into shared
 * memory in the limb-major, swizzled layout of gpu/ntt32.h (no bank
 * conflicts in any stage), does its B stages there with __syncthreads()
 * between them, and stores them back.  B is sized at run time from the
 * device's shared memory per block (32 bytes per element; at most 2^10 so a
 * block's 2^(B-1) butterflies fit 512 threads of <= 128 registers): 48 KiB
 * gives B = 10.  Cost at n = 2^24 on an H200, estimated from bandwidth: 14
 * streaming stages of 1 GiB traffic each, ~4 ms; fusing stages (radix 2^k
 * passes) is the next step.
 *
 * Tables per (device, curve, L), built once and kept: tw (n/2 roots, 16n
 * bytes, expanded on the device from two 2^(L/2) tables) and the four gather
 * tables (c·z^k in two-table form: 1/n, g, 1/(n·g^k), g^k/n).
 */
#include "gpu/cuda_pvt.cuh"

#include <stdlib.h>
#include <string.h>

extern "C" {
#include "zk/field/bn254_fr.h"
}

#define NTT_THREADS 256

/* A curve's NTT bodies and host field under one set of names. */
#define NTT_CURVE(NAME, N, T, ZF, IDX)                                                            \
	struct NAME {                                                                             \
		typedef T fr;                                                                     \
		typedef ZF hfr;                                                                   \
		enum { index = IDX };                                                             \
		static __device__ __forceinline__ void pow2tab(fr *o, uint32_t k, const fr *hi,    \
							       const fr *lo, unsigned s)           \
		{                                                                                 \
			N##pow2tab(o, k, hi, lo, s);                                              \
		}                                                                                 \
		static __device__ __forceinline__ void bfly(fr *a, uint32_t t, unsigned hlog,      \
							    const fr *tw, unsigned L)              \
		{                                                                                 \
			N##bfly(a, t, hlog, tw, L);                                               \
		}                                                                                 \
		static __device__ __forceinline__ void bfly_sh(uint32_t *sh, uint32_t t,          \
							       unsigned hlog, const fr *tw,        \
							       unsigned L, unsigned B)             \
		{                                                                                 \
			N##bfly_sh(sh, t, hlog, tw, L, B);                                        \
		}                                                                                 \
		static __device__ __forceinline__ void sh_put(uint32_t *sh, uint32_t i, unsigned B, \
							      const fr *v)                         \
		{                                                                                 \
			N##sh_put(sh, i, B, v);                                                   \
		}                                                                                 \
		static __device__ __forceinline__ void sh_get(fr *r, const uint32_t *sh, uint32_t i, \
							      unsigned B)                          \
		{                                                                                 \
			N##sh_get(r, sh, i, B);                                                   \
		}                                                                                 \
		static __device__ __forceinline__ void gather(fr *d, const fr *s, uint32_t k,      \
							      unsigned L, unsigned f, const fr *hi,\
							      const fr *lo, unsigned sh)           \
		{                                                                                 \
			N##gather(d, s, k, L, f, hi, lo, sh);                                     \
		}                                                                                 \
		static __device__ __forceinline__ void abc(fr *h, const fr *a, const fr *b,        \
							   const fr *c, uint32_t k, unsigned L)    \
		{                                                                                 \
			N##abc(h, a, b, c, k, L);                                                 \
		}                                                                                 \
		static void h_one(hfr *r) { *r = ZF##_one; }                                      \
		static void h_mul(hfr *r, const hfr *a, const hfr *b) { ZF##_mul(r, a, b); }      \
		static void h_inv(hfr *r, const hfr *a) { ZF##_inv(r, a); }                       \
		static void h_u64(hfr *r, uint64_t v) { ZF##_from_u64(r, v); }                    \
		static void h_root(hfr *r, unsigned k) { ZF##_root_of_unity(r, k); }              \
	};
NTT_CURVE(ntt_bls, cz_ntt32_, cz_fr32, cz_fr, 0)
NTT_CURVE(ntt_bn254, cz_bn254_ntt32_, cz_bn254_fr32, cz_bn254_fr, 1)

template <class C>
static __global__ void k_pow2tab(typename C::fr *out, size_t count, const typename C::fr *hi,
				 const typename C::fr *lo, unsigned s)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < count)
		C::pow2tab(&out[k], (uint32_t)k, hi, lo, s);
}

template <class C>
static __global__ void k_bfly(typename C::fr *a, size_t half, unsigned hlog, const typename C::fr *tw,
			      unsigned L)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t < half)
		C::bfly(a, (uint32_t)t, hlog, tw, L);
}

/* One block per 2^B elements, 2^(B-1) <= 512 threads, 2^B·32 bytes of shared
 * memory; the bound keeps registers at <= 128 a thread so 512 fit a block. */
template <class C>
static __global__ void __launch_bounds__(512)
k_block(typename C::fr *a, unsigned B, const typename C::fr *tw, unsigned L)
{
	extern __shared__ uint32_t sh[];
	uint32_t t = threadIdx.x, half = (uint32_t)1 << (B - 1);
	typename C::fr *blk = a + ((size_t)blockIdx.x << B), v;

	v = blk[t];
	C::sh_put(sh, t, B, &v);
	v = blk[t + half];
	C::sh_put(sh, t + half, B, &v);
	__syncthreads();
	for (unsigned hlog = B; hlog-- > 0;) {
		C::bfly_sh(sh, t, hlog, tw, L, B);
		__syncthreads();  /* stage hlog's writes before stage hlog - 1 reads */
	}
	C::sh_get(&v, sh, t, B);
	blk[t] = v;
	C::sh_get(&v, sh, t + half, B);
	blk[t + half] = v;
}

template <class C>
static __global__ void k_gather(typename C::fr *dst, const typename C::fr *src, size_t n, unsigned L,
				unsigned flags, const typename C::fr *hi, const typename C::fr *lo,
				unsigned s)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		C::gather(dst, src, (uint32_t)k, L, flags, hi, lo, s);
}

template <class C>
static __global__ void k_abc(typename C::fr *h, const typename C::fr *a, const typename C::fr *b,
			     const typename C::fr *c, size_t n, unsigned L)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		C::abc(h, a, b, c, (uint32_t)k, L);
}

/* Host side: the two-table form of c·z^k, k < 2^L, into hi (2^(L-s)) and lo (2^s). */
template <class C>
static void tabs_host(typename C::hfr *hi, typename C::hfr *lo, unsigned L, unsigned s,
		      const typename C::hfr *c, const typename C::hfr *z)
{
	typename C::hfr p;
	C::h_one(&p);
	for (size_t i = 0; i < ((size_t)1 << s); i++) {
		lo[i] = p;
		C::h_mul(&p, &p, z);
	}
	typename C::hfr zs = p;
	p = *c;
	for (size_t j = 0; j < ((size_t)1 << (L - s)); j++) {
		hi[j] = p;
		C::h_mul(&p, &p, &zs);
	}
}

void cz_cuda_dom_free(struct cz_cuda_dom *m)
{
	if (!m)
		return;
	cudaFree(m->tw);
	cudaFree(m->tab);
	free(m);
}

/* B for the device: 32 bytes of shared memory an element, at most 2^10. */
unsigned cz_cuda_block_log2(size_t smem)
{
	unsigned B = 0;
	while (B < 10 && ((size_t)32 << (B + 1)) <= smem)
		B++;
	return B;
}

template <class C>
static int dom_build(struct cz_cuda_dev *d, struct cz_cuda_dom *m, unsigned L)
{
	typedef typename C::hfr H;
	typedef typename C::fr F;
	size_t n = (size_t)1 << L, half = L ? n / 2 : 1;
	unsigned s = (L + 1) / 2, ts = L ? L / 2 : 0;  /* ts: the twiddles' split of L - 1 */
	size_t nlo = (size_t)1 << s, nhi = (size_t)1 << (L - s);
	size_t ntlo = (size_t)1 << ts, nthi = L ? (size_t)1 << (L - 1 - ts) : 1;
	size_t per = nhi + nlo, total = 4 * per + nthi + ntlo;
	H w, g, gi, nn, ninv, one;

	static_assert(sizeof(H) == sizeof(F), "host and device Fr are the same bytes");
	unsigned B = cz_cuda_block_log2(d->smem);
	m->log2n = L;
	m->blog2 = B < L ? B : L;
	m->s = s;
	C::h_one(&one);
	C::h_root(&w, L);
	C::h_root(&g, L + 1);
	C::h_inv(&gi, &g);
	C::h_u64(&nn, n);
	C::h_inv(&ninv, &nn);

	H *h = (H *)malloc(total * sizeof(H));
	if (!h)
		return -ENOMEM;
	const H *cs[4] = { &ninv, &one, &ninv, &ninv };
	const H *zs[4] = { &one, &g, &gi, &g };
	for (int i = 0; i < 4; i++)
		tabs_host<C>(h + i * per, h + i * per + nhi, L, s, cs[i], zs[i]);
	H *thi = h + 4 * per, *tlo = thi + nthi;
	if (L)
		tabs_host<C>(thi, tlo, L - 1, ts, &one, &w);
	else
		thi[0] = tlo[0] = one;

	F *tab = nullptr, *tw = nullptr;
	cudaError_t e = cudaMalloc((void **)&tab, total * sizeof(F));
	if (e == cudaSuccess)
		e = cudaMalloc((void **)&tw, half * sizeof(F));
	m->tab = tab;
	m->tw = tw;
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(tab, h, total * sizeof(F), cudaMemcpyHostToDevice, d->s);
	if (e == cudaSuccess) {
		for (int i = 0; i < 4; i++) {
			m->hi[i] = tab + i * per;
			m->lo[i] = tab + i * per + nhi;
		}
		k_pow2tab<C><<<cz_blocks(half, NTT_THREADS), NTT_THREADS, 0, d->s>>>(
			tw, half, tab + 4 * per, tab + 4 * per + nthi, ts);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->s);  /* h is freed next */
	free(h);
	if (e != cudaSuccess)
		return cz_cuda_fail(d, e, "NTT domain tables", __FILE__, __LINE__);
	return 0;
}

template <class C>
static int dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **out)
{
	struct cz_cuda_dom **slot = &d->dom[C::index][L];

	if (L > CZ_CUDA_MAX_LOG2)
		return -EINVAL;
	if (!*slot) {
		struct cz_cuda_dom *m = (struct cz_cuda_dom *)calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		int rc = dom_build<C>(d, m, L);
		if (rc) {
			cz_cuda_dom_free(m);
			return rc;
		}
		*slot = m;
	}
	*out = *slot;
	return 0;
}

int cz_cuda_dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **out)
{
	return dom_get<ntt_bls>(d, L, out);
}

int cz_cuda_bn254_dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **out)
{
	return dom_get<ntt_bn254>(d, L, out);
}

template <class C>
static int dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, typename C::fr *a)
{
	typedef typename C::fr F;
	unsigned L = m->log2n, B = m->blog2;
	size_t half = L ? (size_t)1 << (L - 1) : 0;
	const F *tw = (const F *)m->tw;

	for (unsigned hlog = L; hlog-- > B;) {
		k_bfly<C><<<cz_blocks(half, NTT_THREADS), NTT_THREADS, 0, d->s>>>(a, half, hlog, tw, L);
		CZ_CK_LAUNCH(d, "k_bfly");
	}
	if (B) {
		k_block<C><<<(unsigned)(((size_t)1 << L) >> B), 1u << (B - 1), ((size_t)32) << B, d->s>>>(
			a, B, tw, L);
		CZ_CK_LAUNCH(d, "k_block");
	}
	return 0;
}

template <class C>
static int gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, typename C::fr *dst,
		  const typename C::fr *src, unsigned flags, int tab)
{
	typedef typename C::fr F;
	size_t n = (size_t)1 << m->log2n;
	const F *hi = tab >= 0 ? (const F *)m->hi[tab] : nullptr;
	const F *lo = tab >= 0 ? (const F *)m->lo[tab] : nullptr;

	if (tab >= 0)
		flags |= CZ_NTT32_SCALE;
	k_gather<C><<<cz_blocks(n, NTT_THREADS), NTT_THREADS, 0, d->s>>>(dst, src, n, m->log2n, flags,
									 hi, lo, m->s);
	CZ_CK_LAUNCH(d, "k_gather");
	return 0;
}

template <class C>
static int abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, typename C::fr *h,
	       const typename C::fr *a, const typename C::fr *b, const typename C::fr *c)
{
	size_t n = (size_t)1 << m->log2n;
	k_abc<C><<<cz_blocks(n, NTT_THREADS), NTT_THREADS, 0, d->s>>>(h, a, b, c, n, m->log2n);
	CZ_CK_LAUNCH(d, "k_abc");
	return 0;
}

int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *a)
{
	return dif<ntt_bls>(d, m, a);
}

int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *a)
{
	return dif<ntt_bn254>(d, m, a);
}

int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *dst,
		   const cz_fr32 *src, unsigned flags, int tab)
{
	return gather<ntt_bls>(d, m, dst, src, flags, tab);
}

int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *dst,
		   const cz_bn254_fr32 *src, unsigned flags, int tab)
{
	return gather<ntt_bn254>(d, m, dst, src, flags, tab);
}

int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *h,
		const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c)
{
	return abc<ntt_bls>(d, m, h, a, b, c);
}

int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *h,
		const cz_bn254_fr32 *a, const cz_bn254_fr32 *b, const cz_bn254_fr32 *c)
{
	return abc<ntt_bn254>(d, m, h, a, b, c);
}

/* The zk/ntt/ntt.h transforms, each as DIFs and gathers (the sequences the host
 * selftest gpu_kernels checks with the same bodies).  a and t are both
 * clobbered; *res says which holds the result. */
template <class C>
static int ntt_op(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, typename C::fr *a,
		  typename C::fr *t, int op, typename C::fr **res)
{
	const unsigned BR = CZ_NTT32_BITREV, NG = CZ_NTT32_NEGATE;

	*res = t;
	switch (op) {
	case CZ_CUDA_NTT_FORWARD:
		CZ_TRY(dif<C>(d, m, a));
		return gather<C>(d, m, t, a, BR, -1);
	case CZ_CUDA_NTT_INVERSE:
		CZ_TRY(dif<C>(d, m, a));
		return gather<C>(d, m, t, a, BR | NG, CZ_TAB_INV);
	case CZ_CUDA_NTT_COSET_FORWARD:
		*res = a;
		CZ_TRY(gather<C>(d, m, t, a, 0, CZ_TAB_COSET));
		CZ_TRY(dif<C>(d, m, t));
		return gather<C>(d, m, a, t, BR, -1);
	case CZ_CUDA_NTT_COSET_INVERSE:
		CZ_TRY(dif<C>(d, m, a));
		return gather<C>(d, m, t, a, BR | NG, CZ_TAB_COSET_INV);
	case CZ_CUDA_NTT_TO_ODD_COSET:
		*res = a;
		CZ_TRY(dif<C>(d, m, a));
		CZ_TRY(gather<C>(d, m, t, a, BR | NG, CZ_TAB_ODD));
		CZ_TRY(dif<C>(d, m, t));
		return gather<C>(d, m, a, t, BR, -1);
	}
	return -EINVAL;
}

/* Host elements through the device; *ms: the transform's device time
 * (CUDA events around the kernels: no copies, no table build). */
template <class C>
static int ntt_host(struct cz_cuda_dev *d, unsigned log2n, void *a, int op, float *ms)
{
	typedef typename C::fr F;
	struct cz_cuda_dom *m = nullptr;
	size_t n = (size_t)1 << log2n;
	int rc;

	if (op < CZ_CUDA_NTT_FORWARD || op > CZ_CUDA_NTT_TO_ODD_COSET || log2n > CZ_CUDA_MAX_LOG2)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	cudaSetDevice(d->id);
	rc = d->dead ? -ENODEV : dom_get<C>(d, log2n, &m);
	if (!rc) {
		cz_scratch sc(d);
		F *x, *t;
		rc = sc.get(&x, n);
		if (!rc)
			rc = sc.get(&t, n);
		cudaError_t e = cudaSuccess;
		if (!rc)
			e = cz_cuda_h2d(d, x, a, n * sizeof(*x));
		if (!rc && e == cudaSuccess)
			e = cudaEventRecord(d->ev[0], d->s);
		F *res = nullptr;
		if (!rc && e == cudaSuccess)
			rc = ntt_op<C>(d, m, x, t, op, &res);
		if (!rc && e == cudaSuccess)
			e = cudaEventRecord(d->ev[1], d->s);
		if (!rc && e == cudaSuccess)
			e = cudaMemcpyAsync(a, res, n * sizeof(*res), cudaMemcpyDeviceToHost, d->s);
		if (!rc && e == cudaSuccess)
			e = cudaStreamSynchronize(d->s);
		if (!rc && e == cudaSuccess && ms)
			e = cudaEventElapsedTime(ms, d->ev[0], d->ev[1]);
		if (!rc && e != cudaSuccess)
			rc = cz_cuda_fail(d, e, "NTT copies", __FILE__, __LINE__);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

extern "C" int cz_cuda_ntt(struct cz_cuda_dev *d, unsigned log2n, cz_fr *a, int op, float *ms)
{
	return ntt_host<ntt_bls>(d, log2n, a, op, ms);
}

extern "C" int cz_cuda_bn254_ntt(struct cz_cuda_dev *d, unsigned log2n, cz_bn254_fr *a, int op,
				 float *ms)
{
	return ntt_host<ntt_bn254>(d, log2n, a, op, ms);
}

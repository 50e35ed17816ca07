/* SPDX-License-Identifier: MIT */
/*
 * gpu/ntt.cu — the NTT over Fr on the device: the kernels around the
 * gpu/ntt32.h bodies, and the per-device domain tables.
 *
 * A DIF of n = 2^L runs the stages with half-size h >= 2^B as one launch per
 * stage (one butterfly per thread, streaming the array), then the last B
 * stages in one launch where each block loads 2^B contiguous elements into
 * shared memory, does its B stages there with __syncthreads() between them,
 * and stores them back.  B is sized at run time from the device's shared
 * memory per block (32 bytes per element; at most 2^10 so a block's 2^(B-1)
 * butterflies fit 512 threads of <= 128 registers): 48 KiB gives B = 10.
 * Cost at n = 2^27 on an H200, estimated from bandwidth: 17 streaming stages
 * of 8 GiB traffic each, ~30 ms per DIF; fusing stages (radix 2^k passes) is
 * the next step.
 *
 * Tables per (device, L), built once and kept: tw (n/2 roots, 16n bytes,
 * expanded on the device from two 2^(L/2) tables) and the four gather
 * tables (c·z^k in two-table form: 1/n, g, 1/(n·g^k), g^k/n).
 */
#include "gpu/cuda_pvt.cuh"

#include <stdlib.h>
#include <string.h>

#define NTT_THREADS 256

static __global__ void k_pow2tab(cz_fr32 *out, size_t count, const cz_fr32 *hi, const cz_fr32 *lo,
			  unsigned s)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < count)
		cz_ntt32_pow2tab(&out[k], (uint32_t)k, hi, lo, s);
}

static __global__ void k_bfly(cz_fr32 *a, size_t half, unsigned hlog, const cz_fr32 *tw, unsigned L)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t < half)
		cz_ntt32_bfly(a, (uint32_t)t, hlog, tw, L);
}

/* One block per 2^B elements, 2^(B-1) <= 512 threads, 2^B·32 bytes of shared
 * memory; the bound keeps registers at <= 128 a thread so 512 fit a block. */
static __global__ void __launch_bounds__(512) k_block(cz_fr32 *a, unsigned B, const cz_fr32 *tw, unsigned L)
{
	extern __shared__ cz_fr32 sh[];
	uint32_t t = threadIdx.x, half = (uint32_t)1 << (B - 1);
	cz_fr32 *blk = a + ((size_t)blockIdx.x << B);

	sh[t] = blk[t];
	sh[t + half] = blk[t + half];
	__syncthreads();
	for (unsigned hlog = B; hlog-- > 0;) {
		cz_ntt32_bfly(sh, t, hlog, tw, L);
		__syncthreads();  /* stage hlog's writes before stage hlog - 1 reads */
	}
	blk[t] = sh[t];
	blk[t + half] = sh[t + half];
}

static __global__ void k_gather(cz_fr32 *dst, const cz_fr32 *src, size_t n, unsigned L, unsigned flags,
			 const cz_fr32 *hi, const cz_fr32 *lo, unsigned s)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		cz_ntt32_gather(dst, src, (uint32_t)k, L, flags, hi, lo, s);
}

static __global__ void k_abc(cz_fr32 *h, const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c, size_t n,
		      unsigned L)
{
	size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (k < n)
		cz_ntt32_abc(h, a, b, c, (uint32_t)k, L);
}

/* Host side: the two-table form of c·z^k, k < 2^L, into hi (2^(L-s)) and lo (2^s). */
static void tabs_host(cz_fr *hi, cz_fr *lo, unsigned L, unsigned s, const cz_fr *c, const cz_fr *z)
{
	cz_fr p = cz_fr_one;
	for (size_t i = 0; i < ((size_t)1 << s); i++) {
		lo[i] = p;
		cz_fr_mul(&p, &p, z);
	}
	cz_fr zs = p;
	p = *c;
	for (size_t j = 0; j < ((size_t)1 << (L - s)); j++) {
		hi[j] = p;
		cz_fr_mul(&p, &p, &zs);
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

static int dom_build(struct cz_cuda_dev *d, struct cz_cuda_dom *m, unsigned L)
{
	size_t n = (size_t)1 << L, half = L ? n / 2 : 1;
	unsigned s = (L + 1) / 2, ts = L ? L / 2 : 0;  /* ts: the twiddles' split of L - 1 */
	size_t nlo = (size_t)1 << s, nhi = (size_t)1 << (L - s);
	size_t ntlo = (size_t)1 << ts, nthi = L ? (size_t)1 << (L - 1 - ts) : 1;
	size_t per = nhi + nlo, total = 4 * per + nthi + ntlo;
	cz_fr w, g, gi, nn, ninv;

	/* 48 KiB of shared memory gives 2^10; never more (k_block's 512 threads) */
	unsigned B = 0;
	while (B < 10 && ((size_t)32 << (B + 1)) <= d->smem)
		B++;
	m->log2n = L;
	m->blog2 = B < L ? B : L;
	m->s = s;
	cz_fr_root_of_unity(&w, L);
	cz_fr_root_of_unity(&g, L + 1);
	cz_fr_inv(&gi, &g);
	cz_fr_from_u64(&nn, n);
	cz_fr_inv(&ninv, &nn);

	cz_fr *h = (cz_fr *)malloc(total * sizeof(cz_fr));
	if (!h)
		return -ENOMEM;
	const cz_fr *cs[4] = { &ninv, &cz_fr_one, &ninv, &ninv };
	const cz_fr *zs[4] = { &cz_fr_one, &g, &gi, &g };
	for (int i = 0; i < 4; i++)
		tabs_host(h + i * per, h + i * per + nhi, L, s, cs[i], zs[i]);
	cz_fr *thi = h + 4 * per, *tlo = thi + nthi;
	if (L)
		tabs_host(thi, tlo, L - 1, ts, &cz_fr_one, &w);
	else
		thi[0] = tlo[0] = cz_fr_one;

	cudaError_t e = cudaMalloc((void **)&m->tab, total * sizeof(cz_fr32));
	if (e == cudaSuccess)
		e = cudaMalloc((void **)&m->tw, half * sizeof(cz_fr32));
	if (e == cudaSuccess)
		e = cudaMemcpyAsync(m->tab, h, total * sizeof(cz_fr32), cudaMemcpyHostToDevice, d->s);
	if (e == cudaSuccess) {
		for (int i = 0; i < 4; i++) {
			m->hi[i] = m->tab + i * per;
			m->lo[i] = m->tab + i * per + nhi;
		}
		k_pow2tab<<<cz_blocks(half, NTT_THREADS), NTT_THREADS, 0, d->s>>>(
			m->tw, half, m->tab + 4 * per, m->tab + 4 * per + nthi, ts);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaStreamSynchronize(d->s);  /* h is freed next */
	free(h);
	if (e != cudaSuccess)
		return cz_cuda_fail(d, e, "NTT domain tables", __FILE__, __LINE__);
	return 0;
}

int cz_cuda_dom_get(struct cz_cuda_dev *d, unsigned L, struct cz_cuda_dom **out)
{
	if (L > CZ_CUDA_MAX_LOG2)
		return -EINVAL;
	if (!d->dom[L]) {
		struct cz_cuda_dom *m = (struct cz_cuda_dom *)calloc(1, sizeof(*m));
		if (!m)
			return -ENOMEM;
		int rc = dom_build(d, m, L);
		if (rc) {
			cz_cuda_dom_free(m);
			return rc;
		}
		d->dom[L] = m;
	}
	*out = d->dom[L];
	return 0;
}

int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *a)
{
	unsigned L = m->log2n, B = m->blog2;
	size_t half = L ? (size_t)1 << (L - 1) : 0;

	for (unsigned hlog = L; hlog-- > B;) {
		k_bfly<<<cz_blocks(half, NTT_THREADS), NTT_THREADS, 0, d->s>>>(a, half, hlog, m->tw, L);
		CZ_CK_LAUNCH(d);
	}
	if (B) {
		k_block<<<(unsigned)(((size_t)1 << L) >> B), 1u << (B - 1), ((size_t)32) << B, d->s>>>(
			a, B, m->tw, L);
		CZ_CK_LAUNCH(d);
	}
	return 0;
}

int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *dst,
		   const cz_fr32 *src, unsigned flags, int tab)
{
	size_t n = (size_t)1 << m->log2n;
	const cz_fr32 *hi = tab >= 0 ? m->hi[tab] : nullptr, *lo = tab >= 0 ? m->lo[tab] : nullptr;

	if (tab >= 0)
		flags |= CZ_NTT32_SCALE;
	k_gather<<<cz_blocks(n, NTT_THREADS), NTT_THREADS, 0, d->s>>>(dst, src, n, m->log2n, flags,
								      hi, lo, m->s);
	CZ_CK_LAUNCH(d);
	return 0;
}

int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *h,
		const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c)
{
	size_t n = (size_t)1 << m->log2n;
	k_abc<<<cz_blocks(n, NTT_THREADS), NTT_THREADS, 0, d->s>>>(h, a, b, c, n, m->log2n);
	CZ_CK_LAUNCH(d);
	return 0;
}

/* The zk/ntt.h transforms, each as DIFs and gathers (the sequences the host
 * selftest gpu_kernels checks with the same bodies).  a and t are both
 * clobbered; *res says which holds the result. */
static int ntt_op(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *a, cz_fr32 *t,
		  int op, cz_fr32 **res)
{
	const unsigned BR = CZ_NTT32_BITREV, NG = CZ_NTT32_NEGATE;

	*res = t;
	switch (op) {
	case CZ_CUDA_NTT_FORWARD:
		CZ_TRY(cz_cuda_dif(d, m, a));
		return cz_cuda_gather(d, m, t, a, BR, -1);
	case CZ_CUDA_NTT_INVERSE:
		CZ_TRY(cz_cuda_dif(d, m, a));
		return cz_cuda_gather(d, m, t, a, BR | NG, CZ_TAB_INV);
	case CZ_CUDA_NTT_COSET_FORWARD:
		*res = a;
		CZ_TRY(cz_cuda_gather(d, m, t, a, 0, CZ_TAB_COSET));
		CZ_TRY(cz_cuda_dif(d, m, t));
		return cz_cuda_gather(d, m, a, t, BR, -1);
	case CZ_CUDA_NTT_COSET_INVERSE:
		CZ_TRY(cz_cuda_dif(d, m, a));
		return cz_cuda_gather(d, m, t, a, BR | NG, CZ_TAB_COSET_INV);
	case CZ_CUDA_NTT_TO_ODD_COSET:
		*res = a;
		CZ_TRY(cz_cuda_dif(d, m, a));
		CZ_TRY(cz_cuda_gather(d, m, t, a, BR | NG, CZ_TAB_ODD));
		CZ_TRY(cz_cuda_dif(d, m, t));
		return cz_cuda_gather(d, m, a, t, BR, -1);
	}
	return -EINVAL;
}

extern "C" int cz_cuda_ntt(struct cz_cuda_dev *d, unsigned log2n, cz_fr *a, int op)
{
	struct cz_cuda_dom *m;
	size_t n = (size_t)1 << log2n;
	int rc;

	if (op < CZ_CUDA_NTT_FORWARD || op > CZ_CUDA_NTT_TO_ODD_COSET || log2n > CZ_CUDA_MAX_LOG2)
		return -EINVAL;
	pthread_mutex_lock(&d->lock);
	cudaSetDevice(d->id);
	rc = d->dead ? -ENODEV : cz_cuda_dom_get(d, log2n, &m);
	if (!rc) {
		cz_scratch sc(d);
		cz_fr32 *x, *t;
		rc = sc.get(&x, n);
		if (!rc)
			rc = sc.get(&t, n);
		cudaError_t e = cudaSuccess;
		if (!rc)
			e = cudaMemcpyAsync(x, a, n * sizeof(*x), cudaMemcpyHostToDevice, d->s);
		cz_fr32 *res = nullptr;
		if (!rc && e == cudaSuccess)
			rc = ntt_op(d, m, x, t, op, &res);
		if (!rc && e == cudaSuccess)
			e = cudaMemcpyAsync(a, res, n * sizeof(*res), cudaMemcpyDeviceToHost, d->s);
		if (!rc && e == cudaSuccess)
			e = cudaStreamSynchronize(d->s);
		if (!rc && e != cudaSuccess)
			rc = cz_cuda_fail(d, e, "NTT copies", __FILE__, __LINE__);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

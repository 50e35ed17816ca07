/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm.cu — the G1 MSM on the device: kernels around the gpu/msm32.h
 * bodies (the pipeline and its reasons are described there), CUB for the
 * compaction and the radix sort, and the driver that sizes and launches it.
 *
 * Everything stays on the device from the scalars to the one XYZZ result;
 * the host reads back two counts (big and one scalars) to size the launches.
 *
 * Memory per call, m big scalars, c-bit windows, W windows per sort batch:
 * 16·W·m bytes of (key, index) pairs with CUB's double buffer, 192·nwin·2^c
 * of buckets (c = 16: 200 MB), 9n for the classification.  W is the largest
 * batch that keeps a sort under 2^30 entries and the pairs under half the
 * free device memory.
 */
#include "gpu/cuda_pvt.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#define MSM_THREADS 128   /* the point kernels: ~200 registers per thread */
#define IDX_THREADS 256
#define ONES_THREADS 8192 /* partial sums of the ones list */

static __global__ void k_classify(uint8_t *fbig, uint8_t *fone, uint32_t *iota, const cz_fr32 *s, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int c = cz_msm32_class(&s[i]);
		fbig[i] = c == CZ_MSM32_BIG;
		fone[i] = c == CZ_MSM32_ONE;
		iota[i] = (uint32_t)i;
	}
}

static __global__ void k_pairs(uint32_t *key, uint32_t *val, const cz_fr32 *s, const uint32_t *big,
			uint32_t m, unsigned w0, unsigned nw, unsigned c)
{
	size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e < (size_t)m * nw)
		cz_msm32_pair(key, val, s, big, m, (uint32_t)(e % m), w0 + (unsigned)(e / m), w0, c);
}

static __global__ void k_bounds(uint32_t *start, uint32_t *end, const uint32_t *key, size_t nent)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < nent)
		cz_msm32_bounds(start, end, key, nent, i);
}

static __global__ void __launch_bounds__(MSM_THREADS)
k_bucket(cz_g1xyzz32 *buckets, const uint32_t *start, const uint32_t *end, const uint32_t *val,
	 const cz_g1a32 *bases, size_t nbk, unsigned w0, unsigned c)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < nbk)
		cz_msm32_bucket(buckets, start, end, val, bases, (uint32_t)b, w0, c);
}

static __global__ void __launch_bounds__(MSM_THREADS)
k_segment(cz_g1xyzz32 *out, const cz_g1xyzz32 *buckets, unsigned nwin, uint32_t nseg, unsigned c)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (size_t)nwin * nseg)
		cz_msm32_segment(out, buckets, (unsigned)(i / nseg), (uint32_t)(i % nseg), nseg, c);
}

static __global__ void __launch_bounds__(MSM_THREADS)
k_group(cz_g1xyzz32 *out, const cz_g1xyzz32 *in, size_t count, size_t ngroups, unsigned k)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (g < ngroups)
		cz_msm32_group(out, in, count, g, k);
}

static __global__ void __launch_bounds__(MSM_THREADS)
k_ones(cz_g1xyzz32 *out, const cz_g1a32 *bases, const uint32_t *ones, const uint32_t *nones, size_t nt)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t < nt)
		cz_msm32_ones(out, bases, ones, *nones, t, nt);
}

static __global__ void k_horner(cz_g1xyzz32 *r, const cz_g1xyzz32 *win, unsigned nwin, unsigned c,
			 const cz_g1xyzz32 *extra)
{
	if (blockIdx.x == 0 && threadIdx.x == 0)
		cz_msm32_horner(r, win, nwin, c, extra);
}

/* Sums count XYZZ points, in groups of CZ_MSM32_GROUP per launch, into a[0];
 * per: results per window that must stay apart (count = nwin·per), or 0 to
 * sum everything.  a and t are two buffers of count entries; returns the one
 * holding the sums. */
static int reduce(struct cz_cuda_dev *d, cz_g1xyzz32 **a, cz_g1xyzz32 **t, size_t count, size_t per)
{
	while (per ? per > 1 : count > 1) {
		unsigned k = CZ_MSM32_GROUP;
		if (per && per < k)
			k = (unsigned)per;
		size_t ng = (count + k - 1) / k;
		k_group<<<cz_blocks(ng, MSM_THREADS), MSM_THREADS, 0, d->s>>>(*t, *a, count, ng, k);
		CZ_CK_LAUNCH(d);
		cz_g1xyzz32 *x = *a;
		*a = *t;
		*t = x;
		count = ng;
		if (per)
			per /= k;
	}
	return 0;
}

int cz_cuda_msm_dev(struct cz_cuda_dev *d, cz_g1xyzz32 *out, const cz_g1a32 *bases,
		    const cz_fr32 *s, size_t n, unsigned window)
{
	cz_scratch sc(d);
	uint8_t *fbig, *fone;
	uint32_t *iota, *big, *ones, *cnt;
	uint8_t *tmp = nullptr;
	size_t tb = 0, tb2 = 0;

	if (n > 0xffffffffu || (window && (window < 4 || window > 20)))
		return -EINVAL;
	/* 1. classify and compact: the big and the one scalars' indices */
	CZ_TRY(sc.get(&fbig, n));
	CZ_TRY(sc.get(&fone, n));
	CZ_TRY(sc.get(&iota, n));
	CZ_TRY(sc.get(&big, n));
	CZ_TRY(sc.get(&ones, n));
	CZ_TRY(sc.get(&cnt, 2));
	CZ_CK(d, cudaMemsetAsync(cnt, 0, 2 * sizeof(uint32_t), d->s));
	if (n) {
		k_classify<<<cz_blocks(n, IDX_THREADS), IDX_THREADS, 0, d->s>>>(fbig, fone, iota, s, n);
		CZ_CK_LAUNCH(d);
		CZ_CK(d, cub::DeviceSelect::Flagged(nullptr, tb, iota, fbig, big, cnt, (int64_t)n, d->s));
		CZ_TRY(sc.get(&tmp, tb));
		CZ_CK(d, cub::DeviceSelect::Flagged(tmp, tb, iota, fbig, big, cnt, (int64_t)n, d->s));
		CZ_CK(d, cub::DeviceSelect::Flagged(tmp, tb, iota, fone, ones, cnt + 1, (int64_t)n, d->s));
	}
	uint32_t hc[2];
	CZ_CK(d, cudaMemcpyAsync(hc, cnt, sizeof(hc), cudaMemcpyDeviceToHost, d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	size_t m = hc[0];

	/* 2-5. windows in batches: pairs, sort, bounds, buckets */
	unsigned c = window ? window : cz_msm32_window(m);
	unsigned nwin = cz_msm32_nwin(c);
	size_t nb = (size_t)nwin << c, fr = 0, total = 0;
	CZ_CK(d, cudaMemGetInfo(&fr, &total));
	size_t cap = (size_t)1 << 30;
	if (fr / 2 / 16 < cap)
		cap = fr / 2 / 16;
	unsigned batch = m ? (unsigned)(cap / m) : nwin;
	if (batch > nwin)
		batch = nwin;
	if (batch == 0)
		return -ENOMEM;
	unsigned wbits = 0;
	while ((1u << wbits) < batch)
		wbits++;
	size_t maxent = (size_t)batch * m, maxbk = (size_t)batch << c;
	uint32_t *key, *val, *key2, *val2, *st, *en;
	cz_g1xyzz32 *buckets;
	CZ_TRY(sc.get(&key, maxent));
	CZ_TRY(sc.get(&val, maxent));
	CZ_TRY(sc.get(&key2, maxent));
	CZ_TRY(sc.get(&val2, maxent));
	CZ_TRY(sc.get(&st, maxbk));
	CZ_TRY(sc.get(&en, maxbk));
	CZ_TRY(sc.get(&buckets, nb));
	uint8_t *stmp = nullptr;
	if (maxent) {
		CZ_CK(d, cub::DeviceRadixSort::SortPairs(nullptr, tb2, key, key2, val, val2,
							 (int64_t)maxent, 0, (int)(c + wbits), d->s));
		CZ_TRY(sc.get(&stmp, tb2));
	}
	for (unsigned w0 = 0; w0 < nwin; w0 += batch) {
		unsigned nw = w0 + batch < nwin ? batch : nwin - w0;
		size_t nent = (size_t)nw * m, nbk = (size_t)nw << c;
		CZ_CK(d, cudaMemsetAsync(st, 0, nbk * sizeof(uint32_t), d->s));
		CZ_CK(d, cudaMemsetAsync(en, 0, nbk * sizeof(uint32_t), d->s));
		if (nent) {
			k_pairs<<<cz_blocks(nent, IDX_THREADS), IDX_THREADS, 0, d->s>>>(key, val, s, big,
											 (uint32_t)m, w0, nw, c);
			CZ_CK_LAUNCH(d);
			size_t tbx = tb2;
			CZ_CK(d, cub::DeviceRadixSort::SortPairs(stmp, tbx, key, key2, val, val2,
								 (int64_t)nent, 0, (int)(c + wbits), d->s));
			k_bounds<<<cz_blocks(nent, IDX_THREADS), IDX_THREADS, 0, d->s>>>(st, en, key2, nent);
			CZ_CK_LAUNCH(d);
		}
		k_bucket<<<cz_blocks(nbk, MSM_THREADS), MSM_THREADS, 0, d->s>>>(buckets, st, en, val2,
										bases, nbk, w0, c);
		CZ_CK_LAUNCH(d);
	}

	/* 6-7. segments, then per-window sums */
	uint32_t nseg = ((uint32_t)1 << c) / CZ_MSM32_GROUP;
	size_t nsg = (size_t)nwin * nseg;
	cz_g1xyzz32 *sg, *sg2, *op, *op2;
	CZ_TRY(sc.get(&sg, nsg));
	CZ_TRY(sc.get(&sg2, nsg));
	k_segment<<<cz_blocks(nsg, MSM_THREADS), MSM_THREADS, 0, d->s>>>(sg, buckets, nwin, nseg, c);
	CZ_CK_LAUNCH(d);
	CZ_TRY(reduce(d, &sg, &sg2, nsg, nseg));

	/* the ones: partial sums, then one */
	CZ_TRY(sc.get(&op, ONES_THREADS));
	CZ_TRY(sc.get(&op2, ONES_THREADS));
	k_ones<<<cz_blocks(ONES_THREADS, MSM_THREADS), MSM_THREADS, 0, d->s>>>(op, bases, ones, cnt + 1,
									     ONES_THREADS);
	CZ_CK_LAUNCH(d);
	CZ_TRY(reduce(d, &op, &op2, ONES_THREADS, 0));

	/* 8. the windows' combination */
	k_horner<<<1, 1, 0, d->s>>>(out, sg, nwin, c, op);
	CZ_CK_LAUNCH(d);
	/* the scratch is freed in stream order, after these kernels */
	return 0;
}

extern "C" int cz_cuda_msm_g1(struct cz_cuda_dev *d, cz_g1_jac *r, const cz_g1_affine *bases,
			      const cz_scalar *s, size_t n, unsigned window)
{
	int rc;

	pthread_mutex_lock(&d->lock);
	if (d->dead) {
		rc = -ENODEV;
	} else {
		cudaSetDevice(d->id);
		cz_scratch sc(d);
		cz_g1a32 *db;
		cz_fr32 *ds;
		cz_g1xyzz32 *dr, hr;
		rc = sc.get(&db, n);
		if (!rc)
			rc = sc.get(&ds, n);
		if (!rc)
			rc = sc.get(&dr, 1);
		cudaError_t e = cudaSuccess;
		if (!rc && n)
			e = cudaMemcpyAsync(db, bases, n * sizeof(*db), cudaMemcpyHostToDevice, d->s);
		if (!rc && n && e == cudaSuccess)
			e = cudaMemcpyAsync(ds, s, n * sizeof(*ds), cudaMemcpyHostToDevice, d->s);
		if (!rc && e == cudaSuccess)
			rc = cz_cuda_msm_dev(d, dr, db, ds, n, window);
		if (!rc && e == cudaSuccess)
			e = cudaMemcpyAsync(&hr, dr, sizeof(hr), cudaMemcpyDeviceToHost, d->s);
		if (!rc && e == cudaSuccess)
			e = cudaStreamSynchronize(d->s);
		if (!rc && e != cudaSuccess)
			rc = cz_cuda_fail(d, e, "MSM copies", __FILE__, __LINE__);
		if (!rc) {
			cz_g1_xyzz x;
			memcpy(&x, &hr, sizeof(x));
			cz_g1_xyzz_to_jac(r, &x);
		}
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

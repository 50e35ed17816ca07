/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm.cu — the G1 MSM on the device, for both curves: kernels around the
 * gpu/msm32.h bodies (the pipeline and its reasons are described there), CUB
 * for the compaction, the radix sort, the longest run and the chunk scan,
 * and the driver that sizes and launches it.  The driver is one template
 * over a curve (struct msm_bls, struct msm_bn254 below bind the bodies).
 *
 * Everything stays on the device from the scalars to the nwin + 1 sums (the
 * windows' and the ones'), which the caller copies back and combines on the
 * host (gpu/msm_host.c).  The host reads two counts (big and one scalars) to
 * size the launches, and per sort batch the longest bucket run, to choose
 * between one thread per bucket and the hot-bucket chunks.
 *
 * Memory per call, m big scalars, c-bit signed windows (K = 2^(c-1) buckets
 * each), W windows per sort batch: 16·W·m bytes of (key, index) pairs with
 * CUB's double buffer, 192·nwin·K of buckets (c = 20: 13 windows, 1.3 GB),
 * 9n for the classification; the hot path adds two arrays of at most
 * W·K + W·m/T sums.  W is the largest batch that keeps a sort under 2^30
 * entries and the pairs and chunk sums (28 bytes an entry for BLS12-381)
 * under half the free device memory (the pool's idle pages counted as
 * free: cz_cuda_mem_free).
 */
#include "gpu/cuda_pvt.cuh"
#include "gpu/msm_host.h"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#define MSM_THREADS 128   /* the point kernels: ~200 registers per thread */
#define IDX_THREADS 256

/* A curve's MSM bodies under one set of names, for the templates below. */
#define MSM_CURVE(NAME, M, P, FR)                                                                 \
	struct NAME {                                                                             \
		typedef FR fr;                                                                    \
		typedef P##a32 aff;                                                               \
		typedef P##xyzz32 xyzz;                                                           \
		static __device__ __forceinline__ int cls(const fr *s) { return M##class(s); }  \
		static __device__ __forceinline__ void pairs(uint32_t *k, uint32_t *v, const fr *s, \
							     const uint32_t *big, uint32_t m,       \
							     uint32_t t, unsigned w0, unsigned nw,  \
							     unsigned c)                            \
		{                                                                                 \
			M##pairs(k, v, s, big, m, t, w0, nw, c);                                  \
		}                                                                                 \
		static __device__ __forceinline__ void bucket(xyzz *bk, const uint32_t *st,        \
							      const uint32_t *en, const uint32_t *val, \
							      const aff *b, uint32_t i, size_t w0k)  \
		{                                                                                 \
			M##bucket(bk, st, en, val, b, i, w0k);                                    \
		}                                                                                 \
		static __device__ __forceinline__ void chunk_affine(                              \
			xyzz *o, const uint32_t *off, size_t nbk, const uint32_t *st,               \
			const uint32_t *en, const uint32_t *val, const aff *b, uint32_t j, uint32_t T) \
		{                                                                                 \
			M##chunk_affine(o, off, nbk, st, en, val, b, j, T);                       \
		}                                                                                 \
		static __device__ __forceinline__ void chunk_xyzz(xyzz *o, const uint32_t *off,    \
								  size_t nbk, const uint32_t *st,  \
								  const uint32_t *en, const xyzz *in, \
								  uint32_t j, uint32_t T)          \
		{                                                                                 \
			M##chunk_xyzz(o, off, nbk, st, en, in, j, T);                             \
		}                                                                                 \
		static __device__ __forceinline__ void bucket_xyzz(xyzz *bk, const uint32_t *st,   \
								   const uint32_t *en, const xyzz *in, \
								   uint32_t i, size_t w0k)         \
		{                                                                                 \
			M##bucket_xyzz(bk, st, en, in, i, w0k);                                   \
		}                                                                                 \
		static __device__ __forceinline__ void segment(xyzz *o, const xyzz *bk, unsigned w, \
							       uint32_t s, uint32_t nseg, unsigned c) \
		{                                                                                 \
			M##segment(o, bk, w, s, nseg, c);                                         \
		}                                                                                 \
		static __device__ __forceinline__ void group(xyzz *o, const xyzz *in, size_t cnt,  \
							     size_t g, unsigned k)                 \
		{                                                                                 \
			M##group(o, in, cnt, g, k);                                               \
		}                                                                                 \
		static __device__ __forceinline__ void ones(xyzz *o, const aff *b, const uint32_t *on, \
							    size_t non, size_t t, size_t nt)       \
		{                                                                                 \
			M##ones(o, b, on, non, t, nt);                                            \
		}                                                                                 \
		static unsigned window(uint64_t m) { return M##window(m); }                       \
		static unsigned nwin(unsigned c) { return M##nwin(c); }                           \
	};
MSM_CURVE(msm_bls, cz_msm32_, cz_g1, cz_fr32)
MSM_CURVE(msm_bn254, cz_bn254_msm32_, cz_bn254_g1, cz_bn254_fr32)

template <class C>
static __global__ void k_classify(uint8_t *fbig, uint8_t *fone, uint32_t *iota,
				  const typename C::fr *s, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		int c = C::cls(&s[i]);
		fbig[i] = c == CZ_MSM32_BIG;
		fone[i] = c == CZ_MSM32_ONE;
		iota[i] = (uint32_t)i;
	}
}

template <class C>
static __global__ void k_pairs(uint32_t *key, uint32_t *val, const typename C::fr *s,
			       const uint32_t *big, uint32_t m, unsigned w0, unsigned nw, unsigned c)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t < m)
		C::pairs(key, val, s, big, m, (uint32_t)t, w0, nw, c);
}

static __global__ void k_bounds(uint32_t *start, uint32_t *end, const uint32_t *key, size_t nent)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < nent)
		cz_msm32_bounds(start, end, key, nent, i);
}

/* nch[b] = run length (T = 0) or its chunk count (T > 0), b < nbk; nch[nbk] = 0. */
static __global__ void k_nchunks(uint32_t *nch, const uint32_t *start, const uint32_t *end,
				 size_t nbk, uint32_t T)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < nbk) {
		if (T)
			cz_msm32_nchunks(nch, start, end, b, T);
		else
			nch[b] = cz_msm32_runlen(start, end, b);
	} else if (b == nbk) {
		nch[b] = 0;
	}
}

static __global__ void k_runs_next(uint32_t *start, uint32_t *end, const uint32_t *off, size_t nbk)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < nbk)
		cz_msm32_runs_next(start, end, off, b);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_bucket(typename C::xyzz *buckets, const uint32_t *start, const uint32_t *end,
	 const uint32_t *val, const typename C::aff *bases, size_t nbk, size_t w0k)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < nbk)
		C::bucket(buckets, start, end, val, bases, (uint32_t)b, w0k);
}

/* Chunk j < off[nbk] (the chunk count, on the device; the grid is a bound). */
template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_chunk_affine(typename C::xyzz *out, const uint32_t *off, size_t nbk, const uint32_t *start,
	       const uint32_t *end, const uint32_t *val, const typename C::aff *bases, uint32_t T)
{
	size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (j < off[nbk])
		C::chunk_affine(out, off, nbk, start, end, val, bases, (uint32_t)j, T);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_chunk_xyzz(typename C::xyzz *out, const uint32_t *off, size_t nbk, const uint32_t *start,
	     const uint32_t *end, const typename C::xyzz *in, uint32_t T)
{
	size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (j < off[nbk])
		C::chunk_xyzz(out, off, nbk, start, end, in, (uint32_t)j, T);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_bucket_xyzz(typename C::xyzz *buckets, const uint32_t *start, const uint32_t *end,
	      const typename C::xyzz *in, size_t nbk, size_t w0k)
{
	size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (b < nbk)
		C::bucket_xyzz(buckets, start, end, in, (uint32_t)b, w0k);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_segment(typename C::xyzz *out, const typename C::xyzz *buckets, unsigned nwin, uint32_t nseg,
	  unsigned c)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (size_t)nwin * nseg)
		C::segment(out, buckets, (unsigned)(i / nseg), (uint32_t)(i % nseg), nseg, c);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_group(typename C::xyzz *out, const typename C::xyzz *in, size_t count, size_t ngroups, unsigned k)
{
	size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (g < ngroups)
		C::group(out, in, count, g, k);
}

template <class C>
static __global__ void __launch_bounds__(MSM_THREADS)
k_ones(typename C::xyzz *out, const typename C::aff *bases, const uint32_t *ones,
       const uint32_t *nones, size_t nt)
{
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t < nt)
		C::ones(out, bases, ones, *nones, t, nt);
}

/* Sums count XYZZ points, in groups of CZ_MSM32_GROUP per launch, into a[0];
 * per: results per window that must stay apart (count = nwin·per), or 0 to
 * sum everything.  a and t are two buffers of count entries; on return *a
 * holds the sums. */
template <class C>
static int reduce(struct cz_cuda_dev *d, typename C::xyzz **a, typename C::xyzz **t, size_t count,
		  size_t per)
{
	while (per ? per > 1 : count > 1) {
		unsigned k = CZ_MSM32_GROUP;
		if (per && per < k)
			k = (unsigned)per;
		size_t ng = (count + k - 1) / k;
		k_group<C><<<cz_blocks(ng, MSM_THREADS), MSM_THREADS, 0, d->s>>>(*t, *a, count, ng, k);
		CZ_CK_LAUNCH(d, "k_group");
		typename C::xyzz *x = *a;
		*a = *t;
		*t = x;
		count = ng;
		if (per)
			per /= k;
	}
	return 0;
}

/* An upper bound on the chunks of at most T entries that runs totalling
 * nent entries over nbk buckets make. */
static size_t chunk_bound(size_t nent, size_t nbk, uint32_t T)
{
	return (nent < nbk ? nent : nbk) + nent / T + 1;
}

/*
 * Step 5 for one sorted batch: buckets[w0k + b] for b < nbk from the runs
 * st/en over val.  One thread a bucket when the longest run is at most T;
 * else the hot-bucket chunks, level by level (gpu/msm32.h, step 5h).
 */
template <class C>
static int buckets_fill(struct cz_cuda_dev *d, cz_scratch &sc, typename C::xyzz *buckets,
			uint32_t *st, uint32_t *en, const uint32_t *val,
			const typename C::aff *bases, size_t nent, size_t nbk, size_t w0k,
			uint32_t *nch, uint32_t *off, uint32_t *dmax, uint8_t *tmp, size_t tb,
			uint32_t T)
{
	uint32_t maxrun = 0;

	if (nent) {
		size_t tbx = tb;
		k_nchunks<<<cz_blocks(nbk + 1, IDX_THREADS), IDX_THREADS, 0, d->s>>>(nch, st, en, nbk, 0);
		CZ_CK_LAUNCH(d, "k_nchunks");
		CZ_CK(d, cub::DeviceReduce::Max(tmp, tbx, nch, dmax, (int64_t)nbk, d->s));
		CZ_CK(d, cudaMemcpyAsync(&maxrun, dmax, sizeof(maxrun), cudaMemcpyDeviceToHost, d->s));
		CZ_CK(d, cudaStreamSynchronize(d->s));
	}
	if (maxrun <= T) {
		k_bucket<C><<<cz_blocks(nbk, MSM_THREADS), MSM_THREADS, 0, d->s>>>(buckets, st, en, val,
										   bases, nbk, w0k);
		CZ_CK_LAUNCH(d, "k_bucket");
		return 0;
	}
	/* Every level's chunks are at most the first level's (a bucket never has
	 * more chunks than entries), so two buffers of the first bound serve all
	 * levels, and that bound is every level's grid (threads past the count
	 * on the device return at once). */
	unsigned levels = cz_msm32_hot_levels(maxrun, T);
	size_t cap = chunk_bound(nent, nbk, T);
	typename C::xyzz *p[2];
	CZ_TRY(sc.get(&p[0], cap));
	CZ_TRY(sc.get(&p[1], levels > 1 ? cap : 1));
	for (unsigned lv = 0; lv < levels; lv++) {
		size_t tbx = tb;
		k_nchunks<<<cz_blocks(nbk + 1, IDX_THREADS), IDX_THREADS, 0, d->s>>>(nch, st, en, nbk, T);
		CZ_CK_LAUNCH(d, "k_nchunks");
		CZ_CK(d, cub::DeviceScan::ExclusiveSum(tmp, tbx, nch, off, (int64_t)(nbk + 1), d->s));
		typename C::xyzz *out = p[lv & 1];
		if (lv == 0) {
			k_chunk_affine<C><<<cz_blocks(cap, MSM_THREADS), MSM_THREADS, 0, d->s>>>(
				out, off, nbk, st, en, val, bases, T);
			CZ_CK_LAUNCH(d, "k_chunk_affine");
		} else {
			k_chunk_xyzz<C><<<cz_blocks(cap, MSM_THREADS), MSM_THREADS, 0, d->s>>>(
				out, off, nbk, st, en, p[(lv - 1) & 1], T);
			CZ_CK_LAUNCH(d, "k_chunk_xyzz");
		}
		k_runs_next<<<cz_blocks(nbk, IDX_THREADS), IDX_THREADS, 0, d->s>>>(st, en, off, nbk);
		CZ_CK_LAUNCH(d, "k_runs_next");
	}
	k_bucket_xyzz<C><<<cz_blocks(nbk, MSM_THREADS), MSM_THREADS, 0, d->s>>>(
		buckets, st, en, p[(levels - 1) & 1], nbk, w0k);
	CZ_CK_LAUNCH(d, "k_bucket_xyzz");
	return 0;
}

/* 1. classify and compact: the big and the one scalars' indices (in *big,
 * *ones); their counts in *cnt on the device and *m, *nones on the host
 * (the one synchronisation of an MSM before its end). */
template <class C>
static int msm_classify(struct cz_cuda_dev *d, cz_scratch &sc, const typename C::fr *s, size_t n,
			uint32_t **big, uint32_t **ones, uint32_t **cnt, size_t *m, size_t *nones)
{
	uint8_t *fbig, *fone, *tmp = nullptr;
	uint32_t *iota;
	size_t tb = 0;

	CZ_TRY(sc.get(&fbig, n));
	CZ_TRY(sc.get(&fone, n));
	CZ_TRY(sc.get(&iota, n));
	CZ_TRY(sc.get(big, n));
	CZ_TRY(sc.get(ones, n));
	CZ_TRY(sc.get(cnt, 2));
	CZ_CK(d, cudaMemsetAsync(*cnt, 0, 2 * sizeof(uint32_t), d->s));
	if (n) {
		k_classify<C><<<cz_blocks(n, IDX_THREADS), IDX_THREADS, 0, d->s>>>(fbig, fone, iota, s, n);
		CZ_CK_LAUNCH(d, "k_classify");
		CZ_CK(d, cub::DeviceSelect::Flagged(nullptr, tb, iota, fbig, *big, *cnt, (int64_t)n, d->s));
		CZ_TRY(sc.get(&tmp, tb));
		CZ_CK(d, cub::DeviceSelect::Flagged(tmp, tb, iota, fbig, *big, *cnt, (int64_t)n, d->s));
		CZ_CK(d, cub::DeviceSelect::Flagged(tmp, tb, iota, fone, *ones, *cnt + 1, (int64_t)n, d->s));
	}
	uint32_t hc[2];
	CZ_CK(d, cudaMemcpyAsync(hc, *cnt, sizeof(hc), cudaMemcpyDeviceToHost, d->s));
	CZ_CK(d, cudaStreamSynchronize(d->s));
	*m = hc[0];
	*nones = hc[1];
	return 0;
}

/* 2-5. windows in batches: pairs, sort, bounds, buckets.  The m big
 * scalars' digits of c bits fill nwin·K buckets (*buckets, in sc). */
template <class C>
static int msm_buckets(struct cz_cuda_dev *d, cz_scratch &sc, typename C::xyzz **buckets,
		       const typename C::aff *bases, const typename C::fr *s, const uint32_t *big,
		       size_t m, unsigned c, unsigned nwin)
{
	typedef typename C::xyzz X;
	uint32_t K = cz_msm32_nbuckets(c);
	size_t nb = (size_t)nwin * K;
	/* per entry: 16 bytes of pairs (double-buffered key, value) and, if a
	 * batch takes the hot path, two chunk-sum arrays of 192 bytes per T
	 * entries (the rest of the chunks, one per bucket, is in the 1/2 kept) */
	const size_t per_entry = 16 + 2 * sizeof(X) / CZ_MSM32_HOT;
	size_t cap = (size_t)1 << 30, fr = cz_cuda_mem_free(d);
	if (fr / 2 / per_entry < cap)
		cap = fr / 2 / per_entry;
	unsigned batch = m ? (unsigned)(cap / m) : nwin;
	if (batch > nwin)
		batch = nwin;
	if (batch == 0)
		return -ENOMEM;
	unsigned kbits = 0;  /* keys run to batch·K, the zero digits' key */
	while (((uint64_t)1 << kbits) <= (uint64_t)batch * K)
		kbits++;
	size_t maxent = (size_t)batch * m, maxbk = (size_t)batch * K;
	uint32_t *key, *val, *key2, *val2, *st, *en, *nch, *off, *dmax;
	CZ_TRY(sc.get(&key, maxent));
	CZ_TRY(sc.get(&val, maxent));
	CZ_TRY(sc.get(&key2, maxent));
	CZ_TRY(sc.get(&val2, maxent));
	CZ_TRY(sc.get(&st, maxbk + 1));
	CZ_TRY(sc.get(&en, maxbk + 1));
	CZ_TRY(sc.get(&nch, maxbk + 1));
	CZ_TRY(sc.get(&off, maxbk + 1));
	CZ_TRY(sc.get(&dmax, 1));
	CZ_TRY(sc.get(buckets, nb));
	uint8_t *stmp = nullptr;
	size_t tb2 = 0, tb3 = 0, tb4 = 0;
	if (maxent) {
		CZ_CK(d, cub::DeviceRadixSort::SortPairs(nullptr, tb2, key, key2, val, val2,
							 (int64_t)maxent, 0, (int)kbits, d->s));
		CZ_CK(d, cub::DeviceReduce::Max(nullptr, tb3, nch, dmax, (int64_t)maxbk, d->s));
		CZ_CK(d, cub::DeviceScan::ExclusiveSum(nullptr, tb4, nch, off, (int64_t)(maxbk + 1), d->s));
		if (tb3 > tb2)
			tb2 = tb3;
		if (tb4 > tb2)
			tb2 = tb4;
		CZ_TRY(sc.get(&stmp, tb2));
	}
	for (unsigned w0 = 0; w0 < nwin; w0 += batch) {
		unsigned nw = w0 + batch < nwin ? batch : nwin - w0;
		size_t nent = (size_t)nw * m, nbk = (size_t)nw * K;
		CZ_CK(d, cudaMemsetAsync(st, 0, (nbk + 1) * sizeof(uint32_t), d->s));
		CZ_CK(d, cudaMemsetAsync(en, 0, (nbk + 1) * sizeof(uint32_t), d->s));
		if (nent) {
			k_pairs<C><<<cz_blocks(m, IDX_THREADS), IDX_THREADS, 0, d->s>>>(key, val, s, big,
											(uint32_t)m, w0, nw, c);
			CZ_CK_LAUNCH(d, "k_pairs");
			size_t tbx = tb2;
			CZ_CK(d, cub::DeviceRadixSort::SortPairs(stmp, tbx, key, key2, val, val2,
								 (int64_t)nent, 0, (int)kbits, d->s));
			k_bounds<<<cz_blocks(nent, IDX_THREADS), IDX_THREADS, 0, d->s>>>(st, en, key2, nent);
			CZ_CK_LAUNCH(d, "k_bounds");
		}
		CZ_TRY(buckets_fill<C>(d, sc, *buckets, st, en, val2, bases, nent, nbk, (size_t)w0 * K,
				       nch, off, dmax, stmp, tb2, CZ_MSM32_HOT));
	}
	return 0;
}

template <class C>
static int msm_dev(struct cz_cuda_dev *d, typename C::xyzz *out, const typename C::aff *bases,
		   const typename C::fr *s, size_t n, unsigned window, struct cz_cuda_msm_shape *shape)
{
	typedef typename C::xyzz X;
	cz_scratch sc(d);
	uint32_t *big = nullptr, *ones = nullptr, *cnt = nullptr;
	size_t m = 0, nones = 0;
	X *buckets = nullptr;

	if (n >= CZ_MSM32_NEG || (window && (window < 4 || window > 20)))
		return -EINVAL;
	CZ_TRY(msm_classify<C>(d, sc, s, n, &big, &ones, &cnt, &m, &nones));
	unsigned c = window ? window : C::window(m);
	unsigned nwin = C::nwin(c);
	CZ_TRY(msm_buckets<C>(d, sc, &buckets, bases, s, big, m, c, nwin));

	/* 6-7. segments, then per-window sums */
	uint32_t nseg = cz_msm32_nseg(c);
	size_t nsg = (size_t)nwin * nseg;
	X *sg, *sg2, *op, *op2;
	CZ_TRY(sc.get(&sg, nsg));
	CZ_TRY(sc.get(&sg2, nsg));
	k_segment<C><<<cz_blocks(nsg, MSM_THREADS), MSM_THREADS, 0, d->s>>>(sg, buckets, nwin, nseg, c);
	CZ_CK_LAUNCH(d, "k_segment");
	CZ_TRY(reduce<C>(d, &sg, &sg2, nsg, nseg));

	/* the ones: partial sums over the whole device, then one */
	size_t nt = cz_msm32_ones_threads((unsigned)d->sms, MSM_THREADS, nones);
	CZ_TRY(sc.get(&op, nt));
	CZ_TRY(sc.get(&op2, nt));
	k_ones<C><<<cz_blocks(nt, MSM_THREADS), MSM_THREADS, 0, d->s>>>(op, bases, ones, cnt + 1, nt);
	CZ_CK_LAUNCH(d, "k_ones");
	CZ_TRY(reduce<C>(d, &op, &op2, nt, 0));

	/* 8. the sums the host combines: out[0..nwin) windows, out[nwin] ones */
	CZ_CK(d, cudaMemcpyAsync(out, sg, nwin * sizeof(X), cudaMemcpyDeviceToDevice, d->s));
	CZ_CK(d, cudaMemcpyAsync(out + nwin, op, sizeof(X), cudaMemcpyDeviceToDevice, d->s));
	shape->nwin = nwin;
	shape->c = c;
	shape->m = (uint32_t)m;
	shape->nones = (uint32_t)nones;
	/* the scratch is freed in stream order, after these kernels */
	return 0;
}

int cz_cuda_msm_dev(struct cz_cuda_dev *d, cz_g1xyzz32 *out, const cz_g1a32 *bases,
		    const cz_fr32 *s, size_t n, unsigned window, struct cz_cuda_msm_shape *shape)
{
	return msm_dev<msm_bls>(d, out, bases, s, n, window, shape);
}

int cz_cuda_bn254_msm_dev(struct cz_cuda_dev *d, cz_bn254_g1xyzz32 *out,
			  const cz_bn254_g1a32 *bases, const cz_bn254_fr32 *s, size_t n,
			  unsigned window, struct cz_cuda_msm_shape *shape)
{
	return msm_dev<msm_bn254>(d, out, bases, s, n, window, shape);
}

/* Host bases and scalars through the device; *ms: the device time from
 * after the copies in to the sums' arrival (CUDA events). */
template <class C, typename HJ, typename HA>
static int msm_host(struct cz_cuda_dev *d, HJ *r, const HA *bases, const cz_scalar *s, size_t n,
		    unsigned window, float *ms,
		    void (*combine)(HJ *, const typename C::xyzz *, unsigned, unsigned,
				    const typename C::xyzz *))
{
	typedef typename C::xyzz X;
	int rc;

	static_assert(sizeof(HA) == sizeof(typename C::aff), "host and device affine points");
	pthread_mutex_lock(&d->lock);
	if (d->dead) {
		rc = -ENODEV;
	} else {
		cudaSetDevice(d->id);
		cz_scratch sc(d);
		typename C::aff *db;
		typename C::fr *ds;
		X *dr, hr[CZ_MSM32_MAXWIN + 1];
		struct cz_cuda_msm_shape sh = {};
		rc = sc.get(&db, n);
		if (!rc)
			rc = sc.get(&ds, n);
		if (!rc)
			rc = sc.get(&dr, CZ_MSM32_MAXWIN + 1);
		cudaError_t e = cudaSuccess;
		if (!rc && n)
			e = cz_cuda_h2d(d, db, bases, n * sizeof(*db));
		if (!rc && n && e == cudaSuccess)
			e = cz_cuda_h2d(d, ds, s, n * sizeof(*ds));
		if (!rc && e == cudaSuccess)
			e = cudaEventRecord(d->ev[0], d->s);
		if (!rc && e == cudaSuccess)
			rc = msm_dev<C>(d, dr, db, ds, n, window, &sh);
		if (!rc && e == cudaSuccess)
			e = cudaMemcpyAsync(hr, dr, (sh.nwin + 1) * sizeof(X), cudaMemcpyDeviceToHost, d->s);
		if (!rc && e == cudaSuccess)
			e = cudaEventRecord(d->ev[1], d->s);
		if (!rc && e == cudaSuccess)
			e = cudaStreamSynchronize(d->s);
		if (!rc && e == cudaSuccess && ms)
			e = cudaEventElapsedTime(ms, d->ev[0], d->ev[1]);
		if (!rc && e != cudaSuccess)
			rc = cz_cuda_fail(d, e, "MSM copies", __FILE__, __LINE__);
		if (!rc)
			combine(r, hr, sh.nwin, sh.c, &hr[sh.nwin]);
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

extern "C" int cz_cuda_msm_g1(struct cz_cuda_dev *d, cz_g1_jac *r, const cz_g1_affine *bases,
			      const cz_scalar *s, size_t n, unsigned window, float *ms)
{
	return msm_host<msm_bls>(d, r, bases, s, n, window, ms, cz_msm32_combine);
}

extern "C" int cz_cuda_bn254_msm_g1(struct cz_cuda_dev *d, cz_bn254_g1_jac *r,
				    const cz_bn254_g1_affine *bases, const cz_scalar *s, size_t n,
				    unsigned window, float *ms)
{
	return msm_host<msm_bn254>(d, r, bases, s, n, window, ms, cz_bn254_msm32_combine);
}

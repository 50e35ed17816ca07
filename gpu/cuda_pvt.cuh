/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_pvt.cuh — what the gpu/ .cu files share: the device struct, the error
 * check, stream-ordered scratch memory, launch helpers.  Private to the gpu/ .cu files.
 */
#ifndef CZ_GPU_CUDA_PVT_CUH
#define CZ_GPU_CUDA_PVT_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>

extern "C" {
#include "zk/field/fr.h"
#include "zk/curve/g1.h"
#include "zk/msm/msm.h"
#include "zk/field/bn254_fr.h"
#include "zk/curve/bn254_g1.h"
}
#include "gpu/cuda_pvt.h"
#include "gpu/msm32.h"
#include "gpu/ntt32.h"

#define CZ_CUDA_MAX_LOG2 27
#define CZ_CUDA_KEYS 4
#define CZ_CUDA_HSUMS (4 * (CZ_MSM32_MAXWIN + 1))  /* a partition's four MSMs */

/* One domain's device tables (gpu/ntt.cu), for either curve's Fr (the
 * pointers are its 32-bit type: cz_fr32 or cz_bn254_fr32). */
struct cz_cuda_dom {
	unsigned log2n, blog2;      /* L, and B: the shared-memory block stages */
	void *tw;                   /* omega^j, j < n/2 */
	void *tab;                  /* the gather tables, one allocation */
	void *hi[4], *lo[4];        /* inverse, coset, coset_inv, odd: c·z^k */
	unsigned s;                 /* lo has 2^s entries */
};

/* One proving key's resident points (gpu/cuda_dev.cu), of either curve:
 * the points are that curve's cz_g1a32 or cz_bn254_g1a32. */
struct cz_cuda_key {
	const void *id;             /* the host key's address; NULL: free slot */
	int curve;                  /* 0 BLS12-381, 1 BN254 (as dom[]) */
	uint32_t nvars, npc, log2n;
	/* fingerprint: a[last], b1[0], c[0], h[last], as bytes of the curve's
	 * affine points (96 or 64 bytes each) */
	unsigned char fp[4 * sizeof(cz_g1_affine)];
	void *a, *b1, *c, *h;
	uint64_t used;              /* LRU stamp */
};

struct cz_cuda_dev {
	int id;
	cudaStream_t s;
	pthread_mutex_t lock;       /* one call at a time per device */
	int dead;                   /* a sticky error: out of service */
	int sync;                   /* CZ_CUDA_SYNC=1: wait after every launch (CZ_CK_LAUNCH) */
	size_t smem;                /* shared memory per block */
	int sms;                    /* multiprocessors: the ones' grid scales with it */
	cudaMemPool_t pool;         /* the default pool cudaMallocAsync draws on */
	cudaEvent_t ev[2];          /* kernel timings (cz_cuda_ntt, _msm_g1, _groth16) */
	void *hsums;                /* pinned: the MSMs' window sums (CZ_CUDA_HSUMS XYZZ) */
	char desc[320];
	struct cz_cuda_dom *dom[2][CZ_CUDA_MAX_LOG2 + 1];  /* [0] BLS12-381, [1] BN254 */
	struct cz_cuda_key keys[CZ_CUDA_KEYS];
	uint64_t stamp;
};

/* Records err (what, where), marks the device dead if err is sticky, and
 * returns the errno to pass up: -ENOMEM, -EIO. */
int cz_cuda_fail(struct cz_cuda_dev *d, cudaError_t err, const char *what, const char *file,
		 int line);

#define CZ_CK(d, call)                                                                    \
	do {                                                                              \
		cudaError_t ck_e_ = (call);                                               \
		if (ck_e_ != cudaSuccess)                                                 \
			return cz_cuda_fail((d), ck_e_, #call, __FILE__, __LINE__);       \
	} while (0)

/* After the launch of kernel k (its name, for the message): launch errors
 * (bad configuration) are synchronous; with CZ_CUDA_SYNC=1 in the
 * environment (d->sync) the stream is also waited for, so a fault inside
 * the kernel is reported here, naming it, instead of at the next copy. */
cudaError_t cz_cuda_launched(struct cz_cuda_dev *d);
#define CZ_CK_LAUNCH(d, k)                                                                \
	do {                                                                              \
		cudaError_t ck_e_ = cz_cuda_launched(d);                                  \
		if (ck_e_ != cudaSuccess)                                                 \
			return cz_cuda_fail((d), ck_e_, k, __FILE__, __LINE__);           \
	} while (0)

/* Stream-ordered scratch: every allocation is freed (cudaFreeAsync) when the
 * Scratch goes out of scope, on every return path.  The device's memory pool
 * keeps the pages, so a partition's allocations after the first are cheap. */
struct cz_scratch {
	struct cz_cuda_dev *d;
	void *p[64];
	int n;
	explicit cz_scratch(struct cz_cuda_dev *dev) : d(dev), n(0) {}
	~cz_scratch()
	{
		for (int i = n; i-- > 0;)
			cudaFreeAsync(p[i], d->s);
	}
	template <typename T> int get(T **out, size_t count)
	{
		*out = nullptr;
		if (n == 64)
			return -ENOMEM;
		if (count == 0)
			count = 1;
		cudaError_t e = cudaMallocAsync((void **)out, count * sizeof(T), d->s);
		if (e != cudaSuccess)
			return cz_cuda_fail(d, e, "cudaMallocAsync", __FILE__, __LINE__);
		p[n++] = *out;
		return 0;
	}
	cz_scratch(const cz_scratch &) = delete;
	cz_scratch &operator=(const cz_scratch &) = delete;
};

#define CZ_TRY(call)                     \
	do {                             \
		int try_rc_ = (call);    \
		if (try_rc_)             \
			return try_rc_;  \
	} while (0)

static inline unsigned cz_blocks(size_t count, unsigned threads)
{
	return (unsigned)((count + threads - 1) / threads);
}

/* Free device memory for sizing: the driver's free bytes plus the pool's
 * idle pages (reserved but unused: cudaMallocAsync reuses them first), which
 * cudaMemGetInfo counts as used once the first partition has run. */
size_t cz_cuda_mem_free(struct cz_cuda_dev *d);
/* Hands the pool's idle pages back to the driver (before a cudaMalloc that
 * failed is retried). */
void cz_cuda_pool_trim(struct cz_cuda_dev *d);
/* A host-to-device copy on d's stream: from pinned memory when src lies in
 * a registered range (cz_cuda_host_register), else staged by the driver. */
cudaError_t cz_cuda_h2d(struct cz_cuda_dev *d, void *dst, const void *src, size_t bytes);

/* gpu/ntt.cu; each step twice, one per curve's Fr (C++ overloads on the
 * element type; the domain of BN254 comes from cz_cuda_bn254_dom_get). */
/* B, the shared-memory stages, for smem bytes of shared memory a block. */
unsigned cz_cuda_block_log2(size_t smem);
int cz_cuda_dom_get(struct cz_cuda_dev *d, unsigned log2n, struct cz_cuda_dom **out);
int cz_cuda_bn254_dom_get(struct cz_cuda_dev *d, unsigned log2n, struct cz_cuda_dom **out);
void cz_cuda_dom_free(struct cz_cuda_dom *m);
/* The DIF in place on device memory, natural order in, bit-reversed out. */
int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *a);
int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *a);
/* dst[k] = src[idx(k)]·table (gpu/ntt32.h); tab: -1 none, 0..3 as in dom. */
int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *dst,
		   const cz_fr32 *src, unsigned flags, int tab);
int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *dst,
		   const cz_bn254_fr32 *src, unsigned flags, int tab);
/* h[k] = a·b - c (standard form) from bit-reversed odd-coset values. */
int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *h,
		const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c);
int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_bn254_fr32 *h,
		const cz_bn254_fr32 *a, const cz_bn254_fr32 *b, const cz_bn254_fr32 *c);
enum { CZ_TAB_INV = 0, CZ_TAB_COSET = 1, CZ_TAB_COSET_INV = 2, CZ_TAB_ODD = 3 };

/* gpu/msm.cu: Σ s[i]·bases[i] on the device as the sums the host combines
 * (cz_msm32_combine): out[w] for the shape's nwin windows of c bits, and
 * out[nwin] the ones'; out has CZ_MSM32_MAXWIN + 1 entries of device memory. */
struct cz_cuda_msm_shape {
	unsigned nwin, c;
	uint32_t m, nones;          /* big and one scalars */
};
int cz_cuda_msm_dev(struct cz_cuda_dev *d, cz_g1xyzz32 *out, const cz_g1a32 *bases,
		    const cz_fr32 *s, size_t n, unsigned window, struct cz_cuda_msm_shape *shape);
int cz_cuda_bn254_msm_dev(struct cz_cuda_dev *d, cz_bn254_g1xyzz32 *out,
			  const cz_bn254_g1a32 *bases, const cz_bn254_fr32 *s, size_t n,
			  unsigned window, struct cz_cuda_msm_shape *shape);

#endif

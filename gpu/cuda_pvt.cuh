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
#include "zk/fr.h"
#include "zk/g1.h"
#include "zk/msm.h"
}
#include "gpu/cuda_pvt.h"
#include "gpu/msm32.h"
#include "gpu/ntt32.h"

#define CZ_CUDA_MAX_LOG2 27
#define CZ_CUDA_KEYS 4

/* One domain's device tables (gpu/ntt.cu). */
struct cz_cuda_dom {
	unsigned log2n, blog2;      /* L, and B: the shared-memory block stages */
	cz_fr32 *tw;                /* omega^j, j < n/2 */
	cz_fr32 *tab;               /* the gather tables, one allocation */
	cz_fr32 *hi[4], *lo[4];     /* inverse, coset, coset_inv, odd: c·z^k */
	unsigned s;                 /* lo has 2^s entries */
};

/* One proving key's resident points (gpu/cuda_dev.cu). */
struct cz_cuda_key {
	const void *id;             /* the host key's address; NULL: free slot */
	uint32_t nvars, npc, log2n;
	cz_g1_affine fp[4];         /* fingerprint: a[last], b1[0], c[0], h[last] */
	cz_g1a32 *a, *b1, *c, *h;
	uint64_t used;              /* LRU stamp */
};

struct cz_cuda_dev {
	int id;
	cudaStream_t s;
	pthread_mutex_t lock;       /* one call at a time per device */
	int dead;                   /* a sticky error: out of service */
	size_t smem;                /* shared memory per block */
	int sms;
	char desc[320];
	struct cz_cuda_dom *dom[CZ_CUDA_MAX_LOG2 + 1];
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

/* After a kernel launch: launch errors (bad configuration) are synchronous. */
#define CZ_CK_LAUNCH(d) CZ_CK(d, cudaGetLastError())

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

/* gpu/ntt.cu */
int cz_cuda_dom_get(struct cz_cuda_dev *d, unsigned log2n, struct cz_cuda_dom **out);
void cz_cuda_dom_free(struct cz_cuda_dom *m);
/* The DIF in place on device memory, natural order in, bit-reversed out. */
int cz_cuda_dif(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *a);
/* dst[k] = src[idx(k)]·table (gpu/ntt32.h); tab: -1 none, 0..3 as in dom. */
int cz_cuda_gather(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *dst,
		   const cz_fr32 *src, unsigned flags, int tab);
/* h[k] = a·b - c (standard form) from bit-reversed odd-coset values. */
int cz_cuda_abc(struct cz_cuda_dev *d, const struct cz_cuda_dom *m, cz_fr32 *h,
		const cz_fr32 *a, const cz_fr32 *b, const cz_fr32 *c);
enum { CZ_TAB_INV = 0, CZ_TAB_COSET = 1, CZ_TAB_COSET_INV = 2, CZ_TAB_ODD = 3 };

/* gpu/msm.cu: *out (device memory) = Σ s[i]·bases[i], all on the device. */
int cz_cuda_msm_dev(struct cz_cuda_dev *d, cz_g1xyzz32 *out, const cz_g1a32 *bases,
		    const cz_fr32 *s, size_t n, unsigned window);

#endif

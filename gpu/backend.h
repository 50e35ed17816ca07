/* SPDX-License-Identifier: MIT */
/*
 * gpu/backend.h — the device stage behind one interface: the daemon's
 * consumers hand a synthesized partition to a backend and get the five MSM
 * results back.  Backends: "cpu" (zk/ on a thread pool), "null" (completes
 * after a fixed delay without computing, like the kernel's null_blk, to test
 * the scheduler at GPU speeds), and "cuda" (NVIDIA GPUs, gpu/cuda.c; built
 * when nvcc is found, docs/gpu.md).
 */
#ifndef CZ_BACKEND_H
#define CZ_BACKEND_H

#include "zk/groth16.h"

struct cz_ntt_domain;

/* One partition's device work: inputs from synthesis, outputs for finalize. */
struct cz_dev_work {
	const struct cz_groth16_key *key;
	const struct cz_ntt_domain *dom;
	const cz_scalar *w;
	cz_fr *a, *b, *c;
	cz_scalar *h;
	struct cz_groth16_msms out;
};

struct cz_backend_opts {
	unsigned threads;       /* host threads per device (cpu backend) */
	unsigned delay_ms;      /* null backend: time per partition */
};

struct cz_device;

struct cz_backend {
	const char *name;
	/* Number of devices present; may be 0 ("no CUDA device"). */
	int (*count)(void);
	struct cz_device *(*open)(unsigned index, const struct cz_backend_opts *o,
				  char *err, size_t cap);
	int (*prove)(struct cz_device *d, struct cz_dev_work *w);
	void (*close)(struct cz_device *d);
	/* "cpu: 2 threads", "NVIDIA H200 (0000:3b:00.0), 141 GB" */
	const char *(*describe)(struct cz_device *d);
	int computes;           /* 0 for null: no real proof comes out */
};

const struct cz_backend *cz_backend_find(const char *name);
extern const struct cz_backend cz_backend_cpu;
extern const struct cz_backend cz_backend_null;
extern const struct cz_backend cz_backend_cuda;   /* with CZ_HAVE_CUDA only */

#endif

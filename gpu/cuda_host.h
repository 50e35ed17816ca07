/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_host.h — the cuda backend's host side (gpu/cuda.c): the G2 MSM
 * (B2) on a device's persistent host threads while the GPU works.  Apart
 * from the device so that it can be checked without one
 * (selftests/gpu_cuda_host.c: results, and no heap call per partition once
 * the pool's scratch has grown).  Built with CZ_HAVE_CUDA.
 */
#ifndef CZ_CUDA_HOST_H
#define CZ_CUDA_HOST_H

#include "zk/groth16.h"

#include <stddef.h>

struct cz_cuda_host;

/* The B2 thread "cz-b2.<index>" and its pool "cz-pool<index>.<k>" (threads:
 * 0 = every CPU), made now and kept until close.  NULL with err. */
struct cz_cuda_host *cz_cuda_host_open(unsigned index, unsigned threads, char *err, size_t cap);
/* Hands B2 = sum w[i] * k->b2[i] to the B2 thread; returns at once.  One at
 * a time (the engine proves one partition per device at a time). */
void cz_cuda_host_b2_post(struct cz_cuda_host *h, const struct cz_groth16_key *k, const cz_scalar *w,
			  cz_g2_jac *out);
/* Waits for the posted B2: 0, or -ENOMEM. */
int cz_cuda_host_b2_wait(struct cz_cuda_host *h);
unsigned cz_cuda_host_threads(const struct cz_cuda_host *h);
void cz_cuda_host_close(struct cz_cuda_host *h);

#endif

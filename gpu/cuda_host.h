/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_host.h — the cuda backend's host side (gpu/cuda.c): the G2 MSM
 * (B2) on a device's persistent host threads while the GPU works, and the
 * prove path that splits a partition of either curve between the two.
 * Apart from the device so that it can be checked without one
 * (selftests/gpu_cuda_host.c: B2 of both curves against the naive sum, no
 * heap call per partition once the pool's scratch has grown, and the prove
 * path's dispatch by curve on a stand-in device).  Built with CZ_HAVE_CUDA.
 */
#ifndef CZ_CUDA_HOST_H
#define CZ_CUDA_HOST_H

#include "gpu/backend.h"
#include "gpu/cuda_pvt.h"

#include <stddef.h>

struct cz_cuda_host;

/* The B2 thread "cz-b2.<index>" and its pool "cz-pool<index>.<k>" (threads:
 * 0 = every CPU), made now and kept until close.  NULL with err. */
struct cz_cuda_host *cz_cuda_host_open(unsigned index, unsigned threads, char *err, size_t cap);
/* Hands w's B2 (Σ w->w[i]·b2[i] over its key's nvars G2 points, of w's
 * curve) to the B2 thread, into w->out.b2 or w->bn_out.b2; returns at once.
 * One at a time (the engine proves one partition per device at a time). */
void cz_cuda_host_b2_post(struct cz_cuda_host *h, struct cz_dev_work *w);
/* Waits for the posted B2: 0, or -ENOMEM. */
int cz_cuda_host_b2_wait(struct cz_cuda_host *h);
unsigned cz_cuda_host_threads(const struct cz_cuda_host *h);
void cz_cuda_host_close(struct cz_cuda_host *h);

/* The device side of a prove as cz_cuda_host_prove calls it: for the
 * backend, cz_cuda_dead, cz_cuda_groth16 and cz_cuda_bn254_groth16 on a
 * struct cz_cuda_dev (gpu/cuda.c); for the tests, a stand-in. */
struct cz_cuda_dev_ops {
	int (*dead)(void *dev);
	int (*groth16)(void *dev, const struct cz_cuda_g16 *in, struct cz_cuda_g16_out *out);
	int (*bn254_groth16)(void *dev, const struct cz_cuda_bn254_g16 *in,
			     struct cz_cuda_bn254_g16_out *out);
};
/* The backend's prove: B2 posted to the host side, the rest of w's device
 * stage on dev by w's curve (groth16 or bn254_groth16, with its key's G1
 * points, w's scalars and a, b, c), B2 joined, the five results in w's out
 * or bn_out.  0, or a negative errno: -ENODEV for a device out of service
 * (found before B2 takes the host's cores), -EINVAL for a work of neither
 * curve or without a key, else the device's or B2's error. */
int cz_cuda_host_prove(struct cz_cuda_host *h, const struct cz_cuda_dev_ops *ops, void *dev,
		       struct cz_dev_work *w);

#endif

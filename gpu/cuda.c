/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda.c — the "cuda" backend: the device stage of a partition on an
 * NVIDIA GPU (gpu/cuda_dev.cu and the kernels it drives), with the G2 MSM
 * (B2) on host cores at the same time, as the device cannot do G2 yet and
 * host cores are idle while it works.
 *
 * prove(): hand B2 to the device's B2 thread (cz_msm_g2 on the device's
 * host pool), run the device part (NTTs, h, MSMs A, B1, C, H), wait for B2.
 * The host side (gpu/cuda_host.h) is apart from the device: the B2 thread
 * ("cz-b2.<D>"), the pool ("cz-pool<D>.<k>") and the one job slot are made
 * at open and live as long as the device, so a prove creates no thread,
 * builds nothing, and once the pool's scratch has grown to the key's MSM
 * (lib/pool.h) makes no heap call on the host; selftests/gpu_cuda_host.c
 * checks both without a GPU.  On the device side, scratch comes from the
 * stream-ordered pool and domain tables and keys are cached
 * (gpu/cuda_dev.cu), so steady state makes no driver allocation either.  A device error fails
 * the partition with a negative code and, if sticky, takes the device out of
 * service (later calls fail at once); the engine's finalizer verifies every
 * proof, so a device fault can cost a partition, never a bad proof.
 *
 * Built only with CZ_HAVE_CUDA (gpu/gpu.mk); without it this file is empty
 * and the backend table has no "cuda" row.
 */
#ifdef CZ_HAVE_CUDA
#include "gpu/backend.h"
#include "gpu/cuda_host.h"
#include "gpu/cuda_pvt.h"
#include "lib/pool.h"
#include "lib/thread.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the host side (gpu/cuda_host.h): B2 on persistent threads ---- */

/* One B2 MSM handed to the device's B2 thread; in the host struct, so a
 * prove posts it without building anything. */
struct b2_job {
	const struct cz_groth16_key *key;
	const cz_scalar *w;
	cz_g2_jac *out;
	int rc;
};

struct cz_cuda_host {
	struct cz_pool *pool;   /* host threads for B2 */
	pthread_t b2;
	pthread_mutex_t lock;   /* job, posted, done, quit */
	pthread_cond_t cv;
	struct b2_job job;
	bool posted, done, quit;
	unsigned index;
};

/* The B2 thread: waits for a job, runs it on the pool, signals. */
static void *b2_main(void *v)
{
	struct cz_cuda_host *h = v;

	cz_thread_name("cz-b2.%u", h->index);
	pthread_mutex_lock(&h->lock);
	for (;;) {
		while (!h->posted && !h->quit)
			pthread_cond_wait(&h->cv, &h->lock);
		if (h->quit)
			break;
		h->posted = false;
		struct b2_job *j = &h->job;
		pthread_mutex_unlock(&h->lock);
		j->rc = cz_msm_g2(j->out, j->key->b2, j->w, j->key->nvars, h->pool);
		pthread_mutex_lock(&h->lock);
		h->done = true;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

struct cz_cuda_host *cz_cuda_host_open(unsigned index, unsigned threads, char *err, size_t cap)
{
	struct cz_cuda_host *h = calloc(1, sizeof(*h));
	char name[16];

	if (!h) {
		snprintf(err, cap, "cuda device %u: out of memory", index);
		return NULL;
	}
	snprintf(name, sizeof(name), "cz-pool%u", index);
	h->index = index;
	h->pool = cz_pool_create_named(threads, name);
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cv, NULL);
	if (!h->pool || pthread_create(&h->b2, NULL, b2_main, h)) {
		snprintf(err, cap, "cuda device %u: cannot start host threads", index);
		cz_pool_destroy(h->pool);
		pthread_mutex_destroy(&h->lock);
		pthread_cond_destroy(&h->cv);
		free(h);
		return NULL;
	}
	return h;
}

void cz_cuda_host_b2_post(struct cz_cuda_host *h, const struct cz_groth16_key *k, const cz_scalar *w,
			  cz_g2_jac *out)
{
	pthread_mutex_lock(&h->lock);
	h->job = (struct b2_job){ k, w, out, 0 };
	h->done = false;
	h->posted = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->lock);
}

int cz_cuda_host_b2_wait(struct cz_cuda_host *h)
{
	pthread_mutex_lock(&h->lock);
	while (!h->done)
		pthread_cond_wait(&h->cv, &h->lock);
	int rc = h->job.rc;
	pthread_mutex_unlock(&h->lock);
	return rc ? -ENOMEM : 0;
}

unsigned cz_cuda_host_threads(const struct cz_cuda_host *h)
{
	return cz_pool_nthreads(h->pool);
}

void cz_cuda_host_close(struct cz_cuda_host *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	h->quit = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->lock);
	pthread_join(h->b2, NULL);
	pthread_mutex_destroy(&h->lock);
	pthread_cond_destroy(&h->cv);
	cz_pool_destroy(h->pool);
	free(h);
}

/* ---- the backend ---- */

struct cz_device {
	struct cz_cuda_dev *cu;
	struct cz_cuda_host *host;
	unsigned index;
	char desc[256];
};

static int cuda_count(void)
{
	char why[256];
	int n = cz_cuda_count(why, sizeof(why));

	if (n <= 0)
		fprintf(stderr, "cuzk: cuda: %s\n", why);
	return n;
}

static struct cz_device *cuda_open(unsigned index, const struct cz_backend_opts *o, char *err,
				   size_t cap)
{
	struct cz_device *d = calloc(1, sizeof(*d));

	if (!d) {
		snprintf(err, cap, "cuda device %u: out of memory", index);
		return NULL;
	}
	d->cu = cz_cuda_open(index, err, cap);
	if (!d->cu) {
		free(d);
		return NULL;
	}
	d->index = index;
	d->host = cz_cuda_host_open(index, o->threads, err, cap);
	if (!d->host) {
		cz_cuda_close(d->cu);
		free(d);
		return NULL;
	}
	snprintf(d->desc, sizeof(d->desc), "cuda %u: %s; G2 on %u host threads", index,
		 cz_cuda_describe(d->cu), cz_cuda_host_threads(d->host));
	return d;
}

static int cuda_prove(struct cz_device *d, struct cz_dev_work *w)
{
	const struct cz_groth16_key *k = w->key;
	struct cz_cuda_g16 in = {
		.key_id = k, .nvars = k->nvars, .npc = k->npub + 1, .log2n = k->log2n,
		.a = k->a, .b1 = k->b1, .c = k->c, .h = k->h, .w = w->w,
		.pa = w->a, .pb = w->b, .pc = w->c,
	};
	struct cz_cuda_g16_out out;

	/* A device out of service fails at once, before B2 takes the host's
	 * cores for a proof that cannot complete. */
	if (cz_cuda_dead(d->cu))
		return -ENODEV;
	/* The engine runs one prove per device at a time (its device lock),
	 * so the host side's one job slot is enough. */
	cz_cuda_host_b2_post(d->host, k, w->w, &w->out.b2);
	int rc = cz_cuda_groth16(d->cu, &in, &out);
	int brc = cz_cuda_host_b2_wait(d->host);
	if (rc)
		return rc;
	if (brc)
		return brc;
	w->out.a = out.a;
	w->out.b1 = out.b1;
	w->out.c = out.c;
	w->out.h = out.h;
	return 0;
}

/* The key's points stay resident on the GPU (LRU of keys) until dropped. */
static void cuda_unload_key(struct cz_device *d, const struct cz_groth16_key *k)
{
	cz_cuda_forget_key(d->cu, k);
}

static void cuda_close(struct cz_device *d)
{
	if (!d)
		return;
	cz_cuda_host_close(d->host);
	cz_cuda_close(d->cu);
	free(d);
}

static const char *cuda_describe(struct cz_device *d)
{
	return d->desc;
}

const struct cz_backend cz_backend_cuda = {
	.name = "cuda", .count = cuda_count, .input = CZ_BACKEND_IN_SYNTH,
	.open = cuda_open, .prove = cuda_prove, .finish = cz_backend_groth16_finish,
	.unload_key = cuda_unload_key, .close = cuda_close, .describe = cuda_describe,
	.pci_bus_id = cz_cuda_pci_bus_id, .pin_host = cz_cuda_host_register,
	.unpin_host = cz_cuda_host_unregister,
};
#else
/* Without nvcc there is no CUDA backend; ISO C wants something in a file. */
typedef int cz_cuda_backend_absent;
#endif

/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda.c — the "cuda" backend: the device stage of a partition on an
 * NVIDIA GPU (gpu/cuda_dev.cu and the kernels it drives), with the G2 MSM
 * (B2) on host cores at the same time, as the device cannot do G2 yet and
 * host cores are idle while it works.  Both curves: a BLS12-381 or a BN254
 * (bn128) work takes the same path with its curve's B2 MSM on the host
 * (cz_msm_g2, cz_bn254_msm_g2) and its curve's device stage
 * (cz_cuda_groth16, cz_cuda_bn254_groth16: one template, gpu/cuda_dev.cu).
 *
 * prove(): hand B2 to the device's B2 thread (on the device's host pool),
 * run the device part (NTTs, h, MSMs A, B1, C, H), wait for B2.  The split
 * (cz_cuda_host_prove) calls the device through a table of three entry
 * points, so the tests drive it on a stand-in device without a GPU.
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
#include "zk/msm/bn254_msm.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the host side (gpu/cuda_host.h): B2 on persistent threads ---- */

struct cz_cuda_host {
	struct cz_pool *pool;   /* host threads for B2 */
	pthread_t b2;
	pthread_mutex_t lock;   /* job, rc, posted, done, quit */
	pthread_cond_t cv;
	struct cz_dev_work *job;        /* the posted B2's work, of either curve */
	int rc;
	bool posted, done, quit;
	unsigned index;
};

/* One B2 on the pool, over the work's curve. */
static int b2_run(struct cz_dev_work *w, struct cz_pool *pool)
{
	if (cz_dev_work_bn254(w))
		return cz_bn254_msm_g2(&w->bn_out.b2, w->bn_key->b2, w->w, w->bn_key->nvars, pool);
	return cz_msm_g2(&w->out.b2, w->key->b2, w->w, w->key->nvars, pool);
}

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
		struct cz_dev_work *w = h->job;
		pthread_mutex_unlock(&h->lock);
		int rc = b2_run(w, h->pool);
		pthread_mutex_lock(&h->lock);
		h->rc = rc;
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

void cz_cuda_host_b2_post(struct cz_cuda_host *h, struct cz_dev_work *w)
{
	pthread_mutex_lock(&h->lock);
	h->job = w;
	h->rc = 0;
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
	int rc = h->rc;
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

/* The device's half of one partition, per curve: the key's G1 points (its
 * address is the cache's id), the scalars and a, b, c, to the device; its
 * four G1 results back into the work. */
static int dev_bls(const struct cz_cuda_dev_ops *ops, void *dev, struct cz_dev_work *w)
{
	const struct cz_groth16_key *k = w->key;
	struct cz_cuda_g16 in = {
		.key_id = k, .nvars = k->nvars, .npc = k->npub + 1, .log2n = k->log2n,
		.a = k->a, .b1 = k->b1, .c = k->c, .h = k->h, .w = w->w,
		.pa = w->a, .pb = w->b, .pc = w->c,
	};
	struct cz_cuda_g16_out out;
	int rc = ops->groth16(dev, &in, &out);

	if (!rc) {
		w->out.a = out.a;
		w->out.b1 = out.b1;
		w->out.c = out.c;
		w->out.h = out.h;
	}
	return rc;
}

static int dev_bn254(const struct cz_cuda_dev_ops *ops, void *dev, struct cz_dev_work *w)
{
	const struct cz_bn254_groth16_key *k = w->bn_key;
	struct cz_cuda_bn254_g16 in = {
		.key_id = k, .nvars = k->nvars, .npc = k->npub + 1, .log2n = k->log2n,
		.a = k->a, .b1 = k->b1, .c = k->c, .h = k->h, .w = w->w,
		.pa = w->bn_a, .pb = w->bn_b, .pc = w->bn_c,
	};
	struct cz_cuda_bn254_g16_out out;
	int rc = ops->bn254_groth16(dev, &in, &out);

	if (!rc) {
		w->bn_out.a = out.a;
		w->bn_out.b1 = out.b1;
		w->bn_out.c = out.c;
		w->bn_out.h = out.h;
	}
	return rc;
}

int cz_cuda_host_prove(struct cz_cuda_host *h, const struct cz_cuda_dev_ops *ops, void *dev,
		       struct cz_dev_work *w)
{
	bool bn = cz_dev_work_bn254(w);

	/* a work of neither curve (0 is BLS12-381's, as backend.h allows), or
	 * no key: nothing to read, refused before anything starts */
	if ((w->curve != CZ_CURVE_BN254 && w->curve != CZ_CURVE_BLS12_381 && w->curve != 0) ||
	    !w->key)
		return -EINVAL;
	/* A device out of service fails at once, before B2 takes the host's
	 * cores for a proof that cannot complete. */
	if (ops->dead(dev))
		return -ENODEV;
	/* The engine runs one prove per device at a time (its device lock),
	 * so the host side's one job slot is enough. */
	cz_cuda_host_b2_post(h, w);
	/* B2 is under way: the engine's put-off wake-ups (a few us) go now,
	 * ahead of a GPU stage of hundreds of ms that the device calls below
	 * run synchronously. */
	cz_dev_work_started(w);
	int rc = bn ? dev_bn254(ops, dev, w) : dev_bls(ops, dev, w);
	int brc = cz_cuda_host_b2_wait(h);     /* joined on every path: B2 writes into w */
	return rc ? rc : brc;
}

/* The real device: gpu/cuda_dev.cu's entry points. */
static int ops_dead(void *dev)
{
	return cz_cuda_dead(dev);
}

static int ops_groth16(void *dev, const struct cz_cuda_g16 *in, struct cz_cuda_g16_out *out)
{
	return cz_cuda_groth16(dev, in, out);
}

static int ops_bn254_groth16(void *dev, const struct cz_cuda_bn254_g16 *in,
			     struct cz_cuda_bn254_g16_out *out)
{
	return cz_cuda_bn254_groth16(dev, in, out);
}

static const struct cz_cuda_dev_ops cuda_ops = {
	.dead = ops_dead, .groth16 = ops_groth16, .bn254_groth16 = ops_bn254_groth16,
};

static int cuda_prove(struct cz_device *d, struct cz_dev_work *w)
{
	return cz_cuda_host_prove(d->host, &cuda_ops, d->cu, w);
}

/* The key's points stay resident on the GPU (LRU of keys) until dropped;
 * k is either curve's key (the cache's id is its address). */
static void cuda_unload_key(struct cz_device *d, const void *k)
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
	.name = "cuda", .count = cuda_count, .input = CZ_BACKEND_IN_SYNTH, .bn254 = true,
	.open = cuda_open, .prove = cuda_prove, .finish = cz_backend_groth16_finish,
	.unload_key = cuda_unload_key, .close = cuda_close, .describe = cuda_describe,
	.pci_bus_id = cz_cuda_pci_bus_id, .pin_host = cz_cuda_host_register,
	.unpin_host = cz_cuda_host_unregister,
};
#else
/* Without nvcc there is no CUDA backend; ISO C wants something in a file. */
typedef int cz_cuda_backend_absent;
#endif

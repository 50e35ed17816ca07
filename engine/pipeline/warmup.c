/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/warmup.c — a device's warm-up proof, the last thing /readyz and
 * sd_notify's READY=1 wait for (engine/evidence/metrics.c, tools/cuzkd/notify.c).
 *
 * A device that opens is not yet a device that proves: a driver that
 * faults at the first kernel, a backend that cannot run this key's sizes,
 * a device process that dies at its first partition.  So before cuzkd says
 * it is ready, the first consumer of each device (engine/pipeline/consume.c), under
 * the device lock and before it takes any work, proves one partition of a
 * small built-in circuit (merkle at 2^CZ_BUILTIN_MIN_LOG2) through the same
 * backend calls a job uses (prove, then finish, which verifies the proof
 * for cpu and cuda), and publishes the outcome in the device's line of the
 * pipe's shared region: so it works the same whether the consumer runs in
 * cuzkd or in the device's process (--isolation process), and again after
 * that process restarts.
 *
 * The key comes from the insecure development setup with a fixed seed
 * (cz_curve_devkey_make, over the built-in circuits' curve; the proof goes
 * through that curve's ops, as a job's does): it
 * never leaves this file, no user partition is ever proved with it, and
 * each device is told to forget it after its proof (unload_key).  The setup
 * costs ~270 ms of one core on the loaded 2-core VM (its fixed-base tables,
 * zk/msm/fixed_base.c, are sized for large keys), so it is made once per process
 * and started early (cz_warmup_prepare, from cz_engine_create, so that it
 * overlaps loading the keys given at start); every device's warm-up then
 * shares it.  The proof's buffers are allocated and freed at the consumer's
 * start, before it serves, so the per-partition path stays without heap
 * calls.  Cost per device: a few ms on the cpu backend; on the null
 * backend, one --null-delay-ms.
 */
#include "engine/engine_pvt.h"
#include "zk/groth16/builtin.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP_SEED 0x637a7761726d7570ull       /* "czwarmup": fixed, see the top */

/* The process's warm-up circuit, key and witness: made once, kept. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cz_curve_devkey dk;
static char key_err[256];
static int key_rc = -1;

static void key_make(void)
{
	char err[240] = "";
	key_rc = cz_curve_devkey_make("merkle", CZ_BUILTIN_MIN_LOG2, WARMUP_SEED, &dk, err, sizeof(err));
	if (key_rc)
		snprintf(key_err, sizeof(key_err), "warm-up %s", err);
}

static void *prepare_main(void *v)
{
	(void)v;
	pthread_once(&once, key_make);
	return NULL;
}

int cz_warmup_prepare(pthread_t *tid)
{
	return pthread_create(tid, NULL, prepare_main, NULL) ? -1 : 0;
}

int cz_warmup_device(const struct cz_backend *be, struct cz_device *hw, char *why, size_t cap)
{
	union cz_dev_proof proof;
	void *dom = NULL;
	void *pub = NULL;
	void *mem = NULL;
	int rc = -1;

	pthread_once(&once, key_make);
	if (key_rc) {
		snprintf(why, cap, "%s", key_err);
		return -1;
	}
	const struct cz_curve_ops *cv = cz_curve_ops(dk.curve);
	const union cz_curve_key *key = &dk.key;
	struct cz_dev_work w = { .part = 0 };
	cv->work(&w, key, NULL, NULL);
	if (be->input == CZ_BACKEND_IN_SYNTH) {
		uint64_t bytes = cv->part_bytes(key);
		dom = cv->dom_create(key->log2n);
		mem = aligned_alloc(64, (bytes + 63) & ~(uint64_t)63);
		if (!dom || !mem) {
			snprintf(why, cap, "warm-up buffers: out of memory");
			goto out;
		}
		cv->work(&w, key, dom, mem);
		memcpy((void *)w.w, dk.w, (size_t)key->nvars * CZ_CURVE_FR_BYTES);
		cv->synth_abc(&w);
	}
	int prc = be->prove(hw, &w);
	if (prc) {
		snprintf(why, cap, "warm-up proof: the device stage failed (%d)", prc);
		goto out;
	}
	pub = calloc(key->npub + 1, CZ_CURVE_FR_BYTES);
	if (!pub) {
		snprintf(why, cap, "warm-up: out of memory");
		goto out;
	}
	char ferr[200] = "";
	if (be->finish(&w, pub, &proof, ferr, sizeof(ferr))) {
		snprintf(why, cap, "warm-up proof did not verify: %s", ferr);
		goto out;
	}
	snprintf(why, cap, "warm-up proof verified (2^%u merkle)", key->log2n);
	rc = 0;
out:
	if (be->unload_key)
		be->unload_key(hw, key);
	if (mem) {
		cv->part_wipe(key, mem);
		free(mem);
	}
	free(pub);
	if (dom)
		cv->dom_destroy(dom);
	return rc;
}

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
 * The key comes from the insecure development setup with a fixed seed: it
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
#include "synth/part.h"
#include "synth/synth.h"
#include "zk/groth16/builtin.h"
#include "zk/ntt/ntt.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP_SEED 0x637a7761726d7570ull       /* "czwarmup": fixed, see the top */

/* The process's warm-up circuit, key and witness: made once, kept. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cz_groth16_key key;
static cz_fr *wf;
static char key_err[256];
static int key_rc = -1;

static void key_make(void)
{
	struct cz_cs cs;
	char err[256] = "";
	if (cz_builtin_build("merkle", CZ_BUILTIN_MIN_LOG2, 1, &cs, &wf, err)) {
		snprintf(key_err, sizeof(key_err), "warm-up circuit: %.200s", err);
		return;
	}
	if (cz_groth16_devsetup(&cs, WARMUP_SEED, &key, NULL))
		snprintf(key_err, sizeof(key_err), "warm-up key: out of memory");
	else
		key_rc = 0;
	cz_cs_free(&cs);
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
	union cz_dev_proof proof;       /* the .bls member: the warm-up key is BLS12-381 */
	struct cz_ntt_domain *dom = NULL;
	cz_fr *pub = NULL;
	void *mem = NULL;
	int rc = -1;

	pthread_once(&once, key_make);
	if (key_rc) {
		snprintf(why, cap, "%s", key_err);
		return -1;
	}
	struct cz_dev_work w = { .key = &key, .part = 0 };
	if (be->input == CZ_BACKEND_IN_SYNTH) {
		struct cz_synth_part b;
		uint64_t bytes = cz_synth_part_bytes(&key);
		dom = cz_ntt_domain_create(key.log2n);
		mem = aligned_alloc(64, (bytes + 63) & ~(uint64_t)63);
		if (!dom || !mem) {
			snprintf(why, cap, "warm-up buffers: out of memory");
			goto out;
		}
		cz_synth_part_carve(&key, mem, &b);
		for (uint32_t i = 0; i < key.nvars; i++)
			cz_fr_from_mont(b.w[i].l, &wf[i]);
		cz_synth_abc(&key, b.w, b.a, b.b, b.c, NULL);
		w.dom = dom;
		w.w = b.w;
		w.a = b.a;
		w.b = b.b;
		w.c = b.c;
		w.h = b.h;
	}
	int prc = be->prove(hw, &w);
	if (prc) {
		snprintf(why, cap, "warm-up proof: the device stage failed (%d)", prc);
		goto out;
	}
	pub = calloc(key.npub + 1, sizeof(*pub));
	if (!pub) {
		snprintf(why, cap, "warm-up: out of memory");
		goto out;
	}
	char ferr[200] = "";
	if (be->finish(&w, pub, &proof, ferr, sizeof(ferr))) {
		snprintf(why, cap, "warm-up proof did not verify: %s", ferr);
		goto out;
	}
	snprintf(why, cap, "warm-up proof verified (2^%u merkle)", key.log2n);
	rc = 0;
out:
	if (be->unload_key)
		be->unload_key(hw, &key);
	if (mem) {
		explicit_bzero(mem, cz_synth_part_bytes(&key));
		free(mem);
	}
	free(pub);
	cz_ntt_domain_destroy(dom);
	return rc;
}

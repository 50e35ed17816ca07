/* SPDX-License-Identifier: MIT */
/*
 * gpu/backend.h — the device stage behind one interface: the daemon's
 * consumers hand a synthesized partition to a backend and get the five MSM
 * results back, and the finalizer asks the backend to turn them into a
 * proof.  Backends: "cpu" (zk/ on a thread pool), "cuda" (NVIDIA GPUs, in a
 * build with nvcc), "null" (completes after a fixed delay without
 * computing, like the kernel's null_blk, to test the scheduler at GPU
 * speeds).
 *
 * Everything the engine must do differently for a backend is a field or an
 * op here (input, stand_in, simulated, finish, unload_key, pin_host), so engine/ has
 * no branch that names a backend.
 */
#ifndef CZ_BACKEND_H
#define CZ_BACKEND_H

#include "zk/groth16/bn254_groth16.h"
#include "zk/curve/curve_id.h"
#include "zk/groth16/groth16.h"

#include <stdbool.h>
#include <stddef.h>

struct cz_ntt_domain;
struct cz_bn254_ntt_domain;

/* The device stage's results and the proof, of either curve. */
union cz_dev_msms {
	struct cz_groth16_msms bls;
	struct cz_bn254_groth16_msms bn;
};
union cz_dev_proof {
	struct cz_groth16_proof bls;
	struct cz_bn254_groth16_proof bn;
};

/* One partition's device work: inputs from synthesis, outputs for finalize.
 * curve says which member of each union is live: BLS12-381 (or 0, for a
 * work zeroed by a caller of one curve only) the plain names, BN254 the
 * bn_ ones; msms is out or bn_out as a whole, for copying. */
struct cz_dev_work {
	enum cz_curve curve;
	union {
		const struct cz_groth16_key *key;
		const struct cz_bn254_groth16_key *bn_key;
	};
	union {
		const struct cz_ntt_domain *dom;
		const struct cz_bn254_ntt_domain *bn_dom;
	};
	const cz_scalar *w;
	union { cz_fr *a; cz_bn254_fr *bn_a; };
	union { cz_fr *b; cz_bn254_fr *bn_b; };
	union { cz_fr *c; cz_bn254_fr *bn_c; };
	cz_scalar *h;
	union {
		struct cz_groth16_msms out;
		struct cz_bn254_groth16_msms bn_out;
		union cz_dev_msms msms;
	};
	uint32_t part;          /* the partition's index in its job (tests: --null-fault-part) */
	/* The engine's, or NULL: what its consumer put off until the device
	 * is busy again (the wake-ups of the partition before, engine/
	 * consume.c).  prove() calls it through cz_dev_work_started as soon
	 * as the device has the work; the engine calls it after prove() if
	 * the backend did not. */
	void (*started)(void *arg);
	void *started_arg;
};

static inline bool cz_dev_work_bn254(const struct cz_dev_work *w)
{
	return w->curve == CZ_CURVE_BN254;
}

/* Once per work: the first call runs the engine's hook, later ones nothing. */
static inline void cz_dev_work_started(struct cz_dev_work *w)
{
	void (*f)(void *) = w->started;
	w->started = NULL;
	if (f)
		f(w->started_arg);
}

struct cz_backend_opts {
	unsigned threads;       /* host threads per device (cpu backend; cuda: for G2) */
	unsigned delay_ms;      /* null backend: time per partition */
	unsigned synth_ms;      /* null backend: stand-in synthesis time per partition */
	/* null backend, for tests of --isolation process: a segfault on
	 * purpose in device fault_dev's fault_nth-th prove of each of its
	 * processes (0: never), and in every prove of partition index
	 * fault_part + 1 (0: none). */
	unsigned fault_dev, fault_nth, fault_part;
};

/* What prove() reads, so what the engine prepares for it. */
enum cz_backend_input {
	/* w, a, b, c: the engine reads the witness and synthesizes (synth/)
	 * into a block laid out by synth/part.h. */
	CZ_BACKEND_IN_SYNTH,
	/* Nothing: no witness read, no buffer; stand_in() runs on the
	 * synthesis worker in synthesis's place. */
	CZ_BACKEND_IN_NONE,
};

struct cz_device;

struct cz_backend {
	const char *name;
	/* Number of devices present; may be 0 ("no CUDA device"). */
	int (*count)(void);
	/* Devices are simulated: open() makes any index, count() is only the
	 * default number (null; cpu: pools sharing the CPUs). */
	bool simulated;
	/* By default one device per NUMA node with CPUs (cpu: a pool per
	 * node; count() is this machine's such nodes, and a plan of another
	 * machine's topology has one per node of that one; engine/place/numa.c). */
	bool per_node;
	enum cz_backend_input input;
	/* prove() and finish() take BN254 work too (cz_dev_work.curve); a
	 * backend without it is refused bn128 keys at load. */
	bool bn254;
	void (*stand_in)(const struct cz_backend_opts *o);      /* CZ_BACKEND_IN_NONE */
	struct cz_device *(*open)(unsigned index, const struct cz_backend_opts *o,
				  char *err, size_t cap);
	int (*prove)(struct cz_device *d, struct cz_dev_work *w);
	/* The device's results to the proof and its public inputs pub (npub
	 * values of the work's curve's Fr, Montgomery form: cz_fr or
	 * cz_bn254_fr, both 32 bytes), on the finalizer: for cpu and cuda,
	 * cz_backend_groth16_finish; null writes zeros.  0, or a
	 * CZ_GROTH16_* code with err set to the cause. */
	int (*finish)(const struct cz_dev_work *w, void *pub, union cz_dev_proof *p,
		      char *err, size_t cap);
	/* Drops what device d keeps of key k, either curve's key struct (cuda:
	 * its resident copy of the points, found by k's address).  The engine
	 * calls it on every device when k is unloaded, before freeing k, once
	 * no job uses k.  NULL: nothing kept. */
	void (*unload_key)(struct cz_device *d, const void *k);
	/* Pins [base, base + len), host memory the process keeps mapped (a
	 * partition arena, a key's shared region), so the devices copy from it
	 * by DMA, not through staging buffers; once per region, before a prove
	 * reads it, in the process whose consumers run the devices (cuda:
	 * cudaHostRegister, every page made resident).  unpin_host before the
	 * region is unmapped.  A failure is logged and costs only copy speed.
	 * NULL: nothing to pin (cpu, null). */
	int (*pin_host)(void *base, size_t len);
	void (*unpin_host)(void *base);
	void (*close)(struct cz_device *d);
	/* Device index's PCI bus id "0000:3b:00.0" into buf, before open (the
	 * engine places the device's node by it).  0, or -1 when it has none;
	 * NULL: no device of this backend has one (cpu, null). */
	int (*pci_bus_id)(unsigned index, char *buf, size_t cap);
	/* "cpu: 2 threads", "NVIDIA H200 (0000:3b:00.0), 141 GB" */
	const char *(*describe)(struct cz_device *d);
};

/* NULL if this build has no backend of that name. */
const struct cz_backend *cz_backend_find(const char *name);
/* "cpu, null, cuda": the backends of this build, for messages and --help
 * (with a note when cuda is left out for want of nvcc). */
const char *cz_backend_names(void);

/* finish() of the backends that compute: the public inputs from w, r and s
 * from getrandom, the proof assembled and verified against the key, r and s
 * wiped (zk/groth16/groth16.h, cz_groth16_finish). */
int cz_backend_groth16_finish(const struct cz_dev_work *w, void *pub, union cz_dev_proof *p,
			      char *err, size_t cap);

extern const struct cz_backend cz_backend_cpu;
extern const struct cz_backend cz_backend_null;
extern const struct cz_backend cz_backend_cuda;   /* with CZ_HAVE_CUDA only */

#endif

/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/witness.h — circom witness generation, native: a circuit's
 * .wasm (as circom 2.x or circom 0.5 emits it) translated to C by wabt's wasm2c, compiled
 * by the system C compiler into a shared object, cached by the wasm's
 * SHA-256, loaded once and run by many workers.  Design statement in
 * synth/witness/witness.c.
 *
 * The daemon's synthesis workers use it so:
 *
 *   prog = cz_witness_prog_load(path, &opts, err, cap);    once per circuit
 *   inst = cz_witness_inst_create(prog, err, cap);         once per worker
 *   cz_witness_calc(inst, json, len, out, cap, ms, err, cap)   per witness
 *   cz_witness_inst_free(inst); cz_witness_prog_free(prog);
 *
 * A prog is read-only after load and shared by any number of threads; an
 * instance is one thread's at a time (its own wasm memory, stack and signal
 * stack, reused: after the first witness a calc makes no heap call: the
 * input JSON is checked and walked in place, synth/witness/json.c).  Every function returns 0 or -1
 * with a message in err[cap] naming the file, signal, field or export.
 */
#ifndef CZ_SYNTH_WITNESS_H
#define CZ_SYNTH_WITNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "zk/curve/curve_id.h"

struct cz_witness_prog;
struct cz_witness_inst;

/* Where a load's time went: the build's stages (when it built) and the
 * link (dlopen, the exports checked, the field probed). */
struct cz_witness_build_report {
	int built;              /* 1: translated and compiled now; 0: the cached library */
	double translate_s, compile_s, link_s;
	uint64_t c_bytes;       /* the C wasm2c wrote */
};

struct cz_witness_opts {
	const char *cache_dir;  /* NULL: $CUZK_WITNESS_CACHE, else $XDG_CACHE_HOME/cuzk/witness,
				   else $HOME/.cache/cuzk/witness */
	const char *out_lib;    /* build the library here instead of the cache (witness-build -o) */
	FILE *progress;         /* build progress and timings ("translate", "compile"); NULL: quiet */
	FILE *log;              /* the circuit's log() lines; NULL: dropped */
	int rebuild;            /* build even if the cache has the library */
	/* Called as each stage begins ("translate", "compile", "link"), from
	 * the loading thread; NULL: none. */
	void (*stage)(void *arg, const char *stage);
	void *stage_arg;
	struct cz_witness_build_report *report;   /* filled when not NULL */
	/* Keep the instance the load probed the field on for the first
	 * cz_witness_inst_create (instantiated, probed as snarkjs probes before
	 * its first witness, not yet run): a one-shot caller (the CLI) then
	 * instantiates once, not twice.  That instance keeps no image to reset
	 * to (8 MB copied on SHA-256), so it computes one witness and refuses a
	 * second; later cz_witness_inst_create calls give ordinary instances.
	 * The daemon leaves it 0: an instance held by a loaded circuit would be
	 * memory its budget does not see. */
	int keep_probe;
};

/* Loads the witness program of PATH: a circom .wasm (built into the cache,
 * or taken from it: the library is named by the wasm's SHA-256, so a changed
 * wasm builds anew) or a library cz_witness_prog_load itself built (ELF).
 * Checks the circom protocol (the missing export named) and the prime
 * (BN254's or BLS12-381's r). */
struct cz_witness_prog *cz_witness_prog_load(const char *path, const struct cz_witness_opts *o,
					     char *err, size_t cap);
void cz_witness_prog_free(struct cz_witness_prog *p);

enum cz_curve cz_witness_prog_curve(const struct cz_witness_prog *p);
uint32_t cz_witness_prog_nvars(const struct cz_witness_prog *p);   /* witness values */
uint32_t cz_witness_prog_n8(const struct cz_witness_prog *p);      /* bytes a value (32) */
uint32_t cz_witness_prog_version(const struct cz_witness_prog *p); /* circom major (2; 1: 0.5-era) */
const char *cz_witness_prog_lib(const struct cz_witness_prog *p);  /* the .so's path */
/* An instance's wasm memory as instantiated (initial pages x 64 KiB; circom
 * 0.5's imported memory: the 2 GiB given): what a run may use, the bound the
 * daemon charges its budget per input partition. */
uint64_t cz_witness_prog_mem_bytes(const struct cz_witness_prog *p);
const char *cz_witness_prog_sha256(const struct cz_witness_prog *p); /* of the wasm, hex */

/* One worker's instance: maps its wasm memory (an 8 GiB reservation, 4 GiB
 * addressable plus guard: out-of-bounds accesses fault and become errors),
 * a stack with a guard page and a signal stack. */
struct cz_witness_inst *cz_witness_inst_create(const struct cz_witness_prog *p, char *err,
					       size_t cap);
void cz_witness_inst_free(struct cz_witness_inst *in);

/* The bytes of the instance's wasm memory resident now (mincore(2)): after a
 * run, until the next one resets it, what the run touched plus the
 * instantiated image: the run's real peak as the kernel counts it (circom
 * 0.5's 2 GiB is mapped lazily, so its data and the stack at its top are
 * resident, the rest not).  0 if it cannot tell.  The first call allocates
 * the page vector (one byte a page); later ones only for a larger memory.
 * One thread's, like the instance. */
uint64_t cz_witness_inst_touched(struct cz_witness_inst *in);

/* Computes the witness of the input JSON (len bytes; circom's input: signal
 * names to decimal/hex strings or numbers, nested arrays, objects for
 * sub-components' buses) into out: nvars values of n8 bytes each,
 * little-endian standard form (the .wtns body).  out_cap must hold them.
 * timeout_ms > 0 bounds the run (an error past it).  Errors: malformed
 * JSON, a signal the circuit lacks, too few/many values, a value >= the
 * prime, an unset input, the circuit's failed assert (its message and
 * template), a trap (out of bounds, stack exhausted, unreachable, ...). */
int cz_witness_calc(struct cz_witness_inst *in, const char *json, size_t len, uint8_t *out,
		    size_t out_cap, uint64_t timeout_ms, char *err, size_t cap);

/* The .wtns (version 2, as snarkjs wtns calculate writes it) of a witness
 * that cz_witness_calc produced: its size, and the file image. */
size_t cz_witness_wtns_size(const struct cz_witness_prog *p);
void cz_witness_wtns_encode(const struct cz_witness_prog *p, const uint8_t *w, uint8_t *buf);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * engine/control/witload.c — a circuit's witness program: `load`'s "wasm"
 * (a circom .wasm) or "witness_lib" (a library `cuzk witness-build` made),
 * attached to the circuit so that its jobs may carry inputs instead of
 * witnesses (engine/pipeline/witgen.c runs it).
 *
 * Built once per wasm: synth/witness translates and compiles it into
 * <state-dir>/witness/, named by the wasm's SHA-256, so a restart or a
 * second load takes the library from there and a changed wasm builds anew.
 * A build can take a minute for a large circuit; it runs in the load
 * request's thread, outside the engine lock, with its progress in cuzkd's
 * log ("translate", "compile" and their times).  The program must prove
 * over the key's curve and compute exactly the key's nVars values; a
 * mismatch refuses the load naming both numbers.
 */
#include "ctl/ctl.h"
#include "engine/engine_pvt.h"
#include "synth/witness/witness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cz_witload_attach(struct cz_engine *e, struct cz_circuit *c, const char *wasm, const char *lib,
		      char *err, size_t cap)
{
	char dir[PATH_MAX + 16], msg[512];
	const char *path = wasm ? wasm : lib;

	if (wasm && lib) {
		snprintf(err, cap, "give \"wasm\" or \"witness_lib\", not both");
		return -1;
	}
	if (!path)
		return 0;
	if (!*path) {
		snprintf(err, cap, "\"%s\" must be a path, not empty", wasm ? "wasm" : "witness_lib");
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s/witness", e->state_dir);
	if (mkdir(dir, 0750) && errno != EEXIST) {
		snprintf(err, cap, "%s: cannot make the witness cache: %s", dir, strerror(errno));
		return -1;
	}
	struct cz_witness_opts o = { .cache_dir = dir, .progress = stderr };
	fprintf(stderr, "cuzkd: %s: witness program from %s (built into %s unless cached)\n", c->name,
		path, dir);
	c->wprog = cz_witness_prog_load(path, &o, msg, sizeof(msg));
	if (!c->wprog) {
		snprintf(err, cap, "%s", msg);
		return -1;
	}
	if (cz_witness_prog_curve(c->wprog) != c->curve) {
		snprintf(err, cap, "%s: the witness program computes over %s, the key %s is %s", path,
			 cz_curve_name(cz_witness_prog_curve(c->wprog)), c->path, cz_curve_name(c->curve));
		return -1;
	}
	if (cz_witness_prog_nvars(c->wprog) != c->key.nvars) {
		snprintf(err, cap, "%s: the witness program computes %u values, the key %s has nVars = %u "
			 "(another circuit's wasm?)", path, cz_witness_prog_nvars(c->wprog), c->path,
			 c->key.nvars);
		return -1;
	}
	if (!(c->winst = calloc(e->nsynth, sizeof(*c->winst)))) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	c->nwinst = e->nsynth;
	c->wmem_bytes = cz_witness_prog_mem_bytes(c->wprog);
	snprintf(c->wasm, sizeof(c->wasm), "%s", path);
	fprintf(stderr, "cuzkd: %s: witness program %s (wasm sha256 %s)\n", c->name,
		cz_witness_prog_lib(c->wprog), cz_witness_prog_sha256(c->wprog));
	return 0;
}

void cz_witload_detach(struct cz_circuit *c)
{
	for (unsigned w = 0; c->winst && w < c->nwinst; w++)
		if (c->winst[w])
			cz_witness_inst_free(c->winst[w]);
	free(c->winst);
	c->winst = NULL;
	if (c->wprog)
		cz_witness_prog_free(c->wprog);
	c->wprog = NULL;
	c->wmem_bytes = 0;
}

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
 * log ("translate", "compile" and their times), its stage as it goes in a
 * slot of e->wbuilds (taken under the lock for an instant at each stage:
 * `circuits` lists them as "building"), pushed on the load's connection as
 * each stage begins when the request asked for it ("progress": cuzkctl
 * load prints them as they come; an older daemon's cuzkctl polls
 * "building" instead), and where the time went (translate, compile, link) in load's
 * answer ("witness_build").  The program must prove
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
#include <time.h>

struct stage_arg {
	struct cz_engine *e;
	int slot;
	struct cz_ctl_peer *push;       /* the load's connection (its "progress"), or NULL */
	const char *circuit;
	struct timespec t0;
};

static double since(const struct timespec *t, const struct timespec *now);

/* The stage pushed on the load's connection, before the answer:
 * {"ok": true, "progress": true, "circuit", "stage", "elapsed_s"}.  No lock
 * is held (the send never blocks: ctl's push polls for room at most the
 * idle timeout); a client gone stops the pushes, not the build. */
static void push_stage(struct stage_arg *a, const char *stage, const struct timespec *now)
{
	json_object *m = json_object_new_object();
	json_object_object_add(m, "ok", json_object_new_boolean(1));
	json_object_object_add(m, "progress", json_object_new_boolean(1));
	json_object_object_add(m, "circuit", json_object_new_string(a->circuit));
	json_object_object_add(m, "stage", json_object_new_string(stage));
	json_object_object_add(m, "elapsed_s", json_object_new_double(since(&a->t0, now)));
	if (cz_ctl_peer_push(a->push, m))
		a->push = NULL;
	json_object_put(m);
}

/* The load's stage into its slot (taking one at the first stage), and to
 * the client when it asked for the stages. */
static void on_stage(void *arg, const char *stage)
{
	struct stage_arg *a = arg;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&a->e->lock);
	if (a->slot >= 0) {
		a->e->wbuilds[a->slot].stage = stage;
		a->e->wbuilds[a->slot].st0 = now;
	}
	pthread_mutex_unlock(&a->e->lock);
	if (a->push)
		push_stage(a, stage, &now);
}

int cz_witload_note_take(struct cz_engine *e, const char *circuit, const char *stage)
{
	int k = -1;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&e->lock);
	for (int i = 0; i < (int)(sizeof(e->wbuilds) / sizeof(e->wbuilds[0])) && k < 0; i++)
		if (!e->wbuilds[i].stage) {
			k = i;
			snprintf(e->wbuilds[i].circuit, sizeof(e->wbuilds[i].circuit), "%s", circuit);
			e->wbuilds[i].stage = stage;
			e->wbuilds[i].pct = -1;
			e->wbuilds[i].t0 = e->wbuilds[i].st0 = now;
		}
	pthread_mutex_unlock(&e->lock);
	return k;       /* -1: more loads than slots building at once: not listed */
}

void cz_witload_note_free(struct cz_engine *e, int k)
{
	if (k < 0)
		return;
	pthread_mutex_lock(&e->lock);
	e->wbuilds[k].stage = NULL;
	pthread_mutex_unlock(&e->lock);
}

static double since(const struct timespec *t, const struct timespec *now)
{
	return (double)(now->tv_sec - t->tv_sec) + (double)(now->tv_nsec - t->tv_nsec) * 1e-9;
}

json_object *cz_witload_building_locked(struct cz_engine *e)
{
	cz_mutex_assert_held(&e->lock);
	json_object *a = json_object_new_array();
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	for (size_t i = 0; i < sizeof(e->wbuilds) / sizeof(e->wbuilds[0]); i++) {
		const struct cz_wbuild_note *n = &e->wbuilds[i];
		if (!n->stage)
			continue;
		json_object *o = json_object_new_object();
		json_object_object_add(o, "circuit", json_object_new_string(n->circuit));
		json_object_object_add(o, "stage", json_object_new_string(n->stage));
		json_object_object_add(o, "stage_s", json_object_new_double(since(&n->st0, &now)));
		json_object_object_add(o, "elapsed_s", json_object_new_double(since(&n->t0, &now)));
		if (n->pct >= 0)
			json_object_object_add(o, "progress_pct", json_object_new_int(n->pct));
		json_object_array_add(a, o);
	}
	return a;
}

/* load's "witness_build": where the load's time went. */
void cz_witload_report(const struct cz_circuit *c, json_object *r)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "built", json_object_new_boolean(c->wb_built));
	json_object_object_add(o, "translate_s", json_object_new_double(c->wb_translate_s));
	json_object_object_add(o, "compile_s", json_object_new_double(c->wb_compile_s));
	json_object_object_add(o, "link_s", json_object_new_double(c->wb_link_s));
	json_object_object_add(o, "c_bytes", json_object_new_int64((int64_t)c->wb_c_bytes));
	json_object_object_add(r, "witness_build", o);
}

int cz_witload_attach(struct cz_engine *e, struct cz_circuit *c, const char *wasm, const char *lib,
		      struct cz_ctl_peer *push, char *err, size_t cap)
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
	struct cz_witness_build_report rep = { 0 };
	struct stage_arg sa = { e, cz_witload_note_take(e, c->name, "hash"), push, c->name, { 0, 0 } };
	clock_gettime(CLOCK_MONOTONIC, &sa.t0);
	if (push)
		push_stage(&sa, "hash", &sa.t0);
	struct cz_witness_opts o = { .cache_dir = dir, .progress = stderr, .stage = on_stage,
				     .stage_arg = &sa, .report = &rep };
	fprintf(stderr, "cuzkd: %s: witness program from %s (built into %s unless cached)\n", c->name,
		path, dir);
	c->wprog = cz_witness_prog_load(path, &o, msg, sizeof(msg));
	cz_witload_note_free(e, sa.slot);
	c->wb_built = rep.built;
	c->wb_translate_s = rep.translate_s;
	c->wb_compile_s = rep.compile_s;
	c->wb_link_s = rep.link_s;
	c->wb_c_bytes = rep.c_bytes;
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
	cz_witgen_peak_load(e, c);
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
	c->wmem_bytes = c->wmem_limit = c->wmem_peak = 0;
}

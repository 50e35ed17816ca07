/* SPDX-License-Identifier: MIT */
/*
 * engine/pipeline/witgen.c — witness generation in the synthesis workers:
 * an input partition (a job's circom input, JSON, spooled like a witness:
 * engine/control/requests.c) becomes its witness here, in the worker that
 * synthesizes it, straight into the partition buffer's witness (the place
 * a submitted .wtns is read into), so the rest of the pipeline cannot tell
 * the two apart.
 *
 * WHO RUNS IT.  The circuit's witness program (engine/control/witload.c)
 * is shared read-only; each worker runs its own instance (its own wasm
 * memory and stacks), c->winst[worker], made at the worker's first input
 * partition of that circuit and reused after (synth/witness resets it
 * between runs).  Only that worker touches its slot, so no lock; the
 * instances are freed with the circuit, which no job uses by then.
 *
 * ORDER AND BUDGET.  It runs where synthesis runs: after the dispatcher
 * took the partition in key order and reserved its buffer from the budget;
 * the witness is written into that buffer, nothing else of the partition's
 * size is allocated.  An input partition also takes its instance's wasm
 * memory from the budget (cz_witgen_need_locked), reserved with the buffer
 * before the work starts and released with it (p->reserved), so the
 * dispatcher holds an input partition back exactly as it does a witness
 * partition's buffer, and submit refuses a job whose input partition can
 * never fit (cz_admit_locked).  The charge is what a run really touches:
 * after each successful run the instance's resident memory is measured
 * (cz_witness_inst_touched: mincore, the kernel's count of the pages the
 * run and the image hold), the highest seen plus a quarter, in whole
 * 64 KiB pages, is charged from then on (charge_of), and that peak is
 * written beside the build (<state>/witness/<sha>.peak), so a restart or
 * another load of the wasm charges it from the start.  Before any run the
 * bound is charged: circom 2's memory as instantiated (its initial pages;
 * never less afterwards either), circom 0.5's the 2 GiB its imported
 * memory is given, but no more than the room the budget leaves beside the
 * keys and the buffer, so its first run is never refused: it runs alone.  The instance is
 * the worker's and kept between runs, but what a run touches beyond the
 * instantiated image is given back after it (synth/witness/rt.c).
 *
 * CHECKS.  The witness is checked as a submitted one is (zk/io/groth16_io.c:
 * every value below r, value 0 the constant 1); the program's own errors
 * (a malformed input, a signal the circuit lacks or misses, a value >= r,
 * a failed assert with its message, a trap, --witness-timeout) fail the
 * partition with that reason, and the worker goes on.  The input's bytes
 * are wiped from the worker's buffer after the run; the witness is wiped
 * with the partition buffer (cz_part_wipe) when the partition ends.
 *
 * COST.  After a worker's first input partition of a circuit: a pread of
 * the input into its reused buffer (grown only for a larger input), the
 * run (no heap call: the input JSON is walked in place, the instance reset
 * in place; its resident pages counted into the instance's vector, and a
 * new high written with open/write; selftests/e2e_heap counts 0 per partition in the engine's
 * threads after warm-up), the check (one pass over the values).
 */
#include "engine/engine_pvt.h"
#include "synth/witness/witness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* As a .wtns is checked on its way in (zk/io/groth16_io.c's wtns_read_fd). */
static int witness_check(const uint64_t *w, uint32_t n, const uint64_t *r, char *err, size_t cap)
{
	for (uint32_t i = 0; i < n; i++) {
		const uint64_t *v = w + 4 * (size_t)i;
		int lt = 0;
		for (int l = 3; l >= 0; l--)
			if (v[l] != r[l]) {
				lt = v[l] < r[l];
				break;
			}
		if (!lt) {
			snprintf(err, cap, "witness value %u is not below r", i);
			return -1;
		}
	}
	if (n && (w[0] != 1 || w[1] | w[2] | w[3])) {
		snprintf(err, cap, "witness 0: not 1 (the constant signal)");
		return -1;
	}
	return 0;
}

/* The spooled input at fd into *buf (grown to hold it); its length, or -1. */
static ssize_t input_read(int fd, char **buf, size_t *cap, char *err, size_t ecap)
{
	struct stat st;
	if (fstat(fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > CZ_ENGINE_INPUT_MAX) {
		snprintf(err, ecap, "its spooled input is %lld bytes (1 to %u)", (long long)st.st_size,
			 CZ_ENGINE_INPUT_MAX);
		return -1;
	}
	size_t n = (size_t)st.st_size;
	if (*cap < n) {         /* a heap call only for an input larger than any before */
		free(*buf);
		*cap = 0;
		if (!(*buf = malloc(n))) {
			snprintf(err, ecap, "out of memory for a %zu-byte input", n);
			return -1;
		}
		*cap = n;
	}
	for (size_t got = 0; got < n;) {
		ssize_t k = pread(fd, *buf + got, n - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, ecap, "reading its spooled input: %s", k < 0 ? strerror(errno) : "truncated");
			return -1;
		}
		got += (size_t)k;
	}
	return (ssize_t)n;
}

/* ---- the wasm memory's charge ---- */

#define WMEM_PAGE 65536ull

/* What an input partition of c is charged for its instance's memory, given
 * the most a run was seen to touch (0: none yet): that plus a quarter, in
 * whole wasm pages; circom 0.5's never above the 2 GiB it is given, circom
 * 2's never below its own initial memory (it may grow past it). */
static uint64_t charge_of(const struct cz_circuit *c, uint64_t peak)
{
	if (!peak)
		return c->wmem_limit;
	uint64_t w = (peak + peak / 4 + WMEM_PAGE - 1) / WMEM_PAGE * WMEM_PAGE;
	if (cz_witness_prog_version(c->wprog) >= 2)
		return w > c->wmem_limit ? w : c->wmem_limit;
	return w < c->wmem_limit ? w : c->wmem_limit;
}

uint64_t cz_witgen_charge_locked(struct cz_engine *e, const struct cz_circuit *c)
{
	cz_mutex_assert_held(&e->lock);
	if (c->wmem_peak || !c->wprog || cz_witness_prog_version(c->wprog) >= 2)
		return c->wmem_bytes;
	/* circom 0.5 not yet measured: its first run may have all the room the
	 * budget leaves beside the keys and its buffer (it then runs alone),
	 * up to the 2 GiB; the run measures it. */
	struct cz_budget_stat st;
	cz_budget_stat(e->budget, &st);
	uint64_t used = e->keys_bytes + c->part_bytes;
	uint64_t room = st.limit > used ? st.limit - used : 0;
	return c->wmem_bytes < room ? c->wmem_bytes : room;
}

uint64_t cz_witgen_need_locked(struct cz_engine *e, const struct cz_part *p)
{
	cz_mutex_assert_held(&e->lock);
	const struct cz_circuit *c = p->job->circ;
	return c->part_bytes + (p->input ? cz_witgen_charge_locked(e, c) : 0);
}

static void peak_path(const struct cz_engine *e, const struct cz_circuit *c, char *p, size_t cap)
{
	snprintf(p, cap, "%s/witness/%s.peak", e->state_dir, cz_witness_prog_sha256(c->wprog));
}

void cz_witgen_peak_load(struct cz_engine *e, struct cz_circuit *c)
{
	char path[PATH_MAX + 96];
	unsigned long long v = 0;
	c->wmem_limit = cz_witness_prog_mem_bytes(c->wprog);
	peak_path(e, c, path, sizeof(path));
	FILE *f = fopen(path, "re");
	if (f && fscanf(f, "%llu", &v) == 1 && v <= c->wmem_limit * 2)
		c->wmem_peak = v;       /* a figure past twice the bound is not ours: ignored */
	if (f)
		fclose(f);
	c->wmem_bytes = charge_of(c, c->wmem_peak);
}

/* After a run: what it touched, a new high raising the charge (under the
 * lock, for an instant) and written beside the build (outside it), so a
 * restart or another load of the wasm charges it from the start. */
static void peak_note(struct cz_engine *e, struct cz_circuit *c, unsigned worker, uint64_t touched)
{
	if (!touched)
		return;
	pthread_mutex_lock(&e->lock);
	int higher = touched > c->wmem_peak;
	if (higher) {
		c->wmem_peak = touched;
		c->wmem_bytes = charge_of(c, touched);
	}
	pthread_mutex_unlock(&e->lock);
	if (!higher)
		return;
	char path[PATH_MAX + 96], tmp[PATH_MAX + 128];
	peak_path(e, c, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.%u.tmp", path, worker);
	char num[32];
	int n = snprintf(num, sizeof(num), "%llu\n", (unsigned long long)touched);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);      /* no stdio: no heap call */
	int ok = fd >= 0 && write(fd, num, (size_t)n) == n;
	if (fd >= 0 && close(fd))
		ok = 0;
	if (!ok || rename(tmp, path)) {
		unlink(tmp);
		fprintf(stderr, "cuzkd: %s: cannot record the witness memory peak in %s\n", c->name, path);
	}
}

int cz_witgen_run(struct cz_engine *e, struct cz_part *p, unsigned worker, void *w, char **buf,
		  size_t *cap)
{
	struct cz_circuit *c = p->job->circ;
	char err[256];
	const uint32_t nvars = c->key.nvars;

	if (!c->wprog || worker >= c->nwinst) {
		snprintf(p->err, sizeof(p->err), "partition %u is an input, but circuit %s has no witness "
			 "program (loaded without --wasm since the job was accepted?)", p->idx, c->name);
		return -1;
	}
	if (!c->winst[worker] && !(c->winst[worker] = cz_witness_inst_create(c->wprog, err, sizeof(err)))) {
		snprintf(p->err, sizeof(p->err), "partition %u input: %s", p->idx, err);
		return -1;
	}
	ssize_t n = input_read(p->wfd, buf, cap, err, sizeof(err));
	int rc = -1;
	if (n > 0) {
		cz_trace(CZ_EV_WITGEN_START, p->job->seq, p->idx);
		rc = cz_witness_calc(c->winst[worker], *buf, (size_t)n, w, (size_t)nvars * 32,
				     e->cfg.witness_timeout_ms, err, sizeof(err));
		cz_trace(CZ_EV_WITGEN_END, p->job->seq, p->idx);
		explicit_bzero(*buf, (size_t)n);
		if (!rc)
			peak_note(e, c, worker, cz_witness_inst_touched(c->winst[worker]));
	}
	if (!rc)
		rc = witness_check(w, nvars, cz_curve_ops(c->curve)->r, err, sizeof(err));
	if (rc)
		snprintf(p->err, sizeof(p->err), "partition %u input: %s", p->idx, err);
	return rc;
}

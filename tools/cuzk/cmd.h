/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd.h — the `cuzk` command's sub-commands.
 *
 * Each sub-command lives in its own file under tools/cuzk/ and defines one of
 * the functions below; main.c declares them weak, so a command whose file is
 * not there yet reports "not built" instead of breaking the link.
 * Every function gets argv starting at its own name and returns the exit
 * status.
 */
#ifndef CUZK_CMD_H
#define CUZK_CMD_H

#include <stddef.h>
#include <stdint.h>

int cz_cmd_prove(int argc, char **argv);
int cz_cmd_verify(int argc, char **argv);
int cz_cmd_vk(int argc, char **argv);
int cz_cmd_devsetup(int argc, char **argv);
int cz_cmd_calldata(int argc, char **argv);
int cz_cmd_witness(int argc, char **argv);
int cz_cmd_witness_build(int argc, char **argv);

/* The witness options both witness commands and prove --wasm take
 * (cmd_witness.c): --witness-timeout SECONDS, --witness-cache DIR, --quiet.
 * Returns 1 when argv[*i] was one (moving *i past its value), 0 when not,
 * -1 on a bad value (printed). */
struct cz_witness_opts;
int cz_witness_opt(const char *cmd, int argc, char **argv, int *i, struct cz_witness_opts *o,
		   uint64_t *timeout_ms);
/* Reads an input JSON file whole (NUL-terminated); prints why not. */
int cz_witness_read_input(const char *cmd, const char *path, char **buf, size_t *len);

/* `cuzk bench NAME [options]`: the options every bench understands. */
struct cz_bench_opts {
	int log2;              /* --log2 N: problem size 2^N (0 = the bench's default sweep) */
	unsigned threads;      /* --threads T (0 = all online CPUs) */
	const char *group;     /* --group g1|g2 */
	const char *backend;   /* --backend cpu|cuda */
	int json;              /* --json: one JSON object a line */
	int iters;             /* --iters N (0 = the bench's default) */
	const char *path;      /* --path scalar|ifma|ifma8|ifma4|both|all: the MSM flush (NULL = as chosen at start-up) */
	unsigned window;       /* --window C: the MSM's window bits (0 = the plan's) */
	unsigned batch;        /* --batch B: the MSM's batch-affine batch size (0 = the plan's) */
	const char *tables;    /* --tables auto|off|both|SIZE: bench prove's fixed-base tables (NULL = off) */
	int npos;              /* positional arguments left after the options */
	char **pos;
};

int cz_bench_fp(const struct cz_bench_opts *o);
int cz_bench_fr(const struct cz_bench_opts *o);
int cz_bench_g1add(const struct cz_bench_opts *o);
int cz_bench_msm(const struct cz_bench_opts *o);
int cz_bench_ntt(const struct cz_bench_opts *o);
int cz_bench_ring(const struct cz_bench_opts *o);
int cz_bench_slab(const struct cz_bench_opts *o);
int cz_bench_prove(const struct cz_bench_opts *o);
int cz_bench_daemon(const struct cz_bench_opts *o);
int cz_bench_journal(const struct cz_bench_opts *o);
int cz_bench_fleet(const struct cz_bench_opts *o);

/* Prints one result: a JSON line with --json, else an aligned text line.
 * extra is a preformatted `"key": value, ...` fragment (may be NULL). */
void cz_bench_report(const struct cz_bench_opts *o, const char *op, uint64_t n,
		     unsigned threads, double ms, const char *extra);

#endif

/* SPDX-License-Identifier: MIT */
/* cuzk — offline Groth16 prover, verifier and benchmarks.  See docs/cuzk.1.md. */
#include "tools/cuzk/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma weak cz_cmd_prove
#pragma weak cz_cmd_verify
#pragma weak cz_cmd_vk
#pragma weak cz_cmd_devsetup
#pragma weak cz_cmd_calldata
#pragma weak cz_cmd_witness
#pragma weak cz_cmd_witness_build
#pragma weak cz_bench_fp
#pragma weak cz_bench_fr
#pragma weak cz_bench_g1add
#pragma weak cz_bench_msm
#pragma weak cz_bench_ntt
#pragma weak cz_bench_ring
#pragma weak cz_bench_slab
#pragma weak cz_bench_prove
#pragma weak cz_bench_daemon
#pragma weak cz_bench_journal
#pragma weak cz_bench_fleet

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *usage;
} cmds[] = {
	{ "prove", cz_cmd_prove, "prove ZKEY (WTNS | --wasm CIRCUIT --input INPUT.json) PROOF.json PUBLIC.json [--bin PROOF.bin] [--threads N] [--witness-timeout S]" },
	{ "verify", cz_cmd_verify, "verify VK.json PUBLIC.json PROOF.json" },
	{ "vk", cz_cmd_vk, "vk ZKEY VK.json" },
	{ "calldata", cz_cmd_calldata, "calldata PROOF.json PUBLIC.json" },
	{ "witness", cz_cmd_witness, "witness CIRCUIT.wasm|LIB INPUT.json OUT.wtns [--witness-timeout S] [--witness-cache DIR] [--quiet]" },
	{ "witness-build", cz_cmd_witness_build, "witness-build CIRCUIT.wasm [-o LIB] [--witness-cache DIR] [--quiet]" },
	{ "devsetup", cz_cmd_devsetup, "devsetup (--r1cs FILE | --builtin NAME --log2 K) ... (INSECURE: see docs)" },
};

static const struct {
	const char *name;
	int (*fn)(const struct cz_bench_opts *);
} benches[] = {
	{ "fp", cz_bench_fp },       { "fr", cz_bench_fr },
	{ "g1add", cz_bench_g1add }, { "msm", cz_bench_msm },
	{ "ntt", cz_bench_ntt },     { "ring", cz_bench_ring },
	{ "slab", cz_bench_slab },   { "prove", cz_bench_prove },
	{ "daemon", cz_bench_daemon }, { "journal", cz_bench_journal },
	{ "fleet", cz_bench_fleet },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: cuzk COMMAND [ARGS]\n");
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++)
		fprintf(f, "  cuzk %s\n", cmds[i].usage);
	fprintf(f, "  cuzk bench {");
	for (size_t i = 0; i < ARRAY_SIZE(benches); i++)
		fprintf(f, "%s%s", i ? "|" : "", benches[i].name);
	fprintf(f, "} [--log2 N] [--threads T] [--group g1|g2] [--backend cpu|cuda] [--iters N] [--json]\n");
}

void cz_bench_report(const struct cz_bench_opts *o, const char *op, uint64_t n,
		     unsigned threads, double ms, const char *extra)
{
	if (o->json)
		printf("{\"op\": \"%s\", \"n\": %llu, \"threads\": %u, \"ms\": %.6f%s%s}\n", op,
		       (unsigned long long)n, threads, ms, extra ? ", " : "", extra ? extra : "");
	else
		printf("%-16s n=%-10llu threads=%-3u %12.4f ms%s%s\n", op, (unsigned long long)n,
		       threads, ms, extra ? "  " : "", extra ? extra : "");
	fflush(stdout);
}

static int bench_main(int argc, char **argv)
{
	struct cz_bench_opts o = { .group = "g1", .backend = "cpu" };
	char **pos = calloc((size_t)argc + 1, sizeof(*pos));

	if (argc < 2 || !pos) {
		usage(stderr);
		free(pos);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		int more = i + 1 < argc;
		if (!strcmp(a, "--json"))
			o.json = 1;
		else if (!strcmp(a, "--log2") && more)
			o.log2 = atoi(argv[++i]);
		else if (!strcmp(a, "--threads") && more)
			o.threads = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--iters") && more)
			o.iters = atoi(argv[++i]);
		else if (!strcmp(a, "--group") && more)
			o.group = argv[++i];
		else if (!strcmp(a, "--path") && more)
			o.path = argv[++i];
		else if (!strcmp(a, "--window") && more)
			o.window = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--batch") && more)
			o.batch = (unsigned)atoi(argv[++i]);
		else if (!strcmp(a, "--tables") && more)
			o.tables = argv[++i];
		else if (!strcmp(a, "--backend") && more)
			o.backend = argv[++i];
		else if (a[0] == '-' && a[1] == '-') {
			fprintf(stderr, "cuzk bench: unknown or incomplete option '%s'\n", a);
			free(pos);
			return 2;
		} else
			pos[o.npos++] = argv[i];
	}
	o.pos = pos;
	for (size_t i = 0; i < ARRAY_SIZE(benches); i++) {
		if (strcmp(argv[1], benches[i].name))
			continue;
		int rc = 2;
		if (benches[i].fn)
			rc = benches[i].fn(&o);
		else
			fprintf(stderr, "cuzk bench %s: not built into this binary\n", argv[1]);
		free(pos);
		return rc;
	}
	fprintf(stderr, "cuzk bench: unknown benchmark '%s'\n", argv[1]);
	free(pos);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "bench"))
		return bench_main(argc - 1, argv + 1);
	for (size_t i = 0; i < ARRAY_SIZE(cmds); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		if (!cmds[i].fn) {
			fprintf(stderr, "cuzk %s: not built into this binary\n", argv[1]);
			return 2;
		}
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "cuzk: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}

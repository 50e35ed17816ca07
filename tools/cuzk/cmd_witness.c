/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_witness.c — `cuzk witness CIRCUIT INPUT.json OUT.wtns`
 * (what `snarkjs wtns calculate` does, natively: synth/witness/) and
 * `cuzk witness-build CIRCUIT.wasm [-o LIB]` (the translation and compile
 * ahead of time).  CIRCUIT is circom's .wasm (built into the cache on first
 * use) or a library witness-build wrote.  Exit 0, or 2 with the reason on
 * stderr (docs/cuzk.1.md).
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "synth/witness/witness.h"
#include "zk/io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cz_witness_opt(const char *cmd, int argc, char **argv, int *i, struct cz_witness_opts *o,
		   uint64_t *timeout_ms)
{
	const char *s = argv[*i];
	if (!strcmp(s, "--witness-timeout") && *i + 1 < argc) {
		double secs;
		char *end;
		const char *v = argv[++*i];
		errno = 0;
		secs = strtod(v, &end);
		if (errno || end == v || *end || secs <= 0 || secs > 86400 * 30) {
			fprintf(stderr, "cuzk %s: --witness-timeout: '%s' is not a number of seconds "
					"(0 < s <= 2592000)\n", cmd, v);
			return -1;
		}
		*timeout_ms = (uint64_t)(secs * 1000.0 + 0.5);
		if (!*timeout_ms)
			*timeout_ms = 1;
		return 1;
	}
	if (!strcmp(s, "--witness-cache") && *i + 1 < argc) {
		o->cache_dir = argv[++*i];
		return 1;
	}
	if (!strcmp(s, "--quiet")) {
		o->progress = NULL;
		return 1;
	}
	return 0;
}

int cz_witness_read_input(const char *cmd, const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "cuzk %s: %s: %s\n", cmd, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size > (1ll << 30)) {
		fprintf(stderr, "cuzk %s: %s: %lld bytes is too large for an input\n", cmd, path,
			(long long)st.st_size);
		close(fd);
		return -1;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len + 1);
	size_t got = 0;
	while (*buf && got < *len) {
		ssize_t k = read(fd, *buf + got, *len - got);
		if (k <= 0) {
			fprintf(stderr, "cuzk %s: %s: %s\n", cmd, path, k ? strerror(errno) : "shrank");
			free(*buf);
			close(fd);
			return -1;
		}
		got += (size_t)k;
	}
	close(fd);
	if (!*buf) {
		fprintf(stderr, "cuzk %s: out of memory\n", cmd);
		return -1;
	}
	(*buf)[*len] = 0;
	return 0;
}

static int witness_usage(void)
{
	fprintf(stderr, "usage: cuzk witness CIRCUIT.wasm|LIB INPUT.json OUT.wtns "
			"[--witness-timeout SECONDS] [--witness-cache DIR] [--quiet]\n");
	return CZ_EXIT_USAGE;
}

int cz_cmd_witness(int argc, char **argv)
{
	struct cz_witness_opts o = { .progress = stderr, .log = stdout, .keep_probe = 1 };
	uint64_t timeout_ms = 0;
	const char *pos[3];
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		int r = cz_witness_opt("witness", argc, argv, &i, &o, &timeout_ms);
		if (r < 0)
			return CZ_EXIT_USAGE;
		if (r)
			continue;
		if (argv[i][0] == '-' && argv[i][1] == '-') {
			fprintf(stderr, "cuzk witness: unknown or incomplete option '%s'\n", argv[i]);
			return witness_usage();
		}
		if (npos == 3)
			return witness_usage();
		pos[npos++] = argv[i];
	}
	if (npos != 3)
		return witness_usage();

	char err[1024] = "", *json = NULL;
	size_t len = 0;
	int ret = CZ_EXIT_USAGE;
	struct cz_witness_prog *p = NULL;
	struct cz_witness_inst *in = NULL;
	uint8_t *w = NULL, *file = NULL;

	if (cz_witness_read_input("witness", pos[1], &json, &len))
		return CZ_EXIT_USAGE;
	if (!(p = cz_witness_prog_load(pos[0], &o, err, sizeof(err))) ||
	    !(in = cz_witness_inst_create(p, err, sizeof(err)))) {
		fprintf(stderr, "cuzk witness: %s\n", err);
		goto out;
	}
	size_t wn = (size_t)cz_witness_prog_nvars(p) * cz_witness_prog_n8(p);
	size_t fn = cz_witness_wtns_size(p);
	if (!(w = malloc(wn)) || !(file = malloc(fn))) {
		fprintf(stderr, "cuzk witness: out of memory for %u values\n", cz_witness_prog_nvars(p));
		goto out;
	}
	if (cz_witness_calc(in, json, len, w, wn, timeout_ms, err, sizeof(err))) {
		fprintf(stderr, "cuzk witness: %s: %s\n", pos[1], err);
		goto out;
	}
	cz_witness_wtns_encode(p, w, file);
	char oerr[CZ_ERRLEN];
	if (cz_outfile_write(pos[2], file, fn, oerr)) {
		fprintf(stderr, "cuzk witness: %s\n", oerr);
		goto out;
	}
	ret = CZ_EXIT_OK;
out:
	if (w)
		explicit_bzero(w, wn);
	if (file)
		explicit_bzero(file, fn);
	free(w);
	free(file);
	free(json);
	cz_witness_inst_free(in);
	cz_witness_prog_free(p);
	return ret;
}

int cz_cmd_witness_build(int argc, char **argv)
{
	struct cz_witness_opts o = { .progress = stderr };
	const char *wasm = NULL;
	uint64_t t = 0;

	for (int i = 1; i < argc; i++) {
		int r = cz_witness_opt("witness-build", argc, argv, &i, &o, &t);
		if (r < 0)
			return CZ_EXIT_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			o.out_lib = argv[++i];
		else if (argv[i][0] == '-' || wasm) {
			fprintf(stderr, "usage: cuzk witness-build CIRCUIT.wasm [-o LIB] "
					"[--witness-cache DIR] [--quiet]\n");
			return CZ_EXIT_USAGE;
		} else
			wasm = argv[i];
	}
	if (!wasm) {
		fprintf(stderr, "usage: cuzk witness-build CIRCUIT.wasm [-o LIB] [--witness-cache DIR] "
				"[--quiet]\n");
		return CZ_EXIT_USAGE;
	}
	char err[1024];
	struct cz_witness_prog *p = cz_witness_prog_load(wasm, &o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "cuzk witness-build: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	printf("%s: circom %u, %s, %u witness values, sha256 %s\n", cz_witness_prog_lib(p),
	       cz_witness_prog_version(p), cz_curve_name(cz_witness_prog_curve(p)),
	       cz_witness_prog_nvars(p), cz_witness_prog_sha256(p));
	cz_witness_prog_free(p);
	return CZ_EXIT_OK;
}

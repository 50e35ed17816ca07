/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_prove.c — `cuzk prove ZKEY WTNS PROOF.json PUBLIC.json
 * [--bin PROOF.bin] [--threads N]`, rapidsnark's argument order.
 *
 * Loads the whole key (checked: header points in the subgroup, every point
 * on its curve, every coefficient in range) and the witness (nVars values,
 * each < r), proves on a pool of N threads, and writes the outputs only
 * after the proof has verified against the key's own verification key:
 * a witness that does not satisfy the circuit gives exit 1 and no files.
 * Every output is written to NAME.tmp and renamed, so a reader never sees
 * a half-written proof.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "lib/pool.h"
#include "synth/synth.h"
#include "zk/groth16.h"
#include "zk/groth16_io.h"
#include "zk/outfile.h"
#include "zk/snarkjs_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr, "usage: cuzk prove ZKEY WTNS PROOF.json PUBLIC.json [--bin PROOF.bin] "
			"[--threads N]\n");
	return CZ_EXIT_USAGE;
}

static int write_outputs(const struct cz_groth16_key *k, const cz_scalar *w,
			 const struct cz_groth16_proof *p, const char *proof_path,
			 const char *public_path, const char *bin_path, char err[CZ_ERRLEN])
{
	uint8_t bin[CZ_PROOF_BIN_BYTES];
	cz_fr *pub = malloc(((size_t)k->npub + 1) * sizeof(*pub));
	int rc;

	if (!pub)
		return cz_errf(err, -1, "out of memory");
	for (uint32_t i = 0; i < k->npub; i++)
		cz_fr_to_mont(&pub[i], w[1 + i].l);     /* < r: the witness reader checked */
	rc = cz_proof_json_write(proof_path, p, err);
	if (!rc)
		rc = cz_public_json_write(public_path, pub, k->npub, err);
	if (!rc && bin_path) {
		cz_proof_bin(bin, p);
		rc = cz_outfile_write(bin_path, bin, sizeof(bin), err);
	}
	free(pub);
	return rc;
}

int cz_cmd_prove(int argc, char **argv)
{
	const char *pos[4], *bin_path = NULL;
	uint64_t threads = 0;
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--bin") && i + 1 < argc)
			bin_path = argv[++i];
		else if (!strcmp(a, "--threads") && i + 1 < argc) {
			if (cz_cli_uint("prove", "--threads", argv[++i], 4096, &threads))
				return CZ_EXIT_USAGE;
		} else if (a[0] == '-' && a[1] == '-') {
			fprintf(stderr, "cuzk prove: unknown or incomplete option '%s'\n", a);
			return usage();
		} else if (npos < 4)
			pos[npos++] = a;
		else
			return usage();
	}
	if (npos != 4)
		return usage();

	char err[CZ_ERRLEN] = "";
	struct cz_groth16_key k;
	struct cz_groth16_proof p;
	struct cz_pool *pool = NULL;
	cz_scalar *w = NULL;
	cz_fr *abc = NULL;
	int ret = CZ_EXIT_USAGE, rc;

	if (!(pool = cz_pool_create((unsigned)threads))) {
		fprintf(stderr, "cuzk prove: cannot start %llu threads\n", (unsigned long long)threads);
		return CZ_EXIT_USAGE;
	}
	if (cz_groth16_key_load(&k, pos[0], pool, err, sizeof(err))) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		cz_pool_destroy(pool);
		return CZ_EXIT_USAGE;
	}
	size_t n = (size_t)1 << k.log2n;
	if (!(w = malloc((size_t)k.nvars * sizeof(*w))) || !(abc = malloc(3 * n * sizeof(*abc)))) {
		fprintf(stderr, "cuzk prove: out of memory for %u witness values and 3 x 2^%u vectors\n",
			k.nvars, k.log2n);
		goto out;
	}
	if (cz_wtns_read_path(pos[1], k.nvars, w, err, sizeof(err))) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		goto out;
	}

	cz_synth_abc(&k, w, abc, abc + n, abc + 2 * n, pool);
	rc = cz_groth16_prove(&k, w, abc, abc + n, abc + 2 * n, &p, pool, NULL);
	if (rc == CZ_GROTH16_UNSAT) {
		fprintf(stderr, "cuzk prove: %s: witness does not satisfy the circuit\n", pos[1]);
		ret = CZ_EXIT_FALSE;
		goto out;
	}
	if (rc == CZ_GROTH16_ERANDOM) {
		fprintf(stderr, "cuzk prove: getrandom failed drawing the blinding r, s: %s\n",
			strerror(errno));
		goto out;
	}
	if (rc) {
		fprintf(stderr, "cuzk prove: out of memory (domain 2^%u)\n", k.log2n);
		goto out;
	}
	if (write_outputs(&k, w, &p, pos[2], pos[3], bin_path, err)) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		goto out;
	}
	ret = CZ_EXIT_OK;
out:
	cz_pool_destroy(pool);
	free(abc);      /* wiped by cz_groth16_prove */
	if (w)
		explicit_bzero(w, (size_t)k.nvars * sizeof(*w));   /* the private signals */
	free(w);
	cz_groth16_key_free(&k);
	return ret;
}

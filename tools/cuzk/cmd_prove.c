/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_prove.c — `cuzk prove ZKEY WTNS PROOF.json PUBLIC.json
 * [--bin PROOF.bin] [--threads N]`, a drop-in for rapidsnark's `prover
 * circuit.zkey witness.wtns proof.json public.json`: the same arguments,
 * the same outputs (snarkjs's proof.json and public.json) and rapidsnark's
 * exit codes, 0 for a proof and 1 (EXIT_FAILURE) for anything else, with
 * the reason on stderr.  The .zkey's primes pick the curve: BLS12-381
 * ("bls12381") or BN254 ("bn128", circom's default).
 *
 * Loads the whole key (checked: header points in the subgroup, every point
 * on its curve, every coefficient in range) and the witness (nVars values,
 * each < r, over the key's curve: one of the other curve is refused naming
 * both), proves on a pool of N threads, and writes the outputs only after
 * the proof has verified against the key's own verification key: a
 * witness that does not satisfy the circuit gives exit 1 and no files
 * (rapidsnark would write a proof no verifier accepts).  Every output is
 * written to NAME.tmp and renamed, so a reader never sees a half-written
 * proof.  --bin (the zcash compressed encoding) is BLS12-381's only: BN254
 * has no such convention.
 *
 * `cuzk prove ZKEY --wasm CIRCUIT --input INPUT.json PROOF.json PUBLIC.json`
 * is snarkjs groth16 fullprove's job: the witness is computed here
 * (synth/witness/, the circuit's field checked against the key's curve) on
 * a thread of its own while the key loads, then read and checked exactly as
 * a WTNS file would be, and wiped after.
 */
#define _GNU_SOURCE
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "lib/pool.h"
#include "synth/synth.h"
#include "synth/witness/witness.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"
#include "zk/io/groth16_io.h"
#include "zk/io/outfile.h"
#include "zk/io/snarkjs_json.h"
#include "zk/io/zkey.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* rapidsnark's prover exits EXIT_FAILURE for every error. */
#define PROVE_FAIL 1

static int usage(void)
{
	fprintf(stderr, "usage: cuzk prove ZKEY WTNS PROOF.json PUBLIC.json [--bin PROOF.bin] "
			"[--threads N]\n"
			"       cuzk prove ZKEY --wasm CIRCUIT --input INPUT.json PROOF.json PUBLIC.json "
			"[--bin PROOF.bin] [--threads N] [--witness-timeout S] [--witness-cache DIR] "
			"[--quiet]\n");
	return PROVE_FAIL;
}

struct prove_args {
	const char *zkey, *wtns, *proof, *public, *bin;
	const char *wasm, *input;       /* --wasm, --input: the witness computed here */
	struct cz_witness_opts wopts;
	uint64_t timeout_ms;
	enum cz_curve curve;
	struct cz_pool *pool;
};

/* The witness of a->input by a->wasm's circuit, as a .wtns image in a memfd
 * (so that it is read and checked exactly as a submitted one: size against
 * the key, every value < r).  Returns the fd at offset 0, or -1 (printed).
 * The witness buffers are wiped; the caller wipes the memfd (ftruncate). */
static int witness_from_input(const struct prove_args *a)
{
	char err[1024], *json = NULL;
	size_t len = 0, wn = 0, fn = 0;
	struct cz_witness_prog *p = NULL;
	struct cz_witness_inst *in = NULL;
	uint8_t *w = NULL, *file = NULL;
	int fd = -1;

	if (cz_witness_read_input("prove", a->input, &json, &len))
		return -1;
	if (!(p = cz_witness_prog_load(a->wasm, &a->wopts, err, sizeof(err)))) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		goto out;
	}
	if (cz_witness_prog_curve(p) != a->curve) {
		fprintf(stderr, "cuzk prove: %s: the circuit's field is %s's, the key %s is over %s\n",
			a->wasm, cz_curve_name(cz_witness_prog_curve(p)), a->zkey,
			cz_curve_name(a->curve));
		goto out;
	}
	if (!(in = cz_witness_inst_create(p, err, sizeof(err)))) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		goto out;
	}
	wn = (size_t)cz_witness_prog_nvars(p) * cz_witness_prog_n8(p);
	fn = cz_witness_wtns_size(p);
	if (!(w = malloc(wn)) || !(file = malloc(fn))) {
		fprintf(stderr, "cuzk prove: out of memory for %u witness values\n",
			cz_witness_prog_nvars(p));
		goto out;
	}
	if (cz_witness_calc(in, json, len, w, wn, a->timeout_ms, err, sizeof(err))) {
		fprintf(stderr, "cuzk prove: %s: %s\n", a->input, err);
		goto out;
	}
	cz_witness_wtns_encode(p, w, file);
	if ((fd = memfd_create("cuzk-witness", MFD_CLOEXEC)) < 0) {
		fprintf(stderr, "cuzk prove: memfd_create: %s\n", strerror(errno));
		goto out;
	}
	size_t done = 0;
	while (done < fn) {
		ssize_t k = write(fd, file + done, fn - done);
		if (k <= 0) {
			fprintf(stderr, "cuzk prove: writing the witness to a memfd: %s\n",
				strerror(errno));
			close(fd);
			fd = -1;
			goto out;
		}
		done += (size_t)k;
	}
	lseek(fd, 0, SEEK_SET);
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
	return fd;
}

/* The witness is computed on a thread of its own while the key loads (they
 * need nothing of each other: the curve is known from the key's header, the
 * witness's size is checked against the key after both): the witness is one
 * thread's work, the load's conversion two threads' and its sorting one's,
 * so on two cores the two overlap.  Without a thread (pthread_create
 * failed) it runs inline.  wit_join: the memfd of witness_from_input (handed
 * over once: a second join returns -1), or -1. */
struct wit_job {
	const struct prove_args *a;
	pthread_t t;
	int started, fd;
};

static void *wit_thread(void *v)
{
	struct wit_job *j = v;
	j->fd = witness_from_input(j->a);
	return NULL;
}

static void wit_start(struct wit_job *j, const struct prove_args *a)
{
	j->a = a;
	j->fd = -1;
	j->started = a->wasm && !pthread_create(&j->t, NULL, wit_thread, j);
	if (a->wasm && !j->started)
		j->fd = witness_from_input(a);
}

static int wit_join(struct wit_job *j)
{
	int fd;

	if (j->started)
		pthread_join(j->t, NULL);
	j->started = 0;
	fd = j->fd;
	j->fd = -1;             /* the caller's now: a second join returns -1 */
	return fd;
}

/* The memfd's private values freed, the fd closed. */
static void wit_drop(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0)) { /* nothing else to do */ }
	close(fd);
}

static int write_bin_bls(const struct cz_groth16_proof *p, const char *path, char err[CZ_ERRLEN])
{
	uint8_t bin[CZ_PROOF_BIN_BYTES];

	cz_proof_bin(bin, p);
	return cz_outfile_write(path, bin, sizeof(bin), err);
}

/* One body for both curves: G16 the prover's prefix, JS the JSON prefix,
 * FR the scalar field; WBIN writes --bin or is NULL (no such encoding). */
#define PROVE_FN(NAME, G16, JS, FR, SYNTH, LOAD, WTNS, WTNSFD, WBIN)                            \
	static int NAME(const struct prove_args *a)                                     \
	{                                                                               \
		char err[CZ_ERRLEN] = "";                                               \
		struct G16##_key k;                                                     \
		struct G16##_proof p;                                                   \
		cz_scalar *w = NULL;                                                    \
		FR *abc = NULL, *pub = NULL;                                            \
		int (*wbin)(const struct G16##_proof *, const char *, char *) = WBIN;   \
		int ret = PROVE_FAIL, rc;                                               \
		struct wit_job wj;                                                      \
                                                                                        \
		if (a->bin && !wbin) {                                                  \
			fprintf(stderr, "cuzk prove: --bin: %s has no compressed proof "  \
					"encoding (BLS12-381 keys only)\n", a->zkey);     \
			return PROVE_FAIL;                                              \
		}                                                                       \
		wit_start(&wj, a);                                                      \
		if (LOAD(&k, a->zkey, a->pool, err, sizeof(err))) {                     \
			fprintf(stderr, "cuzk prove: %s\n", err);                       \
			wit_drop(wit_join(&wj));                                        \
			return PROVE_FAIL;                                              \
		}                                                                       \
		size_t n = (size_t)1 << k.log2n;                                        \
		if (!(w = cz_groth16_key_alloc((size_t)k.nvars * sizeof(*w))) ||        \
		    !(abc = cz_groth16_key_alloc(3 * n * sizeof(*abc))) ||              \
		    !(pub = malloc(((size_t)k.npub + 1) * sizeof(*pub)))) {             \
			fprintf(stderr, "cuzk prove: out of memory for %u witness "       \
					"values and 3 x 2^%u vectors\n", k.nvars, k.log2n); \
			goto out;                                                       \
		}                                                                       \
		if (a->wasm) {                                                          \
			int wfd = wit_join(&wj);                                        \
			if (wfd < 0)                                                    \
				goto out;                                               \
			rc = WTNSFD(wfd, k.nvars, w, err, sizeof(err));                 \
			wit_drop(wfd);          /* the private values, freed */         \
			if (rc) {                                                       \
				fprintf(stderr, "cuzk prove: the witness of %s: %s\n",  \
					a->input, err);                                 \
				goto out;                                               \
			}                                                               \
		} else if (WTNS(a->wtns, k.nvars, w, err, sizeof(err))) {               \
			fprintf(stderr, "cuzk prove: %s\n", err);                       \
			goto out;                                                       \
		}                                                                       \
		SYNTH(&k, w, abc, abc + n, abc + 2 * n, a->pool);                       \
		rc = G16##_prove(&k, w, abc, abc + n, abc + 2 * n, &p, a->pool, NULL);  \
		if (rc == CZ_GROTH16_UNSAT) {                                           \
			fprintf(stderr, "cuzk prove: %s: witness does not satisfy the "   \
					"circuit\n", a->wasm ? a->input : a->wtns);       \
			goto out;                                                       \
		}                                                                       \
		if (rc == CZ_GROTH16_ERANDOM) {                                         \
			fprintf(stderr, "cuzk prove: getrandom failed drawing the "       \
					"blinding r, s: %s\n", strerror(errno));          \
			goto out;                                                       \
		}                                                                       \
		if (rc) {                                                               \
			fprintf(stderr, "cuzk prove: out of memory (domain 2^%u)\n",      \
				k.log2n);                                               \
			goto out;                                                       \
		}                                                                       \
		for (uint32_t i = 0; i < k.npub; i++)                                   \
			FR##_to_mont(&pub[i], w[1 + i].l);  /* < r: the reader checked */ \
		if (JS##proof_json_write(a->proof, &p, err) ||                          \
		    JS##public_json_write(a->public, pub, k.npub, err) ||               \
		    (a->bin && wbin(&p, a->bin, err))) {                                \
			fprintf(stderr, "cuzk prove: %s\n", err);                       \
			goto out;                                                       \
		}                                                                       \
		ret = CZ_EXIT_OK;                                                       \
	out:                                                                            \
		wit_drop(wit_join(&wj));        /* a failure before the witness was taken */ \
		free(abc);      /* wiped by G16_prove */                                \
		free(pub);                                                              \
		if (w)                                                                  \
			explicit_bzero(w, (size_t)k.nvars * sizeof(*w)); /* private */  \
		free(w);                                                                \
		G16##_key_free(&k);                                                     \
		return ret;                                                             \
	}

PROVE_FN(prove_bls12_381, cz_groth16, cz_, cz_fr, cz_synth_abc, cz_groth16_key_load,
	 cz_wtns_read_path, cz_wtns_read_fd, write_bin_bls)
PROVE_FN(prove_bn254, cz_bn254_groth16, cz_bn254_, cz_bn254_fr, cz_bn254_synth_abc,
	 cz_bn254_groth16_key_load, cz_bn254_wtns_read_path, cz_bn254_wtns_read_fd, NULL)

int cz_cmd_prove(int argc, char **argv)
{
	const char *pos[4];
	struct prove_args a = { .wopts = { .progress = stderr, .log = stderr, .keep_probe = 1 } };
	uint64_t threads = 0;
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		int r = cz_witness_opt("prove", argc, argv, &i, &a.wopts, &a.timeout_ms);
		if (r < 0)
			return PROVE_FAIL;
		if (r)
			continue;
		if (!strcmp(s, "--wasm") && i + 1 < argc)
			a.wasm = argv[++i];
		else if (!strcmp(s, "--input") && i + 1 < argc)
			a.input = argv[++i];
		else if (!strcmp(s, "--bin") && i + 1 < argc)
			a.bin = argv[++i];
		else if (!strcmp(s, "--threads") && i + 1 < argc) {
			if (cz_cli_uint("prove", "--threads", argv[++i], 4096, &threads))
				return PROVE_FAIL;
		} else if (s[0] == '-' && s[1] == '-') {
			fprintf(stderr, "cuzk prove: unknown or incomplete option '%s'\n", s);
			return usage();
		} else if (npos < 4)
			pos[npos++] = s;
		else
			return usage();
	}
	if (!a.wasm != !a.input) {
		fprintf(stderr, "cuzk prove: --wasm and --input come together\n");
		return usage();
	}
	if (npos != (a.wasm ? 3 : 4))
		return usage();
	if (a.wasm)
		a.zkey = pos[0], a.proof = pos[1], a.public = pos[2];
	else
		a.zkey = pos[0], a.wtns = pos[1], a.proof = pos[2], a.public = pos[3];

	char err[CZ_ERRLEN] = "";
	enum cz_curve curve;
	if (cz_zkey_curve(a.zkey, &curve, err)) {
		fprintf(stderr, "cuzk prove: %s\n", err);
		return PROVE_FAIL;
	}
	if (!(a.pool = cz_pool_create((unsigned)threads))) {
		fprintf(stderr, "cuzk prove: cannot start %llu threads\n", (unsigned long long)threads);
		return PROVE_FAIL;
	}
	a.curve = curve;
	int ret = curve == CZ_CURVE_BN254 ? prove_bn254(&a) : prove_bls12_381(&a);
	cz_pool_destroy(a.pool);
	return ret;
}

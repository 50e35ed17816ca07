/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_devsetup.c — `cuzk devsetup`: an INSECURE single-party
 * Groth16 setup, for development, tests and benchmarks only.
 *
 * The toxic waste (τ, α, β, γ, δ) is derived from --seed by a public
 * function (zk/groth16/groth16_setup.c), so anyone who knows or guesses the seed
 * can forge proofs for the key.  Production keys come from a multi-party
 * ceremony (`snarkjs powersoftau` + `zkey contribute`, or Filecoin's
 * published parameters).  The command says so on every run.
 *
 *   cuzk devsetup --r1cs FILE --out-zkey K.zkey --out-vk VK.json [--seed N]
 *   cuzk devsetup --builtin merkle --log2 K --out-dir DIR [--witnesses N]
 *                 [--input SEED] [--seed N]
 *   (both also take --threads T)
 *
 * The .r1cs mode takes any circom circuit compiled with --prime bls12381 or
 * --prime bn128 (circom's default), the file's prime picking the curve;
 * circom numbers wires 0 = one, public outputs, public inputs, private,
 * which is cz_cs's order, so the matrices copy over row by row with
 * npub = nPubOut + nPubIn.  The keys have snarkjs's layout: `snarkjs
 * groth16 prove` works with them, and so does `cuzk prove`.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "lib/pool.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/builtin.h"
#include "zk/groth16/cs.h"
#include "zk/groth16/groth16.h"
#include "zk/io/groth16_io.h"
#include "zk/io/r1cs.h"
#include "zk/io/snarkjs_json.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct opts {
	const char *r1cs, *out_zkey, *out_vk;          /* --r1cs mode */
	const char *builtin, *out_dir;                  /* --builtin mode */
	uint64_t log2, witnesses, input, seed, threads;
};

static int usage(void)
{
	fprintf(stderr,
		"usage: cuzk devsetup --r1cs FILE --out-zkey K.zkey --out-vk VK.json [--seed N] [--threads T]\n"
		"       cuzk devsetup --builtin NAME --log2 K --out-dir DIR [--witnesses N] [--input SEED]\n"
		"                     [--seed N] [--threads T]\n"
		"INSECURE: the toxic waste is derived from --seed; for development and benchmarks only.\n");
	return CZ_EXIT_USAGE;
}

static void warn_insecure(uint64_t seed)
{
	fprintf(stderr,
		"cuzk devsetup: WARNING: INSECURE single-party setup. The toxic waste is derived from\n"
		"cuzk devsetup: WARNING: --seed %llu and is known: anyone can forge proofs for this key.\n"
		"cuzk devsetup: WARNING: never use it for anything of value.\n",
		(unsigned long long)seed);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct {
		const char *name;
		size_t off;
		uint64_t max;
	} nums[] = {
		{ "--log2", offsetof(struct opts, log2), CZ_BUILTIN_MAX_LOG2 },
		{ "--witnesses", offsetof(struct opts, witnesses), 1000000 },
		{ "--input", offsetof(struct opts, input), UINT64_MAX / 2 },
		{ "--seed", offsetof(struct opts, seed), UINT64_MAX },
		{ "--threads", offsetof(struct opts, threads), 4096 },
	};
	static const struct {
		const char *name;
		size_t off;
	} strs[] = {
		{ "--r1cs", offsetof(struct opts, r1cs) },
		{ "--out-zkey", offsetof(struct opts, out_zkey) },
		{ "--out-vk", offsetof(struct opts, out_vk) },
		{ "--builtin", offsetof(struct opts, builtin) },
		{ "--out-dir", offsetof(struct opts, out_dir) },
	};

	memset(o, 0, sizeof(*o));
	o->witnesses = 1;
	o->input = 1;
	o->seed = 1;
	for (int i = 1; i < argc; i++) {
		int found = 0;
		if (i + 1 >= argc) {
			fprintf(stderr, "cuzk devsetup: unknown or incomplete option '%s'\n", argv[i]);
			return -1;
		}
		for (size_t j = 0; j < sizeof(nums) / sizeof(nums[0]) && !found; j++)
			if (!strcmp(argv[i], nums[j].name)) {
				if (cz_cli_uint("devsetup", nums[j].name, argv[++i], nums[j].max,
						(uint64_t *)((char *)o + nums[j].off)))
					return -1;
				found = 1;
			}
		for (size_t j = 0; j < sizeof(strs) / sizeof(strs[0]) && !found; j++)
			if (!strcmp(argv[i], strs[j].name)) {
				*(const char **)((char *)o + strs[j].off) = argv[++i];
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "cuzk devsetup: unknown option '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!!o->r1cs == !!o->builtin) {
		fprintf(stderr, "cuzk devsetup: give exactly one of --r1cs FILE and --builtin NAME\n");
		return -1;
	}
	if (o->r1cs && (!o->out_zkey || !o->out_vk || o->out_dir || o->log2)) {
		fprintf(stderr, "cuzk devsetup: --r1cs needs --out-zkey and --out-vk (and takes no "
				"--out-dir or --log2)\n");
		return -1;
	}
	if (o->builtin && (!o->out_dir || !o->log2 || o->out_zkey || o->out_vk)) {
		fprintf(stderr, "cuzk devsetup: --builtin needs --log2 and --out-dir (and takes no "
				"--out-zkey or --out-vk)\n");
		return -1;
	}
	return 0;
}

/* circom's matrices, one cs row per constraint; the key and its vk.json
 * written.  One body for both curves: CS the constraint system's prefix,
 * MAT LOAD MFREE the .r1cs matrices', G16 the prover's, JS the JSON's. */
#define R1CS_SETUP(NAME, CS, MAT, LOAD, MFREE, G16, JS)                                 \
	static int NAME(const struct cz_r1cs *r, const struct opts *o, struct cz_pool *pool, \
			char err[CZ_ERRLEN])                                            \
	{                                                                               \
		struct MAT m[3];                                                        \
		struct CS cs;                                                           \
		struct G16##_key k;                                                     \
		struct G16##_vk vk;                                                     \
		int rc;                                                                 \
                                                                                        \
		if ((rc = LOAD(r, m, err)))                                             \
			return rc;                                                      \
		rc = CS##_init(&cs, r->n_wires, r->n_pub_out + r->n_pub_in);            \
		for (uint32_t i = 0; !rc && i < r->n_constraints; i++) {                \
			rc = CS##_row(&cs);                                             \
			for (int j = 0; j < 3 && !rc; j++)                              \
				for (uint64_t t = m[j].start[i]; t < m[j].start[i + 1] && !rc; t++) \
					rc = CS##_term(&cs, j, m[j].wire[t], &m[j].value[t]); \
		}                                                                       \
		MFREE(m);                                                               \
		if (rc) {                                                               \
			CS##_free(&cs);                                                 \
			return cz_errf(err, rc, "%s: out of memory for %u constraints",  \
				       o->r1cs, r->n_constraints);                      \
		}                                                                       \
		printf("%s: %s, %u constraints, %u wires, %u public\n", o->r1cs,        \
		       cz_curve_name(r->curve), cs.nrows, cs.nvars, cs.npub);           \
		rc = G16##_devsetup(&cs, o->seed, &k, pool);                            \
		if (rc) {                                                               \
			cz_errf(err, rc, "setup failed (%s): %u constraints, %u public",  \
				rc == -ENOMEM ? "out of memory"                         \
					      : "circuit too large for Fr's 2-adicity", \
				cs.nrows, cs.npub);                                     \
			CS##_free(&cs);                                                 \
			return rc;                                                      \
		}                                                                       \
		CS##_free(&cs);                                                         \
		rc = G16##_key_save(&k, o->out_zkey, err, CZ_ERRLEN);                   \
		if (!rc) {                                                              \
			printf("wrote %s (proving key: domain 2^%u, %u signals, %u "      \
			       "public)\n", o->out_zkey, k.log2n, k.nvars, k.npub);       \
			G16##_vk_from_key(&vk, &k);     /* borrows k.ic */              \
			JS##groth16_vk_set_alphabeta(&vk);                              \
			rc = JS##groth16_vk_json_write(o->out_vk, &vk, err);            \
			if (!rc)                                                        \
				printf("wrote %s (verification key)\n", o->out_vk);     \
		}                                                                       \
		G16##_key_free(&k);                                                     \
		return rc;                                                              \
	}

R1CS_SETUP(r1cs_setup_bls12_381, cz_cs, cz_r1cs_matrix, cz_r1cs_load, cz_r1cs_matrices_free,
	   cz_groth16, cz_)
R1CS_SETUP(r1cs_setup_bn254, cz_bn254_cs, cz_bn254_r1cs_matrix, cz_bn254_r1cs_load,
	   cz_bn254_r1cs_matrices_free, cz_bn254_groth16, cz_bn254_)

/* The .r1cs's prime picks the curve. */
static int run_r1cs(const struct opts *o, struct cz_pool *pool, char err[CZ_ERRLEN])
{
	struct cz_r1cs *r = cz_r1cs_open_curve(o->r1cs, 0, err);
	int rc;

	if (!r)
		return -EINVAL;
	if ((uint64_t)r->n_pub_out + r->n_pub_in + 1 > r->n_wires)
		rc = cz_errf(err, -EINVAL, "%s: header: nPubOut + nPubIn = %u + %u, but nWires = %u",
			     o->r1cs, r->n_pub_out, r->n_pub_in, r->n_wires);
	else if (r->curve == CZ_CURVE_BN254)
		rc = r1cs_setup_bn254(r, o, pool, err);
	else
		rc = r1cs_setup_bls12_381(r, o, pool, err);
	cz_r1cs_close(r);
	return rc;
}

static int write_key(const struct cz_groth16_key *k, const char *zkey, const char *vkpath,
		     char err[CZ_ERRLEN])
{
	struct cz_groth16_vk vk;
	int rc = cz_groth16_key_save(k, zkey, err, CZ_ERRLEN);

	if (rc)
		return rc;
	printf("wrote %s (proving key: domain 2^%u, %u signals, %u public)\n", zkey, k->log2n,
	       k->nvars, k->npub);
	cz_groth16_vk_from_key(&vk, k);             /* borrows k->ic */
	cz_groth16_vk_set_alphabeta(&vk);
	if ((rc = cz_groth16_vk_json_write(vkpath, &vk, err)))
		return rc;
	printf("wrote %s (verification key)\n", vkpath);
	return 0;
}

static int setup(const struct cz_cs *cs, const struct opts *o, struct cz_pool *pool,
		 const char *zkey, const char *vk, char err[CZ_ERRLEN])
{
	struct cz_groth16_key k;
	int rc = cz_groth16_devsetup(cs, o->seed, &k, pool);

	if (rc)
		return cz_errf(err, rc, "setup failed (%s): %u constraints, %u public",
			       rc == -ENOMEM ? "out of memory" : "circuit too large for Fr's 2-adicity",
			       cs->nrows, cs->npub);
	rc = write_key(&k, zkey, vk, err);
	cz_groth16_key_free(&k);
	return rc;
}

static int run_builtin(const struct opts *o, struct cz_pool *pool, char err[CZ_ERRLEN])
{
	char zkey[4096], vk[4096], wt[4096];
	struct cz_cs cs;
	cz_fr *w;
	int rc;

	if (mkdir(o->out_dir, 0777) && errno != EEXIST)
		return cz_errf(err, -errno, "%s: %s", o->out_dir, strerror(errno));
	if (snprintf(zkey, sizeof(zkey), "%s/%s_%u.zkey", o->out_dir, o->builtin,
		     (unsigned)o->log2) >= (int)sizeof(zkey))
		return cz_errf(err, -ENAMETOOLONG, "%s: path too long", o->out_dir);
	snprintf(vk, sizeof(vk), "%s/%s_%u_vk.json", o->out_dir, o->builtin, (unsigned)o->log2);
	for (uint64_t i = 0; i <= o->witnesses; i++) {
		/* witness i - 1 is input SEED + i - 1; the circuit is the same
		 * for every input, so the first build also gives the key */
		uint64_t in = o->input + (i ? i - 1 : 0);
		if (cz_builtin_build(o->builtin, (unsigned)o->log2, in, &cs, &w, err))
			return -EINVAL;
		if (i == 0)
			rc = setup(&cs, o, pool, zkey, vk, err);
		else if (cz_cs_check(&cs, w) != -1)
			rc = cz_errf(err, -EINVAL, "built-in %s: witness for input %llu does not "
				     "satisfy the circuit (a bug)", o->builtin, (unsigned long long)in);
		else {
			snprintf(wt, sizeof(wt), "%s/%s_%u_%llu.wtns", o->out_dir, o->builtin,
				 (unsigned)o->log2, (unsigned long long)(i - 1));
			rc = cz_wtns_save(wt, w, cs.nvars, err, CZ_ERRLEN);
			if (!rc)
				printf("wrote %s (witness for input %llu)\n", wt, (unsigned long long)in);
		}
		free(w);
		cz_cs_free(&cs);
		if (rc || o->witnesses == 0)
			return rc;
	}
	return 0;
}

int cz_cmd_devsetup(int argc, char **argv)
{
	char err[CZ_ERRLEN] = "";
	struct cz_pool *pool;
	struct opts o;
	int rc;

	if (parse(argc, argv, &o))
		return usage();
	warn_insecure(o.seed);
	if (!(pool = cz_pool_create((unsigned)o.threads))) {
		fprintf(stderr, "cuzk devsetup: cannot start the thread pool\n");
		return CZ_EXIT_USAGE;
	}
	if (o.r1cs) {
		rc = run_r1cs(&o, pool, err);
	} else {
		rc = run_builtin(&o, pool, err);
	}
	cz_pool_destroy(pool);
	if (rc) {
		fprintf(stderr, "cuzk devsetup: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	return CZ_EXIT_OK;
}

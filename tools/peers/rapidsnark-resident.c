/* SPDX-License-Identifier: MIT */
/*
 * tools/peers/rapidsnark-resident.c — iden3 rapidsnark with its key resident,
 * for tools/bench-resident.sh: a benchmark driver, never part of cuzk's build.
 *
 * rapidsnark has no resident-key server any more (its proverServer is gone
 * from the tree), but its library keeps a key in memory
 * (groth16_prover_create over a buffer the caller keeps; its _zkey_file
 * variant unmaps the file before the prover uses it, and the first proof
 * faults) and proves witnesses against it (groth16_prover_prove).  This
 * program does that, so cuzk's resident
 * proofs (cuzk bench prove, the daemon) have a like-for-like peer:
 *
 *   rapidsnark-resident ZKEY WTNS N PROOF.json PUBLIC.json
 *
 * loads ZKEY once, proves WTNS N times, writes the last proof, and prints
 * one line per phase: "load wall_ms cpu_ms", then "prove I wall_ms cpu_ms"
 * (process CPU time: every thread's, user and system).  Built by
 * tools/bench-resident.sh against a rapidsnark built from its sources
 * (RAPIDSNARK_DIR), with its OpenMP and GMP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <prover.h>      /* rapidsnark's src/prover.h, by -I: the peer's, not cuzk's */

static double ms(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "rapidsnark-resident: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	void *b = NULL;
	if (fseek(f, 0, SEEK_END) == 0) {
		long n = ftell(f);
		if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = n > 0 ? (size_t)n : 0;
	}
	fclose(f);
	if (!b)
		fprintf(stderr, "rapidsnark-resident: %s: cannot read it\n", path);
	return b;
}

static int put(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ok = f && fputs(s, f) >= 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok)
		fprintf(stderr, "rapidsnark-resident: %s: %s\n", path, strerror(errno));
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	char err[1024];
	void *prover = NULL;
	size_t wlen = 0, zlen = 0;
	int n = argc == 6 ? atoi(argv[3]) : 0;
	if (n < 1) {
		fprintf(stderr, "usage: rapidsnark-resident ZKEY WTNS N PROOF.json PUBLIC.json\n");
		return 2;
	}
	double w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
	void *zkey = slurp(argv[1], &zlen);     /* kept until the end: the prover points into it */
	if (!zkey)
		return 1;
	if (groth16_prover_create(&prover, zkey, zlen, err, sizeof err) != PROVER_OK) {
		fprintf(stderr, "rapidsnark-resident: %s: %s\n", argv[1], err);
		return 1;
	}
	printf("load %.1f %.1f\n", ms(CLOCK_MONOTONIC) - w0, ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
	void *wtns = slurp(argv[2], &wlen);
	unsigned long long cap = 0;
	groth16_proof_size(&cap);
	unsigned long long pubcap = 1u << 20;
	char *proof = malloc(cap + 1), *pub = malloc(pubcap + 1);
	if (!wtns || !proof || !pub)
		return 1;
	for (int i = 0; i < n; i++) {
		unsigned long long pl = cap, ql = pubcap;
		w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
		int rc = groth16_prover_prove(prover, wtns, wlen, proof, &pl, pub, &ql, err, sizeof err);
		if (rc != PROVER_OK) {
			fprintf(stderr, "rapidsnark-resident: prove %d: %s (code %d)\n", i, err, rc);
			return 1;
		}
		printf("prove %d %.1f %.1f\n", i, ms(CLOCK_MONOTONIC) - w0, ms(CLOCK_PROCESS_CPUTIME_ID) - c0);
		fflush(stdout);
		proof[pl < cap ? pl : cap] = 0;
		pub[ql < pubcap ? ql : pubcap] = 0;
	}
	groth16_prover_destroy(prover);
	free(zkey);
	return put(argv[4], proof) || put(argv[5], pub);
}

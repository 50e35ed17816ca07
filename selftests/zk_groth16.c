/* SPDX-License-Identifier: MIT */
/* Description: built-in circuit, dev setup, prove, verify; tampering and bad witnesses rejected; r, s wiped; a getrandom failure named; key and domain footprints against malloc's own count. */
#include "zk/groth16/builtin.h"
#include "synth/synth.h"
#include "zk/groth16/groth16.h"
#include "zk/ntt/ntt.h"
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "selftests/deny_getrandom.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CZ_SANITIZED 1  /* malloc is the sanitizer's: mallinfo2 does not count it */
#else
#define CZ_SANITIZED 0
#endif

static bool all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

/* Bytes malloc has handed out, heap and mmap'd chunks: malloc's count, not ours. */
static size_t malloc_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void to_scalars(cz_scalar *s, const cz_fr *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cz_fr_from_mont(s[i].l, &w[i]);
}

static int prove_and_check(unsigned log2n, struct cz_pool *pool)
{
	struct cz_cs cs;
	struct cz_groth16_key k;
	struct cz_groth16_proof p;
	struct cz_groth16_vk vk;
	cz_fr *w, pub[2];
	char err[256];
	int ok = 1;

	if (!ct_ok(cz_builtin_build("merkle", log2n, 42, &cs, &w, err) == 0, "2^%u: build merkle: %s", log2n, err))
		return 0;
	ct_ok(cs.nrows + cs.npub + 1 == (1u << log2n), "2^%u: rows + public + 1 = 2^%u exactly (%u rows)",
	      log2n, log2n, cs.nrows);
	ct_ok(cz_cs_check(&cs, w) == -1, "2^%u: the built-in witness satisfies every row", log2n);
	ok &= ct_ok(cz_groth16_devsetup(&cs, 7, &k, pool) == 0 && k.log2n == log2n, "2^%u: devsetup", log2n);

	size_t n = (size_t)1 << log2n;
	cz_scalar *ws = malloc(cs.nvars * sizeof(*ws));
	cz_fr *abc = malloc(3 * n * sizeof(*abc));
	to_scalars(ws, w, cs.nvars);
	cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	int rc = cz_groth16_prove(&k, ws, abc, abc + n, abc + 2 * n, &p, pool, NULL);
	ok &= ct_ok(rc == CZ_GROTH16_OK && all_bytes(abc, 3 * n * sizeof(*abc), 0),
		    "2^%u: proof verifies, and a, b, c are wiped after (rc %d)", log2n, rc);

	cz_groth16_vk_from_key(&vk, &k);
	pub[0] = w[1], pub[1] = w[2];
	ct_ok(cz_groth16_verify(&vk, pub, &p), "2^%u: verify with public inputs from the witness", log2n);
	cz_fr_add(&pub[1], &pub[1], &cz_fr_one);
	ct_ok(!cz_groth16_verify(&vk, pub, &p), "2^%u: changed public input rejected", log2n);
	pub[1] = w[2];
	struct cz_groth16_proof q = p;
	cz_g1_affine_neg(&q.a, &q.a);
	ct_ok(!cz_groth16_verify(&vk, pub, &q), "2^%u: changed A rejected", log2n);
	q = p;
	q.c = p.a;
	ct_ok(!cz_groth16_verify(&vk, pub, &q), "2^%u: changed C rejected", log2n);

	/* The finalize stage with the caller's scratch: a proof comes out and
	 * the scratch is all zeros after, neither the pattern put in (unused)
	 * nor r, s (used, not wiped). */
	{
		struct cz_ntt_domain *d = cz_ntt_domain_create(k.log2n);
		cz_scalar *h = malloc(n * sizeof(cz_scalar));
		struct cz_groth16_msms m;
		struct cz_groth16_secrets sec;
		int drc = -1;

		memset(&sec, 0xa5, sizeof(sec));
		rc = -1;
		if (d && abc && h) {
			cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
			drc = cz_groth16_device(&k, d, ws, abc, abc + n, abc + 2 * n, h, &m, pool, NULL);
			rc = drc ? -1 : cz_groth16_finish(&k, &m, ws, &q, &sec, NULL);
		}
		ct_ok(rc == CZ_GROTH16_OK && cz_groth16_verify(&vk, pub, &q) &&
		      all_bytes(&sec, sizeof(sec), 0),
		      "2^%u: finish gives a proof that verifies and leaves r, s and their random bytes "
		      "wiped (rc %d)", log2n, rc);
		free(h);
		cz_ntt_domain_destroy(d);
	}

	/* A wire changed: the witness no longer satisfies the circuit. */
	ws[1].l[0] ^= 1;
	cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, pool);
	rc = cz_groth16_prove(&k, ws, abc, abc + n, abc + 2 * n, &p, pool, NULL);
	ct_ok(rc == CZ_GROTH16_UNSAT, "2^%u: unsatisfying witness gives UNSAT, not a proof (rc %d)", log2n, rc);

	free(abc);
	free(ws);
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&k);
	return ok;
}

/* getrandom denied (seccomp, in a child): the prover says getrandom and
 * errno, not "unsatisfied" or "out of memory". */
static void random_fails(void)
{
	struct cz_cs cs;
	struct cz_groth16_key k;
	struct cz_groth16_proof p;
	cz_fr *w;
	char err[256];
	int fd[2], st = 0;

	if (cz_builtin_build("merkle", 6, 3, &cs, &w, err) || cz_groth16_devsetup(&cs, 5, &k, NULL) ||
	    pipe(fd)) {
		ct_ok(0, "fixture for the getrandom failure: %s", err);
		return;
	}
	size_t n = (size_t)1 << k.log2n;
	cz_scalar *ws = malloc(cs.nvars * sizeof(*ws));
	cz_fr *abc = malloc(3 * n * sizeof(*abc));
	to_scalars(ws, w, cs.nvars);
	cz_synth_abc(&k, ws, abc, abc + n, abc + 2 * n, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int out[2] = { -100, 0 };
		if (!deny_getrandom(EIO)) {
			out[0] = cz_groth16_prove(&k, ws, abc, abc + n, abc + 2 * n, &p, NULL, NULL);
			out[1] = errno;
		}
		if (write(fd[1], out, sizeof(out)) != sizeof(out))
			_exit(2);
		_exit(0);
	}
	int got[2] = { 0, 0 };
	ssize_t nr = read(fd[0], got, sizeof(got));
	waitpid(pid, &st, 0);
	if (nr == sizeof(got) && got[0] == -100)
		ct_skip("no seccomp filters here", "getrandom failure named");
	else
		ct_ok(nr == sizeof(got) && got[0] == CZ_GROTH16_ERANDOM && got[1] == EIO,
		      "getrandom failing with EIO: prove returns CZ_GROTH16_ERANDOM with errno EIO "
		      "(rc %d, errno %d)", got[0], got[1]);
	close(fd[0]);
	close(fd[1]);
	free(abc);
	free(ws);
	free(w);
	cz_cs_free(&cs);
	cz_groth16_key_free(&k);
}

/* What cz_groth16_key_bytes and cz_ntt_domain_bytes say a key and a domain
 * hold, against malloc's own figures: the usable size of each of the key's
 * arrays (at most 24 bytes over each request), and what mallinfo2 counts
 * for a domain (its small struct may come from a cache mallinfo2 counts as
 * in use either way: within 256 bytes). */
static void footprints(void)
{
	struct cz_cs cs;
	struct cz_groth16_key k;
	cz_fr *w;
	char err[256];

	cz_builtin_build("merkle", 10, 3, &cs, &w, err);
	cz_groth16_devsetup(&cs, 5, &k, NULL);
	free(w);
	cz_cs_free(&cs);
	uint64_t said = cz_groth16_key_bytes(&k);
	void *arrays[] = { k.ic, k.a, k.b1, k.b2, k.c, k.h, k.coefs, k.row_off };
	size_t usable = 0;
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		usable += arrays[i] ? malloc_usable_size(arrays[i]) : 0;
	ct_ok(usable >= said && usable <= said + 8 * 24,
	      "key: cz_groth16_key_bytes %llu, malloc_usable_size of its arrays %zu",
	      (unsigned long long)said, usable);
	cz_groth16_key_free(&k);

	if (CZ_SANITIZED) {
		ct_skip("sanitizer malloc", "NTT domain footprint against mallinfo2");
		return;
	}
	size_t before = malloc_in_use();
	struct cz_ntt_domain *d = cz_ntt_domain_create(12);
	long made = (long)(malloc_in_use() - before);
	said = d ? cz_ntt_domain_bytes(d) : 0;
	ct_ok(d && labs(made - (long)said) <= 256,
	      "NTT domain 2^12: cz_ntt_domain_bytes %llu, mallinfo2 says %ld",
	      (unsigned long long)said, made);
	cz_ntt_domain_destroy(d);
}

int main(void)
{
	struct cz_pool *pool = cz_pool_create(2);
	ct_plan(3 * 11 + 3);
	prove_and_check(6, NULL);
	prove_and_check(10, pool);
	prove_and_check(12, pool);
	cz_pool_destroy(pool);
	random_fails();
	footprints();
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16.h — Groth16 over BLS12-381, the math snarkjs and rapidsnark use,
 * so keys from `snarkjs groth16 setup` work unchanged.
 *
 * A proof is three stages, each a function with explicit inputs and outputs
 * (no global state), so the daemon can schedule them on different threads
 * and devices:
 *   synth     witness → a = A·w, b = B·w, c = a∘b on the n-domain (CPU; the
 *             layer above this one, synth/synth.h: zk/ never calls it)
 *   device    a, b, c → odd-coset evaluations, d = a·b − c, and the five
 *             MSMs A, B1, B2, C, H (the part a GPU does)
 *   finalize  MSM results + blinding r, s → proof (CPU, milliseconds)
 * The big buffers (witness, a, b, c, h) are the caller's.  Each MSM's
 * scratch (buckets, batch-addition queues: zk/msm_tmpl_pvt.h) comes from
 * the pool's per-thread scratch slots, which only grow: the first MSM of a
 * size on a pool allocates, later ones make no heap call (the daemon's
 * device stages after warm-up; selftests/e2e_heap counts it), and a slot
 * that cannot grow is why cz_groth16_device can fail with -ENOMEM.
 * cz_groth16_prove, the one-shot CLI path, also allocates h and the NTT
 * domain.
 * cz_groth16_prove() runs device and finalize on vectors the caller has
 * synthesized, and verifies the proof before returning it.
 */
#ifndef CZ_GROTH16_H
#define CZ_GROTH16_H

#include <stdbool.h>
#include <stdint.h>

#include "zk/g1.h"
#include "zk/g2.h"
#include "zk/msm.h"

struct cz_pool;
struct cz_ntt_domain;

/* One nonzero entry of the A or B matrix (the .zkey coefficient section).
 * value holds v·R² mod r, as .zkey stores it: cz_fr_mul(value, w) with w in
 * standard form then yields v·w in Montgomery form. */
struct cz_groth16_coef {
	uint32_t matrix;        /* 0 = A, 1 = B */
	uint32_t row;           /* constraint, < n */
	uint32_t var;           /* signal, < nvars */
	cz_fr value;
};

/* The proving key (what a .zkey holds), points in affine form. */
struct cz_groth16_key {
	uint32_t nvars;         /* signals including the constant one */
	uint32_t npub;          /* public signals, not counting the one */
	uint32_t log2n;         /* domain size n = 2^log2n */
	cz_g1_affine alpha1, beta1, delta1;
	cz_g2_affine beta2, gamma2, delta2;
	cz_g1_affine *ic;       /* npub + 1 */
	cz_g1_affine *a;        /* nvars */
	cz_g1_affine *b1;       /* nvars */
	cz_g2_affine *b2;       /* nvars */
	cz_g1_affine *c;        /* nvars − npub − 1: the private signals only */
	cz_g1_affine *h;        /* n */
	struct cz_groth16_coef *coefs;  /* sorted by row once indexed */
	size_t ncoefs;
	uint32_t *row_off;      /* n + 1: row i's coefficients are [row_off[i], row_off[i+1]) */
};

/* A proof; zk/snarkjs_json.h reads and writes its proof.json form,
 * zk/groth16_io.h its 192-byte compressed form. */
struct cz_groth16_proof {
	cz_g1_affine a;   /* pi_a */
	cz_g2_affine b;   /* pi_b */
	cz_g1_affine c;   /* pi_c */
};

/* The verification key; zk/snarkjs_json.h reads and writes vk.json
 * (cz_groth16_vk_free, cz_groth16_vk_set_alphabeta are there too). */
struct cz_groth16_vk {
	uint32_t n_public;        /* public inputs, not counting the constant 1 */
	cz_g1_affine alpha1;
	cz_g2_affine beta2, gamma2, delta2;
	cz_g1_affine *ic;         /* n_public + 1 points, malloc'd (cz_groth16_vk_free) */
	/* snarkjs's e(alpha1, beta2)^3 in its Fp12 order (c0.c0.c0, c0.c0.c1,
	 * c0.c1.c0, ... c1.c2.c1); written only if have_alphabeta. */
	bool have_alphabeta;
	cz_fp alphabeta[12];
};


/* The device stage's results. */
struct cz_groth16_msms {
	cz_g1_jac a, b1, c, h;
	cz_g2_jac b2;
};

/* Stage timings, milliseconds (filled by cz_groth16_prove when asked). */
struct cz_groth16_times {
	double synth, ntt, msm_a, msm_b1, msm_b2, msm_c, msm_h, finalize, verify;
};

void cz_groth16_key_free(struct cz_groth16_key *k);
/* Sorts the key's coefficients by row and builds row_off (zk/groth16_key.c);
 * the key loaders and cz_groth16_devsetup call it.  0 or -ENOMEM (the key
 * then stays usable, with serial synthesis). */
int cz_groth16_key_index(struct cz_groth16_key *k);
/* Bytes the key's arrays hold (points, coefficients, row index): what a
 * resident key costs, for the daemon's memory budget. */
uint64_t cz_groth16_key_bytes(const struct cz_groth16_key *k);
void cz_groth16_vk_from_key(struct cz_groth16_vk *vk, const struct cz_groth16_key *k);

/* Overwrites a, b, c; hbuf: n scalars of scratch.  Returns 0 or -ENOMEM. */
int cz_groth16_device(const struct cz_groth16_key *k, const struct cz_ntt_domain *d,
		      const cz_scalar *w, cz_fr *a, cz_fr *b, cz_fr *c, cz_scalar *hbuf,
		      struct cz_groth16_msms *out, struct cz_pool *pool,
		      struct cz_groth16_times *t);
void cz_groth16_finalize(const struct cz_groth16_key *k, const struct cz_groth16_msms *m,
			 const cz_fr *r, const cz_fr *s, struct cz_groth16_proof *p);

/* The finalize stage's secrets: getrandom(2)'s bytes and the blinding r, s
 * drawn from them.  Whoever holds one wipes it (cz_groth16_secrets_wipe)
 * once the proof is assembled: anyone who learns r or s with the proof
 * can strip the blinding. */
struct cz_groth16_secrets {
	uint8_t rnd[128];
	cz_fr r, s;
};
/* r, s from getrandom(2).  0, or CZ_GROTH16_ERANDOM with errno as
 * getrandom left it (ENOSYS, EPERM under a seccomp filter, ...). */
int cz_groth16_blinding(struct cz_groth16_secrets *sec);
/* explicit_bzero: a wipe the compiler cannot drop as a dead store. */
void cz_groth16_secrets_wipe(struct cz_groth16_secrets *sec);
/* The finalize stage for a caller that ran the device stage itself (the
 * daemon): r, s drawn into sec, the proof assembled from m and verified for
 * w's public inputs, sec wiped whatever the outcome.  The caller provides
 * sec so that a test can see it wiped.  CZ_GROTH16_OK, CZ_GROTH16_UNSAT
 * (the proof does not verify: the witness does not satisfy the circuit) or
 * CZ_GROTH16_ERANDOM (errno from getrandom).  t (may be NULL) gets the
 * finalize and verify times. */
int cz_groth16_finish(const struct cz_groth16_key *k, const struct cz_groth16_msms *m,
		      const cz_scalar *w, struct cz_groth16_proof *p,
		      struct cz_groth16_secrets *sec, struct cz_groth16_times *t);

/* Verifies a proof for the witness's own public inputs (w[1..npub]). */
bool cz_groth16_check_proof(const struct cz_groth16_key *k, const cz_scalar *w,
			    const struct cz_groth16_proof *p);
/* pub: npub values (Montgomery form).  True iff the proof verifies; points
 * must already be known on the curve and in the subgroup. */
bool cz_groth16_verify(const struct cz_groth16_vk *vk, const cz_fr *pub,
		       const struct cz_groth16_proof *p);

enum {
	CZ_GROTH16_OK = 0,
	CZ_GROTH16_ENOMEM = -1,         /* a buffer or the NTT domain */
	CZ_GROTH16_UNSAT = -2,          /* the witness does not satisfy the circuit */
	CZ_GROTH16_ERANDOM = -3,        /* getrandom(2) failed drawing r, s; errno says why */
};
/* The rest of a proof once a, b, c are synthesized (cz_synth_abc, n each):
 * device stage, cz_groth16_finish, so the proof is verified before it is
 * returned.  t may be NULL; t->synth is the caller's to fill.  a, b, c, its
 * own scratch h and r, s (all derived from w or secret) are wiped before
 * it returns; w is the caller's to wipe. */
int cz_groth16_prove(const struct cz_groth16_key *k, const cz_scalar *w, cz_fr *a, cz_fr *b,
		     cz_fr *c, struct cz_groth16_proof *p, struct cz_pool *pool,
		     struct cz_groth16_times *t);

struct cz_cs;
/* INSECURE single-party setup: the toxic waste comes from seed and is known
 * to whoever knows the seed.  For development and benchmarks only. */
int cz_groth16_devsetup(const struct cz_cs *cs, uint64_t seed, struct cz_groth16_key *k,
			struct cz_pool *pool);

#endif

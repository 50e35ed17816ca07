/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16.h — Groth16 over BLS12-381, the math snarkjs and rapidsnark use,
 * so keys from `snarkjs groth16 setup` work unchanged; the same code proves
 * over BN254 (zk/groth16/bn254_groth16.h: cz_bn254_groth16_*, snarkjs' bn128).
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
 * scratch (buckets, batch-addition queues: zk/msm/msm_tmpl_pvt.h) comes from
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
#include <stddef.h>
#include <stdint.h>

#include "zk/curve/g1.h"
#include "zk/curve/g2.h"
#include "zk/msm/msm.h"
#include "zk/msm/msm_fixed.h"

struct cz_pool;
struct cz_ntt_domain;

/* The prover's API, for either curve: P the prefix (cz_groth16 here,
 * cz_bn254_groth16 in zk/groth16/bn254_groth16.h), FR the scalar field, G1 G2 the
 * group prefixes, D the NTT domain's struct tag.  zk/groth16/groth16_tmpl_pvt.h
 * defines it once; the types are:
 *
 * struct P_coef: one nonzero entry of the A or B matrix (the .zkey
 * coefficient section).  value holds v·R² mod r, as .zkey stores it:
 * FR_mul(value, w) with w in standard form then yields v·w in Montgomery
 * form.
 * struct P_key: the proving key (what a .zkey holds), points affine.
 * struct P_msms: the device stage's results.
 * struct P_secrets: the finalize stage's secrets, getrandom(2)'s bytes and
 * the blinding r, s drawn from them.  Whoever holds one wipes it
 * (P_secrets_wipe) once the proof is assembled: anyone who learns r or s
 * with the proof can strip the blinding.
 *
 * key_free; key_index sorts the key's coefficients by row and builds
 * row_off (the key loaders and cz_groth16_devsetup call it): 0 or -ENOMEM
 * (the key then stays usable, with serial synthesis).  key_bytes: bytes
 * the key's arrays hold (points, coefficients, row index), what a resident
 * key costs for the daemon's memory budget.
 * device: overwrites a, b, c; hbuf: n scalars of scratch; 0 or -ENOMEM.
 * blinding: r, s from getrandom(2); 0, or CZ_GROTH16_ERANDOM with errno as
 * getrandom left it (ENOSYS, EPERM under a seccomp filter, ...).
 * secrets_wipe: explicit_bzero, a wipe the compiler cannot drop.
 * finish: the finalize stage for a caller that ran the device stage itself
 * (the daemon): r, s drawn into sec, the proof assembled from m and
 * verified for w's public inputs, sec wiped whatever the outcome.  The
 * caller provides sec so that a test can see it wiped.  CZ_GROTH16_OK,
 * CZ_GROTH16_UNSAT (the proof does not verify: the witness does not
 * satisfy the circuit) or CZ_GROTH16_ERANDOM (errno from getrandom).  t
 * (may be NULL) gets the finalize and verify times.
 * check_proof: verifies a proof for the witness's own public inputs
 * (w[1..npub]).
 * key_tables: fixed-base tables (zk/msm/msm_fixed.h) for the key's five
 * MSM queries (fx: a, b1, b2, c, h), each as the cost model chooses for
 * threads threads within its share of max_bytes (shares by the queries'
 * own bytes); a query no table speeds up gets none.  Built on pool; done
 * counts bases finished of *total (set first), for a progress report.
 * key_bytes counts the tables, key_free frees them, the device stage uses
 * them.  0, or -ENOMEM (no table kept).  It is key_tables_plan, then each
 * planned table on the heap, then key_tables_fill; a caller with its own
 * memory (the daemon's shared region, curves/shkey.c) runs the two halves
 * around it, so no table is ever held twice:
 * key_tables_plan: shapes fx (cz_msm_fixed_shape: c, stride, bytes; tab
 * NULL) as key_tables would choose, and returns the bytes they need; a
 * query without a table has bytes 0.  *total (may be NULL): their bases.
 * key_tables_fill: builds every shaped table (bytes > 0) into its tab,
 * which the caller has pointed at that many writable bytes; 0, -EINVAL (a
 * shaped table without tab), -ENOMEM (scratch; the tables are the
 * caller's).
 * prove: the rest of a proof once a, b, c are synthesized (synth/synth.h,
 * n each): device stage, finish, so the proof is verified before it is
 * returned.  t may be NULL; t->synth is the caller's to fill.  a, b, c,
 * its own scratch h and r, s (all derived from w or secret) are wiped
 * before it returns; w is the caller's to wipe. */
#define CZ_GROTH16_DECLARE(P, FR, G1, G2, D)                                          \
	struct P##_coef {                                                             \
		uint32_t matrix;        /* 0 = A, 1 = B */                            \
		uint32_t row;           /* constraint, < n */                         \
		uint32_t var;           /* signal, < nvars */                         \
		FR value;                                                             \
	};                                                                            \
	struct P##_key {                                                              \
		uint32_t nvars;         /* signals including the constant one */      \
		uint32_t npub;          /* public signals, not counting the one */    \
		uint32_t log2n;         /* domain size n = 2^log2n */                 \
		G1##_affine alpha1, beta1, delta1;                                    \
		G2##_affine beta2, gamma2, delta2;                                    \
		G1##_affine *ic;        /* npub + 1 */                                \
		G1##_affine *a;         /* nvars */                                   \
		G1##_affine *b1;        /* nvars */                                   \
		G2##_affine *b2;        /* nvars */                                   \
		G1##_affine *c;         /* nvars − npub − 1: the private signals only */ \
		G1##_affine *h;         /* n */                                       \
		struct P##_coef *coefs; /* sorted by row once indexed */              \
		size_t ncoefs;                                                        \
		uint32_t *row_off;      /* n + 1: row i's coefficients are [row_off[i], row_off[i+1]) */ \
		struct cz_msm_fixed fx[CZ_G16_FX]; /* tables of a, b1, b2, c, h; tab NULL: none */ \
	};                                                                            \
	struct P##_msms {                                                             \
		G1##_jac a, b1, c, h;                                                 \
		G2##_jac b2;                                                          \
	};                                                                            \
	struct P##_secrets {                                                          \
		uint8_t rnd[128];                                                     \
		FR r, s;                                                              \
	};                                                                            \
	struct P##_proof;                                                             \
	struct P##_vk;                                                                \
	struct D;                                                                     \
	struct cz_pool;                                                               \
	void P##_key_free(struct P##_key *k);                                         \
	int P##_key_index(struct P##_key *k);                                         \
	uint64_t P##_key_bytes(const struct P##_key *k);                              \
	void P##_vk_from_key(struct P##_vk *vk, const struct P##_key *k);             \
	int P##_device(const struct P##_key *k, const struct D *d, const cz_scalar *w, \
		       FR *a, FR *b, FR *c, cz_scalar *hbuf, struct P##_msms *out,    \
		       struct cz_pool *pool, struct cz_groth16_times *t);             \
	void P##_finalize(const struct P##_key *k, const struct P##_msms *m,          \
			  const FR *r, const FR *s, struct P##_proof *p);             \
	int P##_blinding(struct P##_secrets *sec);                                    \
	void P##_secrets_wipe(struct P##_secrets *sec);                               \
	int P##_finish(const struct P##_key *k, const struct P##_msms *m,             \
		       const cz_scalar *w, struct P##_proof *p, struct P##_secrets *sec, \
		       struct cz_groth16_times *t);                                   \
	bool P##_check_proof(const struct P##_key *k, const cz_scalar *w,             \
			     const struct P##_proof *p);                              \
	int P##_prove(const struct P##_key *k, const cz_scalar *w, FR *a, FR *b, FR *c, \
		      struct P##_proof *p, struct cz_pool *pool, struct cz_groth16_times *t); \
	int P##_key_tables(struct P##_key *k, uint64_t max_bytes, unsigned threads,   \
			   struct cz_pool *pool, _Atomic uint64_t *done, uint64_t *total); \
	uint64_t P##_key_tables_plan(struct P##_key *k, uint64_t max_bytes, unsigned threads, \
				     uint64_t *total);                                \
	int P##_key_tables_fill(struct P##_key *k, struct cz_pool *pool, _Atomic uint64_t *done)

/* The key's fixed-base tables (struct P_key's fx): one per MSM query. */
enum { CZ_G16_FX_A, CZ_G16_FX_B1, CZ_G16_FX_B2, CZ_G16_FX_C, CZ_G16_FX_H, CZ_G16_FX };

/* Memory for one of a key's arrays (the loaders', the row index's) or a
 * proof's large vectors (cuzk prove's witness and a, b, c; the H scalars), freed
 * by free(): from 1 MiB up, 2 MiB aligned and rounded with the huge-page
 * advice (transparent huge pages in "madvise" mode), so a fresh key costs a
 * few dozen page faults, not one per 4 KiB (SHA-256's 16 MB key: ~5,000 of
 * a one-shot prove's); smaller ones, and where the advice is refused, as
 * malloc gives them.  NULL when out of memory. */
void *cz_groth16_key_alloc(size_t bytes);

/* Stage timings, milliseconds (filled by P_prove when asked), both curves. */
struct cz_groth16_times {
	double synth, ntt, msm_a, msm_b1, msm_b2, msm_c, msm_h, finalize, verify;
};

enum {
	CZ_GROTH16_OK = 0,
	CZ_GROTH16_ENOMEM = -1,         /* a buffer or the NTT domain */
	CZ_GROTH16_UNSAT = -2,          /* the witness does not satisfy the circuit */
	CZ_GROTH16_ERANDOM = -3,        /* getrandom(2) failed drawing r, s; errno says why */
};

CZ_GROTH16_DECLARE(cz_groth16, cz_fr, cz_g1, cz_g2, cz_ntt_domain);

/* The proof, the verification key, the verifier and the development setup,
 * for either curve: P the prefix, FR FP the scalar and base fields, G1 G2
 * the group prefixes, CS the constraint system's struct tag.
 *
 * struct P_proof: pi_a, pi_b, pi_c; zk/io/snarkjs_json.h reads and writes
 * its proof.json form, zk/io/groth16_io.h (BLS12-381) its 192-byte
 * compressed form.
 * struct P_vk: the verification key; zk/io/snarkjs_json.h reads and writes
 * vk.json (P_vk_free, P_vk_set_alphabeta are there too).  n_public: public
 * inputs, not counting the constant 1; ic: n_public + 1 points, malloc'd
 * (P_vk_free); alphabeta: snarkjs's power of e(alpha1, beta2) (e^3 for
 * BLS12-381, e^lambda for BN254, zk/curve/bn254_pairing.h) in its Fp12
 * order (c0.c0.c0, c0.c0.c1, c0.c1.c0, ... c1.c2.c1), written only if
 * have_alphabeta.
 * verify: pub holds vk->n_public values (Montgomery form).  True iff the
 * proof verifies; points must already be known on the curve and in the
 * subgroup.
 * devsetup: INSECURE single-party setup: the toxic waste comes from seed
 * and is known to whoever knows the seed.  For development and benchmarks
 * only. */
#define CZ_GROTH16_PROOF_DECLARE(P, FR, FP, G1, G2, CS)                                \
	struct P##_proof {                                                            \
		G1##_affine a;   /* pi_a */                                           \
		G2##_affine b;   /* pi_b */                                           \
		G1##_affine c;   /* pi_c */                                           \
	};                                                                            \
	struct P##_vk {                                                               \
		uint32_t n_public;                                                    \
		G1##_affine alpha1;                                                   \
		G2##_affine beta2, gamma2, delta2;                                    \
		G1##_affine *ic;                                                      \
		bool have_alphabeta;                                                  \
		FP alphabeta[12];                                                     \
	};                                                                            \
	bool P##_verify(const struct P##_vk *vk, const FR *pub, const struct P##_proof *p); \
	struct CS;                                                                    \
	int P##_devsetup(const struct CS *cs, uint64_t seed, struct P##_key *k,       \
			 struct cz_pool *pool)

CZ_GROTH16_PROOF_DECLARE(cz_groth16, cz_fr, cz_fp, cz_g1, cz_g2, cz_cs);

#endif

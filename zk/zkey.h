/* SPDX-License-Identifier: MIT */
/*
 * zk/zkey.h — snarkjs Groth16 proving keys (.zkey, iden3 container, magic
 * "zkey", version 1) over BLS12-381.
 *
 * Sections (`snarkjs zkey contribute`/`beacon` write them in numeric order,
 * `groth16 setup` as 1 2 4 3 9 8 5 6 7 10; readers find them by id):
 *   1  header          u32 protocol (1 = groth16; 2 plonk, 10 fflonk)
 *   2  groth16 header  u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic,
 *                      u32 domainSize, alpha1, beta1 (G1), beta2, gamma2
 *                      (G2), delta1 (G1), delta2 (G2)
 *   3  IC              nPublic + 1 G1 points
 *   4  coefficients    u32 count, then count records of u32 matrix (0 = A,
 *                      1 = B), u32 constraint, u32 signal, n8r-byte value
 *   5  A, 6 B1         nVars G1 points each
 *   7  B2              nVars G2 points
 *   8  C               nVars - nPublic - 1 G1 points (the private signals)
 *   9  H               domainSize G1 points
 *   10 contributions   MPC transcript (kept as bytes)
 *
 * Points are affine, coordinates little-endian Montgomery (a·2^384 mod p),
 * G2 coordinates as c0 then c1; the point at infinity is all-zero bytes.
 * Coefficient values are stored as c·R^2 mod r (R = 2^256): snarkjs's
 * prover multiplies them, in Montgomery arithmetic, by standard-form
 * witness values and gets Montgomery results.  The coefficients list the A
 * and B matrices of the R1CS plus one row per public signal (A[nConstraints
 * + i][i] = 1, i = 0..nPublic) that makes the public inputs binding.
 *
 * cz_zkey_open() maps the file read-only and checks the header completely:
 * protocol, both primes (BN254 is named as such), counts against section
 * sizes, every header point on its curve and in its subgroup.  With
 * CZ_ZKEY_CHECK_POINTS it also decodes every point of sections 3 and 5..9
 * (range and curve), with CZ_ZKEY_CHECK_SUBGROUP their subgroup too (the
 * expensive part: one scalar multiplication per point, run on a thread
 * pool), with CZ_ZKEY_CHECK_COEFS every coefficient record.  Measured (zk_formats):
 * the subgroup pass costs ~130 us per G1 and ~180 us per G2 point of CPU
 * time, ~26 core-hours for a 2^27-constraint key, so large keys should be
 * opened with CZ_ZKEY_CHECK_POINTS | CZ_ZKEY_CHECK_COEFS (a bad proving key
 * only spoils its own proofs, which the verifier rejects).  The accessors
 * convert (and range/curve-check) ranges of points and coefficients on
 * demand, so a caller can stream a large key in chunks.
 */
#ifndef CZ_ZK_ZKEY_H
#define CZ_ZK_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "zk/fr.h"
#include "zk/g1.h"
#include "zk/g2.h"
#include "zk/iden3bin.h"

struct cz_groth16_vk;
struct cz_wtns;
struct cz_r1cs;

/* Section ids. */
enum cz_zkey_section {
	CZ_ZKEY_HEADER = 1, CZ_ZKEY_GROTH16 = 2, CZ_ZKEY_IC = 3, CZ_ZKEY_COEFS = 4,
	CZ_ZKEY_A = 5, CZ_ZKEY_B1 = 6, CZ_ZKEY_B2 = 7, CZ_ZKEY_C = 8, CZ_ZKEY_H = 9,
	CZ_ZKEY_CONTRIB = 10,
};

/* What cz_zkey_open_flags() checks beyond the header. */
enum {
	CZ_ZKEY_CHECK_POINTS = 1,    /* every point < p and on its curve */
	CZ_ZKEY_CHECK_SUBGROUP = 2,  /* ... and in its subgroup (implies POINTS) */
	CZ_ZKEY_CHECK_COEFS = 4,     /* every coefficient record in range */
	CZ_ZKEY_CHECK_ALL = 7,
};

#define CZ_ZKEY_PROTOCOL_GROTH16 1
#define CZ_ZKEY_COEF_BYTES (12 + CZ_FR_BYTES)

struct cz_zkey_coef {
	uint32_t matrix;      /* 0 = A, 1 = B */
	uint32_t constraint;  /* row, < domain_size */
	uint32_t signal;      /* column, < n_vars */
	cz_fr value;          /* the coefficient itself (Montgomery cz_fr) */
};

struct cz_zkey {
	struct cz_iden3 f;          /* the mapped file and its sections */
	uint32_t n_vars;            /* witness length, the constant 1 included */
	uint32_t n_public;          /* public signals, the constant 1 excluded */
	uint32_t domain_size;       /* power of two */
	uint32_t log2_domain;
	cz_g1_affine alpha1, beta1, delta1;
	cz_g2_affine beta2, gamma2, delta2;
	uint32_t n_coefs;
	const uint8_t *coefs;       /* n_coefs records of CZ_ZKEY_COEF_BYTES, in the mapping */
	const uint8_t *sec[11];     /* raw point data of sections 3, 5..9, in the mapping */
	uint64_t count[11];         /* points in each */
	const uint8_t *contrib;     /* section 10 */
	uint64_t contrib_size;
};

struct cz_zkey *cz_zkey_open(const char *path, char err[CZ_ERRLEN]); /* CZ_ZKEY_CHECK_ALL */
struct cz_zkey *cz_zkey_open_flags(const char *path, unsigned flags, char err[CZ_ERRLEN]);
/* Over a caller's buffer (borrowed; must outlive the zkey). */
struct cz_zkey *cz_zkey_open_mem(const char *name, const void *data, size_t size,
				 unsigned flags, char err[CZ_ERRLEN]);
void cz_zkey_close(struct cz_zkey *z);

/* Points in section sec (IC, A, B1, B2, C, H); 0 for other ids. */
uint64_t cz_zkey_count(const struct cz_zkey *z, enum cz_zkey_section sec);
/* Converts points [first, first + n) of a G1 section (IC, A, B1, C, H), or
 * of B2 for cz_zkey_g2(), into out, checking each coordinate < p and each
 * point on its curve (the subgroup check is cz_zkey_open's). */
int cz_zkey_g1(const struct cz_zkey *z, enum cz_zkey_section sec, uint64_t first, size_t n,
	       cz_g1_affine *out, char err[CZ_ERRLEN]);
int cz_zkey_g2(const struct cz_zkey *z, enum cz_zkey_section sec, uint64_t first, size_t n,
	       cz_g2_affine *out, char err[CZ_ERRLEN]);
/* The same on a thread pool (lib/pool.h; NULL runs serially), for loading
 * large sections: ~0.25 us per G1 and ~0.55 us per G2 point of CPU time. */
struct cz_pool;
int cz_zkey_g1_pool(const struct cz_zkey *z, enum cz_zkey_section sec, uint64_t first, size_t n,
		    cz_g1_affine *out, struct cz_pool *pool, char err[CZ_ERRLEN]);
int cz_zkey_g2_pool(const struct cz_zkey *z, enum cz_zkey_section sec, uint64_t first, size_t n,
		    cz_g2_affine *out, struct cz_pool *pool, char err[CZ_ERRLEN]);
/* Converts coefficient records [first, first + n), checking their ranges. */
int cz_zkey_coefs(const struct cz_zkey *z, uint64_t first, size_t n, struct cz_zkey_coef *out,
		  char err[CZ_ERRLEN]);

/* The verifying key (alpha1, beta2, gamma2, delta2, IC); free with
 * cz_groth16_vk_free().  alphabeta is left unset (have_alphabeta false);
 * cz_groth16_vk_set_alphabeta() adds it (one pairing). */
int cz_zkey_vk(const struct cz_zkey *z, struct cz_groth16_vk *vk, char err[CZ_ERRLEN]);

/* Cross-checks that a witness (or circuit) belongs to this key: the same
 * scalar field and nVars. */
int cz_zkey_check_wtns(const struct cz_zkey *z, const struct cz_wtns *w, char err[CZ_ERRLEN]);
int cz_zkey_check_r1cs(const struct cz_zkey *z, const struct cz_r1cs *r, char err[CZ_ERRLEN]);

/* Everything a .zkey holds, for cz_zkey_write(). */
struct cz_zkey_parts {
	uint32_t n_vars, n_public, domain_size;
	cz_g1_affine alpha1, beta1, delta1;
	cz_g2_affine beta2, gamma2, delta2;
	const cz_g1_affine *ic;           /* n_public + 1 */
	const struct cz_zkey_coef *coefs; /* n_coefs */
	uint32_t n_coefs;
	const cz_g1_affine *a, *b1;       /* n_vars each */
	const cz_g2_affine *b2;           /* n_vars */
	const cz_g1_affine *c;            /* n_vars - n_public - 1 */
	const cz_g1_affine *h;            /* domain_size */
	/* Section 10 as raw bytes; NULL writes an empty transcript (a zero
	 * 64-byte circuit hash and no contributions). */
	const uint8_t *contrib;
	uint64_t contrib_size;
};

/* Writes a .zkey as `snarkjs zkey contribute` does (sections in numeric
 * order; written to path.tmp, then renamed).  Counts are checked; points
 * are not. */
int cz_zkey_write(const char *path, const struct cz_zkey_parts *parts, char err[CZ_ERRLEN]);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/io/zkey.h — snarkjs Groth16 proving keys (.zkey, iden3 container, magic
 * "zkey", version 1) over BLS12-381; the same code reads and writes BN254's
 * (zk/io/bn254_zkey.h).
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
 * Points are affine, coordinates little-endian Montgomery (a·2^384 mod p;
 * BN254: a·2^256 mod p),
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

#include "zk/field/fr.h"
#include "zk/curve/g1.h"
#include "zk/curve/g2.h"
#include "zk/io/iden3bin.h"

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
	/* Sections 5..9 (A, B1, B2, C, H) are not read at open: the _pool
	 * forms read them from the file straight into their output (each byte
	 * copied once, no file-sized buffer touched) and check them there;
	 * the plain forms refuse them.  After the last, cz_iden3_recheck(&z->f)
	 * says whether the file changed meanwhile.  Ignored with
	 * CZ_ZKEY_CHECK_POINTS or _SUBGROUP, whose pass reads every point. */
	CZ_ZKEY_LAZY_POINTS = 8,
};

#define CZ_ZKEY_PROTOCOL_GROTH16 1

/* The API, for either curve: P the prefix (cz_zkey here, cz_bn254_zkey in
 * zk/io/bn254_zkey.h), T COEF PARTS the struct tags, FR G1 G2 the scalar
 * type and the group prefixes, VK the verifying key's struct tag.
 *
 * open: CZ_ZKEY_CHECK_ALL; open_flags: what is checked beyond the header;
 * open_mem: over a caller's buffer (borrowed; must outlive the zkey).
 * count: points in section sec (IC, A, B1, B2, C, H); 0 for other ids.
 * g1 / g2: converts points [first, first + n) of a G1 section (IC, A, B1,
 * C, H), or of B2, into out, checking each coordinate < p and each point on
 * its curve (the subgroup check is open's); the _pool forms run on a
 * thread pool (lib/pool.h; NULL runs serially), for loading large
 * sections: ~0.25 us per G1 and ~0.55 us per G2 point of CPU time
 * (BLS12-381).  coefs: converts coefficient records [first, first + n),
 * checking their ranges.  vk: the verifying key (alpha1, beta2, gamma2,
 * delta2, IC), alphabeta unset.  write: as `snarkjs zkey contribute` does
 * (sections in numeric order; written to path.tmp, then renamed); counts
 * are checked, points are not. */
#define CZ_ZKEY_DECLARE(P, T, COEF, PARTS, FR, G1, G2, VK)                            \
	struct COEF {                                                                 \
		uint32_t matrix;      /* 0 = A, 1 = B */                              \
		uint32_t constraint;  /* row, < domain_size */                        \
		uint32_t signal;      /* column, < n_vars */                          \
		FR value;             /* the coefficient itself (Montgomery) */       \
	};                                                                            \
	struct T {                                                                    \
		struct cz_iden3 f;          /* the mapped file and its sections */    \
		uint32_t n_vars;            /* witness length, the constant 1 included */ \
		uint32_t n_public;          /* public signals, the constant 1 excluded */ \
		uint32_t domain_size;       /* power of two */                        \
		uint32_t log2_domain;                                                 \
		G1##_affine alpha1, beta1, delta1;                                    \
		G2##_affine beta2, gamma2, delta2;                                    \
		uint32_t n_coefs;                                                     \
		const uint8_t *coefs;       /* n_coefs records of CZ_ZKEY_COEF_BYTES, in the mapping */ \
		const uint8_t *sec[11];     /* raw point data of sections 3, 5..9, in the mapping */ \
		uint64_t count[11];         /* points in each */                      \
		const uint8_t *contrib;     /* section 10 */                          \
		uint64_t contrib_size;                                                \
	};                                                                            \
	struct PARTS {                                                                \
		uint32_t n_vars, n_public, domain_size;                               \
		G1##_affine alpha1, beta1, delta1;                                    \
		G2##_affine beta2, gamma2, delta2;                                    \
		const G1##_affine *ic;           /* n_public + 1 */                   \
		const struct COEF *coefs;        /* n_coefs */                        \
		uint32_t n_coefs;                                                     \
		const G1##_affine *a, *b1;       /* n_vars each */                    \
		const G2##_affine *b2;           /* n_vars */                         \
		const G1##_affine *c;            /* n_vars - n_public - 1 */          \
		const G1##_affine *h;            /* domain_size */                    \
		/* Section 10 as raw bytes; NULL writes an empty transcript (a    \
		 * zero 64-byte circuit hash and no contributions). */                \
		const uint8_t *contrib;                                               \
		uint64_t contrib_size;                                                \
	};                                                                            \
	struct VK;                                                                    \
	struct T *P##_open(const char *path, char err[CZ_ERRLEN]);                    \
	struct T *P##_open_flags(const char *path, unsigned flags, char err[CZ_ERRLEN]); \
	struct T *P##_open_mem(const char *name, const void *data, size_t size,       \
			       unsigned flags, char err[CZ_ERRLEN]);                  \
	void P##_close(struct T *z);                                                  \
	uint64_t P##_count(const struct T *z, enum cz_zkey_section sec);              \
	int P##_g1(const struct T *z, enum cz_zkey_section sec, uint64_t first, size_t n, \
		   G1##_affine *out, char err[CZ_ERRLEN]);                            \
	int P##_g2(const struct T *z, enum cz_zkey_section sec, uint64_t first, size_t n, \
		   G2##_affine *out, char err[CZ_ERRLEN]);                            \
	int P##_g1_pool(const struct T *z, enum cz_zkey_section sec, uint64_t first,   \
			size_t n, G1##_affine *out, struct cz_pool *pool,             \
			char err[CZ_ERRLEN]);                                         \
	int P##_g2_pool(const struct T *z, enum cz_zkey_section sec, uint64_t first,   \
			size_t n, G2##_affine *out, struct cz_pool *pool,             \
			char err[CZ_ERRLEN]);                                         \
	int P##_coefs(const struct T *z, uint64_t first, size_t n, struct COEF *out,  \
		      char err[CZ_ERRLEN]);                                           \
	int P##_vk(const struct T *z, struct VK *vk, char err[CZ_ERRLEN]);            \
	int P##_write(const char *path, const struct PARTS *parts, char err[CZ_ERRLEN])

struct cz_pool;
#define CZ_ZKEY_COEF_BYTES (12 + CZ_FR_BYTES) /* both curves' r: 32 bytes */
CZ_ZKEY_DECLARE(cz_zkey, cz_zkey, cz_zkey_coef, cz_zkey_parts, cz_fr, cz_g1, cz_g2, cz_groth16_vk);

/* Cross-checks that a witness (or circuit) belongs to this key: the same
 * scalar field and nVars (BLS12-381 only, so far). */
int cz_zkey_check_wtns(const struct cz_zkey *z, const struct cz_wtns *w, char err[CZ_ERRLEN]);
int cz_zkey_check_r1cs(const struct cz_zkey *z, const struct cz_r1cs *r, char err[CZ_ERRLEN]);

/* The curve a .zkey is over, from the primes of its groth16 header (only
 * what that takes is read): 0 and *curve, or an error naming the file. */
int cz_zkey_curve(const char *path, enum cz_curve *curve, char err[CZ_ERRLEN]);

#endif

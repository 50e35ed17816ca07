/* SPDX-License-Identifier: MIT */
/*
 * zk/io/r1cs.h — circom constraint systems (.r1cs, iden3 container, magic
 * "r1cs", version 1) over BLS12-381's or BN254's (bn128) scalar field.
 *
 *   section 1  header       u32 n8, prime (n8 bytes LE), u32 nWires,
 *                           u32 nPubOut, u32 nPubIn, u32 nPrvIn,
 *                           u64 nLabels, u32 nConstraints
 *   section 2  constraints  per constraint three linear combinations A, B, C
 *                           (A·w × B·w = C·w), each u32 nTerms then nTerms
 *                           times (u32 wire, n8-byte value, standard form LE)
 *   section 3  wire → label u64 label id per wire (nWires of them)
 *   sections 4, 5 (custom gates, PLONK only) are ignored.
 *
 * cz_r1cs_open() maps the file and walks the constraints once: every term's
 * wire < nWires and value < r, and the walk must end exactly at the end of
 * the section.  cz_r1cs_load() then converts them to compressed-row arrays.
 */
#ifndef CZ_R1CS_H
#define CZ_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "zk/field/bn254_fr.h"
#include "zk/curve/curve_id.h"
#include "zk/field/fr.h"
#include "zk/io/iden3bin.h"

struct cz_r1cs {
	struct cz_iden3 f;            /* the mapped file */
	uint32_t n_wires;             /* witness length, the constant 1 included */
	uint32_t n_pub_out, n_pub_in, n_prv_in;
	uint64_t n_labels;
	uint32_t n_constraints;
	uint64_t n_terms[3];          /* total terms of A, B, C */
	const uint8_t *constraints;   /* section 2, in the mapping */
	uint64_t constraints_size;
	const uint8_t *labels;        /* section 3 (nWires u64), or NULL if absent */
	enum cz_curve curve;          /* whose r the header's prime is */
};

/* One matrix in compressed-row form: row i is terms [start[i], start[i+1]). */
struct cz_r1cs_matrix {
	uint64_t *start;              /* n_constraints + 1 */
	uint32_t *wire;               /* n_terms */
	cz_fr *value;                 /* n_terms, Montgomery */
};

/* A BLS12-381 .r1cs (one of bn128 is refused naming both curves). */
struct cz_r1cs *cz_r1cs_open(const char *path, char err[CZ_ERRLEN]);
/* want: the curve expected, or 0 for either (r->curve says which). */
struct cz_r1cs *cz_r1cs_open_curve(const char *path, enum cz_curve want, char err[CZ_ERRLEN]);
struct cz_r1cs *cz_r1cs_open_mem(const char *name, const void *data, size_t size,
				 char err[CZ_ERRLEN]);
void cz_r1cs_close(struct cz_r1cs *r);

/* Fills m[0] = A, m[1] = B, m[2] = C (malloc'd; cz_r1cs_matrices_free). */
int cz_r1cs_load(const struct cz_r1cs *r, struct cz_r1cs_matrix m[3], char err[CZ_ERRLEN]);
void cz_r1cs_matrices_free(struct cz_r1cs_matrix m[3]);
/* The same for a bn128 file (values cz_bn254_fr); each refuses a file of
 * the other curve, naming both. */
struct cz_bn254_r1cs_matrix {
	uint64_t *start;
	uint32_t *wire;
	cz_bn254_fr *value;
};
int cz_bn254_r1cs_load(const struct cz_r1cs *r, struct cz_bn254_r1cs_matrix m[3],
		       char err[CZ_ERRLEN]);
void cz_bn254_r1cs_matrices_free(struct cz_bn254_r1cs_matrix m[3]);

/* The label id of a wire (section 3); -ENOENT without the section. */
int cz_r1cs_label(const struct cz_r1cs *r, uint32_t wire, uint64_t *label);

#endif

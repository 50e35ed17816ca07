/* SPDX-License-Identifier: MIT */
/*
 * zk/cs.h — an R1CS constraint system in memory: rows of sparse linear
 * combinations A·w ∘ B·w = C·w over Fr.
 *
 * Variable 0 is the constant one, variables 1..npub are the public signals
 * (outputs then inputs, as circom numbers them), the rest are private.
 * Used by `cuzk devsetup` (built-in circuits and .r1cs files); the prover
 * does not use it: it synthesizes from the .zkey's coefficient section, as
 * snarkjs does.
 */
#ifndef CZ_CS_H
#define CZ_CS_H

#include "zk/fr.h"

struct cz_cs_term {
	uint32_t var;
	cz_fr coef;              /* Montgomery form */
};

/* One matrix in compressed-row form: row i is terms[off[i] .. off[i+1]). */
struct cz_cs_matrix {
	uint32_t *off;           /* nrows + 1 entries */
	struct cz_cs_term *terms;
	size_t nterms, cap;
};

struct cz_cs {
	uint32_t nvars;          /* including the constant one */
	uint32_t npub;           /* public signals, not counting the one */
	uint32_t nrows;          /* constraints */
	uint32_t rowcap;
	struct cz_cs_matrix m[3]; /* A, B, C */
};

int cz_cs_init(struct cz_cs *cs, uint32_t nvars, uint32_t npub);
void cz_cs_free(struct cz_cs *cs);
/* Starts a new constraint row; terms are then added with cz_cs_term(). */
int cz_cs_row(struct cz_cs *cs);
int cz_cs_term(struct cz_cs *cs, int matrix, uint32_t var, const cz_fr *coef);
/* Checks A·w ∘ B·w = C·w for every row; returns the first failing row or -1. */
long cz_cs_check(const struct cz_cs *cs, const cz_fr *w);

#endif

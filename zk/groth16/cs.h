/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/cs.h — an R1CS constraint system in memory: rows of sparse linear
 * combinations A·w ∘ B·w = C·w over Fr, either curve's (cz_cs: BLS12-381,
 * cz_bn254_cs: BN254).
 *
 * Variable 0 is the constant one, variables 1..npub are the public signals
 * (outputs then inputs, as circom numbers them), the rest are private.
 * Used by `cuzk devsetup` (built-in circuits and .r1cs files); the prover
 * does not use it: it synthesizes from the .zkey's coefficient section, as
 * snarkjs does.
 */
#ifndef CZ_CS_H
#define CZ_CS_H

#include "zk/field/bn254_fr.h"
#include "zk/field/fr.h"

/* For either curve: P the prefix (cz_cs here, cz_bn254_cs for BN254), FR
 * the scalar field.  struct P_term, P_matrix (one matrix in compressed-row
 * form: row i is terms[off[i] .. off[i+1])), struct P; P_init, P_free;
 * P_row starts a new constraint row, whose terms are then added with
 * P_term(); P_check checks A·w ∘ B·w = C·w for every row and returns the
 * first failing row or -1. */
#define CZ_CS_DECLARE(P, FR)                                                          \
	struct P##_term {                                                             \
		uint32_t var;                                                         \
		FR coef;                 /* Montgomery form */                        \
	};                                                                            \
	struct P##_matrix {                                                           \
		uint32_t *off;           /* nrows + 1 entries */                      \
		struct P##_term *terms;                                               \
		size_t nterms, cap;                                                   \
	};                                                                            \
	struct P {                                                                    \
		uint32_t nvars;          /* including the constant one */             \
		uint32_t npub;           /* public signals, not counting the one */   \
		uint32_t nrows;          /* constraints */                            \
		uint32_t rowcap;                                                      \
		struct P##_matrix m[3];  /* A, B, C */                                \
	};                                                                            \
	int P##_init(struct P *cs, uint32_t nvars, uint32_t npub);                    \
	void P##_free(struct P *cs);                                                  \
	int P##_row(struct P *cs);                                                    \
	int P##_term(struct P *cs, int matrix, uint32_t var, const FR *coef);         \
	long P##_check(const struct P *cs, const FR *w)

CZ_CS_DECLARE(cz_cs, cz_fr);
CZ_CS_DECLARE(cz_bn254_cs, cz_bn254_fr);

#endif

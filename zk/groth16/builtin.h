/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/builtin.h — built-in circuit families: the demo and benchmark workload.
 *
 * "merkle": a Merkle-path circuit with the shape of real Filecoin work.  Each
 * level selects (left, right) from (current, sibling) by a path bit, hashes
 * them with a MiMC-style x^5 permutation, and decomposes the digest into 255
 * boolean wires, so most wires hold 0 or 1, as in SHA-256-based circuits.
 * Public signals: 1 = root (output), 2 = leaf (input).  The constraint count
 * is filled so the snarkjs domain (constraints + public + 1) is exactly 2^K.
 */
#ifndef CZ_BUILTIN_H
#define CZ_BUILTIN_H

#include "zk/groth16/cs.h"

#define CZ_BUILTIN_MIN_LOG2 6
#define CZ_BUILTIN_MAX_LOG2 24

/* Builds the circuit and, for the given seed, a satisfying witness (*w gets
 * cs->nvars values, malloc'd).  Same (name, log2) gives the same circuit for
 * any seed.  Returns 0, or -1 with a message in err. */
int cz_builtin_build(const char *name, unsigned log2n, uint64_t seed, struct cz_cs *cs,
		     cz_fr **w, char err[256]);
const char *cz_builtin_names(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/io/wtns.h — circom/snarkjs witness files (.wtns, iden3 container, magic
 * "wtns", version 1 or 2) over BLS12-381's scalar field; the same code
 * reads and writes BN254's (zk/io/bn254_wtns.h).
 *
 *   section 1  header   u32 n8, prime (n8 bytes LE), u32 nWitness
 *   section 2  values   nWitness elements, n8 bytes each, standard form LE
 *
 * Witness 0 is the constant 1, then the public outputs, the public inputs,
 * then the private signals.  cz_wtns_open() maps the file, checks the prime
 * is BLS12-381's r (BN254's is named) and the section sizes, and range-checks
 * every value (< r); the values stay in the mapping until converted.
 */
#ifndef CZ_WTNS_H
#define CZ_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "zk/field/fr.h"
#include "zk/io/iden3bin.h"

/* The API, for either curve: P the prefix (cz_wtns here, cz_bn254_wtns in
 * zk/io/bn254_wtns.h), T the struct tag, FR the scalar field.
 *   open / open_mem: maps (or borrows) the file and checks it as above.
 *   get: converts values [first, first + n) to Montgomery FR.
 *   write: a version-2 .wtns as snarkjs does (path.tmp, then renamed). */
#define CZ_WTNS_DECLARE(P, T, FR)                                                     \
	struct T {                                                                    \
		struct cz_iden3 f;        /* the mapped file */                       \
		uint32_t n;               /* nWitness */                              \
		const uint8_t *values;    /* n * 32 bytes, standard form LE, in the mapping */ \
	};                                                                            \
	struct T *P##_open(const char *path, char err[CZ_ERRLEN]);                    \
	struct T *P##_open_mem(const char *name, const void *data, size_t size,       \
			       char err[CZ_ERRLEN]);                                  \
	void P##_close(struct T *w);                                                  \
	int P##_get(const struct T *w, uint64_t first, size_t n, FR *out,             \
		    char err[CZ_ERRLEN]);                                             \
	int P##_write(const char *path, const FR *vals, uint32_t n, char err[CZ_ERRLEN])

CZ_WTNS_DECLARE(cz_wtns, cz_wtns, cz_fr);

#endif

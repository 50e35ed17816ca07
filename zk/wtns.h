/* SPDX-License-Identifier: MIT */
/*
 * zk/wtns.h — circom/snarkjs witness files (.wtns, iden3 container, magic
 * "wtns", version 1 or 2) over BLS12-381's scalar field.
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

#include "zk/fr.h"
#include "zk/iden3bin.h"

struct cz_wtns {
	struct cz_iden3 f;        /* the mapped file */
	uint32_t n;               /* nWitness */
	const uint8_t *values;    /* n * CZ_FR_BYTES, standard form LE, in the mapping */
};

struct cz_wtns *cz_wtns_open(const char *path, char err[CZ_ERRLEN]);
struct cz_wtns *cz_wtns_open_mem(const char *name, const void *data, size_t size,
				 char err[CZ_ERRLEN]);
void cz_wtns_close(struct cz_wtns *w);

/* Converts values [first, first + n) to Montgomery cz_fr. */
int cz_wtns_get(const struct cz_wtns *w, uint64_t first, size_t n, cz_fr *out,
		char err[CZ_ERRLEN]);

/* Writes a version-2 .wtns as snarkjs does (path.tmp, then renamed). */
int cz_wtns_write(const char *path, const cz_fr *vals, uint32_t n, char err[CZ_ERRLEN]);

#endif

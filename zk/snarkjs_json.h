/* SPDX-License-Identifier: MIT */
/*
 * zk/snarkjs_json.h — snarkjs's Groth16 JSON files: proof.json, public.json
 * and verification_key.json, for BLS12-381 ("curve": "bls12381").
 *
 * Numbers are decimal strings of the standard representative.  A G1 point is
 * [x, y, z] with z = "1" (affine) or z = "0" (infinity, written
 * ["0", "1", "0"]); a G2 point is [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]
 * the same way.  Readers are strict: every coordinate must be a canonical
 * field element (< p), every point on its curve and in its prime-order
 * subgroup (a verifier must not accept anything else), public inputs < r,
 * and a "curve" other than bls12381 or "protocol" other than groth16 is an
 * error.  vk_alphabeta_12 (snarkjs's e(alpha, beta)^3) is read when present
 * (range-checked only; a verifier must not trust it) and written when
 * have_alphabeta is set.
 *
 * Errors: 0 or a negative errno; err[CZ_ERRLEN] names the file and the
 * JSON path of the bad field ("proof.json: pi_b[1][0]: value >= p").
 */
#ifndef CZ_SNARKJS_JSON_H
#define CZ_SNARKJS_JSON_H

#include <stddef.h>

#include "zk/fr.h"
#include "zk/groth16.h"
#include "zk/iden3bin.h" /* CZ_ERRLEN */

/* struct cz_groth16_proof and struct cz_groth16_vk: zk/groth16.h.  What
 * works on a vk is named cz_groth16_vk_*, its JSON file cz_groth16_vk_json_*. */
void cz_groth16_vk_free(struct cz_groth16_vk *vk);
/* Computes alphabeta as snarkjs does, e(alpha1, beta2)^3 (its pairing's
 * final exponent is 3·(p^12 - 1)/r), and sets have_alphabeta, so the
 * vk.json written is the one snarkjs exports.  One pairing, a few ms. */
void cz_groth16_vk_set_alphabeta(struct cz_groth16_vk *vk);

int cz_proof_json_read(const char *path, struct cz_groth16_proof *p, char err[CZ_ERRLEN]);
int cz_proof_json_write(const char *path, const struct cz_groth16_proof *p, char err[CZ_ERRLEN]);
/* *vals is malloc'd (free()); *n may be 0. */
int cz_public_json_read(const char *path, cz_fr **vals, size_t *n, char err[CZ_ERRLEN]);
int cz_public_json_write(const char *path, const cz_fr *vals, size_t n, char err[CZ_ERRLEN]);
int cz_groth16_vk_json_read(const char *path, struct cz_groth16_vk *vk, char err[CZ_ERRLEN]);
int cz_groth16_vk_json_write(const char *path, const struct cz_groth16_vk *vk, char err[CZ_ERRLEN]);

/* The same over text in memory (NUL not required); name is used in
 * messages.  For fuzzing, tests, and the daemon's socket. */
int cz_proof_json_parse(const char *name, const char *text, size_t len,
			struct cz_groth16_proof *p, char err[CZ_ERRLEN]);
int cz_public_json_parse(const char *name, const char *text, size_t len, cz_fr **vals,
			 size_t *n, char err[CZ_ERRLEN]);
int cz_groth16_vk_json_parse(const char *name, const char *text, size_t len,
			     struct cz_groth16_vk *vk, char err[CZ_ERRLEN]);
/* Serialised text (malloc'd, NUL-terminated, free()), as the writers store it. */
char *cz_proof_json_format(const struct cz_groth16_proof *p, char err[CZ_ERRLEN]);
char *cz_public_json_format(const cz_fr *vals, size_t n, char err[CZ_ERRLEN]);
char *cz_groth16_vk_json_format(const struct cz_groth16_vk *vk, char err[CZ_ERRLEN]);

/* The same text as the _format functions, rendered into a caller's buffer
 * with no allocation (the daemon renders into buffers made at submit).
 * Return the text's length (without the NUL, like snprintf); when that is
 * >= cap the text was cut.  At most CZ_PROOF_JSON_MAX and
 * cz_public_json_max(n) bytes with the NUL. */
#define CZ_PROOF_JSON_MAX 3072
static inline size_t cz_public_json_max(size_t n)
{
	return 8 + n * (CZ_FR_LIMBS * 20 + 6);   /* 78 digits, quotes, comma, indent */
}
size_t cz_proof_json_render(char *buf, size_t cap, const struct cz_groth16_proof *p);
size_t cz_public_json_render(char *buf, size_t cap, const cz_fr *vals, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/io/snarkjs_json.h — snarkjs's Groth16 JSON files: proof.json, public.json
 * and verification_key.json, for BLS12-381 ("curve": "bls12381"); the same
 * code reads and writes BN254's ("bn128", zk/groth16/bn254_groth16.h).
 *
 * Numbers are decimal strings of the standard representative.  A G1 point is
 * [x, y, z] with z = "1" (affine) or z = "0" (infinity, written
 * ["0", "1", "0"]); a G2 point is [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]
 * the same way.  Readers are strict: every coordinate must be a canonical
 * field element (< p), every point on its curve and in its prime-order
 * subgroup (a verifier must not accept anything else), public inputs < r,
 * and a "curve" other than the reader's or "protocol" other than groth16 is
 * an error (naming the curve seen and the one expected).  vk_alphabeta_12
 * (snarkjs's power of e(alpha, beta)) is read when present
 * (range-checked only; a verifier must not trust it) and written when
 * have_alphabeta is set.
 *
 * Errors: 0 or a negative errno; err[CZ_ERRLEN] names the file and the
 * JSON path of the bad field ("proof.json: pi_b[1][0]: value >= p").
 */
#ifndef CZ_SNARKJS_JSON_H
#define CZ_SNARKJS_JSON_H

#include <stddef.h>

#include "zk/field/fr.h"
#include "zk/groth16/groth16.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/curve/curve_id.h"
#include "zk/io/iden3bin.h" /* CZ_ERRLEN */

/* The API, for either curve: P is the prefix (cz_ here; cz_bn254_ in
 * zk/groth16/bn254_groth16.h), PROOF and VK the struct tags, FR the scalar field.
 * What works on a vk is named P##groth16_vk_*, its JSON file
 * P##groth16_vk_json_*.
 *   groth16_vk_set_alphabeta  computes alphabeta as snarkjs does (its
 *        pairing's final exponent is a multiple of (p^12 - 1)/r: e^3 for
 *        BLS12-381, e^lambda for BN254) and sets have_alphabeta, so the
 *        vk.json written is the one snarkjs exports.  One pairing, a few ms.
 *   public_json_read: *vals is malloc'd (free()); *n may be 0.
 *   _parse: the same over text in memory (NUL not required); name is used
 *        in messages.  For fuzzing, tests, and the daemon's socket.
 *   _format: serialised text (malloc'd, NUL-terminated, free()), as the
 *        writers store it.
 *   _render: the same text rendered into a caller's buffer with no
 *        allocation (below). */
#define CZ_SNARKJS_JSON_DECLARE(P, PROOF, VK, FR)                                     \
	void P##groth16_vk_free(struct VK *vk);                                       \
	void P##groth16_vk_set_alphabeta(struct VK *vk);                              \
	int P##proof_json_read(const char *path, struct PROOF *p, char err[CZ_ERRLEN]); \
	int P##proof_json_write(const char *path, const struct PROOF *p,              \
				char err[CZ_ERRLEN]);                                 \
	int P##public_json_read(const char *path, FR **vals, size_t *n,               \
				char err[CZ_ERRLEN]);                                 \
	int P##public_json_write(const char *path, const FR *vals, size_t n,          \
				 char err[CZ_ERRLEN]);                                \
	int P##groth16_vk_json_read(const char *path, struct VK *vk, char err[CZ_ERRLEN]); \
	int P##groth16_vk_json_write(const char *path, const struct VK *vk,           \
				     char err[CZ_ERRLEN]);                            \
	int P##proof_json_parse(const char *name, const char *text, size_t len,       \
				struct PROOF *p, char err[CZ_ERRLEN]);                \
	int P##public_json_parse(const char *name, const char *text, size_t len,      \
				 FR **vals, size_t *n, char err[CZ_ERRLEN]);          \
	int P##groth16_vk_json_parse(const char *name, const char *text, size_t len,  \
				     struct VK *vk, char err[CZ_ERRLEN]);             \
	char *P##proof_json_format(const struct PROOF *p, char err[CZ_ERRLEN]);       \
	char *P##public_json_format(const FR *vals, size_t n, char err[CZ_ERRLEN]);   \
	char *P##groth16_vk_json_format(const struct VK *vk, char err[CZ_ERRLEN]);    \
	size_t P##proof_json_render(char *buf, size_t cap, const struct PROOF *p);    \
	size_t P##public_json_render(char *buf, size_t cap, const FR *vals, size_t n)

/* The curve a snarkjs JSON file names in its "curve" member: bls12381 (or
 * no member: BLS12-381, as the readers take it) or bn128 (BN254); -EINVAL
 * for another, naming it, or the readers' error for a malformed file. */
int cz_snarkjs_json_curve(const char *path, enum cz_curve *curve, char err[CZ_ERRLEN]);

/* struct cz_groth16_proof and struct cz_groth16_vk: zk/groth16/groth16.h;
 * struct cz_bn254_groth16_proof and _vk: zk/groth16/bn254_groth16.h. */
CZ_SNARKJS_JSON_DECLARE(cz_, cz_groth16_proof, cz_groth16_vk, cz_fr);
CZ_SNARKJS_JSON_DECLARE(cz_bn254_, cz_bn254_groth16_proof, cz_bn254_groth16_vk, cz_bn254_fr);

/* P##proof_json_render, P##public_json_render: the same text as the
 * _format functions, rendered into a caller's buffer with no allocation
 * (the daemon renders into buffers made at submit).  Return the text's length (without the NUL, like snprintf); when that is
 * >= cap the text was cut.  At most CZ_PROOF_JSON_MAX and
 * cz_public_json_max(n) bytes with the NUL. */
#define CZ_PROOF_JSON_MAX 3072
static inline size_t cz_public_json_max(size_t n)
{
	return 8 + n * (CZ_FR_LIMBS * 20 + 6);   /* 78 digits, quotes, comma, indent (both curves' r) */
}

#endif

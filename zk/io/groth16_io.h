/* SPDX-License-Identifier: MIT */
/*
 * zk/io/groth16_io.h — between files (zk/io/zkey.h, zk/io/wtns.h, zk/io/snarkjs_json.h)
 * and the prover's in-memory forms (zk/groth16/groth16.h), for both curves: each
 * cz_X function has a cz_bn254_X twin over BN254's key (zk/groth16/bn254_groth16.h)
 * with the same contract.  The curve a file is over is the file's
 * (cz_zkey_curve); a witness of the other curve is refused naming both
 * ("curve bn128/BN254, expected bls12381/BLS12-381").
 */
#ifndef CZ_GROTH16_IO_H
#define CZ_GROTH16_IO_H

#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"
#include "zk/curve/curve_id.h"

#define CZ_PROOF_BIN_BYTES 192   /* A ‖ B ‖ C compressed, zcash encoding */

/* Reads a .zkey completely into k.  Header points are checked on the curve
 * and in the subgroup, every other point on the curve, every coefficient in
 * range.  The bulk points are read from the file straight into k's arrays
 * (CZ_ZKEY_LAZY_POINTS: each byte copied once, in parallel on pool) and the
 * coefficients checked, converted and sorted by row in one pass; a file
 * that changes meanwhile is an error ("changed while being read").  (Subgroup checks of the bulk points are skipped: they would cost
 * one scalar multiplication per point, and a bad point cannot make an
 * accepted proof, since every proof is verified against the header's key.) */
int cz_groth16_key_load(struct cz_groth16_key *k, const char *path, struct cz_pool *pool,
			char *err, size_t cap);   /* pool: converts points on its threads (or NULL) */
int cz_groth16_key_save(const struct cz_groth16_key *k, const char *path, char *err, size_t cap);
int cz_bn254_groth16_key_load(struct cz_bn254_groth16_key *k, const char *path,
			      struct cz_pool *pool, char *err, size_t cap);
int cz_bn254_groth16_key_save(const struct cz_bn254_groth16_key *k, const char *path, char *err,
			      size_t cap);

/* Size of a .wtns file holding nvars values (either curve: 32-byte values). */
uint64_t cz_wtns_file_size(uint32_t nvars);
/* Reads a .wtns from fd into w (standard form); checks it holds exactly
 * nvars values, each < r. */
int cz_wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap);
int cz_wtns_read_path(const char *path, uint32_t nvars, cz_scalar *w, char *err, size_t cap);
int cz_bn254_wtns_read_fd(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap);
int cz_bn254_wtns_read_path(const char *path, uint32_t nvars, cz_scalar *w, char *err,
			    size_t cap);
/* The .wtns header at fd (magic, version, nSections, n8, the prime against
 * curve's r, nWitness against nvars, the values' section), by pread only
 * (fd's offset is left alone): the check at submit, before a witness is
 * accepted.  0, or a negative errno with err naming the field. */
int cz_wtns_check_head_fd(int fd, uint32_t nvars, enum cz_curve curve, char *err, size_t cap);
/* Writes w (Montgomery form) as a .wtns. */
int cz_wtns_save(const char *path, const cz_fr *w, uint32_t n, char *err, size_t cap);

void cz_proof_bin(uint8_t out[CZ_PROOF_BIN_BYTES], const struct cz_groth16_proof *p);

#endif

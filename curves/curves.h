/* SPDX-License-Identifier: MIT */
/*
 * curves/curves.h — every curve behind one ops table, as every backend is
 * behind struct cz_backend: what the daemon does differently for a curve
 * (its key's loading, sharing and sizes, its NTT domain, its witness and
 * synthesis, its proof's files) is an op or a field here, so engine/
 * names no curve and has no branch on one (make check: selftests/
 * curves_free.sh).  A key of any curve is a union cz_curve_key, read and
 * shared by one code path (engine/control/keys.c) through its curve's ops.
 *
 * Adding a curve: its zk/ instance (fields, groups, Groth16, file formats,
 * synth/), an enum cz_curve value and its names (zk/curve/curve_id.h), its
 * member of union cz_curve_key and union cz_dev_work's (gpu/backend.h),
 * and one CURVE_OPS(...) instance in curves/curves.c.
 */
#ifndef CZ_CURVES_H
#define CZ_CURVES_H

#include "alloc/region.h"
#include "gpu/backend.h"
#include "zk/curve/curve_id.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"

#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A proving key of any curve (its curve's ops say which member is live).
 * nvars, npub and log2n lead every curve's key struct (their common
 * initial sequence), so k.nvars, k.npub and k.log2n read any. */
union cz_curve_key {
	struct {
		uint32_t nvars;         /* signals including the constant one */
		uint32_t npub;          /* public signals, not counting the one */
		uint32_t log2n;         /* domain size n = 2^log2n */
	};
	struct cz_groth16_key bls;
	struct cz_bn254_groth16_key bn;
};

/* Every curve's Fr element is 32 bytes (a public input, a witness value,
 * synth/part.h's blocks). */
#define CZ_CURVE_FR_BYTES 32
_Static_assert(sizeof(cz_fr) == CZ_CURVE_FR_BYTES && sizeof(cz_bn254_fr) == CZ_CURVE_FR_BYTES,
	       "a curve's Fr is not 32 bytes");

struct cz_curve_ops {
	enum cz_curve curve;
	/* Fr's modulus r, four little-endian limbs: every witness value is
	 * below it (as a .wtns is checked on its way in). */
	const uint64_t *r;
	/* 0, or -1 with err "path: curve ..., expected ...: backend ... proves
	 * no other yet" when be cannot prove this curve. */
	int (*backend_check)(const struct cz_backend *be, const char *path, char *err, size_t cap);
	/* The .zkey at path into k: 0, or -1 with err set. */
	int (*key_load)(union cz_curve_key *k, const char *path, char *err, size_t cap);
	/* curves/shkey.h's three over this curve's key. */
	int (*key_share)(union cz_curve_key *k, struct cz_region *r, uint64_t nodes, char *err, size_t cap);
	void (*key_free)(union cz_curve_key *k, struct cz_region *r);
	int (*key_attach)(const struct cz_region *r, union cz_curve_key *k);
	/* Bytes the key's arrays hold (the memory budget's charge), its
	 * fixed-base tables included. */
	uint64_t (*key_bytes)(const union cz_curve_key *k);
	/* Fixed-base tables for the key's MSMs (zk/groth16/groth16.h,
	 * key_tables_plan and _fill): key_tables_plan shapes them within
	 * max_bytes, chosen for threads, and returns their bytes (*total: their
	 * bases), before key_share, which gives them their place in the shared
	 * region; key_tables_fill then builds them there on pool (done counts
	 * bases finished), so they are never held twice.  Fill: 0, -ENOMEM.
	 * key_table_bytes: what the tables in place hold. */
	uint64_t (*key_tables_plan)(union cz_curve_key *k, uint64_t max_bytes, unsigned threads,
				    uint64_t *total);
	int (*key_tables_fill)(union cz_curve_key *k, struct cz_pool *pool, _Atomic uint64_t *done);
	uint64_t (*key_table_bytes)(const union cz_curve_key *k);
	/* The key's NTT domain (NULL: out of memory), its bytes, its end. */
	void *(*dom_create)(uint32_t log2n);
	uint64_t (*dom_bytes)(const void *dom);
	void (*dom_destroy)(void *dom);
	/* One partition's block (synth/part.h): its bytes, its wipe. */
	uint64_t (*part_bytes)(const union cz_curve_key *k);
	void (*part_wipe)(const union cz_curve_key *k, void *mem);
	/* w's curve, key and domain set; with mem, also its w, a, b, c, h
	 * carved from the block at mem.  Its other fields are left alone. */
	void (*work)(struct cz_dev_work *w, const union cz_curve_key *k, const void *dom, void *mem);
	/* A .wtns of nvars values from fd into w (zk/io/groth16_io.h). */
	int (*wtns_read_fd)(int fd, uint32_t nvars, cz_scalar *w, char *err, size_t cap);
	/* a, b, c of w from its witness (synth/synth.h), serially. */
	void (*synth_abc)(const struct cz_dev_work *w);
	/* snarkjs' proof.json and public.json (zk/io/snarkjs_json.h): the
	 * length the text needs, as snprintf. */
	size_t (*proof_json)(char *buf, size_t cap, const union cz_dev_proof *p);
	size_t (*public_json)(char *buf, size_t cap, const void *pub, size_t npub);
	/* proof.bin, CZ_PROOF_BIN_BYTES (zk/io/groth16_io.h); NULL: the curve
	 * has no compressed encoding, a job of it writes no proof.bin. */
	void (*proof_bin)(uint8_t *out, const union cz_dev_proof *p);
};

/* A development key and its witness: the warm-up's (engine/pipeline/
 * warmup.c), never a user's. */
struct cz_curve_devkey {
	enum cz_curve curve;
	union cz_curve_key key;
	cz_scalar *w;           /* key.nvars values, standard form, malloc'd */
};
/* zk/groth16/builtin.h's circuit at 2^log2n over the curve the built-in
 * circuits are written for, its INSECURE development setup from seed into
 * d->key and its witness (seed 1) into d->w.  0, or -1 with err ("circuit:
 * ..." or "key: out of memory"). */
int cz_curve_devkey_make(const char *circuit, unsigned log2n, uint64_t seed, struct cz_curve_devkey *d,
			 char *err, size_t cap);

/* The ops of curve c; NULL for no curve this build knows. */
const struct cz_curve_ops *cz_curve_ops(enum cz_curve c);
/* The curve of the key a shared region holds (curves/shkey.h's header):
 * its ops, or NULL when the header names none. */
const struct cz_curve_ops *cz_curve_ops_of_region(const struct cz_region *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/fr.h — the BLS12-381 scalar field Fr (255-bit r), Montgomery form,
 * four 64-bit limbs, little-endian limb order.
 *
 * The code is generic over the limb count (zk/field_impl.h); this header is
 * the BLS12-381 instance.  Values are always fully reduced (< r).
 * "mont" bytes are the Montgomery representation a·R mod r (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_FR_H
#define CZ_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_FR_LIMBS 4
#define CZ_FR_BYTES 32

typedef struct { uint64_t l[CZ_FR_LIMBS]; } cz_fr;
/* An unreduced product of two elements (2N limbs), for lazy reduction. */
typedef struct { uint64_t l[2 * CZ_FR_LIMBS]; } cz_fr_wide;

extern const cz_fr cz_fr_zero;  /* 0 */
extern const cz_fr cz_fr_one;   /* 1 (i.e. R mod r) */

void cz_fr_add(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_sub(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_dbl(cz_fr *r, const cz_fr *a);
void cz_fr_neg(cz_fr *r, const cz_fr *a);
void cz_fr_mul(cz_fr *r, const cz_fr *a, const cz_fr *b);
void cz_fr_sqr(cz_fr *r, const cz_fr *a);
bool cz_fr_is_zero(const cz_fr *a);
bool cz_fr_eq(const cz_fr *a, const cz_fr *b);
void cz_fr_inv(cz_fr *r, const cz_fr *a);          /* constant time; inv(0) = 0 */
void cz_fr_inv_vartime(cz_fr *r, const cz_fr *a);  /* public inputs only; inv(0) = 0 */
bool cz_fr_sqrt(cz_fr *r, const cz_fr *a);         /* false if a is a non-residue */
int cz_fr_legendre(const cz_fr *a);                /* -1, 0 or 1 */
/* out[i] = 1/in[i] (0 stays 0); out may equal in; scratch holds n elements. */
void cz_fr_batch_inv(cz_fr *out, const cz_fr *in, size_t n, cz_fr *scratch);
void cz_fr_pow(cz_fr *r, const cz_fr *a, const uint64_t *e, size_t elimbs);
bool cz_fr_is_odd(const cz_fr *a);                 /* of the standard representative */
bool cz_fr_is_one(const cz_fr *a);
/* y > (m-1)/2 for the standard representative y (zcash's sign flag). */
bool cz_fr_lexicographically_largest(const cz_fr *a);

/* Lazy reduction: mul_wide gives the 2N-limb integer product of the
 * Montgomery residues; redc(t) = t/R mod m for any t < m·R (so sums and
 * differences of a few products can share one reduction); wide_sub and
 * wide_add are a -/+ b mod m·R, which keeps the result < m·R. */
void cz_fr_mul_wide(cz_fr_wide *r, const cz_fr *a, const cz_fr *b);
void cz_fr_redc(cz_fr *r, const cz_fr_wide *t);
void cz_fr_wide_sub(cz_fr_wide *r, const cz_fr_wide *a, const cz_fr_wide *b);
void cz_fr_wide_add(cz_fr_wide *r, const cz_fr_wide *a, const cz_fr_wide *b);
/* The extension by u^2 = -1: (r0 + r1 u) = (a0 + a1 u)(b0 + b1 u), and the
 * square; lazy-reduced Karatsuba (Fp2 uses these).  Outputs may alias. */
void cz_fr_ext2_mul(cz_fr *r0, cz_fr *r1, const cz_fr *a0, const cz_fr *a1, const cz_fr *b0, const cz_fr *b1);
void cz_fr_ext2_sqr(cz_fr *r0, cz_fr *r1, const cz_fr *a0, const cz_fr *a1);

void cz_fr_from_u64(cz_fr *r, uint64_t v);
/* raw = standard-form limbs; to_mont fails (false) if raw >= r. */
bool cz_fr_to_mont(cz_fr *r, const uint64_t raw[CZ_FR_LIMBS]);
void cz_fr_from_mont(uint64_t raw[CZ_FR_LIMBS], const cz_fr *a);

/* Encodings.  Decoders return false for a value >= r. */
bool cz_fr_from_bytes_le_mont(cz_fr *r, const uint8_t b[CZ_FR_BYTES]); /* .zkey */
void cz_fr_to_bytes_le_mont(uint8_t b[CZ_FR_BYTES], const cz_fr *a);
bool cz_fr_from_bytes_le(cz_fr *r, const uint8_t b[CZ_FR_BYTES]);      /* .wtns */
void cz_fr_to_bytes_le(uint8_t b[CZ_FR_BYTES], const cz_fr *a);
bool cz_fr_from_bytes_be(cz_fr *r, const uint8_t b[CZ_FR_BYTES]);      /* zcash */
void cz_fr_to_bytes_be(uint8_t b[CZ_FR_BYTES], const cz_fr *a);
bool cz_fr_from_dec(cz_fr *r, const char *s);      /* decimal, proof.json */
/* Writes the decimal string (NUL-terminated) into s; returns its length. */
size_t cz_fr_to_dec(char *s, size_t cap, const cz_fr *a);

/* Roots of unity, as snarkjs defines them: omega_{2^32} = 5^((r-1)/2^32).
 * cz_fr_root_of_unity(r, k) gives a primitive 2^k-th root, 0 <= k <= 32. */
#define CZ_FR_TWO_ADICITY 32
void cz_fr_root_of_unity(cz_fr *r, unsigned k);

#endif

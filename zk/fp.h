/* SPDX-License-Identifier: MIT */
/*
 * zk/fp.h — the BLS12-381 base field Fp (381-bit p), Montgomery form,
 * six 64-bit limbs, little-endian limb order.
 *
 * The code is generic over the limb count (zk/field_impl.h); this header is
 * the BLS12-381 instance.  Values are always fully reduced (< p).
 * "mont" bytes are the Montgomery representation a·R mod p (snarkjs .zkey);
 * plain bytes are the standard representative.
 */
#ifndef CZ_FP_H
#define CZ_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_FP_LIMBS 6
#define CZ_FP_BYTES 48

typedef struct { uint64_t l[CZ_FP_LIMBS]; } cz_fp;
/* An unreduced product of two elements (2N limbs), for lazy reduction. */
typedef struct { uint64_t l[2 * CZ_FP_LIMBS]; } cz_fp_wide;

extern const cz_fp cz_fp_zero;  /* 0 */
extern const cz_fp cz_fp_one;   /* 1 (i.e. R mod p) */

void cz_fp_add(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_sub(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_dbl(cz_fp *r, const cz_fp *a);
void cz_fp_neg(cz_fp *r, const cz_fp *a);
void cz_fp_mul(cz_fp *r, const cz_fp *a, const cz_fp *b);
void cz_fp_sqr(cz_fp *r, const cz_fp *a);
bool cz_fp_is_zero(const cz_fp *a);
bool cz_fp_eq(const cz_fp *a, const cz_fp *b);
void cz_fp_inv(cz_fp *r, const cz_fp *a);          /* constant time; inv(0) = 0 */
void cz_fp_inv_vartime(cz_fp *r, const cz_fp *a);  /* public inputs only; inv(0) = 0 */
bool cz_fp_sqrt(cz_fp *r, const cz_fp *a);         /* false if a is a non-residue */
int cz_fp_legendre(const cz_fp *a);                /* -1, 0 or 1 */
/* out[i] = 1/in[i] (0 stays 0); out may equal in; scratch holds n elements. */
void cz_fp_batch_inv(cz_fp *out, const cz_fp *in, size_t n, cz_fp *scratch);
void cz_fp_pow(cz_fp *r, const cz_fp *a, const uint64_t *e, size_t elimbs);
bool cz_fp_is_odd(const cz_fp *a);                 /* of the standard representative */
bool cz_fp_is_one(const cz_fp *a);
/* y > (m-1)/2 for the standard representative y (zcash's sign flag). */
bool cz_fp_lexicographically_largest(const cz_fp *a);

/* Lazy reduction: mul_wide gives the 2N-limb integer product of the
 * Montgomery residues; redc(t) = t/R mod m for any t < m·R (so sums and
 * differences of a few products can share one reduction); wide_sub and
 * wide_add are a -/+ b mod m·R, which keeps the result < m·R. */
void cz_fp_mul_wide(cz_fp_wide *r, const cz_fp *a, const cz_fp *b);
void cz_fp_redc(cz_fp *r, const cz_fp_wide *t);
void cz_fp_wide_sub(cz_fp_wide *r, const cz_fp_wide *a, const cz_fp_wide *b);
void cz_fp_wide_add(cz_fp_wide *r, const cz_fp_wide *a, const cz_fp_wide *b);
/* The extension by u^2 = -1: (r0 + r1 u) = (a0 + a1 u)(b0 + b1 u), and the
 * square; lazy-reduced Karatsuba (Fp2 uses these).  Outputs may alias. */
void cz_fp_ext2_mul(cz_fp *r0, cz_fp *r1, const cz_fp *a0, const cz_fp *a1, const cz_fp *b0, const cz_fp *b1);
void cz_fp_ext2_sqr(cz_fp *r0, cz_fp *r1, const cz_fp *a0, const cz_fp *a1);

void cz_fp_from_u64(cz_fp *r, uint64_t v);
/* raw = standard-form limbs; to_mont fails (false) if raw >= p. */
bool cz_fp_to_mont(cz_fp *r, const uint64_t raw[CZ_FP_LIMBS]);
void cz_fp_from_mont(uint64_t raw[CZ_FP_LIMBS], const cz_fp *a);

/* Encodings.  Decoders return false for a value >= p. */
bool cz_fp_from_bytes_le_mont(cz_fp *r, const uint8_t b[CZ_FP_BYTES]); /* .zkey */
void cz_fp_to_bytes_le_mont(uint8_t b[CZ_FP_BYTES], const cz_fp *a);
bool cz_fp_from_bytes_le(cz_fp *r, const uint8_t b[CZ_FP_BYTES]);      /* .wtns */
void cz_fp_to_bytes_le(uint8_t b[CZ_FP_BYTES], const cz_fp *a);
bool cz_fp_from_bytes_be(cz_fp *r, const uint8_t b[CZ_FP_BYTES]);      /* zcash */
void cz_fp_to_bytes_be(uint8_t b[CZ_FP_BYTES], const cz_fp *a);
bool cz_fp_from_dec(cz_fp *r, const char *s);      /* decimal, proof.json */
/* Writes the decimal string (NUL-terminated) into s; returns its length. */
size_t cz_fp_to_dec(char *s, size_t cap, const cz_fp *a);

/* The multiplication path: the mulx/adcx/adox one is chosen at start-up when
 * the CPU has BMI2 and ADX.  Tests force each path in turn. */
bool cz_fp_have_adx(void);
void cz_field_force_portable(bool on);  /* all fields; for tests and benches */
/* How often inv_vartime fell back to Fermat (a bug if ever non-zero). */
unsigned long cz_field_inv_fallback_count(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_decl_tmpl_pvt.h — the API of one prime field, declared once for every
 * instance (BLS12-381 Fp and Fr in zk/field/fp.h, zk/field/fr.h; BN254 Fp and Fr in
 * zk/field/bn254_fp.h, zk/field/bn254_fr.h).  zk/field/field_tmpl_pvt.h defines what this
 * declares; a field header is its types, CZ_FIELD_DECLARE and what is
 * special to that field.
 *
 * CZ_FIELD_DECLARE(PFX, T, WIDE_T, N, BYTES) declares, for the element type
 * T (N 64-bit limbs, little-endian limb order, Montgomery form, always fully
 * reduced < m) and WIDE_T (an unreduced 2N-limb product):
 *   PFX_zero, PFX_one          0 and 1 (R mod m)
 *   add sub dbl neg mul sqr    constant time; r may alias the inputs
 *   is_zero eq is_one          constant time
 *   inv                        constant time (Fermat); inv(0) = 0
 *   inv_vartime                public inputs only; inv(0) = 0
 *   sqrt                       false if a is a non-residue (variable time
 *                              when m ≡ 1 mod 4: Tonelli–Shanks)
 *   legendre                   -1, 0 or 1
 *   batch_inv(out, in, n, scratch)  out[i] = 1/in[i] (0 stays 0); out may
 *                              equal in; scratch holds n elements
 *   pow(r, a, e, elimbs)       a^e, e public little-endian limbs
 *   is_odd                     of the standard representative
 *   lexicographically_largest  y > (m-1)/2 for the standard representative
 *                              y (zcash's sign flag)
 * Lazy reduction: mul_wide gives the 2N-limb integer product of the
 * Montgomery residues; redc(t) = t/R mod m for any t < m·R (so sums and
 * differences of a few products can share one reduction); wide_sub and
 * wide_add are a -/+ b mod m·R, which keeps the result < m·R.
 * ext2_mul, ext2_sqr: the extension by u^2 = -1, (r0 + r1 u) = (a0 + a1 u)
 * (b0 + b1 u) and the square, lazy-reduced Karatsuba (Fp2 uses these).
 * Conversions: from_u64; to_mont (raw standard-form limbs, false if >= m);
 * from_mont.  Encodings (decoders return false for a value >= m):
 *   le_mont  the Montgomery limbs, little-endian bytes (.zkey)
 *   le       the standard representative, little-endian (.wtns)
 *   be       the standard representative, big-endian (zcash, calldata)
 *   dec      decimal digits (proof.json); to_dec writes a NUL-terminated
 *            string into s and returns its length (like snprintf)
 */
#ifndef CZ_FIELD_DECL_H
#define CZ_FIELD_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_FIELD_DECLARE(PFX, T, WT, N, BYTES)                                        \
	typedef struct { uint64_t l[N]; } T;                                          \
	typedef struct { uint64_t l[2 * (N)]; } WT;                                   \
	extern const T PFX##_zero;                                                    \
	extern const T PFX##_one;                                                     \
	void PFX##_add(T *r, const T *a, const T *b);                                 \
	void PFX##_sub(T *r, const T *a, const T *b);                                 \
	void PFX##_dbl(T *r, const T *a);                                             \
	void PFX##_neg(T *r, const T *a);                                             \
	void PFX##_mul(T *r, const T *a, const T *b);                                 \
	void PFX##_sqr(T *r, const T *a);                                             \
	bool PFX##_is_zero(const T *a);                                               \
	bool PFX##_eq(const T *a, const T *b);                                        \
	void PFX##_inv(T *r, const T *a);                                             \
	void PFX##_inv_vartime(T *r, const T *a);                                     \
	bool PFX##_sqrt(T *r, const T *a);                                            \
	int PFX##_legendre(const T *a);                                               \
	void PFX##_batch_inv(T *out, const T *in, size_t n, T *scratch);              \
	void PFX##_pow(T *r, const T *a, const uint64_t *e, size_t elimbs);           \
	bool PFX##_is_odd(const T *a);                                                \
	bool PFX##_is_one(const T *a);                                                \
	bool PFX##_lexicographically_largest(const T *a);                             \
	void PFX##_mul_wide(WT *r, const T *a, const T *b);                           \
	void PFX##_redc(T *r, const WT *t);                                           \
	void PFX##_wide_sub(WT *r, const WT *a, const WT *b);                         \
	void PFX##_wide_add(WT *r, const WT *a, const WT *b);                         \
	void PFX##_ext2_mul(T *r0, T *r1, const T *a0, const T *a1, const T *b0,      \
			    const T *b1);                                             \
	void PFX##_ext2_sqr(T *r0, T *r1, const T *a0, const T *a1);                  \
	void PFX##_from_u64(T *r, uint64_t v);                                        \
	bool PFX##_to_mont(T *r, const uint64_t raw[N]);                              \
	void PFX##_from_mont(uint64_t raw[N], const T *a);                            \
	bool PFX##_from_bytes_le_mont(T *r, const uint8_t b[BYTES]);                  \
	void PFX##_to_bytes_le_mont(uint8_t b[BYTES], const T *a);                    \
	bool PFX##_from_bytes_le(T *r, const uint8_t b[BYTES]);                       \
	void PFX##_to_bytes_le(uint8_t b[BYTES], const T *a);                         \
	bool PFX##_from_bytes_be(T *r, const uint8_t b[BYTES]);                       \
	void PFX##_to_bytes_be(uint8_t b[BYTES], const T *a);                         \
	bool PFX##_from_dec(T *r, const char *s);                                     \
	size_t PFX##_to_dec(char *s, size_t cap, const T *a)

/* A scalar field's roots of unity, as snarkjs (ffjavascript) defines them:
 * omega_{2^S} = nqr^((r-1)/2^S) for the smallest quadratic non-residue nqr
 * and the two-adicity S; root_of_unity(r, k) gives the primitive 2^k-th root
 * omega_{2^S}^(2^(S-k)), 0 <= k <= S (a larger k is clamped to S). */
#define CZ_FIELD_DECLARE_ROOTS(PFX, T) void PFX##_root_of_unity(T *r, unsigned k)

/* Fp2 = Fp[u]/(u^2 + 1) over the field BPFX (zk/field/fp2_tmpl_pvt.h defines it):
 * c0 + c1·u, always fully reduced; every function allows r to alias its
 * inputs.  mul_nonres multiplies by the curve's sextic non-residue xi;
 * inv(0) = 0; sqrt is false for a non-square; frobenius is a^p = conj(a);
 * lexicographically_largest is the zcash sign rule (c1, or c0 if c1 = 0);
 * pow is a^e for a public e. */
#define CZ_FP2_DECLARE(PFX, BPFX)                                                     \
	typedef struct { BPFX c0, c1; } PFX;                                          \
	extern const PFX PFX##_zero;                                                  \
	extern const PFX PFX##_one;                                                   \
	void PFX##_add(PFX *r, const PFX *a, const PFX *b);                           \
	void PFX##_sub(PFX *r, const PFX *a, const PFX *b);                           \
	void PFX##_dbl(PFX *r, const PFX *a);                                         \
	void PFX##_neg(PFX *r, const PFX *a);                                         \
	void PFX##_conj(PFX *r, const PFX *a);                                        \
	void PFX##_mul(PFX *r, const PFX *a, const PFX *b);                           \
	void PFX##_sqr(PFX *r, const PFX *a);                                         \
	void PFX##_mul_fp(PFX *r, const PFX *a, const BPFX *b);                       \
	void PFX##_mul_nonres(PFX *r, const PFX *a);                                  \
	void PFX##_inv(PFX *r, const PFX *a);                                         \
	bool PFX##_sqrt(PFX *r, const PFX *a);                                        \
	bool PFX##_is_zero(const PFX *a);                                             \
	bool PFX##_eq(const PFX *a, const PFX *b);                                    \
	void PFX##_frobenius(PFX *r, const PFX *a);                                   \
	bool PFX##_lexicographically_largest(const PFX *a);                           \
	void PFX##_pow(PFX *r, const PFX *a, const uint64_t *e, size_t elimbs)

#endif

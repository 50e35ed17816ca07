/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bls12_381.h — the BLS12-381 field constants, and nothing else.
 *
 * Every constant that belongs to this curve's fields lives here, so a second
 * curve (BN254) adds its own header instead of editing the generic code in
 * zk/field/field_tmpl_pvt.h.  Limbs are 64-bit, least significant first.  R = 2^(64·N)
 * for the field's limb count N; "INV" is -m^-1 mod 2^64 (Montgomery's n').
 * Exponents (m-2, (m+1)/4, (m-1)/2^S, ...) are derived from the modulus by
 * the generic code, so they are not repeated here.
 */
#ifndef CZ_BLS12_381_H
#define CZ_BLS12_381_H

/* Fp: p = 0x1a0111ea...ffffaaab, 381 bits, p ≡ 3 (mod 4). */
#define CZ_BLS12_381_P                                                               \
	{ 0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,        \
	  0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL }
#define CZ_BLS12_381_P_ONE /* R mod p */                                             \
	{ 0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,        \
	  0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL }
#define CZ_BLS12_381_P_R2 /* R^2 mod p */                                            \
	{ 0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,        \
	  0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL }
#define CZ_BLS12_381_P_R3 /* R^3 mod p */                                            \
	{ 0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,        \
	  0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL }
#define CZ_BLS12_381_P_INV 0x89f3fffcfffcfffdULL
/* Fp is ≡ 3 mod 4, so sqrt never needs a non-residue; 2 is one anyway. */
#define CZ_BLS12_381_P_NQR 2

/* Fr: r = 0x73eda753...00000001, 255 bits, r - 1 = 2^32 · t. */
#define CZ_BLS12_381_R                                                               \
	{ 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,        \
	  0x73eda753299d7d48ULL }
#define CZ_BLS12_381_R_ONE                                                           \
	{ 0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,        \
	  0x1824b159acc5056fULL }
#define CZ_BLS12_381_R_R2                                                            \
	{ 0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,        \
	  0x0748d9d99f59ff11ULL }
#define CZ_BLS12_381_R_R3                                                            \
	{ 0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL, 0x73d13c71c7b5f418ULL,        \
	  0x6e2a5bb9c8db33e9ULL }
#define CZ_BLS12_381_R_INV 0xfffffffeffffffffULL
/* 5 is a quadratic non-residue mod r; snarkjs (ffjavascript) takes its
 * 2^32-th root of unity as 5^((r-1)/2^32), and so do we. */
#define CZ_BLS12_381_R_NQR 5
#define CZ_BLS12_381_R_TWO_ADICITY 32
/* omega_{2^32} = 5^((r-1)/2^32) mod r, standard form (the test recomputes it). */
#define CZ_BLS12_381_R_OMEGA32                                                       \
	{ 0x1b788f500b912f1fULL, 0xc4024ff270b3e094ULL, 0x0fd56dc8d168d6c0ULL,        \
	  0x0212d79e5b416b6fULL }

#endif

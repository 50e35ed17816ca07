/* SPDX-License-Identifier: MIT */
/*
 * zk/field/bn254.h — the BN254 field constants, and nothing else.
 *
 * BN254 is circom's and snarkjs' "bn128" (Ethereum's alt_bn128): the BN
 * curve of parameter x = 0x44e992b44a6909f1, p = 36x^4 + 36x^3 + 24x^2 +
 * 6x + 1, r = 36x^4 + 36x^3 + 18x^2 + 6x + 1, both 254 bits.  Every
 * constant of its fields lives here, as zk/field/bls12_381.h holds BLS12-381's;
 * the code (zk/field/field_tmpl_pvt.h) is the same.  Limbs are 64-bit, least
 * significant first; R = 2^256; "INV" is -m^-1 mod 2^64.  The values were
 * computed from p and r with Python integers; selftests/zk_bn254_fp.c and
 * zk_bn254_fr.c check every field operation against GMP, which uses only
 * the moduli typed into the tests.
 */
#ifndef CZ_BN254_H
#define CZ_BN254_H

/* Fp: p = 0x30644e72...d87cfd47, 254 bits, p ≡ 3 (mod 4). */
#define CZ_BN254_P                                                                   \
	{ 0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL,        \
	  0x30644e72e131a029ULL }
#define CZ_BN254_P_ONE /* R mod p */                                                 \
	{ 0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL,        \
	  0x0e0a77c19a07df2fULL }
#define CZ_BN254_P_R2 /* R^2 mod p */                                                \
	{ 0xf32cfc5b538afa89ULL, 0xb5e71911d44501fbULL, 0x47ab1eff0a417ff6ULL,        \
	  0x06d89f71cab8351fULL }
#define CZ_BN254_P_R3 /* R^3 mod p */                                                \
	{ 0xb1cd6dafda1530dfULL, 0x62f210e6a7283db6ULL, 0xef7f0b0c0ada0afbULL,        \
	  0x20fd6e902d592544ULL }
#define CZ_BN254_P_INV 0x87d20782e4866389ULL
/* p ≡ 3 mod 4: sqrt never needs a non-residue; 3 is the smallest. */
#define CZ_BN254_P_NQR 3

/* Fr: r = 0x30644e72...f0000001, 254 bits, r - 1 = 2^28 · t. */
#define CZ_BN254_R                                                                   \
	{ 0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,        \
	  0x30644e72e131a029ULL }
#define CZ_BN254_R_ONE                                                               \
	{ 0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL, 0x666ea36f7879462eULL,        \
	  0x0e0a77c19a07df2fULL }
#define CZ_BN254_R_R2                                                                \
	{ 0x1bb8e645ae216da7ULL, 0x53fe3ab1e35c59e3ULL, 0x8c49833d53bb8085ULL,        \
	  0x0216d0b17f4e44a5ULL }
#define CZ_BN254_R_R3                                                                \
	{ 0x5e94d8e1b4bf0040ULL, 0x2a489cbe1cfbb6b8ULL, 0x893cc664a19fcfedULL,        \
	  0x0cf8594b7fcc657cULL }
#define CZ_BN254_R_INV 0xc2e1f593efffffffULL
/* 5 is the smallest quadratic non-residue mod r; snarkjs (ffjavascript)
 * takes its 2^28-th root of unity as 5^((r-1)/2^28), and so do we. */
#define CZ_BN254_R_NQR 5
#define CZ_BN254_R_TWO_ADICITY 28
/* omega_{2^28} = 5^((r-1)/2^28) mod r = 1910321906792171394429139282769207
 * 0036145651957329286315305642004821462161904 (ffjavascript's Fr.w[28]),
 * standard form (the test recomputes it). */
#define CZ_BN254_R_OMEGA28                                                           \
	{ 0x9bd61b6e725b19f0ULL, 0x402d111e41112ed4ULL, 0x00e0a7eb8ef62abcULL,        \
	  0x2a3c09f0a58a7e85ULL }

#endif

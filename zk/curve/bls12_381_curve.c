/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/bls12_381_curve.c — BLS12-381 curve constants (see bls12_381_curve.h).
 *
 * The generators are the standard ones (zcash / IETF pairing-friendly-curves
 * draft); their zcash compressed encodings are checked in the selftests.
 * Field values are stored in Montgomery form, a·2^384 mod p, so they can be
 * compile-time constants; each was derived from its defining property
 * (written next to it) and is re-derived or checked by the selftests.
 */
#include "zk/curve/bls12_381_curve.h"
#include "zk/curve/g1.h"
#include "zk/curve/g2.h"

#define FP(a, b, c, d, e, f) { { a, b, c, d, e, f } }

/* 4 */
const cz_fp cz_bls12_381_g1_b = FP(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
				   0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL);
/* 12 */
const cz_fp cz_bls12_381_g1_b3 = FP(0x447600000027552eULL, 0xdcb8009a43480020ULL, 0x6f7ee9ce4a6e8b59ULL,
				    0xb10330b7c0a95bc6ULL, 0x6140b1fcfb1e54b7ULL, 0x0381be097f0bb4e1ULL);
const cz_fp2 cz_bls12_381_g2_b = {
	FP(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
	   0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL),
	FP(0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
	   0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL),
};
const cz_fp2 cz_bls12_381_g2_b3 = {
	FP(0x447600000027552eULL, 0xdcb8009a43480020ULL, 0x6f7ee9ce4a6e8b59ULL, 0xb10330b7c0a95bc6ULL,
	   0x6140b1fcfb1e54b7ULL, 0x0381be097f0bb4e1ULL),
	FP(0x447600000027552eULL, 0xdcb8009a43480020ULL, 0x6f7ee9ce4a6e8b59ULL, 0xb10330b7c0a95bc6ULL,
	   0x6140b1fcfb1e54b7ULL, 0x0381be097f0bb4e1ULL),
};

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe:
 * beta^3 = 1, and (beta·Gx, Gy) = (-x^2)·G.  The other root, beta^2, gives x^2 - 1. */
const cz_fp cz_bls12_381_g1_beta = FP(0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
				      0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL);

/* cx = 1/(1+u)^((p-1)/3) = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b
 *      409427eb4f49fffd8bfd00000000aaad · u */
const cz_fp2 cz_bls12_381_g2_psi_cx = {
	FP(0, 0, 0, 0, 0, 0),
	FP(0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
	   0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL),
};
/* cy = 1/(1+u)^((p-1)/2) */
const cz_fp2 cz_bls12_381_g2_psi_cy = {
	FP(0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
	   0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL),
	FP(0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
	   0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL),
};

/* h1 = (x - 1)^2 / 3 = 0x396c8c005555e1568c00aaab0000aaab */
const uint64_t cz_bls12_381_g1_cofactor[CZ_BLS12_381_H1_LIMBS] = { 0x8c00aaab0000aaabULL,
								    0x396c8c005555e156ULL };
/* h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9 (507 bits) */
const uint64_t cz_bls12_381_g2_cofactor[CZ_BLS12_381_H2_LIMBS] = {
	0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL, 0xa628f1cb4d9e82efULL,
	0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL, 0x091d50792876a202ULL, 0x05d543a95414e7f1ULL,
};

/* G1 generator:
 * x = 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
 * y = 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1 */
const cz_g1_affine cz_g1_generator = {
	FP(0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL,
	   0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL),
	FP(0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL,
	   0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL),
};

/* G2 generator:
 * x.c0 = 0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8
 * x.c1 = 0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e
 * y.c0 = 0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801
 * y.c1 = 0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be */
const cz_g2_affine cz_g2_generator = {
	{ FP(0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL,
	     0x6f67b7631863366bULL, 0x058191924350bcd7ULL),
	  FP(0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL,
	     0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL) },
	{ FP(0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL,
	     0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL),
	  FP(0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL,
	     0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL) },
};

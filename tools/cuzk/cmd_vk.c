/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_vk.c — `cuzk vk ZKEY VK.json`: the verification key of a
 * .zkey, as `snarkjs zkey export verificationkey` writes it, vk_alphabeta_12
 * included, for BLS12-381 and BN254 (bn128) keys alike: the key's primes
 * pick the curve.  Only the header and IC section are decoded (checked on the
 * curve and in the subgroup), so a large key exports in milliseconds.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "zk/io/snarkjs_json.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/io/bn254_zkey.h"
#include "zk/io/zkey.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One body for both curves: P the zkey prefix, J the JSON/vk prefix. */
#define VK_FN(NAME, P, ZT, J, VK, G1)                                                 \
	static int NAME(char **argv)                                                  \
	{                                                                             \
		char err[CZ_ERRLEN] = "";                                             \
		struct VK vk;                                                         \
		struct ZT *z;                                                         \
		int rc;                                                               \
                                                                                      \
		if (!(z = P##_open_flags(argv[1], 0, err))) {                         \
			fprintf(stderr, "cuzk vk: %s\n", err);                        \
			return CZ_EXIT_USAGE;                                         \
		}                                                                     \
		memset(&vk, 0, sizeof(vk));                                           \
		rc = P##_vk(z, &vk, err);                                             \
		P##_close(z);                                                         \
		for (uint32_t i = 0; !rc && i <= vk.n_public; i++)                    \
			if (!G1##_affine_in_subgroup(&vk.ic[i]))                      \
				rc = cz_errf(err, -EINVAL,                            \
					     "%s: IC[%u]: not in the prime-order subgroup", \
					     argv[1], i);                             \
		if (!rc) {                                                            \
			J##groth16_vk_set_alphabeta(&vk);                             \
			rc = J##groth16_vk_json_write(argv[2], &vk, err);             \
		}                                                                     \
		J##groth16_vk_free(&vk);                                              \
		if (rc) {                                                             \
			fprintf(stderr, "cuzk vk: %s\n", err);                        \
			return CZ_EXIT_USAGE;                                         \
		}                                                                     \
		return CZ_EXIT_OK;                                                    \
	}

VK_FN(vk_bls12_381, cz_zkey, cz_zkey, cz_, cz_groth16_vk, cz_g1)
VK_FN(vk_bn254, cz_bn254_zkey, cz_bn254_zkey, cz_bn254_, cz_bn254_groth16_vk, cz_bn254_g1)

/* The key's primes pick the curve. */
int cz_cmd_vk(int argc, char **argv)
{
	char err[CZ_ERRLEN] = "";
	enum cz_curve curve;

	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		fprintf(stderr, "usage: cuzk vk ZKEY VK.json\n");
		return CZ_EXIT_USAGE;
	}
	if (cz_zkey_curve(argv[1], &curve, err)) {
		fprintf(stderr, "cuzk vk: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	return curve == CZ_CURVE_BN254 ? vk_bn254(argv) : vk_bls12_381(argv);
}

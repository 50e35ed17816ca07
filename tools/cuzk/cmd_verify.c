/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_verify.c — `cuzk verify VK.json PUBLIC.json PROOF.json`,
 * snarkjs's argument order, for BLS12-381 ("curve": "bls12381") and BN254
 * ("bn128") keys alike: the key's "curve" picks the curve.  Prints "OK" (exit 0) or "INVALID: reason"
 * (exit 1); a file that cannot be read or parsed exits 2 with a message
 * naming the file and field.
 *
 * What is checked before the pairing: the readers (zk/io/snarkjs_json.h) put
 * every point of the key and the proof on its curve and in its subgroup and
 * every public input below r; here the number of public inputs must equal
 * the key's nPublic (fewer or more would silently prove another statement).
 * e(α, β) in the key is not trusted: the pairing check recomputes it.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"
#include "zk/io/snarkjs_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One body for both curves: PFX is the JSON/verify prefix, VK PROOF FR the
 * types. */
#define VERIFY_FN(NAME, PFX, VK, PROOF, FR)                                           \
	static int NAME(char **argv)                                                  \
	{                                                                             \
		char err[CZ_ERRLEN] = "";                                             \
		struct VK vk;                                                         \
		struct PROOF p;                                                       \
		FR *pub = NULL;                                                       \
		size_t npub = 0;                                                      \
		int ret = CZ_EXIT_USAGE;                                              \
                                                                                      \
		memset(&vk, 0, sizeof(vk));                                           \
		if (PFX##groth16_vk_json_read(argv[1], &vk, err) ||                   \
		    PFX##public_json_read(argv[2], &pub, &npub, err) ||               \
		    PFX##proof_json_read(argv[3], &p, err)) {                         \
			fprintf(stderr, "cuzk verify: %s\n", err);                    \
			goto out;                                                     \
		}                                                                     \
		if (npub != vk.n_public) {                                            \
			printf("INVALID: %s has %zu public inputs, the verification key %s expects %u\n", \
			       argv[2], npub, argv[1], vk.n_public);                  \
			ret = CZ_EXIT_FALSE;                                          \
			goto out;                                                     \
		}                                                                     \
		if (PFX##groth16_verify(&vk, pub, &p)) {                              \
			printf("OK\n");                                               \
			ret = CZ_EXIT_OK;                                             \
		} else {                                                              \
			printf("INVALID: the pairing equation does not hold (proof, public inputs and key do not match)\n"); \
			ret = CZ_EXIT_FALSE;                                          \
		}                                                                     \
	out:                                                                          \
		fflush(stdout);                                                       \
		free(pub);                                                            \
		PFX##groth16_vk_free(&vk);                                            \
		return ret;                                                           \
	}

VERIFY_FN(verify_bls12_381, cz_, cz_groth16_vk, cz_groth16_proof, cz_fr)
VERIFY_FN(verify_bn254, cz_bn254_, cz_bn254_groth16_vk, cz_bn254_groth16_proof, cz_bn254_fr)

/* The verification key names the curve; the public inputs and the proof
 * must be over the same one (their readers refuse the other, naming both). */
int cz_cmd_verify(int argc, char **argv)
{
	char err[CZ_ERRLEN] = "";
	enum cz_curve curve;

	if (argc != 4 || argv[1][0] == '-' || argv[2][0] == '-' || argv[3][0] == '-') {
		fprintf(stderr, "usage: cuzk verify VK.json PUBLIC.json PROOF.json\n");
		return CZ_EXIT_USAGE;
	}
	if (cz_snarkjs_json_curve(argv[1], &curve, err)) {
		fprintf(stderr, "cuzk verify: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	return curve == CZ_CURVE_BN254 ? verify_bn254(argv) : verify_bls12_381(argv);
}

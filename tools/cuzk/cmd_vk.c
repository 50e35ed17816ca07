/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_vk.c — `cuzk vk ZKEY VK.json`: the verification key of a
 * .zkey, as `snarkjs zkey export verificationkey` writes it, vk_alphabeta_12
 * included.  Only the header and IC section are decoded (checked on the
 * curve and in the subgroup), so a large key exports in milliseconds.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "zk/snarkjs_json.h"
#include "zk/zkey.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int cz_cmd_vk(int argc, char **argv)
{
	char err[CZ_ERRLEN] = "";
	struct cz_groth16_vk vk;
	struct cz_zkey *z;
	int rc;

	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		fprintf(stderr, "usage: cuzk vk ZKEY VK.json\n");
		return CZ_EXIT_USAGE;
	}
	if (!(z = cz_zkey_open_flags(argv[1], 0, err))) {
		fprintf(stderr, "cuzk vk: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	memset(&vk, 0, sizeof(vk));
	rc = cz_zkey_vk(z, &vk, err);
	cz_zkey_close(z);
	for (uint32_t i = 0; !rc && i <= vk.n_public; i++)
		if (!cz_g1_affine_in_subgroup(&vk.ic[i]))
			rc = cz_errf(err, -EINVAL, "%s: IC[%u]: not in the prime-order subgroup",
				     argv[1], i);
	if (!rc) {
		cz_groth16_vk_set_alphabeta(&vk);
		rc = cz_groth16_vk_json_write(argv[2], &vk, err);
	}
	cz_groth16_vk_free(&vk);
	if (rc) {
		fprintf(stderr, "cuzk vk: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	return CZ_EXIT_OK;
}

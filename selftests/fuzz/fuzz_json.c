/* SPDX-License-Identifier: MIT */
/* libFuzzer target: proof.json, public.json and verification_key.json
 * parsers (each input is tried as all three), and the writers on success. */
#include <stdint.h>
#include <stdlib.h>

#include "zk/io/snarkjs_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char err[CZ_ERRLEN];
	struct cz_groth16_proof p;
	struct cz_groth16_vk vk;
	cz_fr *vals = NULL;
	size_t n = 0;

	if (cz_proof_json_parse("fuzz.json", text, size, &p, err) == 0)
		free(cz_proof_json_format(&p, err));
	if (cz_public_json_parse("fuzz.json", text, size, &vals, &n, err) == 0)
		free(cz_public_json_format(vals, n, err));
	free(vals);
	if (cz_groth16_vk_json_parse("fuzz.json", text, size, &vk, err) == 0) {
		free(cz_groth16_vk_json_format(&vk, err));
		cz_groth16_vk_free(&vk);
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzk/cmd_calldata.c — `cuzk calldata PROOF.json PUBLIC.json`: prints
 * what `snarkjs zkey export soliditycalldata PUBLIC.json PROOF.json` prints,
 * the arguments of a Solidity verifier's verifyProof(a, b, c, input):
 *   [a.x, a.y],[[b.x.c1, b.x.c0],[b.y.c1, b.y.c0]],[c.x, c.y],[input...]
 * each a quoted 0x hex number of at least 64 digits (G2 coordinates c1
 * first, as Ethereum's pairing precompile takes them).  For bn128 proofs
 * (the usual case) and BLS12-381 ones alike: the proof's "curve" picks.
 * The files are read with the strict readers (points on their curves and in
 * their subgroups, inputs < r), so what is printed is a valid statement's
 * encoding.  Exit 0, or 2 with a message naming the file and field.
 */
#include "tools/cuzk/cli.h"
#include "tools/cuzk/cmd.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/groth16.h"
#include "zk/io/snarkjs_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "0x" and the big-endian hex of the standard representative, without
 * leading zeros, padded to 64 digits (snarkjs's p256()). */
static void hex_be(const uint8_t *be, size_t n)
{
	static const char d[] = "0123456789abcdef";
	char s[2 * 64 + 1];
	size_t k = 0, i = 0;

	while (i < n && be[i] == 0)
		i++;
	for (; i < n; i++) {
		if (k || be[i] >> 4)
			s[k++] = d[be[i] >> 4];
		s[k++] = d[be[i] & 15];
	}
	s[k] = 0;
	printf("\"0x");
	for (size_t z = k; z < 64; z++)
		putchar('0');
	printf("%s\"", s);
}

/* One body for both curves: J the JSON prefix, F the base field prefix, FB
 * its bytes, R the scalar field, RB its bytes.  Infinity prints as snarkjs's
 * JSON writes it: x = 0, y = 1. */
#define CALLDATA_FN(NAME, J, PROOF, F, FB, R, RB)                                     \
	static void NAME##_fp(const F *a)                                             \
	{                                                                             \
		uint8_t b[FB];                                                        \
		F##_to_bytes_be(b, a);                                                \
		hex_be(b, sizeof(b));                                                 \
	}                                                                             \
	static int NAME(char **argv)                                                  \
	{                                                                             \
		char err[CZ_ERRLEN] = "";                                             \
		struct PROOF p;                                                       \
		R *pub = NULL;                                                        \
		size_t npub = 0;                                                      \
		F one = F##_one, zero = F##_zero;                                     \
                                                                                      \
		if (J##proof_json_read(argv[1], &p, err) ||                           \
		    J##public_json_read(argv[2], &pub, &npub, err)) {                 \
			fprintf(stderr, "cuzk calldata: %s\n", err);                  \
			free(pub);                                                    \
			return CZ_EXIT_USAGE;                                         \
		}                                                                     \
		bool ia = F##_is_zero(&p.a.x) && F##_is_zero(&p.a.y);                 \
		bool ic = F##_is_zero(&p.c.x) && F##_is_zero(&p.c.y);                 \
		bool ib = F##_is_zero(&p.b.x.c0) && F##_is_zero(&p.b.x.c1) &&         \
			  F##_is_zero(&p.b.y.c0) && F##_is_zero(&p.b.y.c1);           \
		printf("[");                                                          \
		NAME##_fp(&p.a.x), printf(", "), NAME##_fp(ia ? &one : &p.a.y);       \
		printf("],[[");                                                       \
		NAME##_fp(&p.b.x.c1), printf(", "), NAME##_fp(&p.b.x.c0);             \
		printf("],[");                                                        \
		NAME##_fp(ib ? &zero : &p.b.y.c1), printf(", ");                      \
		NAME##_fp(ib ? &one : &p.b.y.c0);                                     \
		printf("]],[");                                                       \
		NAME##_fp(&p.c.x), printf(", "), NAME##_fp(ic ? &one : &p.c.y);       \
		printf("],[");                                                        \
		for (size_t i = 0; i < npub; i++) {                                   \
			uint8_t b[RB];                                                \
			R##_to_bytes_be(b, &pub[i]);                                  \
			if (i)                                                        \
				printf(",");                                          \
			hex_be(b, sizeof(b));                                         \
		}                                                                     \
		printf("]\n");                                                        \
		fflush(stdout);                                                       \
		free(pub);                                                            \
		return CZ_EXIT_OK;                                                    \
	}

CALLDATA_FN(calldata_bls12_381, cz_, cz_groth16_proof, cz_fp, CZ_FP_BYTES, cz_fr, CZ_FR_BYTES)
CALLDATA_FN(calldata_bn254, cz_bn254_, cz_bn254_groth16_proof, cz_bn254_fp, CZ_BN254_FP_BYTES,
	    cz_bn254_fr, CZ_BN254_FR_BYTES)

int cz_cmd_calldata(int argc, char **argv)
{
	char err[CZ_ERRLEN] = "";
	enum cz_curve curve;

	if (argc != 3 || argv[1][0] == '-' || argv[2][0] == '-') {
		fprintf(stderr, "usage: cuzk calldata PROOF.json PUBLIC.json\n");
		return CZ_EXIT_USAGE;
	}
	if (cz_snarkjs_json_curve(argv[1], &curve, err)) {
		fprintf(stderr, "cuzk calldata: %s\n", err);
		return CZ_EXIT_USAGE;
	}
	return curve == CZ_CURVE_BN254 ? calldata_bn254(argv) : calldata_bls12_381(argv);
}

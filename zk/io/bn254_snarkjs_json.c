/* SPDX-License-Identifier: MIT */
/*
 * zk/io/bn254_snarkjs_json.c — snarkjs' JSON files for Groth16 over BN254
 * (zk/io/snarkjs_json_tmpl_pvt.h over BN254's types, "bn128").  The prover and
 * the verification equation are zk/groth16/bn254_groth16_prove.c, apart from json-c
 * as BLS12-381's are (the GPU check's build links no json-c: gpu/gpu.mk).
 */
#include "zk/io/snarkjs_json.h"

#include <string.h>

#include "zk/curve/bn254_curve.h"
#include "zk/curve/bn254_pairing.h"

/* snarkjs's vk_alphabeta_12 for bn128 is e(alpha, beta)^lambda,
 * lambda = 2x(6x^2 + 3x + 1) (zk/curve/bn254_pairing.h): 190 bits. */
static void alphabeta_pow(cz_bn254_fp12 *e)
{
	unsigned __int128 x = CZ_BN254_X;
	/* lambda = 2x·(6x^2 + 3x + 1): 6x^2 + 3x + 1 fits 128 bits, the
	 * product three limbs */
	unsigned __int128 q = 6 * x * x + 3 * x + 1;
	uint64_t l[3];
	unsigned __int128 lo = (unsigned __int128)(uint64_t)q * (uint64_t)(2 * x);
	unsigned __int128 hi = (q >> 64) * (uint64_t)(2 * x) + (lo >> 64);
	l[0] = (uint64_t)lo;
	l[1] = (uint64_t)hi;
	l[2] = (uint64_t)(hi >> 64);
	cz_bn254_fp12_pow(e, e, l, 3);
}

#define SJ(n) cz_bn254_##n
#define SJ_FP cz_bn254_fp
#define SJ_FP2 cz_bn254_fp2
#define SJ_FP6 cz_bn254_fp6
#define SJ_FP12 cz_bn254_fp12
#define SJ_FR cz_bn254_fr
#define SJ_G1 cz_bn254_g1
#define SJ_G2 cz_bn254_g2
#define SJ_PROOF cz_bn254_groth16_proof
#define SJ_VK cz_bn254_groth16_vk
#define SJ_PAIRING cz_bn254_pairing
#define SJ_ALPHABETA_POW alphabeta_pow
#define SJ_CURVE_TAG "bn128"
#define SJ_CURVE_NAME "bn128/BN254"
#define SJ_OUR_CURVE(s)                                                              \
	(strcmp((s), "bn128") == 0 || strcmp((s), "bn254") == 0 || strcmp((s), "BN254") == 0)
#define SJ_OTHER_CURVE(s) (strcmp((s), "bls12381") == 0 || strcmp((s), "bls12_381") == 0)
#define SJ_OTHER_NAME "bls12381/BLS12-381"
#include "zk/io/snarkjs_json_tmpl_pvt.h"

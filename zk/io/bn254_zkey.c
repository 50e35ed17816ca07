/* SPDX-License-Identifier: MIT */
/*
 * zk/io/bn254_zkey.c — snarkjs Groth16 .zkey reader and writer for BN254:
 * zk/io/zkey_tmpl_pvt.h over its types (format in zk/io/zkey.h).
 */
#include "zk/io/bn254_zkey.h"

#include "zk/field/bn254_fp2.h"
#include "zk/groth16/bn254_groth16.h"
#include "zk/io/bn254_wtns.h"
#include "zk/io/snarkjs_json.h"

#define ZK(n) cz_bn254_zkey_##n
#define ZK_T cz_bn254_zkey
#define ZK_COEF cz_bn254_zkey_coef
#define ZK_PARTS cz_bn254_zkey_parts
#define ZK_VK cz_bn254_groth16_vk
#define ZK_VK_FREE cz_bn254_groth16_vk_free
#define ZK_FP cz_bn254_fp
#define ZK_FP2 cz_bn254_fp2
#define ZK_FR cz_bn254_fr
#define ZK_G1 cz_bn254_g1
#define ZK_G2 cz_bn254_g2
#define ZK_FP_BYTES CZ_BN254_FP_BYTES
#define ZK_FR_BYTES CZ_BN254_FR_BYTES
#define ZK_PRIME_P CZ_PRIME_BN254_P
#define ZK_PRIME_R CZ_PRIME_BN254_R
#define ZK_WTNS cz_bn254_wtns
#include "zk/io/zkey_tmpl_pvt.h"

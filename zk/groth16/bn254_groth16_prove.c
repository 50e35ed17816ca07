/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/bn254_groth16_prove.c — Groth16 over BN254: the prover
 * (zk/groth16/groth16_tmpl_pvt.h) and the verification equation
 * (zk/groth16/groth16_verify_tmpl_pvt.h), the code BLS12-381's zk/groth16/groth16_prove.c
 * instantiates, over BN254's types.
 */
#include "zk/groth16/bn254_groth16.h"
#include "zk/msm/bn254_msm.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/curve/bn254_pairing.h"

#define GV_NAME cz_bn254_groth16_verify
#define GV_G1 cz_bn254_g1
#define GV_G2 cz_bn254_g2
#define GV_FR cz_bn254_fr
#define GV_PROOF cz_bn254_groth16_proof
#define GV_VK cz_bn254_groth16_vk
#define GV_PAIRING_CHECK cz_bn254_pairing_check
#include "zk/groth16/groth16_verify_tmpl_pvt.h"

#define G16(n) cz_bn254_groth16_##n
#define G16_FR cz_bn254_fr
#define G16_G1 cz_bn254_g1
#define G16_G2 cz_bn254_g2
#define G16_NTT cz_bn254_ntt
#define G16_D cz_bn254_ntt_domain
#define G16_MSM cz_bn254_msm
#include "zk/groth16/groth16_tmpl_pvt.h"

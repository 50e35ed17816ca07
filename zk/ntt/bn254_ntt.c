/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/bn254_ntt.c — the NTT over BN254's Fr: zk/ntt/ntt_tmpl_pvt.h instantiated
 * over cz_bn254_fr (design: zk/ntt/ntt.c), and the device stage's transforms
 * on AVX-512 IFMA, zk/ntt/ntt_vec_tmpl_pvt.h (its design is there).
 */
#include "zk/ntt/bn254_ntt.h"

#include "zk/field/bn254.h"

#define NT_FR cz_bn254_fr
#define NT(n) cz_bn254_ntt_##n
#define NT_DOMAIN cz_bn254_ntt_domain
#define NT_MAX_LOG2 CZ_BN254_NTT_MAX_LOG2
#define NT_VEC 1
#include "zk/ntt/ntt_tmpl_pvt.h"

#define NT_VEC_MOD CZ_BN254_R
#define NT_VEC_ONE CZ_BN254_R_ONE
#define NT_VEC_INV CZ_BN254_R_INV
#include "zk/ntt/ntt_vec_tmpl_pvt.h"

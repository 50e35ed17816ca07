/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/bn254_groth16_setup.c — the INSECURE development setup (design in
 * zk/groth16/groth16_setup.c) over BN254: zk/groth16/groth16_setup_tmpl_pvt.h over its
 * types, so `cuzk devsetup --r1cs` takes circom's bn128 circuits.  Domains
 * up to 2^27 (the coset needs omega_2n; BN254's r - 1 has 28 factors of 2).
 */
#include "zk/groth16/bn254_groth16.h"
#include "zk/groth16/cs.h"
#include "zk/msm/fixed_base.h"

#define SU_G16(n) cz_bn254_groth16_##n
#define SU_CS(n) cz_bn254_cs_##n
#define SU_CS_T cz_bn254_cs
#define SU_FR cz_bn254_fr
#define SU_G1 cz_bn254_g1
#define SU_G2 cz_bn254_g2
#define SU_TWO_ADICITY CZ_BN254_FR_TWO_ADICITY
#include "zk/groth16/groth16_setup_tmpl_pvt.h"

/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/bn254_ntt.c — the NTT over BN254's Fr: zk/ntt/ntt_tmpl_pvt.h instantiated
 * over cz_bn254_fr (design: zk/ntt/ntt.c).
 */
#include "zk/ntt/bn254_ntt.h"

#define NT_FR cz_bn254_fr
#define NT(n) cz_bn254_ntt_##n
#define NT_DOMAIN cz_bn254_ntt_domain
#define NT_MAX_LOG2 CZ_BN254_NTT_MAX_LOG2
#include "zk/ntt/ntt_tmpl_pvt.h"

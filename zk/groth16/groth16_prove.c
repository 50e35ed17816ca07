/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/groth16_prove.c — Groth16 over BLS12-381: the prover
 * (zk/groth16/groth16_tmpl_pvt.h) and the verification equation
 * (zk/groth16/groth16_verify_tmpl_pvt.h), both shared with BN254
 * (zk/groth16/bn254_groth16_prove.c), over BLS12-381's types.
 */
#include "zk/groth16/groth16.h"
#include "zk/ntt/ntt.h"
#include "zk/curve/pairing.h"

#include <stdlib.h>
#include <sys/mman.h>

void *cz_groth16_key_alloc(size_t bytes)
{
	const size_t huge = (size_t)2 << 20;

	if (bytes < huge / 2)
		return malloc(bytes ? bytes : 1);
	size_t n = (bytes + huge - 1) & ~(huge - 1);
	void *p = n >= bytes ? aligned_alloc(huge, n) : NULL;
	if (!p)
		return malloc(bytes);
	(void)madvise(p, n, MADV_HUGEPAGE);     /* advice: refused, p is still fine */
	return p;
}

#define GV_NAME cz_groth16_verify
#define GV_G1 cz_g1
#define GV_G2 cz_g2
#define GV_FR cz_fr
#define GV_PROOF cz_groth16_proof
#define GV_VK cz_groth16_vk
#define GV_PAIRING_CHECK cz_pairing_check
#include "zk/groth16/groth16_verify_tmpl_pvt.h"

#define G16(n) cz_groth16_##n
#define G16_FR cz_fr
#define G16_G1 cz_g1
#define G16_G2 cz_g2
#define G16_NTT cz_ntt
#define G16_D cz_ntt_domain
#define G16_MSM cz_msm
#include "zk/groth16/groth16_tmpl_pvt.h"

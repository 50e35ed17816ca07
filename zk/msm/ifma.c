/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/ifma.c — whether the AVX-512 IFMA vector path runs, and on how many
 * lanes (zk/msm/fp_ifma.h): decided once at start-up from what the CPU can
 * run (zk/msm/ifma_cpu.c) and the environment (CZ_NO_IFMA set to anything but "0" forces
 * the scalar path; CZ_IFMA_LANES=4 or 8 picks the lane count).  Shared by
 * every curve's vector instances: each sets up its own constants when
 * cz_ifma_have_lanes() says yes, and the MSM instances call the flushes
 * below, which pick the instance of the chosen lane count (one indirect
 * call per batch of hundreds of additions).
 * Nothing here is compiled for AVX-512.
 */
#include "zk/msm/fp_ifma.h"

#include <stdlib.h>
#include <string.h>

bool cz_ifma_on;
unsigned cz_ifma_lanes = 8;

/*
 * The default is 8 lanes: on the machine this was measured on (Intel Xeon,
 * AVX-512 with one 512-bit IFMA per instruction) eight lanes won every
 * comparison, Fp throughput and whole MSMs (docs/BENCHMARKS.md, "256- vs
 * 512-bit lanes").  Four lanes stay selectable for CPUs that split 512-bit
 * operations in two (Zen 4) where they may win; CZ_IFMA_LANES=4 picks them.
 */
__attribute__((constructor)) static void ifma_detect(void)
{
	const char *env = getenv("CZ_NO_IFMA"), *lanes = getenv("CZ_IFMA_LANES");

	cz_ifma_on = cz_ifma_have() && !(env && *env && strcmp(env, "0"));
	if (lanes && !strcmp(lanes, "4") && cz_ifma_have_lanes(4))
		cz_ifma_lanes = 4;
}

/* Not thread safe against running MSMs; tests and benches flip it between
 * phases. */
void cz_ifma_force_off(bool off)
{
	cz_ifma_on = cz_ifma_have() && !off;
}

bool cz_ifma_set_lanes(unsigned lanes)
{
	if (!cz_ifma_have_lanes(lanes))
		return false;
	cz_ifma_lanes = lanes;
	return true;
}

#define IFMA_PICK(curve) (cz_ifma_lanes == 4 ? &cz_fpv_##curve##_4 : &cz_fpv_##curve##_8)

static size_t bytes_max(size_t a, size_t b)
{
	return a > b ? a : b;
}

/* The scratch fits either lane count, so a run-time switch between MSMs
 * (tests, benches) never finds a pool slot sized for the other. */
#define IFMA_FLUSH(fn, bytes_fn, curve, grp)                                             \
	void fn(const struct msm_ent *e, uint32_t n, void *bkt, void *scratch)         \
	{                                                                               \
		IFMA_PICK(curve)->grp##_flush(e, n, bkt, scratch);                      \
	}                                                                               \
	size_t bytes_fn(uint32_t n)                                                     \
	{                                                                               \
		if (!cz_ifma_have_lanes(8))                                             \
			return 0;                                                       \
		size_t b = cz_fpv_##curve##_8.grp##_bytes(n);                           \
		if (cz_ifma_have_lanes(4))                                              \
			b = bytes_max(b, cz_fpv_##curve##_4.grp##_bytes(n));            \
		return b;                                                               \
	}

IFMA_FLUSH(cz_msm_g1_flush_ifma, cz_msm_g1_ifma_bytes, bls12_381, g1)
IFMA_FLUSH(cz_msm_g2_flush_ifma, cz_msm_g2_ifma_bytes, bls12_381, g2)
IFMA_FLUSH(cz_bn254_msm_g1_flush_ifma, cz_bn254_msm_g1_ifma_bytes, bn254, g1)
IFMA_FLUSH(cz_bn254_msm_g2_flush_ifma, cz_bn254_msm_g2_ifma_bytes, bn254, g2)

unsigned long cz_msm_ifma_flush_count(void)
{
	const struct cz_fpv_ops *all[] = { &cz_fpv_bls12_381_8, &cz_fpv_bls12_381_4,
					   &cz_fpv_bn254_8, &cz_fpv_bn254_4 };
	unsigned long n = 0;
	/* nothing compiled for AVX-512 runs on a CPU without it, not even this */
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->lanes && cz_ifma_have_lanes(all[i]->lanes))
			n += all[i]->flushes();
	return n;
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/ifma.c — whether the AVX-512 IFMA vector path runs, and on how many
 * lanes (zk/msm/fp_ifma.h): decided once at start-up from what the CPU can
 * run (zk/msm/ifma_cpu.c) and the environment (CZ_NO_IFMA set to anything but "0" forces
 * what a CPU without IFMA runs: the scalar path, or the AVX2 instances when
 * CZ_AVX2 is set to anything but "0" and the CPU has AVX2; CZ_IFMA_LANES=4
 * or 8 picks the IFMA lane count).  Shared by
 * every curve's vector instances: each sets up its own constants when
 * cz_ifma_have_lanes() says yes, and the MSM instances call the flushes
 * below, which pick the instance of the chosen lane count (one indirect
 * call per batch of hundreds of additions).
 * Nothing here is compiled for AVX-512 or AVX2.
 */
#include "zk/msm/fp_ifma.h"

#include <stdlib.h>
#include <string.h>

bool cz_ifma_on;
unsigned cz_ifma_lanes = 8;
bool cz_fpv_avx2;

/*
 * The default is 8 lanes: on the machine this was measured on (Intel Xeon,
 * AVX-512 with one 512-bit IFMA per instruction) eight lanes won every
 * comparison, Fp throughput and whole MSMs (docs/BENCHMARKS.md, "256- vs
 * 512-bit lanes").  Four lanes stay selectable for CPUs that split 512-bit
 * operations in two (Zen 4) where they may win; CZ_IFMA_LANES=4 picks them.
 */
static bool env_set(const char *name)
{
	const char *env = getenv(name);
	return env && *env && strcmp(env, "0");
}

/* IFMA where the CPU has it and CZ_NO_IFMA allows; else AVX2 where the CPU
 * has it and CZ_AVX2 asks for it (opt-in: on the Zen 4 it was measured on,
 * the AVX2 flush beat the mulx/adx one only on BN254 G1, on an Intel Xeon
 * under CZ_NO_IFMA on no group, docs/BENCHMARKS.md; selftests/zk_msm_path_env.sh
 * pins the choice); else the scalar path. */
__attribute__((constructor)) static void ifma_detect(void)
{
	const char *lanes = getenv("CZ_IFMA_LANES");

	cz_ifma_on = cz_ifma_have() && !env_set("CZ_NO_IFMA");
	if (!cz_ifma_on && cz_avx2_have() && env_set("CZ_AVX2"))
		cz_ifma_on = cz_fpv_avx2 = true;
	if (lanes && !strcmp(lanes, "4") && cz_ifma_have_lanes(4))
		cz_ifma_lanes = 4;
}

/* Not thread safe against running MSMs; tests and benches flip it between
 * phases.  off: the scalar path; on: IFMA where the CPU has it (the AVX2
 * instances only through cz_fpv_force_avx2). */
void cz_ifma_force_off(bool off)
{
	cz_fpv_avx2 = false;
	cz_ifma_on = cz_ifma_have() && !off;
}

bool cz_fpv_force_avx2(bool on)
{
	if (on && !cz_avx2_have())
		return false;
	cz_fpv_avx2 = on;
	cz_ifma_on = on || cz_ifma_have();
	return true;
}

bool cz_fpv_usable(const struct cz_fpv_ops *o)
{
	return o->lanes && (o->avx2 ? cz_avx2_have() : cz_ifma_have_lanes(o->lanes));
}

bool cz_ifma_set_lanes(unsigned lanes)
{
	if (!cz_ifma_have_lanes(lanes))
		return false;
	cz_ifma_lanes = lanes;
	return true;
}

#define IFMA_PICK(curve)                                                               \
	(cz_fpv_avx2 ? &cz_fpv_##curve##_avx2                                             \
		     : cz_ifma_lanes == 4 ? &cz_fpv_##curve##_4 : &cz_fpv_##curve##_8)

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
		const struct cz_fpv_ops *all[] = { &cz_fpv_##curve##_8, &cz_fpv_##curve##_4, \
						   &cz_fpv_##curve##_avx2 };                    \
		size_t b = 0;                                                           \
		for (size_t i = 0; i < 3; i++)                                          \
			if (cz_fpv_usable(all[i]))                                      \
				b = bytes_max(b, all[i]->grp##_bytes(n));               \
		return b;                                                               \
	}

IFMA_FLUSH(cz_msm_g1_flush_ifma, cz_msm_g1_ifma_bytes, bls12_381, g1)
IFMA_FLUSH(cz_msm_g2_flush_ifma, cz_msm_g2_ifma_bytes, bls12_381, g2)
IFMA_FLUSH(cz_bn254_msm_g1_flush_ifma, cz_bn254_msm_g1_ifma_bytes, bn254, g1)
IFMA_FLUSH(cz_bn254_msm_g2_flush_ifma, cz_bn254_msm_g2_ifma_bytes, bn254, g2)

unsigned long cz_msm_ifma_flush_count(void)
{
	const struct cz_fpv_ops *all[] = { &cz_fpv_bls12_381_8, &cz_fpv_bls12_381_4,
					   &cz_fpv_bn254_8, &cz_fpv_bn254_4,
					   &cz_fpv_bls12_381_avx2, &cz_fpv_bn254_avx2 };
	unsigned long n = 0;
	/* nothing compiled for AVX-512 runs on a CPU without it, not even this */
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (cz_fpv_usable(all[i]))
			n += all[i]->flushes();
	return n;
}

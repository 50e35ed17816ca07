/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/ifma_cpu.c — what the CPU can run of the AVX-512 IFMA vector path
 * (zk/msm/fp_ifma.h: cz_ifma_have, cz_ifma_have_lanes), from CPUID via the
 * compiler's cpu-model support, which also checks that the OS saves the zmm
 * state.  Asked by the vector instances' constructors (zk/msm/fpv_inst_tmpl_pvt.h)
 * and by zk/msm/ifma.c, which chooses the path and dispatches to the
 * instances; on its own file so that the instances never call ifma.c, which
 * calls them.  Nothing here is compiled for AVX-512.
 */
#include "zk/msm/fp_ifma.h"

static int have8 = -1, have4 = -1, have_avx2 = -1; /* unknown until the first call */

/* Constructors of the instance files and of zk/msm/ifma.c call this in
 * no set order: it decides on first use (start-up is single-threaded). */
static void ifma_probe(void)
{
	if (have8 >= 0)
		return;
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	have8 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
	have4 = have8 && __builtin_cpu_supports("avx512vl");
	have_avx2 = __builtin_cpu_supports("avx2");
#else
	have8 = have4 = have_avx2 = 0;
#endif
}

bool cz_ifma_have(void)
{
	ifma_probe();
	return have8;
}

bool cz_ifma_have_lanes(unsigned lanes)
{
	ifma_probe();
	return lanes == 8 ? have8 : lanes == 4 ? have4 : false;
}

bool cz_avx2_have(void)
{
	ifma_probe();
	return have_avx2;
}

/* SPDX-License-Identifier: MIT */
/*
 * zk/ifma.c — whether the AVX-512 IFMA vector path runs (zk/fp_ifma.h):
 * decided once at start-up from CPUID (via the compiler's cpu-model
 * support, which also checks that the OS saves the zmm state) and the
 * environment (CZ_NO_IFMA set to anything but "0" forces the scalar path).
 * Shared by every curve's vector instance (zk/fp_ifma.c for BLS12-381):
 * each sets up its own constants when cz_ifma_have() says yes.
 * Nothing here is compiled for AVX-512.
 */
#include "zk/fp_ifma.h"

#include <stdlib.h>
#include <string.h>

bool cz_ifma_on;
static int ifma_have = -1; /* unknown until the first call */

/* Constructors of the instance files may call this before ours runs:
 * it decides on first use (start-up is single-threaded). */
bool cz_ifma_have(void)
{
	if (ifma_have < 0) {
#if defined(__x86_64__) && defined(__GNUC__)
		__builtin_cpu_init();
		ifma_have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
		ifma_have = 0;
#endif
	}
	return ifma_have;
}

__attribute__((constructor)) static void ifma_detect(void)
{
	const char *env = getenv("CZ_NO_IFMA");

	cz_ifma_on = cz_ifma_have() && !(env && *env && strcmp(env, "0"));
}

/* Not thread safe against running MSMs; tests and benches flip it between
 * phases. */
void cz_ifma_force_off(bool off)
{
	cz_ifma_on = cz_ifma_have() && !off;
}

/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm_host.c — the device MSM's Horner step on the host (gpu/msm_host.h).
 *
 * Why here: the combination is c·(nwin - 1) doublings and nwin additions in
 * a chain, one thread's work whatever the device; on one device thread it
 * cost 3-6 ms an MSM (issue #14), on a host core with zk/'s arithmetic it is
 * ~0.3 ms, and the device has moved on to the next MSM meanwhile.  The
 * sums arrive as the device's 32-bit-limb XYZZ points, the same bytes as
 * zk/'s (gpu/g1_32.h), so they are copied, not converted.
 */
#include "gpu/msm_host.h"

#include <string.h>

#define COMBINE(NAME, G, T)                                                             \
	void NAME(G##_jac *r, const T *win, unsigned nwin, unsigned c, const T *extra)  \
	{                                                                               \
		G##_xyzz acc, x;                                                        \
		_Static_assert(sizeof(T) == sizeof(G##_xyzz), #T " is " #G "_xyzz");    \
		G##_xyzz_set_inf(&acc);                                                 \
		for (unsigned w = nwin; w-- > 0;) {                                     \
			for (unsigned i = 0; i < c && w + 1 < nwin; i++)                \
				G##_xyzz_dbl(&acc, &acc);                               \
			memcpy(&x, &win[w], sizeof(x));                                 \
			G##_xyzz_add(&acc, &acc, &x);                                   \
		}                                                                       \
		memcpy(&x, extra, sizeof(x));                                           \
		G##_xyzz_add(&acc, &acc, &x);                                           \
		G##_xyzz_to_jac(r, &acc);                                               \
	}

COMBINE(cz_msm32_combine, cz_g1, cz_g1xyzz32)
COMBINE(cz_bn254_msm32_combine, cz_bn254_g1, cz_bn254_g1xyzz32)

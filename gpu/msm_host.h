/* SPDX-License-Identifier: MIT */
/*
 * gpu/msm_host.h — the MSM's last step on the host (gpu/msm_host.c): the
 * windows' combination Σ_w 2^(c·w)·W_w plus the ones' sum, from the nwin + 1
 * XYZZ sums the device copies back (gpu/msm32.h, step 8).  Built with or
 * without CUDA, so the host selftest runs exactly what the device path runs.
 */
#ifndef CZ_GPU_MSM_HOST_H
#define CZ_GPU_MSM_HOST_H

#include "gpu/g1_32.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "zk/curve/bn254_g1.h"
#include "zk/curve/g1.h"

/* r = Σ_{w < nwin} 2^(c·w)·win[w] + extra (win[nwin] in the device's
 * buffer), with zk/'s XYZZ doubling and addition. */
void cz_msm32_combine(cz_g1_jac *r, const cz_g1xyzz32 *win, unsigned nwin, unsigned c,
		      const cz_g1xyzz32 *extra);
void cz_bn254_msm32_combine(cz_bn254_g1_jac *r, const cz_bn254_g1xyzz32 *win, unsigned nwin,
			    unsigned c, const cz_bn254_g1xyzz32 *extra);

#ifdef __cplusplus
}
#endif

#endif

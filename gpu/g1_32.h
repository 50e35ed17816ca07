/* SPDX-License-Identifier: MIT */
/*
 * gpu/g1_32.h — G1 point arithmetic on gpu/field32.h for BLS12-381 (cz_g1*32)
 * and BN254 (cz_bn254_g1*32), for host and device (gpu/g1_32_impl.h, one
 * instance each): what the MSM kernels need (XYZZ bucket accumulators, mixed
 * addition from affine bases, doubling) and Jacobian mixed add/double.
 *
 * The formulas are zk/curve/curve_tmpl_pvt.h's (EFD names below), so a kernel's result
 * can be checked against cz_g1_* on the host point for point.  Layouts match
 * zk/: cz_g1a32 is cz_g1_affine ((0, 0) is infinity), cz_g1xyzz32 is
 * cz_g1_xyzz (ZZ = 0 is infinity), cz_g1jac32 is cz_g1_jac (Z = 0), and
 * the cz_bn254_g1*32 types are zk/curve/bn254_g1.h's the same way.
 *
 * These additions branch on infinity and on P = ±Q: MSM data is public, and
 * in a warp the branches are rare (a bucket meets its own point only when a
 * base repeats).  Every function allows r to alias any input.
 */
#ifndef CZ_GPU_G1_32_H
#define CZ_GPU_G1_32_H

#include "gpu/field32.h"

#define G32(n) cz_g1##n
#define G32_F cz_fp32
#include "gpu/g1_32_impl.h"
#undef G32
#undef G32_F

#define G32(n) cz_bn254_g1##n
#define G32_F cz_bn254_fp32
#include "gpu/g1_32_impl.h"
#undef G32
#undef G32_F

#endif

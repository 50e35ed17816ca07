/* SPDX-License-Identifier: MIT */
/*
 * zk/msm/fpv_curve_pvt.h — a curve's part of a vector-field instance
 * (zk/msm/fpv_inst_tmpl_pvt.h): its base field's scalar form, constants,
 * product and inverse, and its name.  An instance file defines FV_BN254 or
 * FV_BLS12_381, its lanes and limbs (FV_L, FV_N, FV_AVX2 for the plain-AVX2
 * form) and FV_OPS, includes this, then the template: one home for what
 * the eight-lane, four-lane and AVX2 instances of one curve share.
 */
#ifndef CZ_FPV_CURVE_PVT_H
#define CZ_FPV_CURVE_PVT_H

#if defined(FV_BN254)
#include "zk/field/bn254.h"
#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fp2.h"
#define FV_SN CZ_BN254_FP_LIMBS
#define FV_MOD CZ_BN254_P
#define FV_ONE CZ_BN254_P_ONE
#define FV_INV CZ_BN254_P_INV
#define FV_ST cz_bn254_fp
#define FV_ST2 cz_bn254_fp2
#define FV_SMUL cz_bn254_fp_mul
#define FV_SINV cz_bn254_fp_inv_vartime
#define FV_CURVE "bn254"
#elif defined(FV_BLS12_381)
#include "zk/field/bls12_381.h"
#include "zk/field/fp.h"
#include "zk/field/fp2.h"
#define FV_SN CZ_FP_LIMBS
#define FV_MOD CZ_BLS12_381_P
#define FV_ONE CZ_BLS12_381_P_ONE
#define FV_INV CZ_BLS12_381_P_INV
#define FV_ST cz_fp
#define FV_ST2 cz_fp2
#define FV_SMUL cz_fp_mul
#define FV_SINV cz_fp_inv_vartime
#define FV_CURVE "bls12-381"
#else
#error "define FV_BN254 or FV_BLS12_381 before zk/msm/fpv_curve_pvt.h"
#endif

#endif

/* SPDX-License-Identifier: MIT */
/*
 * gpu/field32.h — BLS12-381 Fr (8 limbs) and Fp (12 limbs), and BN254 Fr and
 * Fp (8 limbs each), on 32-bit limbs, for the CUDA kernels and, compiled as
 * plain C, for the host tests that check them against zk/.  Generic code:
 * gpu/field32_impl.h.  Constants come from zk/field/bls12_381.h and zk/field/bn254.h,
 * the one place that holds each curve's.
 *
 * Layout: every element is 16-byte aligned, so the device moves it with
 * 128-bit loads and stores (ld.global.v4: 2 for Fr, 3 for Fp instead of 8
 * and 12); the sizes (32 and 48 bytes) are already multiples of 16, so
 * arrays keep zk/'s stride.  cz_fr32 and cz_fp32 are byte-for-byte the zk/ types cz_fr and
 * cz_fp (same R, little-endian limbs), cz_bn254_fr32 and cz_bn254_fp32
 * those of cz_bn254_fr and cz_bn254_fp, so arrays move between host and
 * device with memcpy and no conversion.  A cz_scalar (standard form) read as
 * cz_fr32 limbs gives the scalar's 32-bit digits directly.
 */
#ifndef CZ_GPU_FIELD32_H
#define CZ_GPU_FIELD32_H

#include "gpu/hd.h"
#include "zk/field/bls12_381.h"
#include "zk/field/bn254.h"

/* 1: the device multiplies with the inline-PTX carry chains (mul_ptx);
 * 0 (default until checked on a GPU): the portable C, as on the host. */
#ifndef CZ_F32_PTX
#define CZ_F32_PTX 0
#endif

#define CZ_FR32_LIMBS 8
#define CZ_FP32_LIMBS 12

typedef struct { CZ_ALIGNAS(16) uint32_t l[CZ_FR32_LIMBS]; } cz_fr32;
typedef struct { CZ_ALIGNAS(16) uint32_t l[CZ_FP32_LIMBS]; } cz_fp32;
CZ_STATIC_ASSERT(sizeof(cz_fr32) == 32 && CZ_ALIGNOF(cz_fr32) == 16, "cz_fr32: cz_fr's bytes, 16-aligned");
CZ_STATIC_ASSERT(sizeof(cz_fp32) == 48 && CZ_ALIGNOF(cz_fp32) == 16, "cz_fp32: cz_fp's bytes, 16-aligned");

#define F32_N CZ_FR32_LIMBS
#define F32_T cz_fr32
#define F32_NAME(n) cz_fr32_##n
#define F32_MOD64 CZ_BLS12_381_R
#define F32_ONE64 CZ_BLS12_381_R_ONE
#define F32_INV64 CZ_BLS12_381_R_INV
#include "gpu/field32_impl.h"
#undef F32_N
#undef F32_T
#undef F32_NAME
#undef F32_MOD64
#undef F32_ONE64
#undef F32_INV64

#define F32_N CZ_FP32_LIMBS
#define F32_T cz_fp32
#define F32_NAME(n) cz_fp32_##n
#define F32_MOD64 CZ_BLS12_381_P
#define F32_ONE64 CZ_BLS12_381_P_ONE
#define F32_INV64 CZ_BLS12_381_P_INV
#include "gpu/field32_impl.h"
#undef F32_N
#undef F32_T
#undef F32_NAME
#undef F32_MOD64
#undef F32_ONE64
#undef F32_INV64

#define CZ_BN254_FR32_LIMBS 8
#define CZ_BN254_FP32_LIMBS 8

typedef struct { CZ_ALIGNAS(16) uint32_t l[CZ_BN254_FR32_LIMBS]; } cz_bn254_fr32;
typedef struct { CZ_ALIGNAS(16) uint32_t l[CZ_BN254_FP32_LIMBS]; } cz_bn254_fp32;
CZ_STATIC_ASSERT(sizeof(cz_bn254_fr32) == 32 && CZ_ALIGNOF(cz_bn254_fr32) == 16, "cz_bn254_fr32: 32 bytes, 16-aligned");
CZ_STATIC_ASSERT(sizeof(cz_bn254_fp32) == 32 && CZ_ALIGNOF(cz_bn254_fp32) == 16, "cz_bn254_fp32: 32 bytes, 16-aligned");

#define F32_N CZ_BN254_FR32_LIMBS
#define F32_T cz_bn254_fr32
#define F32_NAME(n) cz_bn254_fr32_##n
#define F32_MOD64 CZ_BN254_R
#define F32_ONE64 CZ_BN254_R_ONE
#define F32_INV64 CZ_BN254_R_INV
#include "gpu/field32_impl.h"
#undef F32_N
#undef F32_T
#undef F32_NAME
#undef F32_MOD64
#undef F32_ONE64
#undef F32_INV64

#define F32_N CZ_BN254_FP32_LIMBS
#define F32_T cz_bn254_fp32
#define F32_NAME(n) cz_bn254_fp32_##n
#define F32_MOD64 CZ_BN254_P
#define F32_ONE64 CZ_BN254_P_ONE
#define F32_INV64 CZ_BN254_P_INV
#include "gpu/field32_impl.h"
#undef F32_N
#undef F32_T
#undef F32_NAME
#undef F32_MOD64
#undef F32_ONE64
#undef F32_INV64

#endif

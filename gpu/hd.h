/* SPDX-License-Identifier: MIT */
/*
 * gpu/hd.h — the one macro that lets arithmetic be written once for the host
 * and the device.  Under nvcc a CZ_HD function is compiled for both sides and
 * always inlined (the device has no useful call ABI for 12-limb values); in
 * plain C it is an ordinary static inline function, which is how the host
 * selftests run exactly the code the kernels run.
 */
#ifndef CZ_GPU_HD_H
#define CZ_GPU_HD_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define CZ_HD static __host__ __device__ __forceinline__
#else
#define CZ_HD static inline
#endif

/* Point formulas are ~15 inlined field multiplications each; inlining them
 * into every caller makes kernels of 10^5 instructions and crashes cicc
 * (CUDA 13.0).  On the device they are real calls; inline keeps unused
 * copies quiet. */
#if defined(__CUDACC__)
#define CZ_HD_CALL inline __host__ __device__ __noinline__
#else
#define CZ_HD_CALL static inline
#endif
/* nvcc's device pass unrolls with its own pragma; its host pass (EDG, then
 * g++) accepts neither spelling, and its host copies are not hot. */
#if defined(__CUDA_ARCH__)
#define CZ_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define CZ_UNROLL
#else
#define CZ_UNROLL _Pragma("GCC unroll 32")
#endif

/* Layout checks and alignment in both languages (nvcc compiles C++). */
#if defined(__cplusplus)
#define CZ_STATIC_ASSERT(c, m) static_assert(c, m)
#define CZ_ALIGNAS(n) alignas(n)
#define CZ_ALIGNOF(t) alignof(t)
#else
#define CZ_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define CZ_ALIGNAS(n) _Alignas(n)
#define CZ_ALIGNOF(t) _Alignof(t)
#endif

/* The low 32 bits of a 64-bit little-endian constant table, limb i of 32. */
#define CZ_L32(m64, i) ((uint32_t)((m64)[(i) / 2] >> (32 * ((i) % 2))))

#endif

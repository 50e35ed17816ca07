/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_pvt.h — the C interface of the CUDA side (the gpu/ .cu files), for the
 * backend (gpu/cuda.c), the selftests and tools/gpu-check.  Only built with
 * CZ_HAVE_CUDA.  Design statement: gpu/cuda_dev.cu.
 *
 * Every function returns 0 or a negative errno: -ENODEV (no such device, or
 * it is out of service after a sticky error), -ENOMEM (device memory),
 * -EINVAL (sizes), -EIO (a CUDA error; if it was sticky the device is now out
 * of service and says so on stderr).  Calls on one device serialize on its
 * lock; calls on different devices run in parallel.
 */
#ifndef CZ_GPU_CUDA_PVT_H
#define CZ_GPU_CUDA_PVT_H

#include <stddef.h>
#include <stdint.h>

#include "zk/field/bn254_fr.h"
#include "zk/curve/bn254_g1.h"
#include "zk/curve/g1.h"
#include "zk/msm/msm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cz_cuda_dev;

/* Devices present; 0 with the reason in why (no driver, no device). */
int cz_cuda_count(char *why, size_t cap);
/* Opens device index: refuses (NULL, err naming the CUDA error) a device
 * this build's device code cannot run on (compute capability below what
 * gpu/gpu.mk's CUDA_ARCH targets: the kernels would fail every partition
 * while the device stayed in service). */
struct cz_cuda_dev *cz_cuda_open(unsigned index, char *err, size_t cap);
void cz_cuda_close(struct cz_cuda_dev *d);
/* Device index's PCI bus id ("0000:3B:00.0"); 0 or -1. */
int cz_cuda_pci_bus_id(unsigned index, char *buf, size_t cap);
/* "NVIDIA H200 (0000:3b:00.0), 139.8 GiB, 132 SMs" */
const char *cz_cuda_describe(const struct cz_cuda_dev *d);
/* Nonzero once a sticky error took the device out of service. */
int cz_cuda_dead(const struct cz_cuda_dev *d);

/* zk/ntt/ntt.h's transforms on n = 2^log2n host elements, in place, through the
 * device (copy in, transform, copy out).  log2n <= 27.  ms (may be NULL):
 * the kernels' device time (CUDA events; no copies, no table build). */
enum { CZ_CUDA_NTT_FORWARD, CZ_CUDA_NTT_INVERSE, CZ_CUDA_NTT_COSET_FORWARD,
       CZ_CUDA_NTT_COSET_INVERSE, CZ_CUDA_NTT_TO_ODD_COSET };
int cz_cuda_ntt(struct cz_cuda_dev *d, unsigned log2n, cz_fr *a, int op, float *ms);
/* The same over BN254's Fr (zk/ntt/bn254_ntt.h's transforms). */
int cz_cuda_bn254_ntt(struct cz_cuda_dev *d, unsigned log2n, cz_bn254_fr *a, int op, float *ms);

/* r = Σ s[i]·bases[i] through the device; window 0 picks c automatically.
 * ms (may be NULL): device time from after the copies in to the window
 * sums' arrival on the host (CUDA events; the host's Horner step after). */
int cz_cuda_msm_g1(struct cz_cuda_dev *d, cz_g1_jac *r, const cz_g1_affine *bases,
		   const cz_scalar *s, size_t n, unsigned window, float *ms);
int cz_cuda_bn254_msm_g1(struct cz_cuda_dev *d, cz_bn254_g1_jac *r,
			 const cz_bn254_g1_affine *bases, const cz_scalar *s, size_t n,
			 unsigned window, float *ms);

/* Pins [base, base + len) for the devices' copies (cudaHostRegister,
 * portable: every device), once per range; copies from inside a pinned range
 * go straight from it by DMA, others through the driver's staging buffers.
 * 0, or a negative errno with the CUDA error on stderr (the range then stays
 * pageable: slower copies, same results).  Pins every page: call it for
 * regions that are meant to stay resident (the partition arenas, the keys). */
int cz_cuda_host_register(void *base, size_t len);
void cz_cuda_host_unregister(void *base);

/* The device part of one Groth16 partition: the G1 MSMs A, B1, C, H and the
 * three odd-coset NTTs with h = a·b - c.  Key points stay resident, cached
 * by key_id (the key's address) and checked against a fingerprint. */
struct cz_cuda_g16 {
	const void *key_id;
	uint32_t nvars, npc, log2n;     /* npc = npub + 1 */
	const cz_g1_affine *a, *b1, *c, *h;  /* nvars, nvars, nvars - npc, n */
	const cz_scalar *w;             /* nvars, standard form */
	const cz_fr *pa, *pb, *pc;      /* n each, from synthesis */
};
struct cz_cuda_g16_out {
	cz_g1_jac a, b1, c, h;
	/* device time, for gpu-check (CUDA events): copies in (a, b, c, w; a
	 * key's upload is not counted), the NTTs and h, the four MSMs */
	float ms_h2d, ms_ntt, ms_msm;
};
int cz_cuda_groth16(struct cz_cuda_dev *d, const struct cz_cuda_g16 *in,
		    struct cz_cuda_g16_out *out);
/* The same stage over BN254 (a bn128 key): the same kernels, NTT tables and
 * key cache; an entry is a (key_id, curve) pair, so a BN254 key at an
 * address a BLS12-381 key had is uploaded afresh, never read as the other
 * curve's points. */
struct cz_cuda_bn254_g16 {
	const void *key_id;
	uint32_t nvars, npc, log2n;
	const cz_bn254_g1_affine *a, *b1, *c, *h;
	const cz_scalar *w;
	const cz_bn254_fr *pa, *pb, *pc;
};
struct cz_cuda_bn254_g16_out {
	cz_bn254_g1_jac a, b1, c, h;
	float ms_h2d, ms_ntt, ms_msm;
};
int cz_cuda_bn254_groth16(struct cz_cuda_dev *d, const struct cz_cuda_bn254_g16 *in,
			  struct cz_cuda_bn254_g16_out *out);
/* The device's field and point arithmetic on n inputs, for the tests: it
 * isolates an arithmetic fault from a pipeline fault.  Per input, for both
 * curves: Fr and Fp a + b, a - b, a·b, a², and the XYZZ mixed sum p + q; and
 * whether the inline-PTX multiplication (gpu/field32_impl.h) agrees with
 * the portable one. */
struct cz_cuda_arith_in {
	cz_fr fa, fb;
	cz_fp pa, pb;
	cz_g1_xyzz p;
	cz_g1_affine q;
	cz_bn254_fr bfa, bfb;
	cz_bn254_fp bpa, bpb;
	cz_bn254_g1_xyzz bp;
	cz_bn254_g1_affine bq;
};
struct cz_cuda_arith_out {
	cz_fr fr[4];
	cz_fp fp[4];
	cz_g1_xyzz sum;
	cz_bn254_fr bfr[4];
	cz_bn254_fp bfp[4];
	cz_bn254_g1_xyzz bsum;
	/* bit set: the inline-PTX mul differs from the portable one (bits 0-3
	 * BLS12-381 Fr, Fr², Fp, Fp²; 4-7 BN254's) */
	uint64_t ptx_bad, pad;  /* pad: the device's mirror is 16-byte aligned */
};
int cz_cuda_arith(struct cz_cuda_dev *d, const struct cz_cuda_arith_in *in,
		  struct cz_cuda_arith_out *out, size_t n);
/* Drops the resident copy of a key, of either curve (before freeing it). */
void cz_cuda_forget_key(struct cz_cuda_dev *d, const void *key_id);

#ifdef __cplusplus
}
#endif

#endif

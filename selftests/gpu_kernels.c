/* SPDX-License-Identifier: MIT */
/* Description: the CUDA NTT and MSM kernel bodies (gpu/ntt32.h, gpu/msm32.h), both curves, run on the host thread by thread with qsort for CUB's sort, equal zk/'s NTTs, Groth16 quotient and G1 MSM (signed digits, hot-bucket chunks, the host Horner step); k_block's shared layout has no bank conflicts; window, ones-grid and chunk planning. */
#include "gpu/msm32.h"
#include "gpu/msm_host.h"
#include "gpu/ntt32.h"
#include "selftests/cz_test.h"
#include "zk/field/bn254_fr.h"
#include "zk/msm/bn254_msm.h"
#include "zk/ntt/bn254_ntt.h"
#include "zk/msm/msm.h"
#include "zk/ntt/ntt.h"

#include <stdlib.h>
#include <string.h>

CZ_STATIC_ASSERT(_Alignof(cz_fr32) == 16 && _Alignof(cz_fp32) == 16, "16-byte aligned fields");
CZ_STATIC_ASSERT(_Alignof(cz_g1a32) == 16 && sizeof(cz_g1a32) == 96, "affine: 96 bytes, 16-aligned");
CZ_STATIC_ASSERT(_Alignof(cz_bn254_g1xyzz32) == 16 && sizeof(cz_bn254_g1xyzz32) == 128,
		 "BN254 XYZZ: 128 bytes, 16-aligned");

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t rnd(void) /* splitmix64 */
{
	return ct_splitmix64(&rng);
}

static const char *ntt_names[] = { "forward", "inverse", "coset_forward", "coset_inverse",
				   "to_odd_coset" };
enum { FWD, INV, COSET_FWD, COSET_INV, ODD };

struct kv {
	uint32_t k, v;
};

static int kv_cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	return x->k < y->k ? -1 : x->k > y->k;
}

#define KC(n) bls_##n
#define KNAME "BLS12-381"
#define ZF(n) cz_fr_##n
#define ZF_T cz_fr
#define ZF_TOP 0x7fffffffffffffffULL
#define F32T cz_fr32
#define N32(n) cz_ntt32_##n
#define ZN(n) cz_ntt_##n
#define ZN_DOM cz_ntt_domain
#define G32(n) cz_g1##n
#define M32(n) cz_msm32_##n
#define ZG(n) cz_g1_##n
#define ZMSM cz_msm_g1
#define COMBINE cz_msm32_combine
#include "selftests/gpu_kernels_check.h"
#undef KC
#undef KNAME
#undef ZF
#undef ZF_T
#undef ZF_TOP
#undef F32T
#undef N32
#undef ZN
#undef ZN_DOM
#undef G32
#undef M32
#undef ZG
#undef ZMSM
#undef COMBINE

#define KC(n) bn254_##n
#define KNAME "BN254"
#define ZF(n) cz_bn254_fr_##n
#define ZF_T cz_bn254_fr
#define ZF_TOP 0x3fffffffffffffffULL
#define F32T cz_bn254_fr32
#define N32(n) cz_bn254_ntt32_##n
#define ZN(n) cz_bn254_ntt_##n
#define ZN_DOM cz_bn254_ntt_domain
#define G32(n) cz_bn254_g1##n
#define M32(n) cz_bn254_msm32_##n
#define ZG(n) cz_bn254_g1_##n
#define ZMSM cz_bn254_msm_g1
#define COMBINE cz_bn254_msm32_combine
#include "selftests/gpu_kernels_check.h"

/*
 * k_block's shared memory: for every block size 2^B (B <= 10) and stage,
 * each warp's 32 threads load limb k of their butterfly's first element,
 * then of its second: count the distinct words each of the 32 banks serves
 * (the conflict degree; 1 is conflict-free).  The old layout (whole 32-byte
 * elements) is counted too, as the oracle that the counter sees conflicts.
 */
static void bank_tests(void)
{
	unsigned worst = 0, worst_old = 0;

	for (unsigned B = 1; B <= 10; B++)
		for (unsigned hlog = 0; hlog < B; hlog++)
			for (uint32_t w0 = 0; w0 < (1u << (B - 1)); w0 += 32)
				for (unsigned k = 0; k < CZ_NTT32_WORDS; k++)
					for (int second = 0; second < 2; second++) {
						uint32_t words[32][32], nw[32] = { 0 }, nold[32] = { 0 };
						uint32_t wold[32][32];
						for (uint32_t t = w0; t < w0 + 32 && t < (1u << (B - 1)); t++) {
							uint32_t x, y, j;
							cz_ntt32_pair(&x, &y, &j, t, hlog);
							uint32_t e = second ? y : x;
							uint32_t a = cz_ntt32_sh_word(e, k, B), ao = e * 8 + k;
							unsigned bank = a % 32, bo = ao % 32, seen = 0;
							for (unsigned i = 0; i < nw[bank]; i++)
								seen |= words[bank][i] == a;
							if (!seen)
								words[bank][nw[bank]++] = a;
							seen = 0;
							for (unsigned i = 0; i < nold[bo]; i++)
								seen |= wold[bo][i] == ao;
							if (!seen)
								wold[bo][nold[bo]++] = ao;
						}
						for (unsigned i = 0; i < 32; i++) {
							worst = nw[i] > worst ? nw[i] : worst;
							worst_old = nold[i] > worst_old ? nold[i] : worst_old;
						}
					}
	/* and the layout is a bijection: every word of the block used once */
	int dup = 0;
	for (unsigned B = 1; B <= 10; B++) {
		uint8_t *used = calloc((size_t)8 << B, 1);
		for (uint32_t i = 0; i < (1u << B); i++)
			for (unsigned k = 0; k < 8; k++)
				dup += used[cz_ntt32_sh_word(i, k, B)]++ != 0;
		free(used);
	}
	ct_ok(worst == 1 && worst_old >= 8 && !dup,
	      "k_block shared layout: every stage of every block size 2^1 .. 2^10 is bank-conflict free (worst %u-way; whole elements: %u-way; %d words reused)",
	      worst, worst_old, dup);
}

/* The launch planning the host does: window sizes, the ones' grid, chunking. */
static void plan_tests(void)
{
	/* the window: its model's minimum, checked by brute force here */
	int bad = 0;
	for (unsigned lg = 0; lg <= 28; lg++) {
		uint64_t m = (uint64_t)1 << lg;
		unsigned c = cz_msm32_window_bits(m, 255), best = 0;
		double bc = 0;
		for (unsigned x = 8; x <= 20; x++) {
			double cost = (double)((256 + x - 1) / x) * (8.0 * m + 28.0 * (1u << (x - 1)));
			if (!best || cost < bc)
				bc = cost, best = x;
		}
		bad += c != best || c < 8 || c > 20;
		bad += cz_msm32_nwin_bits(c, 255) * c < 256 || (cz_msm32_nwin_bits(c, 255) - 1) * c >= 256;
	}
	ct_ok(!bad && cz_msm32_window_bits(1u << 20, 255) == 16 && cz_msm32_window_bits(1u << 24, 255) == 20,
	      "MSM window: the model's minimum over c = 8 .. 20, nwin·c covers 256 bits; 2^20 -> %u, 2^24 -> %u (%d bad)",
	      cz_msm32_window_bits(1u << 20, 255), cz_msm32_window_bits(1u << 24, 255), bad);

	/* the ones' grid grows with the SM count until 16 points a thread */
	size_t h200 = cz_msm32_ones_threads(132, 128, (size_t)1 << 24);
	size_t small = cz_msm32_ones_threads(8, 128, (size_t)1 << 24);
	ct_ok(h200 == 132u * 4 * 128 && small == 8u * 4 * 128 &&
	      cz_msm32_ones_threads(132, 128, 1000) == 63 && cz_msm32_ones_threads(132, 128, 0) == 1 &&
	      cz_msm32_ones_threads(0, 128, 100) == 7,
	      "ones' grid: 4 blocks of 128 per SM (132 SMs: %zu threads, 8 SMs: %zu), at least 16 points a thread",
	      h200, small);

	/* chunk lookup and levels: against a linear scan */
	uint32_t off[65], nch[64], st[64], en[64], pos = 0;
	bad = 0;
	for (int it = 0; it < 200; it++) {
		for (int b = 0; b < 64; b++) {
			uint32_t len = rnd() % 4 ? (uint32_t)(rnd() % 40) : 0;
			st[b] = pos, en[b] = pos + len, pos += len;
			cz_msm32_nchunks(nch, st, en, (size_t)b, 7);
		}
		for (int b = 0, acc = 0; b <= 64; b++) {
			off[b] = (uint32_t)acc;
			acc += b < 64 ? (int)nch[b] : 0;
		}
		for (uint32_t j = 0; j < off[64]; j++) {
			uint32_t want = 0;
			for (uint32_t b = 0; b < 64; b++)
				if (off[b] <= j && j < off[b + 1])
					want = b;
			bad += cz_msm32_chunk_bucket(off, 64, j) != want;
		}
	}
	ct_ok(!bad && cz_msm32_hot_levels(32, 32) == 0 && cz_msm32_hot_levels(33, 32) == 1 &&
	      cz_msm32_hot_levels(1024, 32) == 1 && cz_msm32_hot_levels(1025, 32) == 2 &&
	      cz_msm32_hot_levels((uint64_t)1 << 28, 32) == 5,
	      "hot-bucket chunks: chunk -> bucket = a linear scan (%d bad), levels for runs 32, 33, 1024, 1025, 2^28",
	      bad);
}

int main(void)
{
	ct_plan(2 * (6 + 15 + 1) + 3 + 1);
	bls_ntt_tests();
	bls_msm_tests();
	bls_digit_tests();
	bn254_ntt_tests();
	bn254_msm_tests();
	bn254_digit_tests();
	bank_tests();
	plan_tests();
	return ct_exit();
}

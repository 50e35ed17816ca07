/* SPDX-License-Identifier: MIT */
/*
 * zk/field/fpv_tmpl_pvt.h — a prime field FV_L elements at a time on AVX-512 IFMA
 * (vpmadd52luq / vpmadd52huq: FV_L 52×52-bit products per instruction),
 * eight lanes in zmm registers or four in ymm ones (AVX-512VL).
 * Private to its includers: the MSM's vector instance files
 * (zk/msm/fpv_inst_tmpl_pvt.h) and BN254's device-stage transforms
 * (zk/ntt/ntt_vec_tmpl_pvt.h); do not include elsewhere.  Compile only
 * between #pragma GCC target("avx512f,avx512ifma") (and "avx512vl" for
 * four lanes) and its pop: the caller checks the CPU
 * (zk/msm/ifma.c, the NTT's own constructor) before any call.
 *
 * The instance defines, then includes this header:
 *   FV_L    lanes: 8 (zmm) or 4 (ymm); everything below is written once over
 *           the lane vector fvw and its fvw_* operations
 *   FV_N    52-bit limbs per element (52·FV_N >= 64·FV_SN)
 *   FV_SN   64-bit limbs of the scalar field (zk/field/field_tmpl_pvt.h) it mirrors
 *   FV_MOD  the modulus, FV_ONE R mod m, FV_INV -m^-1 mod 2^64: the scalar
 *           instance's own constants (zk/field/bls12_381.h, zk/field/bn254.h), nothing
 *           derived by hand
 * and calls fv_setup() once before use.
 *
 * Form: an element is FV_N limbs of 52 bits in FV_N vector registers, lane
 * k of limb j is bit 52j.. of element k.  Limbs are normalized (< 2^52; the
 * top one holds the rest) between operations, since vpmadd52 reads only the
 * low 52 bits of its inputs.  Values are redundant: any integer congruent to
 * the element, with the bound each function states.
 *
 * The Montgomery factor is the scalar field's, R = 2^(64·FV_SN), not
 * 2^(52·FV_N): FV_N 52-bit reduction steps divide by 2^(52·FV_N), so one
 * operand is first shifted left by S = 52·FV_N - 64·FV_SN bits (32 for
 * BLS12-381: 8 limbs, 416 - 384; 4 for BN254: 5 limbs, 260 - 256).  Then the
 * vector product of x·R and y·R is x·y·R like the scalar one, and converting
 * to and from the scalar form is a repacking of bits (no multiplication) at
 * the batch boundaries.
 *
 * Bounds (m the modulus, W = 2^(64·FV_SN)): fv_mul(a, b) needs a < W (so
 * a·2^S fits FV_N limbs) and returns
 *   r = (a·2^S·b + q·m) / 2^(52·FV_N) < a·b/W + m,
 * so r < 2m whenever a·b < m·W.  FV_HEAD = floor(W/m) (9 for BLS12-381,
 * 5 for BN254) says which lazy operands are allowed: a, b < 2m always
 * (4 <= FV_HEAD); a < 2m, b < 4m only when FV_HEAD >= 8.  Callers that
 * form sums check fv_c.head (set once by fv_setup: a perfectly predicted
 * branch) and reduce otherwise.  Checked for both moduli and both lane
 * counts against GMP by selftests/zk_fp_ifma.
 *
 * Cost (8 limbs): a multiplication is 2·64 vpmadd52 for the product, 8 + 128
 * for the reduction and ~40 shifts/adds (the operand shift, carries): about
 * 300 instructions for FV_L products (5 limbs: ~125).  Measured figures,
 * per lane count and curve: docs/BENCHMARKS.md (`cuzk bench fp`,
 * fp_mul_tput8).
 */
#include <immintrin.h>
#include <stdint.h>

/* The lane vector and the operations the field uses, once per lane count:
 * the same instructions on zmm (EVEX.512) or ymm (EVEX.256, AVX-512VL).
 * Masks are __mmask8 for both; with four lanes the top four bits are
 * ignored. */
#define FV_AI static inline __attribute__((always_inline))
#if FV_L == 8
typedef __m512i fvw;
FV_AI fvw fvw_set1(uint64_t v) { return _mm512_set1_epi64((long long)v); }
FV_AI fvw fvw_zero(void) { return _mm512_setzero_si512(); }
FV_AI fvw fvw_add(fvw a, fvw b) { return _mm512_add_epi64(a, b); }
FV_AI fvw fvw_sub(fvw a, fvw b) { return _mm512_sub_epi64(a, b); }
FV_AI fvw fvw_and(fvw a, fvw b) { return _mm512_and_si512(a, b); }
FV_AI fvw fvw_or(fvw a, fvw b) { return _mm512_or_si512(a, b); }
FV_AI fvw fvw_slli(fvw a, unsigned s) { return _mm512_slli_epi64(a, s); }
FV_AI fvw fvw_srli(fvw a, unsigned s) { return _mm512_srli_epi64(a, s); }
FV_AI fvw fvw_srai(fvw a, unsigned s) { return _mm512_srai_epi64(a, s); }
FV_AI fvw fvw_madd52lo(fvw t, fvw a, fvw b) { return _mm512_madd52lo_epu64(t, a, b); }
FV_AI fvw fvw_madd52hi(fvw t, fvw a, fvw b) { return _mm512_madd52hi_epu64(t, a, b); }
FV_AI fvw fvw_mask_add(fvw s, __mmask8 k, fvw a, fvw b) { return _mm512_mask_add_epi64(s, k, a, b); }
FV_AI __mmask8 fvw_test(fvw a, fvw b) { return _mm512_test_epi64_mask(a, b); }
FV_AI __mmask8 fvw_cmplt(fvw a, fvw b) { return _mm512_cmplt_epi64_mask(a, b); }
FV_AI fvw fvw_blend(__mmask8 k, fvw a, fvw b) { return _mm512_mask_blend_epi64(k, a, b); }
FV_AI fvw fvw_loadu(const void *p) { return _mm512_loadu_si512(p); }
FV_AI void fvw_storeu(void *p, fvw a) { _mm512_storeu_si512(p, a); }
FV_AI fvw fvw_gather(__mmask8 k, fvw idx, const void *base)
{
	return _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), k, idx, base, 1);
}
FV_AI void fvw_scatter(void *base, __mmask8 k, fvw idx, fvw a)
{
	_mm512_mask_i64scatter_epi64(base, k, idx, a, 1);
}
#elif FV_L == 4 && defined(FV_AVX2)
/* Plain AVX2 (no AVX-512): the same operations on ymm, the masks emulated
 * (a mask bit k <-> lane k all ones), srai and scatter by hand.  There is no
 * 52-bit multiply: fv_mul below uses vpmuludq on 29-bit limbs instead. */
typedef __m256i fvw;
FV_AI fvw fvw_set1(uint64_t v) { return _mm256_set1_epi64x((long long)v); }
FV_AI fvw fvw_zero(void) { return _mm256_setzero_si256(); }
FV_AI fvw fvw_add(fvw a, fvw b) { return _mm256_add_epi64(a, b); }
FV_AI fvw fvw_sub(fvw a, fvw b) { return _mm256_sub_epi64(a, b); }
FV_AI fvw fvw_and(fvw a, fvw b) { return _mm256_and_si256(a, b); }
FV_AI fvw fvw_or(fvw a, fvw b) { return _mm256_or_si256(a, b); }
FV_AI fvw fvw_slli(fvw a, unsigned s) { return _mm256_slli_epi64(a, (int)s); }
FV_AI fvw fvw_srli(fvw a, unsigned s) { return _mm256_srli_epi64(a, (int)s); }
FV_AI fvw fvw_srai(fvw a, unsigned s) /* (a >>> s ^ sign) - sign, sign = 2^(63-s) */
{
	const fvw g = _mm256_set1_epi64x((long long)(1ull << (63 - s)));
	return _mm256_sub_epi64(_mm256_xor_si256(_mm256_srli_epi64(a, (int)s), g), g);
}
FV_AI fvw fvw_mul32(fvw a, fvw b) { return _mm256_mul_epu32(a, b); }
FV_AI fvw fvw_kvec(__mmask8 k)
{
	const fvw bit = _mm256_set_epi64x(8, 4, 2, 1);
	return _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(k), bit), bit);
}
FV_AI __mmask8 fvw_kof(fvw v) { return (__mmask8)_mm256_movemask_pd(_mm256_castsi256_pd(v)); }
FV_AI fvw fvw_mask_add(fvw s, __mmask8 k, fvw a, fvw b)
{
	return _mm256_blendv_epi8(s, _mm256_add_epi64(a, b), fvw_kvec(k));
}
FV_AI __mmask8 fvw_test(fvw a, fvw b)
{
	return (__mmask8)(fvw_kof(_mm256_cmpeq_epi64(_mm256_and_si256(a, b), fvw_zero())) ^ 0xf);
}
FV_AI __mmask8 fvw_cmplt(fvw a, fvw b) { return fvw_kof(_mm256_cmpgt_epi64(b, a)); }
FV_AI fvw fvw_blend(__mmask8 k, fvw a, fvw b) { return _mm256_blendv_epi8(a, b, fvw_kvec(k)); }
FV_AI fvw fvw_loadu(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
FV_AI void fvw_storeu(void *p, fvw a) { _mm256_storeu_si256((__m256i *)p, a); }
FV_AI fvw fvw_gather(__mmask8 k, fvw idx, const void *base)
{
	return _mm256_mask_i64gather_epi64(fvw_zero(), (const long long *)base, idx, fvw_kvec(k), 1);
}
FV_AI void fvw_scatter(void *base, __mmask8 k, fvw idx, fvw a)
{
	uint64_t i[4], v[4];
	_mm256_storeu_si256((__m256i *)i, idx);
	_mm256_storeu_si256((__m256i *)v, a);
	for (int l = 0; l < 4; l++)
		if (k >> l & 1)
			__builtin_memcpy((char *)base + i[l], &v[l], 8);
}
#elif FV_L == 4
typedef __m256i fvw;
FV_AI fvw fvw_set1(uint64_t v) { return _mm256_set1_epi64x((long long)v); }
FV_AI fvw fvw_zero(void) { return _mm256_setzero_si256(); }
FV_AI fvw fvw_add(fvw a, fvw b) { return _mm256_add_epi64(a, b); }
FV_AI fvw fvw_sub(fvw a, fvw b) { return _mm256_sub_epi64(a, b); }
FV_AI fvw fvw_and(fvw a, fvw b) { return _mm256_and_si256(a, b); }
FV_AI fvw fvw_or(fvw a, fvw b) { return _mm256_or_si256(a, b); }
FV_AI fvw fvw_slli(fvw a, unsigned s) { return _mm256_slli_epi64(a, (int)s); }
FV_AI fvw fvw_srli(fvw a, unsigned s) { return _mm256_srli_epi64(a, (int)s); }
FV_AI fvw fvw_srai(fvw a, unsigned s) { return _mm256_srai_epi64(a, s); }
FV_AI fvw fvw_madd52lo(fvw t, fvw a, fvw b) { return _mm256_madd52lo_epu64(t, a, b); }
FV_AI fvw fvw_madd52hi(fvw t, fvw a, fvw b) { return _mm256_madd52hi_epu64(t, a, b); }
FV_AI fvw fvw_mask_add(fvw s, __mmask8 k, fvw a, fvw b) { return _mm256_mask_add_epi64(s, k, a, b); }
FV_AI __mmask8 fvw_test(fvw a, fvw b) { return _mm256_test_epi64_mask(a, b); }
FV_AI __mmask8 fvw_cmplt(fvw a, fvw b) { return _mm256_cmplt_epi64_mask(a, b); }
FV_AI fvw fvw_blend(__mmask8 k, fvw a, fvw b) { return _mm256_mask_blend_epi64(k, a, b); }
FV_AI fvw fvw_loadu(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
FV_AI void fvw_storeu(void *p, fvw a) { _mm256_storeu_si256((__m256i *)p, a); }
FV_AI fvw fvw_gather(__mmask8 k, fvw idx, const void *base)
{
	return _mm256_mmask_i64gather_epi64(_mm256_setzero_si256(), k, idx, base, 1);
}
FV_AI void fvw_scatter(void *base, __mmask8 k, fvw idx, fvw a)
{
	_mm256_mask_i64scatter_epi64(base, k, idx, a, 1);
}
#else
#error "FV_L must be 8 or 4"
#endif
#define FV_ALL ((__mmask8)((1u << FV_L) - 1))

/* Limb bits: 52 for IFMA, 29 for AVX2's 32x32-bit vpmuludq (fv_mul there
 * sums up to 2·FV_N products of 58 bits in a lane: 2·14·2^58 < 2^63). */
#ifdef FV_AVX2
#define FV_LB 29
#else
#define FV_LB 52
#endif
#define FV_M52 ((1ull << FV_LB) - 1)
#define FV_S (FV_LB * FV_N - 64 * FV_SN)

_Static_assert(FV_S >= 0 && FV_S < FV_LB, "FV_N limbs must cover FV_SN 64-bit ones by < one limb");

typedef struct { fvw l[FV_N]; } fv;

/* Limb loops have a constant trip count: unrolled, the limbs live in
 * registers instead of a stack array. */
#define FV_UNROLL _Pragma("GCC unroll 16")

/* Constants, in 52-bit limbs; fv_setup() derives them from the scalar
 * field's constants so each curve keeps one copy of its numbers. */
static struct {
	uint64_t p[4][FV_N]; /* k·m for k = 1, 2, 4 (index 1, 2, 3; 0 unused) */
	uint64_t one[FV_N];  /* R mod m */
	uint64_t inv;        /* -m^-1 mod 2^52 */
	uint64_t head;       /* floor(W / m) */
} fv_c;

static const uint64_t fv_mod64[FV_SN] = FV_MOD;
static const uint64_t fv_one64[FV_SN] = FV_ONE;

/* 52-bit limb j of the FV_SN-limb integer w. */
static inline uint64_t fv_limb_of(const uint64_t *w, int j)
{
	uint64_t v = 0;
	int bit = FV_LB * j, lo = bit / 64, off = bit % 64;
	if (lo < FV_SN)
		v = w[lo] >> off;
	if (off > 64 - FV_LB && lo + 1 < FV_SN)
		v |= w[lo + 1] << (64 - off);
	return j == FV_N - 1 ? v : v & FV_M52;
}

static void fv_setup(void)
{
	uint64_t k[FV_SN + 1];
	for (int s = 1; s <= 3; s++) { /* k·m = m << (s - 1) */
		unsigned sh = (unsigned)s - 1;
		FV_UNROLL
		for (int i = 0; i < FV_SN; i++)
			k[i] = (fv_mod64[i] << sh) | (sh && i ? fv_mod64[i - 1] >> (64 - sh) : 0);
		FV_UNROLL
		for (int j = 0; j < FV_N; j++)
			fv_c.p[s][j] = fv_limb_of(k, j);
		/* the bit shifted out of the top 64-bit limb (4m < 2^(64·FV_SN)
		 * holds for both curves: m < 2^(64·FV_SN - 2)) */
	}
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		fv_c.one[j] = fv_limb_of(fv_one64, j);
	fv_c.inv = (uint64_t)(FV_INV) & FV_M52;
	/* floor(W / m) from the top limbs: m's top limb and W = 2^(64·FV_SN). */
	unsigned __int128 top = ((unsigned __int128)fv_mod64[FV_SN - 1] << 64) | fv_mod64[FV_SN - 2];
	fv_c.head = (uint64_t)((((unsigned __int128)1) << 127) / ((top >> 1) + 1));
}

static inline fvw fv_b(uint64_t v)
{
	return fvw_set1(v);
}

/* Carries limb j's excess into limb j+1; signed (srai) so a difference
 * with borrows settles too.  The top limb keeps the sign. */
static inline void fv_norm(fv *r)
{
	const fvw m = fv_b(FV_M52);
	FV_UNROLL
	for (int j = 0; j + 1 < FV_N; j++) {
		r->l[j + 1] = fvw_add(r->l[j + 1], fvw_srai(r->l[j], FV_LB));
		r->l[j] = fvw_and(r->l[j], m);
	}
}

/* r = a·b·R^-1 mod m, redundant: r < a·b/W + m (see the bounds atop).
 * a < W, both normalized; r is normalized.  r may alias a or b.
 *
 * Operand scanning with the reduction interleaved: N + 1 accumulators
 * (so nothing spills), per step t += a_i·b, q = t_0·(-m^-1) mod 2^52,
 * t += q·m, t >>= 52.  The step's critical path is q -> one vpmadd52 ->
 * add -> the next q (~9 cycles): t_0's carry out is taken from t_0 itself
 * ((t_0 + lo(q·m_0)) is t_0 rounded up to a multiple of 2^52, so the carry
 * is t_0 >> 52, plus one unless t_0's low 52 bits are zero), not after a
 * vpmadd52 on t_0. */
#ifndef FV_AVX2
/* Always inlined: called, its operands and result go through memory (the
 * NTT's butterflies were 15% slower that way, the MSM's flush 2%). */
FV_AI void fv_mul(fv *r, const fv *a, const fv *b)
{
	const fvw m = fv_b(FV_M52), z = fvw_zero(), one = fv_b(1);
	const fvw inv = fv_b(fv_c.inv);
	fvw t[FV_N + 1], bj[FV_N];

	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		bj[j] = b->l[j];
	FV_UNROLL
	for (int j = 0; j <= FV_N; j++)
		t[j] = z;
	FV_UNROLL
	for (int i = 0; i < FV_N; i++) {
		/* a_i·2^S, limb i of the shifted operand */
		fvw ai = fvw_and(fvw_slli(a->l[i], FV_S), m);
		if (i)
			ai = fvw_or(ai, fvw_srli(a->l[i - 1], 52 - FV_S));
		FV_UNROLL
		for (int j = 0; j < FV_N; j++) {
			t[j] = fvw_madd52lo(t[j], ai, bj[j]);
			t[j + 1] = fvw_madd52hi(t[j + 1], ai, bj[j]);
		}
		fvw q = fvw_madd52lo(z, t[0], inv);
		fvw c = fvw_srli(t[0], 52);
		c = fvw_mask_add(c, fvw_test(t[0], m), c, one);
		/* t = (t + q·m) / 2^52 */
		fvw h0 = fvw_madd52hi(c, q, fv_b(fv_c.p[1][0]));
		FV_UNROLL
		for (int j = 0; j + 1 < FV_N; j++) /* reads t[j+1] before writing it */
			t[j] = fvw_madd52lo(t[j + 1], q, fv_b(fv_c.p[1][j + 1]));
		t[FV_N - 1] = t[FV_N];
		t[FV_N] = z;
		FV_UNROLL
		for (int j = 1; j < FV_N; j++)
			t[j] = fvw_madd52hi(t[j], q, fv_b(fv_c.p[1][j]));
		t[0] = fvw_add(t[0], h0);
	}
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = t[j];
	fv_norm(r);
}
#else
/* The same product on AVX2: 29-bit limbs, whose 58-bit products vpmuludq
 * gives whole, so the lanes just add them up (no lo/hi halves; the sums
 * stay < 2^63, see FV_LB) and only t_0's carry moves per step:
 * t += a_i·b, q = t_0·(-m^-1) mod 2^29, t += q·m (t_0 -> a multiple of
 * 2^29), t = t/2^29 with t_0's carry added to t_1.  The bounds are the IFMA
 * form's (the same Montgomery factor R, the same operand shift by S). */
static inline void fv_mul(fv *r, const fv *a, const fv *b)
{
	const fvw m = fv_b(FV_M52), z = fvw_zero();
	const fvw inv = fv_b(fv_c.inv);
	fvw t[FV_N];

	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		t[j] = z;
	FV_UNROLL
	for (int i = 0; i < FV_N; i++) {
		fvw ai = fvw_and(fvw_slli(a->l[i], FV_S), m);
		if (i)
			ai = fvw_or(ai, fvw_srli(a->l[i - 1], FV_LB - FV_S));
		/* ai "depends" on the row's t_0, and b is read again per row:
		 * else the compiler computes every row's products first and
		 * keeps b's limbs, spilling most of them (two thirds of the
		 * code was stack traffic) */
		__asm__("" : "+x"(ai) : "x"(t[0]) : "memory");
		FV_UNROLL
		for (int j = 0; j < FV_N; j++)
			t[j] = fvw_add(t[j], fvw_mul32(ai, b->l[j]));
		fvw q = fvw_and(fvw_mul32(t[0], inv), m);
		FV_UNROLL
		for (int j = 0; j < FV_N; j++)
			t[j] = fvw_add(t[j], fvw_mul32(q, fv_b(fv_c.p[1][j])));
		fvw c = fvw_srli(t[0], FV_LB);
		FV_UNROLL
		for (int j = 0; j + 1 < FV_N; j++)
			t[j] = t[j + 1];
		t[FV_N - 1] = z;
		t[0] = fvw_add(t[0], c);
	}
	/* every limb is >= 0: carry with logical shifts (fv_norm's srai is
	 * three instructions here, on the chain from one product to the next) */
	FV_UNROLL
	for (int j = 0; j + 1 < FV_N; j++) {
		t[j + 1] = fvw_add(t[j + 1], fvw_srli(t[j], FV_LB));
		r->l[j] = fvw_and(t[j], m);
	}
	r->l[FV_N - 1] = t[FV_N - 1];
}
#endif

FV_AI void fv_sqr(fv *r, const fv *a)
{
	fv_mul(r, a, a);
}

/* r = a + b, not reduced (the bound is the sum's). */
static inline void fv_add(fv *r, const fv *a, const fv *b)
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fvw_add(a->l[j], b->l[j]);
	fv_norm(r);
}

/* r = a + k·m - b for k = 1, 2, 4 (ki = 1, 2, 3): non-negative when b <= k·m. */
static inline void fv_sub(fv *r, const fv *a, const fv *b, int ki)
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fvw_sub(fvw_add(a->l[j], fv_b(fv_c.p[ki][j])), b->l[j]);
	fv_norm(r);
}

/* r = a - k·m where that is >= 0, else a: one step of full reduction
 * (a < 2k·m gives r < k·m). */
static inline void fv_csub(fv *r, const fv *a, int ki)
{
	fv t;
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		t.l[j] = fvw_sub(a->l[j], fv_b(fv_c.p[ki][j]));
	fv_norm(&t);
	__mmask8 neg = fvw_cmplt(t.l[FV_N - 1], fvw_zero());
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fvw_blend(neg, t.l[j], a->l[j]);
}

/* a < 8m to the canonical residue, by halving steps. */
static inline void fv_canon(fv *r, const fv *a, int below /* a < below·m: 1, 2, 4 or 8 */)
{
	*r = *a;
	if (below > 4)
		fv_csub(r, r, 3);
	if (below > 2)
		fv_csub(r, r, 2);
	if (below > 1)
		fv_csub(r, r, 1);
}

static inline void fv_blend(fv *r, __mmask8 k, const fv *a, const fv *b) /* k ? b : a */
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fvw_blend(k, a->l[j], b->l[j]);
}

static inline void fv_set_one(fv *r)
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fv_b(fv_c.one[j]);
}

static inline void fv_set_zero(fv *r)
{
	FV_UNROLL
	for (int j = 0; j < FV_N; j++)
		r->l[j] = fvw_zero();
}

/* From 64-bit limbs (FV_SN words per element; word i of the FV_L lanes in
 * w[i]) to 52-bit limbs: shifts and masks. */
static inline void fv_from64(fv *r, const fvw *w)
{
	const fvw m = fv_b(FV_M52);
	FV_UNROLL
	for (int j = 0; j < FV_N; j++) {
		int bit = FV_LB * j, lo = bit / 64, off = bit % 64;
		fvw v = fvw_zero();
		if (lo < FV_SN)
			v = fvw_srli(w[lo], (unsigned)off);
		if (off > 64 - FV_LB && lo + 1 < FV_SN)
			v = fvw_or(v, fvw_slli(w[lo + 1], (unsigned)(64 - off)));
		r->l[j] = j == FV_N - 1 ? v : fvw_and(v, m);
	}
}

/* Back to 64-bit limbs; a normalized and < W. */
static inline void fv_to64(fvw *w, const fv *a)
{
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++) {
		fvw v = fvw_zero();
		FV_UNROLL
		for (int j = 0; j < FV_N; j++) {
			int sh = FV_LB * j - 64 * i;
			if (sh >= 64 || sh <= -FV_LB)
				continue;
			v = fvw_or(v, sh >= 0 ? fvw_slli(a->l[j], (unsigned)sh)
						       : fvw_srli(a->l[j], (unsigned)-sh));
		}
		w[i] = v;
	}
}

/* Lane k of the result from base + idx[k] (bytes): FV_SN gathers, masked
 * lanes read nothing and are zero. */
static inline void fv_gather(fv *r, __mmask8 k, fvw idx, const void *base)
{
	fvw w[FV_SN];
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++)
		w[i] = fvw_gather(k, idx, (const char *)base + 8 * i);
	fv_from64(r, w);
}

static inline void fv_scatter(void *base, __mmask8 k, fvw idx, const fv *a)
{
	fvw w[FV_SN];
	fv_to64(w, a);
	FV_UNROLL
	for (int i = 0; i < FV_SN; i++)
		fvw_scatter((char *)base + 8 * i, k, idx, w[i]);
}

/* ---- Fp2 = Fp[u]/(u^2 + 1), as pairs ---------------------------------- */

typedef struct { fv c0, c1; } fv2;

/* r = a·b; a, b components < 2m; r components < 2m.  Karatsuba: one sum is
 * reduced so the middle product's operands stay in bounds. */
static inline void fv2_mul(fv2 *r, const fv2 *a, const fv2 *b)
{
	fv m0, m1, sa, sb, s;
	fv_mul(&m0, &a->c0, &b->c0);
	fv_mul(&m1, &a->c1, &b->c1);
	fv_add(&sa, &a->c0, &a->c1);
	fv_csub(&sa, &sa, 2);           /* < 2m */
	fv_add(&sb, &b->c0, &b->c1);    /* < 4m */
	if (fv_c.head < 8)
		fv_csub(&sb, &sb, 2);
	fv_mul(&sa, &sa, &sb);          /* < 2m */
	fv_add(&s, &m0, &m1);           /* < 4m */
	fv_sub(&r->c0, &m0, &m1, 2);    /* < 4m */
	fv_csub(&r->c0, &r->c0, 2);
	fv_sub(&r->c1, &sa, &s, 3);     /* < 6m */
	fv_csub(&r->c1, &r->c1, 3);     /* < 4m */
	fv_csub(&r->c1, &r->c1, 2);
}

/* r = a^2; a components < 2m; r components < 2m.
 * (a0 + a1u)^2 = (a0 + a1)(a0 - a1) + 2·a0·a1·u. */
static inline void fv2_sqr(fv2 *r, const fv2 *a)
{
	fv s, d, t;
	fv_add(&s, &a->c0, &a->c1);
	fv_csub(&s, &s, 2);             /* < 2m */
	fv_sub(&d, &a->c0, &a->c1, 2);  /* < 4m */
	if (fv_c.head < 8)
		fv_csub(&d, &d, 2);
	fv_mul(&t, &a->c0, &a->c1);
	fv_mul(&r->c0, &s, &d);
	fv_add(&r->c1, &t, &t);         /* < 4m */
	fv_csub(&r->c1, &r->c1, 2);
}

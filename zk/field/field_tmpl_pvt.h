/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_tmpl_pvt.h — a prime field in Montgomery form, generic over the limb
 * count.  Private to the field instance files; do not include elsewhere.
 *
 * An instance file (zk/field/fp.c, zk/field/fr.c) defines, then includes this header:
 *   FIELD_N      limb count (64-bit limbs, least significant first)
 *   FIELD_PFX    public name prefix (cz_fp) and FIELD_T, the element type
 *   FIELD_WIDE_T the 2N-limb type of unreduced products (cz_fp_wide)
 *   FIELD_BYTES  encoded size in bytes (<= 8·FIELD_N)
 *   FIELD_MOD, FIELD_ONE, FIELD_R2, FIELD_R3   m, R, R^2, R^3 mod m (limbs)
 *   FIELD_INV    -m^-1 mod 2^64
 *   FIELD_NQR    a small quadratic non-residue (Tonelli–Shanks)
 *   FIELD_ADX_MUL, FIELD_ADX_SQR, FIELD_ADX_MUL_WIDE, FIELD_ADX_REDC
 *                the x86-64 mulx/adx kernels (zk/field/field_x86.h), and
 *   FIELD_X86_ADD, FIELD_X86_DBL, FIELD_X86_SUB, FIELD_X86_NEG
 *                the x86-64 add/sub kernels (zk/field/field_x86_add.h): chosen
 *                here for FIELD_N (4 or 6 limbs) where those headers have
 *                them; an instance may define its own first
 *   FIELD_OMEGA, FIELD_TWO_ADICITY
 *                optional (scalar fields): omega_{2^S} in standard form and
 *                S; defines root_of_unity (zk/field/field_decl_tmpl_pvt.h)
 *
 * Invariants: every element is the fully reduced Montgomery residue a·R mod m
 * (so equality is limb equality and zero is all-zero limbs).  The modulus must
 * leave its top bit clear (m < 2^(64N-1)): the adx kernels' accumulator then
 * needs no extra carry limb and their output is < 2m, reduced by one
 * subtraction (BLS12-381 and BN254 both qualify).
 *
 * Constant time: add/sub/dbl/neg/mul/sqr/eq/is_zero, inv (Fermat with a
 * public exponent) and the encoders.  Variable time, for public data only:
 * inv_vartime, sqrt when m ≡ 1 mod 4 (Tonelli–Shanks), batch_inv's zero
 * test, the decoders' range check and decimal conversion.
 *
 * Lazy reduction: mul_wide (2N-limb product), redc (one reduction of any
 * t < m·R) and wide_sub (mod m·R) let sums of products share a reduction;
 * ext2_mul/ext2_sqr are Fp2's arithmetic (u^2 = -1) built on them.
 *
 * Measured on this project's Intel Xeon build machine (3.0 GHz), dependent
 * chains, adx path (`cuzk bench fp|fr`):
 *   Fp  mul 120 cycles (40 ns; ~100 when independent ones overlap), add 11
 *       and sub 12 (x86 kernels; 19-20 as C),
 *       inv (Fermat) 57k cycles (19 µs), inv_vartime 10k (3.3 µs),
 *       Fp2 mul 355, portable C mul ~175
 *   Fr  mul 67 cycles (22 ns; ~49 overlapped), add/sub 8, inv 21k,
 *       inv_vartime 5.6k
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* The x86-64 kernels of this limb count (none elsewhere, or for another N). */
#include "zk/field/field_x86.h"
#include "zk/field/field_x86_add.h"
#if FIELD_N == 4
#if defined(CZ_X86_MUL4) && !defined(FIELD_ADX_MUL)
#define FIELD_ADX_MUL CZ_X86_MUL4
#define FIELD_ADX_SQR CZ_X86_SQR4
#define FIELD_ADX_MUL_WIDE CZ_X86_MUL_WIDE4
#define FIELD_ADX_REDC CZ_X86_REDC4
#endif
#if defined(CZ_X86_ADD4) && !defined(FIELD_X86_ADD)
#define FIELD_X86_ADD CZ_X86_ADD4
#define FIELD_X86_DBL CZ_X86_DBL4
#define FIELD_X86_SUB CZ_X86_SUB4
#define FIELD_X86_NEG CZ_X86_NEG4
#endif
#elif FIELD_N == 6
#if defined(CZ_X86_MUL6) && !defined(FIELD_ADX_MUL)
#define FIELD_ADX_MUL CZ_X86_MUL6
#define FIELD_ADX_SQR CZ_X86_SQR6
#define FIELD_ADX_MUL_WIDE CZ_X86_MUL_WIDE6
#define FIELD_ADX_REDC CZ_X86_REDC6
#endif
#if defined(CZ_X86_ADD6) && !defined(FIELD_X86_ADD)
#define FIELD_X86_ADD CZ_X86_ADD6
#define FIELD_X86_DBL CZ_X86_DBL6
#define FIELD_X86_SUB CZ_X86_SUB6
#define FIELD_X86_NEG CZ_X86_NEG6
#endif
#endif

/* The limb selects (t & keep) | (d & ~keep) are latency-critical; GCC's SLP
 * vectorizer turns them into SSE shuffles that cost more than they save. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif

#define FI_CAT2(a, b) a##_##b
#define FI_CAT(a, b) FI_CAT2(a, b)
#define F(name) FI_CAT(FIELD_PFX, name)
#define FN FIELD_N

typedef unsigned __int128 fi_u128;

/* Limb loops have a constant trip count; unrolled they become straight
 * adc/sbb chains. */
#define FI_UNROLL _Pragma("GCC unroll 16")

/* The modulus followed by -m^-1 mod 2^64: the adx kernels read both from one
 * pointer (inv at offset 8·N). */
static const struct {
	uint64_t p[FN];
	uint64_t inv;
} fi_m = { FIELD_MOD, FIELD_INV };

#define fi_p (fi_m.p)
static const uint64_t fi_one_l[FN] = FIELD_ONE;
static const uint64_t fi_r2[FN] = FIELD_R2;
static const uint64_t fi_r3[FN] = FIELD_R3;

const FIELD_T F(zero) = { { 0 } };
const FIELD_T F(one) = { FIELD_ONE };

#if defined(__x86_64__) && defined(FIELD_ADX_MUL)
#include "zk/field/field_x86.h"
#define FI_ADX 1
#else
#define FI_ADX 0
#endif

/* ---- limb helpers (branch-free) ---------------------------------------- */

/* One limb of an add-with-carry / subtract-with-borrow chain; *c is 0 or 1.
 * On x86-64 the intrinsics keep the carry in CF, so an unrolled loop is a
 * straight adc (sbb) chain. */
#if defined(__x86_64__)
static inline uint64_t fi_adc(uint64_t a, uint64_t b, unsigned char *c)
{
	unsigned long long r;
	*c = _addcarry_u64(*c, a, b, &r);
	return r;
}

static inline uint64_t fi_sbb(uint64_t a, uint64_t b, unsigned char *c)
{
	unsigned long long r;
	*c = _subborrow_u64(*c, a, b, &r);
	return r;
}
#else
static inline uint64_t fi_adc(uint64_t a, uint64_t b, unsigned char *c)
{
	fi_u128 s = (fi_u128)a + b + *c;
	*c = (unsigned char)(s >> 64);
	return (uint64_t)s;
}

static inline uint64_t fi_sbb(uint64_t a, uint64_t b, unsigned char *c)
{
	fi_u128 s = (fi_u128)a - b - *c;
	*c = (unsigned char)((s >> 64) & 1);
	return (uint64_t)s;
}
#endif

/* r = t + hi·2^(64N), minus m if that is >= m.  Requires t + hi·2^(64N) < 2m. */
static inline void fi_reduce_once(uint64_t r[FN], const uint64_t t[FN], uint64_t hi)
{
	uint64_t d[FN];
	unsigned char bw = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		d[j] = fi_sbb(t[j], fi_p[j], &bw);
	uint64_t keep = (uint64_t)0 - (uint64_t)(hi < bw); /* t < m: keep t */
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		r[j] = (t[j] & keep) | (d[j] & ~keep);
}

static inline bool fi_lt(const uint64_t a[FN], const uint64_t b[FN])
{
	unsigned char bw = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		(void)fi_sbb(a[j], b[j], &bw);
	return bw;
}

static inline uint64_t fi_or(const uint64_t a[FN])
{
	uint64_t o = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		o |= a[j];
	return o;
}

static inline void fi_add_c(uint64_t r[FN], const uint64_t a[FN], const uint64_t b[FN])
{
	uint64_t t[FN];
	unsigned char c = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		t[j] = fi_adc(a[j], b[j], &c);
	fi_reduce_once(r, t, c);
}

static inline void fi_sub_c(uint64_t r[FN], const uint64_t a[FN], const uint64_t b[FN])
{
	uint64_t t[FN];
	unsigned char bw = 0, c = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		t[j] = fi_sbb(a[j], b[j], &bw);
	uint64_t mask = (uint64_t)0 - bw;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		r[j] = fi_adc(t[j], fi_p[j] & mask, &c);
}

static inline void fi_neg_c(uint64_t r[FN], const uint64_t a[FN])
{
	uint64_t nz = fi_or(a);
	uint64_t mask = (uint64_t)0 - (uint64_t)((nz | (0 - nz)) >> 63); /* a != 0 */
	unsigned char bw = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		r[j] = fi_sbb(fi_p[j], a[j], &bw) & mask;
}

/* The x86-64 kernels (zk/field/field_x86_add.h) when the instance names them: one
 * straight carry chain per step instead of GCC's CF save/restore per limb
 * (Fp sub 6.6 -> ~3 ns in a dependent chain).  Base x86-64 only, so they
 * serve the portable path as well; the C versions above stay the oracle's
 * twin on other targets.  Inputs fully reduced. */
#if defined(__x86_64__) && defined(FIELD_X86_ADD)
#define fi_add(r, a, b) FIELD_X86_ADD(r, a, b, fi_p)
#define fi_dbl(r, a) FIELD_X86_DBL(r, a, fi_p)
#define fi_sub(r, a, b) FIELD_X86_SUB(r, a, b, fi_p)
#define fi_neg(r, a) FIELD_X86_NEG(r, a, fi_p)
#else
#define fi_add fi_add_c
#define fi_dbl(r, a) fi_add_c(r, a, a)
#define fi_sub fi_sub_c
#define fi_neg fi_neg_c
#endif

/* ---- Montgomery multiplication ----------------------------------------- */

/* Portable CIOS: one row of a·b[i] then one reduction row per limb, N^2·2
 * 64x64→128 multiplications.  Output < 2m before the final subtraction. */
static inline void fi_mul_port(uint64_t r[FN], const uint64_t a[FN], const uint64_t b[FN])
{
	uint64_t t[FN + 2] = { 0 };
	FI_UNROLL
	for (int i = 0; i < FN; i++) {
		uint64_t c = 0;
		fi_u128 s;
		FI_UNROLL
		for (int j = 0; j < FN; j++) {
			s = (fi_u128)a[j] * b[i] + t[j] + c;
			t[j] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		s = (fi_u128)t[FN] + c;
		t[FN] = (uint64_t)s;
		t[FN + 1] = (uint64_t)(s >> 64);

		uint64_t m = t[0] * fi_m.inv;
		s = (fi_u128)m * fi_p[0] + t[0];
		c = (uint64_t)(s >> 64);
		FI_UNROLL
		for (int j = 1; j < FN; j++) {
			s = (fi_u128)m * fi_p[j] + t[j] + c;
			t[j - 1] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		s = (fi_u128)t[FN] + c;
		t[FN - 1] = (uint64_t)s;
		t[FN] = t[FN + 1] + (uint64_t)(s >> 64);
	}
	fi_reduce_once(r, t, t[FN]);
}

static inline void fi_mul(uint64_t r[FN], const uint64_t a[FN], const uint64_t b[FN])
{
#if FI_ADX
	if (__builtin_expect(cz_field_adx_on, 1)) {
		FIELD_ADX_MUL(r, a, b, fi_m.p);
		return;
	}
#endif
	fi_mul_port(r, a, b);
}

static inline void fi_sqr(uint64_t r[FN], const uint64_t a[FN])
{
#if FI_ADX && defined(FIELD_ADX_SQR)
	if (__builtin_expect(cz_field_adx_on, 1)) {
		FIELD_ADX_SQR(r, a, fi_m.p);
		return;
	}
#endif
	fi_mul(r, a, a);
}

/* ---- lazy reduction: 2N-limb products, one reduction ------------------- */

static inline void fi_mul_wide_port(uint64_t r[2 * FN], const uint64_t a[FN],
				    const uint64_t b[FN])
{
	memset(r, 0, sizeof(uint64_t) * 2 * FN);
	for (int i = 0; i < FN; i++) {
		uint64_t c = 0;
		FI_UNROLL
		for (int j = 0; j < FN; j++) {
			fi_u128 s = (fi_u128)a[j] * b[i] + r[i + j] + c;
			r[i + j] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		r[i + FN] = c;
	}
}

/* The CIOS reduction rows on t's low half, then + t's high half. */
static inline void fi_redc_port(uint64_t r[FN], const uint64_t t[2 * FN])
{
	uint64_t w[FN + 1];
	memcpy(w, t, sizeof(uint64_t) * FN);
	w[FN] = 0;
	for (int i = 0; i < FN; i++) {
		uint64_t m = w[0] * fi_m.inv, c;
		fi_u128 s = (fi_u128)m * fi_p[0] + w[0];
		c = (uint64_t)(s >> 64);
		FI_UNROLL
		for (int j = 1; j < FN; j++) {
			s = (fi_u128)m * fi_p[j] + w[j] + c;
			w[j - 1] = (uint64_t)s;
			c = (uint64_t)(s >> 64);
		}
		s = (fi_u128)w[FN] + c;
		w[FN - 1] = (uint64_t)s;
		w[FN] = (uint64_t)(s >> 64);
	}
	unsigned char c = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		w[j] = fi_adc(w[j], t[FN + j], &c);
	fi_reduce_once(r, w, c);
}

static inline void fi_mul_wide(uint64_t r[2 * FN], const uint64_t a[FN], const uint64_t b[FN])
{
#if FI_ADX && defined(FIELD_ADX_MUL_WIDE)
	if (__builtin_expect(cz_field_adx_on, 1)) {
		FIELD_ADX_MUL_WIDE(r, a, b);
		return;
	}
#endif
	fi_mul_wide_port(r, a, b);
}

static inline void fi_redc(uint64_t r[FN], const uint64_t t[2 * FN])
{
#if FI_ADX && defined(FIELD_ADX_REDC)
	if (__builtin_expect(cz_field_adx_on, 1)) {
		FIELD_ADX_REDC(r, t, fi_m.p);
		return;
	}
#endif
	fi_redc_port(r, t);
}

/* r = a - b mod m·R, for a, b < m·R: adds m·R (m to the high half) on a
 * borrow, so the result stays a valid redc input.  Branch-free. */
static inline void fi_wide_sub(uint64_t r[2 * FN], const uint64_t a[2 * FN],
			       const uint64_t b[2 * FN])
{
	unsigned char bw = 0, c = 0;
	FI_UNROLL
	for (int j = 0; j < 2 * FN; j++)
		r[j] = fi_sbb(a[j], b[j], &bw);
	uint64_t mask = (uint64_t)0 - bw;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		r[FN + j] = fi_adc(r[FN + j], fi_p[j] & mask, &c);
}

/* r = a + b mod m·R, for a, b < m·R: subtracts m·R when the sum reaches it
 * (it is < 2·m·R < 2^(128N)).  Branch-free. */
static inline void fi_wide_add(uint64_t r[2 * FN], const uint64_t a[2 * FN],
			       const uint64_t b[2 * FN])
{
	uint64_t d[FN];
	unsigned char c = 0, bw = 0;
	FI_UNROLL
	for (int j = 0; j < 2 * FN; j++)
		r[j] = fi_adc(a[j], b[j], &c);
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		d[j] = fi_sbb(r[FN + j], fi_p[j], &bw);
	uint64_t keep = (uint64_t)0 - (uint64_t)bw; /* high half < m: keep */
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		r[FN + j] = (r[FN + j] & keep) | (d[j] & ~keep);
}

void F(wide_add)(FIELD_WIDE_T *r, const FIELD_WIDE_T *a, const FIELD_WIDE_T *b)
{
	fi_wide_add(r->l, a->l, b->l);
}

void F(mul_wide)(FIELD_WIDE_T *r, const FIELD_T *a, const FIELD_T *b)
{
	fi_mul_wide(r->l, a->l, b->l);
}

void F(redc)(FIELD_T *r, const FIELD_WIDE_T *t)
{
	fi_redc(r->l, t->l);
}

void F(wide_sub)(FIELD_WIDE_T *r, const FIELD_WIDE_T *a, const FIELD_WIDE_T *b)
{
	fi_wide_sub(r->l, a->l, b->l);
}

/*
 * The quadratic extension by u^2 = -1 (Fp2 for BLS12-381 and BN254), here
 * so the kernels inline into one function:
 *   (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u
 * Karatsuba with lazy reduction: three 2N-limb products combined mod m·R,
 * two reductions.  (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2a0a1 u.
 * Outputs may alias inputs.
 */
void F(ext2_mul)(FIELD_T *r0, FIELD_T *r1, const FIELD_T *a0, const FIELD_T *a1,
		 const FIELD_T *b0, const FIELD_T *b1);
void F(ext2_mul)(FIELD_T *r0, FIELD_T *r1, const FIELD_T *a0, const FIELD_T *a1,
		 const FIELD_T *b0, const FIELD_T *b1)
{
	uint64_t v0[2 * FN], v1[2 * FN], s[2 * FN], sa[FN], sb[FN];
	fi_add(sa, a0->l, a1->l);
	fi_add(sb, b0->l, b1->l);
	fi_mul_wide(v0, a0->l, b0->l);
	fi_mul_wide(v1, a1->l, b1->l);
	fi_mul_wide(s, sa, sb);
	fi_wide_sub(s, s, v0);
	fi_wide_sub(s, s, v1);
	fi_wide_sub(v0, v0, v1);
	fi_redc(r0->l, v0);
	fi_redc(r1->l, s);
}

void F(ext2_sqr)(FIELD_T *r0, FIELD_T *r1, const FIELD_T *a0, const FIELD_T *a1);
void F(ext2_sqr)(FIELD_T *r0, FIELD_T *r1, const FIELD_T *a0, const FIELD_T *a1)
{
	uint64_t s[FN], d[FN], m[FN];
	fi_add(s, a0->l, a1->l);
	fi_sub(d, a0->l, a1->l);
	fi_mul(m, a0->l, a1->l);
	fi_mul(r0->l, s, d);
	fi_add(r1->l, m, m);
}

/* a^e, e public (its bits steer the loop); a fixed 4-bit window. */
static void fi_pow(uint64_t r[FN], const uint64_t a[FN], const uint64_t *e, size_t elimbs)
{
	uint64_t tab[16][FN], acc[FN];
	memcpy(tab[0], fi_one_l, sizeof(tab[0]));
	memcpy(tab[1], a, sizeof(tab[1]));
	for (int i = 2; i < 16; i++)
		fi_mul(tab[i], tab[i - 1], a);
	memcpy(acc, fi_one_l, sizeof(acc));
	bool started = false;
	for (size_t i = elimbs; i-- > 0;) {
		for (int sh = 60; sh >= 0; sh -= 4) {
			unsigned nib = (unsigned)(e[i] >> sh) & 15;
			if (started)
				for (int k = 0; k < 4; k++)
					fi_sqr(acc, acc);
			if (nib) {
				fi_mul(acc, acc, tab[nib]);
				started = true;
			}
		}
	}
	memcpy(r, acc, sizeof(acc));
}

/* e = m - k for a small k (m odd, m > k). */
static void fi_mod_minus(uint64_t e[FN], uint64_t k)
{
	uint64_t bw = k;
	FI_UNROLL
	for (int j = 0; j < FN; j++) {
		fi_u128 s = (fi_u128)fi_p[j] - bw;
		e[j] = (uint64_t)s;
		bw = (uint64_t)(s >> 64) & 1;
	}
}

static void fi_shr(uint64_t a[FN], unsigned s) /* 0 < s < 64 */
{
	FI_UNROLL
	for (int j = 0; j < FN - 1; j++)
		a[j] = (a[j] >> s) | (a[j + 1] << (64 - s));
	a[FN - 1] >>= s;
}

static bool fi_is_one(const uint64_t a[FN])
{
	uint64_t d = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		d |= a[j] ^ fi_one_l[j];
	return d == 0;
}

/* ---- public API --------------------------------------------------------- */

void F(add)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b) { fi_add(r->l, a->l, b->l); }
void F(sub)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b) { fi_sub(r->l, a->l, b->l); }
void F(dbl)(FIELD_T *r, const FIELD_T *a) { fi_dbl(r->l, a->l); }
void F(neg)(FIELD_T *r, const FIELD_T *a) { fi_neg(r->l, a->l); }
void F(mul)(FIELD_T *r, const FIELD_T *a, const FIELD_T *b) { fi_mul(r->l, a->l, b->l); }
void F(sqr)(FIELD_T *r, const FIELD_T *a) { fi_sqr(r->l, a->l); }

bool F(is_zero)(const FIELD_T *a)
{
	return fi_or(a->l) == 0;
}

bool F(is_one)(const FIELD_T *a);
bool F(is_one)(const FIELD_T *a)
{
	return fi_is_one(a->l);
}

bool F(eq)(const FIELD_T *a, const FIELD_T *b)
{
	uint64_t d = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++)
		d |= a->l[j] ^ b->l[j];
	return d == 0;
}

void F(pow)(FIELD_T *r, const FIELD_T *a, const uint64_t *e, size_t elimbs)
{
	fi_pow(r->l, a->l, e, elimbs);
}

void F(inv)(FIELD_T *r, const FIELD_T *a)
{
	uint64_t e[FN];
	fi_mod_minus(e, 2);
	fi_pow(r->l, a->l, e, FN);
}

/* ---- variable-time inversion ------------------------------------------ */

/*
 * Binary GCD with 64-bit approximations (after T. Pornin, "Optimized Binary
 * GCD for Modular Inversion", 2020).  Invariants: a ≡ u·y and b ≡ v·y
 * (mod m), a, b >= 0, starting from a = y, b = m, u = 1, v = 0.  Each outer
 * round runs 31 binary-GCD steps on ā, b̄ (a's and b's low 31 bits and top
 * 33 bits in one word), collecting the steps as factors f, g with
 * |f0|+|g0|, |f1|+|g1| <= 2^31, then applies them to the full values:
 *   a' = (a·f0 + b·g0) / 2^31,   b' = (a·f1 + b·g1) / 2^31   (exact)
 *   u' = (u·f0 + v·g0) / 2^31 mod m, likewise v'   (a 31-bit Montgomery step)
 * a negative a' or b' is negated with its factors.  Each round removes about
 * 31 bits from len(a) + len(b); when a = 0, b = gcd = 1 and v = y^-1.
 * The result is checked with one multiplication; a failed check or too many
 * rounds (never seen; would mean a bug) falls back to Fermat.
 * Cost: ~2·len(m)/31 rounds of 31 branch-free steps and four N-limb
 * linear combinations; about 3x faster than the 1-bit binary GCD.
 */
typedef __int128 fi_i128;

static unsigned fi_bitlen(const uint64_t x[FN])
{
	for (int j = FN - 1; j >= 0; j--)
		if (x[j])
			return 64 * (unsigned)j + 64 - (unsigned)__builtin_clzll(x[j]);
	return 0;
}

/* Bits [s, s + 64) of x, zeros beyond the top. */
static uint64_t fi_bits64(const uint64_t x[FN], unsigned s)
{
	unsigned q = s / 64, r = s % 64;
	uint64_t lo = q < FN ? x[q] : 0, hi = q + 1 < FN ? x[q + 1] : 0;
	return r ? (lo >> r) | (hi << (64 - r)) : lo;
}

/* w (N+1 limbs, two's complement) = x·f + y·g for x, y < 2^(64N). */
static void fi_lincomb(uint64_t w[FN + 1], const uint64_t x[FN], int64_t f,
		       const uint64_t y[FN], int64_t g)
{
	fi_i128 c = 0;
	FI_UNROLL
	for (int j = 0; j < FN; j++) {
		c += (fi_i128)x[j] * f + (fi_i128)y[j] * g;
		w[j] = (uint64_t)c;
		c >>= 64; /* arithmetic: GCC defines >> on negative values */
	}
	w[FN] = (uint64_t)c;
}

static void fi_neg_wide(uint64_t w[FN + 1])
{
	unsigned char bw = 0;
	for (int j = 0; j <= FN; j++)
		w[j] = fi_sbb(0, w[j], &bw);
}

/* r = |x·f + y·g| / 2^31, exact; returns -1 if the sum was negative, 1 if
 * not, 0 if the quotient does not fit N limbs (a bug: caller falls back). */
static int fi_gcd_update(uint64_t r[FN], const uint64_t x[FN], int64_t f,
			 const uint64_t y[FN], int64_t g)
{
	uint64_t w[FN + 1];
	int sign = 1;
	fi_lincomb(w, x, f, y, g);
	if ((int64_t)w[FN] < 0) {
		fi_neg_wide(w);
		sign = -1;
	}
	if (w[0] & 0x7fffffff || w[FN] >> 31)
		return 0;
	for (int j = 0; j < FN; j++)
		r[j] = (w[j] >> 31) | (w[j + 1] << 33);
	return sign;
}

/* r = (x·f + y·g) / 2^31 mod m, for x, y < m and |f| + |g| <= 2^31. */
static void fi_mod_update(uint64_t r[FN], const uint64_t x[FN], int64_t f,
			  const uint64_t y[FN], int64_t g)
{
	uint64_t w[FN + 1], km[FN + 1];
	unsigned char c = 0;
	fi_lincomb(w, x, f, y, g);
	/* k = -w / m mod 2^31, so that w + k·m ≡ 0 mod 2^31 */
	int64_t k = (int64_t)((w[0] * fi_m.inv) & 0x7fffffff);
	fi_lincomb(km, fi_p, k, fi_p, 0);
	for (int j = 0; j <= FN; j++)
		w[j] = fi_adc(w[j], km[j], &c);
	/* arithmetic shift by 31: now -m < w < 2m */
	for (int j = 0; j < FN; j++)
		r[j] = (w[j] >> 31) | (w[j + 1] << 33);
	int64_t top = (int64_t)w[FN] >> 31;
	if (top < 0) { /* r + m, which is < m and wraps the sign away */
		c = 0;
		for (int j = 0; j < FN; j++)
			r[j] = fi_adc(r[j], fi_p[j], &c);
	} else if (!fi_lt(r, fi_p)) {
		c = 0;
		for (int j = 0; j < FN; j++)
			r[j] = fi_sbb(r[j], fi_p[j], &c);
	}
}

void F(inv_vartime)(FIELD_T *r, const FIELD_T *in)
{
	uint64_t a[FN], b[FN], u[FN] = { 1 }, v[FN] = { 0 }, na[FN], nb[FN], nu[FN];
	static const uint64_t one_raw[FN] = { 1 };

	if (fi_or(in->l) == 0) {
		memset(r->l, 0, sizeof(r->l));
		return;
	}
	memcpy(a, in->l, sizeof(a)); /* y = the Montgomery residue A = x·R */
	memcpy(b, fi_p, sizeof(b));
	for (int round = 0; round < 4 * FN + 8; round++) {
		if (fi_or(a) == 0) {
			if (memcmp(b, one_raw, sizeof(b)))
				break;
			/* v = A^-1; A^-1 · R^3 / R = x^-1·R.  r may alias in. */
			uint64_t x[FN], t[FN];
			fi_mul(x, v, fi_r3);
			fi_mul(t, x, in->l);
			if (!fi_is_one(t))
				break;
			memcpy(r->l, x, sizeof(x));
			return;
		}
		unsigned n = fi_bitlen(a), nb_ = fi_bitlen(b);
		n = n > nb_ ? n : nb_;
		n = n > 64 ? n : 64;
		uint64_t xa = (a[0] & 0x7fffffff) | (fi_bits64(a, n - 33) << 31);
		uint64_t xb = (b[0] & 0x7fffffff) | (fi_bits64(b, n - 33) << 31);
		int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
		for (int i = 0; i < 31; i++) {
			uint64_t odd = (uint64_t)0 - (xa & 1);
			uint64_t sw = odd & ((uint64_t)0 - (uint64_t)(xa < xb));
			uint64_t t = (xa ^ xb) & sw;
			xa ^= t, xb ^= t;
			int64_t tf = (f0 ^ f1) & (int64_t)sw, tg = (g0 ^ g1) & (int64_t)sw;
			f0 ^= tf, f1 ^= tf, g0 ^= tg, g1 ^= tg;
			xa -= xb & odd;
			f0 -= f1 & (int64_t)odd;
			g0 -= g1 & (int64_t)odd;
			xa >>= 1;
			f1 *= 2, g1 *= 2;
		}
		int sa = fi_gcd_update(na, a, f0, b, g0);
		int sb = fi_gcd_update(nb, a, f1, b, g1);
		if (!sa || !sb)
			break;
		f0 *= sa, g0 *= sa, f1 *= sb, g1 *= sb;
		fi_mod_update(nu, u, f0, v, g0);
		fi_mod_update(v, u, f1, v, g1);
		memcpy(u, nu, sizeof(u));
		memcpy(a, na, sizeof(a));
		memcpy(b, nb, sizeof(b));
	}
	/* unreachable unless the GCD above is wrong; the tests watch the count */
	atomic_fetch_add_explicit(&cz_field_inv_fallbacks, 1, memory_order_relaxed);
	F(inv)(r, in);
}

int F(legendre)(const FIELD_T *a)
{
	uint64_t e[FN], t[FN];
	fi_mod_minus(e, 1);
	fi_shr(e, 1);
	fi_pow(t, a->l, e, FN);
	if (fi_or(t) == 0)
		return 0;
	return fi_is_one(t) ? 1 : -1;
}

bool F(sqrt)(FIELD_T *r, const FIELD_T *a)
{
	uint64_t e[FN], x[FN], t[FN];

	if ((fi_p[0] & 3) == 3) {
		/* m ≡ 3 mod 4: a^((m+1)/4) is a root iff a is a square. */
		fi_mod_minus(e, 0);
		e[0] += 1; /* m odd: no carry */
		fi_shr(e, 2);
		fi_pow(x, a->l, e, FN);
		fi_sqr(t, x);
		if (memcmp(t, a->l, sizeof(t)))
			return false;
		memcpy(r->l, x, sizeof(x));
		return true;
	}

	/* Tonelli–Shanks: m - 1 = 2^s · q, q odd. */
	if (fi_or(a->l) == 0) {
		memset(r->l, 0, sizeof(r->l));
		return true;
	}
	uint64_t q[FN], w[FN], b[FN], c[FN], g[FN], z[FN];
	unsigned s = 0;
	fi_mod_minus(q, 1);
	while (!(q[0] & 1)) {
		fi_shr(q, 1);
		s++;
	}
	memcpy(e, q, sizeof(e));
	fi_shr(e, 1); /* (q - 1) / 2 */
	fi_pow(w, a->l, e, FN);
	fi_mul(x, a->l, w); /* a^((q+1)/2) */
	fi_mul(b, x, w);    /* a^q */
	{
		FIELD_T nqr;
		F(from_u64)(&nqr, FIELD_NQR);
		fi_pow(c, nqr.l, q, FN); /* a primitive 2^s-th root of unity */
	}
	unsigned mm = s;
	while (!fi_is_one(b)) {
		unsigned i = 0;
		memcpy(z, b, sizeof(z));
		while (!fi_is_one(z)) {
			fi_sqr(z, z);
			if (++i == mm)
				return false; /* b's order is 2^mm: a is a non-residue */
		}
		memcpy(g, c, sizeof(g));
		for (unsigned j = 0; j + i + 1 < mm; j++)
			fi_sqr(g, g);
		fi_mul(x, x, g);
		fi_sqr(c, g);
		fi_mul(b, b, c);
		mm = i;
	}
	memcpy(r->l, x, sizeof(x));
	return true;
}

/* Montgomery's trick: prefix products, one inversion, walk back.  Zeros are
 * skipped (and stay zero).  Cost: 3(n-1) mul + one inv. */
void F(batch_inv)(FIELD_T *out, const FIELD_T *in, size_t n, FIELD_T *scratch)
{
	uint64_t acc[FN], t[FN];
	memcpy(acc, fi_one_l, sizeof(acc));
	for (size_t i = 0; i < n; i++) {
		memcpy(scratch[i].l, acc, sizeof(acc));
		if (fi_or(in[i].l))
			fi_mul(acc, acc, in[i].l);
	}
	uint64_t e[FN];
	fi_mod_minus(e, 2);
	fi_pow(acc, acc, e, FN);
	for (size_t i = n; i-- > 0;) {
		if (!fi_or(in[i].l)) {
			memset(out[i].l, 0, sizeof(out[i].l));
			continue;
		}
		fi_mul(t, acc, scratch[i].l);
		fi_mul(acc, acc, in[i].l); /* read in[i] before out[i] may overwrite it */
		memcpy(out[i].l, t, sizeof(t));
	}
}

void F(from_u64)(FIELD_T *r, uint64_t v)
{
	uint64_t raw[FN] = { v };
	fi_mul(r->l, raw, fi_r2); /* v < m for every field we build */
}

bool F(to_mont)(FIELD_T *r, const uint64_t raw[FN])
{
	if (!fi_lt(raw, fi_p))
		return false;
	fi_mul(r->l, raw, fi_r2);
	return true;
}

void F(from_mont)(uint64_t raw[FN], const FIELD_T *a)
{
	static const uint64_t one_raw[FN] = { 1 };
	fi_mul(raw, a->l, one_raw);
}

bool F(is_odd)(const FIELD_T *a)
{
	uint64_t raw[FN];
	F(from_mont)(raw, a);
	return raw[0] & 1;
}

/* y > (m-1)/2 for the standard representative y, i.e. y > -y as integers. */
bool F(lexicographically_largest)(const FIELD_T *a);
bool F(lexicographically_largest)(const FIELD_T *a)
{
	uint64_t raw[FN], half[FN];
	F(from_mont)(raw, a);
	memcpy(half, fi_p, sizeof(half));
	fi_shr(half, 1); /* (m-1)/2, m odd */
	return fi_lt(half, raw);
}

/* ---- encodings ---------------------------------------------------------- */

/* Little-endian bytes <-> limbs.  On a little-endian host with no padding
 * (FIELD_BYTES = 8·FN, every field here) that is a copy: the byte loop was
 * ~3% of a one-shot proof's CPU (reading the key's points, issue 26). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FI_LE_COPY (FIELD_BYTES == 8 * FN)
#else
#define FI_LE_COPY 0
#endif

static void fi_load_le(uint64_t l[FN], const uint8_t *b)
{
	if (FI_LE_COPY) {
		memcpy(l, b, sizeof(uint64_t) * FN);
		return;
	}
	memset(l, 0, sizeof(uint64_t) * FN);
	for (int i = 0; i < FIELD_BYTES; i++)
		l[i / 8] |= (uint64_t)b[i] << (8 * (i % 8));
}

static void fi_store_le(uint8_t *b, const uint64_t l[FN])
{
	if (FI_LE_COPY) {
		memcpy(b, l, sizeof(uint64_t) * FN);
		return;
	}
	for (int i = 0; i < FIELD_BYTES; i++)
		b[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

bool F(from_bytes_le_mont)(FIELD_T *r, const uint8_t b[FIELD_BYTES])
{
	uint64_t l[FN];
	fi_load_le(l, b);
	if (!fi_lt(l, fi_p))
		return false;
	memcpy(r->l, l, sizeof(l));
	return true;
}

void F(to_bytes_le_mont)(uint8_t b[FIELD_BYTES], const FIELD_T *a)
{
	fi_store_le(b, a->l);
}

bool F(from_bytes_le)(FIELD_T *r, const uint8_t b[FIELD_BYTES])
{
	uint64_t l[FN];
	fi_load_le(l, b);
	return F(to_mont)(r, l);
}

void F(to_bytes_le)(uint8_t b[FIELD_BYTES], const FIELD_T *a)
{
	uint64_t raw[FN];
	F(from_mont)(raw, a);
	fi_store_le(b, raw);
}

bool F(from_bytes_be)(FIELD_T *r, const uint8_t b[FIELD_BYTES])
{
	uint8_t le[FIELD_BYTES];
	for (int i = 0; i < FIELD_BYTES; i++)
		le[i] = b[FIELD_BYTES - 1 - i];
	return F(from_bytes_le)(r, le);
}

void F(to_bytes_be)(uint8_t b[FIELD_BYTES], const FIELD_T *a)
{
	uint8_t le[FIELD_BYTES];
	F(to_bytes_le)(le, a);
	for (int i = 0; i < FIELD_BYTES; i++)
		b[i] = le[FIELD_BYTES - 1 - i];
}

/* Decimal digits only (no sign, no spaces); leading zeros are accepted;
 * false for an empty string or a value >= m. */
bool F(from_dec)(FIELD_T *r, const char *s)
{
	uint64_t acc[FN] = { 0 };
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		uint64_t c = (uint64_t)(*s - '0');
		FI_UNROLL
		for (int j = 0; j < FN; j++) {
			fi_u128 t = (fi_u128)acc[j] * 10 + c;
			acc[j] = (uint64_t)t;
			c = (uint64_t)(t >> 64);
		}
		if (c)
			return false; /* >= 2^(64N) > m */
	}
	return F(to_mont)(r, acc);
}

/* Like snprintf: returns the length of the full string even when cap is too
 * small, in which case s gets the empty string (if cap > 0). */
size_t F(to_dec)(char *s, size_t cap, const FIELD_T *a)
{
	static const uint64_t chunk = 10000000000000000000ULL; /* 10^19 */
	char buf[FN * 20 + 1];
	size_t pos = sizeof(buf);
	uint64_t x[FN];

	F(from_mont)(x, a);
	buf[--pos] = 0;
	for (;;) {
		uint64_t rem = 0;
		FI_UNROLL
		for (int j = FN - 1; j >= 0; j--) {
			fi_u128 cur = ((fi_u128)rem << 64) | x[j];
			x[j] = (uint64_t)(cur / chunk);
			rem = (uint64_t)(cur % chunk);
		}
		bool last = fi_or(x) == 0;
		for (int d = 0; d < 19; d++) {
			buf[--pos] = (char)('0' + rem % 10);
			rem /= 10;
			if (last && rem == 0)
				break;
		}
		if (last)
			break;
	}
	size_t len = sizeof(buf) - 1 - pos;
	if (cap > len)
		memcpy(s, buf + pos, len + 1);
	else if (cap > 0)
		s[0] = 0;
	return len;
}

#ifdef FIELD_OMEGA
/* omega_{2^k} = omega_{2^S}^(2^(S-k)): S - k squarings, k = 0 gives 1. */
void F(root_of_unity)(FIELD_T *r, unsigned k)
{
	static const uint64_t w[FN] = FIELD_OMEGA;
	if (k > FIELD_TWO_ADICITY)
		k = FIELD_TWO_ADICITY; /* callers check; never an invalid element */
	F(to_mont)(r, w);
	for (unsigned i = k; i < FIELD_TWO_ADICITY; i++)
		fi_sqr(r->l, r->l);
}
#endif

#undef F
#undef FN
#undef fi_p

/* SPDX-License-Identifier: MIT */
/*
 * gpu/field32_impl.h — a Montgomery prime field on 32-bit limbs, written once
 * for host and device (CZ_HD), generic over the limb count.  Private to
 * gpu/field32.h, which includes it once per field after defining:
 *   F32_N        limb count (32-bit limbs, least significant first)
 *   F32_T        the element type, struct { uint32_t l[F32_N]; }
 *   F32_NAME(n)  the name of operation n (cz_fp32_##n)
 *   F32_MOD64    the modulus as zk/field/bls12_381.h writes it (64-bit limbs)
 *   F32_INV64    -m^-1 mod 2^64 (its low half is -m^-1 mod 2^32)
 *
 * Why 32-bit limbs: the GPU multiplies 32x32->64 natively (mul.wide / mad.hi);
 * 64-bit products are emulated with four of them.  R = 2^(32·N) equals zk/'s
 * R = 2^(64·N/2), so a zk/ element and its F32 twin are the same bytes on a
 * little-endian host: converting is a reinterpretation, never arithmetic.
 *
 * Invariants, as in zk/field/field_tmpl_pvt.h: elements are fully reduced (< m); the
 * modulus leaves the top bit clear, so CIOS's result is < 2m and one
 * conditional subtraction reduces it.  Every function is branch-free in the
 * values (selects by mask), so warps do not diverge inside the arithmetic.
 *
 * Cost: mul is the CIOS loop, 2N^2 + N 32x32 multiplies (Fp: 300, Fr: 136);
 * add/sub are 2N adds and a select.  The carry chains are portable C over
 * uint64_t, which nvcc turns into mad.wide / add.cc sequences.
 */
#ifndef F32_NAME
#error "gpu/field32_impl.h is private to gpu/field32.h"
#endif

#define F32_M(i) CZ_L32(f32_m64, i)
#define F32_MOD_DECL const uint64_t f32_m64[] = F32_MOD64

/* r = t - m if t + hi·2^(32N) >= m, else t; needs t + hi·2^(32N) < 2m. */
CZ_HD void F32_NAME(reduce_once)(F32_T *r, const F32_T *t, uint32_t hi)
{
	F32_MOD_DECL;
	uint32_t d[F32_N];
	uint64_t bw = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		uint64_t s = (uint64_t)t->l[j] - F32_M(j) - bw;
		d[j] = (uint32_t)s;
		bw = (s >> 32) & 1;
	}
	uint32_t keep = (uint32_t)0 - (uint32_t)(hi < bw); /* t < m: keep t */
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		r->l[j] = (t->l[j] & keep) | (d[j] & ~keep);
}

CZ_HD void F32_NAME(add)(F32_T *r, const F32_T *a, const F32_T *b)
{
	F32_T t;
	uint64_t c = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		uint64_t s = (uint64_t)a->l[j] + b->l[j] + c;
		t.l[j] = (uint32_t)s;
		c = s >> 32;
	}
	F32_NAME(reduce_once)(r, &t, (uint32_t)c);
}

CZ_HD void F32_NAME(dbl)(F32_T *r, const F32_T *a)
{
	F32_NAME(add)(r, a, a);
}

/* a - b, plus m when that borrowed. */
CZ_HD void F32_NAME(sub)(F32_T *r, const F32_T *a, const F32_T *b)
{
	F32_MOD_DECL;
	F32_T t;
	uint64_t bw = 0, c = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		uint64_t s = (uint64_t)a->l[j] - b->l[j] - bw;
		t.l[j] = (uint32_t)s;
		bw = (s >> 32) & 1;
	}
	uint32_t mask = (uint32_t)0 - (uint32_t)bw;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		uint64_t s = (uint64_t)t.l[j] + (F32_M(j) & mask) + c;
		r->l[j] = (uint32_t)s;
		c = s >> 32;
	}
}

CZ_HD int F32_NAME(is_zero)(const F32_T *a)
{
	uint32_t o = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		o |= a->l[j];
	return o == 0;
}

CZ_HD int F32_NAME(eq)(const F32_T *a, const F32_T *b)
{
	uint32_t o = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		o |= a->l[j] ^ b->l[j];
	return o == 0;
}

/* m - a, and 0 for 0. */
CZ_HD void F32_NAME(neg)(F32_T *r, const F32_T *a)
{
	F32_MOD_DECL;
	uint32_t nz = (uint32_t)0 - (uint32_t)!F32_NAME(is_zero)(a);
	uint64_t bw = 0;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		uint64_t s = (uint64_t)F32_M(j) - a->l[j] - bw;
		r->l[j] = (uint32_t)s & nz;
		bw = (s >> 32) & 1;
	}
}

/*
 * Montgomery product a·b·R^-1 mod m, CIOS (coarsely integrated operand
 * scanning): for each limb of b, add a·b_i into t, then add q·m with
 * q = t_0·(-m^-1) so t_0 becomes 0, and shift t down one limb.  t has N + 2
 * limbs; every step's product plus two carries fits a uint64_t.
 */
CZ_HD void F32_NAME(mul_port)(F32_T *r, const F32_T *a, const F32_T *b)
{
	F32_MOD_DECL;
	const uint32_t inv = (uint32_t)(F32_INV64);
	uint32_t t[F32_N + 2];
	CZ_UNROLL
	for (int j = 0; j < F32_N + 2; j++)
		t[j] = 0;
	CZ_UNROLL
	for (int i = 0; i < F32_N; i++) {
		uint64_t c = 0, s;
		CZ_UNROLL
		for (int j = 0; j < F32_N; j++) {
			s = (uint64_t)a->l[j] * b->l[i] + t[j] + c;
			t[j] = (uint32_t)s;
			c = s >> 32;
		}
		s = (uint64_t)t[F32_N] + c;
		t[F32_N] = (uint32_t)s;
		t[F32_N + 1] = (uint32_t)(s >> 32);
		uint32_t q = t[0] * inv;
		s = (uint64_t)q * F32_M(0) + t[0];
		c = s >> 32;
		CZ_UNROLL
		for (int j = 1; j < F32_N; j++) {
			s = (uint64_t)q * F32_M(j) + t[j] + c;
			t[j - 1] = (uint32_t)s;
			c = s >> 32;
		}
		s = (uint64_t)t[F32_N] + c;
		t[F32_N - 1] = (uint32_t)s;
		t[F32_N] = t[F32_N + 1] + (uint32_t)(s >> 32);
	}
	F32_T lo;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		lo.l[j] = t[j];
	F32_NAME(reduce_once)(r, &lo, t[F32_N]);
}

#if defined(__CUDA_ARCH__)
/*
 * The same CIOS with the device's carry flag (PTX add.cc/madc): each row
 * adds the low halves of the products with one carry chain and the high
 * halves, one limb up, with a second.  The chains run across consecutive
 * asm volatile statements, which nvcc keeps in order and does not separate
 * by flag-setting instructions (a fully unrolled loop of register
 * operands); cz_cuda_arith checks it against mul_port on the device.
 *
 * The operands are copied into locals first.  asm volatile is a barrier
 * to the compiler's memory model: an operand read through a pointer after
 * one is read again after every statement, since the asm might have
 * written it.  Read straight from *a and *b, the XYZZ mixed add compiled
 * to 1814 loads against the portable path's 85, and k_segment spilled;
 * from locals, every limb is loaded once (docs/BENCHMARKS.md, "PTX loads").
 * Selected by CZ_F32_PTX=1 once a GPU session has seen that check pass.
 */
__device__ __forceinline__ void F32_NAME(mul_ptx)(F32_T *r, const F32_T *a, const F32_T *b)
{
	F32_MOD_DECL;
	const uint32_t inv = (uint32_t)(F32_INV64);
	uint32_t t[F32_N + 2], al[F32_N], bl[F32_N], ml[F32_N];
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++) {
		al[j] = a->l[j];
		bl[j] = b->l[j];
		ml[j] = F32_M(j);
	}
	CZ_UNROLL
	for (int j = 0; j < F32_N + 2; j++)
		t[j] = 0;
	CZ_UNROLL
	for (int i = 0; i < F32_N; i++) {
		uint32_t bi = bl[i], q;
		/* t[0..N+1] += a·b_i (t[N+1] is free at the top of a row) */
		asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(al[0]), "r"(bi));
		CZ_UNROLL
		for (int j = 1; j < F32_N; j++)
			asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(al[j]), "r"(bi));
		t[F32_N + 1] = 0;
		asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[F32_N]));
		asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[F32_N + 1]));
		asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(al[0]), "r"(bi));
		CZ_UNROLL
		for (int j = 1; j < F32_N; j++)
			asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(al[j]), "r"(bi));
		asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[F32_N + 1]));
		/* t += q·m, which zeroes t[0]; then t >>= 32 */
		q = t[0] * inv;
		asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(q), "r"(ml[0]));
		CZ_UNROLL
		for (int j = 1; j < F32_N; j++)
			asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(q), "r"(ml[j]));
		asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[F32_N]));
		asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[F32_N + 1]));
		asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(q), "r"(ml[0]));
		CZ_UNROLL
		for (int j = 1; j < F32_N; j++)
			asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(q), "r"(ml[j]));
		asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[F32_N + 1]));
		CZ_UNROLL
		for (int j = 0; j <= F32_N; j++)
			t[j] = t[j + 1];
	}
	F32_T lo;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		lo.l[j] = t[j];
	F32_NAME(reduce_once)(r, &lo, t[F32_N]);
}
#endif

CZ_HD void F32_NAME(mul)(F32_T *r, const F32_T *a, const F32_T *b)
{
#if defined(__CUDA_ARCH__) && CZ_F32_PTX
	F32_NAME(mul_ptx)(r, a, b);
#else
	F32_NAME(mul_port)(r, a, b);
#endif
}

CZ_HD void F32_NAME(sqr)(F32_T *r, const F32_T *a)
{
	F32_NAME(mul)(r, a, a);
}

/* Standard form a·R^-1: the Montgomery product with the integer 1. */
CZ_HD void F32_NAME(from_mont)(F32_T *r, const F32_T *a)
{
	F32_T one;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		one.l[j] = j == 0;
	F32_NAME(mul)(r, a, &one);
}

/* 1 in Montgomery form is R mod m; the including file gives it as F32_ONE64. */
CZ_HD void F32_NAME(set_one)(F32_T *r)
{
	const uint64_t one64[] = F32_ONE64;
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		r->l[j] = CZ_L32(one64, j);
}

CZ_HD void F32_NAME(set_zero)(F32_T *r)
{
	CZ_UNROLL
	for (int j = 0; j < F32_N; j++)
		r->l[j] = 0;
}

#undef F32_M
#undef F32_MOD_DECL

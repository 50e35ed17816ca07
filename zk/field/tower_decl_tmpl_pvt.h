/* SPDX-License-Identifier: MIT */
/*
 * zk/field/tower_decl_tmpl_pvt.h — the API of the pairing tower Fp2 -> Fp6 -> Fp12,
 * declared once for both curves (BLS12-381 in zk/field/fp6.h, zk/field/fp12.h; BN254
 * in zk/field/bn254_fp12.h).  zk/field/fp6_tmpl_pvt.h and zk/field/fp12_tmpl_pvt.h define it.
 *
 * Fp6 = Fp2[v]/(v^3 - xi), element c0 + c1·v + c2·v^2; Fp12 = Fp6[w]/
 * (w^2 - v), element c0 + c1·w.  Since w^6 = v^3 = xi, an Fp12 element is
 * also sum g_i·w^i (i < 6) over Fp2 with g0 = c0.c0, g1 = c1.c0,
 * g2 = c0.c1, g3 = c1.c1, g4 = c0.c2, g5 = c1.c2; the Frobenius maps and
 * the line functions are written in that view.  Values are always fully
 * reduced; every function accepts aliasing of r with any input.
 *
 * Fp6: mul (6 Fp2 mul), sqr (2 mul + 3 sqr), mul_by_v (times v), the
 * sparse products for line functions mul_by_01 (b = b0 + b1·v, 5 Fp2 mul)
 * and mul_by_1 (b = b1·v, 3), inv (inv(0) = 0), frobenius(a, k) = a^(p^k).
 * Fp12: mul (18 Fp2 mul), sqr, conj (a^(p^6), the inverse in GT), inv,
 * pow (public e, variable time), frobenius(a, k) = a^(p^k) (any k), the
 * line products mul_by_014 (l0 + l1·w^2 + l4·w^3: an M-type twist's line)
 * and mul_by_034 (l0 + l3·w + l4·w^3: a D-type twist's), and
 * cyclotomic_sqr: squaring in the cyclotomic subgroup {a : a^(p^4 - p^2 +
 * 1) = 1}, where every value lands after the final exponentiation's easy
 * part (Granger–Scott, 9 Fp2 sqr instead of 12 Fp2 mul; garbage for other
 * elements).  FROB(k) (declared with Fp6, its first user) returns the curve's gamma_k[i] = xi^(i·(p^k - 1)/6),
 * i < 6, k = 1, 2, 3 (computed once, on first use):
 * (g·w^i)^(p^k) = frob^k(g)·gamma_k[i]·w^i.
 */
#ifndef CZ_TOWER_DECL_H
#define CZ_TOWER_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_FP6_DECLARE(P6, P2, FROB)                                                      \
	typedef struct { P2 c0, c1, c2; } P6;                                         \
	extern const P6 P6##_zero;                                                    \
	void P6##_set_one(P6 *r);                                                     \
	void P6##_add(P6 *r, const P6 *a, const P6 *b);                               \
	void P6##_sub(P6 *r, const P6 *a, const P6 *b);                               \
	void P6##_dbl(P6 *r, const P6 *a);                                            \
	void P6##_neg(P6 *r, const P6 *a);                                            \
	void P6##_mul(P6 *r, const P6 *a, const P6 *b);                               \
	void P6##_sqr(P6 *r, const P6 *a);                                            \
	void P6##_mul_by_v(P6 *r, const P6 *a);                                       \
	void P6##_mul_by_01(P6 *r, const P6 *a, const P2 *b0, const P2 *b1);          \
	void P6##_mul_by_1(P6 *r, const P6 *a, const P2 *b1);                         \
	void P6##_inv(P6 *r, const P6 *a);                                            \
	void P6##_frobenius(P6 *r, const P6 *a, unsigned k);                          \
	bool P6##_is_zero(const P6 *a);                                               \
	bool P6##_eq(const P6 *a, const P6 *b);                                       \
	const P2 *FROB(unsigned k)

#define CZ_FP12_DECLARE(P12, P6, P2)                                                  \
	typedef struct { P6 c0, c1; } P12;                                            \
	extern const P12 P12##_zero;                                                  \
	void P12##_set_one(P12 *r);                                                   \
	void P12##_add(P12 *r, const P12 *a, const P12 *b);                           \
	void P12##_sub(P12 *r, const P12 *a, const P12 *b);                           \
	void P12##_mul(P12 *r, const P12 *a, const P12 *b);                           \
	void P12##_sqr(P12 *r, const P12 *a);                                         \
	void P12##_conj(P12 *r, const P12 *a);                                        \
	void P12##_inv(P12 *r, const P12 *a);                                         \
	void P12##_pow(P12 *r, const P12 *a, const uint64_t *e, size_t elimbs);       \
	void P12##_frobenius(P12 *r, const P12 *a, unsigned k);                       \
	void P12##_mul_by_014(P12 *r, const P12 *a, const P2 *l0, const P2 *l1,       \
			      const P2 *l4);                                          \
	void P12##_mul_by_034(P12 *r, const P12 *a, const P2 *l0, const P2 *l3,       \
			      const P2 *l4);                                          \
	void P12##_cyclotomic_sqr(P12 *r, const P12 *a);                              \
	bool P12##_is_zero(const P12 *a);                                             \
	bool P12##_is_one(const P12 *a);                                              \
	bool P12##_eq(const P12 *a, const P12 *b)

#endif

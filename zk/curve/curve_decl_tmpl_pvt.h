/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/curve_decl_tmpl_pvt.h — the API of one curve group, declared once for every
 * group (BLS12-381 G1 and G2 in zk/curve/g1.h, zk/curve/g2.h; BN254's in zk/curve/bn254_g1.h,
 * zk/curve/bn254_g2.h).  zk/curve/curve_tmpl_pvt.h defines the formulas; each group's .c
 * file adds what is special to it (the subgroup check, cofactor clearing).
 *
 * CZ_CURVE_DECLARE(G, F, S) declares, over the coordinate field F and the
 * scalar field S, the point types
 *   G_affine (x, y)          (0, 0) is infinity (not on the curve, and how
 *                            .zkey files store it)
 *   G_jac    (X, Y, Z)       x = X/Z^2, y = Y/Z^3; Z = 0 is infinity
 *   G_xyzz   (X, Y, ZZ, ZZZ) x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; ZZ = 0 is
 *                            infinity (the MSM's bucket accumulator)
 * the generator G_generator, and the functions; all accept infinity
 * anywhere and let the result alias any input:
 *   affine_on_curve / jac_on_curve   infinity: true
 *   affine_in_subgroup               on the curve and r·P = O
 *   jac_batch_to_affine              one inversion for n points
 *   mul(r, p, k)                     k·P for a scalar field element k;
 *                                    constant time in k
 *   mul_vartime(r, p, k, nlimbs)     k·P for a PUBLIC integer k (little-
 *                                    endian limbs); variable time
 *   clear_cofactor                   h·P: maps any curve point into the
 *                                    subgroup
 */
#ifndef CZ_CURVE_DECL_H
#define CZ_CURVE_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_CURVE_DECLARE(G, F, S)                                                     \
	typedef struct { F x, y; } G##_affine;                                        \
	typedef struct { F x, y, z; } G##_jac;                                        \
	typedef struct { F x, y, zz, zzz; } G##_xyzz;                                 \
	extern const G##_affine G##_generator;                                        \
	bool G##_affine_is_inf(const G##_affine *p);                                  \
	bool G##_affine_eq(const G##_affine *a, const G##_affine *b);                 \
	void G##_affine_neg(G##_affine *r, const G##_affine *p);                      \
	bool G##_affine_on_curve(const G##_affine *p);                                \
	bool G##_affine_in_subgroup(const G##_affine *p);                             \
	void G##_jac_set_inf(G##_jac *r);                                             \
	bool G##_jac_is_inf(const G##_jac *p);                                        \
	void G##_jac_from_affine(G##_jac *r, const G##_affine *p);                    \
	void G##_jac_to_affine(G##_affine *r, const G##_jac *p);                      \
	void G##_jac_batch_to_affine(G##_affine *r, const G##_jac *p, size_t n);      \
	bool G##_jac_eq(const G##_jac *a, const G##_jac *b);                          \
	void G##_jac_neg(G##_jac *r, const G##_jac *p);                               \
	void G##_jac_dbl(G##_jac *r, const G##_jac *p);                               \
	void G##_jac_add(G##_jac *r, const G##_jac *a, const G##_jac *b);             \
	void G##_jac_add_affine(G##_jac *r, const G##_jac *a, const G##_affine *b);   \
	void G##_mul(G##_jac *r, const G##_jac *p, const S *k);                       \
	void G##_xyzz_set_inf(G##_xyzz *r);                                           \
	void G##_xyzz_add_affine(G##_xyzz *r, const G##_xyzz *a, const G##_affine *b); \
	void G##_xyzz_add(G##_xyzz *r, const G##_xyzz *a, const G##_xyzz *b);         \
	void G##_xyzz_dbl(G##_xyzz *r, const G##_xyzz *p);                            \
	void G##_xyzz_to_jac(G##_jac *r, const G##_xyzz *p);                          \
	bool G##_jac_on_curve(const G##_jac *p);                                      \
	bool G##_xyzz_is_inf(const G##_xyzz *p);                                      \
	bool G##_jac_eq_affine(const G##_jac *a, const G##_affine *b);                \
	bool G##_xyzz_eq(const G##_xyzz *a, const G##_xyzz *b);                       \
	void G##_xyzz_neg(G##_xyzz *r, const G##_xyzz *p);                            \
	void G##_xyzz_from_affine(G##_xyzz *r, const G##_affine *p);                  \
	void G##_jac_to_xyzz(G##_xyzz *r, const G##_jac *p);                          \
	void G##_mul_vartime(G##_jac *r, const G##_jac *p, const uint64_t *k,         \
			     size_t nlimbs);                                          \
	void G##_clear_cofactor(G##_jac *r, const G##_jac *p)

#endif

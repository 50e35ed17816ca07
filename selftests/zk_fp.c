/* Description: Fp (BLS12-381 base field) arithmetic, sqrt, inversion and encodings vs GMP, on both multiplication paths. */
/* SPDX-License-Identifier: MIT */
#include "zk/field/fp.h"

#define FT cz_fp
#define FT_PFX cz_fp
#define FT_LIMBS CZ_FP_LIMBS
#define FT_BYTES CZ_FP_BYTES
/* p from the BLS12-381 specification */
#define FT_MOD_HEX                                                                      \
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fe" \
	"ffffffffaaab"
#include "selftests/zk_field_check.h"

/* Residue M of a (limbs as an integer), to check full reduction. */
static void residue(mpz_t z, const cz_fp *a)
{
	mpz_import(z, CZ_FP_LIMBS, -1, 8, 0, 0, a->l);
}

/* cz_fp_add_lazy: a + b < 2p unreduced, and cz_fp_mul_lazy: a·b < 2p, then mul/sqr (library and inline
 * forms) of such operands, up to the extremes 2p-2 and 2p-1, must give the
 * fully reduced product.  Expected: (Ma·R^-1)(Mb·R^-1) mod p from GMP. */
static void lazy(const char *path)
{
	mpz_t x, y, w, t, ma, mb;
	cz_fp a, b, la, lb, r;
	int bad = 0, badsum = 0, badlz = 0;
	mpz_inits(x, y, w, t, ma, mb, NULL);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i % NEDGE == 3 ? 3 : (i < NEDGE ? i : NEDGE));
		fc_value(y, i % 3 == 0 ? 3 : NEDGE);
		fc_set(&a, x);
		fc_set(&b, y);
		cz_fp_add_lazy(&la, &a, &b);
		residue(ma, &la), residue(t, &a), residue(w, &b);
		mpz_add(t, t, w);
		badsum += mpz_cmp(ma, t) != 0;
		if (i % 4 == 0) { /* the largest residue: 2p - 1 */
			mpz_mul_2exp(ma, fc_m, 1), mpz_sub_ui(ma, ma, 1);
			mpz_export(la.l, NULL, -1, 8, 0, 0, ma);
		}
		fc_value(x, NEDGE), fc_set(&a, x);
		fc_value(y, i % 5 == 0 ? 3 : NEDGE), fc_set(&b, y);
		cz_fp_add_lazy(&lb, &a, &b);
		residue(mb, &lb);
		mpz_mul(w, ma, mb), mpz_mul(w, w, fc_Rinv), mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m);
		cz_fp_mul(&r, &la, &lb);
		bad += !fc_eq(&r, w) || (residue(t, &r), mpz_cmp(t, fc_m) >= 0);
		cz_fp_mul_inl(&r, &la, &lb);
		bad += !fc_eq(&r, w) || (residue(t, &r), mpz_cmp(t, fc_m) >= 0);
		mpz_mul(w, ma, ma), mpz_mul(w, w, fc_Rinv), mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m);
		cz_fp_sqr(&r, &la);
		bad += !fc_eq(&r, w) || (residue(t, &r), mpz_cmp(t, fc_m) >= 0);
		cz_fp_sqr_inl(&r, &la);
		bad += !fc_eq(&r, w) || (residue(t, &r), mpz_cmp(t, fc_m) >= 0);
		cz_fp_sqr_lazy(&r, &la);
		mpz_mul_2exp(t, fc_m, 1);
		badlz += !fc_eq(&r, w) || (residue(mb, &r), mpz_cmp(mb, t) >= 0);
		residue(mb, &lb);
		/* mul_lazy: the right value, residue < 2p, and a valid operand */
		mpz_mul(w, ma, mb), mpz_mul(w, w, fc_Rinv), mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m);
		cz_fp lz;
		cz_fp_mul_lazy(&lz, &la, &lb);
		mpz_mul_2exp(t, fc_m, 1);
		badlz += !fc_eq(&lz, w) || (residue(mb, &lz), mpz_cmp(mb, t) >= 0);
		mpz_mul(w, mb, mb), mpz_mul(w, w, fc_Rinv), mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m);
		cz_fp_mul_lazy(&r, &lz, &lz);
		cz_fp_mul(&r, &r, &lz);
		mpz_mul(w, w, mb), mpz_mul(w, w, fc_Rinv), mpz_mod(w, w, fc_m);
		badlz += !fc_eq(&r, w) || (residue(t, &r), mpz_cmp(t, fc_m) >= 0);
	}
	ct_ok(!badlz, "%s: mul_lazy, sqr_lazy of operands < 2p: right value, residue < 2p, and a mul operand (%d bad)",
	      path, badlz);
	ct_ok(!badsum, "%s: add_lazy is the plain integer sum of the residues (%d bad)", path, badsum);
	ct_ok(!bad, "%s: mul/sqr (and _inl) of unreduced operands < 2p are exact and reduced (%d bad)",
	      path, bad);
	mpz_clears(x, y, w, t, ma, mb, NULL);
}

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 1 + 6);
	ct_ok(mpz_sizeinbase(fc_m, 2) == 381 && mpz_probab_prime_p(fc_m, 30) &&
		      mpz_fdiv_ui(fc_m, 4) == 3,
	      "the test's p is a 381-bit prime, 3 mod 4");
	field_checks_both_paths();
	if (cz_fp_have_adx()) {
		lazy("adx");
	} else {
		ct_skip("CPU lacks BMI2/ADX", "adx lazy sum");
		ct_skip("CPU lacks BMI2/ADX", "adx lazy product");
		ct_skip("CPU lacks BMI2/ADX", "adx mul_lazy");
	}
	cz_field_force_portable(true);
	lazy("portable");
	cz_field_force_portable(false);
	return ct_exit();
}

/* Description: BN254 Fp (base field) arithmetic, sqrt, inversion and encodings vs GMP, on both multiplication paths. */
/* SPDX-License-Identifier: MIT */
/*
 * The same checks BLS12-381's fields pass (selftests/zk_field_check.h),
 * for the BN254 instance of the generic field code.
 */
#include "zk/field/bn254_fp.h"

#define FT cz_bn254_fp
#define FT_PFX cz_bn254_fp
#define FT_LIMBS CZ_BN254_FP_LIMBS
#define FT_BYTES CZ_BN254_FP_BYTES
/* p from the BN254 (alt_bn128) specification, EIP-196 */
#define FT_MOD_HEX "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47"
#include "selftests/zk_field_check.h"

/* Residue M (limbs as an integer) in and out, for unreduced values < 2p. */
static void put_res(cz_bn254_fp *a, const mpz_t z)
{
	memset(a->l, 0, sizeof(a->l));
	mpz_export(a->l, NULL, -1, 8, 0, 0, z);
}

static void get_res(mpz_t z, const cz_bn254_fp *a)
{
	mpz_import(z, CZ_BN254_FP_LIMBS, -1, 8, 0, 0, a->l);
}

/* want = ma·mb·R^-2 mod p: the value of the Montgomery product of residues ma, mb */
static void mont_want(mpz_t want, const mpz_t ma, const mpz_t mb)
{
	mpz_mul(want, ma, mb), mpz_mul(want, want, fc_Rinv), mpz_mul(want, want, fc_Rinv);
	mpz_mod(want, want, fc_m);
}

/*
 * cz_bn254_fp_mul_lazy / _sqr_lazy (the MSM's batch-inversion chains and slope):
 * for residues in [0, 2p), the edge values 0, p-1, p, p+1, 2p-2, 2p-1 among them
 * (built by GMP as v or v + p, not by the library), the right value with a
 * residue < 2p; fed back into mul_lazy, mul, mul_inl and sqr, the right value;
 * mul/sqr (and _inl) fully reduced.  Returns the bad count.
 */
static int lazy_one(const mpz_t ma, const mpz_t mb)
{
	mpz_t w, t, two_p, lz;
	cz_bn254_fp a, b, r, l;
	int bad = 0;

	mpz_inits(w, t, two_p, lz, NULL);
	mpz_mul_2exp(two_p, fc_m, 1);
	put_res(&a, ma), put_res(&b, mb);
	mont_want(w, ma, mb);
	cz_bn254_fp_mul_lazy(&l, &a, &b);
	get_res(lz, &l);
	bad += !fc_eq(&l, w) || mpz_cmp(lz, two_p) >= 0;
	cz_bn254_fp_mul(&r, &a, &b);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, fc_m) >= 0);
	cz_bn254_fp_mul_inl(&r, &a, &b);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, fc_m) >= 0);
	mont_want(w, ma, ma);
	cz_bn254_fp_sqr_lazy(&r, &a);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, two_p) >= 0);
	cz_bn254_fp_sqr_inl(&r, &a);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, fc_m) >= 0);
	mont_want(w, lz, lz);   /* a lazy result as both operands, lazy again */
	cz_bn254_fp_mul_lazy(&r, &l, &l);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, two_p) >= 0);
	mont_want(w, lz, mb);
	cz_bn254_fp_mul(&r, &l, &b);
	bad += !fc_eq(&r, w) || (get_res(t, &r), mpz_cmp(t, fc_m) >= 0);
	mpz_clears(w, t, two_p, lz, NULL);
	return bad;
}

static void lazy(const char *path)
{
	mpz_t x, y;
	int bad = 0;

	mpz_inits(x, y, NULL);
	for (int i = 0; i < NRAND; i++) {
		fc_value(x, i < NEDGE ? i : NEDGE);
		fc_value(y, (i * 7) % (NEDGE + 1));
		if (i & 1)
			mpz_add(x, x, fc_m);   /* the unreduced twin, < 2p */
		if (i & 2)
			mpz_add(y, y, fc_m);
		if (i % 16 == 5) {         /* the extremes 2p - 1 and 2p - 2 */
			mpz_mul_2exp(x, fc_m, 1), mpz_sub_ui(x, x, 1);
			mpz_mul_2exp(y, fc_m, 1), mpz_sub_ui(y, y, 1 + (i & 1));
		}
		bad += lazy_one(x, y);
	}
	ct_ok(!bad, "%s: mul_lazy, sqr_lazy of operands < 2p: right value, residue < 2p, a valid operand; "
	      "mul/sqr (and _inl) of such operands exact and reduced (%d bad)", path, bad);
	mpz_clears(x, y, NULL);
}

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 2 + 2);
	ct_ok(mpz_sizeinbase(fc_m, 2) == 254 && mpz_probab_prime_p(fc_m, 30) &&
		      mpz_fdiv_ui(fc_m, 4) == 3,
	      "the test's p is a 254-bit prime, 3 mod 4");
	{
		/* p = 36x^4 + 36x^3 + 24x^2 + 6x + 1 for the BN parameter x */
		mpz_t x, t;
		mpz_init_set_str(x, "44e992b44a6909f1", 16);
		mpz_init_set_ui(t, 36);
		mpz_mul(t, t, x), mpz_add_ui(t, t, 36);
		mpz_mul(t, t, x), mpz_add_ui(t, t, 24);
		mpz_mul(t, t, x), mpz_add_ui(t, t, 6);
		mpz_mul(t, t, x), mpz_add_ui(t, t, 1);
		ct_ok(mpz_cmp(t, fc_m) == 0, "p = 36x^4 + 36x^3 + 24x^2 + 6x + 1, x = 0x44e992b44a6909f1");
		mpz_clears(x, t, NULL);
	}
	field_checks_both_paths();
	if (cz_fp_have_adx())
		lazy("adx");
	else
		ct_skip("CPU lacks BMI2/ADX", "adx mul_lazy");
	cz_field_force_portable(true);
	lazy("portable");
	cz_field_force_portable(false);
	return ct_exit();
}

/* Description: BN254 Fr (scalar field) arithmetic, Tonelli-Shanks sqrt, encodings and snarkjs roots of unity vs GMP, on both paths. */
/* SPDX-License-Identifier: MIT */
/*
 * The same checks BLS12-381's fields pass (selftests/zk_field_check.h),
 * for the BN254 instance, and the roots of unity snarkjs uses: GMP's
 * 5^((r-1)/2^28) and ffjavascript's published Fr.w[28] (decimal, below).
 */
#include "zk/field/bn254_fr.h"

#define FT cz_bn254_fr
#define FT_PFX cz_bn254_fr
#define FT_LIMBS CZ_BN254_FR_LIMBS
#define FT_BYTES CZ_BN254_FR_BYTES
/* r from the BN254 (alt_bn128) specification, EIP-196 */
#define FT_MOD_HEX "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001"
#include "selftests/zk_field_check.h"

#define S 28
/* ffjavascript (buildBn128().Fr.w[28], tools/fixtures/bn254-vectors.js) */
static const char snarkjs_w28[] =
	"19103219067921713944291392827692070036145651957329286315305642004821462161904";

static void roots(const char *path)
{
	mpz_t t, w, x, m1;
	cz_bn254_fr r;
	mpz_inits(t, w, x, m1, NULL);
	mpz_sub_ui(m1, fc_m, 1);
	mpz_fdiv_q_2exp(t, m1, S);
	mpz_set_ui(x, 5);
	mpz_powm(w, x, t, fc_m);
	cz_bn254_fr_root_of_unity(&r, S);
	mpz_set_str(x, snarkjs_w28, 10);
	ct_ok(fc_eq(&r, w) && mpz_cmp(w, x) == 0,
	      "%s: root_of_unity(28) = 5^((r-1)/2^28) (GMP) = snarkjs's Fr.w[28]", path);

	mpz_set_ui(x, 0), mpz_setbit(x, S - 1);
	mpz_powm(x, w, x, fc_m);
	ct_ok(mpz_cmp(x, m1) == 0, "%s: omega_{2^28}^(2^27) = -1 (GMP)", path);

	int bad = 0;
	for (unsigned k = 0; k <= S + 1; k++) {
		cz_bn254_fr_root_of_unity(&r, k);
		unsigned kk = k > S ? S : k; /* clamped */
		mpz_set_ui(x, 0), mpz_setbit(x, S - kk);
		mpz_powm(x, w, x, fc_m);
		bad += !fc_eq(&r, x);
		cz_bn254_fr s = r;
		for (unsigned i = 1; i < kk; i++)
			cz_bn254_fr_sqr(&s, &s);
		if (kk >= 1) {
			cz_bn254_fr_neg(&s, &s);
			bad += !cz_bn254_fr_eq(&s, &cz_bn254_fr_one);
		} else {
			bad += !cz_bn254_fr_eq(&r, &cz_bn254_fr_one);
		}
	}
	ct_ok(!bad, "%s: root_of_unity(k) = omega^(2^(28-k)), primitive, k = 0..28, 29 clamped (%d bad)",
	      path, bad);
	mpz_clears(t, w, x, m1, NULL);
}

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 2 + 6);
	{
		mpz_t m1, five;
		mpz_init(m1);
		mpz_sub_ui(m1, fc_m, 1);
		mpz_init_set_ui(five, 5);
		ct_ok(mpz_sizeinbase(fc_m, 2) == 254 && mpz_probab_prime_p(fc_m, 30) &&
			      mpz_scan1(m1, 0) == S,
		      "the test's r is a 254-bit prime with r - 1 = 2^28 * odd");
		int smallest = 1;
		for (unsigned long q = 2; q < 5; q++) {
			mpz_set_ui(five, q);
			smallest &= mpz_legendre(five, fc_m) != -1;
		}
		mpz_set_ui(five, 5);
		ct_ok(mpz_legendre(five, fc_m) == -1 && smallest,
		      "5 is the smallest quadratic non-residue mod r (ffjavascript's nqr)");
		mpz_clears(m1, five, NULL);
	}
	field_checks_both_paths();
	if (cz_fp_have_adx()) {
		cz_field_force_portable(false);
		roots("adx");
	} else {
		for (int i = 0; i < 3; i++)
			ct_skip("CPU lacks BMI2/ADX", "adx roots check %d", i + 1);
	}
	cz_field_force_portable(true);
	roots("portable");
	cz_field_force_portable(false);
	return ct_exit();
}

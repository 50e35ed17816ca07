/* Description: Fr (BLS12-381 scalar field) arithmetic, Tonelli-Shanks sqrt, encodings and snarkjs roots of unity vs GMP, on both paths. */
/* SPDX-License-Identifier: MIT */
#include "zk/field/fr.h"

#define FT cz_fr
#define FT_PFX cz_fr
#define FT_LIMBS CZ_FR_LIMBS
#define FT_BYTES CZ_FR_BYTES
/* r from the BLS12-381 specification */
#define FT_MOD_HEX "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"
#include "selftests/zk_field_check.h"

/* omega_{2^32} = 5^((r-1)/2^32) (snarkjs), and each 2^k-th root from it. */
static void roots(const char *path)
{
	mpz_t t, w, x, m1;
	cz_fr r;
	mpz_inits(t, w, x, m1, NULL);
	mpz_sub_ui(m1, fc_m, 1);
	mpz_fdiv_q_2exp(t, m1, 32);
	mpz_set_ui(x, 5);
	mpz_powm(w, x, t, fc_m);
	cz_fr_root_of_unity(&r, 32);
	ct_ok(fc_eq(&r, w), "%s: root_of_unity(32) = 5^((r-1)/2^32) computed by GMP", path);

	mpz_set_ui(x, 0), mpz_setbit(x, 31);
	mpz_powm(x, w, x, fc_m);
	ct_ok(mpz_cmp(x, m1) == 0, "%s: omega_{2^32}^(2^31) = -1 (GMP)", path);
	mpz_set_ui(x, 0), mpz_setbit(x, 32);
	mpz_powm(x, w, x, fc_m);
	ct_ok(mpz_cmp_ui(x, 1) == 0, "%s: omega_{2^32}^(2^32) = 1 (GMP)", path);

	int bad = 0;
	for (unsigned k = 0; k <= 32; k++) {
		cz_fr_root_of_unity(&r, k);
		mpz_set_ui(x, 0), mpz_setbit(x, 32 - k);
		mpz_powm(x, w, x, fc_m);
		bad += !fc_eq(&r, x);
		/* primitive: (omega_{2^k})^(2^(k-1)) = -1 */
		cz_fr s = r;
		for (unsigned i = 1; i < k; i++)
			cz_fr_sqr(&s, &s);
		if (k >= 1) {
			cz_fr_neg(&s, &s);
			bad += !cz_fr_eq(&s, &cz_fr_one);
		} else {
			bad += !cz_fr_eq(&r, &cz_fr_one);
		}
	}
	ct_ok(!bad, "%s: root_of_unity(k) = omega_{2^32}^(2^(32-k)) and is primitive, k = 0..32 (%d bad)",
	      path, bad);
	mpz_clears(t, w, x, m1, NULL);
}

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 2 + 8);
	ct_ok(mpz_sizeinbase(fc_m, 2) == 255 && mpz_probab_prime_p(fc_m, 30) &&
		      mpz_scan1((mpz_sub_ui(fc_half, fc_m, 1), fc_half), 0) == 32,
	      "the test's r is a 255-bit prime with r - 1 = 2^32 * odd");
	mpz_sub_ui(fc_half, fc_m, 1);
	mpz_fdiv_q_2exp(fc_half, fc_half, 1);
	{
		mpz_t five;
		mpz_init_set_ui(five, 5);
		ct_ok(mpz_legendre(five, fc_m) == -1, "5 is a quadratic non-residue mod r");
		mpz_clear(five);
	}
	field_checks_both_paths();
	if (cz_fp_have_adx()) {
		cz_field_force_portable(false);
		roots("adx");
	} else {
		for (int i = 0; i < 4; i++)
			ct_skip("CPU lacks BMI2/ADX", "adx roots check %d", i + 1);
	}
	cz_field_force_portable(true);
	roots("portable");
	cz_field_force_portable(false);
	return ct_exit();
}

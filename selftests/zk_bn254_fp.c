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

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 2);
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
	return ct_exit();
}

/* Description: Fp (BLS12-381 base field) arithmetic, sqrt, inversion and encodings vs GMP, on both multiplication paths. */
/* SPDX-License-Identifier: MIT */
#include "zk/fp.h"

#define FT cz_fp
#define FT_PFX cz_fp
#define FT_LIMBS CZ_FP_LIMBS
#define FT_BYTES CZ_FP_BYTES
/* p from the BLS12-381 specification */
#define FT_MOD_HEX                                                                      \
	"1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fe" \
	"ffffffffaaab"
#include "selftests/zk_field_check.h"

int main(void)
{
	fc_init();
	ct_plan(2 * FIELD_CHECKS + 1);
	ct_ok(mpz_sizeinbase(fc_m, 2) == 381 && mpz_probab_prime_p(fc_m, 30) &&
		      mpz_fdiv_ui(fc_m, 4) == 3,
	      "the test's p is a 381-bit prime, 3 mod 4");
	field_checks_both_paths();
	return ct_exit();
}

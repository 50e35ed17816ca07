/* SPDX-License-Identifier: MIT */
/*
 * zk/bls12_381_pairing.c — the BLS12-381 constants of the pairing.
 *
 * The curve is fixed by one parameter, x = -0xd201000000010000:
 * p = (x - 1)^2 (x^4 - x^2 + 1)/3 + x, r = x^4 - x^2 + 1.  The Miller loop runs
 * over the bits of |x|, and the final exponentiation's hard part raises to
 * polynomials in x (zk/pairing.c).
 *
 * The Frobenius coefficients gamma_k[i] = xi^(i (p^k - 1)/6) are not typed
 * in: they are derived on first use from the field itself (p - 1 is the
 * standard form of -1), so they cannot disagree with the field's Montgomery
 * representation.  gamma_1 needs one 379-bit exponentiation in Fp2; then
 * gamma_2[i] = gamma_1[i]^(1 + p) = gamma_1[i]·conj(gamma_1[i]) and
 * gamma_3[i] = gamma_2[i]·gamma_1[i], because (p^k - 1)/6 =
 * (p - 1)/6 · (1 + p + ... + p^(k-1)) and gamma^p = conj(gamma).
 * selftests/zk_fp12.c checks the Frobenius maps against a^(p^k).
 */
#include <pthread.h>

#include "zk/fp12.h"
#include "zk/pairing.h"

const uint64_t cz_bls12_381_x_abs = 0xd201000000010000ull;
const bool cz_bls12_381_x_is_neg = true;

static cz_fp2 frob[3][6];
static pthread_once_t frob_once = PTHREAD_ONCE_INIT;

static void fp2_pow(cz_fp2 *r, const cz_fp2 *a, const uint64_t *e, size_t n)
{
	cz_fp2 acc = cz_fp2_one;

	for (size_t i = n; i-- > 0;)
		for (int b = 63; b >= 0; b--) {
			cz_fp2_sqr(&acc, &acc);
			if ((e[i] >> b) & 1)
				cz_fp2_mul(&acc, &acc, a);
		}
	*r = acc;
}

static void frob_init(void)
{
	uint64_t e[CZ_FP_LIMBS];
	cz_fp m1;
	cz_fp2 xi, g;

	/* e = (p - 1)/6: p ≡ 1 mod 6 for every BLS12 curve, so this is exact. */
	cz_fp_neg(&m1, &cz_fp_one);
	cz_fp_from_mont(e, &m1);
	unsigned __int128 rem = 0;
	for (size_t i = CZ_FP_LIMBS; i-- > 0;) {
		unsigned __int128 cur = (rem << 64) | e[i];
		e[i] = (uint64_t)(cur / 6);
		rem = cur % 6;
	}

	cz_fp2_mul_nonres(&xi, &cz_fp2_one);
	fp2_pow(&g, &xi, e, CZ_FP_LIMBS);
	frob[0][0] = cz_fp2_one;
	for (int i = 1; i < 6; i++)
		cz_fp2_mul(&frob[0][i], &frob[0][i - 1], &g);
	for (int i = 0; i < 6; i++) {
		cz_fp2 c;
		cz_fp2_conj(&c, &frob[0][i]);
		cz_fp2_mul(&frob[1][i], &frob[0][i], &c);
		cz_fp2_mul(&frob[2][i], &frob[1][i], &frob[0][i]);
	}
}

const cz_fp2 *cz_bls12_381_frob_coeffs(unsigned k)
{
	pthread_once(&frob_once, frob_init);
	return frob[k - 1];
}

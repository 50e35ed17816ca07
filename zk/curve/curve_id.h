/* SPDX-License-Identifier: MIT */
/*
 * zk/curve/curve_id.h — which curve a file, key or job is over.  Every message
 * about a wrong curve names the one seen and the one expected with
 * cz_curve_name() (snarkjs' tag, then the curve's name).
 */
#ifndef CZ_CURVE_ID_H
#define CZ_CURVE_ID_H

enum cz_curve { CZ_CURVE_BLS12_381 = 1, CZ_CURVE_BN254 = 2 };

static inline const char *cz_curve_name(enum cz_curve c)
{
	return c == CZ_CURVE_BN254 ? "bn128/BN254" : c == CZ_CURVE_BLS12_381 ? "bls12381/BLS12-381"
									      : "unknown curve";
}

/* snarkjs' "curve" tag alone: "bn128", "bls12381". */
static inline const char *cz_curve_tag(enum cz_curve c)
{
	return c == CZ_CURVE_BN254 ? "bn128" : c == CZ_CURVE_BLS12_381 ? "bls12381" : "unknown";
}

#endif

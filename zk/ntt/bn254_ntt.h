/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/bn254_ntt.h — number-theoretic transforms over the BN254 scalar field,
 * compatible with snarkjs/rapidsnark for bn128: the same transforms, code
 * and contracts as zk/ntt/ntt.h, with snarkjs' bn128 roots (omega_{2^28} =
 * 5^((r-1)/2^28), zk/field/bn254_fr.h).  Domains up to 2^27: the coset shift is
 * omega_{2n}, and r - 1 has only 28 factors of 2 (snarkjs' limit for bn128
 * Groth16 as well).
 */
#ifndef CZ_BN254_NTT_H
#define CZ_BN254_NTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/pool.h"
#include "zk/field/bn254_fr.h"
#include "zk/ntt/ntt.h"

#define CZ_BN254_NTT_MAX_LOG2 27
CZ_NTT_DECLARE(cz_bn254_ntt, cz_bn254_ntt_domain, cz_bn254_fr);

/* The device stage's transforms on AVX-512 IFMA (zk/ntt/ntt_vec_tmpl_pvt.h):
 * a, b, c (n = domain size each, Montgomery form, < r) to their odd-coset
 * evaluations, then h[i] = a[i]·b[i] - c[i] there, canonical and out of
 * Montgomery form, four 64-bit limbs an element (4n words): what
 * cz_bn254_ntt_to_odd_coset on each and the prover's subtraction give.
 * a, b, c are overwritten (scratch).  False, with nothing touched, where it
 * does not run: a CPU or OS without AVX-512F and IFMA, or n < 2^6; the
 * caller then takes the scalar path.  Nothing allocated. */
bool cz_bn254_ntt_h_vec(const struct cz_bn254_ntt_domain *d, cz_bn254_fr *a, cz_bn254_fr *b,
			cz_bn254_fr *c, uint64_t *h, struct cz_pool *pool);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt/ntt.h — number-theoretic transforms over the BLS12-381 scalar field Fr,
 * compatible with snarkjs/rapidsnark (Groth16's quotient polynomial).  The
 * same code serves BN254's Fr (zk/ntt/bn254_ntt.h: cz_bn254_ntt_*).
 *
 * A domain is the multiplicative subgroup H of size n = 2^log2n, generated
 * by omega = omega_n, where omega_{2^k} is snarkjs's root (zk/field/fr.h:
 * 5^((r-1)/2^32) squared 32-k times), and its odd coset g*H with
 * g = omega_{2n}.  All transforms work in place on n cz_fr values
 * (Montgomery form), natural order in and out:
 *
 *   forward        a[i] <- sum_j a[j] * omega^(i*j)
 *   inverse        a[i] <- (1/n) sum_j a[j] * omega^(-i*j)
 *   coset_forward  a[i] <- sum_j a[j] * (g * omega^i)^j   (evaluate on g*H)
 *   coset_inverse  the inverse of coset_forward
 *   to_odd_coset   inverse, then coset_forward: what the snarkjs/rapidsnark
 *                  Groth16 prover does to each of A, B, C.
 *
 * pool may be NULL (the calling thread does everything).  The result does
 * not depend on the thread count, bit for bit.  A domain is read-only once
 * created, so any number of threads may transform with it at once.
 */
#ifndef CZ_NTT_H
#define CZ_NTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/pool.h"
#include "zk/field/fr.h"

/* The API of one scalar field's NTT (BLS12-381's here, BN254's in
 * zk/ntt/bn254_ntt.h): PFX_domain_create(log2n) is NULL if log2n > the
 * field's maximum (errno EINVAL) or out of memory (ENOMEM), and holds 16*n
 * bytes of twiddles (n/2 roots) plus a few KiB; PFX_domain_bytes is what it
 * holds (what a resident key's footprint counts for it); _create_tuned
 * picks the cache blocking by hand (tests and benches): blocks of
 * 2^block_log2 elements for the last stages, radix 2^radix_log2 for the
 * passes before them, 0 the default for either; with 4n bytes more for the
 * vector path's coset scale (n >= 8).
 *
 * PFX_h_vec: the device stage's transforms on AVX-512 IFMA
 * (zk/ntt/ntt_vec_tmpl_pvt.h): a, b, c (n = the domain's size each,
 * Montgomery form, < r) to their odd-coset evaluations, then
 * h[i] = a[i]·b[i] - c[i] there, canonical and out of Montgomery form, four
 * 64-bit limbs an element (4n words): what PFX_to_odd_coset on each and the
 * prover's subtraction give.  a, b, c are overwritten (scratch).  False,
 * with nothing touched, where it does not run: a CPU or OS without
 * AVX-512F and IFMA, or n < 2^6; the caller then takes the scalar path.
 * Nothing allocated. */
#define CZ_NTT_DECLARE(PFX, D, FR)                                                    \
	struct D;                                                                     \
	struct D *PFX##_domain_create(unsigned log2n);                                \
	size_t PFX##_domain_bytes(const struct D *d);                                 \
	struct D *PFX##_domain_create_tuned(unsigned log2n, unsigned block_log2,      \
					    unsigned radix_log2);                     \
	void PFX##_domain_destroy(struct D *d);                                       \
	unsigned PFX##_domain_log2(const struct D *d);                                \
	size_t PFX##_domain_size(const struct D *d);                                  \
	void PFX##_forward(const struct D *d, FR *a, struct cz_pool *pool);           \
	void PFX##_inverse(const struct D *d, FR *a, struct cz_pool *pool);           \
	void PFX##_coset_forward(const struct D *d, FR *a, struct cz_pool *pool);     \
	void PFX##_coset_inverse(const struct D *d, FR *a, struct cz_pool *pool);     \
	void PFX##_to_odd_coset(const struct D *d, FR *a, struct cz_pool *pool);      \
	bool PFX##_h_vec(const struct D *d, FR *a, FR *b, FR *c, uint64_t *h,         \
			 struct cz_pool *pool)

#define CZ_NTT_MAX_LOG2 28
CZ_NTT_DECLARE(cz_ntt, cz_ntt_domain, cz_fr);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * zk/ntt.h — number-theoretic transforms over the BLS12-381 scalar field Fr,
 * compatible with snarkjs/rapidsnark (Groth16's quotient polynomial).
 *
 * A domain is the multiplicative subgroup H of size n = 2^log2n, generated
 * by omega = omega_n, where omega_{2^k} is snarkjs's root (zk/fr.h:
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

#include <stddef.h>

#include "lib/pool.h"
#include "zk/fr.h"

#define CZ_NTT_MAX_LOG2 28

struct cz_ntt_domain;

/* NULL if log2n > CZ_NTT_MAX_LOG2 (errno EINVAL) or out of memory (ENOMEM).
 * Memory: 16*n bytes of twiddles (n/2 roots) plus a few KiB. */
struct cz_ntt_domain *cz_ntt_domain_create(unsigned log2n);
/* Bytes the domain holds (its twiddles and itself): what a resident key's
 * footprint counts for it. */
size_t cz_ntt_domain_bytes(const struct cz_ntt_domain *d);
/* The same with the cache blocking chosen by hand (tests and benches):
 * blocks of 2^block_log2 elements for the last stages, radix 2^radix_log2
 * for the passes before them.  0 picks the default for either. */
struct cz_ntt_domain *cz_ntt_domain_create_tuned(unsigned log2n, unsigned block_log2,
						 unsigned radix_log2);
void cz_ntt_domain_destroy(struct cz_ntt_domain *d);

unsigned cz_ntt_domain_log2(const struct cz_ntt_domain *d);
size_t cz_ntt_domain_size(const struct cz_ntt_domain *d);

void cz_ntt_forward(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
void cz_ntt_inverse(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
void cz_ntt_coset_forward(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
void cz_ntt_coset_inverse(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);
void cz_ntt_to_odd_coset(const struct cz_ntt_domain *d, cz_fr *a, struct cz_pool *pool);

#endif

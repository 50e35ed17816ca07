/* SPDX-License-Identifier: MIT */
/* Description: Fr NTTs against a naive O(n^2) DFT and snarkjs's roots of unity, at any thread count. */
#include "lib/pool.h"
#include "selftests/cz_test.h"
#include "zk/fr.h"
#include "zk/ntt.h"

#include <errno.h>
#include <string.h>

/*
 * snarkjs's roots: ffjavascript 0.3.1 (what snarkjs uses), obtained once with
 *   npm install ffjavascript@0.3.1 && node -e '
 *     const {getCurveFromName} = require("ffjavascript");
 *     getCurveFromName("bls12381", true).then(c => {
 *       for (const k of [1,2,3,10,16,20,28,31,32])
 *         console.log(k, c.Fr.toString(c.Fr.w[k])); c.terminate(); })'
 * Fr.w[32] = 5^((r-1)/2^32) mod r; Fr.w[k] = Fr.w[32]^(2^(32-k)).  The
 * generator-7 root (blst, arkworks) would be
 * 10238227357739495823651030575849232062558860180284477541189508159991286009131.
 */
static const struct { unsigned k; const char *dec; } snarkjs_w[] = {
	{ 1, "52435875175126190479447740508185965837690552500527637822603658699938581184512" },
	{ 2, "3465144826073652318776269530687742778270252468765361963008" },
	{ 3, "28761180743467419819834788392525162889723178799021384024940474588120723734663" },
	{ 10, "21328829733576761151404230261968752855781179864716879432436835449516750606329" },
	{ 16, "46605497109352149548364111935960392432509601054990529243781317021485154656122" },
	{ 20, "23615957371642610195417524132420957372617874794160903688435201581369949179370" },
	{ 28, "18727201054581607001749469507512963489976863652151448843860599973148080906836" },
	{ 31, "43599901455287962219281063402626541872197057165786841304067502694013639882090" },
	{ 32, "937917089079007706106976984802249742464848817460758522850752807661925904159" },
};
#define NW (sizeof(snarkjs_w) / sizeof(snarkjs_w[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void rand_fr(cz_fr *x)
{
	uint64_t raw[CZ_FR_LIMBS];
	for (int i = 0; i < CZ_FR_LIMBS; i++)
		raw[i] = next64();
	raw[CZ_FR_LIMBS - 1] >>= 2;  /* < 2^254 < r */
	cz_fr_to_mont(x, raw);
}

static cz_fr *rand_vec(size_t n)
{
	cz_fr *v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++)
		rand_fr(&v[i]);
	return v;
}

static cz_fr *dup_vec(const cz_fr *a, size_t n)
{
	cz_fr *v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	memcpy(v, a, n * sizeof(*v));
	return v;
}

static int vec_eq(const cz_fr *a, const cz_fr *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!cz_fr_eq(&a[i], &b[i]))
			return 0;
	return 1;
}

/* The oracle's omega_{2^k}, from the known-answer w[32] by squaring. */
static cz_fr w32;

static void oracle_root(cz_fr *r, unsigned k)
{
	*r = w32;
	for (unsigned i = k; i < 32; i++)
		cz_fr_sqr(r, r);
}

static void u64_fr(cz_fr *r, uint64_t v)
{
	cz_fr_from_u64(r, v);
}

/* out[i] = scale * sum_j a[j] * (shift * w^i)^j: naive, O(n^2). */
static void naive_eval(cz_fr *out, const cz_fr *a, size_t n, const cz_fr *w, const cz_fr *shift,
		       const cz_fr *scale)
{
	cz_fr wi = cz_fr_one;
	for (size_t i = 0; i < n; i++) {
		cz_fr x, p = cz_fr_one, acc = cz_fr_zero, t;
		cz_fr_mul(&x, &wi, shift);
		for (size_t j = 0; j < n; j++) {
			cz_fr_mul(&t, &a[j], &p);
			cz_fr_add(&acc, &acc, &t);
			cz_fr_mul(&p, &p, &x);
		}
		cz_fr_mul(&out[i], &acc, scale);
		cz_fr_mul(&wi, &wi, w);
	}
}

static void test_roots(void)
{
	char s[100];
	cz_fr r, neg1;

	cz_fr_root_of_unity(&r, 32);
	cz_fr_to_dec(s, sizeof(s), &r);
	ct_ok(!strcmp(s, snarkjs_w[NW - 1].dec), "omega_2^32 is snarkjs's Fr.w[32] (got %s)", s);
	for (size_t i = 0; i + 1 < NW; i++) {
		cz_fr_root_of_unity(&r, snarkjs_w[i].k);
		cz_fr_to_dec(s, sizeof(s), &r);
		ct_ok(!strcmp(s, snarkjs_w[i].dec), "omega_2^%u is snarkjs's Fr.w[%u]",
		      snarkjs_w[i].k, snarkjs_w[i].k);
	}
	/* Primitive: w32^(2^31) = -1. */
	r = w32;
	for (int i = 0; i < 31; i++)
		cz_fr_sqr(&r, &r);
	cz_fr_neg(&neg1, &cz_fr_one);
	ct_ok(cz_fr_eq(&r, &neg1), "omega_2^32 has order exactly 2^32");
}

static const unsigned tunings[][2] = { { 0, 0 }, { 1, 1 }, { 2, 3 }, { 3, 2 }, { 1, 8 } };
#define NTUNE (sizeof(tunings) / sizeof(tunings[0]))

/* Forward and inverse against the naive DFT, n = 2^0 .. 2^10, under several blockings. */
static void test_naive_dft(void)
{
	for (unsigned L = 0; L <= 10; L++) {
		size_t n = (size_t)1 << L;
		cz_fr w, winv, ninv, nn, *x = rand_vec(n), *want_f = malloc(n * sizeof(cz_fr));
		cz_fr *want_i = malloc(n * sizeof(cz_fr));
		int okf = 1, oki = 1;

		oracle_root(&w, L);
		cz_fr_inv(&winv, &w);
		u64_fr(&nn, n);
		cz_fr_inv(&ninv, &nn);
		naive_eval(want_f, x, n, &w, &cz_fr_one, &cz_fr_one);
		naive_eval(want_i, x, n, &winv, &cz_fr_one, &ninv);
		for (size_t t = 0; t < NTUNE; t++) {
			struct cz_ntt_domain *d =
				cz_ntt_domain_create_tuned(L, tunings[t][0], tunings[t][1]);
			cz_fr *y = dup_vec(x, n);
			if (!d)
				abort();
			cz_ntt_forward(d, y, NULL);
			okf &= vec_eq(y, want_f, n);
			memcpy(y, x, n * sizeof(cz_fr));
			cz_ntt_inverse(d, y, NULL);
			oki &= vec_eq(y, want_i, n);
			free(y);
			cz_ntt_domain_destroy(d);
		}
		ct_ok(okf, "forward n=2^%u equals the naive DFT (5 blockings)", L);
		ct_ok(oki, "inverse n=2^%u equals the naive inverse DFT (5 blockings)", L);
		free(x);
		free(want_f);
		free(want_i);
	}
}

/* The coset transforms against naive evaluation on g*H, g = omega_{2n}. */
static void test_naive_coset(void)
{
	for (unsigned L = 0; L <= 8; L++) {
		size_t n = (size_t)1 << L;
		cz_fr w, winv, g, ginv, ninv, nn, *x = rand_vec(n);
		cz_fr *want = malloc(n * sizeof(cz_fr)), *coef = malloc(n * sizeof(cz_fr));
		int okf = 1, oki = 1, oko = 1;

		oracle_root(&w, L);
		oracle_root(&g, L + 1);
		cz_fr_inv(&winv, &w);
		cz_fr_inv(&ginv, &g);
		u64_fr(&nn, n);
		cz_fr_inv(&ninv, &nn);
		for (size_t t = 0; t < NTUNE; t++) {
			struct cz_ntt_domain *d =
				cz_ntt_domain_create_tuned(L, tunings[t][0], tunings[t][1]);
			cz_fr *y = dup_vec(x, n);
			if (!d)
				abort();
			/* coset_forward: evaluations of x at g w^i */
			naive_eval(want, x, n, &w, &g, &cz_fr_one);
			cz_ntt_coset_forward(d, y, NULL);
			okf &= vec_eq(y, want, n);
			/* coset_inverse: c_k = (1/n) g^-k sum_i y_i w^-ik */
			memcpy(y, x, n * sizeof(cz_fr));
			cz_ntt_coset_inverse(d, y, NULL);
			naive_eval(want, x, n, &winv, &cz_fr_one, &ninv);
			cz_fr gk = cz_fr_one;
			for (size_t k = 0; k < n; k++) {
				cz_fr_mul(&want[k], &want[k], &gk);
				cz_fr_mul(&gk, &gk, &ginv);
			}
			oki &= vec_eq(y, want, n);
			/* to_odd_coset: interpolate on H, evaluate on g*H */
			memcpy(y, x, n * sizeof(cz_fr));
			cz_ntt_to_odd_coset(d, y, NULL);
			naive_eval(coef, x, n, &winv, &cz_fr_one, &ninv);
			naive_eval(want, coef, n, &w, &g, &cz_fr_one);
			oko &= vec_eq(y, want, n);
			free(y);
			cz_ntt_domain_destroy(d);
		}
		ct_ok(okf, "coset_forward n=2^%u equals naive evaluation on omega_2n*H", L);
		ct_ok(oki, "coset_inverse n=2^%u equals naive interpolation from omega_2n*H", L);
		ct_ok(oko, "to_odd_coset n=2^%u equals naive interpolate-then-evaluate", L);
		free(x);
		free(want);
		free(coef);
	}
}

typedef void (*xform)(const struct cz_ntt_domain *, cz_fr *, struct cz_pool *);
static const xform xforms[] = { cz_ntt_forward, cz_ntt_inverse, cz_ntt_coset_forward,
				cz_ntt_coset_inverse, cz_ntt_to_odd_coset };

/* Any thread count gives the single-threaded result, bit for bit. */
static void test_threads(void)
{
	static const unsigned sizes[] = { 0, 1, 3, 8, 9, 12, 13, 15 };
	static const unsigned nthreads[] = { 2, 3 };
	struct cz_pool *pools[2] = { cz_pool_create(nthreads[0]), cz_pool_create(nthreads[1]) };
	int ok[2] = { pools[0] != NULL, pools[1] != NULL };

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		unsigned L = sizes[si];
		size_t n = (size_t)1 << L;
		/* the default blocking, and one with many passes (small sizes only) */
		for (size_t t = 0; t < (L <= 12 ? 2u : 1u); t++) {
			struct cz_ntt_domain *d = t ? cz_ntt_domain_create_tuned(L, 2, 3)
						    : cz_ntt_domain_create(L);
			cz_fr *x = rand_vec(n);
			if (!d)
				abort();
			for (size_t f = 0; f < 5; f++) {
				cz_fr *want = dup_vec(x, n);
				xforms[f](d, want, NULL);
				for (size_t pi = 0; pi < 2; pi++) {
					cz_fr *y = dup_vec(x, n);
					if (pools[pi])
						xforms[f](d, y, pools[pi]);
					ok[pi] &= vec_eq(want, y, n);
					free(y);
				}
				free(want);
			}
			free(x);
			cz_ntt_domain_destroy(d);
		}
	}
	for (size_t pi = 0; pi < 2; pi++) {
		ct_ok(ok[pi], "%u threads give the 1-thread result bit for bit (n = 2^0 .. 2^15, all transforms)",
		      nthreads[pi]);
		cz_pool_destroy(pools[pi]);
	}
}

/* n = 2^20 on 2 threads: spot-check an output against the naive sum, and round-trip. */
static void test_large(void)
{
	const unsigned L = 20;
	size_t n = (size_t)1 << L, idx = 1 + (size_t)(next64() % (n - 1));
	struct cz_ntt_domain *d = cz_ntt_domain_create(L);
	struct cz_pool *pool = cz_pool_create(2);
	cz_fr *x = rand_vec(n), *y = dup_vec(x, n), w, wi = cz_fr_one, p = cz_fr_one;
	cz_fr acc = cz_fr_zero, t;

	if (!d || !pool)
		abort();
	cz_ntt_forward(d, y, pool);
	oracle_root(&w, L);
	for (size_t k = 0; k < idx; k++)
		cz_fr_mul(&wi, &wi, &w);
	for (size_t j = 0; j < n; j++) {
		cz_fr_mul(&t, &x[j], &p);
		cz_fr_add(&acc, &acc, &t);
		cz_fr_mul(&p, &p, &wi);
	}
	ct_ok(cz_fr_eq(&acc, &y[idx]), "forward n=2^20: output %zu equals the naive sum", idx);
	cz_ntt_inverse(d, y, pool);
	ct_ok(vec_eq(x, y, n), "inverse(forward(x)) = x for n=2^20");
	free(x);
	free(y);
	cz_pool_destroy(pool);
	cz_ntt_domain_destroy(d);
}

int main(void)
{
	ct_plan((int)NW + 1 + 22 + 27 + 2 + 2 + 1);
	if (!cz_fr_from_dec(&w32, snarkjs_w[NW - 1].dec))
		abort();
	test_roots();
	test_naive_dft();
	test_naive_coset();
	test_threads();
	test_large();
	errno = 0;
	struct cz_ntt_domain *d = cz_ntt_domain_create(CZ_NTT_MAX_LOG2 + 1);
	ct_ok(!d && errno == EINVAL, "a domain of 2^29 is refused (EINVAL)");
	return ct_exit();
}

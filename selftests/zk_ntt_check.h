/* SPDX-License-Identifier: MIT */
/*
 * selftests/zk_ntt_check.h — the NTT checks both curves' transforms pass:
 * against a naive O(n^2) DFT and snarkjs's roots of unity, at any thread
 * count.  Included by selftests/zk_ntt.c (BLS12-381) and zk_bn254_ntt.c
 * after they define TF (the Fr prefix), TN(n) (the NTT's public names), TD
 * (the domain's struct tag), T_S (the two-adicity), T_MAX_LOG2 (the largest
 * domain), T_LARGE_LOG2 (the size of the large spot check) and the table
 * snarkjs_w[] of { k, decimal Fr.w[k] } ending with k = T_S.
 */
#include <errno.h>
#include <string.h>

#include "lib/pool.h"
#include "selftests/cz_test.h"

#define TC_CAT2(a, b) a##_##b
#define TC_CAT(a, b) TC_CAT2(a, b)
#define TF(n) TC_CAT(TFR, n)
typedef TFR tfr;

#define NW (sizeof(snarkjs_w) / sizeof(snarkjs_w[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void rand_fr(tfr *x)
{
	uint64_t raw[4];
	do { /* below 2^254: always < r for BLS12-381, sometimes for BN254 */
		for (int i = 0; i < 4; i++)
			raw[i] = next64();
		raw[4 - 1] >>= 2;
	} while (!TF(to_mont)(x, raw));
}

static tfr *rand_vec(size_t n)
{
	tfr *v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++)
		rand_fr(&v[i]);
	return v;
}

static tfr *dup_vec(const tfr *a, size_t n)
{
	tfr *v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	memcpy(v, a, n * sizeof(*v));
	return v;
}

static int vec_eq(const tfr *a, const tfr *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!TF(eq)(&a[i], &b[i]))
			return 0;
	return 1;
}

/* The oracle's omega_{2^k}, from the known-answer w[S] by squaring. */
static tfr w32;

static void oracle_root(tfr *r, unsigned k)
{
	*r = w32;
	for (unsigned i = k; i < T_S; i++)
		TF(sqr)(r, r);
}

static void u64_fr(tfr *r, uint64_t v)
{
	TF(from_u64)(r, v);
}

/* out[i] = scale * sum_j a[j] * (shift * w^i)^j: naive, O(n^2). */
static void naive_eval(tfr *out, const tfr *a, size_t n, const tfr *w, const tfr *shift,
		       const tfr *scale)
{
	tfr wi = TF(one);
	for (size_t i = 0; i < n; i++) {
		tfr x, p = TF(one), acc = TF(zero), t;
		TF(mul)(&x, &wi, shift);
		for (size_t j = 0; j < n; j++) {
			TF(mul)(&t, &a[j], &p);
			TF(add)(&acc, &acc, &t);
			TF(mul)(&p, &p, &x);
		}
		TF(mul)(&out[i], &acc, scale);
		TF(mul)(&wi, &wi, w);
	}
}

static void test_roots(void)
{
	char s[100];
	tfr r, neg1;

	TF(root_of_unity)(&r, T_S);
	TF(to_dec)(s, sizeof(s), &r);
	ct_ok(!strcmp(s, snarkjs_w[NW - 1].dec), "omega_2^%u is snarkjs's Fr.w[%u] (got %s)", T_S, T_S, s);
	for (size_t i = 0; i + 1 < NW; i++) {
		TF(root_of_unity)(&r, snarkjs_w[i].k);
		TF(to_dec)(s, sizeof(s), &r);
		ct_ok(!strcmp(s, snarkjs_w[i].dec), "omega_2^%u is snarkjs's Fr.w[%u]",
		      snarkjs_w[i].k, snarkjs_w[i].k);
	}
	/* Primitive: w^(2^(S-1)) = -1. */
	r = w32;
	for (unsigned i = 0; i + 1 < T_S; i++)
		TF(sqr)(&r, &r);
	TF(neg)(&neg1, &TF(one));
	ct_ok(TF(eq)(&r, &neg1), "omega_2^%u has order exactly 2^%u", T_S, T_S);
}

static const unsigned tunings[][2] = { { 0, 0 }, { 1, 1 }, { 2, 3 }, { 3, 2 }, { 1, 8 } };
#define NTUNE (sizeof(tunings) / sizeof(tunings[0]))

/* Forward and inverse against the naive DFT, n = 2^0 .. 2^10, under several blockings. */
static void test_naive_dft(void)
{
	for (unsigned L = 0; L <= 10; L++) {
		size_t n = (size_t)1 << L;
		tfr w, winv, ninv, nn, *x = rand_vec(n), *want_f = malloc(n * sizeof(tfr));
		tfr *want_i = malloc(n * sizeof(tfr));
		int okf = 1, oki = 1;

		oracle_root(&w, L);
		TF(inv)(&winv, &w);
		u64_fr(&nn, n);
		TF(inv)(&ninv, &nn);
		naive_eval(want_f, x, n, &w, &TF(one), &TF(one));
		naive_eval(want_i, x, n, &winv, &TF(one), &ninv);
		for (size_t t = 0; t < NTUNE; t++) {
			struct TD *d =
				TN(domain_create_tuned)(L, tunings[t][0], tunings[t][1]);
			tfr *y = dup_vec(x, n);
			if (!d)
				abort();
			TN(forward)(d, y, NULL);
			okf &= vec_eq(y, want_f, n);
			memcpy(y, x, n * sizeof(tfr));
			TN(inverse)(d, y, NULL);
			oki &= vec_eq(y, want_i, n);
			free(y);
			TN(domain_destroy)(d);
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
		tfr w, winv, g, ginv, ninv, nn, *x = rand_vec(n);
		tfr *want = malloc(n * sizeof(tfr)), *coef = malloc(n * sizeof(tfr));
		int okf = 1, oki = 1, oko = 1;

		oracle_root(&w, L);
		oracle_root(&g, L + 1);
		TF(inv)(&winv, &w);
		TF(inv)(&ginv, &g);
		u64_fr(&nn, n);
		TF(inv)(&ninv, &nn);
		for (size_t t = 0; t < NTUNE; t++) {
			struct TD *d =
				TN(domain_create_tuned)(L, tunings[t][0], tunings[t][1]);
			tfr *y = dup_vec(x, n);
			if (!d)
				abort();
			/* coset_forward: evaluations of x at g w^i */
			naive_eval(want, x, n, &w, &g, &TF(one));
			TN(coset_forward)(d, y, NULL);
			okf &= vec_eq(y, want, n);
			/* coset_inverse: c_k = (1/n) g^-k sum_i y_i w^-ik */
			memcpy(y, x, n * sizeof(tfr));
			TN(coset_inverse)(d, y, NULL);
			naive_eval(want, x, n, &winv, &TF(one), &ninv);
			tfr gk = TF(one);
			for (size_t k = 0; k < n; k++) {
				TF(mul)(&want[k], &want[k], &gk);
				TF(mul)(&gk, &gk, &ginv);
			}
			oki &= vec_eq(y, want, n);
			/* to_odd_coset: interpolate on H, evaluate on g*H */
			memcpy(y, x, n * sizeof(tfr));
			TN(to_odd_coset)(d, y, NULL);
			naive_eval(coef, x, n, &winv, &TF(one), &ninv);
			naive_eval(want, coef, n, &w, &g, &TF(one));
			oko &= vec_eq(y, want, n);
			free(y);
			TN(domain_destroy)(d);
		}
		ct_ok(okf, "coset_forward n=2^%u equals naive evaluation on omega_2n*H", L);
		ct_ok(oki, "coset_inverse n=2^%u equals naive interpolation from omega_2n*H", L);
		ct_ok(oko, "to_odd_coset n=2^%u equals naive interpolate-then-evaluate", L);
		free(x);
		free(want);
		free(coef);
	}
}

typedef void (*xform)(const struct TD *, tfr *, struct cz_pool *);
static const xform xforms[] = { TN(forward), TN(inverse), TN(coset_forward),
				TN(coset_inverse), TN(to_odd_coset) };

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
			struct TD *d = t ? TN(domain_create_tuned)(L, 2, 3)
						    : TN(domain_create)(L);
			tfr *x = rand_vec(n);
			if (!d)
				abort();
			for (size_t f = 0; f < 5; f++) {
				tfr *want = dup_vec(x, n);
				xforms[f](d, want, NULL);
				for (size_t pi = 0; pi < 2; pi++) {
					tfr *y = dup_vec(x, n);
					if (pools[pi])
						xforms[f](d, y, pools[pi]);
					ok[pi] &= vec_eq(want, y, n);
					free(y);
				}
				free(want);
			}
			free(x);
			TN(domain_destroy)(d);
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
	const unsigned L = T_LARGE_LOG2;
	size_t n = (size_t)1 << L, idx = 1 + (size_t)(next64() % (n - 1));
	struct TD *d = TN(domain_create)(L);
	struct cz_pool *pool = cz_pool_create(2);
	tfr *x = rand_vec(n), *y = dup_vec(x, n), w, wi = TF(one), p = TF(one);
	tfr acc = TF(zero), t;

	if (!d || !pool)
		abort();
	TN(forward)(d, y, pool);
	oracle_root(&w, L);
	for (size_t k = 0; k < idx; k++)
		TF(mul)(&wi, &wi, &w);
	for (size_t j = 0; j < n; j++) {
		TF(mul)(&t, &x[j], &p);
		TF(add)(&acc, &acc, &t);
		TF(mul)(&p, &p, &wi);
	}
	ct_ok(TF(eq)(&acc, &y[idx]), "forward n=2^%u: output %zu equals the naive sum", L, idx);
	TN(inverse)(d, y, pool);
	ct_ok(vec_eq(x, y, n), "inverse(forward(x)) = x for n=2^%u", L);
	free(x);
	free(y);
	cz_pool_destroy(pool);
	TN(domain_destroy)(d);
}

int main(void)
{
	ct_plan((int)NW + 1 + 22 + 27 + 2 + 2 + 1);
	if (!TF(from_dec)(&w32, snarkjs_w[NW - 1].dec))
		abort();
	test_roots();
	test_naive_dft();
	test_naive_coset();
	test_threads();
	test_large();
	errno = 0;
	struct TD *d = TN(domain_create)(T_MAX_LOG2 + 1);
	ct_ok(!d && errno == EINVAL, "a domain of 2^%u is refused (EINVAL)", T_MAX_LOG2 + 1);
	return ct_exit();
}

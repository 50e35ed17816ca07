/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/builtin_merkle.c — the "merkle" built-in circuit (see zk/groth16/builtin.h).
 *
 * Per level, with cur the running digest, sib the sibling, s the path bit:
 *   s·(s − 1) = 0                          path bit is boolean
 *   s·(sib − cur) = left − cur             left = s ? sib : cur
 *   x_0 = left, right = cur + sib − left   (linear, no constraint)
 *   t = x + right + k_i; t·t = t2; t2·t2 = t4; t4·t = x'    ROUNDS times
 *   b_j·(b_j − 1) = 0, 1·(Σ 2^j b_j) = digest               255 + 1 rows
 * and finally 1·digest = root.  Filler rows (boolean nonce bits) bring the
 * row count to exactly 2^K − npub − 1.
 */
#include "zk/groth16/builtin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 16
#define DIGEST_BITS 255
#define LEVEL_ROWS (2 + 3 * ROUNDS + DIGEST_BITS + 1)
#define NPUB 2

struct builder {
	struct cz_cs *cs;
	cz_fr *w;
	uint32_t nvars, cap;
	int err;
	cz_fr m1;                /* −1 */
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rand_fr(cz_fr *r, uint64_t *s)
{
	uint64_t raw[CZ_FR_LIMBS];
	for (int i = 0; i < CZ_FR_LIMBS; i++)
		raw[i] = splitmix(s);
	raw[CZ_FR_LIMBS - 1] &= 0x0fffffffffffffffULL;   /* < 2^252 < r */
	cz_fr_to_mont(r, raw);
}

static uint32_t var_new(struct builder *b, const cz_fr *v)
{
	if (b->nvars == b->cap) {
		uint32_t cap = b->cap * 2;
		cz_fr *w = realloc(b->w, (size_t)cap * sizeof(cz_fr));
		if (!w) {
			b->err = -ENOMEM;
			return 0;
		}
		b->w = w;
		b->cap = cap;
	}
	b->w[b->nvars] = *v;
	return b->nvars++;
}

static void row(struct builder *b)
{
	b->err |= cz_cs_row(b->cs);
}

static void term(struct builder *b, int m, uint32_t var, const cz_fr *c)
{
	b->err |= cz_cs_term(b->cs, m, var, c);
}

/* Boolean wire b: b·(b − 1) = 0. */
static void bool_row(struct builder *b, uint32_t v)
{
	row(b);
	term(b, 0, v, &cz_fr_one);
	term(b, 1, v, &cz_fr_one);
	term(b, 1, 0, &b->m1);
}

static uint32_t bit_var(struct builder *b, int bit)
{
	cz_fr v;
	cz_fr_from_u64(&v, (uint64_t)bit);
	uint32_t var = var_new(b, &v);
	bool_row(b, var);
	return var;
}

/* t = x + right + k = x − left + cur + sib + k·1; in round 0 x = left. */
static void lc_t(struct builder *b, int m, uint32_t x, uint32_t left, uint32_t cur, uint32_t sib,
		 const cz_fr *k)
{
	if (x != left) {
		term(b, m, x, &cz_fr_one);
		term(b, m, left, &b->m1);
	}
	term(b, m, cur, &cz_fr_one);
	term(b, m, sib, &cz_fr_one);
	term(b, m, 0, k);
}

/* One level: returns the digest variable. */
static uint32_t level(struct builder *b, uint32_t cur, uint64_t *seed, const cz_fr *k)
{
	cz_fr sibv, t, d;
	rand_fr(&sibv, seed);
	int s = (int)(splitmix(seed) & 1);
	uint32_t sib = var_new(b, &sibv);
	uint32_t sv = bit_var(b, s);

	/* left = s ? sib : cur;  s·(sib − cur) = left − cur */
	cz_fr leftv = s ? sibv : b->w[cur];
	uint32_t left = var_new(b, &leftv);
	row(b);
	term(b, 0, sv, &cz_fr_one);
	term(b, 1, sib, &cz_fr_one);
	term(b, 1, cur, &b->m1);
	term(b, 2, left, &cz_fr_one);
	term(b, 2, cur, &b->m1);

	/* right = cur + sib − left (linear). */
	cz_fr rightv;
	cz_fr_add(&rightv, &b->w[cur], &sibv);
	cz_fr_sub(&rightv, &rightv, &leftv);

	uint32_t x = left;
	for (int i = 0; i < ROUNDS; i++) {
		cz_fr t2, t4, y;
		cz_fr_add(&t, &b->w[x], &rightv);
		cz_fr_add(&t, &t, &k[i]);
		cz_fr_sqr(&t2, &t);
		cz_fr_sqr(&t4, &t2);
		cz_fr_mul(&y, &t4, &t);
		uint32_t vt2 = var_new(b, &t2), vt4 = var_new(b, &t4), vy = var_new(b, &y);
		/* t = x + cur + sib − left + k_i·1, as a linear combination */
		for (int m = 0; m < 2; m++) {
			if (m == 0)
				row(b);
			lc_t(b, m, x, left, cur, sib, &k[i]);
		}
		term(b, 2, vt2, &cz_fr_one);
		row(b);
		term(b, 0, vt2, &cz_fr_one);
		term(b, 1, vt2, &cz_fr_one);
		term(b, 2, vt4, &cz_fr_one);
		row(b);
		term(b, 0, vt4, &cz_fr_one);
		lc_t(b, 1, x, left, cur, sib, &k[i]);
		term(b, 2, vy, &cz_fr_one);
		x = vy;
	}

	/* Digest bits: the wires real circuits are full of. */
	uint64_t raw[CZ_FR_LIMBS];
	cz_fr_from_mont(raw, &b->w[x]);
	uint32_t bits0 = b->nvars;
	for (int j = 0; j < DIGEST_BITS; j++)
		bit_var(b, (int)((raw[j / 64] >> (j % 64)) & 1));
	row(b);
	term(b, 0, 0, &cz_fr_one);
	cz_fr_from_u64(&d, 1);
	for (int j = 0; j < DIGEST_BITS; j++) {
		term(b, 1, bits0 + (uint32_t)j, &d);
		cz_fr_dbl(&d, &d);
	}
	term(b, 2, x, &cz_fr_one);
	return x;
}

static int merkle(struct builder *b, unsigned log2n, uint64_t seed)
{
	uint64_t rows_total = (1ULL << log2n) - NPUB - 1;
	uint64_t ks = 0x637a6b2d6d65726bULL;   /* round constants: fixed, seed-independent */
	cz_fr k[ROUNDS], v;

	for (int i = 0; i < ROUNDS; i++)
		rand_fr(&k[i], &ks);
	var_new(b, &cz_fr_one);                 /* 0: one */
	uint32_t root = var_new(b, &cz_fr_zero); /* 1: root, set at the end */
	rand_fr(&v, &seed);
	uint32_t cur = var_new(b, &v);          /* 2: leaf */

	/* the last row is 1·digest = root */
	uint64_t levels = (rows_total - 1) / LEVEL_ROWS;
	for (uint64_t l = 0; l < levels && !b->err; l++)
		cur = level(b, cur, &seed, k);
	b->w[root] = b->w[cur];
	row(b);
	term(b, 0, 0, &cz_fr_one);
	term(b, 1, cur, &cz_fr_one);
	term(b, 2, root, &cz_fr_one);
	while (b->cs->nrows < rows_total && !b->err)
		bit_var(b, (int)(splitmix(&seed) & 1));
	return b->err;
}

int cz_builtin_build(const char *name, unsigned log2n, uint64_t seed, struct cz_cs *cs,
		     cz_fr **w, char err[256])
{
	struct builder b = { .cs = cs, .cap = 1024 };

	if (strcmp(name, "merkle")) {
		snprintf(err, 256, "unknown built-in circuit '%s' (known: %s)", name, cz_builtin_names());
		return -1;
	}
	if (log2n < CZ_BUILTIN_MIN_LOG2 || log2n > CZ_BUILTIN_MAX_LOG2) {
		snprintf(err, 256, "--log2 %u out of range for '%s' (%d..%d)", log2n, name,
			 CZ_BUILTIN_MIN_LOG2, CZ_BUILTIN_MAX_LOG2);
		return -1;
	}
	cz_fr_neg(&b.m1, &cz_fr_one);
	b.w = malloc(b.cap * sizeof(cz_fr));
	if (!b.w || cz_cs_init(cs, UINT32_MAX, NPUB)) {
		free(b.w);
		snprintf(err, 256, "out of memory building '%s' at 2^%u", name, log2n);
		return -1;
	}
	if (merkle(&b, log2n, seed)) {
		free(b.w);
		cz_cs_free(cs);
		snprintf(err, 256, "out of memory building '%s' at 2^%u", name, log2n);
		return -1;
	}
	cs->nvars = b.nvars;
	*w = b.w;
	return 0;
}

const char *cz_builtin_names(void)
{
	return "merkle";
}

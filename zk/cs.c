/* SPDX-License-Identifier: MIT */
/* zk/cs.c — growable compressed-row R1CS (see zk/cs.h). */
#include "zk/cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cz_cs_init(struct cz_cs *cs, uint32_t nvars, uint32_t npub)
{
	memset(cs, 0, sizeof(*cs));
	cs->nvars = nvars;
	cs->npub = npub;
	cs->rowcap = 1024;
	for (int k = 0; k < 3; k++) {
		cs->m[k].off = calloc(cs->rowcap + 1, sizeof(uint32_t));
		if (!cs->m[k].off) {
			cz_cs_free(cs);
			return -ENOMEM;
		}
	}
	return 0;
}

void cz_cs_free(struct cz_cs *cs)
{
	for (int k = 0; k < 3; k++) {
		free(cs->m[k].off);
		free(cs->m[k].terms);
	}
	memset(cs, 0, sizeof(*cs));
}

int cz_cs_row(struct cz_cs *cs)
{
	if (cs->nrows == cs->rowcap) {
		uint32_t cap = cs->rowcap * 2;
		for (int k = 0; k < 3; k++) {
			uint32_t *o = realloc(cs->m[k].off, (cap + 1) * sizeof(uint32_t));
			if (!o)
				return -ENOMEM;
			cs->m[k].off = o;
		}
		cs->rowcap = cap;
	}
	cs->nrows++;
	for (int k = 0; k < 3; k++)
		cs->m[k].off[cs->nrows] = (uint32_t)cs->m[k].nterms;
	return 0;
}

int cz_cs_term(struct cz_cs *cs, int matrix, uint32_t var, const cz_fr *coef)
{
	struct cz_cs_matrix *m = &cs->m[matrix];

	if (!cs->nrows || var >= cs->nvars || matrix < 0 || matrix > 2)
		return -EINVAL;
	if (m->nterms == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4096;
		struct cz_cs_term *t = realloc(m->terms, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		m->terms = t;
		m->cap = cap;
	}
	m->terms[m->nterms].var = var;
	m->terms[m->nterms].coef = *coef;
	m->nterms++;
	m->off[cs->nrows] = (uint32_t)m->nterms;
	return 0;
}

static void row_eval(cz_fr *r, const struct cz_cs_matrix *m, uint32_t row, const cz_fr *w)
{
	*r = cz_fr_zero;
	for (uint32_t t = m->off[row]; t < m->off[row + 1]; t++) {
		cz_fr x;
		cz_fr_mul(&x, &m->terms[t].coef, &w[m->terms[t].var]);
		cz_fr_add(r, r, &x);
	}
}

long cz_cs_check(const struct cz_cs *cs, const cz_fr *w)
{
	for (uint32_t i = 0; i < cs->nrows; i++) {
		cz_fr a, b, c;
		row_eval(&a, &cs->m[0], i, w);
		row_eval(&b, &cs->m[1], i, w);
		row_eval(&c, &cs->m[2], i, w);
		cz_fr_mul(&a, &a, &b);
		if (!cz_fr_eq(&a, &c))
			return i;
	}
	return -1;
}

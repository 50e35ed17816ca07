/* SPDX-License-Identifier: MIT */
/*
 * zk/groth16/cs_tmpl_pvt.h — the growable compressed-row R1CS (zk/groth16/cs.h) written once
 * over the scalar field; private to zk/groth16/cs.c, which includes it for both
 * curves.  The includer defines CS(n) (names: cz_cs_##n), CS_T (the struct
 * tag) and CS_FR (the field prefix and type).
 */
#define CS_CAT2(a, b) a##_##b
#define CS_CAT(a, b) CS_CAT2(a, b)
#define CSF(n) CS_CAT(CS_FR, n)

int CS(init)(struct CS_T *cs, uint32_t nvars, uint32_t npub)
{
	memset(cs, 0, sizeof(*cs));
	cs->nvars = nvars;
	cs->npub = npub;
	cs->rowcap = 1024;
	for (int k = 0; k < 3; k++) {
		cs->m[k].off = calloc(cs->rowcap + 1, sizeof(uint32_t));
		if (!cs->m[k].off) {
			CS(free)(cs);
			return -ENOMEM;
		}
	}
	return 0;
}

void CS(free)(struct CS_T *cs)
{
	for (int k = 0; k < 3; k++) {
		free(cs->m[k].off);
		free(cs->m[k].terms);
	}
	memset(cs, 0, sizeof(*cs));
}

int CS(row)(struct CS_T *cs)
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

int CS(term)(struct CS_T *cs, int matrix, uint32_t var, const CS_FR *coef)
{
	struct CS(matrix) *m = &cs->m[matrix];

	if (!cs->nrows || var >= cs->nvars || matrix < 0 || matrix > 2)
		return -EINVAL;
	if (m->nterms == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 4096;
		struct CS(term) *t = realloc(m->terms, cap * sizeof(*t));
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

static void CS(row_eval)(CS_FR *r, const struct CS(matrix) *m, uint32_t row, const CS_FR *w)
{
	*r = CSF(zero);
	for (uint32_t t = m->off[row]; t < m->off[row + 1]; t++) {
		CS_FR x;
		CSF(mul)(&x, &m->terms[t].coef, &w[m->terms[t].var]);
		CSF(add)(r, r, &x);
	}
}

long CS(check)(const struct CS_T *cs, const CS_FR *w)
{
	for (uint32_t i = 0; i < cs->nrows; i++) {
		CS_FR a, b, c;
		CS(row_eval)(&a, &cs->m[0], i, w);
		CS(row_eval)(&b, &cs->m[1], i, w);
		CS(row_eval)(&c, &cs->m[2], i, w);
		CSF(mul)(&a, &a, &b);
		if (!CSF(eq)(&a, &c))
			return i;
	}
	return -1;
}

#undef CSF

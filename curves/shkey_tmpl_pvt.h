/* SPDX-License-Identifier: MIT */
#define SK_CAT2(a, b) a##_##b
#define SK_CAT(a, b) SK_CAT2(a, b)
#define SKA(n) SK_CAT(SK_G1, n)
#define SKB(n) SK_CAT(SK_G2, n)

/*
 * curves/shkey_tmpl_pvt.h — a resident key in a shared region (design in
 * curves/shkey.c), written once over the curve; private to curves/shkey.c,
 * which includes it for BLS12-381 (cz_shkey_*, magic "cuzkkey1") and BN254
 * (cz_bn254_shkey_*, "cuzkkbn1").  The includer defines SK(n) (names),
 * SK_KEY SK_COEF (the key's struct tags), SK_G1 SK_G2 (group prefixes),
 * SK_KEY_FREE and SK_MAGIC (8 bytes).
 */
struct SK(hdr) {
	char magic[8];          /* "cuzkkey1" */
	uint32_t nvars, npub, log2n, pad;
	uint64_t ncoefs;
	SKA(affine) alpha1, beta1, delta1;
	SKB(affine) beta2, gamma2, delta2;
	uint64_t off[NARR], len[NARR];  /* bytes; off 0: absent */
	uint32_t fxc[CZ_G16_FX], fxs[CZ_G16_FX]; /* the tables' window and stride */
};

/* Table i's shape (zk/msm/msm_fixed.h) for window c, stride s, over its
 * query's bases; c 0: none. */
static void SK(fx_shape)(struct SK_KEY *k, int i, unsigned c, unsigned s)
{
	size_t n = i == CZ_G16_FX_C ? k->nvars - k->npub - 1
		   : i == CZ_G16_FX_H ? (size_t)1 << k->log2n : k->nvars;
	size_t aff = i == CZ_G16_FX_B2 ? sizeof(SKB(affine)) : sizeof(SKA(affine));
	if (c)
		cz_msm_fixed_shape(&k->fx[i], n, aff, c, s);   /* zeroed if out of range */
	else
		memset(&k->fx[i], 0, sizeof(k->fx[i]));
}

/* The arrays by their place in the header, with their lengths in bytes. */
static void SK(arrays)(struct SK_KEY *k, void **p[NARR], size_t len[NARR])
{
	size_t n = (size_t)1 << k->log2n;
	p[0] = (void **)&k->ic;      len[0] = (k->npub + 1) * sizeof(SKA(affine));
	p[1] = (void **)&k->a;       len[1] = k->nvars * sizeof(SKA(affine));
	p[2] = (void **)&k->b1;      len[2] = k->nvars * sizeof(SKA(affine));
	p[3] = (void **)&k->b2;      len[3] = k->nvars * sizeof(SKB(affine));
	p[4] = (void **)&k->c;       len[4] = (k->nvars - k->npub - 1) * sizeof(SKA(affine));
	p[5] = (void **)&k->h;       len[5] = n * sizeof(SKA(affine));
	p[6] = (void **)&k->coefs;   len[6] = k->ncoefs * sizeof(struct SK_COEF);
	p[7] = (void **)&k->row_off; len[7] = (n + 1) * sizeof(uint32_t);
	for (int i = 0; i < CZ_G16_FX; i++) {   /* fixed-base tables, where built */
		p[8 + i] = &k->fx[i].tab;
		len[8 + i] = k->fx[i].bytes;
	}
}

/* Array i has a place in the region: it is held, or it is a table
 * planned (key_tables_plan: shaped, tab NULL) to be filled there. */
static bool SK(present)(void **p[NARR], const size_t len[NARR], int i)
{
	return *p[i] || (i >= 8 && len[i]);
}

int SK(share)(struct SK_KEY *k, struct cz_region *r, uint64_t nodes, char *err, size_t cap)
{
	void **p[NARR];
	size_t len[NARR], bytes = ALIGN64(sizeof(struct SK(hdr)));

	if (k->nvars < k->npub + 1 || k->log2n > 40) {
		snprintf(err, cap, "the key's sizes disagree (%u signals, %u public)", k->nvars, k->npub);
		return -EINVAL;
	}
	SK(arrays)(k, p, len);
	for (int i = 0; i < NARR; i++)
		if (SK(present)(p, len, i))
			bytes += ALIGN64(len[i]);
	/* Huge pages only for a key worth them: a small one on 2 MiB pages
	 * would cost up to 2 MiB of RAM for a few KiB (e2e_ctl loads 302). */
	unsigned fl = CZ_REGION_QUIET | (bytes < (8u << 20) ? CZ_REGION_NO_HUGETLB | CZ_REGION_NO_THP : 0);
	bool spread = nodes & (nodes - 1);
	int rc = cz_region_create(r, bytes, CZ_REGION_NODE_NONE, fl | (spread ? CZ_REGION_LAZY : 0));
	if (rc) {
		snprintf(err, cap, "cannot make a %zu-byte shared region for the key: %s", bytes,
			 strerror(-rc));
		return rc;
	}
	if (spread)
		interleave(r, nodes);
	struct SK(hdr) *h = r->base;
	memcpy(h->magic, SK_MAGIC, 8);
	h->nvars = k->nvars;
	h->npub = k->npub;
	h->log2n = k->log2n;
	h->ncoefs = k->ncoefs;
	h->alpha1 = k->alpha1;
	h->beta1 = k->beta1;
	h->delta1 = k->delta1;
	h->beta2 = k->beta2;
	h->gamma2 = k->gamma2;
	h->delta2 = k->delta2;
	for (int i = 0; i < CZ_G16_FX; i++) {
		h->fxc[i] = SK(present)(p, len, 8 + i) ? k->fx[i].c : 0;
		h->fxs[i] = SK(present)(p, len, 8 + i) ? k->fx[i].stride : 0;
	}
	size_t at = ALIGN64(sizeof(*h));
	for (int i = 0; i < NARR; i++) {
		if (!SK(present)(p, len, i))
			continue;
		h->off[i] = at;
		h->len[i] = len[i];
		if (*p[i]) {    /* a planned table (no tab yet) is filled in place later */
			memcpy((char *)r->base + at, *p[i], len[i]);
			free(*p[i]);
		}
		*p[i] = (char *)r->base + at;
		at += ALIGN64(len[i]);
	}
	return 0;
}

void SK(free)(struct SK_KEY *k, struct cz_region *r)
{
	void **p[NARR];
	size_t len[NARR];
	if (!r->base) {
		SK_KEY_FREE(k);         /* never shared: its arrays are the heap's */
		return;
	}
	SK(arrays)(k, p, len);
	for (int i = 0; i < NARR; i++)
		*p[i] = NULL;
	cz_region_destroy(r);
}

int SK(attach)(const struct cz_region *r, struct SK_KEY *k)
{
	const struct SK(hdr) *h = r->base;
	void **p[NARR];
	size_t len[NARR];

	if (r->size < sizeof(*h) || memcmp(h->magic, SK_MAGIC, 8) || h->log2n > 40 ||
	    h->nvars < h->npub + 1)
		return -EPROTO;
	*k = (struct SK_KEY){
		.nvars = h->nvars, .npub = h->npub, .log2n = h->log2n, .ncoefs = h->ncoefs,
		.alpha1 = h->alpha1, .beta1 = h->beta1, .delta1 = h->delta1,
		.beta2 = h->beta2, .gamma2 = h->gamma2, .delta2 = h->delta2,
	};
	for (int i = 0; i < CZ_G16_FX; i++)
		SK(fx_shape)(k, i, h->fxc[i], h->fxs[i]);
	SK(arrays)(k, p, len);
	for (int i = 0; i < NARR; i++) {
		if (!h->off[i])
			continue;
		/* sizes from the header are checked against the mapping and
		 * against what the key's own counts imply */
		if (h->len[i] != len[i] || h->off[i] > r->size || len[i] > r->size - h->off[i])
			return -EPROTO;
		*p[i] = (char *)r->base + h->off[i];
	}
	return 0;
}

#undef SKA
#undef SKB

/* SPDX-License-Identifier: MIT */
/*
 * engine/shkey.c — a resident key in a shared region.
 *
 * At load the key's arrays (points, coefficients, row index) move out of
 * the heap into one memfd region (alloc/region.h; hugepages where
 * reserved) and the key's pointers are re-pointed there, so cuzkd keeps a
 * single copy.  The region starts with a header that says where each array
 * lies, by offset: a device child (engine/devproc.c) that receives the fd
 * maps it read-only and builds its own struct cz_groth16_key over it
 * (cz_shkey_attach), so a restarted child reads no file and copies nothing.
 */
#include "engine/shkey.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NARR 8
#define ALIGN64(x) (((x) + 63) & ~(size_t)63)

struct shkey_hdr {
	char magic[8];          /* "cuzkkey1" */
	uint32_t nvars, npub, log2n, pad;
	uint64_t ncoefs;
	cz_g1_affine alpha1, beta1, delta1;
	cz_g2_affine beta2, gamma2, delta2;
	uint64_t off[NARR], len[NARR];  /* bytes; off 0: absent */
};

/* The arrays by their place in the header, with their lengths in bytes. */
static void arrays(struct cz_groth16_key *k, void **p[NARR], size_t len[NARR])
{
	size_t n = (size_t)1 << k->log2n;
	p[0] = (void **)&k->ic;      len[0] = (k->npub + 1) * sizeof(cz_g1_affine);
	p[1] = (void **)&k->a;       len[1] = k->nvars * sizeof(cz_g1_affine);
	p[2] = (void **)&k->b1;      len[2] = k->nvars * sizeof(cz_g1_affine);
	p[3] = (void **)&k->b2;      len[3] = k->nvars * sizeof(cz_g2_affine);
	p[4] = (void **)&k->c;       len[4] = (k->nvars - k->npub - 1) * sizeof(cz_g1_affine);
	p[5] = (void **)&k->h;       len[5] = n * sizeof(cz_g1_affine);
	p[6] = (void **)&k->coefs;   len[6] = k->ncoefs * sizeof(struct cz_groth16_coef);
	p[7] = (void **)&k->row_off; len[7] = (n + 1) * sizeof(uint32_t);
}

/* Spreads r's pages round-robin over the nodes in mask (bit n: node n),
 * before any is touched; then prefaults it as cz_region_create would. */
static void interleave(struct cz_region *r, uint64_t mask)
{
	unsigned long m[1] = { (unsigned long)mask };
	if (mask & (mask - 1) &&
	    syscall(SYS_mbind, r->base, r->size, 3 /* MPOL_INTERLEAVE */, m, 65ul, 0u))
		fprintf(stderr, "cuzkd: cannot interleave a key over nodes 0x%llx: %s (its pages go where "
			"first touched)\n", (unsigned long long)mask, strerror(errno));
	cz_region_populate(r, 0, r->size);
}

int cz_shkey_share(struct cz_groth16_key *k, struct cz_region *r, uint64_t nodes, char *err, size_t cap)
{
	void **p[NARR];
	size_t len[NARR], bytes = ALIGN64(sizeof(struct shkey_hdr));

	if (k->nvars < k->npub + 1 || k->log2n > 40) {
		snprintf(err, cap, "the key's sizes disagree (%u signals, %u public)", k->nvars, k->npub);
		return -EINVAL;
	}
	arrays(k, p, len);
	for (int i = 0; i < NARR; i++)
		if (*p[i])
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
	struct shkey_hdr *h = r->base;
	memcpy(h->magic, "cuzkkey1", 8);
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
	size_t at = ALIGN64(sizeof(*h));
	for (int i = 0; i < NARR; i++) {
		if (!*p[i])
			continue;
		h->off[i] = at;
		h->len[i] = len[i];
		memcpy((char *)r->base + at, *p[i], len[i]);
		free(*p[i]);
		*p[i] = (char *)r->base + at;
		at += ALIGN64(len[i]);
	}
	return 0;
}

void cz_shkey_free(struct cz_groth16_key *k, struct cz_region *r)
{
	void **p[NARR];
	size_t len[NARR];
	if (!r->base) {
		cz_groth16_key_free(k);         /* never shared: its arrays are the heap's */
		return;
	}
	arrays(k, p, len);
	for (int i = 0; i < NARR; i++)
		*p[i] = NULL;
	cz_region_destroy(r);
}

int cz_shkey_attach(const struct cz_region *r, struct cz_groth16_key *k)
{
	const struct shkey_hdr *h = r->base;
	void **p[NARR];
	size_t len[NARR];

	if (r->size < sizeof(*h) || memcmp(h->magic, "cuzkkey1", 8) || h->log2n > 40 ||
	    h->nvars < h->npub + 1)
		return -EPROTO;
	*k = (struct cz_groth16_key){
		.nvars = h->nvars, .npub = h->npub, .log2n = h->log2n, .ncoefs = h->ncoefs,
		.alpha1 = h->alpha1, .beta1 = h->beta1, .delta1 = h->delta1,
		.beta2 = h->beta2, .gamma2 = h->gamma2, .delta2 = h->delta2,
	};
	arrays(k, p, len);
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

/* SPDX-License-Identifier: MIT */
/*
 * zk/io/groth16_io_tmpl_pvt.h — a .zkey to the prover's key and back
 * (zk/io/groth16_io.h), written once over the curve; private to
 * zk/io/groth16_io.c, which includes it for BLS12-381 (cz_groth16_key_load)
 * and BN254 (cz_bn254_groth16_key_load).  The includer defines GI(n) (the
 * prover's names: cz_groth16_##n), GIZ(n) (the .zkey reader's: cz_zkey_##n),
 * GI_FR (the scalar field), GI_KEY GI_ZKEY (struct tags) and GI_G1B (bytes
 * of one G1 point in the file: x, y).
 */
#define GI_CAT2(a, b) a##_##b
#define GI_CAT(a, b) GI_CAT2(a, b)
#define GIF(n) GI_CAT(GI_FR, n)

/* The point sections, read from the file straight into the key's arrays
 * (the open left them there: CZ_ZKEY_LAZY_POINTS), so no section is ever
 * resident twice and the load's peak is the arrays plus the coefficient
 * section; then the file is checked unchanged since the open. */
static int GI(load_points)(struct GI_KEY *k, const struct GI_ZKEY *z, struct cz_pool *pool,
		       char *e)
{
	uint64_t nv = k->nvars, n = 1ull << k->log2n, npc = (uint64_t)k->npub + 1;
	size_t g1 = sizeof(*k->a);

	k->ic = malloc(npc * g1);
	k->a = cz_groth16_key_alloc(nv * g1);
	k->b1 = cz_groth16_key_alloc(nv * g1);
	k->b2 = cz_groth16_key_alloc(nv * sizeof(*k->b2));
	k->c = cz_groth16_key_alloc((nv - npc) * g1);
	k->h = cz_groth16_key_alloc(n * g1);
	if (!k->ic || !k->a || !k->b1 || !k->b2 || !k->c || !k->h)
		return cz_errf(e, -ENOMEM, "%s: out of memory for the key", z->f.name);
	int rc;
	if ((rc = GIZ(g1)(z, CZ_ZKEY_IC, 0, npc, k->ic, e)) ||
	    (rc = GIZ(g1_pool)(z, CZ_ZKEY_A, 0, nv, k->a, pool, e)) ||
	    (rc = GIZ(g1_pool)(z, CZ_ZKEY_B1, 0, nv, k->b1, pool, e)) ||
	    (rc = GIZ(g2_pool)(z, CZ_ZKEY_B2, 0, nv, k->b2, pool, e)) ||
	    (rc = GIZ(g1_pool)(z, CZ_ZKEY_C, 0, nv - npc, k->c, pool, e)) ||
	    (rc = GIZ(g1_pool)(z, CZ_ZKEY_H, 0, n, k->h, pool, e)))
		return rc;
	return cz_iden3_recheck(&z->f, e);
}

/*
 * The coefficients, checked, converted and sorted by row in one pass over
 * the file's records (what cz_zkey_coefs() and GI(key_index) do in three).
 * A record stores S = c·R² mod r, and synthesis wants the Montgomery form of
 * c·R, whose limbs are c·R·R mod r: S itself, so a value is a copy once it is
 * known to be < r.  Rows are counted first from the records' constraint
 * fields, then each record goes straight to its place (a counting sort,
 * stable: a row keeps the file's order), so neither an unsorted copy nor a
 * cursor array is made.  A bad record is named by cz_zkey_coefs(), as
 * before; without memory for the row index the coefficients stay in file
 * order (which only costs parallel synthesis, as with GI(key_index)).
 */
static int GI(load_coefs)(struct GI_KEY *k, const struct GI_ZKEY *z, char *e)
{
	size_t n = (size_t)1 << k->log2n, nc = z->n_coefs;
	struct GIZ(coef) bad;
	uint32_t *off;

	k->coefs = cz_groth16_key_alloc((nc ? nc : 1) * sizeof(*k->coefs));
	if (!k->coefs)
		return cz_errf(e, -ENOMEM, "%s: out of memory for the key", z->f.name);
	k->ncoefs = nc;
	off = calloc(n + 1, sizeof(*off));      /* nc < 2^32: counts fit */
	for (size_t i = 0; off && i < nc; i++) {
		uint32_t row = cz_le32(z->coefs + i * CZ_ZKEY_COEF_BYTES + 4);
		if (row >= n)
			break;          /* named below */
		off[row + 1]++;
	}
	for (size_t r = 0; off && r < n; r++)
		off[r + 1] += off[r];           /* off[r]: where row r starts */
	for (size_t i = 0; i < nc; i++) {
		const uint8_t *b = z->coefs + i * CZ_ZKEY_COEF_BYTES;
		uint32_t m = cz_le32(b), row = cz_le32(b + 4), var = cz_le32(b + 8);
		GI_FR v;

		if (m > 1 || row >= n || var >= z->n_vars || !GIF(from_bytes_le_mont)(&v, b + 12)) {
			free(off);
			return GIZ(coefs)(z, i, 1, &bad, e);    /* the record's message */
		}
		struct GI(coef) *c = &k->coefs[off ? off[row]++ : i];
		c->matrix = m;
		c->row = row;
		c->var = var;
		c->value = v;
	}
	if (off) {              /* off[r] is now where row r + 1 starts */
		memmove(off + 1, off, n * sizeof(*off));
		off[0] = 0;
	}
	k->row_off = off;
	return 0;
}

int GI(key_load)(struct GI_KEY *k, const char *path, struct cz_pool *pool,
			char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	/* No check pass at open: GI(load_coefs) checks each record as it
	 * converts it, and the point loads check range and curve as they read
	 * the points from the file straight into the key's arrays. */
	struct GI_ZKEY *z = GIZ(open_flags)(path, CZ_ZKEY_LAZY_POINTS, e);
	int rc = -EINVAL;

	memset(k, 0, sizeof(*k));
	if (z) {
		k->nvars = z->n_vars;
		k->npub = z->n_public;
		k->log2n = z->log2_domain;
		k->alpha1 = z->alpha1, k->beta1 = z->beta1, k->delta1 = z->delta1;
		k->beta2 = z->beta2, k->gamma2 = z->gamma2, k->delta2 = z->delta2;
		rc = GI(load_coefs)(k, z, e);   /* first: a bad record fails fast */
		if (!rc)
			rc = GI(load_points)(k, z, pool, e);
		GIZ(close)(z);
	}
	if (rc)
		GI(key_free)(k);
	snprintf(err, cap, "%s", e);
	return rc;
}

int GI(key_save)(const struct GI_KEY *k, const char *path, char *err, size_t cap)
{
	char e[CZ_ERRLEN] = "";
	GI_FR one_raw = { { 1 } };   /* Montgomery-multiplying by it divides by R */
	struct GIZ(coef) *cf = malloc((k->ncoefs ? k->ncoefs : 1) * sizeof(*cf));
	if (!cf) {
		snprintf(err, cap, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k->ncoefs; i++) {
		cf[i].matrix = k->coefs[i].matrix;
		cf[i].constraint = k->coefs[i].row;
		cf[i].signal = k->coefs[i].var;
		GIF(mul)(&cf[i].value, &k->coefs[i].value, &one_raw);
	}
	struct GIZ(parts) p = {
		.n_vars = k->nvars, .n_public = k->npub, .domain_size = 1u << k->log2n,
		.alpha1 = k->alpha1, .beta1 = k->beta1, .delta1 = k->delta1,
		.beta2 = k->beta2, .gamma2 = k->gamma2, .delta2 = k->delta2,
		.ic = k->ic, .coefs = cf, .n_coefs = (uint32_t)k->ncoefs,
		.a = k->a, .b1 = k->b1, .b2 = k->b2, .c = k->c, .h = k->h,
	};
	int rc = GIZ(write)(path, &p, e);
	free(cf);
	snprintf(err, cap, "%s", e);
	return rc;
}

#undef GIF

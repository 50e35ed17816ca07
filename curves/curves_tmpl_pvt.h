/* SPDX-License-Identifier: MIT */
/*
 * curves/curves_tmpl_pvt.h — one curve's ops (curves/curves.h), written once
 * over the curve; private to curves/curves.c, which includes it once per
 * curve.  The includer defines CV(n) (the static names), CV_CURVE (its
 * enum cz_curve), CV_M (its member of union cz_curve_key and union
 * cz_dev_proof), CV_W(n) (cz_dev_work's member n of this curve), CV_R (Fr's
 * modulus), CV_PROVES(be) (whether backend be proves it), CV_FR, and the
 * curve's instances: CV_KEY(n) (cz_groth16_n), CV_SHKEY(n), CV_NTT(n)
 * (cz_ntt_n), CV_PART(n) (cz_synth_part_n) and CV_PART_T (its block's
 * struct), CV_SYNTH_ABC, CV_WTNS_READ_FD,
 * CV_JSON(n) (snarkjs_json.h's P##n), and CV_PROOF_BIN (the proof.bin
 * writer, or leaves it undefined: none).
 */

static const uint64_t CV(r)[4] = CV_R;

static int CV(backend_check)(const struct cz_backend *be, const char *path, char *err, size_t cap)
{
	if (CV_PROVES(be))
		return 0;
	snprintf(err, cap, "%s: curve %s, expected %s: backend %s proves no other yet (cpu, null and "
		 "cuda prove both)", path, cz_curve_name(CV_CURVE), cz_curve_name(CZ_CURVE_BLS12_381), be->name);
	return -1;
}

static int CV(key_load)(union cz_curve_key *k, const char *path, char *err, size_t cap)
{
	return CV_KEY(key_load)(&k->CV_M, path, NULL, err, cap);
}

static int CV(key_share)(union cz_curve_key *k, struct cz_region *r, uint64_t nodes, char *err, size_t cap)
{
	return CV_SHKEY(share)(&k->CV_M, r, nodes, err, cap);
}

static void CV(key_free)(union cz_curve_key *k, struct cz_region *r)
{
	CV_SHKEY(free)(&k->CV_M, r);
}

static int CV(key_attach)(const struct cz_region *r, union cz_curve_key *k)
{
	return CV_SHKEY(attach)(r, &k->CV_M);
}

static uint64_t CV(key_bytes)(const union cz_curve_key *k)
{
	return CV_KEY(key_bytes)(&k->CV_M);
}

static uint64_t CV(key_tables_plan)(union cz_curve_key *k, uint64_t max_bytes, unsigned threads,
				   uint64_t *total)
{
	return CV_KEY(key_tables_plan)(&k->CV_M, max_bytes, threads, total);
}

static int CV(key_tables_fill)(union cz_curve_key *k, struct cz_pool *pool, _Atomic uint64_t *done)
{
	return CV_KEY(key_tables_fill)(&k->CV_M, pool, done);
}

static uint64_t CV(key_table_bytes)(const union cz_curve_key *k)
{
	uint64_t b = 0;
	for (int i = 0; i < CZ_G16_FX; i++)
		b += k->CV_M.fx[i].tab ? k->CV_M.fx[i].bytes : 0;
	return b;
}

static void *CV(dom_create)(uint32_t log2n)
{
	return CV_NTT(domain_create)(log2n);
}

static uint64_t CV(dom_bytes)(const void *dom)
{
	return CV_NTT(domain_bytes)(dom);
}

static void CV(dom_destroy)(void *dom)
{
	CV_NTT(domain_destroy)(dom);
}

static uint64_t CV(part_bytes)(const union cz_curve_key *k)
{
	return CV_PART(bytes)(&k->CV_M);
}

static void CV(part_wipe)(const union cz_curve_key *k, void *mem)
{
	CV_PART(wipe)(&k->CV_M, mem);
}

static void CV(work)(struct cz_dev_work *w, const union cz_curve_key *k, const void *dom, void *mem)
{
	w->curve = CV_CURVE;
	w->CV_W(key) = &k->CV_M;
	w->CV_W(dom) = dom;
	if (!mem)
		return;
	struct CV_PART_T b;
	CV_PART(carve)(&k->CV_M, mem, &b);
	w->w = b.w;
	w->CV_W(a) = b.a;
	w->CV_W(b) = b.b;
	w->CV_W(c) = b.c;
	w->h = b.h;
}

static void CV(synth_abc)(const struct cz_dev_work *w)
{
	CV_SYNTH_ABC(w->CV_W(key), w->w, w->CV_W(a), w->CV_W(b), w->CV_W(c), NULL);
}

static size_t CV(proof_json)(char *buf, size_t cap, const union cz_dev_proof *p)
{
	return CV_JSON(proof_json_render)(buf, cap, &p->CV_M);
}

static size_t CV(public_json)(char *buf, size_t cap, const void *pub, size_t npub)
{
	return CV_JSON(public_json_render)(buf, cap, (const CV_FR *)pub, npub);
}

#ifdef CV_PROOF_BIN
static void CV(proof_bin)(uint8_t *out, const union cz_dev_proof *p)
{
	CV_PROOF_BIN(out, &p->CV_M);
}
#endif

static const struct cz_curve_ops CV(ops) = {
	.curve = CV_CURVE,
	.r = CV(r),
	.backend_check = CV(backend_check),
	.key_load = CV(key_load),
	.key_share = CV(key_share),
	.key_free = CV(key_free),
	.key_attach = CV(key_attach),
	.key_bytes = CV(key_bytes),
	.key_tables_plan = CV(key_tables_plan),
	.key_tables_fill = CV(key_tables_fill),
	.key_table_bytes = CV(key_table_bytes),
	.dom_create = CV(dom_create),
	.dom_bytes = CV(dom_bytes),
	.dom_destroy = CV(dom_destroy),
	.part_bytes = CV(part_bytes),
	.part_wipe = CV(part_wipe),
	.work = CV(work),
	.wtns_read_fd = CV_WTNS_READ_FD,
	.synth_abc = CV(synth_abc),
	.proof_json = CV(proof_json),
	.public_json = CV(public_json),
#ifdef CV_PROOF_BIN
	.proof_bin = CV(proof_bin),
#endif
};

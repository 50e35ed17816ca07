/* SPDX-License-Identifier: MIT */
/*
 * zk/io/zkey_tmpl_pvt.h — the snarkjs Groth16 .zkey reader and writer, written
 * once over the curve (format in zk/io/zkey.h); private to its instances,
 * zk/io/zkey.c (BLS12-381: cz_zkey_*) and zk/io/bn254_zkey.c (BN254:
 * cz_bn254_zkey_*).
 *
 * The reader keeps pointers into the read-only mapping and converts on
 * demand; since the field types are Montgomery with the same R = 2^(8·n8)
 * as the file (2^384 for BLS12-381's Fp, 2^256 for BN254's), a
 * coordinate's conversion is a copy plus a range check.  The full-key
 * subgroup check costs one scalar multiplication per point (about the price
 * of 2-4 MSM buckets per point); it runs on a thread pool in chunks.
 *
 * The includer defines ZK(n) (public names: cz_zkey_##n), ZK_T ZK_COEF
 * ZK_PARTS ZK_VK (struct tags), ZK_VK_FREE, ZK_FP ZK_FR ZK_G1 ZK_G2
 * (prefixes), ZK_FP_BYTES ZK_FR_BYTES, ZK_PRIME_P ZK_PRIME_R (the
 * expected primes, enum cz_iden3_prime), ZK_WTNS (the curve's witness
 * struct tag: defines check_wtns) and ZK_WITH_R1CS where the curve has an
 * .r1cs reader (check_r1cs).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pool.h"
#include "zk/io/outfile.h"

#define ZK_CAT2(a, b) a##_##b
#define ZK_CAT(a, b) ZK_CAT2(a, b)
#define F1(n) ZK_CAT(ZK_FP, n)
#define F2(n) ZK_CAT(ZK_FP2, n)
#define FR(n) ZK_CAT(ZK_FR, n)
#define G1(n) ZK_CAT(ZK_G1, n)
#define G2(n) ZK_CAT(ZK_G2, n)
typedef ZK_FR zk_fr;
typedef G1(affine) zk_g1;
typedef G2(affine) zk_g2;

#define G1_BYTES (2 * ZK_FP_BYTES)
#define G2_BYTES (4 * ZK_FP_BYTES)
/* A lazy section is read into an array of points as bytes (conv_read). */
_Static_assert(sizeof(zk_g1) == G1_BYTES && sizeof(zk_g2) == G2_BYTES,
	       "affine points are their coordinates, without padding");

static const char *const sec_names[11] = {
	[1] = "header", [2] = "groth16 header", [3] = "IC", [4] = "coefficients",
	[5] = "A", [6] = "B1", [7] = "B2", [8] = "C", [9] = "H", [10] = "contributions",
};

static bool is_g2_sec(int s) { return s == CZ_ZKEY_B2; }
static bool is_point_sec(int s) { return s == 3 || (s >= 5 && s <= 9); }

/* Point decoding: 0, or which check failed. */
enum { PT_OK, PT_XRANGE, PT_YRANGE, PT_CURVE, PT_SUBGROUP };

static const char *const pt_msgs[] = {
	"ok", "x >= p (not a canonical Montgomery value)", "y >= p (not a canonical Montgomery value)",
	"not on the curve", "not in the prime-order subgroup",
};

static int dec_g1(zk_g1 *P, const uint8_t *b, bool subgroup)
{
	if (!F1(from_bytes_le_mont)(&P->x, b))
		return PT_XRANGE;
	if (!F1(from_bytes_le_mont)(&P->y, b + ZK_FP_BYTES))
		return PT_YRANGE;
	if (!G1(affine_on_curve)(P))
		return PT_CURVE;
	if (subgroup && !G1(affine_in_subgroup)(P))
		return PT_SUBGROUP;
	return PT_OK;
}

static int dec_g2(zk_g2 *P, const uint8_t *b, bool subgroup)
{
	if (!F1(from_bytes_le_mont)(&P->x.c0, b) ||
	    !F1(from_bytes_le_mont)(&P->x.c1, b + ZK_FP_BYTES))
		return PT_XRANGE;
	if (!F1(from_bytes_le_mont)(&P->y.c0, b + 2 * ZK_FP_BYTES) ||
	    !F1(from_bytes_le_mont)(&P->y.c1, b + 3 * ZK_FP_BYTES))
		return PT_YRANGE;
	if (!G2(affine_on_curve)(P))
		return PT_CURVE;
	if (subgroup && !G2(affine_in_subgroup)(P))
		return PT_SUBGROUP;
	return PT_OK;
}

static int rd_g1(struct cz_iden3_rd *r, const char *field, zk_g1 *P)
{
	const uint8_t *b = NULL;
	int rc = cz_iden3_rd_bytes(r, field, G1_BYTES, &b), e;

	if (rc)
		return rc;
	e = dec_g1(P, b, true);
	if (e)
		return cz_iden3_rd_fail(r, -EINVAL, field, "G1 point %s", pt_msgs[e]);
	if (G1(affine_is_inf)(P))
		return cz_iden3_rd_fail(r, -EINVAL, field, "point at infinity");
	return 0;
}

static int rd_g2(struct cz_iden3_rd *r, const char *field, zk_g2 *P)
{
	const uint8_t *b = NULL;
	int rc = cz_iden3_rd_bytes(r, field, G2_BYTES, &b), e;

	if (rc)
		return rc;
	e = dec_g2(P, b, true);
	if (e)
		return cz_iden3_rd_fail(r, -EINVAL, field, "G2 point %s", pt_msgs[e]);
	if (G2(affine_is_inf)(P))
		return cz_iden3_rd_fail(r, -EINVAL, field, "point at infinity");
	return 0;
}

static int read_header(struct ZK_T *z, char *err)
{
	struct cz_iden3_rd r;
	uint32_t proto;
	int rc;

	if ((rc = cz_iden3_rd_open(&r, &z->f, 1, sec_names[1], err)) ||
	    (rc = cz_iden3_rd_u32(&r, "protocol", &proto)))
		return rc;
	if (proto != CZ_ZKEY_PROTOCOL_GROTH16)
		return cz_iden3_rd_fail(&r, -EINVAL, "protocol", "%u (%s), expected 1 (groth16)", proto,
					proto == 2 ? "plonk" : proto == 10 ? "fflonk" : "unknown");
	if ((rc = cz_iden3_rd_end(&r)))
		return rc;

	if ((rc = cz_iden3_rd_open(&r, &z->f, 2, sec_names[2], err)) ||
	    (rc = cz_iden3_rd_prime(&r, "q", ZK_PRIME_P)) ||
	    (rc = cz_iden3_rd_prime(&r, "r", ZK_PRIME_R)) ||
	    (rc = cz_iden3_rd_u32(&r, "nVars", &z->n_vars)) ||
	    (rc = cz_iden3_rd_u32(&r, "nPublic", &z->n_public)) ||
	    (rc = cz_iden3_rd_u32(&r, "domainSize", &z->domain_size)))
		return rc;
	if (z->n_public >= z->n_vars)
		return cz_iden3_rd_fail(&r, -EINVAL, "nPublic", "%u, but nVars is %u (needs nPublic < nVars)",
					z->n_public, z->n_vars);
	if (z->domain_size == 0 || (z->domain_size & (z->domain_size - 1)))
		return cz_iden3_rd_fail(&r, -EINVAL, "domainSize", "%u is not a power of two",
					z->domain_size);
	if (z->domain_size <= z->n_public)
		return cz_iden3_rd_fail(&r, -EINVAL, "domainSize", "%u, too small for %u public rows",
					z->domain_size, z->n_public + 1);
	z->log2_domain = (uint32_t)__builtin_ctz(z->domain_size);
	if ((rc = rd_g1(&r, "alpha1", &z->alpha1)) || (rc = rd_g1(&r, "beta1", &z->beta1)) ||
	    (rc = rd_g2(&r, "beta2", &z->beta2)) || (rc = rd_g2(&r, "gamma2", &z->gamma2)) ||
	    (rc = rd_g1(&r, "delta1", &z->delta1)) || (rc = rd_g2(&r, "delta2", &z->delta2)))
		return rc;
	return cz_iden3_rd_end(&r);
}

static int read_sections(struct ZK_T *z, char *err)
{
	struct cz_iden3_rd r;
	const struct cz_iden3_sec *s;
	int sec, rc;

	z->count[3] = (uint64_t)z->n_public + 1;
	z->count[5] = z->count[6] = z->count[7] = z->n_vars;
	z->count[8] = (uint64_t)z->n_vars - z->n_public - 1;
	z->count[9] = z->domain_size;
	for (sec = 3; sec <= 9; sec++) {
		if (!is_point_sec(sec))
			continue;
		if ((rc = cz_iden3_rd_open(&r, &z->f, (uint32_t)sec, sec_names[sec], err)))
			return rc;
		if (r.left != z->count[sec] * (is_g2_sec(sec) ? G2_BYTES : G1_BYTES))
			return cz_iden3_rd_fail(&r, -EINVAL, "size",
						"%" PRIu64 " bytes, expected %" PRIu64 " points of %d bytes"
						" (from the groth16 header)",
						r.left, z->count[sec], is_g2_sec(sec) ? G2_BYTES : G1_BYTES);
		z->sec[sec] = r.p;
	}

	if ((rc = cz_iden3_rd_open(&r, &z->f, 4, sec_names[4], err)) ||
	    (rc = cz_iden3_rd_u32(&r, "count", &z->n_coefs)) ||
	    (rc = cz_iden3_rd_array(&r, "records", z->n_coefs, CZ_ZKEY_COEF_BYTES, &z->coefs)) ||
	    (rc = cz_iden3_rd_end(&r)))
		return rc;

	/* The transcript is optional for proving; keep it for the writer. */
	if (cz_iden3_section(&z->f, 10, sec_names[10], &s, err) == 0) {
		z->contrib = z->f.data + s->off;
		z->contrib_size = s->size;
	}
	err[0] = 0;
	return 0;
}

uint64_t ZK(count)(const struct ZK_T *z, enum cz_zkey_section sec)
{
	return is_point_sec(sec) ? z->count[sec] : 0;
}

static int range_check(const struct ZK_T *z, int sec, uint64_t first, size_t n, bool g2,
		       char *err)
{
	if (!is_point_sec(sec) || is_g2_sec(sec) != g2)
		return cz_errf(err, -EINVAL, "%s: section %d is not a %s point section", z->f.name, sec,
			       g2 ? "G2" : "G1");
	if (first > z->count[sec] || n > z->count[sec] - first)
		return cz_errf(err, -ERANGE,
			       "%s: section %d (%s): points [%" PRIu64 ", +%zu) out of %" PRIu64,
			       z->f.name, sec, sec_names[sec], first, n, z->count[sec]);
	return 0;
}

static bool is_lazy(const struct ZK_T *z, int sec)
{
	return z->f.lazy >> sec & 1;
}

static int lazy_refused(const struct ZK_T *z, int sec, char *err)
{
	return cz_errf(err, -EINVAL, "%s: section %d (%s) was not read (opened with "
		       "CZ_ZKEY_LAZY_POINTS): only the _pool forms read it", z->f.name, sec,
		       sec_names[sec]);
}

static int point_fail(const struct ZK_T *z, int sec, uint64_t i, int e, char *err)
{
	return cz_errf(err, -EINVAL, "%s: section %d (%s): point %" PRIu64 ": %s", z->f.name, sec,
		       sec_names[sec], i, pt_msgs[e]);
}

int ZK(g1)(const struct ZK_T *z, enum cz_zkey_section sec, uint64_t first, size_t n,
	       zk_g1 *out, char err[CZ_ERRLEN])
{
	int rc = range_check(z, sec, first, n, false, err), e;
	size_t i;

	if (rc)
		return rc;
	if (is_lazy(z, sec))
		return lazy_refused(z, sec, err);
	for (i = 0; i < n; i++) {
		e = dec_g1(&out[i], z->sec[sec] + (first + i) * G1_BYTES, false);
		if (e)
			return point_fail(z, sec, first + i, e, err);
	}
	return 0;
}

int ZK(g2)(const struct ZK_T *z, enum cz_zkey_section sec, uint64_t first, size_t n,
	       zk_g2 *out, char err[CZ_ERRLEN])
{
	int rc = range_check(z, sec, first, n, true, err), e;
	size_t i;

	if (rc)
		return rc;
	if (is_lazy(z, sec))
		return lazy_refused(z, sec, err);
	for (i = 0; i < n; i++) {
		e = dec_g2(&out[i], z->sec[sec] + (first + i) * G2_BYTES, false);
		if (e)
			return point_fail(z, sec, first + i, e, err);
	}
	return 0;
}

/* Stored S = c·R^2 mod r.  Loading S as a Montgomery value gives internal
 * limbs S, i.e. the element S/R = c·R; its standard representative c·R is
 * exactly the Montgomery form of c. */
static bool dec_coef_value(zk_fr *v, const uint8_t *b)
{
	zk_fr t;

	if (!FR(from_bytes_le_mont)(&t, b))
		return false;
	FR(from_mont)(v->l, &t);
	return true;
}

static int dec_coef(const struct ZK_T *z, uint64_t i, struct ZK_COEF *c, char *err)
{
	const uint8_t *b = z->coefs + i * CZ_ZKEY_COEF_BYTES;
	const char *what = NULL;

	c->matrix = cz_le32(b);
	c->constraint = cz_le32(b + 4);
	c->signal = cz_le32(b + 8);
	if (c->matrix > 1)
		what = "matrix (not 0 = A or 1 = B)";
	else if (c->constraint >= z->domain_size)
		what = "constraint (>= domainSize)";
	else if (c->signal >= z->n_vars)
		what = "signal (>= nVars)";
	else if (!dec_coef_value(&c->value, b + 12))
		what = "value (>= r)";
	if (what)
		return cz_errf(err, -EINVAL,
			       "%s: section 4 (coefficients): record %" PRIu64 ": field %s: "
			       "matrix %u constraint %u signal %u",
			       z->f.name, i, what, c->matrix, c->constraint, c->signal);
	return 0;
}

int ZK(coefs)(const struct ZK_T *z, uint64_t first, size_t n, struct ZK_COEF *out,
		  char err[CZ_ERRLEN])
{
	size_t i;
	int rc;

	if (first > z->n_coefs || n > z->n_coefs - first)
		return cz_errf(err, -ERANGE, "%s: coefficients [%" PRIu64 ", +%zu) out of %u",
			       z->f.name, first, n, z->n_coefs);
	for (i = 0; i < n; i++)
		if ((rc = dec_coef(z, first + i, &out[i], err)))
			return rc;
	return 0;
}

/* Point conversion and checks over a range, in chunks, serially or on a
 * pool.  The lowest failing index is reported (the point is decoded again
 * for the message), so the error does not depend on thread timing. */
struct conv_job {
	const struct ZK_T *z;
	int sec;
	uint64_t first, n;        /* the range, in points */
	uint64_t chunk;           /* points per pool index */
	bool subgroup;
	void *out;                /* n converted points, or NULL to check only */
	_Atomic uint64_t bad;     /* lowest failing point index, or UINT64_MAX */
	uint64_t file_off;        /* a lazy section: its data's offset in the file */
	_Atomic int ioerr;        /* a lazy section's read failed: its -errno */
	char ioerr_msg[CZ_ERRLEN];/* ... and message (the first failing read's) */
};

/* A lazy section's chunk: its file bytes read straight into out (the
 * points' own layout: coordinates of ZK_FP_BYTES each), then each point
 * decoded from a copy of its bytes back into place, which checks it. */
static bool conv_read(struct conv_job *j, uint64_t i, uint64_t end, size_t pb)
{
	char e[CZ_ERRLEN];
	int rc = cz_iden3_read_at(&j->z->f, j->file_off + (j->first + i) * pb,
				  (uint8_t *)j->out + i * pb, (size_t)((end - i) * pb), e);
	if (rc) {
		int none = 0;
		if (atomic_compare_exchange_strong(&j->ioerr, &none, rc))
			snprintf(j->ioerr_msg, sizeof(j->ioerr_msg), "%s", e);
		return false;
	}
	return true;
}

static void conv_chunk(void *arg, size_t ci)
{
	struct conv_job *j = arg;
	uint64_t i = (uint64_t)ci * j->chunk;
	uint64_t end = i + j->chunk < j->n ? i + j->chunk : j->n;
	const uint8_t *base = j->z->sec[j->sec];
	bool g2 = is_g2_sec(j->sec), lazy = j->out && is_lazy(j->z, j->sec);
	uint8_t raw[G2_BYTES];

	if (lazy && !conv_read(j, i, end, g2 ? G2_BYTES : G1_BYTES))
		return;
	for (; i < end; i++) {
		uint64_t idx = j->first + i;
		zk_g1 p1, *o1 = j->out ? (zk_g1 *)j->out + i : &p1;
		zk_g2 p2, *o2 = j->out ? (zk_g2 *)j->out + i : &p2;
		const uint8_t *b = base + idx * (g2 ? G2_BYTES : G1_BYTES);
		if (lazy)
			b = memcpy(raw, g2 ? (void *)o2 : (void *)o1, g2 ? G2_BYTES : G1_BYTES);
		int e = g2 ? dec_g2(o2, b, j->subgroup) : dec_g1(o1, b, j->subgroup);

		if (e) {
			uint64_t cur = atomic_load(&j->bad);

			/* Keep the lowest index (a failed CAS reloads cur). */
			while (idx < cur && !atomic_compare_exchange_weak(&j->bad, &cur, idx))
				;
			return;
		}
	}
}

static int conv_run(struct conv_job *j, struct cz_pool *pool, char *err)
{
	uint64_t chunks = (j->n + j->chunk - 1) / j->chunk, i;

	atomic_init(&j->bad, UINT64_MAX);
	atomic_init(&j->ioerr, 0);
	if (is_lazy(j->z, j->sec))      /* read_sections found the section: its data */
		j->file_off = (uint64_t)(j->z->sec[j->sec] - j->z->f.data);
	if (pool && chunks > 1)
		cz_pool_for(pool, (size_t)chunks, conv_chunk, j);
	else
		for (uint64_t c = 0; c < chunks; c++)
			conv_chunk(j, (size_t)c);
	if (atomic_load(&j->ioerr))
		return cz_errf(err, atomic_load(&j->ioerr), "%s", j->ioerr_msg);
	i = atomic_load(&j->bad);
	if (i != UINT64_MAX && is_lazy(j->z, j->sec)) {
		/* The point as decoded in the caller's array (the file's bytes
		 * are not in the mapping): decode its copy again for the check. */
		uint8_t raw[G2_BYTES];
		size_t pb = is_g2_sec(j->sec) ? G2_BYTES : G1_BYTES;
		zk_g1 p1;
		zk_g2 p2;
		memcpy(raw, (uint8_t *)j->out + (i - j->first) * pb, pb);
		int e = is_g2_sec(j->sec) ? dec_g2(&p2, raw, j->subgroup) : dec_g1(&p1, raw, j->subgroup);
		return point_fail(j->z, j->sec, i, e, err);
	}
	if (i != UINT64_MAX) {
		zk_g1 p1;
		zk_g2 p2;
		int e = is_g2_sec(j->sec) ? dec_g2(&p2, j->z->sec[j->sec] + i * G2_BYTES, j->subgroup)
					  : dec_g1(&p1, j->z->sec[j->sec] + i * G1_BYTES, j->subgroup);

		return point_fail(j->z, j->sec, i, e, err);
	}
	return 0;
}

int ZK(g1_pool)(const struct ZK_T *z, enum cz_zkey_section sec, uint64_t first, size_t n,
		    zk_g1 *out, struct cz_pool *pool, char err[CZ_ERRLEN])
{
	struct conv_job j = { .z = z, .sec = sec, .first = first, .n = n, .chunk = 1024, .out = out };
	int rc = range_check(z, sec, first, n, false, err);

	return rc ? rc : conv_run(&j, pool, err);
}

int ZK(g2_pool)(const struct ZK_T *z, enum cz_zkey_section sec, uint64_t first, size_t n,
		    zk_g2 *out, struct cz_pool *pool, char err[CZ_ERRLEN])
{
	struct conv_job j = { .z = z, .sec = sec, .first = first, .n = n, .chunk = 512, .out = out };
	int rc = range_check(z, sec, first, n, true, err);

	return rc ? rc : conv_run(&j, pool, err);
}

/* Full-key checks: small chunks, since a subgroup check costs ~100 us. */
#define CHECK_CHUNK 256

static int check_points(const struct ZK_T *z, bool subgroup, char *err)
{
	static const int order[] = { 3, 5, 6, 7, 8, 9 };
	struct cz_pool *pool = NULL;
	size_t k;
	int rc = 0;

	for (k = 0; k < sizeof(order) / sizeof(order[0]) && !rc; k++) {
		struct conv_job j = { .z = z, .sec = order[k], .n = z->count[order[k]],
				      .chunk = CHECK_CHUNK, .subgroup = subgroup };

		if (j.n > CHECK_CHUNK && !pool)
			pool = cz_pool_create(0);
		rc = conv_run(&j, pool, err);
	}
	if (pool)
		cz_pool_destroy(pool);
	return rc;
}

static int check_coefs(const struct ZK_T *z, char *err)
{
	struct ZK_COEF c;
	uint64_t i;
	int rc;

	for (i = 0; i < z->n_coefs; i++)
		if ((rc = dec_coef(z, i, &c, err)))
			return rc;
	return 0;
}

static struct ZK_T *finish_open(struct ZK_T *z, unsigned flags, char *err)
{
	int rc;

	if ((rc = read_header(z, err)) || (rc = read_sections(z, err)))
		goto fail;
	if ((flags & CZ_ZKEY_CHECK_COEFS) && (rc = check_coefs(z, err)))
		goto fail;
	if ((flags & (CZ_ZKEY_CHECK_POINTS | CZ_ZKEY_CHECK_SUBGROUP)) &&
	    (rc = check_points(z, flags & CZ_ZKEY_CHECK_SUBGROUP, err)))
		goto fail;
	return z;
fail:
	ZK(close)(z);
	return NULL;
}

struct ZK_T *ZK(open_flags)(const char *path, unsigned flags, char err[CZ_ERRLEN])
{
	struct ZK_T *z = calloc(1, sizeof(*z));

	if (!z) {
		cz_errf(err, -ENOMEM, "%s: out of memory", path);
		return NULL;
	}
	bool lazy = (flags & CZ_ZKEY_LAZY_POINTS) &&
		    !(flags & (CZ_ZKEY_CHECK_POINTS | CZ_ZKEY_CHECK_SUBGROUP));
	uint32_t secs = 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8 | 1u << 9;
	if (lazy ? cz_iden3_open_lazy(&z->f, path, "zkey", 1, 1, secs, err)
		 : cz_iden3_open(&z->f, path, "zkey", 1, 1, err)) {
		free(z);
		return NULL;
	}
	return finish_open(z, flags, err);
}

struct ZK_T *ZK(open)(const char *path, char err[CZ_ERRLEN])
{
	return ZK(open_flags)(path, CZ_ZKEY_CHECK_ALL, err);
}

struct ZK_T *ZK(open_mem)(const char *name, const void *data, size_t size,
				 unsigned flags, char err[CZ_ERRLEN])
{
	struct ZK_T *z = calloc(1, sizeof(*z));

	if (!z) {
		cz_errf(err, -ENOMEM, "%s: out of memory", name);
		return NULL;
	}
	if (cz_iden3_open_mem(&z->f, name, data, size, "zkey", 1, 1, err)) {
		free(z);
		return NULL;
	}
	return finish_open(z, flags, err);
}

void ZK(close)(struct ZK_T *z)
{
	if (!z)
		return;
	cz_iden3_close(&z->f);
	free(z);
}

int ZK(vk)(const struct ZK_T *z, struct ZK_VK *vk, char err[CZ_ERRLEN])
{
	int rc;

	memset(vk, 0, sizeof(*vk));
	vk->n_public = z->n_public;
	vk->alpha1 = z->alpha1;
	vk->beta2 = z->beta2;
	vk->gamma2 = z->gamma2;
	vk->delta2 = z->delta2;
	vk->ic = malloc(((size_t)z->n_public + 1) * sizeof(*vk->ic));
	if (!vk->ic)
		return cz_errf(err, -ENOMEM, "%s: out of memory for IC", z->f.name);
	rc = ZK(g1)(z, CZ_ZKEY_IC, 0, (size_t)z->n_public + 1, vk->ic, err);
	if (rc)
		ZK_VK_FREE(vk);
	return rc;
}

#ifdef ZK_WTNS
int ZK(check_wtns)(const struct ZK_T *z, const struct ZK_WTNS *w, char err[CZ_ERRLEN])
{
	if (w->n != z->n_vars)
		return cz_errf(err, -EINVAL,
			       "%s: field nWitness: %u values, but %s has nVars = %u (wrong witness for this key)",
			       w->f.name, w->n, z->f.name, z->n_vars);
	return 0;
}

#endif

#ifdef ZK_WITH_R1CS
int ZK(check_r1cs)(const struct ZK_T *z, const struct cz_r1cs *r, char err[CZ_ERRLEN])
{
	if (r->n_wires != z->n_vars)
		return cz_errf(err, -EINVAL, "%s: field nWires: %u, but %s has nVars = %u",
			       r->f.name, r->n_wires, z->f.name, z->n_vars);
	if ((uint64_t)r->n_pub_out + r->n_pub_in != z->n_public)
		return cz_errf(err, -EINVAL,
			       "%s: fields nPubOut + nPubIn: %u + %u, but %s has nPublic = %u",
			       r->f.name, r->n_pub_out, r->n_pub_in, z->f.name, z->n_public);
	if ((uint64_t)r->n_constraints + z->n_public + 1 > z->domain_size)
		return cz_errf(err, -EINVAL,
			       "%s: field nConstraints: %u (+ %u public rows) exceeds %s's domainSize %u",
			       r->f.name, r->n_constraints, z->n_public + 1, z->f.name, z->domain_size);
	return 0;
}
#endif

/* ---- writer ---- */

struct wr {
	FILE *fp;
	bool bad;
};

static void put(struct wr *w, const void *p, size_t n)
{
	if (!w->bad && n && fwrite(p, 1, n, w->fp) != n)
		w->bad = true;
}

static void put_u32(struct wr *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(w, b, 4);
}

static void put_u64(struct wr *w, uint64_t v)
{
	put_u32(w, (uint32_t)v);
	put_u32(w, (uint32_t)(v >> 32));
}

static void put_sec(struct wr *w, uint32_t type, uint64_t size)
{
	put_u32(w, type);
	put_u64(w, size);
}

static void put_g1(struct wr *w, const zk_g1 *p)
{
	uint8_t b[G1_BYTES];

	F1(to_bytes_le_mont)(b, &p->x);
	F1(to_bytes_le_mont)(b + ZK_FP_BYTES, &p->y);
	put(w, b, sizeof(b));
}

static void put_g2(struct wr *w, const zk_g2 *p)
{
	uint8_t b[G2_BYTES];

	F1(to_bytes_le_mont)(b, &p->x.c0);
	F1(to_bytes_le_mont)(b + ZK_FP_BYTES, &p->x.c1);
	F1(to_bytes_le_mont)(b + 2 * ZK_FP_BYTES, &p->y.c0);
	F1(to_bytes_le_mont)(b + 3 * ZK_FP_BYTES, &p->y.c1);
	put(w, b, sizeof(b));
}

static void put_g1s(struct wr *w, uint32_t type, const zk_g1 *p, uint64_t n)
{
	put_sec(w, type, n * G1_BYTES);
	for (uint64_t i = 0; i < n; i++)
		put_g1(w, &p[i]);
}

static void put_prime(struct wr *w, enum cz_iden3_prime which)
{
	/* q/r bytes from the field code (zk/io/iden3bin.c) */
	uint8_t b[CZ_IDEN3_PRIME_MAX];
	uint32_t n8;

	cz_iden3_prime_le(b, which, &n8);
	put_u32(w, n8);
	put(w, b, n8);
}

int ZK(write)(const char *path, const struct ZK_PARTS *k, char err[CZ_ERRLEN])
{
	static const uint8_t zero_hash[64];
	uint64_t nc = (uint64_t)k->n_vars - k->n_public - 1;
	struct cz_outfile o;
	struct wr w = { 0 };
	uint64_t i;
	int rc;

	if (k->n_public >= k->n_vars || !k->domain_size ||
	    (k->domain_size & (k->domain_size - 1)) || k->domain_size <= k->n_public)
		return cz_errf(err, -EINVAL,
			       "%s: inconsistent counts: nVars %u, nPublic %u, domainSize %u", path,
			       k->n_vars, k->n_public, k->domain_size);
	rc = cz_outfile_open(&o, path, err);
	if (rc)
		return rc;
	w.fp = o.fp;

	put(&w, "zkey", 4);
	put_u32(&w, 1);
	put_u32(&w, 10);

	put_sec(&w, 1, 4);
	put_u32(&w, CZ_ZKEY_PROTOCOL_GROTH16);

	put_sec(&w, 2, 4 + ZK_FP_BYTES + 4 + ZK_FR_BYTES + 12 + 3 * G1_BYTES + 3 * G2_BYTES);
	put_prime(&w, ZK_PRIME_P);
	put_prime(&w, ZK_PRIME_R);
	put_u32(&w, k->n_vars);
	put_u32(&w, k->n_public);
	put_u32(&w, k->domain_size);
	put_g1(&w, &k->alpha1);
	put_g1(&w, &k->beta1);
	put_g2(&w, &k->beta2);
	put_g2(&w, &k->gamma2);
	put_g1(&w, &k->delta1);
	put_g2(&w, &k->delta2);

	put_g1s(&w, 3, k->ic, (uint64_t)k->n_public + 1);
	put_sec(&w, 4, 4 + (uint64_t)k->n_coefs * CZ_ZKEY_COEF_BYTES);
	put_u32(&w, k->n_coefs);
	for (i = 0; i < k->n_coefs; i++) {
		const struct ZK_COEF *c = &k->coefs[i];
		uint8_t b[ZK_FR_BYTES];
		zk_fr s;

		put_u32(&w, c->matrix);
		put_u32(&w, c->constraint);
		put_u32(&w, c->signal);
		/* S = c·R^2: the element whose standard form is c's Montgomery
		 * limbs c·R, written in Montgomery form. */
		FR(to_mont)(&s, c->value.l);
		FR(to_bytes_le_mont)(b, &s);
		put(&w, b, sizeof(b));
	}

	put_g1s(&w, 5, k->a, k->n_vars);
	put_g1s(&w, 6, k->b1, k->n_vars);
	put_sec(&w, 7, (uint64_t)k->n_vars * G2_BYTES);
	for (i = 0; i < k->n_vars; i++)
		put_g2(&w, &k->b2[i]);
	put_g1s(&w, 8, k->c, nc);
	put_g1s(&w, 9, k->h, k->domain_size);

	if (k->contrib) {
		put_sec(&w, 10, k->contrib_size);
		put(&w, k->contrib, (size_t)k->contrib_size);
	} else {
		put_sec(&w, 10, sizeof(zero_hash) + 4);
		put(&w, zero_hash, sizeof(zero_hash));
		put_u32(&w, 0);
	}

	return cz_outfile_commit(&o, w.bad, err);
}

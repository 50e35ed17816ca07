/* SPDX-License-Identifier: MIT */
/*
 * zk/io/iden3bin.c — the iden3 binary container (see iden3bin.h for the
 * layout).  Every length read from the file is compared with what is left
 * of the file (or section) before anything is read through it.
 */
#include "zk/io/iden3bin.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/field/bn254_fp.h"
#include "zk/field/bn254_fr.h"
#include "zk/field/fp.h"
#include "zk/field/fr.h"

int cz_errf(char err[CZ_ERRLEN], int rc, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, CZ_ERRLEN, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int read_table(struct cz_iden3 *f, const char *magic, uint32_t minv, uint32_t maxv,
		      char err[CZ_ERRLEN])
{
	const uint8_t *d = f->data;
	uint64_t pos, n, i;

	if (f->size < 12)
		return cz_errf(err, -EINVAL, "%s: file too short for an iden3 header (%zu bytes, need 12)",
			       f->name, f->size);
	for (i = 0; i < 4; i++)
		f->magic[i] = (d[i] >= 0x20 && d[i] < 0x7f) ? (char)d[i] : '?';
	f->magic[4] = 0;
	/* The bytes found are not echoed: cuzkd answers with this message,
	 * and a file that is not ours (`load /etc/shadow`) must not leak. */
	if (memcmp(d, magic, 4) != 0)
		return cz_errf(err, -EINVAL, "%s: field magic: not \"%s\" (not a .%s file)", f->name,
			       magic, magic);
	f->version = cz_le32(d + 4);
	if (f->version < minv || f->version > maxv)
		return cz_errf(err, -EINVAL, "%s: field version: %u, supported %u..%u", f->name,
			       f->version, minv, maxv);
	n = cz_le32(d + 8);
	/* Each section needs at least its 12-byte header: bound n before allocating. */
	if (n > (f->size - 12) / 12)
		return cz_errf(err, -EINVAL,
			       "%s: field nSections: %" PRIu64 " sections cannot fit in the %zu bytes"
			       " after the header (truncated?)",
			       f->name, n, f->size - 12);
	f->sec = calloc(n ? n : 1, sizeof(*f->sec));
	if (!f->sec)
		return cz_errf(err, -ENOMEM, "%s: out of memory for %" PRIu64 " sections", f->name, n);
	f->nsec = (uint32_t)n;
	pos = 12;
	for (i = 0; i < n; i++) {
		uint64_t left;

		if (f->size - pos < 12)
			return cz_errf(err, -EINVAL,
				       "%s: section header %" PRIu64 " truncated at offset %" PRIu64,
				       f->name, i, pos);
		f->sec[i].type = cz_le32(d + pos);
		f->sec[i].size = cz_le64(d + pos + 4);
		pos += 12;
		left = f->size - pos;
		if (f->sec[i].size > left)
			return cz_errf(err, -EINVAL,
				       "%s: section %u: size %" PRIu64 " exceeds the %" PRIu64
				       " bytes left in the file (truncated?)",
				       f->name, f->sec[i].type, f->sec[i].size, left);
		f->sec[i].off = pos;
		pos += f->sec[i].size;
	}
	if (pos != f->size)
		return cz_errf(err, -EINVAL, "%s: %" PRIu64 " bytes after the last section", f->name,
			       (uint64_t)f->size - pos);
	return 0;
}

int cz_iden3_open_mem(struct cz_iden3 *f, const char *name, const void *data, size_t size,
		      const char *magic, uint32_t minv, uint32_t maxv, char err[CZ_ERRLEN])
{
	int rc;

	memset(f, 0, sizeof(*f));
	f->name = strdup(name ? name : "(memory)");
	if (!f->name)
		return cz_errf(err, -ENOMEM, "out of memory");
	f->data = data;
	f->size = size;
	rc = read_table(f, magic, minv, maxv, err);
	if (rc)
		cz_iden3_close(f);
	return rc;
}

static bool same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* Opens path for reading (a FIFO is refused without waiting) if it is a
 * regular file with room for the 12-byte header, and maps anonymous memory
 * of its size at *m (untouched): the fd, or a negative errno with err set.
 * *st: its fstat. */
static int open_regular(const char *path, struct stat *st, uint8_t **m, char err[CZ_ERRLEN])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc;

	if (fd < 0)
		return cz_errf(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, st) != 0) {
		rc = cz_errf(err, -errno, "%s: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return cz_errf(err, -EINVAL, "%s: not a regular file", path);
	}
	if (st->st_size < 12) {
		close(fd);
		return cz_errf(err, -EINVAL,
			       "%s: file too short for an iden3 header (%lld bytes, need 12)", path,
			       (long long)st->st_size);
	}
	*m = mmap(NULL, (size_t)st->st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*m == MAP_FAILED) {
		rc = cz_errf(err, -errno, "%s: no memory to read its %lld bytes: %s", path,
			     (long long)st->st_size, strerror(errno));
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * Reads the file into anonymous memory of our own rather than mapping it.
 * A mapping of a file is only as good as the file: when someone truncates
 * it (`cp new.zkey k.zkey` truncates first, then writes) every later access
 * to the lost pages is SIGBUS, which kills the daemon with every job in it,
 * and MAP_PRIVATE does not help (truncation unmaps even private copies).
 * read() instead sees a short file, and the fstat after the read sees a
 * file that changed: both are an error naming the file.  The memory is an
 * anonymous mapping of the file's size, touched only where sections are read
 * (a key's points are read lazily, straight into the key: zk/io/groth16_io.c).
 * O_NONBLOCK: open() of a FIFO would wait for a writer; the mode check then
 * refuses anything but a regular file.
 */
int cz_iden3_open(struct cz_iden3 *f, const char *path, const char *magic, uint32_t minv,
		  uint32_t maxv, char err[CZ_ERRLEN])
{
	return cz_iden3_open_lazy(f, path, magic, minv, maxv, 0, err);
}

/* preads exactly n bytes at off: 0, -ESTALE at a short file, or -errno. */
static int read_full(int fd, uint8_t *dst, size_t n, uint64_t off, const char *path,
		     char err[CZ_ERRLEN])
{
	for (size_t got = 0; got < n;) {
		size_t want = n - got > (1u << 30) ? 1u << 30 : n - got;
		ssize_t k = pread(fd, dst + got, want, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return cz_errf(err, -errno, "%s: read: %s", path, strerror(errno));
		if (k == 0)
			return cz_errf(err, -ESTALE, "%s: changed while being read (shrank below "
				       "%" PRIu64 " bytes); load it again once it is complete",
				       path, off + n);
		got += (size_t)k;
	}
	return 0;
}

/* 0 if fd's file still has st's size and times, else -ESTALE (or the
 * fstat's -errno), naming path. */
static int unchanged(int fd, int64_t size, struct timespec mtim, struct timespec ctim,
		     const char *path, char err[CZ_ERRLEN])
{
	struct stat now;

	if (fstat(fd, &now) != 0)
		return cz_errf(err, -errno, "%s: %s", path, strerror(errno));
	if (now.st_size != size || !same_time(now.st_mtim, mtim) || !same_time(now.st_ctim, ctim))
		return cz_errf(err, -ESTALE, "%s: changed while being read; load it again once it "
			       "is complete", path);
	return 0;
}

/*
 * The reader of both opens (cz_iden3_open is lazy = 0): the file is read in
 * pieces, its 12-byte header, then each section's header and, unless its
 * type is lazy, its data, each at its own offset in an anonymous mapping of
 * the file's size; with nothing lazy the fstat after the reads says whether
 * the file changed meanwhile, else cz_iden3_recheck says it later.  Pages
 * under a lazy section's data are never touched, so they cost neither memory
 * nor the kernel's zeroing (the mapping gets huge pages only inside the
 * sections that are read: a 2 MiB page under a lazy section's neighbour
 * header would be zeroed whole for 12 bytes).
 */
int cz_iden3_open_lazy(struct cz_iden3 *f, const char *path, const char *magic, uint32_t minv,
		       uint32_t maxv, uint32_t lazy, char err[CZ_ERRLEN])
{
	struct stat st;
	uint8_t *m;
	int fd, rc;

	memset(f, 0, sizeof(*f));
	if ((fd = open_regular(path, &st, &m, err)) < 0)
		return fd;
	size_t size = (size_t)st.st_size;
	uintptr_t pg = 2u << 20;
	if ((rc = read_full(fd, m, 12, 0, path, err)))
		goto fail;
	/* The section walk here only finds what to read; cz_iden3_open_mem
	 * below checks the table again, with its messages, over what was read.
	 * A header that does not fit stops the walk: open_mem names it. */
	uint64_t nsec = cz_le32(m + 8), pos = 12;
	for (uint64_t i = 0; i < nsec && size - pos >= 12; i++) {
		if ((rc = read_full(fd, m + pos, 12, pos, path, err)))
			goto fail;
		uint32_t type = cz_le32(m + pos);
		uint64_t sz = cz_le64(m + pos + 4);
		pos += 12;
		if (sz > size - pos)
			break;
		if (!(type < 32 && (lazy >> type & 1)) && sz) {
			uintptr_t a = ((uintptr_t)m + pos + pg - 1) & ~(pg - 1);
			uintptr_t b = ((uintptr_t)m + pos + sz) & ~(pg - 1);
			if (b > a)
				(void)madvise((void *)a, b - a, MADV_HUGEPAGE);  /* advice only */
			if ((rc = read_full(fd, m + pos, sz, pos, path, err)))
				goto fail;
		}
		pos += sz;
	}
	if (!lazy && (rc = unchanged(fd, st.st_size, st.st_mtim, st.st_ctim, path, err)))
		goto fail;
	mprotect(m, size, PROT_READ);
	rc = cz_iden3_open_mem(f, path, m, size, magic, minv, maxv, err);
	if (rc) {
		munmap(m, size);
		close(fd);
		return rc;
	}
	f->mapped = true;
	f->lazy = lazy;
	f->fd = fd;
	f->st_size = st.st_size;
	f->st_mtim = st.st_mtim;
	f->st_ctim = st.st_ctim;
	if (!lazy)
		close(fd);
	return 0;
fail:
	close(fd);
	munmap(m, size);
	return rc;
}

int cz_iden3_read_at(const struct cz_iden3 *f, uint64_t off, void *dst, size_t n,
		     char err[CZ_ERRLEN])
{
	if (!f->lazy)
		return cz_errf(err, -EINVAL, "%s: not opened lazily", f->name);
	if (off > f->size || n > f->size - off)
		return cz_errf(err, -ERANGE, "%s: bytes [%" PRIu64 ", +%zu) past its %zu bytes",
			       f->name, off, n, f->size);
	return read_full(f->fd, dst, n, off, f->name, err);
}

int cz_iden3_recheck(const struct cz_iden3 *f, char err[CZ_ERRLEN])
{
	return f->lazy ? unchanged(f->fd, f->st_size, f->st_mtim, f->st_ctim, f->name, err) : 0;
}

void cz_iden3_close(struct cz_iden3 *f)
{
	if (f->lazy)
		close(f->fd);
	if (f->mapped && f->data)
		munmap((void *)f->data, f->size);
	free(f->sec);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

int cz_iden3_section(const struct cz_iden3 *f, uint32_t type, const char *secname,
		     const struct cz_iden3_sec **out, char err[CZ_ERRLEN])
{
	const struct cz_iden3_sec *found = NULL;
	uint32_t i;

	for (i = 0; i < f->nsec; i++) {
		if (f->sec[i].type != type)
			continue;
		if (found)
			return cz_errf(err, -EINVAL, "%s: section %u (%s): duplicated", f->name, type,
				       secname);
		found = &f->sec[i];
	}
	if (!found)
		return cz_errf(err, -ENOENT, "%s: section %u (%s): missing", f->name, type, secname);
	*out = found;
	return 0;
}

int cz_iden3_rd_open(struct cz_iden3_rd *r, const struct cz_iden3 *f, uint32_t type,
		     const char *secname, char err[CZ_ERRLEN])
{
	const struct cz_iden3_sec *s;
	int rc = cz_iden3_section(f, type, secname, &s, err);

	if (rc)
		return rc;
	r->f = f;
	r->type = type;
	r->secname = secname;
	r->p = f->data + s->off;
	r->left = s->size;
	r->err = err;
	return 0;
}

int cz_iden3_rd_fail(struct cz_iden3_rd *r, int rc, const char *field, const char *fmt, ...)
{
	char msg[CZ_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cz_errf(r->err, rc, "%s: section %u (%s): field %s: %s", r->f->name, r->type,
		       r->secname, field, msg);
}

int cz_iden3_rd_bytes(struct cz_iden3_rd *r, const char *field, uint64_t n, const uint8_t **p)
{
	if (n > r->left)
		return cz_iden3_rd_fail(r, -EINVAL, field,
					"needs %" PRIu64 " bytes, %" PRIu64
					" left in the section (truncated?)",
					n, r->left);
	*p = r->p;
	r->p += n;
	r->left -= n;
	return 0;
}

int cz_iden3_rd_array(struct cz_iden3_rd *r, const char *field, uint64_t count, uint64_t size,
		      const uint8_t **p)
{
	if (size && count > r->left / size)
		return cz_iden3_rd_fail(r, -EINVAL, field,
					"%" PRIu64 " records of %" PRIu64
					" bytes exceed the %" PRIu64 " bytes left in the section",
					count, size, r->left);
	return cz_iden3_rd_bytes(r, field, count * size, p);
}

int cz_iden3_rd_u32(struct cz_iden3_rd *r, const char *field, uint32_t *v)
{
	const uint8_t *p = NULL;
	int rc = cz_iden3_rd_bytes(r, field, 4, &p);

	if (!rc)
		*v = cz_le32(p);
	return rc;
}

int cz_iden3_rd_u64(struct cz_iden3_rd *r, const char *field, uint64_t *v)
{
	const uint8_t *p = NULL;
	int rc = cz_iden3_rd_bytes(r, field, 8, &p);

	if (!rc)
		*v = cz_le64(p);
	return rc;
}

int cz_iden3_rd_end(struct cz_iden3_rd *r)
{
	if (r->left)
		return cz_errf(r->err, -EINVAL, "%s: section %u (%s): %" PRIu64
			       " unexpected bytes at the end of the section",
			       r->f->name, r->type, r->secname, r->left);
	return 0;
}

/* The four primes, each from its field's own code (p - 1 is the standard
 * form of -1), so their constants live only in zk/field/bls12_381.h and
 * zk/field/bn254.h.  Little-endian bytes; n8 is the field's encoded size. */
void cz_iden3_prime_le(uint8_t out[CZ_IDEN3_PRIME_MAX], enum cz_iden3_prime which, uint32_t *n8)
{
	unsigned i;

	memset(out, 0, CZ_IDEN3_PRIME_MAX);
	switch (which) {
	case CZ_PRIME_BLS12_381_P: {
		cz_fp m1;
		cz_fp_neg(&m1, &cz_fp_one);
		cz_fp_to_bytes_le(out, &m1);
		*n8 = CZ_FP_BYTES;
		break;
	}
	case CZ_PRIME_BLS12_381_R: {
		cz_fr m1;
		cz_fr_neg(&m1, &cz_fr_one);
		cz_fr_to_bytes_le(out, &m1);
		*n8 = CZ_FR_BYTES;
		break;
	}
	case CZ_PRIME_BN254_P: {
		cz_bn254_fp m1;
		cz_bn254_fp_neg(&m1, &cz_bn254_fp_one);
		cz_bn254_fp_to_bytes_le(out, &m1);
		*n8 = CZ_BN254_FP_BYTES;
		break;
	}
	default: {
		cz_bn254_fr m1;
		cz_bn254_fr_neg(&m1, &cz_bn254_fr_one);
		cz_bn254_fr_to_bytes_le(out, &m1);
		*n8 = CZ_BN254_FR_BYTES;
	}
	}
	for (i = 0; i < *n8 && ++out[i] == 0; i++)
		;
}

static const struct {
	enum cz_curve curve;
	const char *which; /* "p" or "r" */
} prime_info[] = {
	[CZ_PRIME_BLS12_381_P] = { CZ_CURVE_BLS12_381, "p" },
	[CZ_PRIME_BLS12_381_R] = { CZ_CURVE_BLS12_381, "r" },
	[CZ_PRIME_BN254_P] = { CZ_CURVE_BN254, "p" },
	[CZ_PRIME_BN254_R] = { CZ_CURVE_BN254, "r" },
};
#define NPRIMES (sizeof(prime_info) / sizeof(prime_info[0]))

int cz_iden3_prime_find(const uint8_t *le, uint32_t n8, enum cz_iden3_prime *which)
{
	for (unsigned i = 0; i < NPRIMES; i++) {
		uint8_t m[CZ_IDEN3_PRIME_MAX];
		uint32_t mn8;

		cz_iden3_prime_le(m, (enum cz_iden3_prime)i, &mn8);
		if (n8 == mn8 && memcmp(le, m, mn8) == 0) {
			*which = (enum cz_iden3_prime)i;
			return 0;
		}
	}
	return -1;
}

enum cz_curve cz_iden3_prime_curve(enum cz_iden3_prime which)
{
	return prime_info[which].curve;
}

/* The curve's short name for messages: BLS12-381 / bn128/BN254 (the form
 * the messages have always used for the expected curve). */
static const char *curve_short(enum cz_curve c)
{
	return c == CZ_CURVE_BN254 ? "bn128/BN254" : "BLS12-381";
}

int cz_iden3_rd_prime(struct cz_iden3_rd *r, const char *field, enum cz_iden3_prime want)
{
	char n8field[64];
	const uint8_t *p = NULL;
	enum cz_iden3_prime seen;
	enum cz_curve wc = prime_info[want].curve;
	uint32_t n8;
	int rc;

	snprintf(n8field, sizeof(n8field), "n8%s", field);
	rc = cz_iden3_rd_u32(r, n8field, &n8);
	if (rc)
		return rc;
	if (n8 == 0 || n8 > 1024)
		return cz_iden3_rd_fail(r, -EINVAL, n8field, "%u-byte field elements", n8);
	rc = cz_iden3_rd_bytes(r, field, n8, &p);
	if (rc)
		return rc;
	if (cz_iden3_prime_find(p, n8, &seen))
		return cz_iden3_rd_fail(r, -EINVAL, field, "unknown prime (%u bytes), expected %s's %s",
					n8, curve_short(wc), prime_info[want].which);
	if (seen == want)
		return 0;
	if (prime_info[seen].curve != wc)
		return cz_iden3_rd_fail(r, -EINVAL, field, "curve %s, expected %s",
					prime_info[seen].curve == CZ_CURVE_BN254 ? "bn128/BN254"
										: "bls12381/BLS12-381",
					curve_short(wc));
	/* the curve's other prime: p and r swapped */
	return cz_iden3_rd_fail(r, -EINVAL, field, "%s's %s, expected its %s", curve_short(wc),
				prime_info[seen].which, prime_info[want].which);
}

_Static_assert(CZ_IDEN3_PRIME_MAX >= CZ_FP_BYTES, "the largest prime fits");

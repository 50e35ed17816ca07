/* SPDX-License-Identifier: MIT */
/*
 * zk/io/iden3bin.h — the iden3 binary container shared by .zkey, .wtns and
 * .r1cs (and .ptau) files.
 *
 * Layout (all integers little-endian):
 *
 *     magic[4]  "zkey" | "wtns" | "r1cs"
 *     u32       version
 *     u32       number of sections
 *     then per section:  u32 type, u64 size, size bytes of data
 *
 * The file is read into memory of our own (never mapped: a file truncated
 * under a mapping is SIGBUS) and the section table records offsets into
 * it; parsers read through a bounds-checked cursor (struct
 * cz_iden3_rd), so no size read from the file is used before it has been
 * checked against what is left of the file or section.  A type may appear
 * once only where a parser asks for it (as snarkjs requires); unknown
 * sections are ignored; bytes after the last section are an error.
 *
 * Errors: functions return 0 or a negative errno value and write a message
 * that names the file, the section and the field into err[CZ_ERRLEN].
 */
#ifndef CZ_IDEN3BIN_H
#define CZ_IDEN3BIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "zk/curve/curve_id.h"

#define CZ_ERRLEN 256

struct cz_iden3_sec {
	uint32_t type;   /* section id */
	uint64_t off;    /* offset of the data in the file */
	uint64_t size;   /* data bytes; off + size <= file size */
};

struct cz_iden3 {
	char *name;                /* path (or caller's name) for messages */
	const uint8_t *data;       /* the whole file, read-only */
	size_t size;               /* file bytes */
	bool mapped;               /* data is our anonymous mapping (munmap on close) */
	uint32_t lazy;             /* bit t: sections of type t < 32 were not read
				    * (cz_iden3_open_lazy); their bytes in data are
				    * not the file's, cz_iden3_read_at reads them */
	int fd;                    /* open while lazy != 0, else unused */
	int64_t st_size;           /* the file's size and times at open */
	struct timespec st_mtim, st_ctim;
	char magic[5];             /* NUL-terminated */
	uint32_t version;
	uint32_t nsec;
	struct cz_iden3_sec *sec;  /* nsec entries, file order */
};

/* Reads path (a regular file; a FIFO is refused without waiting) and its
 * section table; a file that changes while being read is an error.  magic must match; the version
 * must lie in [min_version, max_version]. */
int cz_iden3_open(struct cz_iden3 *f, const char *path, const char *magic,
		  uint32_t min_version, uint32_t max_version, char err[CZ_ERRLEN]);
/* cz_iden3_open, but the data of sections whose type has its bit in lazy
 * (types < 32) is left in the file: the caller reads it where it wants it
 * with cz_iden3_read_at (a .zkey's points straight into the key's arrays,
 * so the bytes are copied once and no file-sized buffer is touched) and
 * then calls cz_iden3_recheck, which says whether the file changed since
 * the open.  The file stays open until cz_iden3_close. */
int cz_iden3_open_lazy(struct cz_iden3 *f, const char *path, const char *magic,
		       uint32_t min_version, uint32_t max_version, uint32_t lazy,
		       char err[CZ_ERRLEN]);
/* n bytes at file offset off of a lazily opened f into dst: 0, or
 * -ESTALE when the file is shorter now (message names the file), or the
 * read's -errno.  Safe from several threads at once (pread). */
int cz_iden3_read_at(const struct cz_iden3 *f, uint64_t off, void *dst, size_t n,
		     char err[CZ_ERRLEN]);
/* 0 if f's file has the size and times it had at open, else -ESTALE
 * "changed while being read" (or the fstat's -errno); 0 when not lazy. */
int cz_iden3_recheck(const struct cz_iden3 *f, char err[CZ_ERRLEN]);
/* The same over a caller's buffer (borrowed: it must outlive f); name is
 * used in messages.  For fuzzing and for tests. */
int cz_iden3_open_mem(struct cz_iden3 *f, const char *name, const void *data, size_t size,
		      const char *magic, uint32_t min_version, uint32_t max_version,
		      char err[CZ_ERRLEN]);
void cz_iden3_close(struct cz_iden3 *f);

/* The unique section of this type: -ENOENT if missing, -EINVAL if it
 * appears more than once.  secname names it in messages ("groth16 header"). */
int cz_iden3_section(const struct cz_iden3 *f, uint32_t type, const char *secname,
		     const struct cz_iden3_sec **out, char err[CZ_ERRLEN]);

/* A bounds-checked cursor over one section. */
struct cz_iden3_rd {
	const struct cz_iden3 *f;
	uint32_t type;           /* section id, for messages */
	const char *secname;
	const uint8_t *p;        /* next byte */
	uint64_t left;           /* bytes left in the section */
	char *err;               /* the caller's err[CZ_ERRLEN] */
};

/* Finds the unique section and points r at its start. */
int cz_iden3_rd_open(struct cz_iden3_rd *r, const struct cz_iden3 *f, uint32_t type,
		     const char *secname, char err[CZ_ERRLEN]);
int cz_iden3_rd_u32(struct cz_iden3_rd *r, const char *field, uint32_t *v);
int cz_iden3_rd_u64(struct cz_iden3_rd *r, const char *field, uint64_t *v);
/* Takes n bytes (n checked first); *p points into the mapping. */
int cz_iden3_rd_bytes(struct cz_iden3_rd *r, const char *field, uint64_t n, const uint8_t **p);
/* Takes count records of size bytes each (the product checked for overflow). */
int cz_iden3_rd_array(struct cz_iden3_rd *r, const char *field, uint64_t count, uint64_t size,
		      const uint8_t **p);
/* Fails unless the whole section has been read. */
int cz_iden3_rd_end(struct cz_iden3_rd *r);
/* Formats "FILE: section N (NAME): field F: <msg>" into r->err; returns rc. */
__attribute__((format(printf, 4, 5)))
int cz_iden3_rd_fail(struct cz_iden3_rd *r, int rc, const char *field, const char *fmt, ...);

/* Which field a prime is, for header checks: the base (p) and scalar (r)
 * primes of both curves, each derived from its field's code. */
enum cz_iden3_prime { CZ_PRIME_BLS12_381_P, CZ_PRIME_BLS12_381_R, CZ_PRIME_BN254_P, CZ_PRIME_BN254_R };
/* Reads n8 and the prime, and checks it is the expected one; a prime of
 * the other curve is named with both ("curve bn128/BN254, expected
 * BLS12-381", "curve bls12381/BLS12-381, expected bn128/BN254"), the same
 * curve's other prime as swapped, anything else as unknown. */
int cz_iden3_rd_prime(struct cz_iden3_rd *r, const char *field, enum cz_iden3_prime want);
/* Which of the four primes le[0..n8) is: 0 and *which, or -1 for none.
 * For readers that take the curve from the file. */
int cz_iden3_prime_find(const uint8_t *le, uint32_t n8, enum cz_iden3_prime *which);
/* The prime's n8 little-endian bytes, as the files store it (writers). */
#define CZ_IDEN3_PRIME_MAX 48
void cz_iden3_prime_le(uint8_t out[CZ_IDEN3_PRIME_MAX], enum cz_iden3_prime which, uint32_t *n8);
enum cz_curve cz_iden3_prime_curve(enum cz_iden3_prime which);

/* snprintf into err; returns rc (so `return cz_errf(err, -EINVAL, ...)`). */
__attribute__((format(printf, 3, 4)))
int cz_errf(char err[CZ_ERRLEN], int rc, const char *fmt, ...);

/* Little-endian loads from unaligned bytes. */
static inline uint32_t cz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t cz_le64(const uint8_t *p)
{
	return (uint64_t)cz_le32(p) | (uint64_t)cz_le32(p + 4) << 32;
}

#endif

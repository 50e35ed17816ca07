/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/jrecover.h — what the journal (engine/durable/journal.c) does with a
 * journal that does not check: telling a torn tail from corruption,
 * resynchronising past a damaged stretch, keeping the damaged file for the
 * operator, and the sequence numbers' high-water mark (engine/durable/jrecover.c).
 * The journal's own; do not include elsewhere.
 */
#ifndef CZ_JRECOVER_H
#define CZ_JRECOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CZ_JREC_MAX (1u << 20)          /* journal.c's REC_MAX: bigger is corruption */
#define CZ_JREC_HWM_STEP 1024           /* sequence numbers reserved a write of DIR/seq.hwm */

/* CRC32C (Castagnoli) as the journal frames records (engine/durable/journal.c). */
uint32_t cz_journal_crc32c(const void *p, size_t n);

/* The record at off of b (got bytes in all) checks: a length of 2 to
 * CZ_JREC_MAX that fits, a payload that is a JSON object's text ('{' to
 * '}'), and its CRC32C. */
bool cz_jrec_checks(const uint8_t *b, size_t off, size_t got);
/* The first offset after off where a record checks, or 0 when none does:
 * then what follows off is a tail, not a damaged stretch with acknowledged
 * records after it.  A record that checks by chance inside garbage needs
 * its 32-bit CRC to match as well as the framing: about 2^-32 a position. */
size_t cz_jrec_resync(const uint8_t *b, size_t off, size_t got);
/* The bad bytes from off to the end can only be a crash during an append:
 * the record's length runs past the end of the file, or only zeros follow
 * (a file extended but not written).  Anything else (a whole record whose
 * CRC fails) may be corruption of an acknowledged record. */
bool cz_jrec_torn(const uint8_t *b, size_t off, size_t got);

/* Copies the damaged journal (n bytes of b) to DIR/damaged-<unix time>/journal
 * (fsynced, with the directory), its folder's path into out.  0 or -errno. */
int cz_jrec_keep(int dirfd, const char *state_dir, const uint8_t *b, size_t n, char *out, size_t cap);

/* DIR/seq.hwm: "CZSEQ1 <n> <crc32c of the number's text>\n", meaning no
 * sequence number >= n was ever handed out.  *hwm = 0 when it is absent;
 * -EINVAL when it does not check (the caller says so and goes on). */
int cz_jrec_hwm_read(int dirfd, uint64_t *hwm);
/* Writes it (seq.hwm.tmp, fdatasync, rename, fsync DIR).  0 or -errno. */
int cz_jrec_hwm_write(int dirfd, uint64_t hwm);

#endif

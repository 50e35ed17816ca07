/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/jrecover.c — a journal that does not check is damaged, not short.
 *
 * Why.  Every record before the last acknowledged one was fsynced and
 * answered; a crash during an append can only cut the journal after it.
 * So a record that fails its check with good records after it is
 * corruption (a flipped bit, a bad sector, an operator's editor), and
 * dropping everything after it would lose accepted jobs, answer `unknown
 * job` for finished ones, and hand their sequence numbers out again.  As
 * Postgres, SQLite and etcd do with their logs, replay (engine/durable/journal.c)
 * tells the two apart and treats them differently:
 *   - a torn tail (cz_jrec_torn: the last record runs past the end of the
 *     file, or only zeros follow) is dropped: never acknowledged;
 *   - a damaged stretch (cz_jrec_resync finds a record that checks after
 *     it) is skipped: every record after it is kept, the stretch is logged
 *     with the sequence numbers either side, and the damaged file is kept
 *     (cz_jrec_keep: DIR/damaged-<time>/journal) before compaction writes a
 *     clean one;
 *   - a bad last record that is whole (its CRC fails) may be either: it is
 *     dropped, but handled as damage (the file kept, the high-water mark
 *     applied, no witness deleted that the journal cannot account for).
 *
 * The high-water mark (DIR/seq.hwm).  Sequence numbers must never repeat,
 * even when the records that used them are lost.  The journal's writer
 * reserves them in steps of CZ_JREC_HWM_STEP: before it writes a batch
 * whose submits reach the mark, it writes a mark CZ_JREC_HWM_STEP above
 * them (a file of one line, written by rename: a few hundred bytes and
 * three syncs every 1024 submits).  A submit is acknowledged only after
 * its batch is durable, so every acknowledged number is below the durable
 * mark, and after damage replay starts numbering at the mark.  A clean
 * journal numbers on from its own records (the mark only skips numbers
 * after damage).
 */
#define _GNU_SOURCE
#include "engine/durable/jrecover.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- CRC32C (Castagnoli), table-driven: a few hundred bytes a record ---- */

static uint32_t crc_tab[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_tab[i] = c;
	}
}

static uint32_t crc32c(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t c = ~0u;
	while (n--)
		c = crc_tab[(c ^ *b++) & 0xff] ^ (c >> 8);
	return ~c;
}

uint32_t cz_journal_crc32c(const void *p, size_t n)
{
	pthread_once(&crc_once, crc_init);
	return crc32c(p, n);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool cz_jrec_checks(const uint8_t *b, size_t off, size_t got)
{
	if (off + 8 > got)
		return false;
	uint32_t n = rd32(b + off), crc = rd32(b + off + 4);
	if (n < 2 || n > CZ_JREC_MAX || n > got - off - 8)
		return false;
	const uint8_t *p = b + off + 8;
	return p[0] == '{' && p[n - 1] == '}' && cz_journal_crc32c(p, n) == crc;
}

size_t cz_jrec_resync(const uint8_t *b, size_t off, size_t got)
{
	for (size_t p = off + 1; p + 10 <= got; p++)
		if (b[p + 8] == '{' && cz_jrec_checks(b, p, got))
			return p;
	return 0;
}

bool cz_jrec_torn(const uint8_t *b, size_t off, size_t got)
{
	if (off + 8 > got || (uint64_t)off + 8 + rd32(b + off) > got)
		return true;
	for (size_t p = off; p < got; p++)
		if (b[p])
			return false;
	return true;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int cz_jrec_keep(int dirfd, const char *state_dir, const uint8_t *b, size_t n, char *out, size_t cap)
{
	char name[64];
	long long t = (long long)time(NULL);
	int rc = -EEXIST;
	/* A second damage in the same second gets the next free name. */
	for (int k = 0; k < 100 && rc == -EEXIST; k++) {
		snprintf(name, sizeof(name), k ? "damaged-%lld.%d" : "damaged-%lld", t, k);
		rc = mkdirat(dirfd, name, 0750) ? -errno : 0;
	}
	if (rc)
		return rc;
	snprintf(out, cap, "%s/%s", state_dir, name);
	int dfd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd >= 0 ? openat(dfd, "journal", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640) : -1;
	rc = fd < 0 ? -errno : write_all(fd, b, n);
	if (!rc && fdatasync(fd))
		rc = -errno;
	if (!rc && (fsync(dfd) || fsync(dirfd)))
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

int cz_jrec_hwm_read(int dirfd, uint64_t *hwm)
{
	char b[128];
	*hwm = 0;
	int fd = openat(dirfd, "seq.hwm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	ssize_t n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	b[n] = 0;
	char num[32];
	unsigned crc;
	if (sscanf(b, "CZSEQ1 %31[0-9] %x", num, &crc) != 2 || cz_journal_crc32c(num, strlen(num)) != crc)
		return -EINVAL;
	*hwm = strtoull(num, NULL, 10);
	return 0;
}

int cz_jrec_hwm_write(int dirfd, uint64_t hwm)
{
	char num[32], line[96];
	snprintf(num, sizeof(num), "%" PRIu64, hwm);
	int len = snprintf(line, sizeof(line), "CZSEQ1 %s %08x\n", num, cz_journal_crc32c(num, strlen(num)));
	int fd = openat(dirfd, "seq.hwm.tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	int rc = fd < 0 ? -errno : write_all(fd, (const uint8_t *)line, (size_t)len);
	if (!rc && fdatasync(fd))
		rc = -errno;
	if (fd >= 0)
		close(fd);
	if (!rc && renameat(dirfd, "seq.hwm.tmp", dirfd, "seq.hwm"))
		rc = -errno;
	if (!rc && fsync(dirfd))
		rc = -errno;
	return rc;
}

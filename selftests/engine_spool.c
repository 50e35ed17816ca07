/* SPDX-License-Identifier: MIT */
/* Description: the witness spool (engine/durable/spool.c) on its own: a copy is byte-identical to the client's file, the method it used is named and counted (status → spool), a file that shrank is refused and nothing left; on a loopback XFS with reflink (root, xfsprogs; btrfs where mkfs.xfs is missing) the FICLONE branch is taken, the kernel's FIEMAP says every extent of the copy is shared, and the copy keeps the original bytes after the client rewrites its file. */
#define _GNU_SOURCE
#include "engine/durable/journal.h"
#include "selftests/cz_test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define SIZE ((4u << 20) + 12345)       /* several extents and a partial block */

static char base[PATH_MAX], img[PATH_MAX + 16], mnt[PATH_MAX + 16];
static int mounted;

static void cleanup(void)
{
	char cmd[3 * PATH_MAX];
	if (mounted)
		umount2(mnt, MNT_DETACH);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "engine_spool: could not remove %s\n", base);
}

/* The client's file: SIZE bytes of splitmix64 (the oracle keeps them). */
static int make_src(const char *dir, const char *name, uint8_t *bytes)
{
	char p[PATH_MAX + 64];
	uint64_t s = 12;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (size_t i = 0; i < SIZE; i += 8) {
		uint64_t v = ct_splitmix64(&s);
		memcpy(bytes + i, &v, SIZE - i < 8 ? SIZE - i : 8);
	}
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || pwrite(fd, bytes, SIZE, 0) != (ssize_t)SIZE || fsync(fd)) {
		ct_diag("%s: %s", p, strerror(errno));
		return -1;
	}
	return fd;
}

static int same_bytes(int fd, const uint8_t *want, size_t n)
{
	uint8_t *got = malloc(n);
	int ok = got && pread(fd, got, n, 0) == (ssize_t)n && !memcmp(got, want, n);
	struct stat st;
	ok = ok && !fstat(fd, &st) && (size_t)st.st_size == n;
	free(got);
	return ok;
}

/* The kernel's word, not the spool's: are all of the file's extents
 * shared with another file (FIEMAP_EXTENT_SHARED)?  Returns the number of
 * extents, negated when one is not shared; 0 when FIEMAP fails. */
static int shared_extents(int fd)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent ext[256];
	} q;
	memset(&q, 0, sizeof(q));
	q.fm.fm_start = 0;
	q.fm.fm_length = FIEMAP_MAX_OFFSET;
	q.fm.fm_flags = FIEMAP_FLAG_SYNC;
	q.fm.fm_extent_count = 256;
	if (ioctl(fd, FS_IOC_FIEMAP, &q.fm) || q.fm.fm_mapped_extents == 0)
		return 0;
	int n = (int)q.fm.fm_mapped_extents;
	for (int i = 0; i < n; i++)
		if (!(q.ext[i].fe_flags & FIEMAP_EXTENT_SHARED))
			return -n;
	return n;
}

static int method_idx(const char *m)
{
	struct cz_spool_stat st;
	cz_spool_stat(&st);
	for (int i = 0; i < CZ_SPOOL_METHODS; i++)
		if (!strcmp(st.name[i], m))
			return i;
	return -1;
}

/* Counters moved by exactly one file of size bytes under method m, and
 * nothing else. */
static int counted_one(const struct cz_spool_stat *a, const struct cz_spool_stat *b, int m,
		       uint64_t size)
{
	for (int i = 0; i < CZ_SPOOL_METHODS; i++) {
		uint64_t df = b->files[i] - a->files[i], db = b->bytes[i] - a->bytes[i];
		if (df != (i == m) || db != (i == m ? size : 0))
			return 0;
	}
	return 1;
}

static int gone(int dirfd, const char *name)
{
	struct stat st;
	return fstatat(dirfd, name, &st, 0) && errno == ENOENT;
}

static int try_mount(char *why, size_t cap)
{
	static const char *const mkfs[][2] = {
		{ "mkfs.xfs", "mkfs.xfs -q -f -m reflink=1" },
		{ "mkfs.btrfs", "mkfs.btrfs -q -f" },
	};
	char cmd[3 * PATH_MAX];
	if (geteuid()) {
		snprintf(why, cap, "not root: a loop mount needs it");
		return -1;
	}
	for (size_t i = 0; i < sizeof(mkfs) / sizeof(*mkfs); i++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", mkfs[i][0]);
		if (system(cmd)) {
			snprintf(why, cap, "neither mkfs.xfs (xfsprogs) nor mkfs.btrfs (btrfs-progs) installed");
			continue;
		}
		/* XFS needs 300 MiB at least; sparse, so a few MiB on disk. */
		int fd = open(img, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, 512 << 20)) {
			snprintf(why, cap, "cannot make the image file: %s", strerror(errno));
			return -1;
		}
		close(fd);
		snprintf(cmd, sizeof(cmd), "%s '%s' >/dev/null 2>&1", mkfs[i][1], img);
		if (system(cmd)) {
			snprintf(why, cap, "%s failed on a 512 MiB image", mkfs[i][0]);
			continue;
		}
		snprintf(cmd, sizeof(cmd), "mount -o loop '%s' '%s' 2>&1", img, mnt);
		if (system(cmd)) {
			snprintf(why, cap, "mount -o loop of a %s image failed (no loop devices, or "
				 "mounting not allowed here)", mkfs[i][0] + 5);
			return -1;
		}
		mounted = 1;
		ct_diag("a %s image mounted on %s", mkfs[i][0] + 5, mnt);
		return 0;
	}
	return -1;
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char err[512], why[512];
	uint8_t *bytes = malloc(SIZE);
	struct cz_spool_stat s0, s1;

	ct_plan(9);
	snprintf(base, sizeof(base), "%s/cuzk-spool-XXXXXX", t && *t ? t : "/var/tmp");
	if (!bytes || !mkdtemp(base)) {
		ct_diag("mkdtemp %s: %s", base, strerror(errno));
		return ct_exit();
	}
	atexit(cleanup);
	snprintf(img, sizeof(img), "%s/fs.img", base);
	snprintf(mnt, sizeof(mnt), "%s/mnt", base);
	mkdir(mnt, 0700);

	/* ---- the state dir's own filesystem (ext4 here: no reflink) ---- */
	int dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int src = make_src(base, "client.wtns", bytes);
	cz_spool_stat(&s0);
	int fd = src >= 0 ? cz_spool_copy(dirfd, "1.0.wtns", src, SIZE, err, sizeof(err)) : -1;
	if (fd < 0)
		ct_diag("copy: %s", src >= 0 ? err : "no source");
	cz_spool_stat(&s1);
	const char *m = cz_spool_last_method();
	ct_ok(fd >= 0 && same_bytes(fd, bytes, SIZE), "spool copy on %s: byte-identical (%u bytes)", base,
	      SIZE);
	ct_ok(method_idx(m) >= 0 && counted_one(&s0, &s1, method_idx(m), SIZE),
	      "method %s: counted once with its %u bytes, the others unchanged", m, SIZE);
	if (fd >= 0)
		close(fd);
	/* The client's file shorter than it was when checked (truncated). */
	fd = src >= 0 ? cz_spool_copy(dirfd, "2.0.wtns", src, SIZE + 4096, err, sizeof(err)) : 0;
	ct_ok(fd < 0 && strstr(err, "changed size") && strstr(err, "spool/2.0.wtns") && gone(dirfd, "2.0.wtns"),
	      "a file shorter than its checked size: refused (\"%s\"), no spool file left", fd < 0 ? err : "");
	if (fd >= 0)
		close(fd);
	if (src >= 0)
		close(src);
	close(dirfd);

	/* ---- a reflink filesystem: the FICLONE branch ---- */
	if (try_mount(why, sizeof(why))) {
		for (int i = 0; i < 6; i++)
			ct_skip(why, "reflink spool point %d", i + 1);
		free(bytes);
		return ct_exit();
	}
	dirfd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	src = make_src(mnt, "client.wtns", bytes);
	cz_spool_stat(&s0);
	fd = src >= 0 ? cz_spool_copy(dirfd, "1.0.wtns", src, SIZE, err, sizeof(err)) : -1;
	if (fd < 0)
		ct_diag("copy: %s", src >= 0 ? err : "no source");
	cz_spool_stat(&s1);
	m = cz_spool_last_method();
	ct_ok(fd >= 0 && !strcmp(m, "reflink"), "on the reflink filesystem the spool took FICLONE (method %s)", m);
	ct_ok(counted_one(&s0, &s1, method_idx("reflink"), SIZE),
	      "status → spool: one reflinked file of %u bytes counted, no copy", SIZE);
	int ne = fd >= 0 ? shared_extents(fd) : 0;
	ct_ok(ne > 0, "FIEMAP: all %d extents of the spool file are shared with the client's", ne < 0 ? -ne : ne);
	ct_ok(fd >= 0 && same_bytes(fd, bytes, SIZE), "the reflinked copy is byte-identical");
	/* The client rewrites its file: copy-on-write keeps the spool's. */
	uint8_t junk[8192];
	memset(junk, 0x5a, sizeof(junk));
	int wrote = src >= 0 && pwrite(src, junk, sizeof(junk), 4096) == (ssize_t)sizeof(junk) && !fsync(src);
	ct_ok(wrote && fd >= 0 && same_bytes(fd, bytes, SIZE),
	      "after the client overwrote 8 KiB of its file, the spool copy still has the original bytes");
	if (fd >= 0)
		close(fd);
	/* A reflink clones the whole file: a size that no longer matches is
	 * still refused (the file grew or shrank after it was checked). */
	fd = src >= 0 ? cz_spool_copy(dirfd, "2.0.wtns", src, SIZE - 1, err, sizeof(err)) : 0;
	ct_ok(fd < 0 && strstr(err, "changed size") && gone(dirfd, "2.0.wtns"),
	      "reflink of a file whose size changed since it was checked: refused, no spool file left");
	if (fd >= 0)
		close(fd);
	if (src >= 0)
		close(src);
	close(dirfd);
	free(bytes);
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/spool.c — the daemon's own copies of a job's witnesses
 * (DIR/spool/<seq>.<k>.wtns), made before the job is acknowledged.
 *
 * Why copy at all: the client's file is the client's.  It may be truncated,
 * rewritten or deleted after submit (once a SIGBUS, then a failed job), and
 * it is gone after a crash of either side; a descriptor held per queued
 * partition also ran the daemon out of descriptors.  The spool copy is
 * immutable, owned by the daemon, and what synthesis reads (opened when the
 * partition is dispatched, closed when it is read), and it is what a
 * restart resumes from.
 *
 * Cost: a reflink (FICLONE) shares the extents and costs a metadata update
 * whatever the size, on filesystems that have it (btrfs, XFS with reflink,
 * bcachefs); elsewhere copy_file_range copies inside the kernel (no user
 * space copy; ext4 copies the page cache), with read/write only where
 * neither works (across filesystems on old kernels).  Then one fsync per
 * file.  docs/BENCHMARKS.md has the figures per GiB on this project's
 * machine.  A digest, when asked for (a caller's --id), reads the copy
 * back once through the page cache.
 */
#define _GNU_SOURCE     /* copy_file_range */
#include "engine/durable/journal.h"
#include "engine/durable/uring.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <linux/fs.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (1u << 20)

static _Thread_local const char *last_method = "none";

/* Files and bytes copied by each method, since the process started
 * (`status` → spool): an operator sees whether the state dir's filesystem
 * gives the reflinks it was chosen for, or copies every byte. */
static _Atomic uint64_t copied[CZ_SPOOL_METHODS][2];
static const char *const method_name[CZ_SPOOL_METHODS] = {
	"reflink", "copy_file_range", "read/write",
};

const char *cz_spool_last_method(void)
{
	return last_method;
}

void cz_spool_stat(struct cz_spool_stat *st)
{
	for (int m = 0; m < CZ_SPOOL_METHODS; m++) {
		st->files[m] = atomic_load_explicit(&copied[m][0], memory_order_relaxed);
		st->bytes[m] = atomic_load_explicit(&copied[m][1], memory_order_relaxed);
		st->name[m] = method_name[m];
	}
}

void cz_spool_name(char *buf, size_t cap, uint64_t seq, uint32_t k)
{
	snprintf(buf, cap, "%llu.%u.wtns", (unsigned long long)seq, k);
}

/* read/write: the last resort, through one heap buffer. */
static int copy_rw(int src, int dst, uint64_t done, uint64_t size)
{
	char *b = malloc(CHUNK);
	int rc = 0;
	if (!b)
		return -ENOMEM;
	while (!rc && done < size) {
		size_t want = size - done < CHUNK ? (size_t)(size - done) : CHUNK;
		ssize_t k = pread(src, b, want, (off_t)done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			rc = k < 0 ? -errno : -ENODATA;
			break;
		}
		for (ssize_t w = 0; !rc && w < k;) {
			ssize_t n = pwrite(dst, b + w, (size_t)(k - w), (off_t)done + w);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				rc = n < 0 ? -errno : -EIO;
			else
				w += n;
		}
		done += (uint64_t)k;
	}
	free(b);
	return rc;
}

static int copy_data(int src, int dst, uint64_t size)
{
	if (ioctl(dst, FICLONE, src) == 0) {
		struct stat st;
		last_method = "reflink";
		/* The whole file is shared: it must still be the size checked. */
		if (fstat(dst, &st))
			return -errno;
		return (uint64_t)st.st_size == size ? 0 : -ENODATA;
	}
	loff_t in = 0, out = 0;
	uint64_t done = 0;
	last_method = "copy_file_range";
	while (done < size) {
		ssize_t k = copy_file_range(src, &in, dst, &out, (size_t)(size - done), 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && done == 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
					   errno == EOPNOTSUPP || errno == EBADF)) {
			last_method = "read/write";
			return copy_rw(src, dst, 0, size);
		}
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ENODATA;        /* the file shrank under us */
		done += (uint64_t)k;
	}
	return 0;
}

static int digest_fd(int fd, uint64_t size, uint8_t *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	char *b = malloc(CHUNK);
	int rc = c && b && EVP_DigestInit_ex(c, EVP_sha256(), NULL) ? 0 : -ENOMEM;
	for (uint64_t off = 0; !rc && off < size;) {
		ssize_t k = pread(fd, b, size - off < CHUNK ? (size_t)(size - off) : CHUNK, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = k < 0 ? -errno : -ENODATA;
		else if (!EVP_DigestUpdate(c, b, (size_t)k))
			rc = -ENOMEM;
		else
			off += (uint64_t)k;
	}
	unsigned n = 0;
	if (!rc && (!EVP_DigestFinal_ex(c, out, &n) || n != CZ_JOURNAL_DIGEST))
		rc = -EINVAL;
	EVP_MD_CTX_free(c);
	free(b);
	return rc;
}

int cz_spool_copy(int dirfd, const char *name, int src, uint64_t size, char *err, size_t cap)
{
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0) {
		int rc = -errno;
		snprintf(err, cap, "spool/%s: cannot create it: %s", name, strerror(errno));
		return rc;
	}
	int rc = copy_data(src, fd, size);
	if (!rc) {
		int m = 0;
		while (m < CZ_SPOOL_METHODS - 1 && strcmp(last_method, method_name[m]))
			m++;
		atomic_fetch_add_explicit(&copied[m][0], 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&copied[m][1], size, memory_order_relaxed);
		return fd;
	}
	if (rc == -ENODATA)
		snprintf(err, cap, "the file changed size while it was copied into spool/%s "
			 "(truncated by its writer?)", name);
	else
		snprintf(err, cap, "copy into spool/%s (%s): %s", name, last_method, strerror(-rc));
	close(fd);
	unlinkat(dirfd, name, 0);
	return rc;
}

/*
 * One fsync per file, all in flight together through one io_uring (made per
 * call: a submit's files, up to CZ_ENGINE_MAX_PARTS), so the filesystem can
 * fold them into one journal commit; one after another they cost a commit
 * each (200 witnesses: ~2 s on this project's VM, docs/BENCHMARKS.md).
 * Without io_uring, fsync(2) in turn.
 */
int cz_spool_sync(const int *fds, uint32_t n, char *err, size_t cap)
{
	struct io_uring ring;
	unsigned ent = 1;
	while (ent < n && ent < 256)
		ent <<= 1;
	if (n > 1 && cz_uring_init(ent, &ring, 0) == 0) {
		uint32_t next = 0, inflight = 0, bad = UINT32_MAX;
		int rc = 0;
		while ((next < n || inflight) && !rc) {
			struct io_uring_sqe *q;
			while (next < n && (q = io_uring_get_sqe(&ring))) {
				io_uring_prep_fsync(q, fds[next], 0);
				io_uring_sqe_set_data64(q, next++);
				inflight++;
			}
			int k;
			do
				k = io_uring_submit_and_wait(&ring, 1);
			while (k == -EINTR);
			if (k < 0) {
				rc = k;
				break;
			}
			struct io_uring_cqe *c;
			unsigned head, seen = 0;
			io_uring_for_each_cqe(&ring, head, c) {
				if (c->res < 0 && !rc) {
					rc = c->res;
					bad = (uint32_t)io_uring_cqe_get_data64(c);
				}
				seen++;
			}
			io_uring_cq_advance(&ring, seen);
			inflight -= seen;
		}
		cz_uring_exit(&ring);
		if (rc)
			snprintf(err, cap, "fsync of spool file %u: %s", bad == UINT32_MAX ? 0 : bad, strerror(-rc));
		return rc;
	}
	for (uint32_t i = 0; i < n; i++)
		if (fsync(fds[i])) {
			int rc = -errno;
			snprintf(err, cap, "fsync of spool file %u: %s", i, strerror(errno));
			return rc;
		}
	return 0;
}

int cz_spool_digest(int fd, uint64_t size, uint8_t *out)
{
	return digest_fd(fd, size, out);
}

int cz_spool_open(int dirfd, uint64_t seq, uint32_t k)
{
	char n[48];
	cz_spool_name(n, sizeof(n), seq, k);
	int fd = openat(dirfd, n, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

void cz_spool_remove(int dirfd, uint64_t seq, uint32_t nparts)
{
	char n[48];
	for (uint32_t k = 0; k < nparts; k++) {
		cz_spool_name(n, sizeof(n), seq, k);
		unlinkat(dirfd, n, 0);
	}
}

void cz_spool_digest_join(const uint8_t (*d)[CZ_JOURNAL_DIGEST], uint32_t n, uint8_t *out)
{
	unsigned len = 0;
	EVP_Digest(d, (size_t)n * CZ_JOURNAL_DIGEST, out, &len, EVP_sha256(), NULL);
}

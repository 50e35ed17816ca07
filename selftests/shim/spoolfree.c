/* SPDX-License-Identifier: MIT */
/*
 * selftests/shim/spoolfree.c — an LD_PRELOAD shim that makes fstatvfs(3)
 * and statvfs(3) report CZ_SPOOLFREE_BYTES bytes free (f_bavail and
 * f_bfree; f_blocks at least that), so that e2e_admit can drive cuzkd's
 * spool admission past a filesystem that is really full: the copy then
 * meets a real ENOSPC from the kernel midway through a job, the path a
 * concurrent writer filling the disk would take.  Everything else about
 * the filesystem (block size, inodes) is the real one.  Built by the
 * Makefile as $(B)/selftests/spoolfree.so; without the variable it only
 * passes the calls through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/statvfs.h>

static void lie(struct statvfs *b)
{
	const char *v = getenv("CZ_SPOOLFREE_BYTES");
	unsigned long blk = b->f_frsize ? b->f_frsize : b->f_bsize;
	if (!v || !blk)
		return;
	fsblkcnt_t n = (fsblkcnt_t)(strtoull(v, NULL, 10) / blk);
	b->f_bavail = b->f_bfree = n;
	if (b->f_blocks < n)
		b->f_blocks = n;
}

int fstatvfs(int fd, struct statvfs *b)
{
	static int (*real)(int, struct statvfs *);
	if (!real)
		real = (int (*)(int, struct statvfs *))dlsym(RTLD_NEXT, "fstatvfs");
	int rc = real ? real(fd, b) : -1;
	if (!rc)
		lie(b);
	return rc;
}

int statvfs(const char *path, struct statvfs *b)
{
	static int (*real)(const char *, struct statvfs *);
	if (!real)
		real = (int (*)(const char *, struct statvfs *))dlsym(RTLD_NEXT, "statvfs");
	int rc = real ? real(path, b) : -1;
	if (!rc)
		lie(b);
	return rc;
}

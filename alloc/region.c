/* SPDX-License-Identifier: MIT */
/*
 * alloc/region.c — memory sources for the slab allocator: hugetlb memfd,
 * then THP, then normal pages; NUMA binding before first touch; prefault.
 * The design statement is at the top of alloc/slab.c.
 *
 * Order of operations matters: ftruncate, mmap (hugetlb pages are reserved
 * here, so a short pool fails now with ENOMEM instead of SIGBUS later),
 * mbind (the policy must be in place before any page is touched, or the
 * pages land where the toucher runs), then MADV_POPULATE_WRITE, which
 * reports a shortage as an error where touching would raise SIGBUS.
 */
#define _GNU_SOURCE
#include "alloc/region.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#define MFD_HUGE_1GB (30u << 26)
#endif
#define MPOL_BIND_ 2 /* linux/mempolicy.h MPOL_BIND, without pulling numaif.h */

#define SZ_2M ((size_t)2 << 20)
#define SZ_1G ((size_t)1 << 30)

static size_t round_up(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

const char *cz_region_kind_name(enum cz_region_kind k)
{
	switch (k) {
	case CZ_REGION_HUGETLB_1G: return "hugetlb-1G";
	case CZ_REGION_HUGETLB_2M: return "hugetlb-2M";
	case CZ_REGION_THP: return "thp";
	case CZ_REGION_NORMAL: return "normal";
	}
	return "?";
}

static long read_long(const char *path)
{
	char buf[64];
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		if (sscanf(buf, "%ld", &v) != 1)
			v = -1;
	}
	return v;
}

long cz_region_hugepages_free(size_t page_size)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages",
		 page_size >> 10);
	return read_long(path);
}

int cz_region_hugepages_add(long delta, long *now)
{
	const char *path = "/proc/sys/vm/nr_hugepages";
	long cur = read_long(path);
	char buf[32];
	int rc = 0;

	if (cur < 0)
		return -ENOENT;
	if (cur + delta < 0)
		delta = -cur;
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int n = snprintf(buf, sizeof(buf), "%ld\n", cur + delta);
	if (write(fd, buf, (size_t)n) != n)
		rc = -errno;
	close(fd);
	if (now)
		*now = read_long(path);
	return rc;
}

/* The bracketed word of a sysfs THP setting, e.g. "always [madvise] never". */
static int thp_setting_allows(const char *path, const char *const *ok)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
	if (!b)
		return 0;
	*b = 0;
	for (; *ok; ok++)
		if (!strcmp(a + 1, *ok))
			return 1;
	return 0;
}

static int thp_effective(int shmem)
{
	static const char *const anon_ok[] = { "always", "madvise", NULL };
	static const char *const shmem_ok[] = { "always", "within_size", "advise", "force", NULL };

	if (shmem)
		return thp_setting_allows("/sys/kernel/mm/transparent_hugepage/shmem_enabled", shmem_ok);
	return thp_setting_allows("/sys/kernel/mm/transparent_hugepage/enabled", anon_ok);
}

/* mmap at an address aligned to align (hugetlb and THP need 2 MiB, 1 GiB
 * pages need 1 GiB): reserve a larger PROT_NONE range, map over it, trim. */
static void *map_aligned(size_t len, size_t align, int flags, int fd)
{
	size_t span = len + align;
	char *res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (res == MAP_FAILED)
		return MAP_FAILED;
	char *a = (char *)round_up((size_t)res, align);
	void *p = mmap(a, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;
		munmap(res, span);
		errno = e;
		return MAP_FAILED;
	}
	if (a > res)
		munmap(res, (size_t)(a - res));
	if (res + span > a + len)
		munmap(a + len, (size_t)(res + span - (a + len)));
	return a;
}

/* Binds [p, p+len) to node; returns the node bound or NODE_NONE. */
static int bind_node(void *p, size_t len, int node)
{
	unsigned long mask[16] = { 0 }; /* 1024 nodes */
	unsigned cpu, n;

	if (node == CZ_REGION_NODE_NONE)
		return node;
	if (node == CZ_REGION_NODE_LOCAL) {
		if (getcpu(&cpu, &n))
			return CZ_REGION_NODE_NONE;
		node = (int)n;
	}
	if (node < 0 || node >= 1024)
		return CZ_REGION_NODE_NONE;
	mask[node / 64] = 1ul << (node % 64);
	/* maxnode counts one past the last bit the kernel reads. */
	if (syscall(SYS_mbind, p, len, MPOL_BIND_, mask, 1025ul, 0u))
		return CZ_REGION_NODE_NONE;
	return node;
}

int cz_region_populate(struct cz_region *r, size_t off, size_t len)
{
	size_t ps = r->page_size;
	size_t a = off / ps * ps, b = round_up(off + len, ps);

	if (b > r->size)
		b = r->size;
	if (a >= b)
		return 0;
	char *p = (char *)r->base + a;
	if (!madvise(p, b - a, MADV_POPULATE_WRITE))
		return 0;
	if (errno != EINVAL)
		return -errno;
	/* Kernels before 5.14: touch each page (an atomic add of zero keeps
	 * whatever another mapper wrote).  A hugetlb shortage is SIGBUS here,
	 * which is why regions are reserved at mmap time. */
	for (size_t o = 0; o < b - a; o += ps)
		__atomic_fetch_add(p + o, 0, __ATOMIC_RELAXED);
	return 0;
}

int cz_region_release(struct cz_region *r, size_t off, size_t len)
{
	size_t ps = r->page_size;
	size_t a = round_up(off, ps), b = (off + len) / ps * ps;

	if (b > r->size)
		b = r->size;
	if (a >= b)
		return 0;
	if (r->fd >= 0) {
		if (fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)a,
			      (off_t)(b - a)))
			return -errno;
		return 0;
	}
	if (madvise((char *)r->base + a, b - a, MADV_DONTNEED))
		return -errno;
	return 0;
}

static int try_hugetlb(struct cz_region *r, size_t size, size_t ps, int node, unsigned flags)
{
	unsigned mfd = MFD_CLOEXEC | MFD_HUGETLB | (ps == SZ_1G ? MFD_HUGE_1GB : MFD_HUGE_2MB);
	int rc;

	/* Bound to a node, its pages come from that node's pool alone (the
	 * mmap-time reservation counts the machine's): too few free there,
	 * and the fallback is taken now rather than a failed prefault. */
	if (node >= 0) {
		char path[160];
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-%zukB/"
			 "free_hugepages", node, ps >> 10);
		long f = read_long(path);
		if (f >= 0 && (size_t)f < round_up(size, ps) / ps)
			return -ENOMEM;
	}
	int fd = memfd_create("cuzk-region", mfd);

	if (fd < 0)
		return -errno;
	size = round_up(size, ps);
	if (ftruncate(fd, (off_t)size)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	void *p = map_aligned(size, ps, MAP_SHARED, fd);
	if (p == MAP_FAILED) {
		rc = -errno;
		close(fd);
		return rc;
	}
	*r = (struct cz_region){ .base = p, .size = size, .page_size = ps, .fd = fd,
				 .kind = ps == SZ_1G ? CZ_REGION_HUGETLB_1G : CZ_REGION_HUGETLB_2M,
				 .flags = flags };
	r->node = bind_node(p, size, node);
	if (!(flags & CZ_REGION_LAZY) && (rc = cz_region_populate(r, 0, size))) {
		munmap(p, size);
		close(fd);
		*r = (struct cz_region){ .fd = -1 };
		return rc;
	}
	return 0;
}

static int map_small(struct cz_region *r, size_t size, int node, unsigned flags)
{
	int fd = -1, rc;
	void *p;

	size = round_up(size, SZ_2M);
	if (flags & CZ_REGION_PRIVATE) {
		p = map_aligned(size, SZ_2M, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	} else {
		fd = memfd_create("cuzk-region", MFD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, (off_t)size)) {
			rc = -errno;
			close(fd);
			return rc;
		}
		p = map_aligned(size, SZ_2M, MAP_SHARED, fd);
	}
	if (p == MAP_FAILED) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	int thp = !(flags & CZ_REGION_NO_THP) && !madvise(p, size, MADV_HUGEPAGE) &&
		  thp_effective(fd >= 0);
	*r = (struct cz_region){ .base = p, .size = size, .fd = fd, .flags = flags,
				 .page_size = thp ? SZ_2M : (size_t)sysconf(_SC_PAGESIZE),
				 .kind = thp ? CZ_REGION_THP : CZ_REGION_NORMAL };
	r->node = bind_node(p, size, node);
	if (!(flags & CZ_REGION_LAZY) && (rc = cz_region_populate(r, 0, size))) {
		cz_region_destroy(r);
		return rc;
	}
	return 0;
}

static void log_fallback(const struct cz_region *r, size_t size, int forced)
{
	static atomic_int logged;
	static _Atomic uint64_t logged_node;    /* bit n: node n's line is out */

	if (r->flags & CZ_REGION_QUIET)
		return;
	size_t need = round_up(size, SZ_2M) / SZ_2M;
	const char *kind = r->kind == CZ_REGION_THP ? "transparent huge" : "normal 4 KiB";
	const char *why = forced ? "hugetlb disabled by option" : "not enough hugetlb pages reserved";
	/* A region bound to a node takes its hugepages from that node's pool
	 * only: name that node's file and what it has free, once a node. */
	if (r->node >= 0 && r->node < 64) {
		if (atomic_fetch_or(&logged_node, 1ull << r->node) & (1ull << r->node))
			return;
		char path[160];
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/"
			 "free_hugepages", r->node);
		long nfree = read_long(path);
		fprintf(stderr,
			"cuzk: alloc: %zu MiB region bound to node %d uses %s pages (%s); for hugetlb pages "
			"reserve them on that node: echo N > /sys/devices/system/node/node%d/hugepages/"
			"hugepages-2048kB/nr_hugepages (this region needs %zu pages of 2 MiB, %ld are free "
			"there now)\n", size >> 20, r->node, kind, why, r->node, need, nfree < 0 ? 0 : nfree);
		return;
	}
	if (atomic_exchange(&logged, 1))
		return;
	long nfree = cz_region_hugepages_free(SZ_2M);
	fprintf(stderr,
		"cuzk: alloc: %zu MiB region uses %s pages (%s); "
		"for hugetlb pages reserve them: echo N > /proc/sys/vm/nr_hugepages "
		"(this region needs %zu pages of 2 MiB, %ld are free now)\n",
		size >> 20, kind, why, need, nfree < 0 ? 0 : nfree);
}

int cz_region_create(struct cz_region *r, size_t size, int node, unsigned flags)
{
	int rc;

	*r = (struct cz_region){ .fd = -1 };
	if (!size)
		return -EINVAL;
	if (!(flags & (CZ_REGION_NO_HUGETLB | CZ_REGION_PRIVATE))) {
		/* 1 GiB pages only where enough of them are reserved and the
		 * region is big enough that rounding up wastes little. */
		if (!(flags & CZ_REGION_NO_1G) && size >= SZ_1G &&
		    cz_region_hugepages_free(SZ_1G) >= (long)(round_up(size, SZ_1G) / SZ_1G) &&
		    !try_hugetlb(r, size, SZ_1G, node, flags))
			return 0;
		if (!try_hugetlb(r, size, SZ_2M, node, flags))
			return 0;
	}
	rc = map_small(r, size, node, flags);
	if (rc)
		return rc;
	log_fallback(r, size, !!(flags & (CZ_REGION_NO_HUGETLB | CZ_REGION_PRIVATE)));
	return 0;
}

int cz_region_map_fd(struct cz_region *r, int fd, unsigned flags)
{
	struct stat st;
	int rc;

	*r = (struct cz_region){ .fd = -1 };
	if (fstat(fd, &st))
		return -errno;
	if (st.st_size <= 0)
		return -EINVAL;
	/* hugetlbfs reports its page size as st_blksize. */
	size_t ps = (size_t)st.st_blksize, size = (size_t)st.st_size;
	int huge = ps == SZ_2M || ps == SZ_1G;
	void *p = map_aligned(size, huge ? ps : SZ_2M, MAP_SHARED, fd);
	if (p == MAP_FAILED)
		return -errno;
	*r = (struct cz_region){ .base = p, .size = size, .fd = fd, .node = CZ_REGION_NODE_NONE,
				 .flags = flags, .page_size = ps, .kind = CZ_REGION_NORMAL };
	if (huge) {
		r->kind = ps == SZ_1G ? CZ_REGION_HUGETLB_1G : CZ_REGION_HUGETLB_2M;
	} else if (!(flags & CZ_REGION_NO_THP) && !madvise(p, size, MADV_HUGEPAGE) &&
		   thp_effective(1)) {
		r->kind = CZ_REGION_THP;
		r->page_size = SZ_2M;
	}
	if (!(flags & CZ_REGION_LAZY) && (rc = cz_region_populate(r, 0, size))) {
		r->fd = -1; /* the caller keeps fd on failure */
		munmap(p, size);
		*r = (struct cz_region){ .fd = -1 };
		return rc;
	}
	return 0;
}

void cz_region_destroy(struct cz_region *r)
{
	if (r->base)
		munmap(r->base, r->size);
	if (r->fd >= 0)
		close(r->fd);
	*r = (struct cz_region){ .fd = -1 };
}

/* SPDX-License-Identifier: MIT */
/*
 * alloc/region.h — large, prefaulted, NUMA-bound memory regions that another
 * process can map (see alloc/slab.c for the design statement).
 *
 * A region is one memfd mapping: hugetlb pages (1 GiB where reserved, else
 * 2 MiB), else transparent huge pages, else normal pages; the first fallback
 * in a process logs one line to stderr saying what was used and how to
 * reserve hugepages.  Memory is bound to a NUMA node before first touch and
 * prefaulted, so the hot path never page-faults.  Whatever lives in a region
 * is named by its offset from the base, never by a pointer: another process
 * receives the fd (cz_region_send/recv, SCM_RIGHTS) and maps it at another
 * address.  Regions are meant to be few and large (a later cudaHostRegister
 * pins each one once).
 */
#ifndef CZ_REGION_H
#define CZ_REGION_H

#include <stddef.h>
#include <stdint.h>

enum cz_region_kind {
	CZ_REGION_HUGETLB_1G,  /* hugetlbfs memfd, 1 GiB pages */
	CZ_REGION_HUGETLB_2M,  /* hugetlbfs memfd, 2 MiB pages */
	CZ_REGION_THP,         /* madvise(MADV_HUGEPAGE) and THP enabled for this mapping type */
	CZ_REGION_NORMAL,      /* base pages (THP unavailable or refused) */
};

/* cz_region_create() flags */
#define CZ_REGION_NO_HUGETLB 0x01u /* skip hugetlb (forces the fallback path) */
#define CZ_REGION_NO_THP     0x02u /* skip MADV_HUGEPAGE too: normal pages */
#define CZ_REGION_NO_1G      0x04u /* never use 1 GiB pages */
#define CZ_REGION_PRIVATE    0x08u /* anonymous mapping, no fd (cannot be shared) */
#define CZ_REGION_LAZY       0x10u /* bind but do not prefault (cz_region_populate later) */
#define CZ_REGION_QUIET      0x20u /* no fallback log line */

#define CZ_REGION_NODE_LOCAL (-1)  /* the node the calling thread runs on */
#define CZ_REGION_NODE_NONE  (-2)  /* no NUMA binding */

struct cz_region {
	void *base;                /* start of the mapping (2 MiB aligned at least) */
	size_t size;               /* bytes, a multiple of page_size */
	size_t page_size;          /* 4 KiB, 2 MiB or 1 GiB; THP regions say 2 MiB */
	int fd;                    /* memfd, or -1 for a PRIVATE region */
	int node;                  /* NUMA node bound to, or CZ_REGION_NODE_NONE */
	enum cz_region_kind kind;  /* which memory source backs it */
	unsigned flags;            /* as created */
};

/* Creates a region of at least size bytes.  Returns 0 or -errno (the
 * region is zeroed on failure).  Fallbacks are not failures. */
int cz_region_create(struct cz_region *r, size_t size, int node, unsigned flags);

/* Maps a region from a received fd (on success r owns fd).  The size
 * and page size come from fstat; flags: CZ_REGION_LAZY to skip prefaulting. */
int cz_region_map_fd(struct cz_region *r, int fd, unsigned flags);

/* Unmaps and closes; the memory itself lives on while another process
 * holds a mapping or the fd. */
void cz_region_destroy(struct cz_region *r);

/* Prefaults [off, off+len) writable (MADV_POPULATE_WRITE, else touching).
 * Range rounded out to pages.  -ENOMEM when hugetlb pages ran out. */
int cz_region_populate(struct cz_region *r, size_t off, size_t len);

/* Gives the pages of [off, off+len) back to the OS (fallocate punch-hole on
 * the memfd, MADV_DONTNEED when private); they read as zero afterwards.  The
 * range is rounded inward to whole pages.  Never called on a hot path. */
int cz_region_release(struct cz_region *r, size_t off, size_t len);

const char *cz_region_kind_name(enum cz_region_kind k);

static inline void *cz_region_ptr(const struct cz_region *r, uint64_t off)
{
	return (char *)r->base + off;
}

static inline uint64_t cz_region_off(const struct cz_region *r, const void *p)
{
	return (uint64_t)((const char *)p - (const char *)r->base);
}

/* --- passing a region to another process (alloc/fdpass.c) --- */

/* Sends fd and len bytes of data (len >= 1) over a Unix socket as one
 * message with SCM_RIGHTS.  Returns 0 or -errno. */
int cz_region_fd_send(int sock, int fd, const void *data, size_t len);

/* Receives one such message: *fd gets the descriptor (-1 if none came),
 * data up to len bytes.  Returns bytes received (0 = peer closed) or -errno. */
long cz_region_fd_recv(int sock, int *fd, void *data, size_t len);

/* Sends a region (its fd and a small header) / receives and maps it. */
int cz_region_send(int sock, const struct cz_region *r);
int cz_region_recv(int sock, struct cz_region *r, unsigned flags);

/* --- the 2 MiB hugetlb pool (root only; tests and benches) --- */

/* Adds delta (may be negative) 2 MiB pages to /proc/sys/vm/nr_hugepages,
 * relative to the value read now, so concurrent users compose.  *now gets
 * the count actually reached.  Returns 0 or -errno (-EACCES if not root). */
int cz_region_hugepages_add(long delta, long *now);

/* Free 2 MiB (or 1 GiB) hugetlb pages in the pool right now, -1 unknown. */
long cz_region_hugepages_free(size_t page_size);

#endif

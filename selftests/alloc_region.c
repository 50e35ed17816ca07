/* SPDX-License-Identifier: MIT */
/* Description: memory regions: hugetlb (reserved here when root), THP and normal fallbacks with one log line, NUMA binding, punch-hole, fd passed to a forked child that maps it elsewhere and reads by offset. */
#define _GNU_SOURCE
#include "alloc/region.h"
#include "selftests/cz_test.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB ((size_t)1 << 20)

/* From /proc/self/smaps, the value (kB) of field in the mapping at base. */
static long smaps_field(const void *base, const char *field)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0;
	long v = -1;
	size_t flen = strlen(field);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = lo == (unsigned long)base;
			continue;
		}
		if (in && !strncmp(line, field, flen) && line[flen] == ':')
			sscanf(line + flen + 1, "%ld", &v);
	}
	fclose(f);
	return v;
}

static int thp_mode_allows(const char *path, const char *const *ok)
{
	char buf[256] = { 0 };
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (; *ok; ok++) {
		char want[32];
		snprintf(want, sizeof(want), "[%s]", *ok);
		if (strstr(buf, want))
			return 1;
	}
	return 0;
}

static const char *const anon_ok[] = { "always", "madvise", NULL };
static const char *const shmem_ok[] = { "always", "within_size", "advise", "force", NULL };

/* Node of the page at p (get_mempolicy MPOL_F_NODE|MPOL_F_ADDR). */
static int page_node(void *p)
{
	int node = -1;
	if (syscall(SYS_get_mempolicy, &node, NULL, 0ul, p, 3ul /* MPOL_F_NODE|MPOL_F_ADDR */))
		return -1;
	return node;
}

/* Fills a region with a linked chain addressed by offsets: at offset o the
 * next offset and a check word.  Another process follows it from offset 0. */
struct link {
	uint64_t next;  /* offset of the next link, 0 = end */
	uint64_t check; /* a function of this link's own offset */
};

static unsigned make_chain(struct cz_region *r)
{
	uint64_t off = 0;
	unsigned n = 0;
	for (uint64_t next = 4096 + 64; next + 64 < r->size; next = next * 3 + 192) {
		struct link *l = cz_region_ptr(r, off);
		l->next = next;
		l->check = off * 0x9e3779b97f4a7c15ull + 1;
		off = next;
		n++;
	}
	struct link *l = cz_region_ptr(r, off);
	l->next = 0;
	l->check = off * 0x9e3779b97f4a7c15ull + 1;
	return n + 1;
}

static unsigned walk_chain(const struct cz_region *r)
{
	uint64_t off = 0;
	unsigned n = 0;
	for (;;) {
		const struct link *l = cz_region_ptr(r, off);
		if (l->check != off * 0x9e3779b97f4a7c15ull + 1)
			return 0;
		n++;
		if (!l->next)
			return n;
		if (l->next >= r->size)
			return 0;
		off = l->next;
	}
}

/* The parent sends r over a socketpair to a forked child, which maps it at a
 * different address, walks the chain by offsets, and writes a reply. */
static void test_fdpass(struct cz_region *r, const char *what)
{
	int sv[2];
	unsigned n = make_chain(r);
	uint64_t *reply = cz_region_ptr(r, r->size - 8);

	*reply = 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
		ct_ok(0, "%s: socketpair: %s", what, strerror(errno));
		return;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		struct cz_region c;
		close(sv[0]);
		int rc = cz_region_recv(sv[1], &c, 0);
		if (rc)
			_exit(10);
		if (c.base == r->base)
			_exit(11); /* the parent's mapping is still here: must differ */
		if (c.size != r->size || c.kind != r->kind)
			_exit(12);
		unsigned got = walk_chain(&c);
		*(uint64_t *)cz_region_ptr(&c, c.size - 8) = 0xc0ffee00ull + got;
		cz_region_destroy(&c);
		_exit(got == n ? 0 : 13);
	}
	close(sv[1]);
	int src = cz_region_send(sv[0], r);
	int st = -1;
	waitpid(pid, &st, 0);
	close(sv[0]);
	ct_ok(src == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && *reply == 0xc0ffee00ull + n,
	      "%s: fd passed to a forked child, mapped at another address, %u links followed by offset, "
	      "reply seen (send %d, child exit %d)",
	      what, n, src, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void test_release(struct cz_region *r, const char *what)
{
	size_t ps = r->page_size < 2 * MiB ? 2 * MiB : r->page_size;
	if (r->size < 3 * ps) {
		ct_skip("region smaller than three pages", "%s: punch-hole", what);
		return;
	}
	memset(r->base, 0x5a, 3 * ps);
	int rc = cz_region_release(r, ps, ps);
	unsigned char *p = r->base;
	int ok = rc == 0 && p[0] == 0x5a && p[ps - 1] == 0x5a && p[ps] == 0 && p[2 * ps - 1] == 0 &&
		 p[2 * ps] == 0x5a;
	ct_ok(ok, "%s: released page reads zero, neighbours intact (rc %d)", what, rc);
	cz_region_populate(r, ps, ps);
}

static void test_fallbacks(void)
{
	struct cz_region r;
	char path[] = "/tmp/cz-region-log-XXXXXX";
	int lfd = mkstemp(path);

	/* Capture stderr across two fallback creations: one line in total. */
	fflush(stderr);
	int saved = dup(2);
	dup2(lfd, 2);
	int rc1 = cz_region_create(&r, 8 * MiB, CZ_REGION_NODE_LOCAL, CZ_REGION_NO_HUGETLB);
	struct cz_region r2;
	int rc2 = cz_region_create(&r2, 4 * MiB, CZ_REGION_NODE_LOCAL, CZ_REGION_NO_HUGETLB);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char log[1024] = { 0 };
	ssize_t ln = pread(lfd, log, sizeof(log) - 1, 0);
	close(lfd);
	unlink(path);
	int lines = 0;
	for (ssize_t i = 0; i < ln; i++)
		lines += log[i] == '\n';
	/* A region bound to a node names that node's pool (its hugepages
	 * come from there only), an unbound one the machine's. */
	char want[128] = "/proc/sys/vm/nr_hugepages";
	if (rc1 == 0 && r.node >= 0)
		snprintf(want, sizeof(want), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
			 r.node);
	ct_ok(rc1 == 0 && rc2 == 0 && lines == 1 && strstr(log, want),
	      "forced fallback: two regions, exactly one log line naming %s", want);
	ct_diag("log: %.*s", (int)(ln > 0 ? ln - 1 : 0), log);
	int thp = thp_mode_allows("/sys/kernel/mm/transparent_hugepage/shmem_enabled", shmem_ok);
	ct_ok(!rc1 && r.fd >= 0 && r.kind == (thp ? CZ_REGION_THP : CZ_REGION_NORMAL) &&
		      r.size == 8 * MiB && (uintptr_t)r.base % (2 * MiB) == 0,
	      "memfd fallback is %s (shmem THP %s), fd %d, 2 MiB aligned", cz_region_kind_name(r.kind),
	      thp ? "on" : "off", r.fd);
	int node = page_node(r.base), node2 = page_node((char *)r.base + r.size - 1);
	if (!rc1 && r.node < 0)
		ct_skip("mbind refused here (seccomp or no CAP_SYS_NICE)", "pages bound to the local node");
	else
		ct_ok(r.node >= 0 && node == r.node && node2 == r.node,
		      "pages bound to the local node %d (first page on %d, last on %d)", r.node, node,
		      node2);
	test_release(&r, "memfd fallback");
	test_fdpass(&r, "memfd fallback");
	cz_region_destroy(&r2);
	cz_region_destroy(&r);

	rc1 = cz_region_create(&r, 6 * MiB, CZ_REGION_NODE_NONE, CZ_REGION_NO_HUGETLB | CZ_REGION_NO_THP);
	long kps = rc1 ? -1 : smaps_field(r.base, "KernelPageSize");
	ct_ok(!rc1 && r.kind == CZ_REGION_NORMAL && r.page_size == 4096 && kps == 4 &&
		      r.node == CZ_REGION_NODE_NONE,
	      "NO_THP gives normal pages (KernelPageSize %ld kB), unbound", kps);
	cz_region_destroy(&r);

	rc1 = cz_region_create(&r, 8 * MiB, 0, CZ_REGION_PRIVATE);
	int athp = thp_mode_allows("/sys/kernel/mm/transparent_hugepage/enabled", anon_ok);
	long ahp = rc1 ? -1 : smaps_field(r.base, "AnonHugePages");
	ct_ok(!rc1 && r.fd < 0 && r.kind == (athp ? CZ_REGION_THP : CZ_REGION_NORMAL) &&
		      (!athp || ahp > 0),
	      "private fallback is %s (AnonHugePages %ld kB after prefault)", cz_region_kind_name(r.kind),
	      ahp);
	test_release(&r, "private region");
	ct_ok(cz_region_send(0, &r) == -EBADF, "a private region cannot be sent");
	cz_region_destroy(&r);
}

static void test_hugetlb(void)
{
	struct cz_region r;
	long now;

	long before = cz_region_hugepages_free(2 * MiB);
	int own = geteuid() == 0 && !cz_region_hugepages_add(8, &now);
	if (!own && before < 8) {
		for (int i = 0; i < 6; i++)
			ct_skip(geteuid() ? "not root and fewer than 8 free hugepages"
					  : "writing /proc/sys/vm/nr_hugepages failed",
				"hugetlb point %d", i + 1);
		return;
	}
	if (!own)
		now = -1;
	long freed = cz_region_hugepages_free(2 * MiB);
	int rc = cz_region_create(&r, 8 * MiB, CZ_REGION_NODE_LOCAL, 0);
	long kps = rc ? -1 : smaps_field(r.base, "KernelPageSize");
	long after = cz_region_hugepages_free(2 * MiB);
	ct_ok(!rc && r.kind == CZ_REGION_HUGETLB_2M && r.page_size == 2 * MiB && kps == 2048 &&
		      freed - after >= 4,
	      "8 of %ld reserved pages: hugetlb-2M region, KernelPageSize %ld kB, 4 pages faulted in "
	      "(free %ld -> %ld)",
	      now, kps, freed, after);
	int node = rc ? -1 : page_node(r.base);
	if (!rc && r.node < 0)
		ct_skip("mbind refused here (seccomp or no CAP_SYS_NICE)", "hugetlb pages on the bound node");
	else
		ct_ok(!rc && r.node >= 0 && node == r.node, "hugetlb pages on the bound node %d (%d)",
		      r.node, node);
	if (!rc) {
		test_release(&r, "hugetlb-2M");
		test_fdpass(&r, "hugetlb-2M");
		cz_region_destroy(&r);
	} else {
		ct_skip("no hugetlb region", "hugetlb-2M punch-hole");
		ct_skip("no hugetlb region", "hugetlb-2M fd pass");
	}
	/* More than the pool holds: falls back instead of failing. */
	long nfree = cz_region_hugepages_free(2 * MiB);
	rc = cz_region_create(&r, (size_t)(nfree + 8) * 2 * MiB, 0, CZ_REGION_QUIET);
	ct_ok(!rc && r.kind != CZ_REGION_HUGETLB_2M && r.kind != CZ_REGION_HUGETLB_1G,
	      "a region larger than the free pool (%ld pages) falls back to %s", nfree,
	      rc ? "nothing" : cz_region_kind_name(r.kind));
	if (!rc)
		cz_region_destroy(&r);
	if (own) {
		cz_region_hugepages_add(-8, &now);
		ct_diag("nr_hugepages restored to %ld (free before %ld)", now, before);
	}

	/* 1 GiB pages: only if the kernel can find a contiguous gigabyte now. */
	const char *g = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages";
	FILE *f = fopen(g, "r");
	long g0 = -1;
	if (f) {
		if (fscanf(f, "%ld", &g0) != 1)
			g0 = -1;
		fclose(f);
	}
	if (g0 < 0) {
		ct_skip("no 1 GiB hugepage support", "hugetlb-1G region");
		return;
	}
	if (!(f = fopen(g, "w"))) {
		ct_skip("cannot reserve a 1 GiB page (not root)", "hugetlb-1G region");
		return;
	}
	fprintf(f, "%ld\n", g0 + 1);
	fclose(f);
	if (cz_region_hugepages_free((size_t)1 << 30) < 1) {
		ct_skip("kernel could not reserve a 1 GiB page (fragmented memory)", "hugetlb-1G region");
	} else {
		rc = cz_region_create(&r, (size_t)1 << 30, 0, CZ_REGION_QUIET);
		kps = rc ? -1 : smaps_field(r.base, "KernelPageSize");
		ct_ok(!rc && r.kind == CZ_REGION_HUGETLB_1G && kps == 1048576,
		      "1 GiB region on a reserved 1 GiB page (KernelPageSize %ld kB)", kps);
		if (!rc)
			cz_region_destroy(&r);
	}
	if ((f = fopen(g, "w"))) {
		fprintf(f, "%ld\n", g0);
		fclose(f);
	}
}

static void test_bad_message(void)
{
	int sv[2];
	struct cz_region r;
	char junk[40] = "not a region header";

	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	cz_region_fd_send(sv[0], -1, junk, sizeof(junk));
	int rc = cz_region_recv(sv[1], &r, 0);
	close(sv[0]);
	close(sv[1]);
	ct_ok(rc == -EPROTO && r.base == NULL && r.fd == -1, "a message without an fd is refused (%d)", rc);
}

int main(void)
{
	ct_plan(16);
	test_fallbacks();
	test_hugetlb();
	test_bad_message();
	return ct_exit();
}

/* SPDX-License-Identifier: MIT */
/*
 * selftests/shim/heapcount.c — an LD_PRELOAD shim that counts heap and
 * mapping calls per thread, so a test can show that the daemon's engine
 * threads make none per partition (issue 9, "nothing allocated per
 * partition").  Built by the Makefile as $(B)/selftests/heapcount.so.
 *
 * Counted: malloc, calloc, realloc, free (of a non-NULL pointer),
 * memalign/posix_memalign/aligned_alloc/valloc/pvalloc, malloc_trim, mmap,
 * munmap, mremap, and io_uring ring setup/teardown (liburing maps its
 * rings with raw syscalls, so io_uring_queue_init* and io_uring_queue_exit
 * are counted by name).  glibc's own internal mmaps (malloc's large chunks,
 * thread stacks) are not calls by the program and are not seen; the malloc
 * that caused them is.
 *
 * Control, by files (no signal, which the daemon may block): with
 * CZ_HEAPCOUNT=P in the environment, a thread of the shim's own
 * ("heapcount") polls every 2 ms for
 *   P.arm   zero every counter, start counting, delete P.arm (the ack);
 *   P.dump  stop counting, write the report to P (atomically, via P.tmp),
 *           delete P.dump.
 * A process started under the shim with CZ_HEAPCOUNT=P uses P itself and
 * puts CZ_HEAPCOUNT_ROOT=<its pid> in its environment; a descendant that
 * execs with that environment (cuzkd's device children, cz-dev<N>) uses
 * P.pid<ITS PID> instead (P.pid<PID>.arm, .dump, and the report), so a
 * test counts each process of a daemon on its own.
 * Report: one line per thread that made a counted call while armed:
 *   <comm> <tid> malloc calloc realloc free memalign trim mmap munmap ring
 * Hot path when armed: one thread-local load and a relaxed increment.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

enum { K_MALLOC, K_CALLOC, K_REALLOC, K_FREE, K_MEMALIGN, K_TRIM, K_MMAP, K_MUNMAP, K_RING, K_N };
#define MAXT 1024

struct slot {
	atomic_int tid;
	char name[16];          /* at the thread's first counted call (it may exit before the report) */
	atomic_uint_fast64_t n[K_N];
};

static struct slot slots[MAXT];
static atomic_int nslots, armed;
static __thread int myslot __attribute__((tls_model("initial-exec"))) = -1;
static __thread unsigned long myepoch __attribute__((tls_model("initial-exec")));
static atomic_ulong epoch;      /* bumped per arm: slots are handed out again */
static char base[512];

static int (*real_trim)(size_t);
static int (*real_ring_init)(unsigned, void *, unsigned);
static int (*real_ring_init_params)(unsigned, void *, void *);
static void (*real_ring_exit)(void *);

static void count(int k)
{
	if (!atomic_load_explicit(&armed, memory_order_relaxed))
		return;
	unsigned long ep = atomic_load_explicit(&epoch, memory_order_relaxed);
	int s = myslot;
	if (s < 0 || myepoch != ep) {
		s = atomic_fetch_add(&nslots, 1);
		if (s >= MAXT)
			s = MAXT - 1;   /* overflow: lumped together, still counted */
		prctl(PR_GET_NAME, slots[s].name);
		atomic_store(&slots[s].tid, (int)syscall(SYS_gettid));
		myslot = s;
		myepoch = ep;
	}
	atomic_fetch_add_explicit(&slots[s].n[k], 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
	count(K_MALLOC);
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	count(K_CALLOC);
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	count(K_REALLOC);
	return __libc_realloc(p, n);
}

void free(void *p)
{
	if (p)
		count(K_FREE);
	__libc_free(p);
}

void *memalign(size_t a, size_t n)
{
	count(K_MEMALIGN);
	return __libc_memalign(a, n);
}

void *aligned_alloc(size_t a, size_t n)
{
	count(K_MEMALIGN);
	return __libc_memalign(a, n);
}

int posix_memalign(void **r, size_t a, size_t n)
{
	count(K_MEMALIGN);
	if (a < sizeof(void *) || (a & (a - 1)))
		return EINVAL;
	void *p = __libc_memalign(a, n);
	if (!p)
		return ENOMEM;
	*r = p;
	return 0;
}

void *valloc(size_t n)
{
	count(K_MEMALIGN);
	return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

void *pvalloc(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	count(K_MEMALIGN);
	return __libc_memalign(pg, (n + pg - 1) & ~(pg - 1));
}

int malloc_trim(size_t pad)
{
	count(K_TRIM);
	return real_trim ? real_trim(pad) : 0;
}

static void *do_mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	count(K_MMAP);
	return (void *)syscall(SYS_mmap, a, n, prot, fl, fd, off);
}

void *mmap(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	return do_mmap(a, n, prot, fl, fd, off);
}

void *mmap64(void *a, size_t n, int prot, int fl, int fd, off_t off)
{
	return do_mmap(a, n, prot, fl, fd, off);
}

int munmap(void *a, size_t n)
{
	count(K_MUNMAP);
	return (int)syscall(SYS_munmap, a, n);
}

void *mremap(void *a, size_t o, size_t n, int fl, ...)
{
	va_list ap;
	void *na = NULL;

	va_start(ap, fl);
	if (fl & MREMAP_FIXED)
		na = va_arg(ap, void *);
	va_end(ap);
	count(K_MMAP);
	return (void *)syscall(SYS_mremap, a, o, n, fl, na);
}

int io_uring_queue_init(unsigned entries, void *ring, unsigned flags)
{
	count(K_RING);
	return real_ring_init ? real_ring_init(entries, ring, flags) : -ENOSYS;
}

int io_uring_queue_init_params(unsigned entries, void *ring, void *p)
{
	count(K_RING);
	return real_ring_init_params ? real_ring_init_params(entries, ring, p) : -ENOSYS;
}

void io_uring_queue_exit(void *ring)
{
	count(K_RING);
	if (real_ring_exit)
		real_ring_exit(ring);
}

/* ---- control ---- */

static int exists(const char *suffix)
{
	char p[600];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	return access(p, F_OK) == 0;
}

static void drop(const char *suffix)
{
	char p[600];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	unlink(p);
}

static void report(void)
{
	char tmp[600], line[256], comm[32], cp[64];
	int n = atomic_load(&nslots);

	snprintf(tmp, sizeof(tmp), "%s.tmp", base);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	for (int s = 0; s < n && s < MAXT; s++) {
		int tid = atomic_load(&slots[s].tid);
		snprintf(cp, sizeof(cp), "/proc/self/task/%d/comm", tid);
		int cf = open(cp, O_RDONLY | O_CLOEXEC);
		ssize_t k = cf >= 0 ? read(cf, comm, sizeof(comm) - 1) : -1;
		if (cf >= 0)
			close(cf);
		if (k <= 0)
			k = snprintf(comm, sizeof(comm), "%s", slots[s].name[0] ? slots[s].name : "?");
		comm[k] = 0;
		comm[strcspn(comm, "\n")] = 0;
		int len = snprintf(line, sizeof(line), "%s %d", comm, tid);
		for (int i = 0; i < K_N; i++)
			len += snprintf(line + len, sizeof(line) - (size_t)len, " %llu",
					(unsigned long long)atomic_load(&slots[s].n[i]));
		line[len++] = '\n';
		if (write(fd, line, (size_t)len) != len)
			break;
	}
	close(fd);
	rename(tmp, base);
}

static void *control_main(void *v)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	(void)v;
	pthread_setname_np(pthread_self(), "heapcount");
	for (;;) {
		if (exists(".arm")) {
			atomic_store(&armed, 0);
			for (int s = 0; s < MAXT; s++)
				for (int i = 0; i < K_N; i++)
					atomic_store(&slots[s].n[i], 0);
			atomic_store(&nslots, 0);
			atomic_fetch_add(&epoch, 1);
			atomic_store(&armed, 1);
			drop(".arm");
		}
		if (exists(".dump")) {
			atomic_store(&armed, 0);
			report();
			drop(".dump");
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

__attribute__((constructor)) static void heapcount_init(void)
{
	const char *p = getenv("CZ_HEAPCOUNT");
	pthread_t t;

	real_trim = (int (*)(size_t))dlsym(RTLD_NEXT, "malloc_trim");
	real_ring_init = (int (*)(unsigned, void *, unsigned))dlsym(RTLD_NEXT, "io_uring_queue_init");
	real_ring_init_params = (int (*)(unsigned, void *, void *))dlsym(RTLD_NEXT, "io_uring_queue_init_params");
	real_ring_exit = (void (*)(void *))dlsym(RTLD_NEXT, "io_uring_queue_exit");
	if (!p || !*p || strlen(p) >= sizeof(base) - 32)
		return;
	const char *root = getenv("CZ_HEAPCOUNT_ROOT");
	if (root && atoi(root) != (int)getpid()) {
		snprintf(base, sizeof(base), "%s.pid%d", p, (int)getpid());
	} else {
		char me[16];
		strcpy(base, p);
		snprintf(me, sizeof(me), "%d", (int)getpid());
		setenv("CZ_HEAPCOUNT_ROOT", me, 1);     /* before main: one thread yet */
	}
	if (pthread_create(&t, NULL, control_main, NULL) == 0)
		pthread_detach(t);
}

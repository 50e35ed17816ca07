/* SPDX-License-Identifier: MIT */
/*
 * engine/device/devproc.c — each device's consumers in a child process of their
 * own (--isolation process), supervised by cuzkd.
 *
 * WHY A PROCESS.  A segfault, abort or sticky CUDA error in a device stage
 * must cost one attempt of one partition, never the daemon and every job
 * it accepted.  Everything a consumer touches is already in shared memory
 * and named by offsets (engine/pipeline/pipe.h: rings, consumer and device lines,
 * the partition table; the slab arena; the keys, curves/shkey.c; the
 * consumers' trace buffers, engine/evidence/trace.c), so a child needs only the fds.
 *
 * WHY A RE-EXEC OF cuzkd ("cuzkd --device-child N PPID", fd 3 the socket)
 * and not a separate binary or a bare fork: the one binary carries every
 * backend and the consumer code, so parent and child can never disagree on
 * a layout (the regions hold no version of their own), and nothing extra is
 * installed; exec gives a clean process, with none of the parent's threads
 * or locks (a fork of a multi-threaded process may only call async-signal-
 * safe functions) and a CUDA runtime of its own, so only the child ever
 * touches the GPU.  Between fork and exec the child only sets
 * PR_SET_PDEATHSIG (it dies with cuzkd) and moves the socket to fd 3.
 *
 * THE CONVERSATION, on a SOCK_SEQPACKET pair (fds by SCM_RIGHTS,
 * alloc/fdpass.c): cuzkd sends HELLO (the pipe region), LOCK (its lock
 * file, below), one ARENA per node's arena, one TRACE per consumer, one
 * KEY per resident key, GO; the child maps them, opens its device and
 * answers READY.  Later KEY/UNKEY follow load and unload.
 * cuzkd closing the socket (after cz_pipe_stop) tells the child to finish:
 * its consumers end their partition and it exits.
 *
 * SUPERVISION (thread cz-super): a pidfd per child, polled with each
 * socket.  On death: the device is marked down (the order thread gives it
 * nothing), cz_pipe_recover_dev undoes its consumers' ring claims and hands
 * what they held out again at its own key, so it is the next to start
 * anywhere (a partition that was on a device that died twice fails its job
 * with that reason instead); its trace buffers become adoptable; it
 * restarts after 100 ms, doubling to 5 s; the third death within 60 s
 * marks the device failed, logged, and its work goes to the others; a
 * failed device is tried again after --device-retry-ms (60 s), doubling
 * to max(15 min, it) (an only device would otherwise stay down for good
 * with its clients waiting; an await with a timeout on it is told no
 * device is in service).
 * A device whose stage hangs is found by the watchdog (engine/device/watchdog.c),
 * which kills its process: from here on it is a death like any other.
 *
 * AN OPERATOR'S RESTART (cuzkctl device N restart, or enable) answers at
 * once: the request marks the device restarting and takes it off the
 * order thread; the supervisor waits for its consumers to finish what
 * they run (up to 60 s; not at all when it is hung), kills the process,
 * and starts a new one at once, with no death counted.  Status says
 * "restarting" until it is ready.
 *
 * STALE CHILDREN.  A child dies with cuzkd (PR_SET_PDEATHSIG, and it
 * checks its parent is still the one that started it), but one can
 * outlive it: stuck in a driver call, or started by a cuzkd that died
 * between fork and prctl.  Such a process holds the old regions and, for
 * cuda, its GPU context and device memory.  Each child holds an flock on
 * <state-dir>/cz-dev<N>.lock and writes its pid there; at start cuzkd
 * (either isolation) finds each lock free, or held by a cz-dev process
 * whose parent is not a cuzkd (an orphan: killed, and its lock waited
 * for), or refuses to start naming the holder (another cuzkd uses the
 * state directory).
 *
 * NO WINDOW.  A consumer takes a descriptor from a ring in two steps
 * (cz_ring_mc_dequeue_hold, then _done): the ring slot stays claimed in
 * the consumer's name until its holds[] word (its line in the region) says
 * what it took, so a kill at any instruction leaves each partition it had
 * in the ring's dead-owner recovery, in holds[], or in both (then one copy
 * goes out); selftests/e2e_devproc.c kills a child at each such point
 * (CZ_TEST_DEVKILL) and at random moments.
 */
#define _GNU_SOURCE
#include "ctl/ctl.h"
#include "engine/device/devproc.h"
#include "engine/engine_pvt.h"
#include "lib/thread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { DP_HELLO = 1, DP_ARENA, DP_TRACE, DP_KEY, DP_UNKEY, DP_GO, DP_READY, DP_LOCK };

struct dp_msg {
	uint32_t magic;         /* DP_MAGIC */
	uint32_t type, id;
	uint32_t dev, ndev, nout;
	char backend[16];
	struct cz_backend_opts bopts;
	char text[160];
};
#define DP_MAGIC 0x637a6470u    /* "czdp" */

#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000
#define DEATHS_MAX 3
#define DEATHS_WINDOW_NS (60ull * 1000000000ull)
#define POISON 2                /* deaths with a partition before it fails */
#define FAILED_RETRY_MAX_MS (15 * 60000)
#define DRAIN_NS (60ull * 1000000000ull)        /* an operator's restart waits this long */

static int msg_send(int sock, uint32_t type, uint32_t id, int fd, const char *text)
{
	struct dp_msg m = { .magic = DP_MAGIC, .type = type, .id = id };
	if (text)
		snprintf(m.text, sizeof(m.text), "%s", text);
	return cz_region_fd_send(sock, fd, &m, sizeof(m));
}

/* The NUMA hook: called in a device child before it maps anything or
 * starts a thread, so its placement (CPU affinity to device dev's node,
 * memory policy bound there) applies to all of the child: engine/place/numa.c,
 * from the plan cuzkd put in the environment. */
void cz_devproc_place(unsigned dev)
{
	cz_numa_child_place(dev);
}

/* ======================= the child ======================= */

struct child_key {
	struct cz_region reg;
	const struct cz_curve_ops *cv;  /* from the region's header (cz_curve_ops_of_region) */
	union cz_curve_key key;
	void *dom;
	ino_t ino;
	bool pinned;            /* reg pinned by the backend (pin_host) */
};

static void child_unkey(struct cz_pipe *p, const struct cz_backend *be, struct cz_device *hw,
			struct child_key *k, unsigned id)
{
	if (!k->reg.base)
		return;
	__atomic_store_n(&p->keys[id].key, NULL, __ATOMIC_RELEASE);
	if (k->pinned)
		be->unpin_host(k->reg.base);
	if (be->unload_key)     /* any curve: the union's address is the key's */
		be->unload_key(hw, &k->key);
	if (k->dom)
		k->cv->dom_destroy(k->dom);
	cz_region_destroy(&k->reg);
	memset(k, 0, sizeof(*k));
}

/* A key's region, mapped read-only; the same one again is left alone. */
static int child_key(struct cz_pipe *p, const struct cz_backend *be, struct cz_device *hw,
		     struct child_key *keys, unsigned id, int fd)
{
	struct stat st;
	if (id >= CZ_PIPE_KEYS || fstat(fd, &st)) {
		close(fd);
		return -EINVAL;
	}
	struct child_key *k = &keys[id];
	if (k->reg.base && k->ino == st.st_ino) {
		close(fd);
		return 0;
	}
	child_unkey(p, be, hw, k, id);
	int rc = cz_region_map_fd(&k->reg, fd, CZ_REGION_LAZY);
	if (rc) {
		close(fd);
		return rc;
	}
	bool ok = !mprotect(k->reg.base, k->reg.size, PROT_READ) &&
		  (k->cv = cz_curve_ops_of_region(&k->reg)) && !k->cv->key_attach(&k->reg, &k->key) &&
		  (k->dom = k->cv->dom_create(k->key.log2n));
	if (!ok) {
		cz_region_destroy(&k->reg);
		return -EPROTO;
	}
	k->ino = st.st_ino;
	k->pinned = be->pin_host && !be->pin_host(k->reg.base, k->reg.size);
	p->keys[id].curve = k->cv->curve;
	p->keys[id].dom = k->dom;
	/* published last: a consumer that sees the key sees its domain and curve */
	__atomic_store_n(&p->keys[id].key, &k->key, __ATOMIC_RELEASE);
	return 0;
}

/* Holds <state-dir>/cz-dev<N>.lock (fd from cuzkd, kept open until this
 * process ends) and writes the pid there; 0, or -1 if someone holds it. */
static int child_lock(unsigned dev, int fd)
{
	char pid[24];
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "cz-dev%u: its lock file is held by another process: %s\n", dev,
			strerror(errno));
		close(fd);
		return -1;
	}
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		fprintf(stderr, "cz-dev%u: cannot write its pid to its lock file: %s\n", dev, strerror(errno));
	return 0;               /* fd stays open: the lock lasts as long as we do */
}

/* The child's setup, until cuzkd's go: the device lock, partition arenas,
 * the trace buffer, keys (kept in pending[] until the device is open).
 * 0, or 1 (the child exits). */
static int child_setup(unsigned dev, int sock, struct cz_region *arena, int *pending)
{
	struct dp_msg m;
	int fd;

	for (;;) {
		long n = cz_region_fd_recv(sock, &fd, &m, sizeof(m));
		if (n != (long)sizeof(m) || m.magic != DP_MAGIC)
			return 1;
		if (m.type == DP_GO)
			return 0;
		if (m.type == DP_LOCK && fd >= 0) {
			if (child_lock(dev, fd))
				return 1;
		} else if (m.type == DP_ARENA && fd >= 0 &&
		    (m.id >= CZ_PLACE_MAX_NODES || arena[m.id].base ||
		     cz_region_map_fd(&arena[m.id], fd, CZ_REGION_LAZY))) {
			fprintf(stderr, "cz-dev%u: cannot map partition arena %u\n", dev, m.id);
			return 1;
		}
		else if (m.type == DP_TRACE && fd >= 0) {
			cz_trace_shared_attach(fd);
			close(fd);
		} else if (m.type == DP_KEY && fd >= 0 && m.id < CZ_PIPE_KEYS) {
			if (pending[m.id] >= 0)
				close(pending[m.id]);
			pending[m.id] = fd;     /* mapped once the device is open */
		} else if (fd >= 0)
			close(fd);
	}
}

/* Keys come and go until cuzkd closes the socket. */
static void child_serve(unsigned dev, int sock, struct cz_pipe *pipe, const struct cz_backend *be,
			struct cz_device *hw, struct child_key *keys)
{
	struct dp_msg m;
	int fd;

	for (;;) {
		long n = cz_region_fd_recv(sock, &fd, &m, sizeof(m));
		if (n <= 0)
			break;
		if (n != (long)sizeof(m) || m.magic != DP_MAGIC) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (m.type == DP_KEY && fd >= 0) {
			if (child_key(pipe, be, hw, keys, m.id, fd))
				fprintf(stderr, "cz-dev%u: cannot map key %u\n", dev, m.id);
		} else if (m.type == DP_UNKEY && m.id < CZ_PIPE_KEYS) {
			child_unkey(pipe, be, hw, &keys[m.id], m.id);
		} else if (fd >= 0) {
			close(fd);
		}
	}
}

int cz_devproc_child_main(int argc, char **argv)
{
	int sock = 3;
	struct dp_msg m;
	int fd;
	char err[256] = "";

	if (argc < 4)
		return 2;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != (pid_t)strtol(argv[3], NULL, 10))
		return 1;       /* cuzkd is already gone */
	unsigned dev = (unsigned)strtoul(argv[2], NULL, 10);
	char comm[16];
	snprintf(comm, sizeof(comm), "cz-dev%u", dev);
	prctl(PR_SET_NAME, comm);
	cz_devproc_place(dev);
	const char *tk = getenv("CZ_TEST_DEVKILL");
	if (tk && cz_pipe_test_kill_parse(tk, dev))
		fprintf(stderr, "cz-dev%u: CZ_TEST_DEVKILL=%s: expected D:claim|held|lower:N[:stop],...\n", dev, tk);
	sigset_t all;
	sigemptyset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	signal(SIGPIPE, SIG_IGN);

	long n = cz_region_fd_recv(sock, &fd, &m, sizeof(m));
	if (n != (long)sizeof(m) || m.magic != DP_MAGIC || m.type != DP_HELLO || fd < 0 ||
	    m.dev != dev) {
		fprintf(stderr, "cz-dev%u: no greeting from cuzkd\n", dev);
		return 1;
	}
	struct cz_region preg;
	static struct cz_pipe pipe;
	if (cz_region_map_fd(&preg, fd, CZ_REGION_LAZY) ||
	    cz_pipe_attach(&pipe, &preg, m.nout, m.ndev)) {
		fprintf(stderr, "cz-dev%u: cannot map the pipeline's region\n", dev);
		return 1;
	}
	m.backend[sizeof(m.backend) - 1] = 0;
	const struct cz_backend *be = cz_backend_find(m.backend);
	struct cz_backend_opts bopts = m.bopts;
	unsigned per = m.nout / m.ndev;         /* attach checked both */
	if (!be)
		return 1;
	static struct cz_region arena[CZ_PLACE_MAX_NODES];
	static struct child_key keys[CZ_PIPE_KEYS];
	int pending[CZ_PIPE_KEYS];
	for (unsigned i = 0; i < CZ_PIPE_KEYS; i++)
		pending[i] = -1;
	if (child_setup(dev, sock, arena, pending))
		return 1;
	struct cz_device *hw = be->open(dev, &bopts, err, sizeof(err));
	if (!hw) {
		fprintf(stderr, "cz-dev%u: %s\n", dev, err);
		return 1;
	}
	/* pinned once the device is current, so the pinning makes no context
	 * on another GPU */
	for (unsigned a = 0; a < CZ_PLACE_MAX_NODES && be->pin_host; a++)
		if (arena[a].base)
			be->pin_host(arena[a].base, arena[a].size);
	for (unsigned i = 0; i < CZ_PIPE_KEYS; i++)
		if (pending[i] >= 0 && child_key(&pipe, be, hw, keys, i, pending[i]))
			fprintf(stderr, "cz-dev%u: cannot map key %u\n", dev, i);
	struct cz_consumer *cons = calloc(per, sizeof(*cons));
	if (!cons)
		return 1;
	for (unsigned k = 0; k < per; k++) {
		cons[k] = (struct cz_consumer){ .pipe = &pipe, .be = be, .hw = hw,
						.idx = dev + k * pipe.ndev, .dev = dev, .trace_fd = -1 };
		for (unsigned a = 0; a < CZ_PLACE_MAX_NODES; a++)
			cons[k].buf_base[a] = arena[a].base;
		if (pthread_create(&cons[k].tid, NULL, cz_consume_main, &cons[k]))
			return 1;
	}
	msg_send(sock, DP_READY, dev, -1, be->describe(hw));
	child_serve(dev, sock, &pipe, be, hw, keys);
	/* cuzkd stopped the pipe before closing: the consumers end. */
	for (unsigned k = 0; k < per; k++)
		pthread_join(cons[k].tid, NULL);
	free(cons);     /* LeakSanitizer reported it at every child's exit */
	be->close(hw);
	return 0;
}

/* ======================= cuzkd's side ======================= */

/* Sends what a new child needs; 0 or -errno. */
static int greet(struct cz_engine *e, struct cz_devproc *d, int lfd)
{
	struct dp_msg m = { .magic = DP_MAGIC, .type = DP_HELLO, .dev = d->dev, .ndev = e->ndev,
			    .nout = e->ncons, .bopts = e->bopts };
	snprintf(m.backend, sizeof(m.backend), "%s", e->be->name);
	int rc = cz_region_fd_send(d->sock, e->pipe.reg.fd, &m, sizeof(m));
	if (!rc && lfd >= 0)
		rc = msg_send(d->sock, DP_LOCK, d->dev, lfd, NULL);
	/* Every arena of the plan (one per node: engine/place/numa.c), by its index
	 * (a descriptor's off[0] top byte): the order thread prefers a device
	 * of the partition's node but may give it to any, so each child maps
	 * all of them; mapping is lazy and the pages stay where cuzkd's
	 * mempolicy put them. */
	for (unsigned k = 0; !rc && k < e->narena; k++)
		rc = msg_send(d->sock, DP_ARENA, k, cz_slab_region(e->node_arena[k])->fd, NULL);
	if (!rc && !e->narena && e->arena)
		rc = msg_send(d->sock, DP_ARENA, 0, cz_slab_region(e->arena)->fd, NULL);
	for (unsigned c = d->dev; !rc && c < e->ncons; c += e->ndev)
		if (e->cons[c].trace_fd >= 0)
			rc = msg_send(d->sock, DP_TRACE, c, e->cons[c].trace_fd, NULL);
	/* The keys: their fds dup'ed under the lock, sent after it (no socket
	 * I/O under the control plane's lock). */
	int kfd[CZ_PIPE_KEYS];
	unsigned kid[CZ_PIPE_KEYS], nk = 0;
	pthread_mutex_lock(&e->lock);
	for (struct cz_circuit *c = e->circuits; c && nk < CZ_PIPE_KEYS; c = c->next)
		if (c->kreg.base && c->kreg.fd >= 0 && (kfd[nk] = fcntl(c->kreg.fd, F_DUPFD_CLOEXEC, 0)) >= 0)
			kid[nk++] = c->key_id;
	pthread_mutex_unlock(&e->lock);
	for (unsigned i = 0; i < nk; i++) {
		if (!rc)
			rc = msg_send(d->sock, DP_KEY, kid[i], kfd[i], NULL);
		close(kfd[i]);
	}
	if (!rc)
		rc = msg_send(d->sock, DP_GO, 0, -1, NULL);
	return rc;
}

static int spawn(struct cz_engine *e, struct cz_devproc *d)
{
	int sv[2];
	char devs[16], ppid[16];
	snprintf(devs, sizeof(devs), "%u", d->dev);
	snprintf(ppid, sizeof(ppid), "%d", (int)getpid());
	char *argv[] = { e->dp_exe, "--device-child", devs, ppid, NULL };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int rc = -errno;
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		/* async-signal-safe only, until exec.  The death signal follows
		 * the forking THREAD: the first children come from the thread
		 * that starts the engine, restarts from cz-super, which lives
		 * until cz_devproc_stop (a restarted child still running then is
		 * killed when cz-super is joined, not let finish: the pipe has
		 * stopped by then and nothing it proves would be kept). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (dup2(sv[1], 3) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(sv[1]);
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	/* Its lock file (STALE CHILDREN, above), opened before the lock
	 * that status takes too; the child's copy holds the lock. */
	char lp[sizeof(e->state_dir) + 32];
	snprintf(lp, sizeof(lp), "%s/cz-dev%u.lock", e->state_dir, d->dev);
	int lfd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lfd < 0)
		fprintf(stderr, "cuzkd: device %u: cannot open %s: %s (no stale-process check for it)\n",
			d->dev, lp, strerror(errno));
	pthread_mutex_lock(&d->send_lock);
	d->sock = sv[0];
	d->pidfd = pfd;
	atomic_store(&d->pid, pid);
	atomic_store(&d->state, CZ_DEVP_STARTING);
	d->t_start = (uint64_t)cz_now_ns();
	int rc = greet(e, d, lfd);
	pthread_mutex_unlock(&d->send_lock);
	if (lfd >= 0)
		close(lfd);
	if (rc)
		fprintf(stderr, "cuzkd: device %u: cannot hand its process (pid %d) the regions: %s\n",
			d->dev, (int)pid, strerror(-rc));
	return 0;       /* a child that got nothing dies, and is seen dying */
}

static void exit_text(int st, char *buf, size_t cap)
{
	if (WIFSIGNALED(st))
		snprintf(buf, cap, "signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, cap, "exit %d", WEXITSTATUS(st));
}

/* Child d is gone (reaped): recover, and decide when it comes back. */
static void on_death(struct cz_engine *e, struct cz_devproc *d, int st)
{
	char why[64];
	exit_text(st, why, sizeof(why));
	pthread_mutex_lock(&d->send_lock);
	close(d->sock);
	d->sock = -1;
	if (d->pidfd >= 0)
		close(d->pidfd);
	d->pidfd = -1;
	int pid = atomic_exchange(&d->pid, 0);
	snprintf(d->last_exit, sizeof(d->last_exit), "%s", why);
	pthread_mutex_unlock(&d->send_lock);
	if (atomic_load(&e->dp_stop))
		return;
	cz_pipe_dev_down(&e->pipe, d->dev, true);
	unsigned n = cz_pipe_recover_dev(&e->pipe, d->dev, POISON, why);
	for (unsigned c = d->dev; c < e->ncons; c += e->ndev) {
		/* its stages ended with it (the watchdog times none of them) */
		atomic_store(&e->pipe.cons[c].proving, 0);
		atomic_store(&e->pipe.cons[c].stage_ns, 0);
		char role[32];
		snprintf(role, sizeof(role), "consumer %u.%u", d->dev, c / e->ndev);
		cz_trace_shared_orphan(role, c);
	}
	uint64_t t = (uint64_t)cz_now_ns();
	d->t_death = t;
	if (atomic_load(&d->restart_req)) {
		fprintf(stderr, "cuzkd: device %u: process %d ended (%s) for a restart, %u partition(s) handed "
			"out again\n", d->dev, pid, why, n);
		return;         /* super_main starts the new one: no death counted */
	}
	unsigned recent = 1;
	for (unsigned i = 0; i < DEATHS_MAX - 1; i++)
		recent += d->deaths[i] && t - d->deaths[i] < DEATHS_WINDOW_NS;
	memmove(d->deaths + 1, d->deaths, (DEATHS_MAX - 2) * sizeof(d->deaths[0]));
	d->deaths[0] = t;
	int state = atomic_load(&d->state);
	if (state == CZ_DEVP_DISABLED) {
		fprintf(stderr, "cuzkd: device %u: process %d ended (%s), device disabled\n", d->dev, pid, why);
	} else if (recent >= DEATHS_MAX) {
		atomic_store(&d->state, CZ_DEVP_FAILED);
		/* --device-retry-ms, doubling up to max(15 min, it) */
		uint64_t lo = e->cfg.device_retry_ms, hi = lo > FAILED_RETRY_MAX_MS ? lo : FAILED_RETRY_MAX_MS;
		if (!d->fail_backoff_ms)
			d->fail_backoff_ms = lo;
		d->restart_at = t + d->fail_backoff_ms * 1000000ull;
		fprintf(stderr, "cuzkd: device %u failed: its process died %u times within 60 s "
			"(last: pid %d, %s); its work goes to the other devices; tried again in %.1f s\n",
			d->dev, recent, pid, why, (double)d->fail_backoff_ms / 1e3);
		d->fail_backoff_ms = d->fail_backoff_ms * 2 > hi ? hi : d->fail_backoff_ms * 2;
	} else {
		atomic_store(&d->state, CZ_DEVP_STARTING);
		d->restart_at = t + d->backoff_ms * 1000000ull;
		fprintf(stderr, "cuzkd: device %u: process %d died (%s), %u partition(s) handed out "
			"again; restart in %llu ms\n", d->dev, pid, why, n, (unsigned long long)d->backoff_ms);
		d->backoff_ms = d->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : d->backoff_ms * 2;
	}
}

/* An operator's restart, one step a pass of the supervisor: drain (what
 * its consumers run ends, up to DRAIN_NS; a hung device is not waited
 * for), kill, then start again once the old process is reaped. */
static void restart_step(struct cz_engine *e, struct cz_devproc *d, uint64_t t, int *timeout)
{
	pid_t pid = atomic_load(&d->pid);
	if (pid) {
		bool busy = false;
		for (unsigned c = d->dev; c < e->ncons; c += e->ndev)
			busy |= atomic_load(&e->pipe.cons[c].holds[0]) != 0;
		if (!d->restart_killed && (!busy || atomic_load(&e->pipe.devs[d->dev].hung) ||
					   t >= d->restart_deadline)) {
			d->restart_killed = true;
			kill(pid, SIGKILL);     /* reaped through its pidfd */
		} else if (!d->restart_killed && *timeout > 10) {
			*timeout = 10;
		}
		return;
	}
	memset(d->deaths, 0, sizeof(d->deaths));
	d->backoff_ms = BACKOFF_MIN_MS;
	d->fail_backoff_ms = 0;
	d->restart_at = 0;
	d->restart_killed = false;
	atomic_store(&d->state, CZ_DEVP_STARTING);
	atomic_store(&d->restart_req, 0);
	*timeout = 0;
}

/* A failed device is tried again after its long backoff. */
static void failed_retry(struct cz_devproc *d, uint64_t t, int *timeout)
{
	if (!d->restart_at)
		return;
	if (t >= d->restart_at) {
		fprintf(stderr, "cuzkd: device %u: trying its failed process again\n", d->dev);
		memset(d->deaths, 0, sizeof(d->deaths));
		d->backoff_ms = BACKOFF_MIN_MS;
		d->restart_at = 0;
		atomic_store(&d->state, CZ_DEVP_STARTING);
		*timeout = 0;
	} else if ((d->restart_at - t) / 1000000 < (uint64_t)*timeout) {
		*timeout = (int)((d->restart_at - t) / 1000000) + 1;
	}
}

static void *super_main(void *v)
{
	struct cz_engine *e = v;
	struct pollfd pf[2 * CZ_ENGINE_MAX_DEVICES + 1];
	struct cz_devproc *who[2 * CZ_ENGINE_MAX_DEVICES + 1];

	cz_thread_name("cz-super");
	while (!atomic_load(&e->dp_stop)) {
		unsigned n = 0;
		int timeout = 100;
		uint64_t t = (uint64_t)cz_now_ns();
		pf[n++] = (struct pollfd){ .fd = e->dp_wake[0], .events = POLLIN };
		for (unsigned i = 0; i < e->ndev; i++) {
			struct cz_devproc *d = &e->dp[i];
			if (atomic_load(&d->restart_req))
				restart_step(e, d, t, &timeout);
			if (atomic_load(&d->state) == CZ_DEVP_FAILED && !atomic_load(&d->pid))
				failed_retry(d, t, &timeout);
			if (atomic_load(&d->pid)) {
				who[n] = d;
				pf[n++] = (struct pollfd){ .fd = d->pidfd, .events = POLLIN };
				who[n] = d;
				pf[n++] = (struct pollfd){ .fd = d->sock, .events = POLLIN };
			} else if (atomic_load(&d->state) == CZ_DEVP_STARTING) {
				if (t >= d->restart_at) {
					atomic_fetch_add(&d->restarts, 1);
					spawn(e, d);
					timeout = 0;
				} else if ((d->restart_at - t) / 1000000 < (uint64_t)timeout) {
					timeout = (int)((d->restart_at - t) / 1000000) + 1;
				}
			} else {
				/* down for good or for now: what the order thread gave
				 * it meanwhile goes back */
				cz_pipe_recover_dev(&e->pipe, d->dev, POISON, d->last_exit);
			}
		}
		if (poll(pf, n, timeout) <= 0)
			continue;
		if (pf[0].revents) {
			char b[8];
			if (read(e->dp_wake[0], b, sizeof(b)) < 0)
				continue;
		}
		for (unsigned k = 1; k < n; k++) {
			struct cz_devproc *d = who[k];
			if (!pf[k].revents || !atomic_load(&d->pid))
				continue;
			if (pf[k].fd == d->sock) {
				struct dp_msg m;
				int fd;
				if (cz_region_fd_recv(d->sock, &fd, &m, sizeof(m)) == (long)sizeof(m) &&
				    m.magic == DP_MAGIC && m.type == DP_READY) {
					m.text[sizeof(m.text) - 1] = 0;
					if (atomic_load(&d->state) == CZ_DEVP_STARTING) {
						atomic_store(&d->state, CZ_DEVP_READY);
						atomic_store(&e->pipe.devs[d->dev].hung, 0);
						cz_pipe_dev_down(&e->pipe, d->dev, false);
					}
					uint64_t t = (uint64_t)cz_now_ns();
					char since[64] = "";
					if (d->t_death) {
						atomic_store(&d->restart_ms, (int64_t)((t - d->t_death) / 1000000));
						snprintf(since, sizeof(since), ", %.1f ms after the death",
							 (double)(t - d->t_death) / 1e6);
						d->t_death = 0;
					}
					fprintf(stderr, "cuzkd: device %u: process %d (cz-dev%u) ready in %.1f ms%s: %s\n",
						d->dev, (int)atomic_load(&d->pid), d->dev,
						(double)(t - d->t_start) / 1e6, since, m.text);
				}
				if (fd >= 0)
					close(fd);
				continue;
			}
			int st;
			if (waitpid(atomic_load(&d->pid), &st, WNOHANG) > 0)
				on_death(e, d, st);
		}
		/* a child that stayed up a minute earns its backoff back */
		for (unsigned i = 0; i < e->ndev; i++) {
			struct cz_devproc *d = &e->dp[i];
			if (atomic_load(&d->state) == CZ_DEVP_READY && (uint64_t)cz_now_ns() - d->t_start > DEATHS_WINDOW_NS)
				d->backoff_ms = BACKOFF_MIN_MS;
		}
	}
	return NULL;
}

/* /proc/PID/comm (or "") and the parent's pid (or -1). */
static pid_t proc_of(pid_t pid, char *comm, size_t cap)
{
	char p[64], line[512];
	pid_t pp = -1;
	*comm = 0;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(p, "re");
	if (f) {
		if (fgets(comm, (int)cap, f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	if ((f = fopen(p, "re"))) {
		/* "pid (comm) S ppid ...": comm may hold spaces and ')' */
		if (fgets(line, sizeof(line), f)) {
			char *r = strrchr(line, ')');
			int v;
			if (r && sscanf(r + 1, " %*c %d", &v) == 1)
				pp = v;
		}
		fclose(f);
	}
	return pp;
}

/* Waits up to ms for the lock on fd: 0 once held (and let go again). */
static int lock_wait(int fd, int ms)
{
	for (int i = 0; i <= ms; i += 10) {
		if (!flock(fd, LOCK_EX | LOCK_NB)) {
			flock(fd, LOCK_UN);
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

int cz_devproc_check_stale(const char *state_dir, char *err, size_t cap)
{
	for (unsigned dev = 0; dev < CZ_ENGINE_MAX_DEVICES; dev++) {
		char lp[PATH_MAX], buf[32] = "", comm[64], pcomm[64];
		snprintf(lp, sizeof(lp), "%s/cz-dev%u.lock", state_dir, dev);
		int fd = open(lp, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!flock(fd, LOCK_EX | LOCK_NB)) {     /* free: nobody left */
			close(fd);
			continue;
		}
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = 0;
		pid_t pid = (pid_t)strtol(buf, NULL, 10);
		pid_t pp = pid > 0 ? proc_of(pid, comm, sizeof(comm)) : -1;
		if (pp <= 0 || proc_of(pp, pcomm, sizeof(pcomm)) < 0)
			*pcomm = 0;
		bool child = !strncmp(comm, "cz-dev", 6);
		bool orphan = child && pp >= 0 && (pp <= 1 || strcmp(pcomm, "cuzkd"));
		if (orphan) {
			fprintf(stderr, "cuzkd: %s is held by %s (pid %d), a device process of an earlier "
				"cuzkd (its parent is now %d, %s): killing it\n", lp, comm, (int)pid, (int)pp,
				*pcomm ? pcomm : "?");
			kill(pid, SIGKILL);
			if (!lock_wait(fd, 5000)) {
				close(fd);
				continue;
			}
			snprintf(err, cap, "%s: the stale device process %d (%s) still holds it 5 s after "
				 "SIGKILL (stuck in the kernel or a driver?); not starting", lp, (int)pid, comm);
		} else if (child) {
			snprintf(err, cap, "state directory %s is in use: %s is held by %s (pid %d) of %s "
				 "(pid %d); stop that cuzkd or use another --state-dir", state_dir, lp, comm,
				 (int)pid, *pcomm ? pcomm : "?", (int)pp);
		} else {
			snprintf(err, cap, "%s is held by pid %d (%s), not a device process of cuzkd; not "
				 "starting (remove the file once that process is gone)", lp, (int)pid,
				 *comm ? comm : "unknown");
		}
		close(fd);
		return -EBUSY;
	}
	return 0;
}

int cz_devproc_prepare(struct cz_engine *e, char *err, size_t cap)
{
	ssize_t k = readlink("/proc/self/exe", e->dp_exe, sizeof(e->dp_exe) - 1);
	if (k <= 0) {
		snprintf(err, cap, "--isolation process: cannot find this program (/proc/self/exe): %s",
			 strerror(errno));
		return -ENOENT;
	}
	e->dp_exe[k] = 0;
	e->dp = calloc(e->ndev, sizeof(*e->dp));
	if (!e->dp || pipe2(e->dp_wake, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, cap, "--isolation process: out of memory or descriptors");
		return -ENOMEM;
	}
	return 0;
}

int cz_devproc_start(struct cz_engine *e, char *err, size_t cap)
{
	int rc0 = e->dp ? 0 : cz_devproc_prepare(e, err, cap);
	if (rc0)
		return rc0;
	for (unsigned i = 0; i < e->ndev; i++) {
		struct cz_devproc *d = &e->dp[i];
		d->dev = i;
		d->sock = d->pidfd = -1;
		d->backoff_ms = BACKOFF_MIN_MS;
		atomic_store(&d->restart_ms, -1);
		pthread_mutex_init(&d->send_lock, NULL);
		cz_pipe_dev_down(&e->pipe, i, true);    /* until its process says ready */
		int rc = spawn(e, d);
		if (rc) {
			snprintf(err, cap, "device %u: cannot start its process: %s", i, strerror(-rc));
			return rc;
		}
	}
	if (pthread_create(&e->dp_super, NULL, super_main, e)) {
		snprintf(err, cap, "cannot start the device supervisor");
		return -EAGAIN;
	}
	e->dp_super_up = true;
	return 0;
}

/* After cz_pipe_stop: each child finishes its partition and exits once its
 * socket closes; one that does not within 5 s is killed. */
void cz_devproc_stop(struct cz_engine *e)
{
	if (!e->dp)
		return;
	atomic_store(&e->dp_stop, 1);
	if (e->dp_super_up) {
		if (write(e->dp_wake[1], "x", 1) < 0)
			(void)0;
		pthread_join(e->dp_super, NULL);
	}
	for (unsigned i = 0; i < e->ndev; i++) {
		struct cz_devproc *d = &e->dp[i];
		pid_t pid = atomic_load(&d->pid);
		if (d->sock >= 0)
			shutdown(d->sock, SHUT_WR);
		if (!pid)
			continue;
		struct pollfd pf = { .fd = d->pidfd, .events = POLLIN };
		if (d->pidfd < 0 || poll(&pf, 1, 5000) <= 0)
			kill(pid, SIGKILL);
		int st;
		waitpid(pid, &st, 0);
		on_death(e, d, st);
	}
	close(e->dp_wake[0]);
	close(e->dp_wake[1]);
	/* e->dp itself stays until cz_devproc_free: the accounting thread
	 * (engine/evidence/stat.c) reads the devices' states until it stops. */
}

void cz_devproc_free(struct cz_engine *e)
{
	for (unsigned i = 0; e->dp && i < e->ndev; i++)
		pthread_mutex_destroy(&e->dp[i].send_lock);
	free(e->dp);
	e->dp = NULL;
}

void cz_devproc_key(struct cz_engine *e, unsigned id, int fd)
{
	for (unsigned i = 0; e->dp && i < e->ndev; i++) {
		struct cz_devproc *d = &e->dp[i];
		pthread_mutex_lock(&d->send_lock);
		if (d->sock >= 0)
			msg_send(d->sock, fd >= 0 ? DP_KEY : DP_UNKEY, id, fd, NULL);
		pthread_mutex_unlock(&d->send_lock);
	}
}

/* Drain: the device takes nothing new, what waits in its out rings goes
 * back once its process is gone; its consumers finish what they run (up
 * to 60 s), then the process is killed with nothing held. */
static void drain_kill(struct cz_engine *e, struct cz_devproc *d)
{
	cz_pipe_dev_down(&e->pipe, d->dev, true);
	for (int i = 0; i < 60000; i++) {
		bool busy = false;
		for (unsigned c = d->dev; c < e->ncons; c += e->ndev)
			busy |= atomic_load(&e->pipe.cons[c].holds[0]) != 0;
		if (!busy || atomic_load(&e->pipe.devs[d->dev].hung))
			break;          /* a hung device finishes nothing */
		usleep(1000);
	}
	pid_t pid = atomic_load(&d->pid);
	if (pid)
		kill(pid, SIGKILL);
}

json_object *cz_devproc_request(struct cz_engine *e, unsigned dev, const char *action)
{
	if (!e->dp)
		return cz_ctl_err("device %u: %s needs --isolation process", dev, action);
	if (dev >= e->ndev)
		return cz_ctl_err("no device %u (there are %u)", dev, e->ndev);
	struct cz_devproc *d = &e->dp[dev];
	if (!strcmp(action, "disable")) {
		atomic_store(&d->state, CZ_DEVP_DISABLED);
		drain_kill(e, d);
	} else if (!strcmp(action, "enable") || !strcmp(action, "restart")) {
		int st = atomic_load(&d->state);
		if (!strcmp(action, "enable") && st != CZ_DEVP_DISABLED && st != CZ_DEVP_FAILED)
			return cz_ctl_err("device %u is %s, not disabled or failed", dev, cz_devproc_state_name(st));
		/* an operator's restart: no death counted, no backoff; carried
		 * out by the supervisor (restart_step), so this answers now */
		if (!atomic_load(&d->restart_req)) {
			cz_pipe_dev_down(&e->pipe, d->dev, true);
			d->restart_deadline = (uint64_t)cz_now_ns() + DRAIN_NS;
			d->restart_killed = false;
			atomic_store(&d->restart_req, 1);       /* after the fields it reads */
		}
		if (write(e->dp_wake[1], "x", 1) < 0)
			(void)0;
	} else {
		return cz_ctl_err("device action '%s': expected enable, disable or restart", action);
	}
	fprintf(stderr, "cuzkd: device %u: %s by request\n", dev, action);
	json_object *r = cz_ctl_ok();
	json_object_object_add(r, "device", json_object_new_int((int)dev));
	cz_devproc_json(e, dev, r);     /* pid, state ("restarting"), ... as status shows them */
	return r;
}

/* The watchdog's fields (engine/device/watchdog.c), either isolation. */
static void hang_json(struct cz_engine *e, unsigned dev, json_object *o)
{
	const struct cz_pipe_dev *pd = &e->pipe.devs[dev];
	bool hung = atomic_load(&pd->hung);
	json_object_object_add(o, "hung", json_object_new_boolean(hung));
	json_object_object_add(o, "hangs", json_object_new_int64((int64_t)atomic_load(&pd->hangs)));
	json_object_object_add(o, "hung_bound_ms", atomic_load(&pd->hangs) ?
			       json_object_new_int64((int64_t)atomic_load(&pd->hung_bound_ms)) : NULL);
	json_object_object_add(o, "hung_age_ms", atomic_load(&pd->hangs) ?
			       json_object_new_int64((int64_t)atomic_load(&pd->hung_age_ms)) : NULL);
}

void cz_devproc_json(struct cz_engine *e, unsigned dev, json_object *o)
{
	bool hung = atomic_load(&e->pipe.devs[dev].hung);
	if (!e->dp) {
		json_object_object_add(o, "pid", json_object_new_int((int)getpid()));
		json_object_object_add(o, "state", json_object_new_string(hung ? "hung" : "ready"));
		json_object_object_add(o, "restarts", json_object_new_int(0));
		json_object_object_add(o, "last_exit", NULL);
		json_object_object_add(o, "restart_ms", NULL);
		hang_json(e, dev, o);
		return;
	}
	struct cz_devproc *d = &e->dp[dev];
	const char *state = hung ? "hung" : atomic_load(&d->restart_req) ? "restarting"
					 : cz_devproc_state_name(atomic_load(&d->state));
	pthread_mutex_lock(&d->send_lock);
	json_object_object_add(o, "pid", json_object_new_int((int)atomic_load(&d->pid)));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "restarts", json_object_new_int((int)atomic_load(&d->restarts)));
	json_object_object_add(o, "last_exit", *d->last_exit ? json_object_new_string(d->last_exit) : NULL);
	int64_t rms = atomic_load(&d->restart_ms);
	json_object_object_add(o, "restart_ms", rms >= 0 ? json_object_new_int64(rms) : NULL);
	pthread_mutex_unlock(&d->send_lock);
	hang_json(e, dev, o);
}

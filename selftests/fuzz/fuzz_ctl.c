/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the control protocol as cuzkd's server reads it.  Each
 * input is a byte stream on a Unix socket (frames: u32 length + JSON),
 * with SCM_RIGHTS descriptors on its first byte; the frames are received by
 * cz_ctl_recv_ex (ctl/msg.c), parsed with json-c, and every JSON object
 * goes to cz_engine_request of a real engine (null backend, a small key
 * an input may load as it likes: the seeds load mulchain as "m"), as cuzkd's server does, and its answer is
 * serialized.  So frames, descriptor counts, field checks (engine/control/fields.c,
 * engine/control/access.c), admission and every request handler get the input.
 *
 * The first input byte is the envelope:
 *   bits 0-2  descriptors passed (0-7); 0xf8 and above: 195 + (b & 7),
 *             around the 200 limit
 *   bit  3-4  what they are: the key's witness file (a good submit), an
 *             empty regular file, /dev/null, a pipe
 *   bit  5    the caller is an admin (root), else uid 65534
 * The rest is the stream.  The engine lives across inputs, as cuzkd does.
 */
#define _GNU_SOURCE
#include "ctl/ctl.h"
#include "engine/engine.h"
#include "engine/evidence/trace.h"

#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cz_engine *eng;
static char zkey[PATH_MAX], wtns[PATH_MAX], tmpd[64];
static int wfd = -1, emptyfd = -1, nullfd = -1, stopp[2] = { -1, -1 }, hup[2] = { -1, -1 };
static int sv[2] = { -1, -1 };  /* the stream: one connection for every input, as a client's */
static char statedir[128];
static unsigned execs;
static struct cz_engine_config cfg;

/* A fresh engine every ENGINE_LIFE inputs: the jobs and keys an input
 * leaves make later ones slower (status lists them all) and their
 * outcome depend on long-gone inputs.  Each reset costs about what 40
 * inputs do (threads, journal, placement); it empties the state dir and
 * the trace (cz_trace_forget), so neither grows over a run: the next
 * engine's threads adopt the same trace buffers (engine/evidence/trace.c), and the
 * RSS is ASan's quarantine plus what one engine holds. */
#define ENGINE_LIFE 1024
static unsigned engine_life = ENGINE_LIFE;      /* CZ_FUZZ_ENGINE_LIFE overrides */

/* What the jobs left in the state dir: removed with each engine (a long
 * run makes hundreds of thousands of proofs and spool files). */
static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb, (void)flag;
	if (f->level > 0)
		remove(p);
	return 0;
}

static void cleanup(void)
{
	nftw(tmpd, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(tmpd);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *data = getenv("CZ_DATA_DIR") ? getenv("CZ_DATA_DIR") : "selftests/data";
	char err[512], state[128];

	signal(SIGPIPE, SIG_IGN);
	if (getenv("CZ_FUZZ_ENGINE_LIFE") && atoi(getenv("CZ_FUZZ_ENGINE_LIFE")) > 0)
		engine_life = (unsigned)atoi(getenv("CZ_FUZZ_ENGINE_LIFE"));
	if (!realpath(data, zkey))
		snprintf(zkey, sizeof(zkey), "%s", data);
	snprintf(wtns, sizeof(wtns), "%s/mulchain_1.wtns", zkey);
	strncat(zkey, "/mulchain.zkey", sizeof(zkey) - strlen(zkey) - 1);
	/* In memory where there is a tmpfs: the jobs' proofs are written. */
	snprintf(tmpd, sizeof(tmpd), "/dev/shm/cuzk-fuzz-ctl-XXXXXX");
	if (!mkdtemp(tmpd)) {
		snprintf(tmpd, sizeof(tmpd), "/tmp/cuzk-fuzz-ctl-XXXXXX");
		if (!mkdtemp(tmpd))
			abort();
	}
	atexit(cleanup);
	snprintf(state, sizeof(state), "%s/state", tmpd);
	/* Relative paths in the input name nothing. */
	if (chdir(tmpd))
		abort();
	cz_engine_config_defaults(&cfg);
	snprintf(statedir, sizeof(statedir), "%s", state);
	cfg.state_dir = statedir;
	cfg.backend = "null";
	cfg.null_delay_ms = 0;
	cfg.mem_budget = 64u << 20;
	cfg.consumers_per_device = 1;
	cfg.max_queued = 2000;
	eng = cz_engine_create(&cfg, err, sizeof(err));
	if (!eng) {
		fprintf(stderr, "fuzz_ctl: %s\n", err);
		abort();
	}
	/* Not loaded here: a proved job costs the pipeline's five threads a
	 * wake-up each, so an input that submits loads the key itself (the
	 * seeds do), and the others run at parser speed. */
	/* The witness a descriptor passes, copied beside the state dir: on
	 * one filesystem the spool's copy is copy_file_range, as on a real
	 * daemon's disk; from selftests/data (another filesystem) it was the
	 * read/write fallback, a 1 MiB buffer mapped and faulted per submit
	 * (15% of an execution's time, perf). */
	char wcopy[128];
	snprintf(wcopy, sizeof(wcopy), "%s/w.wtns", tmpd);
	int wsrc = open(wtns, O_RDONLY | O_CLOEXEC);
	wfd = open(wcopy, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	for (char buf[4096];;) {
		ssize_t n = wsrc >= 0 && wfd >= 0 ? read(wsrc, buf, sizeof(buf)) : -1;
		if (n < 0 || (n > 0 && write(wfd, buf, (size_t)n) != n))
			abort();
		if (n == 0)
			break;
	}
	close(wsrc);
	close(wfd);
	wfd = open(wcopy, O_RDONLY | O_CLOEXEC);        /* as a client passes it */
	char e[128];
	snprintf(e, sizeof(e), "%s/empty", tmpd);
	emptyfd = open(e, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	/* The peer's socket, which a trace writer polls for a hangup: one
	 * that never hangs up (the stream's own is shut at its end). */
	if (wfd < 0 || emptyfd < 0 || nullfd < 0 || pipe2(stopp, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hup) ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	int big = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	return 0;
}

static int fd_of(int kind, int pr[2])
{
	switch (kind) {
	case 0: return wfd;
	case 1: return emptyfd;
	case 2: return nullfd;
	default: return pr[0] >= 0 ? pr[1] : nullfd;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 60000)
		return 0;
	int b = data[0];
	int nfds = b >= 0xf8 ? 195 + (b & 7) : b & 7;
	int kind = (b >> 3) & 3;
	int pr[2] = { -1, -1 };

	if (kind == 3 && pipe2(pr, O_CLOEXEC | O_NONBLOCK))
		pr[0] = pr[1] = -1;
	/* Empty for every input: a trace dump writes into it. */
	if (kind == 1 && nfds && (ftruncate(emptyfd, 0) || lseek(emptyfd, 0, SEEK_SET)))
		abort();
	/* The stream, descriptors on its first byte, all of it queued before
	 * the server side reads (one thread: never block on the send). */
	union {
		char buf[CMSG_SPACE(sizeof(int) * 210)];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)(data + 1), size - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (nfds) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
		int *fp = (int *)CMSG_DATA(cm);
		for (int i = 0; i < nfds; i++)
			fp[i] = fd_of(kind, pr);
	}
	ssize_t k = sendmsg(sv[0], &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (pr[1] >= 0)
		close(pr[1]);
	struct cz_ctl_peer peer = { .sock = hup[1], .stop_fd = stopp[0], .idle_ms = 20,
				    .uid = b & 0x20 ? 0 : 65534, .gid = b & 0x20 ? 0 : 65534,
				    .pid = 1, .admin = b & 0x20 };
	for (int n = 0; k > 0 && n < 16; n++) {
		struct pollfd p = { .fd = sv[1], .events = POLLIN };
		if (poll(&p, 1, 0) != 1)
			break;          /* all of it read */
		char *msg, err[256];
		size_t len;
		int fds[CZ_CTL_MAX_FDS], got;
		/* A frame cut short is all there is: its deadline is now. */
		int rc = cz_ctl_recv_ex(sv[1], CZ_CTL_MAX_MSG, 0, &msg, &len, fds, &got, CZ_CTL_MAX_FDS,
					err, sizeof(err));
		if (rc)
			break;
		json_object *req = json_tokener_parse(msg);
		free(msg);
		if (!req || !json_object_is_type(req, json_type_object)) {
			for (int i = 0; i < got; i++)
				close(fds[i]);
			json_object_put(req);
			continue;
		}
		json_object *r = cz_engine_request(eng, req, fds, got, &peer);
		size_t rl;
		const char *t = json_object_to_json_string_length(r, JSON_C_TO_STRING_PLAIN, &rl);
		if (!t || rl == 0)
			abort();        /* every request gets an answer */
		if (getenv("CZ_FUZZ_DEBUG"))
			fprintf(stderr, "fuzz_ctl: %s\n", t);
		json_object_put(r);
		json_object_put(req);
	}
	/* What is left unread (after a bad frame), descriptors and all: the
	 * next input starts on an empty stream. */
	for (;;) {
		char junk[4096];
		union {
			char buf[CMSG_SPACE(sizeof(int) * 256)];
			struct cmsghdr align;
		} cu;
		struct iovec jv = { junk, sizeof(junk) };
		struct msghdr jm = { .msg_iov = &jv, .msg_iovlen = 1, .msg_control = cu.buf,
				     .msg_controllen = sizeof(cu.buf) };
		if (recvmsg(sv[1], &jm, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
			break;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&jm); c; c = CMSG_NXTHDR(&jm, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++)
					close(((int *)CMSG_DATA(c))[i]);
	}
	if (pr[0] >= 0)
		close(pr[0]);
	if (++execs % engine_life == 0) {
		char err[512];
		cz_engine_destroy(eng);
		/* The whole state dir, journal and spool too: the next engine
		 * would replay every job the last ones took (the journal grows
		 * by thousands of records an engine; its replay was 12% of the
		 * run's time), and its inputs' outcome should not depend on
		 * those. */
		nftw(statedir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		cz_trace_forget();      /* and its trace: dumps stay one engine's */
		if (!(eng = cz_engine_create(&cfg, err, sizeof(err)))) {
			fprintf(stderr, "fuzz_ctl: %s\n", err);
			abort();
		}
	}
	return 0;
}

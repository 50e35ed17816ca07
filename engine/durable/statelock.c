/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/statelock.c — one cuzkd a state directory.
 *
 * Two daemons on one --state-dir would append to one journal, hand out the
 * same sequence numbers and publish over each other's proofs.  In process
 * isolation the device processes' locks (engine/device/devproc.c) happened to
 * refuse the second one; in thread isolation nothing did.  So every mode
 * takes DIR/cuzkd.lock: flock(LOCK_EX | LOCK_NB) on a descriptor held for
 * the engine's life (O_CLOEXEC: the device children, which exec, do not
 * inherit it; the kernel drops it when the process dies, even by kill -9,
 * so a crash never leaves a stale lock).  The file holds the holder's pid,
 * for the refusal to name.  Taken before the journal is opened, so the
 * second daemon reads and writes nothing of the first one's.
 */
#include "engine/engine_pvt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

int cz_statelock_take(const char *state_dir, char *err, size_t cap)
{
	char p[PATH_MAX + 16], buf[32] = "";
	snprintf(p, sizeof(p), "%s/cuzkd.lock", state_dir);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (fd < 0) {
		snprintf(err, cap, "cannot open the state directory's lock %s: %s", p, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = 0;
		long pid = strtol(buf, NULL, 10);
		close(fd);
		if (e == EWOULDBLOCK && pid > 0)
			snprintf(err, cap, "state directory %s is in use by another cuzkd (pid %ld holds %s); "
				 "stop it or use another --state-dir", state_dir, pid, p);
		else if (e == EWOULDBLOCK)
			snprintf(err, cap, "state directory %s is in use by another cuzkd (it holds %s; its pid "
				 "is not written yet); stop it or use another --state-dir", state_dir, p);
		else
			snprintf(err, cap, "cannot lock %s: %s", p, strerror(e));
		return -1;
	}
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)n, 0) != n)
		fprintf(stderr, "cuzkd: %s: cannot write the pid into it: %s (the lock holds)\n", p, strerror(errno));
	return fd;
}

void cz_statelock_release(int fd)
{
	if (fd >= 0)
		close(fd);      /* the lock goes with the descriptor */
}

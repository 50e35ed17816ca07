/* SPDX-License-Identifier: MIT */
/*
 * selftests/shim/slowsync.c — an LD_PRELOAD shim that makes fsync(2) and
 * fdatasync(2) take CZ_SLOWSYNC_MS milliseconds longer (a sleep, then the
 * real call), so e2e_fleet can show that a fleet node's claim path waits
 * on no local fsync: with every sync slow, each claimed partition is still
 * queued well within one sync (its "fleet_fed" trace event says how long
 * it took).  A disk that is slow to sync, as the cpu backend's state
 * directory was under load.  Built by the Makefile as
 * $(B)/selftests/slowsync.so; without the variable it only passes the
 * calls through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void)
{
	const char *v = getenv("CZ_SLOWSYNC_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;
	if (ms > 0) {
		struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };
		while (nanosleep(&t, &t))
			;
	}
}

int fsync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	slow();
	return real ? real(fd) : -1;
}

int fdatasync(int fd)
{
	static int (*real)(int);
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	slow();
	return real ? real(fd) : -1;
}

/* SPDX-License-Identifier: MIT */
/* lib/thread.c — thread names (thread.h). */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "lib/thread.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int cz_thread_batch(int nice)
{
	struct sched_param sp = { .sched_priority = 0 };
	int rc = -pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
	if (nice <= 0)
		return rc;
	/* Niceness is per thread on Linux (setpriority on a tid); relative to
	 * what the operator gave the daemon (systemd's Nice=). */
	pid_t tid = (pid_t)syscall(SYS_gettid);
	errno = 0;
	int n = getpriority(PRIO_PROCESS, (id_t)tid);
	if (errno == 0 && n < 19 && setpriority(PRIO_PROCESS, (id_t)tid, n + nice > 19 ? 19 : n + nice) && !rc)
		rc = -errno;
	return rc;
}

void cz_thread_name(const char *fmt, ...)
{
	char name[16];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);   /* cuts at 15: the kernel's limit */
	va_end(ap);
	pthread_setname_np(pthread_self(), name);
}

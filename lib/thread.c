/* SPDX-License-Identifier: MIT */
/* lib/thread.c — thread names (thread.h). */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "lib/thread.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>

int cz_thread_batch(void)
{
	struct sched_param sp = { .sched_priority = 0 };
	return -pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
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

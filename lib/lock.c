/* SPDX-License-Identifier: MIT */
/*
 * lib/lock.c — the thread id cz_mutex_assert_held compares with (lib/lock.h),
 * cached per thread and forgotten in a fork's child: the child's thread
 * has a new id, and a cached parent's would make every assertion fail.
 */
#include "lib/lock.h"

#include <pthread.h>

_Thread_local int cz_lock_tid_cache;

static void forget(void)
{
	cz_lock_tid_cache = 0;
}

__attribute__((constructor)) static void lock_init(void)
{
	pthread_atfork(NULL, NULL, forget);
}

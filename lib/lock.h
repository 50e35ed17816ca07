/* SPDX-License-Identifier: MIT */
/*
 * lib/lock.h — a held-lock assertion for the functions named *_locked.
 *
 * cz_mutex_assert_held(m): the calling thread holds m.  A function whose
 * name ends in _locked says its caller holds a lock; this makes the word
 * checked.  The mechanism is the owner glibc records in every mutex it
 * locks (the locking thread's id, set under the lock, cleared at unlock),
 * compared with the caller's (cached per thread, and forgotten in the
 * child of a fork, whose one thread has an id of its own: lib/lock.c): no
 * wrapper around lock and unlock, one thread-local read and a compare.  It is an assert: gone
 * with -DNDEBUG (release builds), and a no-op on a C library that keeps no
 * owner.
 */
#ifndef CZ_LOCK_H
#define CZ_LOCK_H

#include <assert.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The calling thread's id, 0 until first asked (lib/lock.c). */
extern _Thread_local int cz_lock_tid_cache;

#if !defined(NDEBUG) && defined(__GLIBC__)
static inline int cz_lock_tid(void)
{
	if (!cz_lock_tid_cache)
		cz_lock_tid_cache = (int)syscall(SYS_gettid);
	return cz_lock_tid_cache;
}
#define cz_mutex_assert_held(m) assert((m)->__data.__owner == cz_lock_tid())
#else
#define cz_mutex_assert_held(m) ((void)(m))
#endif

#endif

/* SPDX-License-Identifier: MIT */
/* Description: the held-lock assertion (lib/lock.h): cz_mutex_assert_held passes for the thread holding the mutex and aborts, in a forked child, for one that does not (never locked, unlocked, held by another thread); a fork's child that locks passes (its own thread id); a real _locked function (cz_job_compact_locked) aborts when called without the engine lock. */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "lib/lock.h"
#include "selftests/cz_test.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Runs fn in a forked child, its stderr into a memfd; its wait status,
 * and what it wrote in err. */
static int in_child(void (*fn)(void), char *err, size_t cap)
{
	int fd = memfd_create("lib_lock", MFD_CLOEXEC), st = -1;
	if (fd < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (!pid) {
		dup2(fd, 2);
		fn();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	ssize_t n = pread(fd, err, cap - 1, 0);
	err[n > 0 ? n : 0] = 0;
	close(fd);
	return st;
}

static bool aborted(int st)
{
	return st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static bool exited0(int st)
{
	return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void held(void)
{
	pthread_mutex_lock(&mu);
	cz_mutex_assert_held(&mu);
	pthread_mutex_unlock(&mu);
}

static void never_locked(void)
{
	cz_mutex_assert_held(&mu);
}

static void unlocked(void)
{
	pthread_mutex_lock(&mu);
	pthread_mutex_unlock(&mu);
	cz_mutex_assert_held(&mu);
}

static pthread_mutex_t go = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cv = PTHREAD_COND_INITIALIZER;
static int locked_by_peer;

static void *peer(void *v)
{
	(void)v;
	pthread_mutex_lock(&mu);
	pthread_mutex_lock(&go);
	locked_by_peer = 1;
	pthread_cond_signal(&go_cv);
	pthread_mutex_unlock(&go);
	pause();        /* holds mu until the child ends */
	return NULL;
}

static void other_thread(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, peer, NULL))
		_exit(3);
	pthread_mutex_lock(&go);
	while (!locked_by_peer)
		pthread_cond_wait(&go_cv, &go);
	pthread_mutex_unlock(&go);
	cz_mutex_assert_held(&mu);
}

static struct cz_engine eng;
static struct cz_job job;       /* no partitions: compact returns at once */

static void compact_unlocked(void)
{
	cz_job_compact_locked(&eng, &job);
}

static void compact_locked(void)
{
	pthread_mutex_lock(&eng.lock);
	cz_job_compact_locked(&eng, &job);
	pthread_mutex_unlock(&eng.lock);
}

int main(void)
{
	char err[4096];
	ct_plan(6);
#if defined(NDEBUG) || !defined(__GLIBC__)
	for (int i = 0; i < 6; i++)
		ct_skip("built with NDEBUG or without glibc: the assertion is compiled out", "held-lock assertion");
	return ct_exit();
#else
	pthread_mutex_init(&eng.lock, NULL);
	/* This process's thread id cached before the forks: each child must
	 * use its own (lib/lock.c forgets the cache in a fork's child). */
	held();
	int st = in_child(held, err, sizeof(err));
	ct_ok(exited0(st), "held by the calling thread (in a fork's child, after the parent cached its id): passes (status %#x)",
	      st);
	st = in_child(never_locked, err, sizeof(err));
	ct_ok(aborted(st) && strstr(err, "__owner"),
	      "never locked: aborts with the assertion's message (status %#x)", st);
	st = in_child(unlocked, err, sizeof(err));
	ct_ok(aborted(st), "locked and unlocked again: aborts (status %#x)", st);
	st = in_child(other_thread, err, sizeof(err));
	ct_ok(aborted(st), "held by another thread: aborts (status %#x)", st);
	st = in_child(compact_unlocked, err, sizeof(err));
	ct_ok(aborted(st) && strstr(err, "cz_job_compact_locked"),
	      "cz_job_compact_locked without the engine lock: aborts, naming the function (status %#x)", st);
	st = in_child(compact_locked, err, sizeof(err));
	ct_ok(exited0(st), "cz_job_compact_locked with the engine lock: returns (status %#x)", st);
	return ct_exit();
#endif
}

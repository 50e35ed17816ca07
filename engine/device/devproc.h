/* SPDX-License-Identifier: MIT */
/*
 * engine/device/devproc.h — device children and their supervision (engine/device/devproc.c).
 */
#ifndef CZ_DEVPROC_H
#define CZ_DEVPROC_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

enum cz_devproc_state { CZ_DEVP_STARTING, CZ_DEVP_READY, CZ_DEVP_FAILED, CZ_DEVP_DISABLED };

/* A state's name (status, /metrics): with the states, so whoever shows one
 * needs nothing of the supervisor. */
static inline const char *cz_devproc_state_name(int s)
{
	static const char *const names[] = { "starting", "ready", "failed", "disabled" };
	return s >= 0 && s <= CZ_DEVP_DISABLED ? names[s] : "?";
}

struct cz_devproc {
	unsigned dev;
	_Atomic pid_t pid;              /* 0 while none runs */
	int pidfd, sock;                /* -1 while none runs */
	_Atomic int state;              /* enum cz_devproc_state */
	_Atomic unsigned restarts;
	char last_exit[64];             /* "signal 9 (Killed)", "exit 1", or "" */
	uint64_t deaths[2];             /* the last deaths (CLOCK_MONOTONIC ns) */
	uint64_t backoff_ms, restart_at, t_start;
	uint64_t t_death;               /* when the last death was seen (0: none since start) */
	_Atomic int64_t restart_ms;     /* that death to the next READY, or -1 */
	/* An operator's restart or enable (cz_devproc_request), carried out
	 * by the supervisor so the request answers at once: 1 from the
	 * request until the new process is started; the drain's deadline
	 * and whether the old process was killed are the supervisor's. */
	_Atomic int restart_req;
	uint64_t restart_deadline;
	bool restart_killed;
	uint64_t fail_backoff_ms;       /* a failed device's next retry (FAILED_RETRY_*) */
	pthread_mutex_t send_lock;      /* the socket, last_exit; never a consumer's */
};

struct cz_engine;

/* The child's side: cuzkd --device-child N PPID, the socket on fd 3. */
int cz_devproc_child_main(int argc, char **argv);
/* Placement hook for the NUMA work: runs first thing in each child. */
void cz_devproc_place(unsigned dev);
/* cuzkd, at start (either isolation): device processes of an earlier
 * cuzkd on state_dir (their cz-dev<N>.lock held) are killed if orphaned;
 * held by a live cuzkd's child or a stranger: -EBUSY, err says who. */
int cz_devproc_check_stale(const char *state_dir, char *err, size_t cap);
/* cuzkd: starts one child per device and the supervisor; 0 or -errno. */
/* Before the threads that read e->dp (engine/evidence/stat.c, the
 * watchdog) start: e->dp, allocated and zeroed, so they see it from their
 * first read (TSan found them racing with its allocation).  0, or -errno
 * with err. */
int cz_devproc_prepare(struct cz_engine *e, char *err, size_t cap);
int cz_devproc_start(struct cz_engine *e, char *err, size_t cap);
void cz_devproc_stop(struct cz_engine *e);      /* after cz_pipe_stop */
void cz_devproc_free(struct cz_engine *e);      /* after cz_stat_stop: e->dp */
/* A key was loaded (its region's fd) or unloaded (fd -1). */
void cz_devproc_key(struct cz_engine *e, unsigned id, int fd);
/* pid, state, restarts, last_exit into a status devices[] entry. */
void cz_devproc_json(struct cz_engine *e, unsigned dev, json_object *o);
/* The "device" request: enable, disable (drain, then stop its process),
 * restart (the same, then start again at once, no death counted). */
json_object *cz_devproc_request(struct cz_engine *e, unsigned dev, const char *action);

#endif

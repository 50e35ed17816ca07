/* SPDX-License-Identifier: MIT */
/*
 * tools/cuzkd/notify.c — systemd's service protocol (sd_notify(3)), when
 * cuzkd runs as a Type=notify unit: READY=1 once it serves (keys given at
 * start loaded, control socket listening, a warm-up proof verified on
 * every device: when /readyz says 200; until then STATUS= says what it
 * waits for, from a thread, cz-notify), STATUS= one line of what it is
 * doing, STOPPING=1 on a signal, and WATCHDOG=1 from a thread that first
 * checks the engine still answers (its control-plane lock taken within the
 * watchdog period's half), so a wedged daemon is restarted by systemd
 * instead of holding its devices.  Without libsystemd, or outside systemd
 * (no $NOTIFY_SOCKET), each call costs nothing.
 */
#include "tools/cuzkd/notify.h"
#include "lib/thread.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CZ_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#include <time.h>

static pthread_t wd_tid;
static bool wd_on, wd_stop;
static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cv;
static uint64_t wd_usec;

/* Until the engine is ready: STATUS= what it waits for, each time that
 * changes; then READY=1.  false if told to stop first. */
static bool wait_ready(struct cz_engine *e)
{
	char why[256], last[256] = "";
	pthread_mutex_lock(&wd_lock);
	while (!wd_stop) {
		pthread_mutex_unlock(&wd_lock);
		if (cz_engine_serving(e, why, sizeof(why))) {
			cz_engine_status_line(e, why, sizeof(why));
			sd_notifyf(0, "READY=1\nSTATUS=%s", why);
			return true;
		}
		if (strcmp(why, last)) {
			sd_notifyf(0, "STATUS=%s", why);
			snprintf(last, sizeof(last), "%s", why);
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 10 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&wd_lock);
		if (!wd_stop)
			pthread_cond_timedwait(&wd_cv, &wd_lock, &ts);
	}
	pthread_mutex_unlock(&wd_lock);
	return false;
}

static void *watchdog_main(void *v)
{
	struct cz_engine *e = v;
	char why[256], line[320];
	bool was_ok = true;

	cz_thread_name("cz-notify");
	if (!wait_ready(e) || !wd_usec)
		return NULL;
	pthread_mutex_lock(&wd_lock);
	while (!wd_stop) {
		pthread_mutex_unlock(&wd_lock);
		/* Half the period to answer: the other half is the ping's margin. */
		int ok = cz_engine_alive(e, wd_usec / 2, why, sizeof(why));
		if (ok) {
			cz_engine_status_line(e, line, sizeof(line));
			sd_notifyf(0, "WATCHDOG=1\nSTATUS=%s", line);
		} else if (was_ok) {
			fprintf(stderr, "cuzkd: watchdog: %s; not pinging systemd\n", why);
			sd_notifyf(0, "STATUS=stuck: %s", why);
		}
		was_ok = ok;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t ns = (uint64_t)ts.tv_nsec + wd_usec * 1000 / 2;
		ts.tv_sec += (time_t)(ns / 1000000000u);
		ts.tv_nsec = (long)(ns % 1000000000u);
		pthread_mutex_lock(&wd_lock);
		if (!wd_stop)
			pthread_cond_timedwait(&wd_cv, &wd_lock, &ts);
	}
	pthread_mutex_unlock(&wd_lock);
	return NULL;
}

/* Starts cz-notify: READY=1 once ready, then the watchdog pings if systemd
 * asks for them.  Outside systemd (no $NOTIFY_SOCKET): nothing. */
void cuzkd_notify_ready(struct cz_engine *e)
{
	if (!getenv("NOTIFY_SOCKET"))
		return;
	if (sd_watchdog_enabled(0, &wd_usec) <= 0 || wd_usec < 2000)
		wd_usec = 0;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd_cv, &ca);
	pthread_condattr_destroy(&ca);
	wd_on = !pthread_create(&wd_tid, NULL, watchdog_main, e);
	if (wd_on && wd_usec)
		fprintf(stderr, "cuzkd: systemd watchdog every %llu ms\n", (unsigned long long)wd_usec / 2000);
}

void cuzkd_notify_stopping(void)
{
	sd_notify(0, "STOPPING=1\nSTATUS=stopping");
	if (!wd_on)
		return;
	pthread_mutex_lock(&wd_lock);
	wd_stop = true;
	pthread_cond_signal(&wd_cv);
	pthread_mutex_unlock(&wd_lock);
	pthread_join(wd_tid, NULL);
	wd_on = false;
}

#else

void cuzkd_notify_ready(struct cz_engine *e)
{
	(void)e;
}

void cuzkd_notify_stopping(void)
{
}

#endif

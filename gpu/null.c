/* SPDX-License-Identifier: MIT */
/*
 * gpu/null.c — the null backend: each partition "completes" after delay_ms
 * without computing, synthesis is a synth_ms sleep in its place (the
 * witness is never read), and the "proof" is all zeros.  For testing the
 * scheduler at GPU speeds with as many fake devices as wanted.
 */
#include "gpu/backend.h"
#include "lib/clock.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

struct cz_device {
	unsigned delay_ms;
	unsigned index, calls, fault_dev, fault_nth, fault_part;
	char desc[48];
};

/* One by default; --devices asks for as many fake ones as wanted. */
static int null_count(void)
{
	return 1;
}

static struct cz_device *null_open(unsigned index, const struct cz_backend_opts *o, char *err,
				   size_t cap)
{
	struct cz_device *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, cap, "null device %u: out of memory", index);
		return NULL;
	}
	d->delay_ms = o->delay_ms;
	d->index = index;
	d->fault_dev = o->fault_dev;
	d->fault_nth = o->fault_nth;
	d->fault_part = o->fault_part;
	snprintf(d->desc, sizeof(d->desc), "null: %u ms per partition", o->delay_ms);
	return d;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
}

static void null_stand_in(const struct cz_backend_opts *o)
{
	sleep_ms(o->synth_ms);
}

static int null_prove(struct cz_device *d, struct cz_dev_work *w)
{
	/* The test faults (--null-fault, --null-fault-part): a real crash, so
	 * the device process dies as a faulting kernel or driver would make
	 * it (cuzkd refuses them without --isolation process). */
	d->calls++;
	if ((d->fault_nth && d->index == d->fault_dev && d->calls == d->fault_nth) ||
	    (d->fault_part && w->part + 1 == d->fault_part))
		raise(SIGSEGV);
	/* The fake device is busy from here until the deadline, like a GPU
	 * from its launch: what the engine does once it has started
	 * (cz_dev_work_started) overlaps the stage instead of lengthening it.
	 * And the stage is as long as asked: the kernel's default timer slack
	 * (50 us for a SCHED_OTHER thread) made a 2 ms stage 2.10 ms at the
	 * median.  Once per consumer thread. */
	static _Thread_local bool slack_set;
	if (!slack_set) {
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
		slack_set = true;
	}
	int64_t end = cz_now_ns() + (int64_t)d->delay_ms * 1000000;
	cz_dev_work_started(w);
	memset(&w->msms, 0, sizeof(w->msms));
	struct timespec t = cz_timespec_at(end);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
	return 0;
}

/* No witness was read: zero public inputs, a zero proof. */
static int null_finish(const struct cz_dev_work *w, void *pub, union cz_dev_proof *p,
		       char *err, size_t cap)
{
	(void)err, (void)cap;
	uint32_t npub = cz_dev_work_bn254(w) ? w->bn_key->npub : w->key->npub;
	memset(pub, 0, npub * sizeof(cz_fr));   /* both curves' Fr: 32 bytes */
	memset(p, 0, sizeof(*p));
	return 0;
}

static void null_close(struct cz_device *d)
{
	free(d);
}

static const char *null_describe(struct cz_device *d)
{
	return d->desc;
}

const struct cz_backend cz_backend_null = {
	.name = "null", .count = null_count, .simulated = true,
	.input = CZ_BACKEND_IN_NONE, .stand_in = null_stand_in, .bn254 = true,
	.open = null_open, .prove = null_prove, .finish = null_finish,
	.close = null_close, .describe = null_describe,
};

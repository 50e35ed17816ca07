/* SPDX-License-Identifier: MIT */
/*
 * lib/thread.h — thread names.  Every long-lived cuzk thread names itself
 * "cz-<role>" (at most 15 characters, the kernel's comm limit), so top -H,
 * perf, gdb and /proc/<pid>/task/<tid>/comm tell them apart; the selftests'
 * heap counter (selftests/shim/heapcount.c) reports by these names.
 */
#ifndef CZ_THREAD_H
#define CZ_THREAD_H

/* Names the calling thread; printf-style, cut at 15 characters. */
void cz_thread_name(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Marks the calling thread as throughput work (SCHED_BATCH and
 * CZ_THREAD_BATCH_NICE more niceness, no privilege needed): waking up it no
 * longer preempts the thread that is running, and when the CPUs are all
 * taken the latency threads (order, consumers) get theirs first.  For the
 * daemon's finalizer, synthesis workers and output writer, whose wake-ups
 * used to preempt a consumer in the middle of handing the device over
 * (2.3 ms of an idle device on the loaded 2-core machine while the
 * finalizer verified), and whose CPU time kept the order thread on a run
 * queue for up to 4 ms (the writer's ext4 file creation: 1.2 s of CPU in a
 * 2.3 s run of 4,000 partitions).  An idle CPU is still theirs: niceness
 * divides only contended time.  0 or -errno; what failed stays as it was.
 */
#define CZ_THREAD_BATCH_NICE 5
int cz_thread_batch(void);

#endif

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
 * Marks the calling thread as throughput work (SCHED_BATCH, no privilege
 * needed): waking up it no longer preempts the thread that is running.  For
 * the daemon's finalizer, synthesis workers, output writer and control
 * connections, whose wake-ups used to preempt a consumer in the middle of
 * handing the device over (2.3 ms of an idle device on the loaded 2-core
 * machine while the finalizer verified).  nice > 0 also lowers its share
 * of contended CPU by that much niceness (CZ_THREAD_BULK_NICE): for the
 * threads whose CPU bursts kept the order thread on a run queue for up to
 * 4.4 ms, the output writer (ext4's file creation: 1.2 s of CPU in a 2.3 s
 * run of 4,000 partitions) and the control connections (a 200-file
 * submit's spooling, 4-7 ms at a time).  Not for the finalizer: at +5 its
 * compute end -> finalize start p99 with 32 clients went from 4-5 to 10-11
 * ms (tools/bench-daemon.sh table).  An idle CPU is still anyone's.  0 or
 * -errno; what failed stays as it was.
 */
#define CZ_THREAD_BULK_NICE 5
int cz_thread_batch(int nice);

#endif

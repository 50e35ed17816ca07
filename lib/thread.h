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

#endif

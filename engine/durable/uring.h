/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/uring.h — making and tearing down the engine's io_uring rings
 * (engine/durable/spool.c: one per submit; engine/durable/output.c: the writer's), with
 * the one ordering ThreadSanitizer cannot see.  Otherwise exactly
 * io_uring_queue_init() and io_uring_queue_exit().
 */
#ifndef CZ_URING_H
#define CZ_URING_H

#include <liburing.h>

int cz_uring_init(unsigned entries, struct io_uring *ring, unsigned flags);
void cz_uring_exit(struct io_uring *ring);

#endif /* CZ_URING_H */

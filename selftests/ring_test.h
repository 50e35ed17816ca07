/* SPDX-License-Identifier: MIT */
/*
 * selftests/ring_test.h — helpers shared by the ring_* selftests: shared
 * memory from memfd_create (mapped again, at another address, by each
 * process that uses it), descriptors that carry their own check, and a
 * scale factor that shrinks the counts under sanitizers.
 */
#ifndef CZ_RING_TEST_H
#define CZ_RING_TEST_H

#include "ring/ring.h"
#include "lib/clock.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define RT_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define RT_SANITIZED 1
#endif
#endif
#ifndef RT_SANITIZED
#define RT_SANITIZED 0
#endif
/* Divide stress counts by this under sanitizers (they are 3-20x slower). */
#define RT_SCALE (RT_SANITIZED ? 4 : 1)

/* A fresh shared-memory file of bytes, mapped once; *fd keeps it for remaps. */
static inline void *rt_shm(size_t bytes, int *fd)
{
	*fd = memfd_create("cz-ring-test", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, (off_t)bytes)) {
		perror("memfd");
		exit(2);
	}
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* Another mapping of the same file: necessarily at a different address
 * while the first one is mapped. */
static inline void *rt_remap(int fd, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

/* Descriptor number seq of producer src, with every word derived from both. */
static inline void rt_desc(struct cz_ring_desc *d, uint32_t src, uint64_t seq)
{
	uint64_t x = (seq + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)src << 48);
	d->key = (struct cz_key){ .seq = seq, .part = src, .prio = (uint32_t)(seq % 7) };
	d->kind = src;
	d->flags = (uint32_t)(x >> 32);
	for (int i = 0; i < 4; i++) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		d->off[i] = x;
	}
	d->csum = cz_ring_desc_csum(d);
}

/* Is d exactly what rt_desc(src, seq) builds?  (An oracle independent of the
 * ring: rebuilds the descriptor and compares all 64 bytes.) */
static inline int rt_desc_is(const struct cz_ring_desc *d, uint32_t src, uint64_t seq)
{
	struct cz_ring_desc e;
	rt_desc(&e, src, seq);
	return !memcmp(d, &e, sizeof(e));
}

static inline uint64_t rt_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif

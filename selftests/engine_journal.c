/* SPDX-License-Identifier: MIT */
/* Description: the job journal (engine/journal.c) on its own: the documented record format checked by an independent CRC32C, replay and sequence numbers across opens, a corrupt record ends the journal there, --retain expiry and compaction, group commit (16 concurrent submits, fewer commits). */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "engine/journal.h"
#include "selftests/cz_test.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX];

/* The oracle: CRC32C bit by bit, from its definition (reflected 0x1EDC6F41). */
static uint32_t crc_ref(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
	}
	return ~c;
}

static struct cz_journal *jo(uint64_t retain)
{
	char err[512];
	struct cz_journal *j = cz_journal_open(dir, retain, NULL, NULL, err, sizeof(err));
	if (!j)
		ct_diag("open: %s", err);
	return j;
}

static uint64_t sub(struct cz_journal *j, uint64_t seq, const char *id)
{
	struct cz_jent e = { .seq = seq, .nparts = 2, .prio = CZ_PRIO_HIGH, .has_digest = true };
	snprintf(e.id, sizeof(e.id), "%s", id);
	snprintf(e.circuit, sizeof(e.circuit), "k");
	memset(e.digest, (int)seq, sizeof(e.digest));
	return cz_journal_submit(j, &e);
}

/* Reads DIR/journal by the documented format: records, each CRC checked
 * with crc_ref; counts of each kind; -1 on a bad record. */
static int read_file(int *hdr, int *subs, int *ends, long *last_off)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/journal", dir);
	FILE *f = fopen(p, "rb");
	static uint8_t b[1 << 20];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
	if (f)
		fclose(f);
	*hdr = *subs = *ends = 0;
	if (n < 8 || memcmp(b, "CZJRNL1\n", 8))
		return -1;
	size_t off = 8;
	while (off + 8 <= n) {
		uint32_t len = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
			       (uint32_t)b[off + 3] << 24;
		uint32_t crc = (uint32_t)b[off + 4] | (uint32_t)b[off + 5] << 8 | (uint32_t)b[off + 6] << 16 |
			       (uint32_t)b[off + 7] << 24;
		if (off + 8 + len > n || crc_ref(b + off + 8, len) != crc)
			return -1;
		char *txt = strndup((const char *)b + off + 8, len);
		json_object *o = txt ? json_tokener_parse(txt) : NULL;
		free(txt);
		const char *t = json_object_get_string(json_object_object_get(o, "t"));
		*hdr += t && !strcmp(t, "hdr");
		*subs += t && !strcmp(t, "sub");
		*ends += t && !strcmp(t, "end");
		json_object_put(o);
		*last_off = (long)off;
		off += 8 + len;
	}
	return off == n ? 0 : -1;
}

static struct cz_journal *gj;
static pthread_barrier_t bar;

static void *gmain(void *v)
{
	char err[256];
	pthread_barrier_wait(&bar);
	uint64_t t = sub(gj, 100 + (uint64_t)(intptr_t)v, "g");
	return (void *)(intptr_t)(t && !cz_journal_wait(gj, t, err, sizeof(err)));
}

int main(void)
{
	char err[256];
	ct_plan(8);
	snprintf(dir, sizeof(dir), "/tmp/cuzk-journal-XXXXXX");
	if (!ct_ok(mkdtemp(dir) != NULL, "a scratch state directory"))
		return ct_exit();

	struct cz_journal *j = jo(7 * 86400);
	int ok = j && cz_journal_next_seq(j) == 1;
	uint64_t t = 0;
	ok = ok && sub(j, 1, "a") && sub(j, 2, "@2") && (t = sub(j, 3, "c"));
	ok = ok && (t = cz_journal_end(j, 1, CZ_JOB_DONE, "", 5.0)) && !cz_journal_wait(j, t, err, sizeof(err));
	ok = ok && cz_journal_durable(j) >= t;
	cz_journal_close(j);
	int h, s, e;
	long last = 0;
	ct_ok(ok && read_file(&h, &s, &e, &last) == 0 && h == 1 && s == 3 && e == 1,
	      "the file is the magic, then CRC32C-framed JSON records: 1 hdr, 3 sub, 1 end (CRCs checked "
	      "bit by bit)");

	j = jo(7 * 86400);
	size_t nu = 0;
	struct cz_jent *u = j ? cz_journal_unfinished(j, &nu) : NULL;
	struct cz_jent f;
	char fe[CZ_JOURNAL_ERR];
	int found = j && cz_journal_find(j, "a", &f, fe) && f.end == CZ_JOB_DONE && f.seq == 1 && f.has_digest &&
		    f.digest[0] == 1;
	ct_ok(j && cz_journal_next_seq(j) == 4 && nu == 2 && u[0].seq == 2 && u[1].seq == 3 &&
	      !strcmp(u[0].id, "@2") && u[1].prio == CZ_PRIO_HIGH && u[1].nparts == 2 && found,
	      "reopened: next sequence number 4, unfinished jobs 2 and 3 in order with ids and priorities, "
	      "job a done with its digest");
	free(u);
	ok = j && (t = cz_journal_end(j, 3, CZ_JOB_FAILED, "partition 1: \"bad\"\n", 7.0)) &&
	     !cz_journal_wait(j, t, err, sizeof(err));
	cz_journal_close(j);

	/* One byte of the last record flipped: the journal ends before it. */
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/journal", dir);
	ok = ok && read_file(&h, &s, &e, &last) == 0;
	int fd = open(p, O_RDWR);
	uint8_t c;
	ok = ok && fd >= 0 && pread(fd, &c, 1, last + 10) == 1;
	c ^= 0x20;
	ok = ok && pwrite(fd, &c, 1, last + 10) == 1;
	close(fd);
	j = jo(7 * 86400);
	struct cz_journal_stat st;
	if (j)
		cz_journal_stat(j, &st);
	u = j ? cz_journal_unfinished(j, &nu) : NULL;
	ct_ok(ok && j && st.torn_bytes > 0 && nu == 2 && cz_journal_find(j, "a", &f, NULL) && f.end == CZ_JOB_DONE,
	      "a record whose CRC fails ends the journal there (%llu bytes dropped): job 3's end is gone, "
	      "it is unfinished again; the records before it stand", j ? (unsigned long long)st.torn_bytes : 0ull);
	free(u);
	ok = j && (t = cz_journal_end(j, 3, CZ_JOB_FAILED, "partition 1: \"bad\"\n", 7.0)) &&
	     !cz_journal_wait(j, t, err, sizeof(err));
	cz_journal_close(j);
	j = jo(7 * 86400);
	found = j && cz_journal_find(j, "c", &f, fe) && f.end == CZ_JOB_FAILED && !strcmp(fe, "partition 1: \"bad\"\n");
	ct_ok(ok && found && read_file(&h, &s, &e, &last) == 0,
	      "an error with quotes and a newline comes back as written, and the file still reads cleanly");
	cz_journal_close(j);

	/* --retain 1: a job that ended 2 s ago is forgotten, and compaction
	 * keeps the numbering. */
	j = jo(1);
	ok = j && (t = cz_journal_end(j, 2, CZ_JOB_CANCELLED, "", 1.0)) && !cz_journal_wait(j, t, err, sizeof(err));
	sleep(2);
	int gone = ok && !cz_journal_find(j, "a", &f, NULL) && !cz_journal_find(j, "@2", &f, NULL);
	cz_journal_close(j);
	j = jo(1);
	if (j)
		cz_journal_stat(j, &st);
	ct_ok(gone && j && st.live == 0 && st.compactions == 1 && cz_journal_next_seq(j) == 4,
	      "with --retain 1 ended jobs are forgotten after 2 s; the reopen compacts them away (%llu jobs "
	      "left) and the next sequence number is still 4", j ? (unsigned long long)st.live : 0ull);
	cz_journal_close(j);
	ct_ok(read_file(&h, &s, &e, &last) == 0 && h == 1 && s == 0 && e == 0,
	      "the compacted file holds the header only");

	/* Group commit: 16 submits at once share commits. */
	gj = jo(7 * 86400);
	struct cz_journal_stat a, b;
	if (gj)
		cz_journal_stat(gj, &a);
	pthread_barrier_init(&bar, NULL, 16);
	pthread_t th[16];
	int all = gj != NULL;
	for (intptr_t i = 0; gj && i < 16; i++)
		pthread_create(&th[i], NULL, gmain, (void *)i);
	for (int i = 0; gj && i < 16; i++) {
		void *rv;
		pthread_join(th[i], &rv);
		all &= rv != NULL;
	}
	if (gj)
		cz_journal_stat(gj, &b);
	ct_ok(all && b.records - a.records == 16 && b.commits - a.commits < 16,
	      "16 concurrent submits, all durable, in %llu commits (group commit)",
	      gj ? (unsigned long long)(b.commits - a.commits) : 0ull);
	cz_journal_close(gj);
	pthread_barrier_destroy(&bar);
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	if (!ct_fail && system(rm))
		ct_diag("could not remove %s", dir);
	return ct_exit();
}

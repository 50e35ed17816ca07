/* SPDX-License-Identifier: MIT */
/* Description: the job journal (engine/durable/journal.c) on its own: the documented record format checked by an independent CRC32C, replay and sequence numbers across opens, a corrupt record ends the journal there, --retain expiry and compaction, group commit (16 concurrent submits, fewer commits), owners and per-job accounting through append, replay and compaction (a 200-partition job at the extremes of every field), records of the older format (no uid, no accounting) read as documented. */
#define _GNU_SOURCE
#include "engine/engine_pvt.h"
#include "engine/durable/journal.h"
#include "selftests/cz_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

/* One framed record (the documented format, CRC by crc_ref) appended to f. */
static void put_rec(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_rec(FILE *f, const char *fmt, ...)
{
	char json[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(json, sizeof(json), fmt, ap);
	va_end(ap);
	uint32_t n = (uint32_t)strlen(json), c = crc_ref((const uint8_t *)json, n);
	uint8_t h[8] = { (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24),
			 (uint8_t)c, (uint8_t)(c >> 8), (uint8_t)(c >> 16), (uint8_t)(c >> 24) };
	fwrite(h, 1, 8, f);
	fwrite(json, 1, n, f);
}

/* The largest record of kind t in DIR/journal (bytes of JSON), -1 if none. */
static long largest(const char *t)
{
	char p[PATH_MAX + 16], want[32];
	snprintf(p, sizeof(p), "%s/journal", dir);
	snprintf(want, sizeof(want), "{\"t\":\"%s\"", t);
	FILE *f = fopen(p, "rb");
	static uint8_t b[1 << 20];
	size_t n = f ? fread(b, 1, sizeof(b), f) : 0, off = 8;
	long best = -1;
	if (f)
		fclose(f);
	while (off + 8 <= n) {
		uint32_t len = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
			       (uint32_t)b[off + 3] << 24;
		if (off + 8 + len > n)
			break;
		if (len > strlen(want) && !memcmp(b + off + 8, want, strlen(want)) && (long)len > best)
			best = (long)len;
		off += 8 + len;
	}
	return best;
}

/* Folders damaged-* under d holding a journal (copies of a damaged one). */
static int damaged_copies(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *de;
	int n = 0;
	char p[2 * PATH_MAX];
	while (dd && (de = readdir(dd))) {
		snprintf(p, sizeof(p), "%s/%s/journal", d, de->d_name);
		n += !strncmp(de->d_name, "damaged-", 8) && access(p, F_OK) == 0;
	}
	if (dd)
		closedir(dd);
	return n;
}

/* The whole of file p into b (cap bytes); its size, or 0. */
static size_t slurp(const char *p, uint8_t *b, size_t cap)
{
	FILE *f = fopen(p, "rb");
	size_t n = f ? fread(b, 1, cap, f) : 0;
	if (f)
		fclose(f);
	return n;
}

/* The record offsets of a journal's bytes (the documented framing). */
static int offsets(const uint8_t *b, size_t n, long *off, int max)
{
	int k = 0;
	for (size_t o = 8; o + 8 <= n && k < max;) {
		uint32_t len = (uint32_t)b[o] | (uint32_t)b[o + 1] << 8 | (uint32_t)b[o + 2] << 16 |
			       (uint32_t)b[o + 3] << 24;
		off[k++] = (long)o;
		o += 8 + len;
	}
	return k;
}

/* The documented DIR/seq.hwm, read independently: its number, or 0. */
static uint64_t hwm_of(const char *d)
{
	char p[PATH_MAX + 16], num[32];
	unsigned crc;
	snprintf(p, sizeof(p), "%s/seq.hwm", d);
	FILE *f = fopen(p, "r");
	int ok = f && fscanf(f, "CZSEQ1 %31[0-9] %x", num, &crc) == 2 &&
		 crc_ref((const uint8_t *)num, strlen(num)) == crc;
	if (f)
		fclose(f);
	return ok ? strtoull(num, NULL, 10) : 0;
}

/* Issue 24, item 1: one damaged record (at the start, in the middle, at
 * the end of 16) loses only that record.  Jobs 1..10 submitted, 1..5
 * ended done; the records: hdr, sub 1..10, end 1..5. */
static void test_damage(void)
{
	static const struct {
		const char *where;
		int rec;                /* the record damaged (0: the hdr) */
		int lost_job;           /* a job gone (its submit lost), or 0 */
		int reopened;           /* a done job unfinished again (its end lost), or 0 */
	} cases[] = {
		{ "start", 1, 1, 0 },           /* job 1's submit */
		{ "middle", 7, 7, 0 },          /* job 7's submit (unfinished) */
		{ "middle, an end", 13, 0, 3 }, /* job 3's end */
		{ "end", 15, 0, 5 },            /* the last record: job 5's end */
	};
	char err[256], old[PATH_MAX];
	snprintf(old, sizeof(old), "%s", dir);
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		if (snprintf(dir, sizeof(dir), "%.*s/damage%zu", PATH_MAX - 32, old, c) >= (int)sizeof(dir))
			continue;
		mkdir(dir, 0750);
		struct cz_journal *j = jo(7 * 86400);
		int ok = j != NULL;
		uint64_t t = 0;
		for (int i = 1; ok && i <= 10; i++)
			ok = (t = sub(j, (uint64_t)i, i == 4 ? "@4" : (char[]){ (char)('a' + i - 1), 0 })) != 0;
		for (int i = 1; ok && i <= 5; i++)
			ok = (t = cz_journal_end(j, (uint64_t)i, CZ_JOB_DONE, "", 1.0)) != 0;
		ok = ok && !cz_journal_wait(j, t, err, sizeof(err));
		cz_journal_close(j);

		char p[PATH_MAX + 16];
		snprintf(p, sizeof(p), "%s/journal", dir);
		static uint8_t b[1 << 16], kept[1 << 16];
		long off[32];
		size_t n = slurp(p, b, sizeof(b));
		int nrec = offsets(b, n, off, 32);
		ok = ok && nrec == 16;
		/* a byte inside the record's JSON flipped */
		long at = ok ? off[cases[c].rec] + 8 + 12 : 0;
		b[at] ^= 0x04;
		FILE *f = ok ? fopen(p, "wb") : NULL;
		ok = ok && f && fwrite(b, 1, n, f) == n;
		if (f)
			fclose(f);

		j = ok ? jo(7 * 86400) : NULL;
		struct cz_journal_stat st = { 0 };
		if (j)
			cz_journal_stat(j, &st);
		int exact = j != NULL;
		for (int i = 1; j && i <= 10; i++) {
			struct cz_jent fe;
			char id[8];
			snprintf(id, sizeof(id), i == 4 ? "@4" : "%c", 'a' + i - 1);
			int found = cz_journal_find(j, id, &fe, NULL);
			int want_end = i <= 5 && i != cases[c].reopened ? CZ_JOB_DONE : -1;
			if (i == cases[c].lost_job)
				exact &= !found;
			else
				exact &= found && fe.seq == (uint64_t)i && fe.end == want_end && fe.nparts == 2 &&
					 fe.digest[0] == (uint8_t)i;
		}
		size_t nu = 0;
		struct cz_jent *u = j ? cz_journal_unfinished(j, &nu) : NULL;
		size_t want_nu = 5 - (cases[c].lost_job > 5) + (cases[c].reopened != 0);
		free(u);
		uint64_t next = j ? cz_journal_next_seq(j) : 0, hwm = hwm_of(dir);
		/* the kept copy is the damaged file, byte for byte */
		DIR *dd = opendir(dir);
		struct dirent *de;
		int same = 0;
		while (dd && (de = readdir(dd)))
			if (!strncmp(de->d_name, "damaged-", 8)) {
				char kp[2 * PATH_MAX];
				snprintf(kp, sizeof(kp), "%s/%s/journal", dir, de->d_name);
				same = slurp(kp, kept, sizeof(kept)) == n && !memcmp(kept, b, n);
			}
		if (dd)
			closedir(dd);
		int tail = cases[c].rec == nrec - 1;
		ct_ok(ok && exact && nu == want_nu && next > 10 && hwm > 10 && next >= hwm && same &&
		      damaged_copies(dir) == 1 && (tail ? st.torn_bytes > 0 : st.damaged_ranges == 1 && st.corrupt_bytes > 0),
		      "damage at the %s (record %d of %d): every other job survives exactly (%s), %zu unfinished "
		      "(want %zu), the next sequence number %llu is at the high-water mark %llu (above all 10 "
		      "used), the damaged journal kept byte for byte (%d)",
		      cases[c].where, cases[c].rec, nrec, exact ? "yes" : "no", nu, want_nu,
		      (unsigned long long)next, (unsigned long long)hwm, same);
		/* The rewritten journal is clean and a new job takes a fresh number. */
		ok = j && (t = sub(j, next, "new")) && !cz_journal_wait(j, t, err, sizeof(err));
		cz_journal_close(j);
		int h, s, e;
		long last;
		j = jo(7 * 86400);
		struct cz_jent fe;
		ct_ok(ok && j && cz_journal_find(j, "new", &fe, NULL) && fe.seq == next && cz_journal_next_seq(j) == next + 1 &&
		      read_file(&h, &s, &e, &last) == 0 && damaged_copies(dir) == 1,
		      "damage at the %s: the journal written in its place reads cleanly, a new job took %llu, "
		      "and the next open finds no damage", cases[c].where, (unsigned long long)next);
		cz_journal_close(j);
	}
	snprintf(dir, sizeof(dir), "%s", old);
}

/* A job's accounting at the extremes of every field the journal keeps. */
static void acct_fill(struct cz_job_acct *a, uint32_t n, uint64_t t_submit)
{
	memset(a, 0, sizeof(*a));
	a->t_first_dispatch = t_submit + 123456789;
	a->synth_ns = 1ull << 62;
	a->device_ns = 987654321012345ull;
	a->final_ns = 1;
	a->synth_cpu_ns = 4611686018427387903ull;
	a->device_cpu_ns = 0;
	a->final_cpu_ns = 77;
	a->buf_peak = 200ull << 30;
	a->buf_bytes = 5;       /* held now: not the journal's */
	a->attempts = 4000000000u;
	for (uint32_t i = 0; i < n; i++) {
		a->dev[i] = (int8_t)(i % (CZ_ENGINE_MAX_DEVICES + 1));        /* device -1 (none) .. 31 */
		a->tries[i] = (uint8_t)(255 - i);
	}
}

/* What the journal gave back is what went in (the wait relative to submit). */
static int acct_same(const struct cz_job_acct *got, const struct cz_job_acct *want, uint32_t n, uint64_t t_submit)
{
	int ok = got->t_first_dispatch == want->t_first_dispatch - t_submit && got->synth_ns == want->synth_ns &&
		 got->device_ns == want->device_ns && got->final_ns == want->final_ns &&
		 got->synth_cpu_ns == want->synth_cpu_ns && got->device_cpu_ns == want->device_cpu_ns &&
		 got->final_cpu_ns == want->final_cpu_ns && got->buf_peak == want->buf_peak &&
		 got->attempts == want->attempts;
	for (uint32_t i = 0; i < n; i++)
		ok &= got->dev[i] == want->dev[i] && got->tries[i] == want->tries[i];
	return ok;
}

/* Owners and accounting: append, replay, the "acct" record of a job that
 * ended first, compaction; then the older format. */
static void test_owner_acct(void)
{
	char err[256], old[PATH_MAX];
	snprintf(old, sizeof(old), "%s", dir);
	snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/acct");
	mkdir(dir, 0750);

	struct cz_journal *j = jo(2);
	struct cz_jent e = { .seq = 1, .nparts = CZ_ENGINE_MAX_PARTS, .prio = CZ_PRIO_NORMAL, .owner = 65534 };
	snprintf(e.id, sizeof(e.id), "big");
	snprintf(e.circuit, sizeof(e.circuit), "k");
	struct cz_jent x = e;
	x.seq = 2, x.nparts = 1, x.owner = 0;
	snprintf(x.id, sizeof(x.id), "expires");
	struct cz_jent c = e;
	c.seq = 3, c.nparts = 3, c.owner = 1000;
	snprintf(c.id, sizeof(c.id), "cancelled");
	struct cz_job_acct a, a2;
	acct_fill(&a, e.nparts, 1000);
	acct_fill(&a2, c.nparts, 50);
	a2.attempts = 3;
	uint64_t t = 0;
	/* x ends first and expires; big and cancelled end 3 s later. */
	int ok = j && cz_journal_submit(j, &e) && cz_journal_submit(j, &x) && cz_journal_submit(j, &c) &&
		 (t = cz_journal_end(j, 2, CZ_JOB_DONE, "", 1.0)) && !cz_journal_wait(j, t, err, sizeof(err));
	sleep(3);
	struct cz_job_acct part = a2;
	part.synth_ns = 1;      /* what the cancel saw; the "acct" record replaces it */
	ok = ok && (t = cz_journal_end_acct(j, 1, CZ_JOB_DONE, "", 9.0, &a, 1000)) &&
	     cz_journal_end_acct(j, 3, CZ_JOB_CANCELLED, "", 2.0, &part, 50) &&
	     (t = cz_journal_end_acct(j, 3, CZ_JOB_CANCELLED, "", 0, &a2, 50)) && !cz_journal_wait(j, t, err, sizeof(err));
	cz_journal_close(j);
	long end_max = largest("end"), acct_recs = largest("acct");
	j = jo(2);
	struct cz_jent f, g;
	int f1 = j && cz_journal_find(j, "big", &f, NULL) && cz_journal_find(j, "cancelled", &g, NULL);
	ct_ok(ok && f1 && f.owner == 65534 && f.has_acct && acct_same(&f.acct, &a, e.nparts, 1000) &&
	      g.owner == 1000 && g.end == CZ_JOB_CANCELLED && g.has_acct && acct_same(&g.acct, &a2, c.nparts, 50) &&
	      acct_recs > 0 && end_max > 0 && end_max < 8192,
	      "replayed: a 200-partition job's owner and accounting (every field at its extreme: 2^62 ns, "
	      "devices -1..31, 255 attempts a partition) come back as appended; its end record is %ld bytes "
	      "(< 8 KB); a cancelled job's later \"acct\" record replaces the accounting its end had", end_max);
	struct cz_journal_stat st;
	if (j)
		cz_journal_stat(j, &st);
	cz_journal_close(j);
	j = jo(2);
	int f2 = j && cz_journal_find(j, "big", &f, NULL) && cz_journal_find(j, "cancelled", &g, NULL) &&
		 !cz_journal_find(j, "expires", &x, NULL);
	ct_ok(f1 && st.compactions == 1 && f2 && f.owner == 65534 && acct_same(&f.acct, &a, e.nparts, 1000) &&
	      acct_same(&g.acct, &a2, c.nparts, 50) && largest("acct") < 0,
	      "compacted (the expired job dropped): owners and accounting survive the rewrite, the \"acct\" "
	      "record folded into its end record");
	cz_journal_close(j);

	/* The older format: no "uid", no "acct"; and an "acct" whose arrays
	 * do not match the job, and one for a job that never ended. */
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/journal", dir);
	FILE *fo = fopen(p, "wb");
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	long long now = (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;      /* not expired */
	if (fo) {
		fwrite("CZJRNL1\n", 1, 8, fo);
		put_rec(fo, "{\"t\":\"sub\",\"seq\":7,\"id\":\"old\",\"circuit\":\"k\",\"prio\":2,\"parts\":2,\"ts\":%lld}", now);
		put_rec(fo, "{\"t\":\"end\",\"seq\":7,\"state\":1,\"ms\":4.5,\"ts\":%lld}", now);
		put_rec(fo, "{\"t\":\"sub\",\"seq\":8,\"id\":\"open\",\"circuit\":\"k\",\"prio\":2,\"parts\":2,\"ts\":%lld}", now);
		put_rec(fo, "{\"t\":\"acct\",\"seq\":8,\"acct\":{\"synth_ns\":1,\"device_ns\":1,\"final_ns\":1,"
			"\"synth_cpu_ns\":1,\"device_cpu_ns\":1,\"final_cpu_ns\":1,\"peak_bytes\":1,\"attempts\":2,"
			"\"devices\":[0,0],\"tries\":[1,1]}}");
		put_rec(fo, "{\"t\":\"sub\",\"seq\":9,\"id\":\"short\",\"circuit\":\"k\",\"prio\":2,\"parts\":2,\"ts\":%lld,\"uid\":5}", now);
		put_rec(fo, "{\"t\":\"end\",\"seq\":9,\"state\":1,\"ms\":4.5,\"ts\":%lld,\"acct\":{\"synth_ns\":1,"
			"\"device_ns\":1,\"final_ns\":1,\"synth_cpu_ns\":1,\"device_cpu_ns\":1,\"final_cpu_ns\":1,"
			"\"peak_bytes\":1,\"attempts\":1,\"devices\":[0],\"tries\":[1]}}", now);
		fclose(fo);
	}
	j = jo(7 * 86400);
	size_t nu = 0;
	struct cz_jent *u = j ? cz_journal_unfinished(j, &nu) : NULL, h;
	ok = j && cz_journal_find(j, "old", &f, NULL) && cz_journal_find(j, "short", &h, NULL);
	ct_ok(fo && ok && f.owner == -1 && f.end == CZ_JOB_DONE && !f.has_acct && nu == 1 && u[0].owner == -1 &&
	      !u[0].has_acct && h.owner == 5 && h.end == CZ_JOB_DONE && !h.has_acct && cz_journal_next_seq(j) == 10,
	      "older records: a submit without \"uid\" reads as owner -1 (the daemon's own), an end without "
	      "\"acct\" as no accounting; an \"acct\" for a job that has not ended, and one whose arrays do not "
	      "have one entry per partition, are not taken (the end stands)");
	free(u);
	cz_journal_close(j);
	snprintf(dir, sizeof(dir), "%s", old);
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
	ct_plan(8 + 3 + 8);
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

	/* One byte of the last record flipped: the journal ends before it,
	 * but a whole record that fails may have been acknowledged: the file
	 * is kept and numbering resumes at the high-water mark (above 3). */
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
	uint64_t resumed = j ? cz_journal_next_seq(j) : 0;
	ct_ok(ok && j && st.torn_bytes > 0 && nu == 2 && cz_journal_find(j, "a", &f, NULL) && f.end == CZ_JOB_DONE &&
	      resumed > 4 && damaged_copies(dir) == 1,
	      "a last record whose CRC fails ends the journal there (%llu bytes dropped): job 3's end is gone, "
	      "it is unfinished again; the records before it stand; the damaged file is kept and numbering "
	      "resumes at %llu (> 4)", j ? (unsigned long long)st.torn_bytes : 0ull, (unsigned long long)resumed);
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
	ct_ok(gone && j && st.live == 0 && st.compactions == 1 && cz_journal_next_seq(j) == resumed,
	      "with --retain 1 ended jobs are forgotten after 2 s; the reopen compacts them away (%llu jobs "
	      "left) and the next sequence number is still %llu", j ? (unsigned long long)st.live : 0ull,
	      (unsigned long long)resumed);
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
	test_owner_acct();
	test_damage();
	char rm[PATH_MAX + 16];
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	if (!ct_fail && system(rm))
		ct_diag("could not remove %s", dir);
	return ct_exit();
}

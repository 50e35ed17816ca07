/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/journal.c — the job journal: an accepted job is one that is in it.
 *
 * Why.  An accepted proof job is money; a crash must not lose it, repeat
 * it, or leave its id free for someone else.  So acceptance is defined as
 * "its witnesses are in the spool and its submit record is durable here",
 * and everything the daemon promises after a restart (resume unfinished
 * jobs in their order with their ids and priorities, answer `await` for
 * finished ones, never reuse a sequence number or an id within --retain)
 * is read back from this one file.
 *
 * Format (DIR/journal).  An 8-byte magic, then records, each
 *     u32 len (LE) | u32 CRC32C(payload) (LE) | payload: len bytes of JSON
 * of four kinds: {"t":"hdr","next_seq":N} (compaction writes it first, so
 * numbers never repeat once old records are dropped), {"t":"sub",...} (a job
 * accepted, with its owner's uid), {"t":"end",...} (it ended: done, failed,
 * cancelled; with the job's accounting) and {"t":"acct",...} (the
 * accounting of a job whose end was recorded before its last partition
 * ended: a cancel).  docs/formats.md has every field.  JSON
 * because it is small next to a witness and can grow fields without a new
 * version; the CRC because a crash mid-append leaves a torn tail, and a
 * record that does not check at the end is that tail (dropped, logged).
 * One with records that check after it is corruption: skipped, every later
 * record kept, the damaged file kept, numbering resumed at DIR/seq.hwm
 * (engine/durable/jrecover.c has the rules).
 * Replay is idempotent (a repeated submit is ignored, the first end wins),
 * which is what lets compaction run while records keep being appended.
 * Fields a version added are optional to the next: a submit without "uid"
 * (older than owners) is the daemon's own job (admins only), one without
 * "inputs" (older than inputs, or a witness-only job) has witnesses in every
 * partition, an end without "acct" answers await without accounting.
 *
 * Size.  A record is bounded by what a job can hold: an end record is at
 * most END_TEXT_MAX bytes (the error, escaped, and the accounting, whose
 * two per-partition arrays take at most 4 bytes an entry for a job's at
 * most CZ_ENGINE_MAX_PARTS partitions: 5.4 KB at 200); REC_MAX (1 MiB) is
 * far above it and marks what replay takes for corruption.
 *
 * Group commit.  Appending (cz_journal_submit/end) copies the record into a
 * pending buffer under the journal's own lock: no I/O, so callers may hold
 * the engine lock.  One writer thread takes everything pending as one batch:
 * fsync of the spool directory (when the batch has a submit: its witness
 * files' names must be durable before the record naming them), one write,
 * one fdatasync; then every ticket in the batch is durable at once.  While
 * it waits on the disk the next batch gathers, so N concurrent submits
 * cost about one fsync between them, not N (docs/BENCHMARKS.md measures it).
 *
 * Compaction.  The journal holds every unfinished job and every finished one
 * until --retain after its end; the writer rewrites it from that live set
 * (DIR/journal.tmp, fsync, rename, fsync DIR) at open, when it grew past
 * four times its compacted size (at least 1 MiB), and hourly when something
 * expired.  So its size follows the retained jobs, not the daemon's age.
 *
 * A failed write.  A full disk (ENOSPC, EDQUOT) or an I/O error while a
 * batch is written or fsynced does not stop the journal.  The file is cut
 * back to the end of the last good record (a short write leaves no partial
 * record for replay to take for damage; the cut is fsynced, and retried
 * before anything else is written if it fails), the batch's submits are
 * refused (their waiters get the errno and the journal's path, their jobs
 * are forgotten, their spool files removed: never durable, never
 * acknowledged; their sequence numbers are not handed out again, the
 * high-water mark covers them), and everything else in it (end and acct
 * records of accepted jobs, the submit of a job queued without waiting,
 * cz_req_submit_cached) is kept in the writer's carry and written before
 * the next batch.  The writer tries again on its own (RETRY_MIN_MS,
 * doubling to RETRY_MAX_MS) and at once when anything new is appended, so
 * the first submit after space returns is accepted.  While it is failing,
 * status says so (journal.refusing, .error, .last_error, .refused_submits;
 * cuzkd(8), Full disk).  Compaction waits until the carry is written, and
 * never copies a submit whose record is still pending (it could be refused).
 *
 * Locks: j->lock guards the live set and the pending buffer, never held over
 * I/O.  on_commit is called with no journal lock (it takes the engine's).
 */
#include "engine/durable/journal.h"
#include "engine/engine_pvt.h"
#include "engine/durable/jrecover.h"
#include "lib/clock.h"
#include "lib/lock.h"
#include "lib/thread.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "CZJRNL1\n"
#define MAGIC_LEN 8
#define REC_MAX (1u << 20)              /* a record is at most a few KB; bigger is corruption */
/* The accounting's text: 9 numbers (key and up to 20 digits each) and two
 * arrays of an entry per partition ("-1," to "126,"; "0," to "255,"). */
#define ACCT_TEXT_MAX (400 + 8 * CZ_ENGINE_MAX_PARTS)
#define END_TEXT_MAX (8 * CZ_JOURNAL_ERR + 256 + ACCT_TEXT_MAX)
_Static_assert(END_TEXT_MAX < REC_MAX, "an end record fits a record");
#define COMPACT_MIN (1ull << 20)
#define COMPACT_EVERY_S 3600
#define RETRY_MIN_MS 250                /* a failed commit's records are tried again after it, */
#define RETRY_MAX_MS 4000               /* doubling up to this (and at once on a new record) */

struct unl {
	uint64_t seq;
	uint32_t n;
};

struct cz_journal {
	pthread_mutex_t lock;
	pthread_cond_t cv;              /* writer: something pending, or stop */
	pthread_cond_t done_cv;         /* waiters: a commit, or an error */
	pthread_t tid;
	bool started, stop;
	int fd, dirfd, spoolfd;
	char path[PATH_MAX + 16], tmp[PATH_MAX + 16];
	uint64_t retain_ns;
	void (*on_commit)(void *);
	void *ctx;

	/* the live set: by seq and by id, open addressing, both over ents */
	struct cz_jent **ents;
	size_t nents, cap_ents;
	struct cz_jent **by_seq, **by_id;
	size_t hcap;                    /* power of two, > 2 * nents */
	uint64_t next_seq;

	/* pending: records appended, not yet written */
	char *buf, *spare;
	size_t len, cap, spare_cap;
	bool pend_sub;
	struct unl *unl, *unl_spare;
	size_t nunl, cap_unl, cap_unl_spare;
	uint64_t ticket;                /* the last ticket handed out */
	_Atomic uint64_t durable;
	struct cz_journal_stat st;
	uint64_t compacted_bytes;
	uint64_t live_bytes;            /* at open: the records replay applied (what compaction keeps) */
	int64_t last_compact;           /* CLOCK_REALTIME ns */
	/* damage (engine/durable/jrecover.c) */
	uint64_t pend_seq_hi;           /* the highest sequence number a submit appended */
	uint64_t hwm;                   /* DIR/seq.hwm: no number >= it handed out (the writer's) */
	bool damaged;                   /* replay met corruption (not a torn tail) */
	bool tail_whole;                /* the bad last record is whole: maybe corruption */
	char damaged_dir[PATH_MAX + 64];        /* where the damaged journal was kept, or "" */
	char state_dir[PATH_MAX];
	struct { uint64_t before, after; } lost[16];    /* the damaged stretches' neighbours */
	size_t nlost;
	uint64_t named[256];            /* lost sequence numbers already named in the log */
	size_t nnamed;
	uint64_t orphan[256];           /* numbers records that check name, with no submit then */
	size_t norphan;
	/* a failed write (writer_failed_locked): the carry and the cut are the writer's own */
	char *carry;                    /* records of failed commits, written before the next batch */
	size_t clen, ccap;
	struct unl *cunl;               /* their jobs' spool files, removed once they are durable */
	size_t ncunl, ccunl;
	bool c_sub;                     /* the carry holds a submit (a cached one) */
	uint64_t c_seq_hi;
	bool cut;                       /* the file may hold a partial batch past st.bytes */
	uint64_t taken;                 /* the last ticket the writer took */
	int64_t retry_at;               /* CLOCK_MONOTONIC ns: the carry's next try (under lock) */
	int64_t retry_ms;
	struct refusal { uint64_t ticket; int err; } *refused;  /* under lock: until the waiter takes it */
	size_t nrefused, crefused;
	int dead;                       /* closed while failing: what a waiter for the rest is told */
	size_t ntomb;                   /* index slots of forgotten jobs (tomb) */
};

/* What a forgotten job's index slots point to: no job has seq 0 or id "". */
static struct cz_jent tomb;

/* CRC32C of the record framing: engine/durable/jrecover.c (cz_journal_crc32c). */
#define crc32c cz_journal_crc32c

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- the live set ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static uint64_t hash_seq(uint64_t s)
{
	s ^= s >> 33;
	s *= 0xff51afd7ed558ccdull;
	return s ^ (s >> 33);
}

static void index_put(struct cz_journal *j, struct cz_jent *e)
{
	size_t m = j->hcap - 1, i;
	for (i = hash_seq(e->seq) & m; j->by_seq[i]; i = (i + 1) & m)
		;
	j->by_seq[i] = e;
	for (i = hash_str(e->id) & m; j->by_id[i]; i = (i + 1) & m)
		;
	j->by_id[i] = e;
}

static int index_rebuild(struct cz_journal *j, size_t want)
{
	size_t cap = 64;
	while (cap < 2 * want + 2)
		cap <<= 1;
	struct cz_jent **s = calloc(cap, sizeof(*s)), **d = calloc(cap, sizeof(*d));
	if (!s || !d) {
		free(s);
		free(d);
		return -ENOMEM;
	}
	free(j->by_seq);
	free(j->by_id);
	j->by_seq = s;
	j->by_id = d;
	j->hcap = cap;
	j->ntomb = 0;
	for (size_t k = 0; k < j->nents; k++)
		index_put(j, j->ents[k]);
	return 0;
}

static struct cz_jent *find_seq(struct cz_journal *j, uint64_t seq)
{
	size_t m = j->hcap - 1;
	for (size_t i = hash_seq(seq) & m; j->by_seq[i]; i = (i + 1) & m)
		if (j->by_seq[i]->seq == seq)
			return j->by_seq[i];
	return NULL;
}

static bool expired(const struct cz_journal *j, const struct cz_jent *e, int64_t now)
{
	return e->end >= 0 && now - e->t_end > (int64_t)j->retain_ns;
}

/* The newest job with this id (an expired one's id may have been reused). */
static struct cz_jent *find_id(struct cz_journal *j, const char *id)
{
	size_t m = j->hcap - 1;
	struct cz_jent *best = NULL;
	for (size_t i = hash_str(id) & m; j->by_id[i]; i = (i + 1) & m)
		if (!strcmp(j->by_id[i]->id, id) && (!best || j->by_id[i]->seq > best->seq))
			best = j->by_id[i];
	return best;
}

static struct cz_jent *ent_add(struct cz_journal *j, const struct cz_jent *src)
{
	if (j->nents == j->cap_ents) {
		size_t nc = j->cap_ents ? 2 * j->cap_ents : 256;
		struct cz_jent **ne = realloc(j->ents, nc * sizeof(*ne));
		if (!ne)
			return NULL;
		j->ents = ne;
		j->cap_ents = nc;
	}
	if (2 * (j->nents + j->ntomb + 1) + 2 > j->hcap && index_rebuild(j, 2 * j->nents + 64))
		return NULL;
	struct cz_jent *e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	*e = *src;
	e->err = NULL;
	e->end = -1;
	e->end_ticket = 0;
	e->has_acct = false;
	j->ents[j->nents++] = e;
	index_put(j, e);
	if (e->seq >= j->next_seq)
		j->next_seq = e->seq + 1;
	return e;
}

/* ---- records ---- */

void cz_journal_hex(char *out, const uint8_t *d)
{
	for (int i = 0; i < CZ_JOURNAL_DIGEST; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void hex(char *out, const uint8_t *d)
{
	cz_journal_hex(out, d);
}

static int unhex(uint8_t *d, const char *s)
{
	if (strlen(s) != 2 * CZ_JOURNAL_DIGEST)
		return -1;
	for (int i = 0; i < CZ_JOURNAL_DIGEST; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		d[i] = (uint8_t)v;
	}
	return 0;
}

static json_object *rec_sub(const struct cz_jent *e)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "t", json_object_new_string("sub"));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)e->seq));
	json_object_object_add(o, "id", json_object_new_string(e->id));
	json_object_object_add(o, "circuit", json_object_new_string(e->circuit));
	json_object_object_add(o, "prio", json_object_new_int(e->prio));
	json_object_object_add(o, "parts", json_object_new_int64(e->nparts));
	if (e->has_digest) {
		char h[2 * CZ_JOURNAL_DIGEST + 1];
		hex(h, e->digest);
		json_object_object_add(o, "digest", json_object_new_string(h));
	}
	if (e->has_kdigest) {
		char h[2 * CZ_JOURNAL_DIGEST + 1];
		hex(h, e->kdigest);
		json_object_object_add(o, "key_digest", json_object_new_string(h));
	}
	json_object *in = NULL;
	for (uint32_t i = 0; i < e->nparts && i < 8 * sizeof(e->inputs); i++)
		if (e->inputs[i / 8] >> (i % 8) & 1) {
			if (!in)
				in = json_object_new_array();
			json_object_array_add(in, json_object_new_int((int)i));
		}
	if (in)         /* only when it has some: a witness-only job's record is as before */
		json_object_object_add(o, "inputs", in);
	json_object_object_add(o, "ts", json_object_new_int64(e->t_submit));
	if (e->owner >= 0)
		json_object_object_add(o, "uid", json_object_new_int64(e->owner));
	return o;
}

/* Frames o onto *buf (grown as needed); takes o. */
static int frame(char **buf, size_t *len, size_t *cap, json_object *o)
{
	size_t n;
	const char *s = o ? json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &n) : NULL;
	int rc = -ENOMEM;
	if (s && *len + n + 8 <= *cap) {
		rc = 0;
	} else if (s) {
		size_t nc = *cap ? *cap : 4096;
		while (nc < *len + n + 8)
			nc *= 2;
		char *nb = realloc(*buf, nc);
		if (nb) {
			*buf = nb;
			*cap = nc;
			rc = 0;
		}
	}
	if (!rc) {
		put32((uint8_t *)*buf + *len, (uint32_t)n);
		put32((uint8_t *)*buf + *len + 4, crc32c(s, n));
		memcpy(*buf + *len + 8, s, n);
		*len += n + 8;
	}
	json_object_put(o);
	return rc;
}

/* The same for a record already rendered: the hot path's (an end record
 * on the finalizer's or the writer's thread), which makes no heap call
 * while the pending buffer has room (it is made at open and reused). */
static int frame_raw(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 8 > *cap) {
		size_t nc = *cap ? *cap : 4096;
		while (nc < *len + n + 8)
			nc *= 2;
		char *nb = realloc(*buf, nc);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	put32((uint8_t *)*buf + *len, (uint32_t)n);
	put32((uint8_t *)*buf + *len + 4, crc32c(s, n));
	memcpy(*buf + *len + 8, s, n);
	*len += n + 8;
	return 0;
}

/* s as a JSON string's contents (no quotes) into out; its length. */
static size_t json_escape(char *out, size_t cap, const char *s)
{
	size_t n = 0;
	for (; *s && n + 7 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20) {
			n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
		} else {
			out[n++] = (char)c;
		}
	}
	out[n] = 0;
	return n;
}

/* Appends to b (n bytes in it, cap in all); false, and *n = cap, once
 * something did not fit (every later put fails too). */
static bool put(char *b, size_t *n, size_t cap, const char *f, ...) __attribute__((format(printf, 4, 5)));
static bool put(char *b, size_t *n, size_t cap, const char *f, ...)
{
	va_list ap;
	if (*n >= cap)
		return false;
	va_start(ap, f);
	int k = vsnprintf(b + *n, cap - *n, f, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= cap - *n) {
		*n = cap;
		return false;
	}
	*n += (size_t)k;
	return true;
}

/* The accounting's JSON object (journal field names: docs/formats.md),
 * appended at b + n; the new length, or 0 when it does not fit. */
static size_t render_acct(char *b, size_t n, size_t cap, const struct cz_job_acct *a, uint32_t nparts)
{
	put(b, &n, cap, "{");
	if (a->t_first_dispatch)
		put(b, &n, cap, "\"wait_ns\":%llu,", (unsigned long long)a->t_first_dispatch);
	put(b, &n, cap, "\"synth_ns\":%llu,\"device_ns\":%llu,\"final_ns\":%llu,\"synth_cpu_ns\":%llu,"
	    "\"device_cpu_ns\":%llu,\"final_cpu_ns\":%llu,\"peak_bytes\":%llu,\"attempts\":%u,\"devices\":[",
	    (unsigned long long)a->synth_ns, (unsigned long long)a->device_ns, (unsigned long long)a->final_ns,
	    (unsigned long long)a->synth_cpu_ns, (unsigned long long)a->device_cpu_ns,
	    (unsigned long long)a->final_cpu_ns, (unsigned long long)a->buf_peak, a->attempts);
	for (uint32_t i = 0; i < nparts; i++)
		put(b, &n, cap, "%s%d", i ? "," : "", a->dev[i] - 1);
	put(b, &n, cap, "],\"tries\":[");
	for (uint32_t i = 0; i < nparts; i++)
		put(b, &n, cap, "%s%u", i ? "," : "", a->tries[i]);
	return put(b, &n, cap, "]}") ? n : 0;
}

/* An end record's text, without json-c (no heap call): the appenders' on
 * the finalizer's and the writer's threads, and compaction's. */
static size_t render_end(char *b, size_t cap, const struct cz_jent *e)
{
	char esc[6 * CZ_JOURNAL_ERR + 8];
	json_escape(esc, sizeof(esc), e->err ? e->err : "");
	int k = snprintf(b, cap, "{\"t\":\"end\",\"seq\":%llu,\"state\":%d%s%s%s,\"ms\":%.3f,\"ts\":%lld%s",
			 (unsigned long long)e->seq, e->end, *esc ? ",\"err\":\"" : "", esc, *esc ? "\"" : "",
			 e->ms, (long long)e->t_end, e->has_acct ? ",\"acct\":" : "");
	if (k < 0 || (size_t)k >= cap)
		return 0;
	size_t n = (size_t)k;
	if (e->has_acct && !(n = render_acct(b, n, cap, &e->acct, e->nparts)))
		return 0;
	if (n + 2 > cap)
		return 0;
	b[n++] = '}';
	b[n] = 0;
	return n;
}

/* An "acct" record's text: e's accounting, for a job that ended before it. */
static size_t render_acct_rec(char *b, size_t cap, const struct cz_jent *e)
{
	int k = snprintf(b, cap, "{\"t\":\"acct\",\"seq\":%llu,\"acct\":", (unsigned long long)e->seq);
	size_t n = k > 0 && (size_t)k < cap ? render_acct(b, (size_t)k, cap, &e->acct, e->nparts) : 0;
	if (!n || n + 2 > cap)
		return 0;
	b[n++] = '}';
	b[n] = 0;
	return n;
}

/* a's accounting as the journal keeps it: the wait from submit in place
 * of the first dispatch's time (a clock of this boot only). */
static void acct_keep(struct cz_jent *e, const struct cz_job_acct *a, uint64_t t_submit)
{
	e->acct = *a;
	e->acct.t_first_dispatch = a->t_first_dispatch > t_submit ? a->t_first_dispatch - t_submit : 0;
	e->acct.buf_bytes = 0;
	for (uint32_t i = e->nparts; i < sizeof(e->acct.dev); i++)
		e->acct.dev[i] = 0, e->acct.tries[i] = 0;
	e->has_acct = true;
}

static int64_t jint(json_object *o, const char *k, int64_t dflt)
{
	json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int)
	       ? json_object_get_int64(v) : dflt;
}

static const char *jstr(json_object *o, const char *k)
{
	json_object *v;
	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
	       ? json_object_get_string(v) : NULL;
}

/* A submit's "inputs" (partition indices, each below "parts"; absent in
 * records from before inputs: none) into e->inputs; -1 when it makes no
 * sense (the record is then skipped, as any such). */
_Static_assert(CZ_ENGINE_MAX_PARTS <= 8 * sizeof(((struct cz_jent *)0)->inputs), "a bit a partition");
static int inputs_parse(json_object *o, struct cz_jent *e)
{
	json_object *a;
	if (!json_object_object_get_ex(o, "inputs", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return -1;
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		json_object *v = json_object_array_get_idx(a, k);
		int64_t i = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;
		if (i < 0 || i >= e->nparts)
			return -1;
		e->inputs[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	return 0;
}

/* An "acct" object of nparts partitions into a; -1 when it makes no sense. */
static int acct_parse(json_object *o, uint32_t nparts, struct cz_job_acct *a)
{
	static const struct {
		const char *k;
		size_t off;
	} u64s[] = {
		{ "wait_ns", offsetof(struct cz_job_acct, t_first_dispatch) },
		{ "synth_ns", offsetof(struct cz_job_acct, synth_ns) },
		{ "device_ns", offsetof(struct cz_job_acct, device_ns) },
		{ "final_ns", offsetof(struct cz_job_acct, final_ns) },
		{ "synth_cpu_ns", offsetof(struct cz_job_acct, synth_cpu_ns) },
		{ "device_cpu_ns", offsetof(struct cz_job_acct, device_cpu_ns) },
		{ "final_cpu_ns", offsetof(struct cz_job_acct, final_cpu_ns) },
		{ "peak_bytes", offsetof(struct cz_job_acct, buf_peak) },
	};
	json_object *dv, *tr;
	if (!o || !json_object_is_type(o, json_type_object))
		return -1;
	memset(a, 0, sizeof(*a));
	for (size_t k = 0; k < sizeof(u64s) / sizeof(*u64s); k++) {
		int64_t v = jint(o, u64s[k].k, k ? -1 : 0);     /* wait_ns: absent when nothing was dispatched */
		if (v < 0)
			return -1;
		*(uint64_t *)((char *)a + u64s[k].off) = (uint64_t)v;
	}
	int64_t at = jint(o, "attempts", -1);
	if (at < 0 || at > UINT32_MAX || !json_object_object_get_ex(o, "devices", &dv) ||
	    !json_object_object_get_ex(o, "tries", &tr) || !json_object_is_type(dv, json_type_array) ||
	    !json_object_is_type(tr, json_type_array) || json_object_array_length(dv) != nparts ||
	    json_object_array_length(tr) != nparts)
		return -1;
	a->attempts = (uint32_t)at;
	for (uint32_t i = 0; i < nparts; i++) {
		json_object *d = json_object_array_get_idx(dv, i), *t = json_object_array_get_idx(tr, i);
		if (!json_object_is_type(d, json_type_int) || !json_object_is_type(t, json_type_int))
			return -1;
		int64_t dd = json_object_get_int64(d), tt = json_object_get_int64(t);
		if (dd < -1 || dd >= CZ_ENGINE_MAX_DEVICES || tt < 0 || tt > 255)
			return -1;
		a->dev[i] = (int8_t)(dd + 1);
		a->tries[i] = (uint8_t)tt;
	}
	return 0;
}

/* One replayed record (n bytes framed); -1 for one that checks but makes
 * no sense (skipped). */
static int replay_one(struct cz_journal *j, json_object *o, size_t n)
{
	const char *t = jstr(o, "t");
	if (!t)
		return -1;
	if (!strcmp(t, "hdr")) {
		int64_t n = jint(o, "next_seq", 0);
		if (n > 0 && (uint64_t)n > j->next_seq)
			j->next_seq = (uint64_t)n;
		return 0;
	}
	int64_t seq = jint(o, "seq", 0);
	if (seq <= 0)
		return -1;
	struct cz_jent *e = find_seq(j, (uint64_t)seq);
	if (!strcmp(t, "sub")) {
		const char *id = jstr(o, "id"), *c = jstr(o, "circuit"), *dg = jstr(o, "digest");
		int64_t parts = jint(o, "parts", 0), prio = jint(o, "prio", -1);
		int64_t uid = jint(o, "uid", -1);
		if (e)
			return 0;       /* repeated (compaction ran while it was pending) */
		if (!id || !c || strlen(id) >= 64 || strlen(c) >= 64 || parts <= 0 ||
		    parts > CZ_ENGINE_MAX_PARTS || prio < 0 || prio >= CZ_PRIO__COUNT || uid > UINT32_MAX - 1)
			return -1;
		/* No "uid": written before owners were journaled; < 0 says so. */
		struct cz_jent ne = { .seq = (uint64_t)seq, .nparts = (uint32_t)parts, .prio = (uint8_t)prio,
				      .t_submit = jint(o, "ts", 0), .owner = uid < 0 ? -1 : uid };
		snprintf(ne.id, sizeof(ne.id), "%s", id);
		snprintf(ne.circuit, sizeof(ne.circuit), "%s", c);
		ne.has_digest = dg && !unhex(ne.digest, dg);
		const char *kd = jstr(o, "key_digest");
		ne.has_kdigest = kd && !unhex(ne.kdigest, kd);
		if (inputs_parse(o, &ne))
			return -1;
		j->live_bytes += 8 + n;
		return ent_add(j, &ne) ? 0 : -ENOMEM;
	}
	if (!strcmp(t, "end")) {
		int64_t s = jint(o, "state", -1);
		if (!e || s < CZ_JOB_DONE || s > CZ_JOB_CANCELLED)
			return -1;
		if (e->end >= 0)
			return 0;       /* the first end wins */
		json_object *v;
		e->end = (int8_t)s;
		e->t_end = jint(o, "ts", 0);
		e->ms = json_object_object_get_ex(o, "ms", &v) ? json_object_get_double(v) : 0;
		const char *er = jstr(o, "err");
		e->err = er ? strdup(er) : NULL;
		/* No "acct" (an older version's end) or one that makes no
		 * sense: the end stands, await answers without accounting. */
		e->has_acct = json_object_object_get_ex(o, "acct", &v) && !acct_parse(v, e->nparts, &e->acct);
		j->live_bytes += 8 + n;
		return 0;
	}
	if (!strcmp(t, "acct")) {
		json_object *v;
		struct cz_job_acct a;
		if (!e || e->end < 0 || !json_object_object_get_ex(o, "acct", &v) || acct_parse(v, e->nparts, &a))
			return -1;
		e->acct = a;            /* the latest wins: it saw more partitions end */
		e->has_acct = true;
		return 0;       /* compaction folds it into the end record */
	}
	return 0;               /* a kind from a later version: ignored */
}

/* The sequence number a record that checks names (0: none). */
static uint64_t rec_seq(const uint8_t *b, size_t off)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, (const char *)b + off + 8, (int)get32(b + off)) : NULL;
	int64_t s = o && json_object_is_type(o, json_type_object) ? jint(o, "seq", 0) : 0;
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	return s > 0 ? (uint64_t)s : 0;
}

/* The record at *off does not check.  A damaged stretch with records that
 * check after it (engine/durable/jrecover.c): logged, *off moved to the next one,
 * true.  Else the tail: false (a whole bad record is handled as damage). */
static bool replay_damage(struct cz_journal *j, const uint8_t *b, size_t *off, size_t got)
{
	size_t nx = cz_jrec_resync(b, *off, got);
	if (!nx) {
		if (!cz_jrec_torn(b, *off, got))
			j->damaged = j->tail_whole = true;
		return false;
	}
	uint64_t before = j->next_seq - 1, after = rec_seq(b, nx);
	j->damaged = true;
	j->st.corrupt_bytes += nx - *off;
	j->st.damaged_ranges++;
	if (j->nlost < sizeof(j->lost) / sizeof(*j->lost))
		j->lost[j->nlost++] = (typeof(j->lost[0])){ before, after };
	fprintf(stderr, "cuzkd: journal %s: %zu bytes at offset %zu do not check, and a record that checks "
		"follows at offset %zu: corruption, not a torn tail (records there were acknowledged); skipped, "
		"every record after them kept (damaged between the records of sequence numbers %llu and %llu)\n",
		j->path, nx - *off, *off, nx, (unsigned long long)before, (unsigned long long)after);
	*off = nx;
	return true;
}

/* After damage: job seq has no submit record left, and evidence says it
 * existed (a later record, or a spooled witness, names it).  Said once
 * per number, in the words of replay_keep's range line. */
static void lost_name(struct cz_journal *j, uint64_t seq, const char *evidence)
{
	for (size_t k = 0; k < j->nnamed; k++)
		if (j->named[k] == seq)
			return;
	if (j->nnamed < sizeof(j->named) / sizeof(*j->named))
		j->named[j->nnamed++] = seq;
	fprintf(stderr, "cuzkd: journal %s: 1 job(s) with sequence numbers from %llu to %llu have no submit "
		"record left (lost to the damage; %s names it): it is unknown now; its spooled witnesses are "
		"kept in %s\n", j->path, (unsigned long long)seq, (unsigned long long)seq, evidence,
		*j->damaged_dir ? j->damaged_dir : "spool/");
}

/* After a replay that met damage: the file kept for the operator, and
 * which jobs have no record left. */
static void replay_keep(struct cz_journal *j, const uint8_t *b, size_t got, size_t good)
{
	int rc = cz_jrec_keep(j->dirfd, j->state_dir, b, got, j->damaged_dir, sizeof(j->damaged_dir));
	if (rc) {
		j->damaged_dir[0] = 0;
		fprintf(stderr, "cuzkd: journal %s: cannot keep a copy of the damaged journal: %s\n", j->path,
			strerror(-rc));
	} else {
		fprintf(stderr, "cuzkd: journal %s: the damaged journal (%zu bytes, %zu of them after the last "
			"good record) is kept as %s/journal; a clean one is written in its place\n", j->path, got,
			got - good, j->damaged_dir);
	}
	for (size_t k = 0; k < j->nlost; k++) {
		/* up to the number the first record after the stretch names
		 * (its submit, if that is what it is, was replayed since) */
		uint64_t lo = j->lost[k].before + 1, hi = j->lost[k].after ? j->lost[k].after : j->next_seq - 1;
		unsigned missing = 0;
		uint64_t first = 0, last = 0;
		for (uint64_t s = lo; s <= hi && s - lo < 1000000; s++)
			if (!find_seq(j, s)) {
				if (!missing++)
					first = s;
				last = s;
				if (j->nnamed < sizeof(j->named) / sizeof(*j->named))
					j->named[j->nnamed++] = s;
			}
		if (missing)
			fprintf(stderr, "cuzkd: journal %s: %u job(s) with sequence numbers from %llu to %llu have no "
				"submit record left (lost to the damage, or used up by a submit that was never "
				"accepted: numbers are never reused, so a refused submit leaves a gap): they are "
				"unknown now; their spooled witnesses are kept in %s\n", j->path, missing,
				(unsigned long long)first,
				(unsigned long long)last, *j->damaged_dir ? j->damaged_dir : "spool/");
	}
	/* Records are not in sequence order (concurrent jobs, compaction), so
	 * the neighbours' range can miss a lost submit: name every number a
	 * later record still names (the spool's witnesses: cz_journal_spool_lost). */
	for (size_t k = 0; k < j->norphan; k++)
		if (!find_seq(j, j->orphan[k]))
			lost_name(j, j->orphan[k], "a later record that checks");
}

static int replay(struct cz_journal *j, char *err, size_t cap)
{
	struct stat st;
	if (fstat(j->fd, &st)) {
		snprintf(err, cap, "%s: %s", j->path, strerror(errno));
		return -errno;
	}
	if (st.st_size == 0)
		return 0;
	size_t size = (size_t)st.st_size;
	uint8_t *b = malloc(size);
	if (!b) {
		snprintf(err, cap, "%s: out of memory reading %zu bytes", j->path, size);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < size) {
		ssize_t k = pread(j->fd, b + got, size - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	size_t off = MAGIC_LEN, good = MAGIC_LEN, bad = 0;
	if (got < MAGIC_LEN || memcmp(b, MAGIC, MAGIC_LEN)) {
		free(b);
		snprintf(err, cap, "%s: not a cuzkd journal (no magic); move it away to start afresh", j->path);
		return -EINVAL;
	}
	json_tokener *tok = json_tokener_new();        /* one for every record (reset between) */
	while (tok && off + 8 <= got) {
		uint32_t n = get32(b + off), crc = get32(b + off + 4);
		if (n < 2 || n > REC_MAX || off + 8 + n > got || crc32c(b + off + 8, n) != crc) {
			if (replay_damage(j, b, &off, got))
				continue;       /* corruption: resynchronised on the next record */
			break;                  /* the tail */
		}
		json_tokener_reset(tok);
		json_object *o = json_tokener_parse_ex(tok, (const char *)b + off + 8, (int)n);
		int rc = o && json_object_is_type(o, json_type_object) ? replay_one(j, o, n) : -1;
		json_object_put(o);
		if (rc == -ENOMEM) {
			json_tokener_free(tok);
			free(b);
			snprintf(err, cap, "%s: out of memory replaying it", j->path);
			return rc;
		}
		if (rc) {
			bad++;
			uint64_t os = rec_seq(b, off);
			if (os && !find_seq(j, os) && j->norphan < sizeof(j->orphan) / sizeof(*j->orphan))
				j->orphan[j->norphan++] = os;
		}
		j->st.replayed++;
		off += 8 + n;
		good = off;
	}
	json_tokener_free(tok);
	if (j->damaged)
		replay_keep(j, b, got, good);
	free(b);
	if (bad)
		fprintf(stderr, "cuzkd: journal %s: %zu records checked but made no sense "
			"(or name a job whose submit record was lost): skipped\n", j->path, bad);
	j->st.bytes = good;
	if (good < got && j->tail_whole) {
		j->st.torn_bytes = got - good;
		fprintf(stderr, "cuzkd: journal %s: its last record (%zu bytes at offset %zu) is whole but "
			"fails its check: a torn append or a corrupt acknowledged record, which cannot be told "
			"apart; dropped, handled as damage\n", j->path, got - good, good);
	} else if (good < got) {
		j->st.torn_bytes = got - good;
		fprintf(stderr, "cuzkd: journal %s: dropped a torn tail of %zu bytes at offset %zu "
			"(a crash during an append: those records were never acknowledged)\n", j->path,
			got - good, good);
	}
	return 0;
}

/* ---- compaction ---- */

static int cmp_seq(const void *a, const void *b)
{
	const struct cz_jent *x = *(struct cz_jent *const *)a, *y = *(struct cz_jent *const *)b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Under j->lock: drops expired jobs and copies the live set (a memcpy a
 * job: ~1 ms for 10,000), so the rendering and the writing run without
 * the lock that appenders, who hold the engine lock, take. */
static int compact_snapshot_locked(struct cz_journal *j, struct cz_jent **out, size_t *n, uint64_t *next)
{
	cz_mutex_assert_held(&j->lock);
	int64_t now = cz_clock_ns(CLOCK_REALTIME);
	size_t keep = 0;
	for (size_t k = 0; k < j->nents; k++) {
		struct cz_jent *e = j->ents[k];
		if (expired(j, e, now)) {
			free(e->err);
			free(e);
		} else {
			j->ents[keep++] = e;
		}
	}
	if (keep != j->nents) {
		j->nents = keep;
		index_rebuild(j, keep);         /* shrinking: the old tables stay valid if it fails */
	}
	j->st.live = j->nents;
	if (j->nents > 1)      /* qsort(NULL, 0, ...) is undefined */
		qsort(j->ents, j->nents, sizeof(*j->ents), cmp_seq);
	struct cz_jent *a = malloc((j->nents + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	uint64_t durable = atomic_load(&j->durable);
	size_t m = 0;
	for (size_t k = 0; k < j->nents; k++) {
		/* A submit still pending is written by its own batch (which may
		 * fail and refuse it): not copied ahead of it. */
		if (j->ents[k]->sub_ticket > durable)
			continue;
		a[m] = *j->ents[k];
		a[m++].err = j->ents[k]->err ? strdup(j->ents[k]->err) : NULL;
	}
	*out = a;
	*n = m;
	*next = j->next_seq;
	return 0;
}

/* The snapshot as a journal file (frees it). */
static int compact_render(struct cz_jent *a, size_t n, uint64_t next, char **out, size_t *olen)
{
	char *b = NULL;
	size_t len = 0, cap = 4096 + 256 * n;
	int rc = -ENOMEM;
	if ((b = malloc(cap))) {
		memcpy(b, MAGIC, MAGIC_LEN);
		len = MAGIC_LEN;
		json_object *h = json_object_new_object();
		json_object_object_add(h, "t", json_object_new_string("hdr"));
		json_object_object_add(h, "v", json_object_new_int(1));
		json_object_object_add(h, "next_seq", json_object_new_int64((int64_t)next));
		rc = frame(&b, &len, &cap, h);
		for (size_t k = 0; !rc && k < n; k++) {
			rc = frame(&b, &len, &cap, rec_sub(&a[k]));
			if (!rc && a[k].end >= 0) {
				char rb[END_TEXT_MAX];
				size_t rn = render_end(rb, sizeof(rb), &a[k]);
				rc = rn ? frame_raw(&b, &len, &cap, rb, rn) : -EOVERFLOW;
			}
		}
	}
	for (size_t k = 0; k < n; k++)
		free(a[k].err);
	free(a);
	if (rc) {
		free(b);
		return rc;
	}
	*out = b;
	*olen = len;
	return 0;
}

/* Writes DIR/journal.tmp, fsyncs, renames over the journal, fsyncs DIR,
 * and appends to the new file from then on. */
static int compact_write(struct cz_journal *j, const char *b, size_t len)
{
	int fd = open(j->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	int rc = write_all(fd, b, len);
	if (!rc && fdatasync(fd))
		rc = -errno;
	if (!rc && rename(j->tmp, j->path))
		rc = -errno;
	if (rc) {
		close(fd);
		unlink(j->tmp);
		return rc;
	}
	/* Renamed: appends go to the new file from here whatever the
	 * directory's fsync says (the old one is unlinked). */
	if (fsync(j->dirfd))
		fprintf(stderr, "cuzkd: journal %s: fsync of its directory after compaction: %s\n", j->path,
			strerror(errno));
	close(fd);
	int nfd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (nfd < 0)
		return -errno;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = nfd;            /* the writer's alone (or open's, before the writer starts) */
	pthread_mutex_lock(&j->lock);   /* st is read by cz_journal_stat */
	j->st.bytes = len;
	j->compacted_bytes = len;
	j->st.compactions++;
	j->last_compact = cz_clock_ns(CLOCK_REALTIME);
	pthread_mutex_unlock(&j->lock);
	return 0;
}

static int compact(struct cz_journal *j)
{
	char *b = NULL;
	size_t len = 0, n = 0;
	struct cz_jent *a = NULL;
	uint64_t next = 0;
	pthread_mutex_lock(&j->lock);
	int rc = compact_snapshot_locked(j, &a, &n, &next);
	pthread_mutex_unlock(&j->lock);
	if (!rc)
		rc = compact_render(a, n, next, &b, &len);
	if (!rc)
		rc = compact_write(j, b, len);
	free(b);
	if (rc)
		fprintf(stderr, "cuzkd: journal %s: compaction failed: %s (appending to the old file)\n",
			j->path, strerror(-rc));
	return rc;
}

/* ---- the writer ---- */

/* On the writer (or open, before it starts): DIR/seq.hwm above seq_hi
 * before a batch with submits up to seq_hi is written (engine/durable/jrecover.c). */
static int hwm_reserve(struct cz_journal *j, uint64_t seq_hi)
{
	if (seq_hi < j->hwm)
		return 0;
	uint64_t m = seq_hi + 1 + CZ_JREC_HWM_STEP;
	int rc = cz_jrec_hwm_write(j->dirfd, m);
	if (!rc)
		j->hwm = m;
	return rc;
}

/* At open, after replay: the mark read; after damage, a dropped tail or
 * with no journal left (moved away) numbering resumes at it, so no number an acknowledged job had (whose
 * record may be what was lost) is handed out again. */
static void hwm_settle(struct cz_journal *j, bool fresh)
{
	uint64_t m = 0;
	int rc = cz_jrec_hwm_read(j->dirfd, &m);
	if (rc)
		fprintf(stderr, "cuzkd: journal %s: %s/seq.hwm: %s (numbering goes on from the journal alone)\n",
			j->path, j->state_dir, rc == -EINVAL ? "does not check" : strerror(-rc));
	j->hwm = m;
	if ((fresh || j->damaged || j->st.torn_bytes) && m > j->next_seq) {
		fprintf(stderr, "cuzkd: journal %s: after the damage sequence numbers resume at the high-water "
			"mark %llu (the journal's records reach %llu): none is handed out twice\n", j->path,
			(unsigned long long)m, (unsigned long long)(j->next_seq - 1));
		j->next_seq = m;
	}
}

static bool any_expired_locked(struct cz_journal *j)
{
	cz_mutex_assert_held(&j->lock);
	int64_t now = cz_clock_ns(CLOCK_REALTIME);
	for (size_t k = 0; k < j->nents; k++)
		if (expired(j, j->ents[k], now))
			return true;
	return false;
}

/* At open, before the writer starts: the lock is uncontended, and taken
 * so that any_expired_locked's assertion holds everywhere. */
static bool any_expired(struct cz_journal *j)
{
	pthread_mutex_lock(&j->lock);
	bool r = any_expired_locked(j);
	pthread_mutex_unlock(&j->lock);
	return r;
}

/* ---- a failed write ---- */

static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	if (want <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 64;
	while (nc < want)
		nc *= 2;
	void *np = realloc(*p, nc * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* A job whose submit was refused: out of the live set (its index slots
 * point to tomb until the next rebuild). */
static void ent_forget_locked(struct cz_journal *j, struct cz_jent *e)
{
	cz_mutex_assert_held(&j->lock);
	size_t m = j->hcap - 1;
	for (size_t i = hash_seq(e->seq) & m; j->by_seq[i]; i = (i + 1) & m)
		if (j->by_seq[i] == e)
			j->by_seq[i] = &tomb;
	for (size_t i = hash_str(e->id) & m; j->by_id[i]; i = (i + 1) & m)
		if (j->by_id[i] == e)
			j->by_id[i] = &tomb;
	for (size_t k = 0; k < j->nents; k++)
		if (j->ents[k] == e) {
			j->ents[k] = j->ents[--j->nents];
			break;
		}
	j->ntomb++;
	j->st.live = j->nents;
	free(e->err);
	free(e);
}

/* The failed batch's record at b (n bytes of JSON): its kind's first
 * letter ('s'ub, 'e'nd, 'a'cct, or 0) and its sequence number. */
static char rec_kind(const char *b, uint32_t n, uint64_t *seq)
{
	json_tokener *tok = json_tokener_new();
	json_object *o = tok ? json_tokener_parse_ex(tok, b, (int)n) : NULL;
	const char *t = o && json_object_is_type(o, json_type_object) ? jstr(o, "t") : NULL;
	char k = t ? t[0] : 0;
	int64_t s = o && json_object_is_type(o, json_type_object) ? jint(o, "seq", 0) : 0;
	*seq = s > 0 ? (uint64_t)s : 0;
	json_object_put(o);
	if (tok)
		json_tokener_free(tok);
	return k;
}

static bool in_list(const struct unl *g, size_t n, uint64_t seq)
{
	for (size_t k = 0; k < n; k++)
		if (g[k].seq == seq)
			return true;
	return false;
}

/* On the writer, under j->lock, once batch b (len bytes, tickets from lo)
 * failed with rc and the file was cut back: each submit refused (its
 * ticket's waiter is told rc, the job forgotten and listed in *gone for
 * its spool files to go), unless its submitter does not wait (or the
 * refusal cannot be kept: out of memory); every other record, but those
 * of a job refused here, carried to be written again. */
static void writer_failed_locked(struct cz_journal *j, const char *b, size_t len, uint64_t lo, int rc,
				 struct unl **gone, size_t *ngone, size_t *cgone)
{
	cz_mutex_assert_held(&j->lock);
	uint64_t t = lo;
	for (size_t off = 0; off + 8 <= len; t++) {
		uint32_t n = get32((const uint8_t *)b + off);
		uint64_t seq;
		char k = rec_kind(b + off + 8, n, &seq);
		struct cz_jent *e = k == 's' ? find_seq(j, seq) : NULL;
		bool drop = false;
		if (e && !e->nowait && !grow((void **)&j->refused, &j->crefused, j->nrefused + 1, sizeof(*j->refused)) &&
		    !grow((void **)gone, cgone, *ngone + 1, sizeof(**gone))) {
			j->refused[j->nrefused++] = (struct refusal){ t, rc };
			(*gone)[(*ngone)++] = (struct unl){ seq, e->nparts };
			ent_forget_locked(j, e);
			j->st.refused++;
			drop = true;
		} else if ((k == 'e' || k == 'a') && in_list(*gone, *ngone, seq)) {
			drop = true;    /* a refused job's (a cancel while it was being accepted) */
		}
		if (!drop && !grow((void **)&j->carry, &j->ccap, j->clen + 8 + n, 1)) {
			memcpy(j->carry + j->clen, b + off, 8 + n);
			j->clen += 8 + n;
			if (k == 's') {
				j->c_sub = true;
				j->c_seq_hi = seq > j->c_seq_hi ? seq : j->c_seq_hi;
			}
		} else if (!drop) {
			fprintf(stderr, "cuzkd: journal %s: out of memory keeping a record of a failed commit "
				"(job seq %llu): it is lost until a restart resumes the job\n", j->path,
				(unsigned long long)seq);
		}
		off += 8 + n;
	}
	if (j->st.error != rc)
		fprintf(stderr, "cuzkd: journal %s: %s: submits are refused until it can be written again (tried "
			"again every %d to %d ms and at each submit); the records of accepted jobs are kept and "
			"written then\n", j->path, strerror(-rc), RETRY_MIN_MS, RETRY_MAX_MS);
	j->st.error = j->st.last_error = rc;
	j->st.failed_commits++;
	j->st.retry_records = 0;
	for (size_t off = 0; off + 8 <= j->clen; off += 8 + get32((const uint8_t *)j->carry + off))
		j->st.retry_records++;
	j->retry_ms = j->retry_ms ? j->retry_ms * 2 : RETRY_MIN_MS;
	if (j->retry_ms > RETRY_MAX_MS)
		j->retry_ms = RETRY_MAX_MS;
	j->retry_at = cz_now_ns() + j->retry_ms * 1000000;
}

/* The ticket's refusal, taken (each submit waits once): its -errno, or 0. */
static int refusal_take_locked(struct cz_journal *j, uint64_t ticket)
{
	cz_mutex_assert_held(&j->lock);
	for (size_t k = 0; k < j->nrefused; k++)
		if (j->refused[k].ticket == ticket) {
			int rc = j->refused[k].err;
			j->refused[k] = j->refused[--j->nrefused];
			return rc;
		}
	return 0;
}

/* ---- the writer ---- */

/* Until there is a batch, or carried records are due (at once when
 * stopping); false: stopping with nothing to write.  Idle, hourly, it
 * compacts when something expired (not while records are carried). */
static bool writer_wait_locked(struct cz_journal *j)
{
	cz_mutex_assert_held(&j->lock);
	for (;;) {
		int64_t now = cz_now_ns();
		if (j->len || (j->clen && (j->stop || now >= j->retry_at)))
			return true;
		if (j->stop)
			return false;
		int64_t wait = j->clen ? j->retry_at - now : COMPACT_EVERY_S * 1000000000ll;
		struct timespec until = cz_deadline(CLOCK_MONOTONIC, wait);
		if (pthread_cond_timedwait(&j->cv, &j->lock, &until) == ETIMEDOUT && !j->len && !j->clen &&
		    any_expired_locked(j)) {
			pthread_mutex_unlock(&j->lock);
			compact(j);
			pthread_mutex_lock(&j->lock);
		}
	}
}

/* Back to the last good record's end (st.bytes), fsynced: 0, or -errno
 * (j->cut stays set, and the next commit tries it first). */
static int writer_cut(struct cz_journal *j)
{
	if (ftruncate(j->fd, (off_t)j->st.bytes) || fsync(j->fd)) {
		int rc = -errno;
		fprintf(stderr, "cuzkd: journal %s: cannot cut it back to its last good record (%llu bytes): %s "
			"(tried again before the next write)\n", j->path, (unsigned long long)j->st.bytes,
			strerror(-rc));
		return rc;
	}
	j->cut = false;
	return 0;
}

/* One commit: the carry, then batch b; 0 or -errno. */
static int writer_commit(struct cz_journal *j, const char *b, size_t len, bool sub, uint64_t seq_hi)
{
	int rc = j->cut ? writer_cut(j) : 0;
	sub = sub || j->c_sub;
	seq_hi = seq_hi > j->c_seq_hi ? seq_hi : j->c_seq_hi;
	if (!rc && sub)
		rc = hwm_reserve(j, seq_hi);    /* the numbers before the records using them */
	/* The spool files' names before the record that names them (the
	 * files' data each submitter fsynced itself). */
	if (!rc && sub && fsync(j->spoolfd))
		rc = -errno;
	if (!rc && (j->clen || len)) {
		j->cut = true;          /* from here the file may hold part of it */
		rc = write_all(j->fd, j->carry, j->clen);
		if (!rc)
			rc = write_all(j->fd, b, len);
		if (!rc && fdatasync(j->fd))
			rc = -errno;
		if (!rc)
			j->cut = false;
		else
			writer_cut(j);
	}
	return rc;
}

/* A commit that went through: every ticket up to hi durable, the carry
 * with it (its spool removals appended to *u's). */
static void writer_done_locked(struct cz_journal *j, uint64_t hi, bool sub, size_t len)
{
	cz_mutex_assert_held(&j->lock);
	atomic_store_explicit(&j->durable, hi, memory_order_release);
	j->st.commits++;
	j->st.dir_syncs += sub || j->c_sub;
	j->st.bytes += len + j->clen;
	if (j->st.error)
		fprintf(stderr, "cuzkd: journal %s: written again after %llu failed commits (%llu submits refused): "
			"submits are accepted\n", j->path, (unsigned long long)j->st.failed_commits,
			(unsigned long long)j->st.refused);
	j->st.error = 0;
	j->st.retry_records = 0;
	j->clen = 0;
	j->c_sub = false;
	j->c_seq_hi = 0;
	j->retry_ms = 0;
}

/* Spool files: the refused jobs' (never durable) at once; ended jobs'
 * once their end is durable (a crash before that resumes them). */
static void writer_unlink(struct cz_journal *j, int rc, const struct unl *u, size_t nu, struct unl *gone,
			  size_t ngone)
{
	for (size_t k = 0; k < ngone; k++)
		cz_spool_remove(j->spoolfd, gone[k].seq, gone[k].n);
	if (rc) {
		/* none to carry: cunl may still be NULL, and memcpy to NULL is
		 * undefined even for 0 bytes (UBSan, e2e_jfull under ASan) */
		if (nu && !grow((void **)&j->cunl, &j->ccunl, j->ncunl + nu, sizeof(*j->cunl))) {
			memcpy(j->cunl + j->ncunl, u, nu * sizeof(*u));
			j->ncunl += nu;
		}       /* else they stay until a restart cleans them */
		return;
	}
	for (size_t k = 0; k < j->ncunl; k++)
		cz_spool_remove(j->spoolfd, j->cunl[k].seq, j->cunl[k].n);
	j->ncunl = 0;
	for (size_t k = 0; k < nu; k++)
		cz_spool_remove(j->spoolfd, u[k].seq, u[k].n);
}

static void *writer_main(void *v)
{
	struct cz_journal *j = v;
	struct unl *gone = NULL;
	size_t cgone = 0;
	int rc = 0;

	cz_thread_name("cz-journal");
	pthread_mutex_lock(&j->lock);
	while (writer_wait_locked(j)) {
		/* Take the batch; the next one gathers in the spare meanwhile. */
		char *b = j->buf;
		size_t len = j->len, cap = j->cap, ngone = 0;
		j->buf = j->spare, j->cap = j->spare_cap, j->len = 0;
		j->spare = NULL, j->spare_cap = 0;
		struct unl *u = j->unl;
		size_t nu = j->nunl, cu = j->cap_unl;
		j->unl = j->unl_spare, j->cap_unl = j->cap_unl_spare, j->nunl = 0;
		j->unl_spare = NULL, j->cap_unl_spare = 0;
		bool sub = j->pend_sub;
		j->pend_sub = false;
		uint64_t hi = j->ticket, seq_hi = j->pend_seq_hi, lo = j->taken + 1;
		j->taken = hi;
		pthread_mutex_unlock(&j->lock);

		rc = writer_commit(j, b, len, sub, seq_hi);

		pthread_mutex_lock(&j->lock);
		if (rc)
			writer_failed_locked(j, b, len, lo, rc, &gone, &ngone, &cgone);
		else
			writer_done_locked(j, hi, sub, len);
		pthread_cond_broadcast(&j->done_cv);
		bool big = !rc && j->st.bytes > COMPACT_MIN && j->st.bytes > 4 * j->compacted_bytes;
		free(j->spare);         /* keep the larger buffer as the spare */
		j->spare = b, j->spare_cap = cap;
		pthread_mutex_unlock(&j->lock);

		if (j->on_commit)
			j->on_commit(j->ctx);
		writer_unlink(j, rc, u, nu, gone, ngone);
		if (big)
			compact(j);

		pthread_mutex_lock(&j->lock);
		free(j->unl_spare);
		j->unl_spare = u, j->cap_unl_spare = cu;
		if (rc && j->stop)
			break;          /* closing: what is carried is lost to this run (a restart resumes its jobs) */
	}
	if (rc || j->clen || j->len) {
		j->dead = rc ? rc : -EIO;
		pthread_cond_broadcast(&j->done_cv);
	}
	pthread_mutex_unlock(&j->lock);
	free(gone);
	return NULL;
}

static uint64_t append_locked(struct cz_journal *j, json_object *o)
{
	cz_mutex_assert_held(&j->lock);
	if (frame(&j->buf, &j->len, &j->cap, o))
		return 0;
	j->st.records++;
	pthread_cond_signal(&j->cv);
	return ++j->ticket;
}

uint64_t cz_journal_submit(struct cz_journal *j, const struct cz_jent *e)
{
	uint64_t t = 0;
	pthread_mutex_lock(&j->lock);
	struct cz_jent *n = j->dead ? NULL : ent_add(j, e);
	if (n && (t = append_locked(j, rec_sub(n)))) {
		j->pend_sub = true;
		n->sub_ticket = t;
	}
	if (n && e->seq > j->pend_seq_hi)
		j->pend_seq_hi = e->seq;
	if (n) {
		j->st.live = j->nents;
	}
	pthread_mutex_unlock(&j->lock);
	return t;
}

uint64_t cz_journal_end(struct cz_journal *j, uint64_t seq, int state, const char *err, double ms)
{
	return cz_journal_end_acct(j, seq, state, err, ms, NULL, 0);
}

/* Appends rb (rn bytes) as a record: its ticket, or 0. */
static uint64_t append_raw_locked(struct cz_journal *j, const char *rb, size_t rn)
{
	cz_mutex_assert_held(&j->lock);
	if (!rn || frame_raw(&j->buf, &j->len, &j->cap, rb, rn))
		return 0;
	j->st.records++;
	pthread_cond_signal(&j->cv);
	return ++j->ticket;
}

uint64_t cz_journal_end_acct(struct cz_journal *j, uint64_t seq, int state, const char *err, double ms,
			     const struct cz_job_acct *a, uint64_t t_submit)
{
	uint64_t t = 0;
	char rb[END_TEXT_MAX];          /* on the stack: no heap call on this path */
	pthread_mutex_lock(&j->lock);
	struct cz_jent *e = find_seq(j, seq);
	if (e && e->end >= 0 && a) {
		/* Ended already (a cancel): its accounting now that more of
		 * its partitions have ended.  await waits for this ticket. */
		acct_keep(e, a, t_submit);
		if ((t = append_raw_locked(j, rb, render_acct_rec(rb, sizeof(rb), e))))
			e->end_ticket = t;
		else
			t = e->end_ticket ? e->end_ticket : atomic_load(&j->durable);
	} else if (e && e->end < 0) {
		e->end = (int8_t)state;
		e->t_end = cz_clock_ns(CLOCK_REALTIME);
		e->ms = ms;
		e->err = err && *err ? strdup(err) : NULL;
		if (a)
			acct_keep(e, a, t_submit);
		if (j->nunl == j->cap_unl) {
			size_t nc = j->cap_unl ? 2 * j->cap_unl : 64;
			struct unl *nu = realloc(j->unl, nc * sizeof(*nu));
			if (nu)
				j->unl = nu, j->cap_unl = nc;
		}
		if (j->nunl < j->cap_unl)       /* else its spool files stay until a restart cleans them */
			j->unl[j->nunl++] = (struct unl){ seq, e->nparts };
		t = append_raw_locked(j, rb, render_end(rb, sizeof(rb), e));
		e->end_ticket = t;
	} else if (e) {
		t = e->end_ticket ? e->end_ticket : atomic_load(&j->durable);   /* ended already */
	}
	pthread_mutex_unlock(&j->lock);
	return t;
}

int cz_journal_wait_for(struct cz_journal *j, uint64_t ticket, int64_t timeout_ns, char *err, size_t cap)
{
	int rc = 0;
	struct timespec until = cz_deadline(CLOCK_REALTIME, timeout_ns > 0 ? timeout_ns : 0);    /* done_cv's clock */
	pthread_mutex_lock(&j->lock);
	for (;;) {
		/* Before durable: a later commit's success covers a refused ticket too. */
		if ((rc = refusal_take_locked(j, ticket))) {
			snprintf(err, cap, "journal: %s (%s): its record could not be written, so nothing of the "
				 "submit was kept; retry later: submits are accepted again as soon as the journal "
				 "can be written", strerror(-rc), j->path);
			break;
		}
		if (atomic_load(&j->durable) >= ticket)
			break;
		if (j->dead) {
			rc = j->dead;
			snprintf(err, cap, "journal: %s (%s): cuzkd stopped before the record could be written",
				 strerror(-rc), j->path);
			break;
		}
		if (timeout_ns < 0) {
			pthread_cond_wait(&j->done_cv, &j->lock);
		} else if (pthread_cond_timedwait(&j->done_cv, &j->lock, &until) == ETIMEDOUT &&
			   atomic_load(&j->durable) < ticket) {
			rc = -ETIMEDOUT;
			snprintf(err, cap, "journal: %s (%s): the record is not written yet; it is kept and written as "
				 "soon as the journal can be (a crash before that loses it)",
				 strerror(-(j->st.error ? j->st.error : ETIMEDOUT)), j->path);
			break;
		}
	}
	pthread_mutex_unlock(&j->lock);
	return rc;
}

int cz_journal_wait(struct cz_journal *j, uint64_t ticket, char *err, size_t cap)
{
	return cz_journal_wait_for(j, ticket, -1, err, cap);
}

uint64_t cz_journal_durable(struct cz_journal *j)
{
	return atomic_load_explicit(&j->durable, memory_order_acquire);
}

void cz_journal_stat(struct cz_journal *j, struct cz_journal_stat *st)
{
	pthread_mutex_lock(&j->lock);
	*st = j->st;
	pthread_mutex_unlock(&j->lock);
}

uint64_t cz_journal_next_seq(struct cz_journal *j)
{
	pthread_mutex_lock(&j->lock);
	uint64_t n = j->next_seq;
	pthread_mutex_unlock(&j->lock);
	return n;
}

int cz_journal_spool_fd(struct cz_journal *j)
{
	return j->spoolfd;
}

struct cz_jent *cz_journal_unfinished(struct cz_journal *j, size_t *n)
{
	struct cz_jent *a = NULL;
	*n = 0;
	pthread_mutex_lock(&j->lock);
	if (j->nents > 1)      /* qsort(NULL, 0, ...) is undefined */
		qsort(j->ents, j->nents, sizeof(*j->ents), cmp_seq);
	size_t cnt = 0;
	for (size_t k = 0; k < j->nents; k++)
		cnt += j->ents[k]->end < 0;
	if (cnt && (a = malloc(cnt * sizeof(*a)))) {
		for (size_t k = 0; k < j->nents; k++)
			if (j->ents[k]->end < 0) {
				a[*n] = *j->ents[k];
				a[(*n)++].err = NULL;
			}
	}
	pthread_mutex_unlock(&j->lock);
	return a;
}

int cz_journal_find(struct cz_journal *j, const char *id, struct cz_jent *out, char *errbuf)
{
	int found = 0;
	pthread_mutex_lock(&j->lock);
	struct cz_jent *e = find_id(j, id);
	if (e && !expired(j, e, cz_clock_ns(CLOCK_REALTIME))) {
		*out = *e;
		out->err = NULL;
		if (errbuf)
			snprintf(errbuf, CZ_JOURNAL_ERR, "%s", e->err ? e->err : "");
		found = 1;
	}
	pthread_mutex_unlock(&j->lock);
	return found;
}

int cz_journal_done(struct cz_journal *j, uint64_t seq, char *id, size_t cap)
{
	pthread_mutex_lock(&j->lock);
	struct cz_jent *e = find_seq(j, seq);
	int done = e && e->end == CZ_JOB_DONE;
	if (done)
		snprintf(id, cap, "%s", e->id);
	pthread_mutex_unlock(&j->lock);
	return done;
}

int cz_journal_spool_lost(struct cz_journal *j, int spoolfd, const char *name)
{
	unsigned long long seq;
	char to[PATH_MAX + 400];
	if (!j->damaged || !*j->damaged_dir || sscanf(name, "%llu.", &seq) != 1)
		return 0;
	pthread_mutex_lock(&j->lock);
	bool known = find_seq(j, seq) != NULL;
	pthread_mutex_unlock(&j->lock);
	if (known)
		return 0;       /* the journal has its record: it ended, or owns it */
	snprintf(to, sizeof(to), "%s/%s", j->damaged_dir, name);
	if (renameat(spoolfd, name, AT_FDCWD, to))
		return 1;       /* left where it is: still not removed */
	pthread_mutex_lock(&j->lock);
	j->st.witnesses_kept++;
	lost_name(j, seq, "its spooled witness");
	pthread_mutex_unlock(&j->lock);
	return 1;
}

void cz_journal_damage_json(struct cz_journal *j, json_object *jo)
{
	pthread_mutex_lock(&j->lock);
	struct cz_journal_stat st = j->st;
	pthread_mutex_unlock(&j->lock);
	json_object_object_add(jo, "corrupt_bytes", json_object_new_int64((int64_t)st.corrupt_bytes));
	json_object_object_add(jo, "damaged_ranges", json_object_new_int64((int64_t)st.damaged_ranges));
	json_object_object_add(jo, "witnesses_kept", json_object_new_int64((int64_t)st.witnesses_kept));
	if (*j->damaged_dir)    /* set at open only */
		json_object_object_add(jo, "damaged", json_object_new_string(j->damaged_dir));
}

/* ---- open and close ---- */

struct cz_journal *cz_journal_open(const char *state_dir, uint64_t retain_s,
				   void (*on_commit)(void *), void *ctx, char *err, size_t cap)
{
	int64_t t0 = cz_now_ns();
	struct cz_journal *j = calloc(1, sizeof(*j));
	char sp[PATH_MAX + 16];
	if (!j) {
		snprintf(err, cap, "out of memory for the journal");
		return NULL;
	}
	j->fd = j->dirfd = j->spoolfd = -1;
	j->retain_ns = retain_s > (uint64_t)INT64_MAX / 1000000000 ? (uint64_t)INT64_MAX : retain_s * 1000000000ull;
	j->on_commit = on_commit;
	j->ctx = ctx;
	j->next_seq = 1;
	pthread_mutex_init(&j->lock, NULL);
	/* The writer's hourly wait is on CLOCK_MONOTONIC (a clock step
	 * neither stretches it nor turns it into a spin). */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&j->done_cv, NULL);
	snprintf(j->path, sizeof(j->path), "%s/journal", state_dir);
	snprintf(j->state_dir, sizeof(j->state_dir), "%s", state_dir);
	snprintf(j->tmp, sizeof(j->tmp), "%s/journal.tmp", state_dir);
	snprintf(sp, sizeof(sp), "%s/spool", state_dir);
	/* Both pending buffers and spool-removal lists up front: appending
	 * then makes no heap call unless a burst outgrows them. */
	j->cap = j->spare_cap = 256 << 10;
	j->cap_unl = j->cap_unl_spare = 1024;
	j->buf = malloc(j->cap);
	j->spare = malloc(j->spare_cap);
	j->unl = malloc(j->cap_unl * sizeof(*j->unl));
	j->unl_spare = malloc(j->cap_unl_spare * sizeof(*j->unl_spare));
	if (!j->buf || !j->spare || !j->unl || !j->unl_spare || index_rebuild(j, 0)) {
		snprintf(err, cap, "out of memory for the journal");
		goto fail;
	}
	if (mkdir(sp, 0750) && errno != EEXIST) {
		snprintf(err, cap, "cannot create the spool directory %s: %s", sp, strerror(errno));
		goto fail;
	}
	j->dirfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	j->spoolfd = open(sp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dirfd < 0 || j->spoolfd < 0) {
		snprintf(err, cap, "cannot open %s: %s", j->dirfd < 0 ? state_dir : sp, strerror(errno));
		goto fail;
	}
	unlink(j->tmp);         /* a compaction a crash cut short: the journal itself is whole */
	j->fd = open(j->path, O_RDONLY | O_CLOEXEC);
	if (j->fd < 0 && errno != ENOENT) {
		snprintf(err, cap, "cannot open the journal %s: %s", j->path, strerror(errno));
		goto fail;
	}
	bool fresh = j->fd < 0;
	if (!fresh) {
		if (replay(j, err, cap))
			goto fail;
		close(j->fd);
		j->fd = -1;
	}
	hwm_settle(j, fresh);
	/* A new journal, or one with expired jobs or grown past four times
	 * its live set, is written afresh (compaction); else appends go on
	 * from the last whole record (a torn tail cut off first), so a
	 * restart costs the replay only. */
	int rc = 0;
	if (fresh || j->damaged || any_expired(j) || j->st.bytes > 4 * (MAGIC_LEN + 64 + j->live_bytes)) {
		rc = compact(j);
	} else {
		j->fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (j->fd < 0 || (j->st.torn_bytes && (ftruncate(j->fd, (off_t)j->st.bytes) || fsync(j->fd))))
			rc = -errno;
		j->compacted_bytes = j->st.bytes;
		j->st.live = j->nents;
	}
	if (rc) {
		snprintf(err, cap, "cannot write the journal %s: %s", j->path, strerror(-rc));
		goto fail;
	}
	j->st.open_ms = (double)(cz_now_ns() - t0) / 1e6;
	if (pthread_create(&j->tid, NULL, writer_main, j)) {
		snprintf(err, cap, "cannot start the journal's writer thread");
		goto fail;
	}
	j->started = true;
	return j;
fail:
	cz_journal_close(j);
	return NULL;
}

void cz_journal_close(struct cz_journal *j)
{
	if (!j)
		return;
	if (j->started) {
		pthread_mutex_lock(&j->lock);
		j->stop = true;
		pthread_cond_signal(&j->cv);
		pthread_mutex_unlock(&j->lock);
		pthread_join(j->tid, NULL);
	}
	for (size_t k = 0; k < j->nents; k++) {
		free(j->ents[k]->err);
		free(j->ents[k]);
	}
	free(j->ents);
	free(j->by_seq);
	free(j->by_id);
	free(j->buf);
	free(j->spare);
	free(j->unl);
	free(j->unl_spare);
	free(j->carry);
	free(j->cunl);
	free(j->refused);
	if (j->fd >= 0)
		close(j->fd);
	if (j->dirfd >= 0)
		close(j->dirfd);
	if (j->spoolfd >= 0)
		close(j->spoolfd);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cv);
	pthread_cond_destroy(&j->done_cv);
	free(j);
}

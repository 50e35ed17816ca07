/* SPDX-License-Identifier: MIT */
/*
 * engine/durable/journal.h — the job journal (engine/durable/journal.c) and the witness
 * spool (engine/durable/spool.c): what makes an accepted job survive a crash.
 * The engine's own; `cuzk bench journal` (tools/cuzk/bench_journal.c)
 * drives it directly to measure what accepting a job costs.
 */
#ifndef CZ_JOURNAL_H
#define CZ_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/evidence/metrics.h"             /* struct cz_job_acct */

#define CZ_JOURNAL_DIGEST 32            /* SHA-256 */
#define CZ_JOURNAL_ERR 400

/* One job the journal knows: what its submit record said, and its end. */
struct cz_jent {
	uint64_t seq;
	char id[64], circuit[64];
	uint32_t nparts;
	uint8_t prio;                   /* enum cz_prio */
	bool has_digest;                /* a caller's id: witnesses digested */
	uint8_t digest[CZ_JOURNAL_DIGEST];
	bool has_kdigest;               /* "key_digest": the key it was accepted with (absent
					 * in a record from before keys were journaled) */
	uint8_t kdigest[CZ_JOURNAL_DIGEST];
	uint8_t inputs[32];             /* bit i: partition i's spooled file is a circom input
					 * (JSON), not a witness; all 0 in a record from before
					 * inputs ("inputs" absent) */
	int64_t owner;                  /* the submitting uid; -1: a record from before
					 * owners were journaled (the engine makes it its own) */
	int8_t end;                     /* -1: unfinished, else enum cz_job_state */
	int64_t t_submit, t_end;        /* CLOCK_REALTIME ns: retention is calendar time */
	double ms;                      /* submit to end, as the engine measured it */
	uint64_t end_ticket;            /* the end record's commit ticket (this run), or 0 */
	char *err;                      /* the end's error, or NULL (malloc'd) */
	/* The job's accounting at its end (engine/evidence/metrics.c), for an await the
	 * journal answers; t_first_dispatch is relative: the wait from submit
	 * (0: nothing was dispatched).  has_acct false: an end record without
	 * one (an older version's, or none yet). */
	bool has_acct;
	struct cz_job_acct acct;
	/* This run only, never journaled: */
	bool nowait;                    /* the submitter queued the job without waiting for its
					 * record (cz_req_submit_cached): a failed write keeps the
					 * record to be written again rather than refusing it */
	uint64_t sub_ticket;            /* its submit record's ticket (the journal's) */
};

struct cz_journal_stat {
	uint64_t records;       /* appended this run */
	uint64_t commits;       /* group commits: one journal fdatasync each */
	uint64_t dir_syncs;     /* spool directory fsyncs (one per commit with a submit in it) */
	uint64_t bytes;         /* the journal file's size */
	uint64_t compactions;
	uint64_t live;          /* jobs it holds (unfinished + retained) */
	uint64_t replayed, torn_bytes;  /* at open: records read, bytes of a torn tail dropped */
	uint64_t corrupt_bytes;         /* at open: bytes of damaged stretches skipped (engine/durable/jrecover.c) */
	uint64_t damaged_ranges;        /* at open: such stretches (records after each kept) */
	uint64_t witnesses_kept;        /* at open: spool files no record accounts for, kept after damage */
	double open_ms;         /* replay + compaction at open */
	int error;              /* while the journal is refusing: the last write's error (-errno), else 0 */
	int last_error;         /* the last write's error ever (-errno), or 0: kept once it recovers */
	uint64_t failed_commits;        /* group commits whose write or fsync failed (each retried) */
	uint64_t refused;               /* submits refused because their record could not be written */
	uint64_t retry_records;         /* records of failed commits waiting to be written again */
};

struct cz_journal;

/* Opens (or creates) DIR/journal, replays it (a torn tail is dropped and
 * logged; a damaged stretch with records after it is skipped, every later
 * record kept, the damaged file kept in DIR/damaged-<time>/, numbering
 * resumed at DIR/seq.hwm: engine/durable/jrecover.c), forgets jobs that ended more than retain_s ago,
 * writes it again compacted, and starts its writer thread.  on_commit(ctx)
 * runs on the writer after each group commit, with no journal lock held.
 * NULL with err naming the file and the cause. */
struct cz_journal *cz_journal_open(const char *state_dir, uint64_t retain_s,
				   void (*on_commit)(void *), void *ctx, char *err, size_t cap);
/* Writes what is pending, stops the writer, frees. */
void cz_journal_close(struct cz_journal *j);
/* DIR/spool, opened (O_DIRECTORY) by cz_journal_open: the writer fsyncs it
 * before a commit that has a submit in it, and removes an ended job's
 * spool files once its end is durable. */
int cz_journal_spool_fd(struct cz_journal *j);

/* After damage only: a spool file (name under spoolfd) of a job the
 * journal has no record of is moved next to the damaged journal, not
 * removed (nothing proves it unreferenced).  1 when it is to be kept. */
int cz_journal_spool_lost(struct cz_journal *j, int spoolfd, const char *name);
/* status's journal fields about damage at open: corrupt_bytes,
 * damaged_ranges, witnesses_kept, damaged (the kept copy's folder). */
struct json_object;
void cz_journal_damage_json(struct cz_journal *j, struct json_object *jo);
/* The first sequence number no journaled job has (numbers never repeat). */
uint64_t cz_journal_next_seq(struct cz_journal *j);
/* The unfinished jobs in sequence order: a malloc'd array of copies (err
 * NULL), *n of them; NULL with *n = 0 when there are none. */
struct cz_jent *cz_journal_unfinished(struct cz_journal *j, size_t *n);
/* The retained job with this id (not expired): 1 and a copy (err copied
 * into errbuf, which has CZ_JOURNAL_ERR bytes, may be NULL), or 0. */
int cz_journal_find(struct cz_journal *j, const char *id, struct cz_jent *out, char *errbuf);
/* 1 when seq ended done (restart: a published directory may be rolled forward). */
int cz_journal_done(struct cz_journal *j, uint64_t seq, char *id, size_t cap);

/* Appending costs a heap copy of the record under the journal's own lock
 * (never any I/O: callers hold the engine lock); the writer thread makes it
 * durable.  Each returns the record's commit ticket, 0 when out of memory
 * or the writer has failed. */
uint64_t cz_journal_submit(struct cz_journal *j, const struct cz_jent *e);
uint64_t cz_journal_end(struct cz_journal *j, uint64_t seq, int state, const char *err, double ms);
/* The same with the job's accounting (a, whose t_first_dispatch is on the
 * same clock as t_submit; NULL: none).  On a job that ended already (a
 * cancel records its end at once, its running partitions end later) it
 * appends the accounting on its own ("acct" record) and returns its ticket. */
uint64_t cz_journal_end_acct(struct cz_journal *j, uint64_t seq, int state, const char *err, double ms,
			     const struct cz_job_acct *a, uint64_t t_submit);
/* Waits until ticket is durable: 0, or -errno with err.  A write that
 * fails (ENOSPC, EDQUOT, EIO, ...) is cut back to the last good record and
 * refuses the submits in it: their waiters get the error, naming the
 * journal and the errno, and their jobs are forgotten (never durable, their
 * spool files removed); every other record in it (ends, a cached submit's)
 * is written again with the next commit, and the writer retries on its own
 * meanwhile, so an end's waiter waits until the disk takes it.  Only a
 * journal closed while failing answers an end's waiter with the error. */
int cz_journal_wait(struct cz_journal *j, uint64_t ticket, char *err, size_t cap);
/* The same, at most timeout_ns (< 0: no bound): -ETIMEDOUT with err naming
 * the journal's error when the record is still waiting to be written. */
int cz_journal_wait_for(struct cz_journal *j, uint64_t ticket, int64_t timeout_ns, char *err, size_t cap);
/* The highest durable ticket (lock-free: an acquire load). */
uint64_t cz_journal_durable(struct cz_journal *j);
void cz_journal_stat(struct cz_journal *j, struct cz_journal_stat *st);

/* ---- engine/durable/spool.c: the daemon's own copies of the witnesses ---- */

/* DIR/spool/<seq>.<k>.wtns */
void cz_spool_name(char *buf, size_t cap, uint64_t seq, uint32_t k);
/* Copies size bytes of src (from offset 0, whatever src's file offset)
 * into the new file name under dirfd: a reflink (FICLONE) where the
 * filesystem shares extents, else copy_file_range (in the kernel, no user
 * space copy), else read/write.  Its descriptor (not yet fsynced), or
 * -errno with err (the file removed). */
int cz_spool_copy(int dirfd, const char *name, int src, uint64_t size, char *err, size_t cap);
/* fsync of n spooled files, all in flight together (io_uring). 0 or -errno. */
int cz_spool_sync(const int *fds, uint32_t n, char *err, size_t cap);
/* SHA-256 of a spooled copy (read back from the spool, never from the
 * client's file, which may change meanwhile).  0 or -errno. */
int cz_spool_digest(int fd, uint64_t size, uint8_t *out);
/* How the last copy on this thread went: "reflink", "copy_file_range", "read/write". */
const char *cz_spool_last_method(void);
/* Witness files and bytes spooled by each method since the process
 * started, in the order reflink, copy_file_range, read/write. */
#define CZ_SPOOL_METHODS 3
struct cz_spool_stat {
	uint64_t files[CZ_SPOOL_METHODS], bytes[CZ_SPOOL_METHODS];
	const char *name[CZ_SPOOL_METHODS];
};
void cz_spool_stat(struct cz_spool_stat *st);
/* Opens a spooled witness for reading, or -errno. */
int cz_spool_open(int dirfd, uint64_t seq, uint32_t k);
/* Unlinks a job's spool files (missing ones are not an error). */
void cz_spool_remove(int dirfd, uint64_t seq, uint32_t nparts);
/* SHA-256 over n digests, in order: a job's witness digest. */
/* d (CZ_JOURNAL_DIGEST bytes) as lower-case hex into out (2 x that + 1). */
void cz_journal_hex(char *out, const uint8_t *d);

void cz_spool_digest_join(const uint8_t (*d)[CZ_JOURNAL_DIGEST], uint32_t n, uint8_t *out);

#endif

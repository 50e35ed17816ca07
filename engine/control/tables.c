/* SPDX-License-Identifier: MIT */
/*
 * engine/control/tables.c — fixed-base tables for a key being loaded
 * (--fixed-tables, a load's "fixed_tables"; zk/msm/msm_fixed.c has the
 * design): built once per load, in the key's shared region, so device
 * children prove with them too, and charged to the memory budget as part
 * of the key's bytes.
 *
 * How much: off builds none; a size builds at most that many bytes; auto
 * at most half of what the free budget leaves after the key itself and
 * two partitions (one computing, one being prepared), so tables never
 * take the room the pipeline needs.  Within that the cost model chooses
 * each query's window and stride (or no table, where none pays), for the
 * backend's host threads.  Only the cpu backend's device stage runs the
 * MSMs on the host, so only its keys get tables.
 *
 * Where: planned (each query's window and stride, so their bytes) from
 * the key on the heap, charged to the budget at once, then given their
 * place in the key's shared region by its share and built there, in
 * place (zk/groth16/groth16.h, key_tables_plan and _fill): the load's
 * peak is the region (key and tables) plus the heap key being moved
 * into it and a chunk's scratch a thread, never a second copy of the
 * tables.  Tables that do not fit what the budget leaves after the key
 * and two partitions are refused (the load fails, naming their size and
 * the budget); auto asks for half of that, so it fits unless another
 * load took the room meanwhile.
 *
 * Building takes seconds (255 doublings per base): on threads of a pool
 * made for it (the consumers idle: the key is not loaded yet), outside the
 * engine lock; the loading thread logs its progress every second, keeps it
 * in a slot of e->wbuilds (`circuits`' "building": stage "tables",
 * progress_pct; cuzkctl load prints it), and the load's reply says what
 * was built and how long it took.
 */
#include "engine/engine_pvt.h"
#include "lib/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct tb_run {
	const struct cz_curve_ops *cv;
	union cz_curve_key *key;
	struct cz_pool *pool;
	_Atomic uint64_t done;
	_Atomic int fin;
	int rc;
};

static void *tb_main(void *arg)
{
	struct tb_run *t = arg;
	t->rc = t->cv->key_tables_fill(t->key, t->pool, &t->done);
	atomic_store(&t->fin, 1);
	return NULL;
}

static unsigned tb_threads(const struct cz_engine *e)
{
	long n = e->cfg.device_threads ? (long)e->cfg.device_threads : sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

int cz_tables_plan(struct cz_engine *e, struct cz_circuit *c, const struct cz_curve_ops *cv,
		   uint64_t mode, char *err, size_t cap)
{
	struct cz_budget_stat st;

	c->tables_bytes = 0;
	c->tables_ms = 0;
	c->tables_resv = 0;
	c->tables_bases = 0;
	if (mode == CZ_FIXED_TABLES_OFF || strcmp(e->be->name, "cpu"))
		return 0;
	c->part_bytes = cv->part_bytes(&c->key);
	uint64_t kb = cv->key_bytes(&c->key), need = kb + 2 * c->part_bytes;
	pthread_mutex_lock(&e->lock);
	cz_budget_stat(e->budget, &st);
	pthread_mutex_unlock(&e->lock);
	uint64_t room = st.free > need ? st.free - need : 0;
	uint64_t allow = mode == CZ_FIXED_TABLES_AUTO ? room / 2 : mode;
	if (!allow)
		return 0;
	uint64_t bytes = cv->key_tables_plan(&c->key, allow, tb_threads(e), &c->tables_bases);
	if (!bytes)
		return 0;
	/* Charged now, before a byte of them exists, so a load beside this
	 * one cannot take their room while they are built; the key itself is
	 * charged once it is whole (keys.c), for the rest of its key_bytes. */
	pthread_mutex_lock(&e->lock);
	cz_budget_stat(e->budget, &st);
	room = st.free > need ? st.free - need : 0;
	int fits = bytes <= room && !cz_budget_try_reserve(e->budget, bytes);
	pthread_mutex_unlock(&e->lock);
	if (!fits) {
		snprintf(err, cap, "%s: fixed-base tables of %llu bytes do not fit the memory budget: "
			 "%llu of %llu bytes free, of which the key needs %llu and two partitions %llu "
			 "(raise --mem-budget, or load with a smaller fixed_tables, or off)", c->path,
			 (unsigned long long)bytes, (unsigned long long)st.free,
			 (unsigned long long)st.limit, (unsigned long long)kb,
			 (unsigned long long)(2 * c->part_bytes));
		return -1;
	}
	c->tables_resv = bytes;
	return 0;
}

void cz_tables_unreserve(struct cz_engine *e, struct cz_circuit *c)
{
	if (!c->tables_resv)
		return;
	pthread_mutex_lock(&e->lock);
	cz_engine_budget_release_locked(e, c->tables_resv);
	pthread_mutex_unlock(&e->lock);
	c->tables_resv = 0;
}

int cz_tables_build(struct cz_engine *e, struct cz_circuit *c, const struct cz_curve_ops *cv,
		    char *err, size_t cap)
{
	if (!c->tables_resv)
		return 0;
	unsigned threads = tb_threads(e);
	struct tb_run t = { .cv = cv, .key = &c->key };
	uint64_t total = c->tables_bases;
	t.pool = cz_pool_create_named(threads, "cz-tables");
	pthread_t th;
	double t0 = cz_now_ms();
	if (!t.pool || pthread_create(&th, NULL, tb_main, &t)) {
		cz_pool_destroy(t.pool);
		snprintf(err, cap, "%s: cannot start the fixed-base tables' threads", c->path);
		return -1;
	}
	/* progress while it runs (the join below has no bound of its own: the
	 * build is finite work, ~255 doublings per base) */
	int note = cz_witload_note_take(e, c->name, "tables");
	for (int tick = 0; !atomic_load(&t.fin); tick++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (note >= 0 && total) {
			pthread_mutex_lock(&e->lock);
			e->wbuilds[note].pct = (int)(100 * atomic_load(&t.done) / total);
			pthread_mutex_unlock(&e->lock);
		}
		if (tick % 20 == 19 && total)
			fprintf(stderr, "cuzkd: loading %s: fixed-base tables %.0f%% (%llu of %llu bases)\n",
				c->name, 100.0 * (double)atomic_load(&t.done) / (double)total,
				(unsigned long long)atomic_load(&t.done), (unsigned long long)total);
	}
	pthread_join(th, NULL);
	cz_witload_note_free(e, note);
	cz_pool_destroy(t.pool);
	if (t.rc) {
		snprintf(err, cap, "%s: out of memory building its fixed-base tables (%llu bytes, in the "
			 "key's region; --fixed-tables off loads it without)", c->path,
			 (unsigned long long)c->tables_resv);
		return -1;
	}
	c->tables_bytes = cv->key_table_bytes(&c->key);
	c->tables_ms = cz_now_ms() - t0;
	fprintf(stderr, "cuzkd: loading %s: fixed-base tables built in place, %llu bytes in %.1f s on "
		"%u threads\n", c->name, (unsigned long long)c->tables_bytes, c->tables_ms / 1e3, threads);
	return 0;
}

int cz_engine_parse_tables(const char *s, uint64_t *out)
{
	static const char suf[] = "KMGT";
	char *end;

	if (!strcmp(s, "auto") || !strcmp(s, "off")) {
		*out = !strcmp(s, "auto") ? CZ_FIXED_TABLES_AUTO : CZ_FIXED_TABLES_OFF;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	const char *p = *end ? strchr(suf, *end & ~0x20) : NULL;
	if (errno || (*end && (!p || end[1])))
		return -1;
	for (int k = p ? (int)(p - suf) + 1 : 0; k > 0; k--) {
		if (v > (UINT64_MAX - 1) / 1024)
			return -1;
		v *= 1024;
	}
	if (v == CZ_FIXED_TABLES_AUTO)
		return -1;
	*out = v;
	return 0;
}

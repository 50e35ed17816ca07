/* SPDX-License-Identifier: MIT */
/*
 * engine/output.c — a finished job's proofs, written with io_uring:
 *   <state-dir>/proofs/<job>/<k>.proof.json, <k>.public.json, proof.bin
 * Each file is written under a temporary name, fsynced (write and fsync are
 * linked in one submission per file, all files in flight together), then
 * renamed into place and the directory fsynced, so a crash leaves either no
 * file or a whole one, never a partial proof.
 */
#include "engine/engine_pvt.h"
#include "zk/groth16_io.h"
#include "zk/snarkjs_json.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ofile {
	char name[64];
	char *data;
	size_t len;
	int fd;
};

static int render(struct cz_job *j, struct ofile *f)
{
	uint32_t n = j->nparts, npub = j->circ->key.npub;
	char err[CZ_ERRLEN];

	for (unsigned i = 0; i < 2 * n + 1; i++)
		f[i].fd = -1;
	for (uint32_t k = 0; k < n; k++) {
		struct ofile *pf = &f[2 * k], *uf = &f[2 * k + 1];
		struct cz_part *p = &j->parts[k];
		snprintf(pf->name, sizeof(pf->name), "%u.proof.json", k);
		snprintf(uf->name, sizeof(uf->name), "%u.public.json", k);
		pf->data = cz_proof_json_format(&p->proof, err);
		uf->data = cz_public_json_format(p->pub, npub, err);
		if (!pf->data || !uf->data)
			return -ENOMEM;
		pf->len = strlen(pf->data);
		uf->len = strlen(uf->data);
	}
	struct ofile *bf = &f[2 * n];
	snprintf(bf->name, sizeof(bf->name), "proof.bin");
	bf->data = malloc((size_t)n * CZ_PROOF_BIN_BYTES);
	if (!bf->data)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++)
		cz_proof_bin((uint8_t *)bf->data + (size_t)k * CZ_PROOF_BIN_BYTES, &j->parts[k].proof);
	bf->len = (size_t)n * CZ_PROOF_BIN_BYTES;
	return 0;
}

/* Queues write+fsync (linked) for every file, waits for all completions. */
static int write_all(int dfd, struct ofile *f, unsigned nf, char *err, size_t cap)
{
	struct io_uring ring;
	int rc = io_uring_queue_init(2 * nf < 256 ? 2 * nf : 256, &ring, 0);
	if (rc) {
		snprintf(err, cap, "io_uring_queue_init: %s", strerror(-rc));
		return rc;
	}
	unsigned i = 0, inflight = 0;
	while (i < nf || inflight) {
		while (i < nf && io_uring_sq_space_left(&ring) >= 2) {
			struct io_uring_sqe *s = io_uring_get_sqe(&ring);
			io_uring_prep_write(s, f[i].fd, f[i].data, (unsigned)f[i].len, 0);
			io_uring_sqe_set_flags(s, IOSQE_IO_LINK);
			io_uring_sqe_set_data64(s, i);
			s = io_uring_get_sqe(&ring);
			io_uring_prep_fsync(s, f[i].fd, 0);
			io_uring_sqe_set_data64(s, i | (1ull << 63));
			inflight += 2;
			i++;
		}
		io_uring_submit(&ring);
		struct io_uring_cqe *c;
		if ((rc = io_uring_wait_cqe(&ring, &c))) {
			snprintf(err, cap, "io_uring_wait_cqe: %s", strerror(-rc));
			break;
		}
		uint64_t d = io_uring_cqe_get_data64(c);
		unsigned k = (unsigned)(d & ~(1ull << 63));
		bool is_write = !(d >> 63);
		if (c->res < 0 || (is_write && (size_t)c->res != f[k].len)) {
			snprintf(err, cap, "%s %s: %s", is_write ? "write" : "fsync", f[k].name,
				 c->res < 0 ? strerror(-c->res) : "short write");
			rc = c->res < 0 ? c->res : -EIO;
		}
		io_uring_cqe_seen(&ring, c);
		inflight--;
		if (rc)
			break;
	}
	/* On error, drain what is in flight before the buffers go away. */
	while (rc && inflight) {
		struct io_uring_cqe *c;
		if (io_uring_wait_cqe(&ring, &c))
			break;
		io_uring_cqe_seen(&ring, c);
		inflight--;
	}
	io_uring_queue_exit(&ring);
	(void)dfd;
	return rc;
}

int cz_output_write(struct cz_engine *e, struct cz_job *j, char *err, size_t cap)
{
	unsigned nf = 2 * j->nparts + 1;
	struct ofile *f = calloc(nf, sizeof(*f));
	int rc = -ENOMEM, dfd = -1;
	char tmp[96];

	char dir[PATH_MAX + 80];
	snprintf(dir, sizeof(dir), "%s/proofs/%s", e->state_dir, j->id);
	if (!f || render(j, f)) {
		snprintf(err, cap, "out of memory rendering proofs");
		goto out;
	}
	if (mkdir(dir, 0750) && errno != EEXIST) {
		rc = -errno;
		snprintf(err, cap, "mkdir %s: %s", dir, strerror(errno));
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = -errno;
		snprintf(err, cap, "open %s: %s", dir, strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < nf; i++) {
		snprintf(tmp, sizeof(tmp), ".%s.tmp", f[i].name);
		f[i].fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
		if (f[i].fd < 0) {
			rc = -errno;
			snprintf(err, cap, "create %s/%s: %s", dir, tmp, strerror(errno));
			goto out;
		}
	}
	if ((rc = write_all(dfd, f, nf, err, cap)))
		goto out;
	for (unsigned i = 0; i < nf; i++) {
		snprintf(tmp, sizeof(tmp), ".%s.tmp", f[i].name);
		if (renameat(dfd, tmp, dfd, f[i].name)) {
			rc = -errno;
			snprintf(err, cap, "rename %s/%s: %s", dir, f[i].name, strerror(errno));
			goto out;
		}
	}
	if (fsync(dfd)) {
		rc = -errno;
		snprintf(err, cap, "fsync %s: %s", dir, strerror(errno));
	}
out:
	for (unsigned i = 0; f && i < nf; i++) {
		if (f[i].fd >= 0)
			close(f[i].fd);
		if (rc && f[i].fd >= 0) {
			snprintf(tmp, sizeof(tmp), ".%s.tmp", f[i].name);
			unlinkat(dfd, tmp, 0);
		}
		free(f[i].data);
	}
	if (dfd >= 0)
		close(dfd);
	free(f);
	return rc;
}

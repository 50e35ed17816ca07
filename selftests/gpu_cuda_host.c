/* SPDX-License-Identifier: MIT */
/* Description: the cuda backend's host side without a GPU (gpu/cuda_host.h): B2 on the device's persistent threads equals the naive sum, and after warm-up its threads (cz-b2.N, cz-poolN.K) and the proving thread make no heap or mapping call per partition (selftests/shim/heapcount.so). */
#define _GNU_SOURCE     /* pthread_setname_np */
#include "selftests/cz_test.h"

#ifndef CZ_HAVE_CUDA
int main(void)
{
	ct_plan(1);
	ct_skip("built without CUDA (nvcc not found)", "the cuda backend's host side");
	return ct_exit();
}
#else
#include "gpu/cuda_host.h"
#include "zk/builtin.h"
#include "zk/cs.h"
#include "zk/g2.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WARM 3          /* B2s that grow the pool's scratch */
#define MEASURED 20     /* "partitions" counted */

static struct cz_groth16_key key;
static cz_fr *wf;
static cz_scalar *ws;

static int fixtures(void)
{
	struct cz_cs cs;
	char err[256];
	if (cz_builtin_build("merkle", 8, 5, &cs, &wf, err) || cz_groth16_devsetup(&cs, 11, &key, NULL))
		return -1;
	cz_cs_free(&cs);
	ws = calloc(key.nvars, sizeof(*ws));
	if (!ws)
		return -1;
	for (uint32_t i = 0; i < key.nvars; i++)
		cz_fr_from_mont(ws[i].l, &wf[i]);
	return 0;
}

/* The oracle: sum w_i * B2_i by the curve's scalar multiplication. */
static void naive(cz_g2_jac *r)
{
	cz_g2_jac p, t;
	cz_g2_jac_set_inf(r);
	for (uint32_t i = 0; i < key.nvars; i++) {
		cz_g2_jac_from_affine(&p, &key.b2[i]);
		cz_g2_mul(&t, &p, &wf[i]);
		cz_g2_jac_add(r, r, &t);
	}
}

/* ---- the shim's control files (as selftests/e2e_heap.c) ---- */

static int wait_gone(const char *p)
{
	for (int i = 0; i < 2000; i++) {
		if (access(p, F_OK))
			return 0;
		usleep(5000);
	}
	return -1;
}

static int ctl_file(const char *base, const char *suffix)
{
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s%s", base, suffix);
	close(open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	return wait_gone(p);
}

/* The child, under the shim: the host side proves like a device would,
 * the proving thread named as a consumer is. */
static int child(const char *base)
{
	char err[256];
	cz_g2_jac want, got;

	pthread_setname_np(pthread_self(), "cz-cons7.0");
	if (fixtures())
		return 10;
	naive(&want);
	struct cz_cuda_host *h = cz_cuda_host_open(7, 2, err, sizeof(err));
	if (!h)
		return 11;
	int bad = 0;
	for (int i = 0; i < WARM; i++) {
		cz_cuda_host_b2_post(h, &key, ws, &got);
		bad |= cz_cuda_host_b2_wait(h) || !cz_g2_jac_eq(&got, &want);
	}
	if (ctl_file(base, ".arm"))
		return 12;
	for (int i = 0; i < MEASURED; i++) {
		cz_cuda_host_b2_post(h, &key, ws, &got);
		bad |= cz_cuda_host_b2_wait(h) || !cz_g2_jac_eq(&got, &want);
	}
	if (ctl_file(base, ".dump"))
		return 13;
	cz_cuda_host_close(h);
	return bad ? 14 : 0;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], shim[PATH_MAX + 32], dir[] = "/tmp/cuzk-cudahost-XXXXXX", base[PATH_MAX];

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child(argv[2]);
	ct_plan(3);
	if (!realpath(argv[0], self) || !mkdtemp(dir)) {
		ct_ok(0, "set up");
		ct_ok(0, "(not run)");
		ct_ok(0, "(not run)");
		return ct_exit();
	}
	char *selfdir = strdup(self);
	snprintf(shim, sizeof(shim), "%s/heapcount.so", dirname(selfdir));
	free(selfdir);
	snprintf(base, sizeof(base), "%s/count", dir);

	/* In this process, no shim: the threads start, B2 is right, close joins. */
	char err[256];
	cz_g2_jac want, got;
	int ok = !fixtures();
	if (ok)
		naive(&want);
	struct cz_cuda_host *h = ok ? cz_cuda_host_open(3, 2, err, sizeof(err)) : NULL;
	int right = h != NULL;
	for (int i = 0; h && i < 3; i++) {
		cz_cuda_host_b2_post(h, &key, ws, &got);
		right &= !cz_cuda_host_b2_wait(h) && cz_g2_jac_eq(&got, &want);
	}
	ct_ok(right, "B2 on the host side's persistent threads (%u of them) equals the naive sum of %u terms, 3 times",
	      h ? cz_cuda_host_threads(h) : 0, key.nvars);
	cz_cuda_host_close(h);

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* a sanitizer's runtime must be the first library: no shim (as e2e_heap) */
	ct_skip("sanitizer build: the heap counter cannot be preloaded", "heap calls per B2");
	ct_skip("sanitizer build: the heap counter cannot be preloaded", "the counted child ran");
	return ct_exit();
#endif
	if (access(shim, R_OK)) {
		ct_skip("no heapcount.so next to this test (make builds it)", "heap calls per B2");
		ct_skip("no heapcount.so next to this test", "the counted child ran");
		return ct_exit();
	}
	pid_t pid = fork();
	if (pid == 0) {
		setenv("LD_PRELOAD", shim, 1);
		setenv("CZ_HEAPCOUNT", base, 1);
		execl(self, self, "--child", base, (char *)NULL);
		_exit(127);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	ct_ok(rc == 0, "under the shim: %d warm-up and %d measured B2s, each equal to the naive sum (child exit %d)",
	      WARM, MEASURED, rc);
	FILE *f = fopen(base, "r");
	char name[32], line[512];
	unsigned long long calls = 0, n[9];
	int threads = 0, tid;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31s %d %llu %llu %llu %llu %llu %llu %llu %llu %llu", name, &tid, &n[0], &n[1],
			   &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8]) != 11)
			continue;
		if (strncmp(name, "cz-b2.", 6) && strncmp(name, "cz-pool", 7) && strncmp(name, "cz-cons", 7))
			continue;
		threads++;
		for (int i = 0; i < 9; i++)
			calls += n[i];
		ct_diag("%s: malloc %llu calloc %llu realloc %llu free %llu memalign %llu mmap %llu munmap %llu", name,
			n[0], n[1], n[2], n[3], n[4], n[6], n[7]);
	}
	if (f)
		fclose(f);
	ct_ok(rc == 0 && f && calls == 0,
	      "after warm-up the proving thread, cz-b2.7 and cz-pool7.* made %llu heap or mapping calls over %d B2s "
	      "(%d threads reported any)", calls, MEASURED, threads);
	if (!ct_fail) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			ct_diag("could not remove %s", dir);
	}
	cz_groth16_key_free(&key);
	free(wf);
	free(ws);
	return ct_exit();
}
#endif

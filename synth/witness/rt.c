/* SPDX-License-Identifier: MIT */
/*
 * synth/witness/rt.c — the wasm runtime under a translated circuit: what
 * wasm2c's code needs from its host (wasm-rt.h's traps and memories), made
 * per thread.  wabt ships a runtime (wasm-rt-impl.c) whose unwind target,
 * signal stack and type registry are process globals, so two workers
 * trapping at once would jump into each other's frames; this one keeps all
 * of that in the instance.
 *
 * MEMORY.  Each instance reserves 8 GiB PROT_NONE (wasm's 32-bit address
 * plus a 32-bit offset can reach no further) and makes the memory's pages
 * read-write as it grows, so wasm2c's code runs without bounds checks: an
 * access past the memory faults in the reservation and becomes
 * WASM_RT_TRAP_OOB.
 *
 * STACK.  A run executes on the instance's own stack (swapcontext), with a
 * PROT_NONE guard page below it: runaway recursion faults in the guard and
 * becomes WASM_RT_TRAP_EXHAUSTION.  The fault handler runs on the
 * instance's signal stack (sigaltstack, set for the run and restored after).
 *
 * UNWINDING.  run_entry() takes a sigsetjmp on the instance's stack; a trap
 * (wasm_rt_trap from the code, a fault, or the time limit's timer signal)
 * siglongjmps there, and run_entry returns to the caller's context.  Faults
 * not in this thread's running instance go to the handler that was there
 * before (or the default action), so a bug elsewhere still crashes.
 *
 * THE TIME LIMIT.  A POSIX timer (CLOCK_MONOTONIC) sends CZ_WRT_TIMER_SIG to
 * the running thread alone (SIGEV_THREAD_ID); its handler unwinds the run if
 * it is still running and does nothing otherwise.  Unwinding at an arbitrary
 * point is safe because the circuit's state is all in the instance, which
 * the next run resets, and the imports that take locks (the log's stdio)
 * block the signal around them.
 */
#define _GNU_SOURCE
#include "synth/witness/witness_pvt.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WASM_PAGE   65536u
#define RESERVE     (8ull << 30)
#define STACK_SIZE  (8u << 20)   /* a run's stack: deep enough for circom's recursion */
#define SIG_STACK   (64u << 10)

#define CZ_WRT_TIMER_SIG (SIGRTMIN + 7)

__thread struct cz_witness_inst *cz_wrt_cur;

static struct sigaction old_segv, old_bus, old_timer;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int handlers_ok;

static __attribute__((noreturn)) void unwind(struct cz_witness_inst *in, int code)
{
	in->running = 0;
	siglongjmp(in->jb, code);
}

void cz_wrt_throw(struct cz_witness_inst *in, int code)
{
	unwind(in, code);
}

__attribute__((noreturn)) void cz_wrt_trap(wasm_rt_trap_t code)
{
	struct cz_witness_inst *in = cz_wrt_cur;
	if (!in || !in->running)
		abort();        /* a trap outside a run: instantiate's data segments overran */
	unwind(in, (int)code + 1);
}

/* The instance being instantiated takes its memory from its reservation. */
void cz_wrt_mem_alloc(wasm_rt_memory_t *m, uint32_t initial, uint32_t max)
{
	struct cz_witness_inst *in = cz_wrt_cur;
	if (!in || initial > 65535 || (uint64_t)initial * WASM_PAGE > RESERVE / 2 ||
	    (initial && mprotect(in->mem_base, (size_t)initial * WASM_PAGE, PROT_READ | PROT_WRITE)))
		abort();        /* cz_wrt_inst_map checked the sizes before */
	m->data = in->mem_base;
	m->pages = initial;
	m->max_pages = max > 65535 ? 65535 : max;   /* size is 32 bits: 4 GiB - 64 KiB at most */
	m->size = initial * WASM_PAGE;
}

uint32_t cz_wrt_mem_grow(wasm_rt_memory_t *m, uint32_t delta)
{
	uint32_t old = m->pages;
	uint64_t np = (uint64_t)old + delta;
	if (np > m->max_pages)
		return UINT32_MAX;
	if (delta && mprotect(m->data + (size_t)old * WASM_PAGE, (size_t)delta * WASM_PAGE,
			      PROT_READ | PROT_WRITE))
		return UINT32_MAX;
	m->pages = (uint32_t)np;
	m->size = (uint32_t)(np * WASM_PAGE);
	return old;
}

void cz_wrt_mem_free(wasm_rt_memory_t *m)
{
	(void)m;        /* the reservation is the instance's: cz_wrt_inst_unmap */
}

static void chain(int sig, siginfo_t *si, void *uc, const struct sigaction *old)
{
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction) {
			old->sa_sigaction(sig, si, uc);
			return;
		}
	} else if (old->sa_handler == SIG_IGN) {
		return;
	} else if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	/* the default: restore it and return, so the fault repeats and kills */
	signal(sig, SIG_DFL);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct cz_witness_inst *in = cz_wrt_cur;

	if (sig == CZ_WRT_TIMER_SIG) {
		if (in && in->running && si->si_code == SI_TIMER)
			unwind(in, CZ_WTRAP_TIMEOUT);
		return;   /* a late tick after the run: ignore */
	}
	if (in && in->running) {
		uint8_t *a = si->si_addr;
		if (a >= in->mem_base && a < in->mem_base + in->mem_reserve)
			unwind(in, WASM_RT_TRAP_OOB + 1);
		if (a >= in->stk_guard && a < in->stk_guard + in->guard_size)
			unwind(in, WASM_RT_TRAP_EXHAUSTION + 1);
	}
	chain(sig, si, uc, sig == SIGSEGV ? &old_segv : &old_bus);
}

static void install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	handlers_ok = !sigaction(SIGSEGV, &sa, &old_segv) && !sigaction(SIGBUS, &sa, &old_bus) &&
		      !sigaction(CZ_WRT_TIMER_SIG, &sa, &old_timer);
}

int cz_wrt_inst_map(struct cz_witness_inst *in, char *err, size_t cap)
{
	pthread_once(&once, install);
	if (!handlers_ok) {
		snprintf(err, cap, "witness: cannot install the fault handlers: %s", strerror(errno));
		return -1;
	}
	long pg = sysconf(_SC_PAGESIZE);
	in->guard_size = (size_t)pg;
	in->stk_size = STACK_SIZE;
	in->sig_size = SIG_STACK;
	in->mem_reserve = RESERVE;
	in->mem_base = mmap(NULL, RESERVE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			    -1, 0);
	if (in->mem_base == MAP_FAILED) {
		in->mem_base = NULL;
		snprintf(err, cap, "witness: cannot reserve 8 GiB of address space for the wasm "
				   "memory: %s", strerror(errno));
		return -1;
	}
	/* 2 MiB pages where the kernel allows them (transparent huge pages in
	 * "madvise" mode): a run's fresh memory (SHA-256's signals: 15 MB) then
	 * costs a few page faults, not ~4,000.  Advice only: refused, it changes
	 * nothing; the protection is still mprotect's, page by wasm page. */
	(void)madvise(in->mem_base, RESERVE, MADV_HUGEPAGE);
	size_t all = in->guard_size + in->stk_size + in->sig_size;
	uint8_t *s = mmap(NULL, all, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
			  | MAP_STACK, -1, 0);
	if (s == MAP_FAILED || mprotect(s, in->guard_size, PROT_NONE)) {
		if (s != MAP_FAILED)
			munmap(s, all);
		snprintf(err, cap, "witness: cannot map the run's %zu MiB stack: %s",
			 in->stk_size >> 20, strerror(errno));
		munmap(in->mem_base, RESERVE);
		in->mem_base = NULL;
		return -1;
	}
	in->stk_guard = s;
	in->stk = s + in->guard_size;
	in->sig_stk = in->stk + in->stk_size;
	return 0;
}

void cz_wrt_inst_unmap(struct cz_witness_inst *in)
{
	if (in->mem_base)
		munmap(in->mem_base, in->mem_reserve);
	if (in->stk_guard)
		munmap(in->stk_guard, in->guard_size + in->stk_size + in->sig_size);
	in->mem_base = in->stk_guard = in->stk = in->sig_stk = NULL;
}

static __thread void (*cur_fn)(struct cz_witness_inst *);

static void run_entry(void)
{
	struct cz_witness_inst *in = cz_wrt_cur;
	int code = sigsetjmp(in->jb, 1);
	if (!code) {
		in->running = 1;
		cur_fn(in);
		in->running = 0;
		in->trap = 0;
	} else
		in->trap = code;
	/* returns to uc_link: the caller's context */
}

int cz_wrt_run(struct cz_witness_inst *in, void (*fn)(struct cz_witness_inst *), uint64_t timeout_ms)
{
	stack_t ss = { .ss_sp = in->sig_stk, .ss_size = in->sig_size, .ss_flags = 0 }, old_ss;
	timer_t tm = 0;
	volatile int have_timer = 0;

	in->trap = 0;
	if (sigaltstack(&ss, &old_ss)) {
		snprintf(in->err, in->cap, "witness: sigaltstack: %s", strerror(errno));
		return -1;
	}
	cz_wrt_cur = in;
	cur_fn = fn;
	if (getcontext(&in->wasm_ctx))
		abort();
	in->wasm_ctx.uc_stack.ss_sp = in->stk;
	in->wasm_ctx.uc_stack.ss_size = in->stk_size;
	in->wasm_ctx.uc_link = &in->host_ctx;
	makecontext(&in->wasm_ctx, run_entry, 0);
	if (timeout_ms) {
		struct sigevent sev;
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = CZ_WRT_TIMER_SIG;
		sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		struct itimerspec its = { .it_value = { (time_t)(timeout_ms / 1000),
							(long)(timeout_ms % 1000) * 1000000L },
					  .it_interval = { 0, 10 * 1000000L } };  /* again, if it lands
										    between runs' checks */
		if (timer_create(CLOCK_MONOTONIC, &sev, &tm) == 0) {
			have_timer = 1;
			timer_settime(tm, 0, &its, NULL);
		} else {
			snprintf(in->err, in->cap, "witness: timer_create: %s", strerror(errno));
			sigaltstack(&old_ss, NULL);
			cz_wrt_cur = NULL;
			return -1;
		}
	}
	swapcontext(&in->host_ctx, &in->wasm_ctx);
	in->running = 0;
	if (have_timer)
		timer_delete(tm);
	cz_wrt_cur = NULL;
	if (!(old_ss.ss_flags & SS_DISABLE))
		sigaltstack(&old_ss, NULL);
	else {
		stack_t off = { .ss_flags = SS_DISABLE };
		sigaltstack(&off, NULL);
	}
	return in->trap;
}

void cz_wrt_timer_block(int block)
{
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, CZ_WRT_TIMER_SIG);
	pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &m, NULL);
}

const char *cz_wrt_trap_name(int trap)
{
	switch (trap) {
	case WASM_RT_TRAP_OOB + 1: return "out-of-bounds memory access";
	case WASM_RT_TRAP_INT_OVERFLOW + 1: return "integer overflow";
	case WASM_RT_TRAP_DIV_BY_ZERO + 1: return "integer division by zero";
	case WASM_RT_TRAP_INVALID_CONVERSION + 1: return "invalid conversion to integer";
	case WASM_RT_TRAP_UNREACHABLE + 1: return "unreachable executed";
	case WASM_RT_TRAP_CALL_INDIRECT + 1: return "invalid indirect call";
	case WASM_RT_TRAP_UNCAUGHT_EXCEPTION + 1: return "uncaught exception";
	case WASM_RT_TRAP_EXHAUSTION + 1: return "call stack exhausted (recursion too deep)";
	case CZ_WTRAP_TIMEOUT: return "time limit";
	default: return "unknown trap";
	}
}

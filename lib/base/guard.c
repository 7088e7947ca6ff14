// SPDX-License-Identifier: LGPL-2.1 OR MIT
/* SPDX-FileCopyrightText: 2026 The ivring authors */
/*
 * Surviving a segment file that shrinks under the mapping.
 *
 * The segment is a file in /dev/shm that any process with the rights may
 * truncate or re-create at any moment: QEMU restarting, an operator's
 * mistake, a hostile neighbour.  A load from a mapped page past the new end
 * of the file raises SIGBUS, which would kill the reader without a summary,
 * and in a reader that serves many guests, every guest's trace with it.
 *
 * So every call that touches a mapping runs under a guard: a sigsetjmp()
 * point kept in a thread-local stack, with the range it covers.  The
 * SIGBUS handler jumps back to the innermost guard when the fault address
 * lies in its range, and passes every other SIGBUS on to the handler that
 * was there before, or to the default action.
 *
 * A signal handler is the process's, not a library's: it is installed
 * only when the application asks (ivring__sigbus_guard()).  From then on
 * the library stays loaded (RTLD_NODELETE), even once the handler is taken
 * out again: a dlclose() must not leave a handler pointing at unmapped
 * code, in the chain of one installed after ours.
 *
 * The guard saves no signal mask (a sigprocmask per call would cost a
 * system call per event); the handler is installed with SA_NODEFER, so
 * SIGBUS is not left blocked after the jump.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "base/guard.h"

struct guard {
	sigjmp_buf env;
	const u8 *start;
	size_t len;
	struct guard *prev;
};

/*
 * initial-exec: the handler reads it, and a dynamic TLS access could call
 * malloc on a thread's first touch, which a signal handler must not.
 */
static __thread struct guard *guard_top
	__attribute__((tls_model("initial-exec")));
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction prev_action;
static bool installed;		/* ours is in the chain; under install_lock */

/* Whoever handled SIGBUS before us gets every fault that is not ours. */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	if (prev_action.sa_flags & SA_SIGINFO) {
		prev_action.sa_sigaction(sig, si, uc);
		return;
	}
	if (prev_action.sa_handler != SIG_DFL &&
	    prev_action.sa_handler != SIG_IGN) {
		prev_action.sa_handler(sig);
		return;
	}
	if (prev_action.sa_handler == SIG_IGN && si->si_code <= 0)
		return;		/* a sent SIGBUS, and the process ignores those */
	/* The default action, or a fault that cannot be ignored: die of it. */
	signal(SIGBUS, SIG_DFL);
	raise(SIGBUS);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct guard *g = guard_top;
	const u8 *addr = si->si_addr;

	if (g && si->si_code > 0 && addr >= g->start &&
	    addr < g->start + g->len)
		siglongjmp(g->env, 1);
	pass_on(sig, si, uc);
}

/*
 * Weak: a program linked statically against libivring.a has nothing to
 * unload, and would get glibc's link-time warning for dlopen() in a static
 * program; there these are NULL and the pin is not needed.
 */
#pragma weak dladdr
#pragma weak dlopen

/* Keep this library mapped for as long as the process lives. */
static void pin_library(void)
{
	Dl_info info;

	if (dladdr && dlopen && dladdr((void *)on_sigbus, &info) &&
	    info.dli_fname)
		dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static bool ours(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == on_sigbus;
}

/*
 * Once installed, ours stays in the chain until ivr_guard_remove() takes
 * it out: a handler installed after it may pass faults on to it, so
 * putting ours in front of that one again would make the two call each
 * other for ever.  So a second install does nothing.
 */
int ivr_guard_install(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigbus,
		.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK,
	};
	int ret = 0;

	sigemptyset(&sa.sa_mask);
	pthread_mutex_lock(&install_lock);
	if (!installed) {
		pin_library();
		if (sigaction(SIGBUS, &sa, &prev_action))
			ret = -errno;
		else
			installed = true;
	}
	pthread_mutex_unlock(&install_lock);
	return ret;
}

/*
 * Only while ours is the handler: one installed after it took SIGBUS over
 * and may pass faults on to ours, which then stays behind it.
 */
void ivr_guard_remove(void)
{
	struct sigaction cur;

	pthread_mutex_lock(&install_lock);
	if (installed && !sigaction(SIGBUS, NULL, &cur) && ours(&cur) &&
	    !sigaction(SIGBUS, &prev_action, NULL))
		installed = false;
	pthread_mutex_unlock(&install_lock);
}

/*
 * The sigsetjmp() has to be in a frame that outlives the guarded code,
 * hence one function that every guarded call goes through.  The guard is
 * pushed before the sigsetjmp(): nothing in it changes between that and a
 * jump back, so reading it after the jump is well defined.
 */
int ivr_guard_run(const void *start, size_t len, int (*fn)(void *arg),
		  void *arg, bool *faulted)
{
	struct guard g = { .start = start, .len = len, .prev = guard_top };
	int ret;

	*faulted = false;
	guard_top = &g;
	/* The handler must see the new top before any guarded access. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (sigsetjmp(g.env, 0)) {
		*faulted = true;
		ret = -EFBIG;
	} else {
		ret = fn(arg);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_top = g.prev;
	return ret;
}

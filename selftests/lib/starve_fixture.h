/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real-starvation fixture shared by test_starvation.c and
 * test_resilience.c: a SCHED_FIFO victim on the test CPU queued behind a
 * SCHED_FIFO busy loop with RT throttling off; starvd (started by each
 * test) runs at SCHED_FIFO above the busy loop on CPU 0. Include after
 * kselftest_harness.h, once per test program.
 */
#ifndef STARVD_TEST_STARVE_FIXTURE_H
#define STARVD_TEST_STARVE_FIXTURE_H

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cpuset.h"
#include "daemon_proc.h"
#include "sched_attr.h"
#include "util.h"
#include "workload.h"

/*
 * Just below the IRQ threads (50): a kernel thread the loop starves
 * while it holds a lock that CPU 0's IRQ threads wait for is then lifted
 * above the loop by their priority inheritance. At 50, equal to theirs,
 * SCHED_FIFO never preempts the loop: ktimers/1, preempted inside a
 * timer callback, holds the timer expiry lock that a task on CPU 0 waits
 * for with bottom halves disabled, and with them every threaded IRQ of
 * CPU 0, the 9p one among them (docs/kernel-behaviours.md, "The timer
 * expiry lock"). test_rescue keeps its loop at 50.
 */
#define HOG_PRIO	49
#define VICTIM_PRIO	10
#define HOG_MAX_S	25
#define EVENT_MS	8000	/* generous: a hang, not a speed, fails */

FIXTURE(starve) {
	long saved_rt;
	bool rt_changed;
	int cpu;
	pid_t hog;
	pid_t hog2;		/* a second busy loop there, or 0 */
	pid_t bw_holder;	/* holds SCHED_DEADLINE bandwidth, or 0 */
	struct victim v;
	struct daemon_proc *d;
	char line[2048];
};

/*
 * The test CPU's busy loop at @prio, for a test that starts starvd after
 * it: once the CPU is quiet (cpu_wait_quiet()), so that the first starvd
 * finds the test's wait, not kernel work an earlier test left there.
 */
static inline pid_t hog_before_starvd(FIXTURE_DATA(starve) *self, int prio)
{
	cpu_wait_quiet(self->cpu);
	return hog_start(self->cpu, prio, HOG_MAX_S);
}

/* A wait for starvd failed: where it is, @tid (if any), and what is stuck. */
static inline void held_up(pid_t daemon, pid_t tid)
{
	if (daemon) {
		fprintf(stderr, "# starvd:\n");
		task_where(daemon);
	}
	if (tid) {
		fprintf(stderr, "# task %d:\n", (int)tid);
		task_where(tid);
	}
	tasks_held_up();
}

/* What about_to_time_out() shows: the test's starvd and victim. */
static struct daemon_proc *watched_daemon;
static pid_t watched_victim;

/*
 * A few seconds before the harness kills a test that overran: where the
 * test waits (its own frames: addresses for addr2line -e on the test),
 * starvd and the victim, and what is stuck. Not async-signal-safe: it
 * runs once, when the test is about to be killed anyway.
 */
static void about_to_time_out(int sig)
{
	static const char msg[] =
		"# about to time out; where the test waits:\n";
	void *frames[32];
	int n;

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		return;
	n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	held_up(watched_daemon ? watched_daemon->pid : 0, watched_victim);
}

static inline void watch_for_timeout(struct __test_metadata *_metadata,
				     struct daemon_proc *d, pid_t victim)
{
	void *frame;

	if (_metadata->timeout <= 10)
		return;
	watched_daemon = d;
	watched_victim = victim;
	backtrace(&frame, 1);	/* loads libgcc_s now, not in the handler */
	signal(SIGALRM, about_to_time_out);
	alarm(_metadata->timeout - 5);
}

FIXTURE_SETUP(starve)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc",
		.thread_name = "stv-victim",
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	uint64_t t0;

	if (geteuid())
		SKIP(return, "needs root");
	self->cpu = test_cpu();
	if (self->cpu == 0)
		SKIP(return, "needs two CPUs");
	/* What the kernel cannot do (the kselftest config lists them). */
	if (!strcmp(test_backend(), "bpf") &&
	    access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP(return, "the kernel has no BTF (CONFIG_DEBUG_INFO_BTF): the BPF backend cannot load");
	if (!strcmp(test_backend(), "netlink") &&
	    access("/sys/module/starvd", F_OK))
		SKIP(return, "the netlink backend needs the starvd module: modprobe starvd");
	ASSERT_EQ(0, rt_throttle_off(&self->saved_rt));
	self->rt_changed = true;
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);
	spec.cpu = self->cpu;
	ASSERT_EQ(0, victim_start(&spec, &self->v));
	watch_for_timeout(_metadata, self->d, self->v.st->tid);
	self->hog = hog_before_starvd(self, HOG_PRIO);
	ASSERT_LT(0, self->hog);
	t0 = now_ns();
	if (!victim_stuck(&self->v)) {
		char h[128], v[128], how[64] = "running";
		int status;

		task_brief(self->hog, h, sizeof(h));
		task_brief(self->v.st->tid, v, sizeof(v));
		if (waitpid(self->hog, &status, WNOHANG) == self->hog) {
			self->hog = 0;
			if (WIFSIGNALED(status))
				snprintf(how, sizeof(how), "killed by signal %d",
					 WTERMSIG(status));
			else
				snprintf(how, sizeof(how), "exited with %d",
					 WEXITSTATUS(status));
		}
		ASSERT_TRUE(false) TH_LOG("no starvation: busy loop %s (%s); victim %s; victim ran %llu times; the check took %.1f s (2 s if the test itself was not held up)",
					  h, how, v,
					  (unsigned long long)self->v.st->count,
					  (now_ns() - t0) / 1e9);
	}
}

FIXTURE_TEARDOWN(starve)
{
	kill_and_reap(self->hog);
	if (self->hog2 > 0)
		kill_and_reap(self->hog2);
	if (self->bw_holder > 0)
		kill_and_reap(self->bw_holder);
	if (self->rt_changed)
		rt_throttle_restore(self->saved_rt);
	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	victim_stop(&self->v);
	free(self->d);
}

static inline void expect_attr(struct __test_metadata *_metadata, pid_t tid,
			const struct sched_attr *want)
{
	struct sched_attr cur;

	ASSERT_EQ(0, sched_getattr_tid(tid, &cur));
	EXPECT_EQ(want->sched_policy, cur.sched_policy);
	EXPECT_EQ(want->sched_priority, cur.sched_priority);
	EXPECT_EQ(want->sched_nice, cur.sched_nice);
	EXPECT_EQ(want->sched_flags & SCHED_FLAG_RESET_ON_FORK,
		  cur.sched_flags & SCHED_FLAG_RESET_ON_FORK);
}

/*
 * Did starvd say, within @ms, that it emulates the rest of @tid's
 * SCHED_DEADLINE boost with SCHED_FIFO? It does a period in when the
 * kernel does not serve the boost (an overrun under TCG throttles the
 * task for minutes): a boosted task may then be SCHED_FIFO, not
 * SCHED_DEADLINE, by design.
 */
static inline bool said_fifo_emulation(struct daemon_proc *d, pid_t tid,
				       int ms)
{
	const char *what = "SCHED_FIFO emulation for the rest of this boost";
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC;
	char who[32];
	const char *l, *nl;

	snprintf(who, sizeof(who), "starvd: pid %d (", (int)tid);
	for (;;) {
		for (l = strstr(d->err, who); l; l = strstr(l + 1, who)) {
			nl = strchrnul(l, '\n');
			if (memmem(l, nl - l, what, strlen(what)))
				return true;
		}
		if (now_ns() >= end)
			return false;
		daemon_drain(d, 100);
	}
}

/* Start another task on the test CPU: the hog must not spin meanwhile. */
static inline void add_victim(struct __test_metadata *_metadata,
		       FIXTURE_DATA(starve) *self,
		       const struct victim_spec *spec, struct victim *v)
{
	kill_and_reap(self->hog);
	ASSERT_EQ(0, victim_start(spec, v));
	self->hog = hog_before_starvd(self, HOG_PRIO);
	ASSERT_LT(0, self->hog);
}

#define START(...) do { \
	const char *const _args[] = { __VA_ARGS__, NULL }; \
	ASSERT_EQ(0, daemon_start(self->d, _args)); \
} while (0)

/* starvd started: its start-up line. */
#define WAIT_STARTED() do { \
	bool _up = daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS); \
	if (!_up) \
		held_up(self->d->pid, 0); \
	ASSERT_TRUE(_up) \
		TH_LOG("starvd did not start within %d ms; stderr:\n%s", \
		       EVENT_MS, self->d->err); \
} while (0)

/* Or fail, saying what starvd printed and where it is. */
#define WAIT_EVENT(ev, tid) do { \
	int _ret = daemon_wait_event(self->d, ev, tid, EVENT_MS, \
				     self->line, sizeof(self->line)); \
	if (_ret) \
		held_up(self->d->pid, tid); \
	ASSERT_EQ(0, _ret) \
		TH_LOG("no '%s' event for %d; events:\n%sstderr:\n%s", \
		       (ev) ? (ev) : "any", (int)(tid), \
		       daemon_out_tail(self->d, 4096), self->d->err); \
} while (0)

/* SCHED_FIFO @prio busy loops on every CPU but the test CPU (it has one). */
static inline int hog_other_cpus(FIXTURE_DATA(starve) *self, pid_t *hogs,
				 int prio)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < cpus_possible() && n < 64; cpu++) {
		if (cpu == self->cpu || !cpu_online(cpu))
			continue;
		hogs[n] = hog_start(cpu, prio, HOG_MAX_S);
		if (hogs[n] <= 0)
			return -1;
		n++;
	}
	return n;
}

/*
 * Every busy loop, the test CPU's too, before starvd stops: without them
 * its exit (BPF teardown waits for kernel threads) is quick even under
 * emulation, and the test's stop timeout means a hang.
 */
static inline void kill_hogs(FIXTURE_DATA(starve) *self, pid_t *hogs, int n)
{
	while (n-- > 0)
		kill_and_reap(hogs[n]);
	kill_and_reap(self->hog);
	self->hog = 0;
}

/* The test itself must run, to read starvd, above the busy loops. */
static inline void test_above_hogs(struct __test_metadata *_metadata)
{
	struct sched_attr me = fifo_attr(HOG_PRIO + 20);

	ASSERT_EQ(0, sched_setattr_tid(0, &me));
}

#endif

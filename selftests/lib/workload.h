/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Real starvation for the selftests: a SCHED_FIFO busy loop pinned to a
 * CPU and victims queued behind it. Every child dies with the test
 * (PR_SET_PDEATHSIG) and every busy loop ends by itself after a bound.
 */
#ifndef STARVD_TEST_WORKLOAD_H
#define STARVD_TEST_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched_attr.h"

/* Shared with a victim: its tid and progress. */
struct victim_state {
	volatile pid_t tid;
	volatile uint64_t count;	/* loop iterations */
	volatile uint64_t last_run_ns;	/* CLOCK_MONOTONIC before sleeping */
	volatile uint64_t runs[64];	/* the last last_run_ns values */
	volatile int ready;
	/*
	 * Set by the test: the victim's next iteration forks a child that
	 * exits at once, clears it, and leaves fork()'s errno (0: it
	 * worked), the child's pid and its policy as the victim found it
	 * after fork() (-1: no child).
	 */
	volatile int fork_now;
	volatile int fork_errno;
	volatile int child_pid;
	volatile int child_policy;
};

struct victim_spec {
	const char *proc_name;		/* process comm */
	const char *thread_name;	/* comm of the thread that starves */
	int cpu;			/* -1: not pinned */
	struct sched_attr attr;		/* applied to the thread */
	uint64_t sleep_ns;		/* between iterations */
	uint64_t burn_ns;		/* busy each iteration (wall clock) */
};

struct victim {
	pid_t pid;			/* process */
	struct victim_state *st;	/* shared mapping */
};

/* RT throttling off for the test; restored by rt_throttle_restore(). */
int rt_throttle_off(long *saved);
int rt_throttle_restore(long saved);

/* Let the calling task run anywhere but @cpu (if it can run elsewhere). */
void avoid_cpu(int cpu);
/*
 * On PREEMPT_RT, SCHED_OTHER callers become SCHED_FIFO 1 (reset on fork),
 * whose sleeps are hard hrtimers; hog_start() does it to its caller.
 */
void rt_hard_timers(void);
/*
 * SCHED_FIFO @prio busy loop on @cpu for at most @max_s seconds, its pid
 * returned once it is there (-1 if it could not be started). On
 * PREEMPT_RT the caller is moved off @cpu (where it could run elsewhere):
 * there its own sleeps would otherwise wait for the loop to end.
 */
pid_t hog_start(int cpu, int prio, int max_s);
/*
 * Wait for a moment when nothing but the caller's own tasks (its process
 * group) is queued on @cpu: before a busy loop a test starts starvd
 * behind, so that starvd finds the test's wait, not kernel work left
 * there (workload.c says what it held up).
 */
void cpu_wait_quiet(int cpu);
/* A thread looping "count++, sleep" with the given attributes. */
int victim_start(const struct victim_spec *spec, struct victim *v);
/*
 * A victim stopped and continued behind a busy loop: a SCHED_FIFO @prio
 * process on @spec->cpu starts the victim as its child, alone in its
 * process, and sleeps in wait4() until the caller stops it (SIGSTOP to
 * @v->st->tid); then it sends SIGCONT and busy-loops for @max_s seconds.
 * In do_signal_stop() the victim wakes its parent before it blocks; where
 * the kernel preempts at that point (PREEMPT_RT, preempt=full) the parent
 * can take the CPU at once, leaving the victim queued in TASK_STOPPED, and
 * SIGCONT then sets it running without a sched_info stamp (abi.h). It
 * may also block first, as it does elsewhere, and SIGCONT queues it
 * stamped: in the 6.12-rt and 6.1-rt guests it is (not known why;
 * perhaps the parent waits on a lock of the stop the victim holds).
 * Returns the parent's pid (killing it kills the victim); @v->pid is 0.
 */
pid_t stop_hog_start(const struct victim_spec *spec, struct victim *v,
		     int prio, int max_s);
/*
 * Set @to on @tid; out of SCHED_DEADLINE as starvd leaves it, giving the
 * bandwidth back at once. A task that leaves the class in one step, or
 * dies in it, keeps its bandwidth until its 0-lag time, which a boost's
 * overrun puts minutes away; RT throttling toggled meanwhile (the next
 * test's set-up) then breaks the kernel's total until the next root
 * domain rebuild (docs/kernel-behaviours.md), and every later test that
 * turns throttling on fails with EBUSY.
 */
int set_attr_as_starvd_would(pid_t tid, const struct sched_attr *to);
void victim_stop(struct victim *v);
/* When the wait that was going on at @t began (0 if not known). */
uint64_t victim_wait_start(const struct victim *v, uint64_t sleep_ns,
			   uint64_t t);
/* Wait until the victim stops making progress (up to 2 s). */
bool victim_stuck(struct victim *v);
/* Wait up to @ms for the victim to loop past @since; did it? */
bool victim_progressed(struct victim *v, uint64_t since, int ms);
void kill_and_reap(pid_t pid);
/*
 * Let @tid run on every CPU. Whoever must not inherit the test's own
 * affinity (kept off the busy CPU by hog_start()) calls it: a task that
 * is not allowed every CPU is refused SCHED_DEADLINE with EPERM.
 */
int unpin(pid_t tid);
/* Keep @tid to @cpu; @cpu < 0: any CPU, whatever its creator is kept to. */
int pin(pid_t tid, int cpu);
/* One line on @tid for a test's log: state, CPU, policy, priority. */
void task_brief(pid_t tid, char *buf, size_t len);

struct sched_attr fifo_attr(int prio);
struct sched_attr other_attr(int nice);

/*
 * Does the kernel have the fair server (6.12 and later)? Without it,
 * SCHED_OTHER tasks, kernel threads included, really starve behind a busy
 * loop.
 */
bool kernel_has_fair_server(void);

/* Is @word one of the words of the kernel's command line? */
bool kernel_cmdline_has(const char *word);

/* The CPU the tests starve: the last online one. */
int test_cpu(void);

#endif

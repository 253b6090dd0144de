/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SCHED_FIFO emulation of a boost, the policy alone (no I/O,
 * unit-tested): the priority a task is raised to, each period's raise
 * and lower (fifo_emul_step()), and when a raised task is looked at
 * next. Both runners of the emulation drive the same steps: the booster
 * from starvd's own CPUs (boost.c) and the thread on the task's CPU
 * (fifo_worker.h); each only does what a step says (raise, lower, look
 * at the task's CPU time) and sleeps until the next.
 */
#ifndef STARVD_FIFO_POLICY_H
#define STARVD_FIFO_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The wait before the SCHED_FIFO emulation next looks at a raised task,
 * which it lowers once the task has had its @runtime_ns of CPU time.
 * The task has had @ran_ns since it was raised, @prev_ran_ns at the look
 * before, which waited @prev_poll_ns for this one; a look costs
 * @check_ns (the caller's shortest look times the boosts in progress: a
 * single look is stretched by any preemption).
 *
 * While the task runs: the rest of its runtime at the pace it ran since
 * the last look, so that a task that runs slowly (its CPU shared, a
 * virtual CPU run in slices) is not looked at back to back as the rest
 * shrinks. While it does not run (its CPU held above the raised priority,
 * or it is starvd's own): twice the last wait, and at least
 * FIFO_POLL_COST_RATIO times @check_ns, so that the looks take at most
 * about a tenth of starvd's CPU and do not hold a CPU the task needs.
 * Either is capped at FIFO_POLL_MAX_NS, which bounds how far past its
 * runtime a task is lowered, as the tick bounds a SCHED_DEADLINE overrun
 * without HRTICK_DL; never less than the rest of its runtime, nor than
 * @check_ns. 0 once it has had its runtime. docs/design.md, "Boosting",
 * says why.
 */
#define FIFO_POLL_MAX_NS	1000000ULL	/* 1 ms */
#define FIFO_POLL_COST_RATIO	9
uint64_t fifo_poll_ns(uint64_t runtime_ns, uint64_t ran_ns,
		      uint64_t prev_ran_ns, uint64_t prev_poll_ns,
		      uint64_t check_ns);

/*
 * The SCHED_FIFO priority of an emulation boost: one above the holder of
 * the task's CPU (@holder_prio, a kernel prio: below 100 real-time, user
 * priority 99 - prio; 100 and above not real-time; negative: not known,
 * then FIFO_BOOST_MAX_PRIO - 1), above the task's own real-time priority
 * @own (0: none), at most FIFO_BOOST_MAX_PRIO, and below @ceiling (0:
 * none). The ceiling is starvd's own SCHED_FIFO priority when the task is
 * on the only CPU starvd may run on: starvd has to preempt the raised
 * task there to lower it, and one raised above starvd that never blocks
 * would keep starvd, and every boost it runs, off that CPU for good.
 * 0: no priority helps (the ceiling is not above the task's own priority
 * + 1, or the holder's).
 */
#define FIFO_BOOST_MIN_PRIO	1
#define FIFO_BOOST_MAX_PRIO	99
int fifo_boost_prio(int holder_prio, int own, int ceiling);

/*
 * One boost's emulation, period by period: raised at the start of a
 * period, lowered once the task has had @runtime_ns of CPU time since
 * (its schedstat), has blocked (run, then not runnable: a task queued in
 * a sleeping state looks asleep until it has run), or the period is over;
 * no raise at or after @end_ns.
 */
struct fifo_emul {
	uint64_t runtime_ns, period_ns, end_ns;
	uint64_t period_start_ns;
	uint64_t ran_ns;	/* CPU time since the raise, at the last look */
	uint64_t poll_ns;	/* the last look to the next */
	bool raised;
};

enum fifo_act {
	FIFO_ACT_WAIT,		/* nothing to do before *next */
	FIFO_ACT_RAISE,		/* a period begins: raise, fifo_emul_raised() */
	FIFO_ACT_LOWER,		/* its period is over: lower, fifo_emul_lowered() */
	FIFO_ACT_END,		/* the boost is over, the task lowered */
};

/* A boost from @start_ns to @end_ns, not raised yet. */
void fifo_emul_init(struct fifo_emul *e, uint64_t runtime_ns,
		    uint64_t period_ns, uint64_t start_ns, uint64_t end_ns);
/*
 * What to do at @now: the task has had @ran_ns of CPU time since its
 * raise and is @runnable or not; a look costs @check_ns (the runner's:
 * its shortest look, times the boosts it looks at in turn). *next: when
 * to take the next step, whatever is done now.
 */
enum fifo_act fifo_emul_step(struct fifo_emul *e, uint64_t now,
			     uint64_t ran_ns, bool runnable,
			     uint64_t check_ns, uint64_t *next);
/* The task was raised at @now: the first look is after its runtime. */
uint64_t fifo_emul_raised(struct fifo_emul *e, uint64_t now);
/*
 * The task was lowered at @now: the next period starts a period after
 * this one did, or now if that has passed. Returns when it is raised
 * again, or the boost's end if that comes first.
 */
uint64_t fifo_emul_lowered(struct fifo_emul *e, uint64_t now);

#endif

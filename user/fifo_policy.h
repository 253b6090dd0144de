/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SCHED_FIFO emulation of a boost, the policy alone (no I/O,
 * unit-tested): the priority a task is raised to, and when a raised task
 * is looked at next. Both runners of the emulation use it: the booster
 * from starvd's own CPUs (boost.c) and the thread on the task's CPU
 * (fifo_worker.h).
 */
#ifndef STARVD_FIFO_POLICY_H
#define STARVD_FIFO_POLICY_H

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

#endif

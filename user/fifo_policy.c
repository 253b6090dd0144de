// SPDX-License-Identifier: GPL-2.0-or-later
#include "fifo_policy.h"
#include "sched_attr.h"

uint64_t fifo_poll_ns(uint64_t runtime_ns, uint64_t ran_ns,
		      uint64_t prev_ran_ns, uint64_t prev_poll_ns,
		      uint64_t check_ns)
{
	uint64_t rest = ran_ns < runtime_ns ? runtime_ns - ran_ns : 0;
	uint64_t wait;

	if (!rest)
		return 0;
	if (ran_ns > prev_ran_ns) {
		/* The rest, at the pace it ran during the last wait. */
		wait = rest * (double)prev_poll_ns / (ran_ns - prev_ran_ns);
		if (wait > FIFO_POLL_MAX_NS)
			wait = FIFO_POLL_MAX_NS;
	} else {
		wait = prev_poll_ns > FIFO_POLL_MAX_NS / 2 ? FIFO_POLL_MAX_NS :
							     2 * prev_poll_ns;
		/* Waiting for it to run at all: a tenth of starvd's CPU. */
		if (wait < FIFO_POLL_COST_RATIO * check_ns)
			wait = FIFO_POLL_COST_RATIO * check_ns;
	}
	if (wait < rest)
		wait = rest;
	return wait > check_ns ? wait : check_ns;
}

int fifo_boost_prio(int holder_prio, int own, int ceiling)
{
	int prio = FIFO_BOOST_MIN_PRIO, above = 0;

	if (holder_prio >= 0 && holder_prio < MAX_RT_PRIO)
		prio = above = 99 - holder_prio + 1;
	else if (holder_prio < 0)
		prio = FIFO_BOOST_MAX_PRIO - 1;
	/* Never at or below the task's own real-time priority: no boost. */
	if (prio <= own)
		prio = own + 1;
	if (prio > FIFO_BOOST_MAX_PRIO)
		prio = FIFO_BOOST_MAX_PRIO;
	if (ceiling > 0 && prio >= ceiling)
		prio = ceiling - 1;
	return prio > own && prio >= above ? prio : 0;
}

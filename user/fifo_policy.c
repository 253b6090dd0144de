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

void fifo_emul_init(struct fifo_emul *e, uint64_t runtime_ns,
		    uint64_t period_ns, uint64_t start_ns, uint64_t end_ns)
{
	*e = (struct fifo_emul){
		.runtime_ns = runtime_ns, .period_ns = period_ns,
		.end_ns = end_ns, .period_start_ns = start_ns,
		.poll_ns = runtime_ns,
	};
}

/* Lowered: the next raise, or the boost's end if that comes first. */
static uint64_t next_raise(const struct fifo_emul *e)
{
	return e->period_start_ns < e->end_ns ? e->period_start_ns : e->end_ns;
}

uint64_t fifo_emul_raised(struct fifo_emul *e, uint64_t now)
{
	e->raised = true;
	e->ran_ns = 0;
	e->poll_ns = e->runtime_ns;
	return now + e->runtime_ns;
}

uint64_t fifo_emul_lowered(struct fifo_emul *e, uint64_t now)
{
	e->raised = false;
	e->period_start_ns += e->period_ns;
	if (e->period_start_ns < now)
		e->period_start_ns = now;
	return next_raise(e);
}

enum fifo_act fifo_emul_step(struct fifo_emul *e, uint64_t now,
			     uint64_t ran_ns, bool runnable,
			     uint64_t check_ns, uint64_t *next)
{
	uint64_t period_end = e->period_start_ns + e->period_ns;

	if (!e->raised) {
		*next = next_raise(e);
		if (now >= e->end_ns)
			return FIFO_ACT_END;
		return now >= e->period_start_ns ? FIFO_ACT_RAISE :
						   FIFO_ACT_WAIT;
	}
	if (ran_ns >= e->runtime_ns || (ran_ns && !runnable) ||
	    now >= period_end) {
		*next = now;
		return FIFO_ACT_LOWER;
	}
	e->poll_ns = fifo_poll_ns(e->runtime_ns, ran_ns, e->ran_ns,
				  e->poll_ns, check_ns);
	e->ran_ns = ran_ns;
	*next = now + e->poll_ns;
	/* The period's end is a look too: it lowers the task. */
	if (*next > period_end)
		*next = period_end;
	return FIFO_ACT_WAIT;
}

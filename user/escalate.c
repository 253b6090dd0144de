// SPDX-License-Identifier: GPL-2.0-or-later
#include "escalate.h"

struct boost_delta progress_delta(const struct progress_sample *before,
				  const struct progress_sample *after)
{
	struct boost_delta d = { .outcome = OUTCOME_UNKNOWN };

	if (!before->valid || !after->valid ||
	    after->nvcsw < before->nvcsw || after->nivcsw < before->nivcsw ||
	    after->exec_ns < before->exec_ns || after->pcount < before->pcount)
		return d;
	d.switches = (after->nvcsw - before->nvcsw) +
		     (after->nivcsw - before->nivcsw);
	d.ran_ns = after->exec_ns - before->exec_ns;
	d.outcome = after->nvcsw > before->nvcsw ? OUTCOME_PROGRESS :
		    OUTCOME_NO_PROGRESS;
	return d;
}

uint64_t escalate_default_cap(uint64_t base_ns, uint64_t period_ns)
{
	uint64_t cap = period_ns / 20;

	return cap > base_ns ? cap : base_ns;
}

uint64_t escalate_next(const struct escalate_policy *p, uint64_t cur_ns,
		       enum boost_outcome outcome)
{
	uint64_t cap = p->cap_ns > p->base_ns ? p->cap_ns : p->base_ns;

	if (!p->enabled || !cur_ns || outcome == OUTCOME_UNKNOWN)
		return p->base_ns;
	if (cur_ns < p->base_ns)
		cur_ns = p->base_ns;
	if (cur_ns > cap)
		cur_ns = cap;
	if (outcome == OUTCOME_PROGRESS)
		return cur_ns;
	return cur_ns > cap / 2 ? cap : cur_ns * 2;
}

bool escalate_kept_up(uint64_t end_ns, uint64_t now_ns, uint64_t window_ns)
{
	return now_ns >= end_ns && now_ns - end_ns >= window_ns;
}

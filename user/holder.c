// SPDX-License-Identifier: GPL-2.0-or-later
#include <sched.h>
#include <stdio.h>

#include "escape.h"
#include "holder.h"
#include "sched_attr.h"

void format_holder(const struct starvd_task *h, char *buf, size_t len)
{
	int uprio = prio_to_user(h->policy, h->prio);

	if (h->policy == SCHED_FIFO || h->policy == SCHED_RR)
		snprintf(buf, len, "%s-%u, %s %d", esc_name(h->comm), h->tid,
			 policy_name(h->policy), uprio);
	else
		snprintf(buf, len, "%s-%u, %s nice %d", esc_name(h->comm),
			 h->tid, policy_name(h->policy), uprio);
}

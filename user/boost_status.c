// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The booster's part of the status file: booster_status() and
 * booster_status_free() of boost.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boost.h"

/* Each boost in progress, for the status file. */
static int list_boosts(const struct booster *b, struct daemon_status *s)
{
	size_t i;

	s->nr_boosting = b->n;
	s->boosting = calloc(b->n + 1, sizeof(*s->boosting));
	if (!s->boosting)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		const struct boost *bo = &b->v[i];
		struct boost_info *bi = &s->boosting[i];

		*bi = (struct boost_info) {
			.tid = bo->task.tid,
			.cpu = bo->task.cpu,
			.start_ns = boost_began(b, bo),
			.end_ns = bo->end_ns,
		};
		snprintf(bi->policy, sizeof(bi->policy), "%s",
			 bo->fifo ? "SCHED_FIFO" : "SCHED_DEADLINE");
		memcpy(bi->comm, bo->task.comm, sizeof(bi->comm) - 1);
	}
	return 0;
}

int booster_status(const struct booster *b, struct daemon_status *s)
{
	if (list_boosts(b, s))
		return -ENOMEM;
	snprintf(s->boost_mode, sizeof(s->boost_mode), "%s",
		 b->p.force_fifo || b->dl_unavailable ? "fifo" : "deadline");
	s->max_runtime_ns = b->max_runtime_ns;
	escalation_status(&b->esc, s);
	return 0;
}

void booster_status_free(struct daemon_status *s)
{
	free(s->boosting);
	free(s->escalated);
	s->boosting = NULL;
	s->escalated = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The booster's table of escalated tasks: each task whose next boost
 * gets more than -r, as the policy of escalate.h grants it, the line
 * that says so, and its way back to -r once it keeps up. An entry is the
 * task's until it keeps up or its tid is another task's.
 */
#ifndef STARVD_BOOST_ESCALATION_H
#define STARVD_BOOST_ESCALATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "escalate.h"
#include "status_file.h"

/* A task whose next boost gets more than -r (escalate.h). */
struct escalation {
	struct starvd_task task;	/* as its last boost found it */
	uint64_t start_time;		/* task identity, see journal */
	uint64_t runtime_ns;		/* its next boost's runtime */
	uint64_t last_ns;		/* runtime of its last boost */
	uint64_t end_ns;		/* when its last boost ended */
	bool again;			/* boost it again at once */
};

struct escalations {
	struct escalate_policy policy;
	struct escalation *v;		/* tasks at an escalated runtime */
	size_t n, cap;
	uint64_t nr_escalations;	/* granted so far */
};

/*
 * The runtime of the next boost of the task @tid started at @start_time
 * (task_id.h): policy.base_ns (-r), or more for a task whose last boosts
 * did not let it progress.
 */
uint64_t escalation_runtime(struct escalations *t, uint32_t tid,
			    uint64_t start_time);
/*
 * A boost of @task with @runtime_ns begins: one line, and one more
 * escalation counted, if it gets more than the task's last boost.
 */
void escalation_log(struct escalations *t, const struct starvd_task *task,
		    uint64_t runtime_ns, uint64_t period_ns);
/*
 * A boost of @task (started at @start_time) with @runtime_ns ended at
 * @now with @outcome: what its next boost gets, and whether it gets it
 * at once (escalation_take_again()).
 */
void escalation_update(struct escalations *t, const struct starvd_task *task,
		       uint64_t start_time, uint64_t runtime_ns,
		       enum boost_outcome outcome, uint64_t now);

/* Once, true if @tid is to be boosted again at once (boost.h). */
bool escalation_take_again(struct escalations *t, uint32_t tid);
void escalation_again_clear(struct escalations *t);

struct booster;

/* Is a boost of @tid in progress? The booster's answer: boost_active(). */
typedef bool (*escalation_busy_fn)(const struct booster *b, uint32_t tid);

/*
 * Escalated tasks that keep up (escalate_kept_up() within @window_ns)
 * and are not being boosted (@busy) go back to -r, one line each:
 * returns how many did.
 */
int escalation_expire(struct escalations *t, uint64_t window_ns,
		      escalation_busy_fn busy, const struct booster *b,
		      uint64_t now);

/*
 * The escalation fields of the status file (status_file.h): the cap (0
 * when escalation is off), the count and the escalated tasks, none if
 * they cannot be listed. booster_status_free() releases the list.
 */
void escalation_status(const struct escalations *t, struct daemon_status *s);

void escalations_free(struct escalations *t);

#endif

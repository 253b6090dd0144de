// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "boost_escalation.h"
#include "event.h"
#include "util.h"

static struct escalation *escalation_find(const struct escalations *t,
					  uint32_t tid)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].task.tid == tid)
			return &t->v[i];
	return NULL;
}

bool escalation_take_again(struct escalations *t, uint32_t tid)
{
	struct escalation *e = escalation_find(t, tid);

	if (!e || !e->again)
		return false;
	e->again = false;
	return true;
}

void escalation_again_clear(struct escalations *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		t->v[i].again = false;
}

static void escalation_drop(struct escalations *t, struct escalation *e)
{
	*e = t->v[--t->n];
}

uint64_t escalation_runtime(struct escalations *t, uint32_t tid,
			    uint64_t start_time)
{
	struct escalation *e = escalation_find(t, tid);

	if (!e)
		return t->policy.base_ns;
	if (e->start_time != start_time) {	/* the tid was reused */
		escalation_drop(t, e);
		return t->policy.base_ns;
	}
	return e->runtime_ns;
}

void escalation_log(struct escalations *t, const struct starvd_task *task,
		    uint64_t runtime_ns, uint64_t period_ns)
{
	const struct escalation *e = escalation_find(t, task->tid);
	struct event ev = {
		.kind = EVENT_ESCALATE, .task = *task,
	};

	if (!e || runtime_ns <= e->last_ns)
		return;
	t->nr_escalations++;
	ev.escalate.runtime_ns = runtime_ns;
	ev.escalate.previous_ns = e->last_ns;
	ev.escalate.base_ns = t->policy.base_ns;
	ev.escalate.cap_ns = t->policy.cap_ns;
	ev.escalate.period_ns = period_ns;
	event_log(&ev);
}

void escalation_update(struct escalations *t, const struct starvd_task *task,
		       uint64_t start_time, uint64_t runtime_ns,
		       enum boost_outcome outcome, uint64_t now)
{
	struct escalation *e = escalation_find(t, task->tid);
	uint64_t next = escalate_next(&t->policy, runtime_ns, outcome);

	if (next <= t->policy.base_ns) {
		if (e)
			escalation_drop(t, e);
		return;
	}
	if (!e) {
		grow_array((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v));
		e = &t->v[t->n++];
		memset(e, 0, sizeof(*e));
	}
	e->task = *task;
	e->start_time = start_time;
	e->runtime_ns = next;
	e->last_ns = runtime_ns;
	e->end_ns = now;
	/*
	 * Escalated: the task is still behind on its work and its next boost
	 * gets more, so it gets it now, not a threshold later. At the cap
	 * the threshold paces the boosts again.
	 */
	e->again = outcome == OUTCOME_NO_PROGRESS && next > runtime_ns;
}

int escalation_expire(struct escalations *t, uint64_t window_ns,
		      escalation_busy_fn busy, const struct booster *b,
		      uint64_t now)
{
	size_t i = 0;
	int n = 0;

	while (i < t->n) {
		struct escalation *e = &t->v[i];
		struct event ev = {
			.kind = EVENT_DEESCALATE, .task = e->task,
			.deescalate.runtime_ns = t->policy.base_ns,
		};

		if (busy(b, e->task.tid) ||
		    !escalate_kept_up(e->end_ns, now, window_ns)) {
			i++;
			continue;
		}
		event_log(&ev);
		escalation_drop(t, e);
		n++;
	}
	return n;
}

void escalation_status(const struct escalations *t, struct daemon_status *s)
{
	size_t i;

	s->cap_ns = t->policy.enabled ? t->policy.cap_ns : 0;
	s->nr_escalations = t->nr_escalations;
	s->nr_escalated = 0;
	s->escalated = calloc(t->n + 1, sizeof(*s->escalated));
	if (!s->escalated)
		return;
	for (i = 0; i < t->n; i++) {
		const struct escalation *e = &t->v[i];

		s->escalated[i] = (struct escalated_info) {
			.tid = e->task.tid,
			.cpu = e->task.cpu,
			.runtime_ns = e->runtime_ns,
		};
		memcpy(s->escalated[i].comm, e->task.comm,
		       sizeof(s->escalated[i].comm) - 1);
	}
	s->nr_escalated = t->n;
}

void escalations_free(struct escalations *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

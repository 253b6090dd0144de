// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>

#include "boost_debt.h"
#include "escape.h"
#include "log.h"
#include "util.h"

uint64_t dl_state_until(uint64_t start_ns, uint64_t ran_ns,
			uint64_t runtime_ns, uint64_t period_ns)
{
	uint64_t periods;

	if (!runtime_ns || !ran_ns)
		return 0;
	periods = ran_ns / runtime_ns + (ran_ns % runtime_ns != 0);
	return start_ns + periods * period_ns + DL_STATE_SLACK_NS;
}

uint64_t dl_debt_until(uint64_t start_ns, uint64_t end_ns, uint64_t ran_ns,
		       uint64_t runtime_ns, uint64_t period_ns)
{
	uint64_t until = dl_state_until(start_ns, ran_ns, runtime_ns,
					period_ns);

	return until > end_ns + period_ns + DL_STATE_SLACK_NS ? until : 0;
}

uint64_t dl_unserved_until(const struct boost_delta *d, uint64_t now)
{
	if (d->outcome == OUTCOME_UNKNOWN || d->ran_ns || d->switches)
		return 0;
	return now + DL_UNSERVED_NS;
}

struct dl_debt *dl_debt_find(struct dl_debts *t, const struct task_id *id,
			     uint64_t now)
{
	struct dl_debt *found = NULL;
	size_t i = 0;

	while (i < t->n) {
		struct dl_debt *d = &t->v[i];

		if (d->until_ns <= now ||
		    (d->tid == id->tid && d->start_time != id->start_time)) {
			*d = t->v[--t->n];
			continue;
		}
		if (d->tid == id->tid)
			found = d;
		i++;
	}
	return found;
}

void dl_debt_add(struct dl_debts *t, const struct task_id *id,
		 uint64_t until, enum dl_wait why, uint64_t now)
{
	struct dl_debt *d = dl_debt_find(t, id, now);

	if (!d) {
		grow_array((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v));
		d = &t->v[t->n++];
		*d = (struct dl_debt) {
			.tid = id->tid,
			.start_time = id->start_time,
		};
	}
	if (until > d->until_ns) {
		d->until_ns = until;
		d->why = why;
		d->said = false;
	}
}

void dl_debt_note(struct dl_debts *t, const struct task_id *id,
		  uint64_t began_ns, uint64_t runtime_ns, uint64_t period_ns,
		  const struct boost_delta *d, uint64_t now)
{
	uint64_t until = dl_unserved_until(d, now);

	if (until) {
		dl_debt_add(t, id, until, DL_WAIT_UNSERVED, now);
		return;
	}
	until = dl_debt_until(began_ns, now, d->ran_ns, runtime_ns, period_ns);
	if (until) {
		dl_debt_add(t, id, until, DL_WAIT_DEBT, now);
		return;
	}
	until = dl_state_until(began_ns, d->ran_ns, runtime_ns, period_ns);
	if (until > now)
		dl_debt_add(t, id, until, DL_WAIT_STATE, now);
}

bool dl_debt_owed(struct dl_debts *t, const struct task_id *id,
		  const char *comm, uint64_t now)
{
	struct dl_debt *debt = dl_debt_find(t, id, now);

	if (!debt)
		return false;
	if (!debt->said && debt->why == DL_WAIT_UNSERVED)
		log_msg("pid %d (%s) was not run at all during its last SCHED_DEADLINE boost, though runnable (the kernel kept it throttled from an earlier boost): boosting it with SCHED_FIFO emulation for %.0f s",
			id->tid, esc_name(comm),
			(double)(debt->until_ns - now) / NSEC_PER_SEC);
	else if (!debt->said && debt->why == DL_WAIT_DEBT)
		log_msg("pid %d (%s) overran its last SCHED_DEADLINE boost and owes the kernel that time for %.0f s (its deadline moved overrun/runtime periods ahead; HRTICK_DL prevents it): boosting it with SCHED_FIFO emulation until then",
			id->tid, esc_name(comm),
			(double)(debt->until_ns - now) / NSEC_PER_SEC);
	debt->said = true;
	return true;
}

void dl_debts_free(struct dl_debts *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "boost_refusal.h"
#include "escape.h"
#include "log.h"

/* What to do about a refused sched_setattr(), for the log. */
static const char *setattr_hint(int err)
{
	switch (err) {
	case -EBUSY:
		return " (SCHED_DEADLINE admission control: not enough bandwidth left; lower -r/--boost_runtime or raise -p/--boost_period)";
	case -EPERM:
		return " (starvd needs CAP_SYS_NICE; SCHED_DEADLINE also needs the task's affinity to span its root domain while RT throttling is on)";
	case -ERANGE:
		return " (no SCHED_FIFO priority is above both the task's own and the one of the task holding its CPU and, on starvd's only CPU, below starvd's own, where starvd must preempt a raised task to lower it: pin starvd to a housekeeping CPU with -a, or raise its --priority)";
	default:
		return "";
	}
}

unsigned int refusal_bit(int err)
{
	return err == -EPERM ? 1 : err == -EBUSY ? 2 : 4;
}

void log_not_boosted(const struct starvd_task *t, int dl_ret, int ret)
{
	if (dl_ret && dl_ret != ret)
		log_err("cannot boost pid %u (%s): SCHED_DEADLINE: %s, SCHED_FIFO: %s%s",
			t->tid, esc_name(t->comm), strerror(-dl_ret), strerror(-ret),
			setattr_hint(ret));
	else
		log_err("cannot boost pid %u (%s): %s%s", t->tid, esc_name(t->comm),
			strerror(-ret), setattr_hint(ret));
}

void log_deadline_refused(unsigned int *logged, bool dl_unavailable,
			  const struct starvd_task *t, int dl_ret)
{
	if (!dl_ret || dl_unavailable || (*logged & refusal_bit(dl_ret)))
		return;
	log_msg("SCHED_DEADLINE boost of pid %u (%s) refused: %s%s; using SCHED_FIFO emulation for it and for the next ones refused this way",
		t->tid, esc_name(t->comm), strerror(-dl_ret), setattr_hint(dl_ret));
	*logged |= refusal_bit(dl_ret);
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched_attr.h"
#include "util.h"

int sched_getattr_tid(pid_t tid, struct sched_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	if (syscall(SYS_sched_getattr, tid, attr, sizeof(*attr), 0))
		return -errno;
	return 0;
}

int sched_setattr_tid(pid_t tid, const struct sched_attr *attr)
{
	struct sched_attr a = *attr;

	a.size = sizeof(a);
	if (syscall(SYS_sched_setattr, tid, &a, 0))
		return -errno;
	return 0;
}

/*
 * A task leaving SCHED_DEADLINE keeps its bandwidth in its root domain's
 * total until its 0-lag time (the end of its current period after it ran
 * its runtime; further out after an overrun), when the inactive timer
 * takes it off. A root domain rebuild in between recounts the total
 * without the task, and the timer then takes the bandwidth off a total
 * that does not have it: the kernel admits too much, or, the total
 * wrapped below zero, refuses SCHED_DEADLINE admissions, writes of
 * sched_rt_runtime_us and CPU hotplug until the next rebuild. A task
 * that leaves while asleep past its 0-lag time has no timer left to take
 * its bandwidth off: it stays in the total for good, even after the
 * task's exit (docs/kernel-behaviours.md, "DEADLINE bandwidth left
 * behind after a task leaves the class").
 *
 * So the task first gets a reservation below the kernel's bandwidth
 * resolution, 2^-20: the minimum runtime (1 << DL_SCALE ns) of a period
 * just over 2^30 ns, which to_ratio() makes 0 (the shortest such period:
 * a task restored throttled keeps its CBS state for its overrun times
 * period/runtime past its deadline). A change of parameters within the
 * class gives the old bandwidth back at once; the 0-lag timer then has 0
 * to take off. If the kernel refuses the step (a period above
 * kernel.sched_deadline_period_max_us, an affinity that does not span
 * the root domain), the task leaves the class in one step.
 */
#define DL_NO_BW_RUNTIME_NS	(1ULL << 10)
#define DL_NO_BW_PERIOD_NS	((1ULL << 30) + 1)

int sched_setattr_leave_deadline(pid_t tid, const struct sched_attr *cur,
				 const struct sched_attr *to)
{
	struct sched_attr none = *cur;
	int stepped, ret;

	none.sched_runtime = DL_NO_BW_RUNTIME_NS;
	none.sched_deadline = DL_NO_BW_PERIOD_NS;
	none.sched_period = DL_NO_BW_PERIOD_NS;
	stepped = !sched_setattr_tid(tid, &none);
	ret = sched_setattr_tid(tid, to);
	if (ret && stepped)
		sched_setattr_tid(tid, cur);	/* as it was, not halfway */
	return ret;
}

bool sched_attr_same(const struct sched_attr *a, const struct sched_attr *b)
{
	if (a->sched_policy != b->sched_policy ||
	    (a->sched_flags & SCHED_FLAG_RESET_ON_FORK) !=
	    (b->sched_flags & SCHED_FLAG_RESET_ON_FORK))
		return false;
	switch (a->sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return a->sched_priority == b->sched_priority;
	case SCHED_DEADLINE:
		return a->sched_runtime == b->sched_runtime &&
		       a->sched_deadline == b->sched_deadline &&
		       a->sched_period == b->sched_period;
	default:
		return a->sched_nice == b->sched_nice;
	}
}

const char *policy_name(unsigned int policy)
{
	static const char *const names[] = {
		[SCHED_OTHER] = "SCHED_OTHER", [SCHED_FIFO] = "SCHED_FIFO",
		[SCHED_RR] = "SCHED_RR", [SCHED_BATCH] = "SCHED_BATCH",
		[4] = "SCHED_ISO", [SCHED_IDLE] = "SCHED_IDLE",
		[SCHED_DEADLINE] = "SCHED_DEADLINE", [7] = "SCHED_EXT",
	};

	if (policy < ARRAY_SIZE(names) && names[policy])
		return names[policy];
	return "SCHED_UNKNOWN";
}

void format_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct { uint64_t div; const char *unit; } units[] = {
		{ NSEC_PER_SEC, "s" }, { NSEC_PER_MSEC, "ms" },
		{ NSEC_PER_USEC, "us" }, { 1, "ns" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units) - 1; i++)
		if (ns >= units[i].div)
			break;
	if (ns % units[i].div == 0)
		snprintf(buf, len, "%llu%s",
			 (unsigned long long)(ns / units[i].div), units[i].unit);
	else
		snprintf(buf, len, "%.3g%s", (double)ns / units[i].div,
			 units[i].unit);
}

void sched_attr_format(const struct sched_attr *a, char *buf, size_t len)
{
	char rt[32], per[32];

	switch (a->sched_policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		snprintf(buf, len, "%s %u", policy_name(a->sched_policy),
			 a->sched_priority);
		break;
	case SCHED_DEADLINE:
		format_ns(a->sched_runtime, rt, sizeof(rt));
		format_ns(a->sched_period, per, sizeof(per));
		snprintf(buf, len, "SCHED_DEADLINE %s/%s", rt, per);
		break;
	default:
		snprintf(buf, len, "%s nice %d", policy_name(a->sched_policy),
			 a->sched_nice);
	}
}

int prio_to_user(unsigned int policy, int prio)
{
	switch (policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return 99 - prio;	/* MAX_RT_PRIO - 1 - prio */
	case SCHED_DEADLINE:
		return 0;
	default:
		return prio - 120;	/* nice */
	}
}

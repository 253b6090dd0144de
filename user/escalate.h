/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress-aware boosts, the policy alone (no I/O, unit-tested): did a
 * boost let the task get through its work, and what runtime does its next
 * boost get. A task still starving right after a boost that let it make
 * no progress gets twice the runtime next time, up to a cap; it keeps an
 * escalated runtime while it needs boosts to progress, and is back at the
 * configured runtime (-r) once it keeps up without them.
 */
#ifndef STARVD_ESCALATE_H
#define STARVD_ESCALATE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What the kernel says about a task at one moment (/proc/<tid>/schedstat
 * and status). Taken the same way at the start and the end of a boost.
 */
struct progress_sample {
	bool valid;			/* false: the task was gone */
	uint64_t exec_ns;		/* se.sum_exec_runtime */
	uint64_t run_delay_ns;		/* sched_info.run_delay */
	uint64_t pcount;		/* sched_info.pcount: switch-ins */
	uint64_t nvcsw, nivcsw;		/* voluntary, involuntary switches */
};

enum boost_outcome {
	OUTCOME_UNKNOWN,	/* a sample is missing: the task exited */
	OUTCOME_PROGRESS,	/* it ran and blocked: its work got done */
	OUTCOME_NO_PROGRESS,	/* it never got to block */
};

struct boost_delta {
	enum boost_outcome outcome;
	uint64_t switches;	/* context switches during the boost */
	uint64_t ran_ns;	/* CPU time during the boost */
};

/*
 * Compare two samples of the same task. A task made progress when it
 * blocked at least once (a voluntary switch: it went to sleep waiting for
 * more work). Counts only ever grow; if the later sample is missing or
 * smaller (not the same task), the outcome is OUTCOME_UNKNOWN and the
 * counts are 0, never a difference that wraps.
 */
struct boost_delta progress_delta(const struct progress_sample *before,
				  const struct progress_sample *after);

struct escalate_policy {
	bool enabled;		/* false: every boost gets base_ns (stalld) */
	uint64_t base_ns;	/* -r: the first boost's runtime */
	uint64_t cap_ns;	/* never more than this */
};

/*
 * The default cap: 5% of the period (50 ms per 1 s), what the kernel's
 * fair server reserves for starving SCHED_OTHER tasks by default, i.e.
 * the share of an RT task's CPU the kernel itself accepts to give away;
 * never below @base_ns.
 */
uint64_t escalate_default_cap(uint64_t base_ns, uint64_t period_ns);

/*
 * Runtime for the next boost of a task whose last boost, with @cur_ns, had
 * @outcome: doubled (up to the cap) after no progress, kept after progress
 * (the task needed that much), base_ns when escalation is off or the task
 * is unknown (@cur_ns 0).
 */
uint64_t escalate_next(const struct escalate_policy *p, uint64_t cur_ns,
		       enum boost_outcome outcome);

/*
 * Whether a task whose last boost ended at @end_ns keeps up at @now_ns:
 * it was not found starving again within @window_ns (the threshold plus
 * one period: a task that still starves is found again by then). Its
 * next boost then gets base_ns again.
 */
bool escalate_kept_up(uint64_t end_ns, uint64_t now_ns, uint64_t window_ns);

/*
 * A SCHED_DEADLINE task that ran @ran_ns from @start_ns with @runtime_ns
 * per @period_ns has its CBS deadline at least ceil(ran/runtime) periods
 * after the start, and the kernel keeps that state (deadline, remaining
 * runtime, the throttle) after a change of policy until its 0-lag time,
 * no later than that deadline if the task had runtime left. (One
 * restored while throttled, its runtime overrun by r, keeps it r * 2^20
 * past that deadline: the zero-bandwidth step of
 * sched_setattr_leave_deadline(). A boost then is served a period late,
 * or not at all, which dl_unserved_until() catches.) A new
 * SCHED_DEADLINE boost before then is served late or not at all
 * (docs/kernel-behaviours.md, "A task left throttled is not enqueued
 * again"). Returns when that state has expired, with DL_STATE_SLACK_NS
 * for the kernel's own clock read and timer; 0 if the task never ran.
 */
#define DL_STATE_SLACK_NS	10000000ULL	/* 10 ms */
uint64_t dl_state_until(uint64_t start_ns, uint64_t ran_ns,
			uint64_t runtime_ns, uint64_t period_ns);

/*
 * What it ran beyond its runtime (an overrun, e.g. to the next tick
 * without HRTICK_DL) moves that deadline further: a debt of overrun /
 * runtime periods (a 4 ms tick over a 20 us runtime: 200 s). The state's
 * expiry (dl_state_until()) if later than @end_ns plus one period (the
 * usual CBS state at the end of a boost), else 0.
 */
uint64_t dl_debt_until(uint64_t start_ns, uint64_t end_ns, uint64_t ran_ns,
		       uint64_t runtime_ns, uint64_t period_ns);

/*
 * A SCHED_DEADLINE boost after which the task, runnable all along, had
 * not run at all (no CPU time, no context switch): the kernel did not
 * serve it, as it does not a task an earlier boost left throttled
 * (docs/kernel-behaviours.md, "A task left throttled is not enqueued
 * again"). Such a task is boosted with SCHED_FIFO emulation for
 * DL_UNSERVED_NS, then SCHED_DEADLINE is tried again. Returns until
 * when (@now + DL_UNSERVED_NS), or 0 if the boost was served.
 */
#define DL_UNSERVED_NS	60000000000ULL	/* 60 s */
uint64_t dl_unserved_until(const struct boost_delta *d, uint64_t now);

#endif

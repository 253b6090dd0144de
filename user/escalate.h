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

#endif

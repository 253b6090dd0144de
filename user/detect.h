/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Detection: which waiters have crossed the threshold, and when the next
 * one can. A task that starts waiting after a read cannot cross the
 * threshold before read_time + threshold, so sleeping until the earliest
 * start + threshold of the waiters seen misses nothing.
 *
 * Detection also owns "is this task already being handled?" (an open
 * episode, a boost in progress: detect_handled()) and, from that, which
 * task holds a starving task's CPU (detect_holder()).
 */
#ifndef STARVD_DETECT_H
#define STARVD_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "task_list.h"

/*
 * A wait is a task and its context-switch count, from the first read that
 * saw it waiting: while the count stays, the task has not run (switching
 * out is what counts), so it has waited at least since that read. A wait
 * that crosses the threshold is a starvation episode, reported once; once
 * the task has run, a new wait is a new episode.
 */
struct episode {
	uint32_t tid;
	uint32_t gen;
	uint64_t nr_switches;
	uint64_t start_ns;	/* earliest start this wait is known to have */
	uint64_t repeat_ns;	/* report again at this wait; 0: never */
	bool reported;		/* detect_scan() returned it */
	bool warned;		/* returned as one that might starve */
};

struct booster;

/* Is a boost of @tid in progress? The booster's answer: boost_active(). */
typedef bool (*detect_boosting_fn)(const struct booster *b, uint32_t tid);

struct detect {
	uint64_t threshold_ns;
	struct episode *v;	/* sorted by tid between scans */
	size_t n, cap;
	uint32_t gen;
	detect_boosting_fn boosting;	/* NULL: nothing is ever boosted */
	const struct booster *booster;
	uint32_t self_tgid;	/* starvd's own: never a holder, never reported (0: none) */
	/*
	 * A wait this long that has not crossed the threshold yet might
	 * starve (stalld's adaptive mode, at half the threshold); 0: never
	 * said.
	 */
	uint64_t warn_ns;
};

struct detect_result {
	size_t *starving;	/* indexes into the task list */
	size_t n, cap;
	size_t *might;		/* waits that reached warn_ns, once each */
	size_t n_might, cap_might;
	uint64_t next_wake_ns;	/* earliest possible next crossing */
};

/* @boosting(@booster, tid) says which tasks are being boosted. */
void detect_init(struct detect *d, uint64_t threshold_ns,
		 detect_boosting_fn boosting, const struct booster *booster);
void detect_free(struct detect *d);
void detect_result_free(struct detect_result *r);

/*
 * Is @tid already being handled, by a boost in progress? Such a task is
 * not found starving, not named as a holder and not boosted again: the
 * one answer detection, holder choice and the daemon's loop use. (Its
 * other half, an open episode, keeps detect_scan() from returning a task
 * twice for one wait.)
 */
bool detect_handled(const struct detect *d, uint32_t tid);

/*
 * Find the waiters of @l that have waited at least the threshold and are
 * not handled already (being boosted, or part of an episode already
 * returned), record them as episodes, and compute the next wake-up.
 * Waits of tasks that ran or vanished are forgotten.
 *
 * A waiter whose source flags STARVD_TASK_WAIT_LOWER_BOUND (it did not
 * see the wait start: include/starvd/abi.h) gets in @l the longest wait
 * the reads so far prove, from the first that saw it waiting with the
 * same switch count; it keeps the flag, its wait being still a bound.
 */
void detect_scan(struct detect *d, struct task_list *l,
		 struct detect_result *r);
/*
 * With warn_ns set, detect_scan() also returns in might[] each wait that
 * reached it without crossing the threshold, once a wait, and wakes for
 * it too.
 */

/*
 * What keeps @t off its CPU in read @l: the highest-priority other task
 * running there or waiting since after @t (kernel prio: lower is higher),
 * one running on a tie; never a task being boosted, nor starvd, nor, for
 * a real-time @t, a fair task. NULL when there is none, or @t's CPU is
 * not among @nr_cpus.
 */
const struct starvd_task *detect_holder(const struct detect *d,
					const struct task_list *l,
					int nr_cpus,
					const struct starvd_task *t);

/*
 * Is starvd itself what keeps @t off its CPU in read @l: no other task
 * holds it (@holder, detect_holder()'s answer, is NULL) and one of
 * starvd's own threads runs there? Its wait is starvd's doing (its
 * start-up on a CPU it watches, say), and boosted with no holder known,
 * @t would be raised above every task, starvd too, on a CPU starvd needs.
 */
bool detect_held_by_self(const struct detect *d, const struct task_list *l,
			 const struct starvd_task *t,
			 const struct starvd_task *holder);

/*
 * Forget that @tid's wait was reported, keeping what the reads proved of
 * it: once its boost ends, a task that is still waiting (the boost did not
 * let it run) is starving again and is reported again.
 */
void detect_forget(struct detect *d, uint32_t tid);

/*
 * Report @tid's episode again once it has waited @wait_ns, if it is still
 * the same wait then (stalld's -l reports a task every threshold for as
 * long as it waits). Only for a task detect_scan() just returned.
 */
void detect_repeat(struct detect *d, uint32_t tid, uint64_t wait_ns);

#endif

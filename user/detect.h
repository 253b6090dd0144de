/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Detection: which waiters have crossed the threshold, and when the next
 * one can. A task that starts waiting after a read cannot cross the
 * threshold before read_time + threshold, so sleeping until the earliest
 * start + threshold of the waiters seen misses nothing.
 */
#ifndef STARVD_DETECT_H
#define STARVD_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/*
 * A starvation episode is a task and its context-switch count: the same
 * episode is reported once; once the task has run, a new wait is a new
 * episode.
 */
struct episode {
	uint32_t tid;
	uint64_t nr_switches;
	uint32_t gen;
	uint64_t repeat_ns;	/* report again at this wait; 0: never */
};

struct detect {
	uint64_t threshold_ns;
	struct episode *v;
	size_t n, cap;
	uint32_t gen;
};

/* Tasks the scan must leave alone (being boosted). */
typedef bool (*detect_skip_fn)(void *ctx, uint32_t tid);

struct detect_result {
	size_t *starving;	/* indexes into the task list */
	size_t n, cap;
	uint64_t next_wake_ns;	/* earliest possible next crossing */
};

void detect_init(struct detect *d, uint64_t threshold_ns);
void detect_free(struct detect *d);
void detect_result_free(struct detect_result *r);

/*
 * Find the waiters of @l that have waited at least the threshold and are
 * not part of an episode already returned, record them as episodes, and
 * compute the next wake-up. Episodes of tasks that ran or vanished are
 * forgotten.
 */
void detect_scan(struct detect *d, const struct task_list *l,
		 detect_skip_fn skip, void *ctx, struct detect_result *r);

/*
 * Forget @tid's episode: once its boost ends, a task that is still waiting
 * (the boost did not let it run) is starving again and is reported again.
 */
void detect_forget(struct detect *d, uint32_t tid);

/*
 * Report @tid's episode again once it has waited @wait_ns, if it is still
 * the same wait then (stalld's -l reports a task every threshold for as
 * long as it waits). Only for a task detect_scan() just returned.
 */
void detect_repeat(struct detect *d, uint32_t tid, uint64_t wait_ns);

#endif

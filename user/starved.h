/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What starved lately, for the status file: the task of each starving
 * report as its report read it (status_file.h's struct task_what), kept
 * by tid for the last STARVED_KEPT tasks reported. From it a boost in
 * progress shows what its task is, each CPU its last starving task, and
 * an episode (one wait of one task) is counted once, however often it is
 * reported (-l reports a wait again at every granularity).
 */
#ifndef STARVD_STARVED_H
#define STARVD_STARVED_H

#include <stdbool.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "status_file.h"

#define STARVED_KEPT	64

struct starved_task {
	uint32_t tid;		/* 0: a free slot */
	uint64_t seen_ns;	/* the read time of its last report */
	struct task_what what;
};

struct starved {
	struct starved_task v[STARVED_KEPT];
	unsigned int next;	/* the slot a task not kept takes */
};

/*
 * A report of @t, read at @read_time_ns, found to be @w: kept, and in
 * @st (@t's CPU's) its last starving task and, if the wait is one no
 * report showed yet, an episode of @w's kind. A wait is new when it
 * began at or after the task's last report: it ran in between.
 */
void starved_report(struct starved *s, struct cpu_stats *st,
		    const struct starvd_task *t, uint64_t read_time_ns,
		    const struct task_what *w);

/*
 * Is @t's wait, read at @read_time_ns, one no report showed yet (the
 * first report of an episode)? As starved_report() counts episodes.
 */
bool starved_is_new(const struct starved *s, const struct starvd_task *t,
		    uint64_t read_time_ns);

/* What the last report of @tid found, NULL if it is not kept. */
const struct task_what *starved_find(const struct starved *s, uint32_t tid);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The records of one read (waiters and the tasks holding the CPUs), and
 * what they say per CPU: written once here for starvd's holder choice and
 * starvctl cpus alike.
 */
#ifndef STARVD_TASK_LIST_H
#define STARVD_TASK_LIST_H

#include <stddef.h>
#include <stdint.h>

#include <starvd/abi.h>

/* One read: waiters and the tasks holding the CPUs. */
struct task_list {
	uint64_t read_time_ns;	/* CLOCK_MONOTONIC; wait_ns refers to it */
	struct starvd_task *v;
	size_t n, cap;
};

void task_list_add(struct task_list *l, const struct starvd_task *t);
void task_list_free(struct task_list *l);

/*
 * Per-CPU summary of @l into @cpus (@nr_cpus entries, indexed by CPU):
 * the number of waiters, the longest wait and the task on the CPU
 * (curr.tid 0: none seen; of two running during a switch, the one of
 * higher priority). The counters are left 0.
 */
void task_list_cpus(const struct task_list *l, struct starvd_cpu *cpus,
		    int nr_cpus);

#endif

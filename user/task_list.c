// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "task_list.h"
#include "util.h"

void task_list_add(struct task_list *l, const struct starvd_task *t)
{
	grow_array((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = *t;
}

void task_list_free(struct task_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void task_list_cpus(const struct task_list *l, struct starvd_cpu *cpus,
		    int nr_cpus)
{
	size_t i;
	int c;

	memset(cpus, 0, nr_cpus * sizeof(*cpus));
	for (c = 0; c < nr_cpus; c++)
		cpus[c].cpu = c;
	for (i = 0; i < l->n; i++) {
		const struct starvd_task *t = &l->v[i];
		struct starvd_cpu *cpu;

		if (t->cpu < 0 || t->cpu >= nr_cpus)
			continue;
		cpu = &cpus[t->cpu];
		/*
		 * A task being switched out is still running until the
		 * switch ends: of two, the one of higher priority holds the
		 * CPU, as detect_holder() has it.
		 */
		if (t->state == STARVD_TASK_RUNNING) {
			if (!cpu->curr.tid || t->prio <= cpu->curr.prio)
				cpu->curr = *t;
			continue;
		}
		cpu->nr_waiters++;
		if (t->wait_ns > cpu->max_wait_ns)
			cpu->max_wait_ns = t->wait_ns;
	}
}

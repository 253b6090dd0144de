/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * starvctl advise: from the episodes starvd kept (episodes.h), the
 * configuration changes that would have prevented them, each with its
 * evidence (how many episodes, on which CPUs, when, which tasks) and
 * the way to apply it: a shell command, runnable as printed, for what
 * can change at run time, the kernel parameter for what needs a boot.
 * Where nothing but a boost serves the work (per-CPU work that cannot
 * move) it says so. docs/advise.md gives the kernel documentation each
 * change rests on.
 *
 * Everything printed as a command is made of numbers, CPU lists and
 * fixed words, or of a systemd unit's name when it holds nothing a
 * shell would read as syntax: names come from tasks and cgroups that
 * whoever runs them chose.
 */
#ifndef STARVD_ADVISE_H
#define STARVD_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cpuset.h"

#define ADVISE_MAX_EPISODES	4096
#define ADVISE_MAX_CHANGES	64
#define ADVISE_TASKS		3	/* task names shown per change */

struct advise_episode {
	uint32_t tid;
	int cpu;
	uint64_t wait_start_ns;
	long long unix_time;
	char kind[24];			/* task_role_name(), "user" */
	int irq;			/* -1: not an IRQ's thread */
	char actions[128];
	char comm[64];			/* escaped, as reported */
	char cgroup[512];		/* escaped; "" none */
	int holder_prio;		/* user priority; -1 unknown */
};

struct advise_change {
	const char *change;		/* "move_irq", "offload_rcu", ... */
	char title[1024];
	struct cpuset cpus;		/* where it starved */
	unsigned int episodes;
	long long first, last;		/* unix time */
	char tasks[ADVISE_TASKS][64];
	int irq;			/* move_irq: its number, else -1 */
	char actions[128];		/* move_irq: the IRQ's, escaped */
	char cgroup[512];		/* move_user_task: escaped, "" root */
	char command[512];		/* run-time change; "" none */
	char boot[640];			/* kernel parameters; "" none */
	char note[768];
	const char *docs;
};

struct advise {
	struct advise_episode *ep;
	size_t n, skipped;		/* skipped: lines not understood */
	struct advise_change changes[ADVISE_MAX_CHANGES];
	size_t nr_changes;
	struct cpuset busy;		/* CPUs with an episode */
	char housekeeping[256];		/* online CPUs without one; "" none */
};

int advise_init(struct advise *a);
void advise_free(struct advise *a);
/*
 * Add one line of the episodes file; repeated reports of an episode
 * (same tid and wait start) count once. Returns 0, or 1 if the line is
 * not a starving event (counted in @a->skipped).
 */
int advise_add_line(struct advise *a, const char *line);
/* The changes, from the episodes added and the CPUs online now. */
void advise_build(struct advise *a, const struct cpuset *online);
void advise_print_text(const struct advise *a, FILE *f);
void advise_print_json(const struct advise *a, FILE *f);

#endif

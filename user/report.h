/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Starvation reports: who waited, where, for how long, behind whom. */
#ifndef STARVD_REPORT_H
#define STARVD_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <starvd/abi.h>

struct episodes;

/*
 * Keep each starving report's event in @e too (episodes.h), for
 * starvctl advise; NULL: nowhere. A failed write is said once, and ends
 * the keeping.
 */
void report_keep_episodes(struct episodes *e);

struct task_what;

/*
 * "comm-tid starved on CPU n for s seconds (...)", stalld's wording first.
 * @holder may be NULL (unknown). @log_only marks a report without boost.
 * @what gets what the report read of @t: its kind ("unknown" if it is
 * gone), an IRQ thread's IRQ, its cgroup (for the status file). For a
 * kworker or ksoftirqd, @b reads what it waits to run (pending.h); NULL:
 * not read (a report of a wait already reported).
 */
void report_starving(struct backend *b, const struct starvd_task *t,
		     uint64_t read_time_ns, const struct starvd_task *holder,
		     bool log_only, bool kstack, struct task_what *what);

/*
 * stalld's line for a starving task an ignore list matches (it is never
 * boosted): "Ignoring the thread COMM from consideration for boosting",
 * with " (spawned by PCOMM)" after COMM when @pcomm (-I) matched.
 */
void report_ignored(const struct starvd_task *t, const char *pcomm);

struct backend;
struct task_list;
struct cpuset;

/*
 * -v: what stalld prints on each check, in its words, once per read:
 * "CPU N has M waiting tasks" for each monitored CPU with waiters, "cpu N
 * had idle time! skipping next phase" for each without (stalld's per-CPU
 * line), and "all CPUs had idle time, skipping parse" when none has
 * (its line when it finds no busy CPU), else "some cpus ran, so
 * run-queues should be parsed". @cpus NULL: all.
 */
void report_check(const struct task_list *l, int nr_cpus,
		  const struct cpuset *cpus);

/*
 * stalld's adaptive mode's line for a task that has waited half the
 * threshold: "COMM-TID might starve on CPU N (waiting for S seconds)".
 */
void report_might_starve(const struct starvd_task *t);

struct config;

/* Where the kernel's fair server (a DL server) shows in debugfs. */
#define DL_SERVER_DIR "/sys/kernel/debug/sched/fair_server"

/*
 * The start-up lines: starvd's own (version, backend, CPUs, threshold,
 * boost), then stalld's, in its words, for what starvd does alike: the
 * backend (-b), "idle detection disabled" (-N), each CPU of -c (with -v)
 * and of -a, the fair server, the boost policy (unless -l), and "single
 * threaded mode" (starvd always is).
 */
void report_start(const struct config *cfg, const struct backend *b);

#endif

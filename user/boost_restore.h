/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Putting a boosted task back to the attributes it had, and only that
 * task, only if its attributes are still the boost's: at the end of a
 * boost, and at start-up or with --restore for what a killed starvd left
 * boosted. For that each boost is in the journal (journal.h) before its
 * task is changed, as HRTICK_DL is (hrtick.h).
 */
#ifndef STARVD_BOOST_RESTORE_H
#define STARVD_BOOST_RESTORE_H

#include <sys/types.h>

#include <starvd/abi.h>

#include "journal.h"
#include "sched_attr.h"
#include "task_id.h"

/*
 * Journal the boost of @task (@id) from @saved to @applied, before any
 * change of its policy: a crash never loses a boost. 0, also without a
 * journal (@j NULL), or -errno, logged: the boost is not to be applied.
 */
int journal_boost(struct journal *j, const struct starvd_task *task,
		  const struct task_id *id, const struct sched_attr *saved,
		  const struct sched_attr *applied);

/*
 * Put the task of @id back to @saved if it still has @applied (or is
 * already at @saved). Logs what it did; used by the boosts and by journal
 * recovery. -ESRCH, quietly, if it has exited (even if not yet reaped) or
 * exits meanwhile, its tid reused or not (task_id.h; a task that reused
 * it during the change is put back, and said so); -EBUSY if someone else
 * changed it.
 */
int restore_task(const struct task_id *id, const char *comm,
		 const struct sched_attr *saved,
		 const struct sched_attr *applied, const char *why);

/*
 * Put back what a killed starvd left boosted: the tasks its journal @j
 * lists, then HRTICK_DL (journaled in @run_dir). Start-up and --restore.
 */
void boost_recover(struct journal *j, const char *run_dir);

/* A change of @tid's task that went to a task that reused its tid. */
void log_reused(pid_t tid, const char *comm);
/* Its attributes are neither ours nor its own: someone else's now. */
void log_changed(pid_t tid, const char *comm);

#endif

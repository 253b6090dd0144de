// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "boost_restore.h"
#include "escape.h"
#include "hrtick.h"
#include "log.h"
#include "proc.h"

void log_reused(pid_t tid, const char *comm)
{
	log_msg("pid %d (%s) exited while starvd changed its scheduling attributes, and another task took its pid: that task is back to its own attributes",
		tid, esc_name(comm));
}

void log_changed(pid_t tid, const char *comm)
{
	log_msg("pid %d (%s) was changed by someone else during the boost: leaving it as it is",
		tid, esc_name(comm));
}

int journal_boost(struct journal *j, const struct starvd_task *task,
		  const struct task_id *id, const struct sched_attr *saved,
		  const struct sched_attr *applied)
{
	struct journal_entry e;
	int ret;

	if (!j)
		return 0;
	memset(&e, 0, sizeof(e));
	e.tid = task->tid;
	e.start_time = id->start_time;
	memcpy(e.comm, task->comm, sizeof(e.comm) - 1);
	e.saved = *saved;
	e.applied = *applied;
	ret = journal_add(j, &e);
	if (ret)
		log_err("cannot journal the boost of pid %u (%s): %s; not boosting",
			task->tid, esc_name(task->comm), strerror(-ret));
	return ret;
}

int restore_task(const struct task_id *id, const char *comm,
		 const struct sched_attr *saved,
		 const struct sched_attr *applied, const char *why)
{
	pid_t tid = id->tid;
	char to[64];
	int ret;

	ret = task_id_put_back(id, applied, saved);
	switch (ret) {
	case 0:
		break;
	case 1:
		return 0;	/* back already */
	case -ESRCH:
		return ret;
	case -ESTALE:
		log_reused(tid, comm);
		return -ESRCH;
	case -EBUSY:
		log_changed(tid, comm);
		return ret;
	default:
		log_err("cannot restore pid %d (%s): %s", tid, esc_name(comm),
			strerror(-ret));
		return ret;
	}
	if (why) {
		sched_attr_format(saved, to, sizeof(to));
		log_msg("restored pid %d (%s) to %s (%s)", tid, esc_name(comm), to, why);
	}
	return 0;
}

/* A boost a killed starvd journaled: its task back, if it is the same. */
static void restore_journaled(const struct journal_entry *e)
{
	struct task_id id;
	int ret;

	/* Journaled by a starvd that boosted tasks of unknown identity. */
	if (!e->start_time) {
		log_msg("pid %d (%s) from the boost journal has no start time: it cannot be told from a task that reused its pid, so it is left as it is (check it with \"chrt -p %d\")",
			e->tid, esc_name(e->comm), e->tid);
		return;
	}
	task_id_of(&id, e->tid, e->start_time);
	ret = restore_task(&id, e->comm, &e->saved, &e->applied,
			   "left boosted by a previous starvd");
	if (ret == -ESRCH)
		log_msg("pid %d (%s) from the boost journal is gone", e->tid,
			esc_name(e->comm));
}

void boost_recover(struct journal *j, const char *run_dir)
{
	if (!journal_recover(j, restore_journaled))
		hrtick_recover(run_dir);
}

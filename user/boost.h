/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boosting: a starving task gets SCHED_DEADLINE runtime/period for the
 * boost duration (or SCHED_FIFO raised for runtime every period, as an
 * emulation), then exactly the attributes sched_getattr() returned before.
 * Boosts of several tasks run concurrently, driven by the daemon's loop.
 * What a boost leaves for the next one of its task is kept in the tables
 * of boost_debt.h and boost_escalation.h; boost_restore.h puts a task
 * back, also after a crash.
 */
#ifndef STARVD_BOOST_H
#define STARVD_BOOST_H

#include <stdbool.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "boost_debt.h"
#include "boost_escalation.h"
#include "boost_restore.h"
#include "escalate.h"
#include "fifo_policy.h"
#include "fifo_worker.h"
#include "hrtick.h"
#include "journal.h"
#include "sched_attr.h"
#include "status_file.h"
#include "task_id.h"

struct boost {
	struct starvd_task task;
	struct task_id id;		/* every change goes through it */
	struct sched_attr saved;	/* restored at the end */
	struct sched_attr applied;	/* SCHED_DEADLINE or SCHED_FIFO */
	bool fifo;			/* emulation */
	/* fifo: run on the task's CPU (fifo_worker.h); NULL: from here */
	struct fifo_worker *worker;
	bool unjournaled;		/* the journal failed: not applied */
	bool restore_pending;		/* refused: tried again at next_ns */
	uint64_t retry_ns;		/* then the wait before the next try */
	int holder_prio;		/* for a switch to the emulation */
	uint64_t check_ns;		/* deadline: when it must have run */
	struct fifo_emul emul;		/* fifo, run from here: its periods */
	uint64_t exec_at_raise_ns;	/* fifo: CPU time when raised */
	uint64_t next_ns;		/* next state change */
	uint64_t end_ns;
	uint64_t runtime_ns;		/* this boost's: -r or escalated */
	struct progress_sample before;	/* at the start, see escalate.h */
};

struct boost_params {
	uint64_t runtime_ns, period_ns, duration_ns;
	bool force_fifo;
	bool no_escalation;		/* every boost gets runtime_ns */
	uint64_t threshold_ns;		/* for "keeps up", see escalate.h */
	const char *run_dir;		/* HRTICK_DL journal; NULL: none */
};

struct booster {
	struct boost_params p;
	struct journal *journal;	/* NULL: no journal */
	struct boost *v;
	size_t n, cap;
	bool dl_unavailable;		/* kernel refused SCHED_DEADLINE */
	unsigned int dl_refusals_logged;	/* EPERM 1, EBUSY 2, other 4 */
	uint64_t nr_boosts, nr_failures;
	struct escalations esc;
	uint64_t max_runtime_ns;	/* granted so far */
	struct hrtick hrtick;
	struct dl_debts debts;
	bool stopping;			/* in boost_stop_all() */
	struct fifo_pool pool;		/* the emulation's threads */
	bool worker_refused;		/* said once */
	uint64_t check_min_ns;		/* shortest emulation check, 0: none */
};

/* When @bo began: every boost lasts -d. */
static inline uint64_t boost_began(const struct booster *b,
				   const struct boost *bo)
{
	return bo->end_ns - b->p.duration_ns;
}

void booster_init(struct booster *b, const struct boost_params *p,
		  struct journal *j);
void booster_free(struct booster *b);

/*
 * Boost @t. @holder_prio is the kernel prio of the task holding the CPU
 * (or -1): a FIFO emulation must run above it. 0 on success, -errno if the
 * task could not be boosted (already logged).
 */
int boost_start(struct booster *b, const struct starvd_task *t,
		int holder_prio, uint64_t now);
bool boost_active(const struct booster *b, uint32_t tid);
/*
 * Apply every state change due at @now; returns how many boosts ended
 * and escalated tasks went back to -r (the state changed).
 */
int boost_run(struct booster *b, uint64_t now);
/*
 * When boost_run() has work next; UINT64_MAX if nothing is boosted. It
 * also has work when boost_poll_fd() is readable (boost_poll_ack()
 * empties it): an emulation run on its task's CPU has ended.
 */
uint64_t boost_next_event(const struct booster *b);
int boost_poll_fd(const struct booster *b);
void boost_poll_ack(struct booster *b);
/*
 * Whether @tid, found waiting right after a boost that let it make no
 * progress, is to be boosted again at once with its escalated runtime
 * rather than after another threshold (its wait restarted when the boost
 * let it run). True once per such boost. The caller asks first whether
 * @tid is being boosted already (detect_handled()).
 */
bool boost_take_again(struct booster *b, uint32_t tid);
/* After each read: a task not waiting then is not boosted at once later. */
void boost_again_clear(struct booster *b);
/*
 * The booster's part of the status file (status_file.h): the boosts in
 * progress, the boost mode (deadline or fifo) and the escalation fields.
 * -ENOMEM when the boosts cannot be listed; else 0, and
 * booster_status_free() releases what it allocated in @s.
 */
int booster_status(const struct booster *b, struct daemon_status *s);
void booster_status_free(struct daemon_status *s);
/*
 * Restore every boosted task now (shutdown, out of memory). Grows no
 * array: it keeps no escalation or debt for the tasks it restores.
 */
void boost_stop_all(struct booster *b);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a SCHED_DEADLINE boost leaves behind in the kernel, and the
 * booster's table of the tasks that owe it: until when a task's boosts
 * use the SCHED_FIFO emulation rather than SCHED_DEADLINE, which would
 * give it nothing. The arithmetic has no I/O (unit-tested); the table
 * keeps one entry per task, forgotten once expired or once its tid is
 * another task's.
 */
#ifndef STARVD_BOOST_DEBT_H
#define STARVD_BOOST_DEBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "escalate.h"
#include "task_id.h"

/*
 * A SCHED_DEADLINE task that ran @ran_ns from @start_ns with @runtime_ns
 * per @period_ns has its CBS deadline at least ceil(ran/runtime) periods
 * after the start, and the kernel keeps that state (deadline, remaining
 * runtime, the throttle) after a change of policy until its 0-lag time,
 * no later than that deadline if the task had runtime left. (One
 * restored while throttled, its runtime overrun by r, keeps it r * 2^20
 * past that deadline: the zero-bandwidth step of
 * sched_setattr_leave_deadline(). A boost then is served a period late,
 * or not at all, which dl_unserved_until() catches.) A new
 * SCHED_DEADLINE boost before then is served late or not at all
 * (docs/kernel-behaviours.md, "A task left throttled is not enqueued
 * again"). Returns when that state has expired, with DL_STATE_SLACK_NS
 * for the kernel's own clock read and timer; 0 if the task never ran.
 */
#define DL_STATE_SLACK_NS	10000000ULL	/* 10 ms */
uint64_t dl_state_until(uint64_t start_ns, uint64_t ran_ns,
			uint64_t runtime_ns, uint64_t period_ns);

/*
 * What it ran beyond its runtime (an overrun, e.g. to the next tick
 * without HRTICK_DL) moves that deadline further: a debt of overrun /
 * runtime periods (a 4 ms tick over a 20 us runtime: 200 s). The state's
 * expiry (dl_state_until()) if later than @end_ns plus one period (the
 * usual CBS state at the end of a boost), else 0.
 */
uint64_t dl_debt_until(uint64_t start_ns, uint64_t end_ns, uint64_t ran_ns,
		       uint64_t runtime_ns, uint64_t period_ns);

/*
 * A SCHED_DEADLINE boost after which the task, runnable all along, had
 * not run at all (no CPU time, no context switch): the kernel did not
 * serve it, as it does not a task an earlier boost left throttled
 * (docs/kernel-behaviours.md, "A task left throttled is not enqueued
 * again"). Such a task is boosted with SCHED_FIFO emulation for
 * DL_UNSERVED_NS, then SCHED_DEADLINE is tried again. Returns until
 * when (@now + DL_UNSERVED_NS), or 0 if the boost was served.
 */
#define DL_UNSERVED_NS	60000000000ULL	/* 60 s */
uint64_t dl_unserved_until(const struct boost_delta *d, uint64_t now);

/*
 * Why a task's boosts use the SCHED_FIFO emulation until a given time
 * rather than SCHED_DEADLINE: the CBS state of its last boost has not
 * expired (said nowhere: routine for a task starving again within a
 * period or two), it overran that boost and owes the kernel the time (a
 * debt of up to hundreds of seconds), or the kernel did not run it at
 * all during a boost.
 */
enum dl_wait {
	DL_WAIT_STATE,
	DL_WAIT_DEBT,
	DL_WAIT_UNSERVED,
};

struct dl_debt {
	pid_t tid;
	uint64_t start_time;		/* task identity */
	uint64_t until_ns;
	enum dl_wait why;
	bool said;			/* logged */
};

struct dl_debts {
	struct dl_debt *v;
	size_t n, cap;
};

/*
 * The debt of the task @id (task_id.h), or NULL. Forgets, on the way,
 * every debt expired at @now and one of @id's tid that another task had.
 */
struct dl_debt *dl_debt_find(struct dl_debts *t, const struct task_id *id,
			     uint64_t now);
/* That task uses the emulation until @until (if later than recorded). */
void dl_debt_add(struct dl_debts *t, const struct task_id *id,
		 uint64_t until, enum dl_wait why, uint64_t now);
/*
 * After a SCHED_DEADLINE boost of @id, begun at @began_ns with
 * @runtime_ns per @period_ns, that ran as @d says until @now: until when
 * its CBS state lasts (longer if it overran), or, if the kernel did not
 * run it at all, when to try again.
 */
void dl_debt_note(struct dl_debts *t, const struct task_id *id,
		  uint64_t began_ns, uint64_t runtime_ns, uint64_t period_ns,
		  const struct boost_delta *d, uint64_t now);
/*
 * Whether @id owes the kernel a boost's time at @now: then its boost is
 * the emulation, and the first boost of an overrun or unserved task
 * says why (@comm: its name).
 */
bool dl_debt_owed(struct dl_debts *t, const struct task_id *id,
		  const char *comm, uint64_t now);
void dl_debts_free(struct dl_debts *t);

#endif

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Boosting: a starving task gets SCHED_DEADLINE runtime/period for the
 * boost duration (or SCHED_FIFO raised for runtime every period, as an
 * emulation), then exactly the attributes sched_getattr() returned before.
 * Boosts of several tasks run concurrently, driven by the daemon's loop.
 */
#ifndef STARVD_BOOST_H
#define STARVD_BOOST_H

#include <stdbool.h>
#include <stdint.h>

#include <starvd/abi.h>

#include "journal.h"
#include "sched_attr.h"

struct boost {
	struct starvd_task task;
	uint64_t start_time;		/* task identity, see journal */
	struct sched_attr saved;	/* restored at the end */
	struct sched_attr applied;	/* SCHED_DEADLINE or SCHED_FIFO */
	bool fifo;			/* emulation */
	bool raised;			/* fifo: currently SCHED_FIFO */
	bool unjournaled;		/* the journal failed: not applied */
	uint64_t period_start_ns;	/* fifo: start of current period */
	uint64_t exec_at_raise_ns;	/* fifo: CPU time when raised */
	uint64_t next_ns;		/* next state change */
	uint64_t end_ns;
	uint64_t switches_before;
};

struct boost_params {
	uint64_t runtime_ns, period_ns, duration_ns;
	bool force_fifo;
};

struct booster {
	struct boost_params p;
	struct journal *journal;	/* NULL: no journal */
	struct boost *v;
	size_t n, cap;
	bool dl_unavailable;		/* kernel refused SCHED_DEADLINE */
	unsigned int dl_refusals_logged;	/* EPERM 1, EBUSY 2, other 4 */
	uint64_t nr_boosts, nr_failures;
};

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
/* Apply every state change due at @now; returns how many boosts ended. */
int boost_run(struct booster *b, uint64_t now);
/* When boost_run() has work next; UINT64_MAX if nothing is boosted. */
uint64_t boost_next_event(const struct booster *b);
/* Restore every boosted task now (shutdown). */
void boost_stop_all(struct booster *b);

/*
 * Put a task back to @saved if it still has @applied (or is already at
 * @saved). Logs what it did; used by the boosts and by journal recovery.
 */
int restore_task(pid_t tid, const char *comm, uint64_t start_time,
		 const struct sched_attr *saved,
		 const struct sched_attr *applied, const char *why);

#endif

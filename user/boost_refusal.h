/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A boost the kernel refused, in the log: what each refusal of
 * sched_setattr() means and what to do about it, one line for a task
 * neither policy could boost, and a refused SCHED_DEADLINE boost said
 * once per reason while the emulation boosts the task instead.
 */
#ifndef STARVD_BOOST_REFUSAL_H
#define STARVD_BOOST_REFUSAL_H

#include <stdbool.h>

#include <starvd/abi.h>

/* The bit of @err in a mask of refusals said: EPERM 1, EBUSY 2, other 4. */
unsigned int refusal_bit(int err);
/* Neither policy could be applied: one line for both attempts. */
void log_not_boosted(const struct starvd_task *t, int dl_ret, int ret);
/*
 * Said once per reason, in @logged (EBUSY: again after a boost that
 * worked), and not once SCHED_DEADLINE is @dl_unavailable.
 */
void log_deadline_refused(unsigned int *logged, bool dl_unavailable,
			  const struct starvd_task *t, int dl_ret);

#endif

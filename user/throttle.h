/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RT throttling (kernel.sched_rt_runtime_us), handled as stalld does:
 * without -S starvd turns it off at start-up and puts back the value it
 * found when it exits; with -S the service must have turned it off; with
 * -l it is left alone. Beyond stalld, the value found is saved in
 * <run-dir>/rt_runtime_us.saved before it is changed, so that a starvd
 * killed with SIGKILL leaves it to "starvd --restore" (the unit's
 * ExecStopPost) or to the next starvd.
 */
#ifndef STARVD_THROTTLE_H
#define STARVD_THROTTLE_H

#include <stdbool.h>

#include "run_dir.h"	/* RT_SAVED_FILE */

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"
/* What "--rt-throttling on" sets with nothing saved: the kernel's default. */
#define RT_RUNTIME_DEFAULT_US 950000L

struct config;

/* Current sched_rt_runtime_us (-1: throttling off); -errno on error. */
int rt_runtime_read(long *us);

/*
 * Save the value found (a saved value is kept while throttling is still
 * off: a killed starvd left it) and turn RT throttling off; logs what it
 * changed. 0 or -errno (logged).
 */
int rt_throttling_off(const char *run_dir);

/*
 * Put back the value rt_throttling_off() saved, unless someone changed
 * sched_rt_runtime_us since (then it is left alone, saying so); logs what
 * it did. Nothing saved: 0, nothing done, or with @dflt other than
 * RT_SAVED_ONLY, @dflt set (for "--rt-throttling on").
 */
#define RT_SAVED_ONLY (-2L)
int rt_throttling_restore(const char *run_dir, long dflt);

/*
 * The daemon's start-up policy (above). 0: go on, *owned set when the
 * daemon must call rt_throttling_restore() at exit; -1: refuse (logged).
 */
int rt_throttling_start(const struct config *cfg, bool *owned);

/* --rt-throttling off|on|show: stalld's throttlectl. Exit status. */
int rt_throttling_command(const struct config *cfg);

#endif

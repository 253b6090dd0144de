/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * HRTICK_DL: without it the kernel throttles a SCHED_DEADLINE task that
 * used up its runtime only at the next scheduler tick, so a 20 us boost
 * can run a whole tick (1 to 10 ms) and take that from the CPU's owner.
 * starvd turns the scheduler feature on while it boosts (debugfs
 * sched/features) and puts the previous state back when the last boost
 * ends, on exit and with --restore: the state to put back is journaled
 * in <run-dir>/hrtick_dl before the feature is changed, so a killed
 * starvd's change is undone like its boosts.
 */
#ifndef STARVD_HRTICK_H
#define STARVD_HRTICK_H

#include <stdbool.h>

#include "run_dir.h"	/* HRTICK_JOURNAL */

/* debugfs sched/features since 5.13; sched_features before. */
#define SCHED_FEATURES_PATH	"/sys/kernel/debug/sched/features"
#define SCHED_FEATURES_PATH_OLD	"/sys/kernel/debug/sched_features"
/* Logged once when starvd cannot turn the feature on (bench reads it). */
#define HRTICK_OUT_OF_REACH	"the HRTICK_DL scheduler feature is out of reach"
#define HRTICK_CANNOT		"cannot turn on HRTICK_DL"

enum hrtick_state {
	HRTICK_UNAVAILABLE,	/* cannot be changed: said once at start-up */
	HRTICK_ALREADY_ON,	/* on before starvd: left alone */
	HRTICK_OFF,		/* off, starvd turns it on while boosting */
	HRTICK_ON_BY_US,	/* on because starvd is boosting */
};

struct hrtick {
	enum hrtick_state state;
	char journal[4096];
};

/*
 * Find out what can be done (say so once if nothing: lockdown, no
 * debugfs) and whether it already is on. @run_dir holds the journal.
 */
void hrtick_init(struct hrtick *h, const char *run_dir);
/* A boost starts / the last boost ended. */
void hrtick_boosting(struct hrtick *h, bool boosting);
/*
 * Put back the state a previous starvd journaled (it was killed while
 * boosting); start-up and --restore. Logs what it did.
 */
void hrtick_recover(const char *run_dir);

/* Is the feature named @feat on in a sched/features line? -1: absent. */
int sched_feature_on(const char *features, const char *feat);

#endif

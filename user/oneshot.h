/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * starvd's one-shot modes, which change something once and exit:
 * --restore (what a killed starvd left boosted, and RT throttling as it
 * found it) and --rt-throttling off|on|show (stalld's throttlectl); and
 * the check of the run directory and pidfile every mode makes before it
 * acts on them as root (run_dir.h).
 */
#ifndef STARVD_ONESHOT_H
#define STARVD_ONESHOT_H

#include "options.h"

/*
 * What starvd acts on as root, checked before it acts on any: the
 * pidfile, the run directory and what it reads back from it. 0, or
 * -errno after saying what is wrong.
 */
int run_files_check(const struct config *cfg);
/*
 * Every mode that acts on tasks or reports them (the daemon, --restore)
 * runs in the host's pid namespace: the ids the kernel reports and the
 * boost journal holds name other tasks, or none, in any other. 0, or -1
 * after saying what to do.
 */
int pid_ns_check(const struct config *cfg);
/* --restore: the exit status; @cfg is freed. */
int oneshot_restore(struct config *cfg);
/* --rt-throttling: the exit status; @cfg is freed. */
int oneshot_rt_throttling(struct config *cfg);

#endif

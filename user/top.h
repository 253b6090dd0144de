/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * starvctl top: the per-CPU waits and starvd's boosts, live, full screen
 * (ncurses), refreshed every --delay seconds; with --once, or when
 * standard output is not a terminal, the same table printed once.
 */
#ifndef STARVD_TOP_H
#define STARVD_TOP_H

#include "starvctl_args.h"

/* Exit status: 0 (q, SIGINT, SIGTERM), 1 nothing could be read at all. */
int cmd_top(const struct ctl *c);

#endif

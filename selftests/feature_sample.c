// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * feature_sample: a scheduler feature as the kernel has it, seen from
 * outside starvd (guest-escalate.sh: HRTICK_DL while starvd boosts).
 * Every 200 ms, until killed, it appends FEATURE, NO_FEATURE or "none"
 * (the kernel has no such feature) to LOGFILE, read from FEATURES (the
 * debugfs sched features file). Pinned to CPU, at SCHED_FIFO 1: on
 * PREEMPT_RT the sleep of a real-time task is a hard hrtimer, where a
 * shell's read -t timeout is served by ktimers/N, which can wait for a
 * lock whose holder the busy loop starves: a shell loop stops sampling
 * for the rest of the busy loop. Put LOGFILE on tmpfs: nothing here may
 * touch the 9p root while the loop runs.
 *
 * Usage: feature_sample -c CPU FEATURE FEATURES LOGFILE
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "lib/workload.h"
#include "hrtick.h"
#include "sched_attr.h"
#include "util.h"

int main(int argc, char **argv)
{
	struct sched_attr fifo = fifo_attr(1);
	struct timespec nap = { .tv_nsec = 200 * 1000 * 1000 };
	char features[4096], line[128];
	const char *feat;
	int fd, on, ret;

	if (argc != 6 || strcmp(argv[1], "-c")) {
		fprintf(stderr, "usage: feature_sample -c CPU FEATURE FEATURES LOGFILE\n");
		return 2;
	}
	feat = argv[3];
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ret = pin(0, atoi(argv[2]));
	if (ret) {
		fprintf(stderr, "feature_sample: cannot pin itself to CPU %s: %s\n",
			argv[2], strerror(-ret));
		return 1;
	}
	ret = sched_setattr_tid(0, &fifo);
	if (ret)
		fprintf(stderr, "feature_sample: SCHED_FIFO 1: %s (sampling anyway)\n",
			strerror(-ret));
	fd = open(argv[5], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("feature_sample: LOGFILE");
		return 1;
	}
	for (;;) {
		on = read_line(argv[4], features, sizeof(features)) ? -1 :
		     sched_feature_on(features, feat);
		snprintf(line, sizeof(line), "%s%s\n", on == 0 ? "NO_" : "",
			 on < 0 ? "none" : feat);
		if (write(fd, line, strlen(line)) < 0)
			return 1;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
	}
}

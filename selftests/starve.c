// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starve: create a real starvation for demos and benchmarks. A victim
 * (SCHED_FIFO 10, runs every 10 ms) is queued behind a SCHED_FIFO 50 busy
 * loop on the same CPU; every second it prints how often the victim ran.
 * RT throttling must be off (the caller's job). Everything it starts ends
 * with it, and the busy loop ends by itself after --seconds.
 *
 * Usage: starve [-c CPU] [-s SECONDS]
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "lib/workload.h"
#include "util.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct victim_spec spec = {
		.proc_name = "stv-victim",
		.thread_name = "stv-victim",
		.attr = fifo_attr(10),
		.sleep_ns = 10 * NSEC_PER_MSEC,
	};
	int cpu = test_cpu(), seconds = 20, opt, s, st;
	struct timespec ts;
	struct victim v;
	uint64_t last;
	pid_t hog;

	while ((opt = getopt(argc, argv, "c:s:")) != -1) {
		if (opt == 'c')
			cpu = atoi(optarg);
		else if (opt == 's')
			seconds = atoi(optarg);
		else
			return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	spec.cpu = cpu;
	if (victim_start(&spec, &v)) {
		fprintf(stderr, "starve: cannot start the victim\n");
		return 1;
	}
	/*
	 * Ended by the kill below, so that "busy loop over" is when it
	 * was: its own bound (later) is only for a starve that dies.
	 */
	hog = hog_start(cpu, 50, seconds + 10);
	/* "from": once the busy loop owns the CPU (the victim is stuck). */
	victim_stuck(&v);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	printf("starve: victim stv-victim tid %d (SCHED_FIFO 10) behind busy loop stv-hog pid %d (SCHED_FIFO 50) on CPU %d, from boot time %lld.%09ld\n",
	       v.st->tid, hog, cpu, (long long)ts.tv_sec, ts.tv_nsec);
	fflush(stdout);
	last = v.st->count;
	for (s = 1; s <= seconds && !stop; s++) {
		sleep(1);
		if (hog > 0 && waitpid(hog, &st, WNOHANG) == hog) {
			/* Never silently: a starvation without its busy loop. */
			if (WIFSIGNALED(st))
				printf("starve: the busy loop exited early: killed by signal %d\n",
				       WTERMSIG(st));
			else
				printf("starve: the busy loop exited early: status %d\n",
				       WEXITSTATUS(st));
			hog = 0;
		}
		printf("starve: t=%2ds victim ran %4llu times in the last second%s\n",
		       s, (unsigned long long)(v.st->count - last),
		       v.st->count == last ? " (starving)" : "");
		fflush(stdout);
		last = v.st->count;
	}
	/*
	 * "over": the last moment the busy loop surely owned the CPU, read
	 * before it is killed. Read after, it would let a task that ran
	 * the instant the loop died count as done during it (a 9p lookup
	 * that waits the whole 20 s of guest-escalate.sh's case without a
	 * daemon).
	 */
	clock_gettime(CLOCK_BOOTTIME, &ts);
	kill_and_reap(hog);
	printf("starve: busy loop over at boot time %lld.%09ld\n",
	       (long long)ts.tv_sec, ts.tv_nsec);
	victim_stop(&v);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * heartbeat: a witness that the machine is alive, from outside starvd.
 * A SCHED_FIFO 99 thread pinned to one CPU wakes every 100 ms (absolute
 * CLOCK_MONOTONIC deadlines) and stores its beat count, the time of the
 * beat and the longest gap between two beats in a small file (meant for
 * /dev/shm: tmpfs, so writing it never waits for I/O or for a kernel
 * thread). Memory is locked, nothing is printed while it runs: on a CPU
 * whose IRQ threads starve, the console and 9p would block the witness.
 *
 * Usage: heartbeat [-c CPU] -o FILE -s SECONDS
 * The file holds one line: "BEATS LAST_NS MAX_GAP_NS" (CLOCK_MONOTONIC).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sched_attr.h"
#include "util.h"

#define BEAT_NS		(100 * NSEC_PER_MSEC)

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 99 };
	uint64_t beats = 0, last, now, gap, max_gap = 0;
	int cpu = 0, seconds = 0, opt, fd, n;
	const char *path = NULL;
	struct timespec next;
	cpu_set_t set;
	char buf[96];

	while ((opt = getopt(argc, argv, "c:o:s:")) != -1) {
		if (opt == 'c')
			cpu = atoi(optarg);
		else if (opt == 'o')
			path = optarg;
		else if (opt == 's')
			seconds = atoi(optarg);
		else
			return 2;
	}
	if (!path || seconds <= 0) {
		fprintf(stderr, "usage: heartbeat [-c CPU] -o FILE -s SECONDS\n");
		return 2;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "heartbeat: %s: %s\n", path, strerror(errno));
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* Priority first, then the CPU (VM-TESTING.md: the other order
	 * can queue us behind a busy loop there). */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) ||
	    sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "heartbeat: cannot run at SCHED_FIFO 99 on CPU %d: %s\n",
			cpu, strerror(errno));
		return 1;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "heartbeat: mlockall: %s (going on)\n",
			strerror(errno));
	last = now_ns();
	next.tv_sec = last / NSEC_PER_SEC;
	next.tv_nsec = last % NSEC_PER_SEC;
	while (beats < (uint64_t)seconds * (NSEC_PER_SEC / BEAT_NS)) {
		next.tv_nsec += BEAT_NS;
		if (next.tv_nsec >= (long)NSEC_PER_SEC) {
			next.tv_nsec -= NSEC_PER_SEC;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		now = now_ns();
		gap = now - last;
		if (gap > max_gap)
			max_gap = gap;
		last = now;
		beats++;
		n = snprintf(buf, sizeof(buf), "%llu %llu %llu\n",
			     (unsigned long long)beats,
			     (unsigned long long)now,
			     (unsigned long long)max_gap);
		if (pwrite(fd, buf, n, 0) != n || ftruncate(fd, n))
			return 1;
	}
	close(fd);
	return 0;
}

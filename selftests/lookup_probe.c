// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lookup_probe: work the rest of the machine waits for (does a boost
 * restore it?). Pinned
 * to a CPU as SCHED_OTHER, it stat()s a new name in DIR every 100 ms and
 * appends "END DURATION" (CLOCK_BOOTTIME ns when it completed, how long
 * it took) to LOGFILE after each lookup. Put LOGFILE on tmpfs (/dev/shm):
 * the reader counts the lookups that completed while a busy loop ran
 * (selftests/starve.c prints when it ran, in the same clock) without
 * touching the 9p root. On a 9p root
 * each lookup is a virtio request completed by the device's IRQ thread:
 * when that thread starves on another CPU, the count stops.
 *
 * Usage: lookup_probe -c CPU -s SECONDS DIR LOGFILE
 */
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int cpu = 0, seconds = 60, opt, fd;
	unsigned long long n = 0;
	char name[4096], num[64];
	uint64_t t0, t1;
	cpu_set_t set;
	uint64_t end;
	struct stat st;

	while ((opt = getopt(argc, argv, "c:s:")) != -1) {
		if (opt == 'c')
			cpu = atoi(optarg);
		else if (opt == 's')
			seconds = atoi(optarg);
		else
			return 2;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: lookup_probe -c CPU -s SECONDS DIR LOGFILE\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("lookup_probe: sched_setaffinity");
		return 1;
	}
	fd = open(argv[optind + 1],
		  O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror("lookup_probe: LOGFILE");
		return 1;
	}
	end = now_ns() + seconds * NSEC_PER_SEC;
	while (now_ns() < end) {
		snprintf(name, sizeof(name), "%s/.stv-probe-%d-%llu",
			 argv[optind], (int)getpid(), n);
		t0 = boottime_ns();
		stat(name, &st);	/* ENOENT: the answer came back */
		t1 = boottime_ns();
		n++;
		snprintf(num, sizeof(num), "%llu %llu\n",
			 (unsigned long long)t1, (unsigned long long)(t1 - t0));
		if (write(fd, num, strlen(num)) < 0)
			return 1;
		usleep(100000);
	}
	close(fd);
	return 0;
}

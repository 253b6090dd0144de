// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stallwatch: who is stuck, seen from outside the tests and starvd.
 * A SCHED_FIFO 98 process on one CPU (memory locked: it must not wait for
 * the kernel threads the tests starve) scans every task of the machine
 * each 250 ms and, once per stall, writes to FILE the tasks that have been
 * blocked in D state (on PREEMPT_RT also a wait for a sleeping spinlock)
 * anywhere, or runnable on its own CPU without running for longer than the
 * threshold, with their kernel stacks; next to them the tasks runnable on
 * the other CPUs that did not run either (a lock's owner among them), and
 * what each CPU was running meanwhile. A test that
 * finds itself held up (a "no starvation" fixture start, a command that
 * times out) is explained by this file: the lock, the kernel thread and
 * the CPU it waits for. It prints nothing while it runs (the console may
 * be what starves) and ends after SECONDS, or with its parent.
 * With -l, each report also copies ITER, a pinned task iterator that
 * names the owner of every lock a task waits for (bpf/lockwait.bpf.c).
 *
 * Usage: stallwatch [-c CPU] [-t THRESHOLD_MS] [-l ITER] -o FILE -s SECONDS
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "sched_attr.h"
#include "util.h"

#define SCAN_NS		(250 * NSEC_PER_MSEC)
#define SLOTS		8192	/* tasks tracked, open addressing */

struct slot {
	int tid;		/* 0: free */
	unsigned int gen;	/* scan that last saw it */
	char state;
	unsigned long long since;	/* in this state (and not run) since */
	unsigned long long exec;	/* sum_exec_runtime at that scan */
	bool reported;
};

static struct slot slots[SLOTS];
static unsigned int gen;
static int out_fd = -1;
static unsigned long long threshold_ns = 2 * NSEC_PER_SEC;
static int watch_cpu;
static const char *lockwait;

static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (n > 0 && write(out_fd, buf, n) < 0)
		exit(1);
}

static struct slot *lookup(int tid)
{
	unsigned int h = (unsigned int)tid * 2654435761u % SLOTS, i;

	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &slots[(h + i) % SLOTS];

		if (s->tid == tid || !s->tid || s->gen + 2 < gen) {
			if (s->tid != tid)
				memset(s, 0, sizeof(*s));
			return s;
		}
	}
	return NULL;
}

/* Copies a file (read to its end: an iterator gives a record per read). */
static void dump_file(const char *path, const char *indent)
{
	char buf[16384], *line, *save;
	int fd, n, len = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (len < (int)sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		say("%s%s\n", indent, line);
}

/* What ran on each CPU in the last scan: the tasks whose CPU time grew. */
struct runner {
	int tid, cpu;
	unsigned long long ns;
};
static struct runner ran[64];
static int nran;

static void note_run(int tid, int cpu, unsigned long long ns)
{
	int i;

	if (nran < (int)ARRAY_SIZE(ran)) {
		i = nran++;
	} else {
		for (i = 0; i < nran && ran[i].ns >= ns; i++)
			;
		if (i == nran)
			return;
	}
	ran[i].tid = tid;
	ran[i].cpu = cpu;
	ran[i].ns = ns;
}

/*
 * Runnable tasks on the other CPUs that did not run for the threshold: the
 * tests' victims, and any lock holder that a blocked task waits for (on
 * PREEMPT_RT a sleeping spinlock's owner starved behind a busy loop).
 * Printed, with their stacks, only next to a report of a stuck task.
 */
static struct {
	int tid;
	unsigned long long ns;	/* not run for */
} held[32];
static int nheld;

/* This scan's start, and whether its report has begun. */
struct scan_state {
	unsigned long long now;
	bool header;
};

/* One thread of a scan: note it, and report it if stuck. */
static int scan_thread(pid_t pid, pid_t tid, void *arg)
{
	struct scan_state *sc = arg;
	unsigned long long exec, now = sc->now;
	char path[64], comm[64], buf[1024], state;
	const char *f;
	struct slot *s;
	bool stuck;
	int cpu;

	/*
	 * Not the tests' own tasks (stv-*): their stalls are what the tests
	 * make and check. And before 6.8 reading /proc/PID/stat takes the
	 * process's siglock, whose waiter boosts its owner (PREEMPT_RT): a
	 * task test_rescue leaves preempted holding its parent's siglock, on
	 * purpose, would run at this process's priority and end the very
	 * starvation the test sets up.
	 */
	task_comm(tid, comm, sizeof(comm));
	if (!strncmp(comm, "stv-", 4))
		return 0;
	/* One read of stat and one of schedstat a task. */
	f = task_stat_field(tid, 3, buf, sizeof(buf));
	if (!f)
		return 0;
	state = *f;
	f = stat_field(buf, 39);
	cpu = f ? atoi(f) : -1;
	exec = task_exec_ns(tid);
	s = lookup(tid);
	if (!s)
		return 0;
	if (s->tid == tid && s->exec != exec && s->gen + 1 == gen)
		note_run(tid, cpu, exec - s->exec);
	stuck = (state == 'D' || state == 'R') && s->tid == tid &&
		s->state == state && s->exec == exec;
	if (!stuck) {
		s->since = now;
		s->reported = false;
	}
	s->tid = tid;
	s->gen = gen;
	s->state = state;
	s->exec = exec;
	if (s->reported || now - s->since < threshold_ns)
		return 0;
	/*
	 * Runnable tasks are reported only on this CPU: elsewhere they are
	 * the tests' victims.
	 */
	if (state == 'R' && cpu != watch_cpu) {
		if (nheld < (int)ARRAY_SIZE(held)) {
			held[nheld].tid = tid;
			held[nheld++].ns = now - s->since;
		}
		return 0;
	}
	s->reported = true;
	if (!sc->header) {
		say("== %.3f s: stuck for %.1f s or more\n", now / 1e9,
		    threshold_ns / 1e9);
		sc->header = true;
	}
	say("%s %d %s (process %d) on CPU %d for %.1f s%s\n",
	    state == 'D' ? "blocked" : "runnable, not run:", tid, comm,
	    (int)pid, cpu, (now - s->since) / 1e9,
	    state == 'D' ? "" : " (no CPU time)");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", (int)pid,
		 (int)tid);
	dump_file(path, "    ");
	return 0;
}

/* @now: when this scan started; @last_scan: when the one before did. */
static void scan(unsigned long long now, unsigned long long last_scan)
{
	struct scan_state sc = { .now = now };
	char path[64], comm[64], buf[1024];
	const char *f;
	int tid, i;

	gen++;
	nran = 0;
	nheld = 0;
	proc_for_each_thread(scan_thread, &sc);
	if (!sc.header)
		return;
	if (lockwait) {
		say("  lock waits (task, then each lock and its owner):\n");
		dump_file(lockwait, "    ");
	}
	for (i = 0; i < nheld; i++) {
		tid = held[i].tid;
		task_comm(tid, comm, sizeof(comm));
		f = task_stat_field(tid, 39, buf, sizeof(buf));
		say("runnable elsewhere, not run: %d %s on CPU %d for %.1f s\n",
		    tid, comm, f ? atoi(f) : -1, held[i].ns / 1e9);
		snprintf(path, sizeof(path), "/proc/%d/stack", tid);
		dump_file(path, "    ");
	}
	say("  ran in the last %.2f s:\n", (now - last_scan) / 1e9);
	for (i = 0; i < nran; i++) {
		task_comm(ran[i].tid, comm, sizeof(comm));
		say("    CPU %d: %d %s %.1f ms\n", ran[i].cpu, ran[i].tid,
		    comm, ran[i].ns / 1e6);
	}
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 98 };
	unsigned long long end, now, last, next;
	struct timespec ts;
	int seconds = 0, opt;
	const char *path = NULL;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "c:l:o:s:t:")) != -1) {
		if (opt == 'c')
			watch_cpu = atoi(optarg);
		else if (opt == 'l')
			lockwait = optarg;
		else if (opt == 'o')
			path = optarg;
		else if (opt == 's')
			seconds = atoi(optarg);
		else if (opt == 't')
			threshold_ns = strtoull(optarg, NULL, 10) * NSEC_PER_MSEC;
		else
			return 2;
	}
	if (!path || seconds <= 0 || !threshold_ns) {
		fprintf(stderr, "usage: stallwatch [-c CPU] [-t THRESHOLD_MS] [-l ITER]\n"
			"                  -o FILE -s SECONDS\n");
		return 2;
	}
	out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0) {
		fprintf(stderr, "stallwatch: %s: %s\n", path, strerror(errno));
		return 1;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(watch_cpu, &set);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) ||
	    sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "stallwatch: SCHED_FIFO 98 on CPU %d: %s\n",
			watch_cpu, strerror(errno));
		return 1;
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);
	now = now_ns();
	last = now;
	end = now + (unsigned long long)seconds * NSEC_PER_SEC;
	while (now < end) {
		scan(now, last);
		/*
		 * Every SCAN_NS, or less often when a scan is slow (a TCG
		 * guest with hundreds of tasks): at most a fifth of its CPU.
		 * Kept to a fixed period, a scan longer than it would run
		 * back to back at SCHED_FIFO 98 and starve everything else on
		 * that CPU (rcu_sched, the test, systemd-analyze) for
		 * seconds.
		 */
		next = now_ns();
		next += next - now > SCAN_NS / 5 ? 4 * (next - now) : SCAN_NS;
		ts.tv_sec = next / NSEC_PER_SEC;
		ts.tv_nsec = next % NSEC_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		last = now;
		now = now_ns();
	}
	return 0;
}

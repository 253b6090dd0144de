// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpuset.h"
#include "proc.h"
#include "throttle.h"
#include "util.h"
#include "workload.h"

int rt_throttle_off(long *saved)
{
	int ret = rt_runtime_read(saved);

	if (ret)
		return ret;
	return write_string(RT_RUNTIME_PATH, "-1");
}

/*
 * Turning RT throttling back on fails with EBUSY while SCHED_DEADLINE
 * tasks hold more than it allows (with it off, nothing limits them), or
 * after the kernel's total lost track of the bandwidth of a task that
 * left the class (one killed while boosted; docs/design.md, "Leaving
 * SCHED_DEADLINE"): each write rebuilds the total, so the next one
 * passes. Retry for up to 10 s.
 */
int rt_throttle_restore(long saved)
{
	char buf[32];
	int i, ret;

	snprintf(buf, sizeof(buf), "%ld", saved);
	for (i = 0; i < 200; i++) {
		ret = write_string(RT_RUNTIME_PATH, buf);
		if (ret != -EBUSY)
			break;
		usleep(50 * 1000);
	}
	return ret;
}

/*
 * A test the harness times out is killed with its process group, before
 * its teardown could put RT throttling back: the test program's main
 * process (the harness, which survives) does it as it exits, whoever
 * runs the program (selftests/run.sh, run_kselftest.sh, a person).
 */
static pid_t rt_guard_pid;
static long rt_guard_saved;

__attribute__((constructor)) static void rt_guard_save(void)
{
	if (!rt_runtime_read(&rt_guard_saved))
		rt_guard_pid = getpid();
}

__attribute__((destructor)) static void rt_guard_restore(void)
{
	long now;

	if (rt_guard_pid != getpid() || rt_runtime_read(&now) ||
	    now == rt_guard_saved)
		return;
	fprintf(stderr, "# kernel.sched_rt_runtime_us is %ld, was %ld when the tests began (a test ended before its teardown): restoring it\n",
		now, rt_guard_saved);
	if (rt_throttle_restore(rt_guard_saved))
		fprintf(stderr, "# could not restore kernel.sched_rt_runtime_us=%ld\n",
			rt_guard_saved);
}

/* A negative @cpu leaves the affinity as it is. */
int unpin(pid_t tid)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	return sched_setaffinity(tid, sizeof(set), &set) ? -errno : 0;
}

int pin(pid_t tid, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return unpin(tid);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(tid, sizeof(set), &set) ? -errno : 0;
}

static void die_with_parent(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

struct sched_attr fifo_attr(int prio)
{
	return (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
}

struct sched_attr other_attr(int nice)
{
	return (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_OTHER,
		.sched_nice = nice,
	};
}

/*
 * On PREEMPT_RT, keep the calling task off @cpu (if it may run
 * elsewhere): there the timer of a sleeping SCHED_OTHER task is a soft
 * hrtimer, expired by ktimers/N of the CPU where it was armed, and a
 * caller that last slept on the busy loop's CPU would not wake before the
 * loop ends, and every check of the starvation would run after it is
 * over (docs/kernel-behaviours.md, "Soft hrtimers are expired by
 * ktimers/N"). Elsewhere its timers are hard and the caller is left
 * free: pinned to CPU 0, a test running above the busy loops would
 * compete there with starvd itself.
 */
void avoid_cpu(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	CPU_CLR(cpu, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

/*
 * On PREEMPT_RT a SCHED_OTHER caller becomes SCHED_FIFO 1 (reset on
 * fork: what it starts, starvd among them, does not inherit it): the
 * sleeps of a real-time task are hard hrtimers, expired in the timer
 * interrupt, while a SCHED_OTHER task's sleep ends only when ktimers/0
 * runs, which can itself wait for a lock whose holder a busy loop
 * starves (docs/kernel-behaviours.md, "The timer expiry lock"): a 100 ms
 * sleep then lasts until the loop ends.
 * Below starvd and the tests' daemons (SCHED_FIFO 10 and up), and below
 * any busy loop: a test that must run above one says so
 * (test_above_hogs()).
 */
void rt_hard_timers(void)
{
	struct sched_attr a = fifo_attr(1);

	a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	if (kernel_preempt_rt() && sched_getscheduler(0) == SCHED_OTHER)
		sched_setattr_tid(0, &a);
}

/* What hog_start() does to its caller (above). */
static void keep_off_cpu(int cpu)
{
	if (!kernel_preempt_rt())
		return;
	avoid_cpu(cpu);
	rt_hard_timers();
}

/* cpu_wait_quiet()'s look at one thread: queued on the CPU, not the caller's? */
struct queued {
	int cpu;
	pid_t pgrp;
	pid_t tid;
};

static int queued_on(pid_t pid, pid_t tid, void *arg)
{
	struct queued *q = arg;
	const char *state, *pgrp, *cpu;
	char buf[1024];

	state = task_stat_field(tid, 3, buf, sizeof(buf));
	pgrp = state ? stat_field(buf, 5) : NULL;
	cpu = state ? stat_field(buf, 39) : NULL;
	if (!cpu || *state != 'R' || atoi(pgrp) == q->pgrp ||
	    atoi(cpu) != q->cpu)
		return 0;
	q->tid = tid;
	return 1;
}

/*
 * Kernel work left on a CPU where a test then starts a busy loop, and
 * only then starvd, is starved before any starvd runs, with whatever lock
 * it holds: the JIT images of a starvd that loaded its programs on the
 * test CPU (-a there) are freed by a kworker of that CPU, which on 5.10
 * purges the lazily unmapped kernel areas under a global mutex, and the
 * next starvd's BPF load (its JIT image made read-only) waits for that
 * mutex until the loop ends (docs/kernel-behaviours.md, "JIT images are
 * freed by a kworker of the loading CPU (5.10)"). Waits at most
 * QUIET_WAIT_MS, then says what is still queued.
 */
#define QUIET_WAIT_MS	2000

void cpu_wait_quiet(int cpu)
{
	uint64_t end = now_ns() + QUIET_WAIT_MS * NSEC_PER_MSEC;
	struct queued q = { .cpu = cpu, .pgrp = getpgrp() };
	char comm[32];

	do {
		if (proc_for_each_thread(queued_on, &q) <= 0)
			return;
		usleep(1000);
	} while (now_ns() < end);
	task_comm(q.tid, comm, sizeof(comm));
	fprintf(stderr, "# CPU %d: %s (%d) still queued there after %d ms: starting the busy loop anyway\n",
		cpu, comm, (int)q.tid, QUIET_WAIT_MS);
}

pid_t hog_start(int cpu, int prio, int max_s)
{
	struct sched_attr a = fifo_attr(prio);
	uint64_t start, end, t, last;
	int fds[2];
	pid_t pid;
	char c = 0;

	keep_off_cpu(cpu);
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid) {
		/*
		 * Back once it is on its CPU: a busy loop started next, on
		 * the CPU this one was forked on, could keep it there, queued
		 * before it pinned itself, and the test CPU would have no
		 * busy loop for a while.
		 */
		close(fds[1]);
		if (pid > 0 && read(fds[0], &c, 1) != 1) {
			waitpid(pid, NULL, 0);
			pid = -1;
		}
		close(fds[0]);
		return pid;
	}
	close(fds[0]);
	die_with_parent();
	prctl(PR_SET_NAME, "stv-hog");
	/* Raise the priority before pinning, never the other way round. */
	if (sched_setattr_tid(0, &a)) {
		fprintf(stderr, "stv-hog: SCHED_FIFO %d: %s\n", prio, strerror(errno));
		_exit(1);
	}
	if (pin(0, cpu)) {
		fprintf(stderr, "stv-hog: CPU %d: %s\n", cpu, strerror(errno));
		_exit(1);
	}
	if (write(fds[1], &c, 1) != 1)
		_exit(1);
	close(fds[1]);
	start = now_ns();
	last = start;
	end = start + (uint64_t)max_s * NSEC_PER_SEC;
	while ((t = now_ns()) < end)
		last = t;
	if (t - last > NSEC_PER_SEC)
		fprintf(stderr, "stv-hog: CLOCK_MONOTONIC jumped %llu ns on CPU %d after %llu ns\n",
			(unsigned long long)(t - last), sched_getcpu(),
			(unsigned long long)(last - start));
	_exit(0);
}

struct victim_args {
	const struct victim_spec *spec;
	struct victim_state *st;
};

/*
 * fork() as the victim runs now (boosted, if it runs at all): the child
 * exits at once and is not waited for (behind the busy loop it may not
 * run before the test ends; it dies with the victim's process or is
 * reaped by init).
 */
static void victim_fork(struct victim_state *st)
{
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	st->fork_errno = child < 0 ? errno : 0;
	st->child_pid = child;
	st->child_policy = child < 0 ? -1 : sched_getscheduler(child);
	st->fork_now = 0;
}

/* The victim's loop, in the calling thread; never returns. */
static void victim_run(const struct victim_spec *s, struct victim_state *st)
{
	struct timespec ts = {
		.tv_sec = s->sleep_ns / NSEC_PER_SEC,
		.tv_nsec = s->sleep_ns % NSEC_PER_SEC,
	};

	prctl(PR_SET_NAME, s->thread_name);
	st->tid = syscall(SYS_gettid);
	if (sched_setattr_tid(0, &s->attr) || pin(0, s->cpu))
		_exit(1);
	st->ready = 1;
	for (;;) {
		st->last_run_ns = now_ns();
		st->runs[st->count % ARRAY_SIZE(st->runs)] = st->last_run_ns;
		st->count++;
		while (s->burn_ns && now_ns() - st->last_run_ns < s->burn_ns)
			;
		if (st->fork_now)
			victim_fork(st);
		nanosleep(&ts, NULL);
	}
}

static void *victim_thread(void *arg)
{
	struct victim_args *va = arg;

	victim_run(va->spec, va->st);
	return NULL;
}

static int victim_map(struct victim *v)
{
	v->st = mmap(NULL, sizeof(*v->st), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v->st == MAP_FAILED)
		return -errno;
	memset((void *)v->st, 0, sizeof(*v->st));
	return 0;
}

static int victim_wait_ready(struct victim *v)
{
	uint64_t end = now_ns() + 5 * NSEC_PER_SEC;

	while (!v->st->ready && now_ns() < end)
		usleep(1000);
	return v->st->ready ? 0 : -ETIMEDOUT;
}

pid_t stop_hog_start(const struct victim_spec *spec, struct victim *v,
		     int prio, int max_s)
{
	struct sched_attr a = fifo_attr(prio);
	uint64_t end;
	pid_t pid, child;
	int status;

	v->pid = 0;
	if (victim_map(v))
		return -1;
	keep_off_cpu(spec->cpu);
	pid = fork();
	if (pid) {
		if (pid > 0 && victim_wait_ready(v)) {
			kill_and_reap(pid);
			return -1;
		}
		return pid;
	}
	die_with_parent();
	prctl(PR_SET_NAME, "stv-stop-hog");
	if (sched_setattr_tid(0, &a) || pin(0, spec->cpu)) {
		fprintf(stderr, "stv-stop-hog: SCHED_FIFO %d on CPU %d: %s\n",
			prio, spec->cpu, strerror(errno));
		_exit(1);
	}
	/* The victim, alone in its process: it reports the stop itself. */
	child = fork();
	if (child == 0) {
		die_with_parent();
		victim_run(spec, v->st);
	}
	if (child < 0) {
		fprintf(stderr, "stv-stop-hog: fork: %s\n", strerror(errno));
		_exit(1);
	}
	/* Asleep in wait4() on the victim's CPU until it stops. */
	for (;;) {
		if (waitpid(child, &status, WUNTRACED) == child) {
			if (WIFSTOPPED(status))
				break;
			_exit(1);	/* it died */
		}
		if (errno != EINTR)
			_exit(1);
	}
	kill(child, SIGCONT);
	end = now_ns() + (uint64_t)max_s * NSEC_PER_SEC;
	while (now_ns() < end)
		;
	_exit(0);
}

int victim_start(const struct victim_spec *spec, struct victim *v)
{
	struct victim_args va;
	int ret = victim_map(v);
	pthread_t th;

	if (ret)
		return ret;
	v->pid = fork();
	if (v->pid < 0)
		return -errno;
	if (v->pid == 0) {
		die_with_parent();
		prctl(PR_SET_NAME, spec->proc_name);
		va.spec = spec;
		va.st = v->st;
		if (pthread_create(&th, NULL, victim_thread, &va))
			_exit(1);
		for (;;)
			pause();
	}
	return victim_wait_ready(v);
}

uint64_t victim_wait_start(const struct victim *v, uint64_t sleep_ns,
			   uint64_t t)
{
	uint64_t best = 0, wake;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v->st->runs); i++) {
		wake = v->st->runs[i] + sleep_ns;
		if (v->st->runs[i] && wake <= t && wake > best)
			best = wake;
	}
	return best;
}

bool victim_stuck(struct victim *v)
{
	uint64_t end = now_ns() + 2 * NSEC_PER_SEC, count;

	do {
		count = v->st->count;
		usleep(100000);
		if (v->st->count == count)
			return true;
	} while (now_ns() < end);
	return false;
}

bool victim_progressed(struct victim *v, uint64_t since, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	while (v->st->count <= since && now_ns() < end)
		usleep(1000);
	return v->st->count > since;
}

/* One thread of a process about to be killed: where the caller runs. */
static int follow(pid_t pid, pid_t tid, void *arg)
{
	const struct sched_attr *as = arg;
	cpu_set_t here;
	int cpu = sched_getcpu();

	CPU_ZERO(&here);
	CPU_SET(cpu < 0 ? 0 : cpu, &here);
	/* A stopped SCHED_DEADLINE thread: one step would leave its bandwidth. */
	set_attr_as_starvd_would(tid, as);
	sched_setaffinity(tid, sizeof(here), &here);
	return 0;
}

/* Every thread of @pid runs where and as the caller does. */
static void follow_caller(pid_t pid)
{
	struct sched_attr mine, as = other_attr(0);

	if (!sched_getattr_tid(0, &mine) &&
	    (mine.sched_policy == SCHED_FIFO || mine.sched_policy == SCHED_RR))
		as = fifo_attr(mine.sched_priority);
	proc_for_each_thread_of(pid, follow, &as);
}

/*
 * Where a killed process dies matters on PREEMPT_RT: the memory map of a
 * process that exits is freed by an RCU callback of the CPU it last ran
 * on, under pcpu_lock, a sleeping lock there. Freed on the test CPU by
 * rcuc/1, preempted by the next busy loop with the lock held, it keeps
 * every fork and exec on the machine waiting until that loop ends
 * (docs/kernel-behaviours.md, "pcpu_lock is a sleeping lock"). So a child is
 * stopped first, given the caller's CPU and policy (it can run wherever
 * and whenever the caller can: neither above a busy loop there nor below
 * one), and killed there. One that does not stop within STOP_WAIT_MS
 * (queued behind a busy loop, it cannot take the signal) is killed where
 * it is.
 */
#define STOP_WAIT_MS	200

void kill_and_reap(pid_t pid)
{
	uint64_t end = now_ns() + STOP_WAIT_MS * NSEC_PER_MSEC;
	siginfo_t si;

	if (pid <= 0)
		return;
	if (!kill(pid, SIGSTOP)) {
		do {
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, pid, &si,
				   WSTOPPED | WEXITED | WNOHANG | WNOWAIT) ||
			    si.si_pid)
				break;
			usleep(1000);
		} while (now_ns() < end);
		if (si.si_pid == pid && si.si_code == CLD_STOPPED)
			follow_caller(pid);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int set_attr_as_starvd_would(pid_t tid, const struct sched_attr *to)
{
	struct sched_attr cur;

	if (!sched_getattr_tid(tid, &cur) &&
	    cur.sched_policy == SCHED_DEADLINE &&
	    to->sched_policy != SCHED_DEADLINE)
		return sched_setattr_leave_deadline(tid, &cur, to);
	return sched_setattr_tid(tid, to);
}

void victim_stop(struct victim *v)
{
	struct sched_attr other = other_attr(0);

	/*
	 * A victim may still be boosted (a test that kills starvd mid-boost,
	 * or fails): at 20 us of SCHED_DEADLINE runtime a second, its own
	 * exit takes tens of seconds in a TCG guest. Exit as SCHED_OTHER.
	 */
	if (v->st && v->st != MAP_FAILED && v->st->tid)
		set_attr_as_starvd_would(v->st->tid, &other);
	kill_and_reap(v->pid);
	v->pid = 0;
	if (v->st && v->st != MAP_FAILED)
		munmap((void *)v->st, sizeof(*v->st));
	v->st = NULL;
}

int test_cpu(void)
{
	int c;

	for (c = cpus_possible() - 1; c > 0; c--)
		if (cpu_online(c))
			return c;
	return 0;
}

bool kernel_has_fair_server(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " fair_server_init\n") != NULL;
	fclose(f);
	return found;
}

bool kernel_cmdline_has(const char *word)
{
	char line[4096], *w, *save;
	FILE *f = fopen("/proc/cmdline", "re");
	bool found = false;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (w = strtok_r(line, " \n", &save); w && !found;
		     w = strtok_r(NULL, " \n", &save))
			found = !strcmp(w, word);
	fclose(f);
	return found;
}

void task_brief(pid_t tid, char *buf, size_t len)
{
	char path[64], st[1024], *p;
	unsigned int policy = 0, rtprio = 0;
	int cpu = -1, i;
	char state = '?';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f || !fgets(st, sizeof(st), f)) {
		snprintf(buf, len, "%d: gone", (int)tid);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	/*
	 * After "(comm)": field 3 is the state, 39 the CPU, 40-41 rtprio,
	 * policy. From the ')' the first space found is the one before
	 * field 3, the 37th the one before field 39.
	 */
	p = strrchr(st, ')');
	if (p && sscanf(p + 2, "%c", &state) == 1) {
		for (i = 0; p && i < 37; i++)
			p = strchr(p + 1, ' ');
		if (p)
			sscanf(p + 1, "%d %u %u", &cpu, &rtprio, &policy);
	}
	snprintf(buf, len, "%d: state %c, CPU %d, policy %u, rtprio %u",
		 (int)tid, state, cpu, policy, rtprio);
}

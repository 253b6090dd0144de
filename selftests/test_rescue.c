// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Rescues judged from outside the daemon: by the work that waited getting
 * done, by a heartbeat that never stops, and by every thread on the
 * machine having its scheduling attributes back afterwards.
 *
 * unpinned_defaults: starvd started by hand (no -a, SCHED_OTHER, its
 *   defaults but -t/-d), its last sleep on the CPU a SCHED_FIFO busy loop
 *   then takes. The victim queued there must run during the busy loop, a
 *   SCHED_FIFO 99 heartbeat on CPU 0 must go on after it, SIGTERM must
 *   end starvd, and nothing may stay boosted. In a test guest starvd's
 *   stderr is the serial console, whose IRQ thread starves with the CPU
 *   on PREEMPT_RT. At SCHED_OTHER, starvd would sleep through the whole
 *   loop there: its soft hrtimer waits in ktimers/1's queue
 *   (docs/kernel-behaviours.md, "Soft hrtimers are expired by
 *   ktimers/N").
 * widened_affinity: starvd started on the busy CPU alone (-a), its
 *   affinity then widened to every CPU from outside, as taskset, tuned or
 *   a cpuset change do to a running daemon; the SCHED_FIFO emulation
 *   (-F) must rescue the victim. A starvd that keeps the CPUs it read at
 *   start takes the busy CPU for its only one, where a raised task must
 *   stay below starvd's own priority (10), and refuses every boost there
 *   with ERANGE: kernel threads then starve.
 * blocked_log_sink: the same with starvd's stderr a pipe that, once
 *   starvd is up, is full and never read again: no log sink may keep
 *   starvd from rescuing, or from exiting.
 * kernel_thread_timer (PREEMPT_RT): a SCHED_OTHER task sleeps with its
 *   hrtimer armed on the busy CPU. There the timer is soft, expired by
 *   ktimers/N (ksoftirqd/N before 6.1-rt): without starvd the sleeper
 *   wakes only after the loop; with starvd, during it, and starvd names
 *   the kernel thread and the busy loop.
 * kernel_thread_workqueue (kernels without the fair server): writing
 *   vm/stat_refresh runs a work item on every CPU's kworker and waits for
 *   all (schedule_on_each_cpu()); the kworker of the busy CPU is
 *   SCHED_OTHER and, without the fair server (before 6.12), gets no CPU
 *   at all behind a SCHED_FIFO loop. Same expectations. Where the fair
 *   server exists it already gives kworkers 5% of the CPU, and no
 *   SCHED_OTHER kernel thread starves: skipped, with the reason. The
 *   report names refresh_vm_stats, the work it waits to run (with the
 *   module's backend: says it cannot tell).
 * kernel_thread_softirq (the same kernels, booted with threadirqs): a
 *   SCHED_FIFO task above the busy loop waits in recv() with a 1 s
 *   SO_RCVTIMEO. Its timeout is a timer on the busy CPU, expired in
 *   TIMER_SOFTIRQ, which with threadirqs every interrupt's exit leaves to
 *   ksoftirqd/N: the receiver wakes only once ksoftirqd runs. Same
 *   expectations; the report lists TIMER among the pending softirqs.
 * fork_waits_for_stopping_task (PREEMPT_RT): a wait with no sched_info
 *   stamp, and a machine that cannot fork. A task on the busy CPU
 *   (SCHED_FIFO 10) stops itself with SIGSTOP; its stop wakes a thread
 *   of its parent waiting there in waitid(), which becomes the busy loop.
 *   On PREEMPT_RT tasklist_lock does not disable preemption, so the loop
 *   preempts the stopping task inside do_notify_parent_cldstop(), holding
 *   tasklist_lock for reading: queued in TASK_STOPPED, never stamped
 *   (docs/design.md, "Unstamped waits"), and every fork() and exit() on the
 *   machine waits for it (the writers of tasklist_lock). The wait is a
 *   fork() on CPU 0. Same expectations, and the report says its wait is
 *   a lower bound. fork_waits_for_stopping_task_fifo: the same with the
 *   SCHED_FIFO emulation (-F). The emulation must not lower such a task
 *   at its first step when the task has not run yet (/proc shows it
 *   stopped, not runnable), as can happen after an overrun DEADLINE
 *   boost fell back to it. That is a race (the task's IPI against the
 *   step, one runtime later) that this test does not force.
 *
 * Nothing here is timed: each check is "done before the busy loop
 * ended", "done only after it", or "advanced".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef STARVD_NO_BPF
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#endif

#include "kselftest_harness.h"
#include "lib/daemon_proc.h"
#include "lib/workload.h"
#include "proc.h"
#include "sched_attr.h"
#include "util.h"

#define HOG_PRIO	50
#define HOG_S		10
#define THRESHOLD	"2"
#define LINE_MAX_LEN	2048

/* One thread's scheduling attributes, to find what was left changed. */
struct thread_attr {
	pid_t tid;
	unsigned long long start;	/* starttime: tids are reused */
	int policy, rt_prio, nice;
	int cpu;			/* where it last ran */
	char comm[32];
};

struct snapshot {
	struct thread_attr *v;
	size_t n, cap;
};

/* Fields 3.. of /proc/PID/task/TID/stat, after the ") ". */
static int read_attr(pid_t pid, pid_t tid, struct thread_attr *a)
{
	char path[64], buf[1024], *p, *f[48];
	int fd, n, i;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strchr(buf, '(');
	if (!p || !strrchr(buf, ')'))
		return -1;
	snprintf(a->comm, sizeof(a->comm), "%.*s",
		 (int)(strrchr(buf, ')') - p - 1), p + 1);
	p = strrchr(buf, ')') + 2;
	for (i = 0; i < 48 && p; i++) {
		f[i] = p;
		p = strchr(p, ' ');
		if (p)
			*p++ = '\0';
	}
	if (i < 39)
		return -1;
	/* stat field N is f[N - 3] */
	a->tid = tid;
	a->nice = atoi(f[19 - 3]);
	a->start = strtoull(f[22 - 3], NULL, 10);
	a->cpu = atoi(f[39 - 3]);
	a->rt_prio = atoi(f[40 - 3]);
	a->policy = atoi(f[41 - 3]);
	return 0;
}

/* The state letter in @dir/stat (R, S, D, ...), 0 if unknown. */
static char task_state_at(const char *dir, char *buf, size_t len)
{
	char path[96];
	FILE *f;
	char *p;

	snprintf(path, sizeof(path), "%s/stat", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, len, f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The state letter of process @pid. */
static char task_state(pid_t pid, char *buf, size_t len)
{
	char dir[32];

	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	return task_state_at(dir, buf, len);
}

/* snapshot_take()'s copy of one thread's attributes. */
static int snapshot_add(pid_t pid, pid_t tid, void *arg)
{
	struct snapshot *s = arg;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			abort();
	}
	if (!read_attr(pid, tid, &s->v[s->n]))
		s->n++;
	return 0;
}

static void snapshot_take(struct snapshot *s)
{
	s->n = 0;
	proc_for_each_thread(snapshot_add, s);
}

/* Threads alive before and after whose attributes differ, and any DEADLINE. */
static int snapshot_changed(struct __test_metadata *_metadata,
			    const struct snapshot *before,
			    const struct snapshot *after)
{
	size_t i, j;
	int bad = 0;

	for (i = 0; i < after->n; i++) {
		const struct thread_attr *a = &after->v[i];

		if (a->policy == SCHED_DEADLINE) {
			TH_LOG("%d (%s) is still SCHED_DEADLINE", a->tid,
			       a->comm);
			bad++;
			continue;
		}
		for (j = 0; j < before->n; j++) {
			const struct thread_attr *b = &before->v[j];

			if (b->tid != a->tid || b->start != a->start)
				continue;
			if (b->policy != a->policy || b->rt_prio != a->rt_prio ||
			    b->nice != a->nice) {
				TH_LOG("%d (%s): policy %d prio %d nice %d, was %d/%d/%d",
				       a->tid, a->comm, a->policy, a->rt_prio,
				       a->nice, b->policy, b->rt_prio, b->nice);
				bad++;
			}
			break;
		}
	}
	return bad;
}

static pid_t heartbeat_start(const char *file, int seconds)
{
	char s[16];
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	snprintf(s, sizeof(s), "%d", seconds);
	execl(test_path("heartbeat"), "heartbeat", "-c", "0", "-o", file,
	      "-s", s, (char *)NULL);
	_exit(127);
}

static unsigned long long heartbeat_beats(const char *file)
{
	unsigned long long beats = 0;
	FILE *f = fopen(file, "r");

	if (f) {
		if (fscanf(f, "%llu", &beats) != 1)
			beats = 0;
		fclose(f);
	}
	return beats;
}

/* The heartbeat beats again after @beats: wait up to 10 s for it. */
static bool heartbeat_advances(const char *file, unsigned long long beats)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (heartbeat_beats(file) > beats)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/* Wait up to 10 s for a started starvd to publish its state file. */
static bool daemon_up(struct daemon_proc *d)
{
	char path[128];
	int i;

	snprintf(path, sizeof(path), "%s/state", d->run_dir);
	for (i = 0; i < 100; i++) {
		if (file_exists(path))
			return true;
		daemon_drain(d, 100);
	}
	return false;
}

/* Field @n (from 1) of /proc/@pid/schedstat: run time, wait, pcount. */
static unsigned long long schedstat(pid_t pid, int n)
{
	unsigned long long v[3] = { 0 };
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "re");
	if (f) {
		if (fscanf(f, "%llu %llu %llu", &v[0], &v[1], &v[2]) != 3)
			v[2] = 0;
		fclose(f);
	}
	return v[n - 1];
}

static void set_cpus(pid_t tid, int cpu)
{
	cpu_set_t set;
	int c;

	CPU_ZERO(&set);
	for (c = 0; c < CPU_SETSIZE; c++)
		if (cpu < 0 || c == cpu)
			CPU_SET(c, &set);
	sched_setaffinity(tid, sizeof(set), &set);
}

FIXTURE(rescue) {
	long saved_rt;
	bool rt_changed;
	int cpu;
	pid_t hog, hb, worker;
	uint64_t hog_ns;		/* when the busy loop was started */
	struct victim v;
	struct daemon_proc *d;
	struct snapshot before, after;
	char hb_file[64];
	char line[LINE_MAX_LEN];
};

FIXTURE_SETUP(rescue)
{
	if (geteuid())
		SKIP(return, "needs root");
	self->cpu = test_cpu();
	if (self->cpu == 0)
		SKIP(return, "needs two CPUs");
	/*
	 * The test's own sleeps must not wait behind the busy loop: on
	 * PREEMPT_RT the timer of a SCHED_OTHER sleeper armed on the busy
	 * CPU is expired by ktimers/N there (the very thing under test).
	 */
	set_cpus(0, 0);
	/* What hog_start() does, before the snapshot of everyone's policy. */
	rt_hard_timers();
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(NULL != self->d);
	snprintf(self->hb_file, sizeof(self->hb_file),
		 "/dev/shm/starvd-heartbeat.%d", getpid());
	/*
	 * What an earlier test's killed starvd left boosted (a test that
	 * timed out) is put back first, as starvd itself would at its start:
	 * the snapshot is of the machine as it should be.
	 */
	{
		const char *restore[] = { bin_path("starvd"), "--restore",
					  "--run-dir", TEST_RUN_DIR, NULL };
		char out[1024];

		run_capture_for(restore, out, sizeof(out), NULL, NULL, 10000);
	}
	snapshot_take(&self->before);
	ASSERT_EQ(0, rt_throttle_off(&self->saved_rt));
	self->rt_changed = true;
}

FIXTURE_TEARDOWN(rescue)
{
	set_cpus(0, -1);
	kill_and_reap(self->hog);
	kill_and_reap(self->worker);
	if (self->d && self->d->pid)
		daemon_stop(self->d, SIGKILL, 2000);
	if (self->rt_changed)
		rt_throttle_restore(self->saved_rt);
	victim_stop(&self->v);
	kill_and_reap(self->hb);
	unlink(self->hb_file);
	free(self->before.v);
	free(self->after.v);
	free(self->d);
}

/* Wait for the busy loop to end by itself. */
static void hog_wait(pid_t *hog)
{
	waitpid(*hog, NULL, 0);
	*hog = 0;
}

/*
 * A SCHED_FIFO 10 victim queued behind the busy loop on the test CPU;
 * returns its loop count once it starves.
 */
static uint64_t starve_victim(struct __test_metadata *_metadata,
			      FIXTURE_DATA(rescue) *self)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc",
		.thread_name = "stv-victim",
		.attr = fifo_attr(10),
		.sleep_ns = 5 * NSEC_PER_MSEC,
		.cpu = self->cpu,
	};
	struct thread_attr h = { 0 }, v = { 0 };

	ASSERT_EQ(0, victim_start(&spec, &self->v));
	self->hog_ns = now_ns();
	self->hog = hog_start(self->cpu, HOG_PRIO, HOG_S);
	ASSERT_LT(0, self->hog);
	if (victim_stuck(&self->v))
		return self->v.st->count;
	read_attr(self->hog, self->hog, &h);
	read_attr(self->v.pid, self->v.st->tid, &v);
	ASSERT_TRUE(false)
		TH_LOG("no starvation: busy loop %d policy %d prio %d, victim policy %d prio %d count %llu",
		       self->hog, h.policy, h.rt_prio, v.policy, v.rt_prio,
		       (unsigned long long)self->v.st->count);
	return 0;
}

/*
 * How many times the victim ran while the busy loop still ran: counted a
 * second before the loop ends by itself (HOG_S after it was started),
 * the loop checked alive then; then the loop's end is waited for.
 * Counted after the end, the victim's first run after the loop would
 * pass for a rescue.
 */
static uint64_t runs_during_loop(struct __test_metadata *_metadata,
				 FIXTURE_DATA(rescue) *self, uint64_t count0)
{
	uint64_t at = self->hog_ns + (HOG_S - 1) * NSEC_PER_SEC, now, count;
	bool alive;

	while ((now = now_ns()) < at)
		usleep((at - now) / 1000);
	count = self->v.st->count;
	alive = waitpid(self->hog, NULL, WNOHANG) == 0;
	hog_wait(&self->hog);
	EXPECT_TRUE(alive) TH_LOG("the busy loop ended early");
	TH_LOG("the victim ran %llu times during the busy loop",
	       (unsigned long long)(count - count0));
	return alive ? count - count0 : 0;
}

/* After the busy loop: starvd ends on SIGTERM and nothing stays boosted. */
static void expect_clean_exit(struct __test_metadata *_metadata,
			      FIXTURE_DATA(rescue) *self)
{
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 10000))
		TH_LOG("starvd did not exit cleanly on SIGTERM");
	victim_stop(&self->v);
	snapshot_take(&self->after);
	EXPECT_EQ(0, snapshot_changed(_metadata, &self->before, &self->after));
}

TEST_F_TIMEOUT(rescue, unpinned_defaults, 120)
{
	const char *args[] = { "-t", THRESHOLD, "-d", "1", "-v", NULL };
	const char *console = getenv("STARVD_VM_GUEST") &&
			      !access("/dev/console", W_OK) ?
			      "/dev/console" : NULL;
	unsigned long long beats, pcount;
	uint64_t count0;
	int i;

	self->hb = heartbeat_start(self->hb_file, HOG_S + 60);
	ASSERT_LT(0, self->hb);
	ASSERT_EQ(0, daemon_start_unpinned(self->d, args, console));
	ASSERT_TRUE(daemon_up(self->d)) TH_LOG("starvd did not start");
	/*
	 * Its last sleep begins on the CPU the busy loop takes: it must have
	 * run there once (it wakes at least every threshold), so that the
	 * timer of its next sleep is armed there.
	 */
	pcount = schedstat(self->d->pid, 3);
	set_cpus(self->d->pid, self->cpu);
	for (i = 0; i < 100 && schedstat(self->d->pid, 3) < pcount + 2; i++)
		usleep(50 * 1000);
	set_cpus(self->d->pid, -1);
	ASSERT_LT(pcount + 1, schedstat(self->d->pid, 3))
		TH_LOG("starvd did not run on CPU %d", self->cpu);

	count0 = starve_victim(_metadata, self);
	EXPECT_LT(0, runs_during_loop(_metadata, self, count0))
		TH_LOG("the victim never ran behind the busy loop: starvd did not rescue it");
	beats = heartbeat_beats(self->hb_file);
	EXPECT_TRUE(heartbeat_advances(self->hb_file, beats))
		TH_LOG("the FIFO 99 heartbeat on CPU 0 stopped: the machine hangs");
	expect_clean_exit(_metadata, self);
}

/* Let every thread of @pid run on every CPU (taskset -a -p). */
static int widen_thread(pid_t pid, pid_t tid, void *arg)
{
	set_cpus(tid, -1);
	return 0;
}

TEST_F_TIMEOUT(rescue, widened_affinity, 120)
{
	char cpu[16];
	const char *args[] = { "-t", THRESHOLD, "-d", "1", "-F", "-a", cpu,
			       NULL };
	uint64_t count0;

	snprintf(cpu, sizeof(cpu), "%d", self->cpu);
	ASSERT_EQ(0, daemon_start_unpinned(self->d, args, NULL));
	ASSERT_TRUE(daemon_up(self->d)) TH_LOG("starvd did not start");
	ASSERT_EQ(0, proc_for_each_thread_of(self->d->pid, widen_thread,
					     NULL));
	count0 = starve_victim(_metadata, self);
	EXPECT_LT(0, runs_during_loop(_metadata, self, count0))
		TH_LOG("the victim never ran behind the busy loop");
	expect_clean_exit(_metadata, self);
	EXPECT_FALSE(daemon_output_has(self->d, "cannot boost"))
		TH_LOG("stderr:\n%s", self->d->err);
}

/*
 * Every log sink can block (a console whose IRQ thread starves, a full
 * pipe nobody reads, journald behind a busy loop): starvd's stderr here is
 * a pipe already full that is never read. The victim must still be
 * rescued, and SIGTERM must still end starvd. Before log lines went
 * through a writer thread, the first write() blocked starvd for good.
 */
TEST_F_TIMEOUT(rescue, blocked_log_sink, 120)
{
	const char *args[] = { "-t", THRESHOLD, "-d", "1", "-v", NULL };
	char path[64], junk[4096] = { 0 };
	uint64_t count0;
	int p[2], i;

	ASSERT_EQ(0, pipe2(p, O_NONBLOCK));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", getpid(), p[1]);
	ASSERT_EQ(0, daemon_start_unpinned(self->d, args, path));
	/* Read its start-up lines, then never again, and fill the pipe. */
	for (i = 0; i < 100 && !file_exists(TEST_RUN_DIR "/state"); i++) {
		while (read(p[0], junk, sizeof(junk)) > 0)
			;
		usleep(100 * 1000);
	}
	ASSERT_TRUE(daemon_up(self->d)) TH_LOG("starvd did not start");
	while (write(p[1], junk, sizeof(junk)) > 0)
		;
	count0 = starve_victim(_metadata, self);
	EXPECT_LT(0, runs_during_loop(_metadata, self, count0))
		TH_LOG("the victim never ran behind the busy loop: starvd blocked on its log sink?");
	expect_clean_exit(_metadata, self);
	close(p[0]);
	close(p[1]);
}

/* Shared with the process that waits for the starving task. */
struct waiter {
	volatile int armed;		/* about to wait */
	volatile uint64_t done_ns;	/* when the wait ended, 0: not yet */
	/* A waiter that runs the busy loop itself (stopper_start()): */
	volatile uint64_t spun_until;	/* the loop spins until then */
	volatile pid_t stopping, loop;	/* the task that stops, the loop */
	volatile int go;		/* it may stop */
	volatile long nvcsw, nivcsw;	/* its switches before it stopped */
	volatile int preempted;		/* queued in its stop, never ran on */
	char stopped[512];		/* its state once the loop ran */
	char err[160];			/* what went wrong, if anything */
};

/* How a round starts the busy loop and the waiter. */
enum round_order {
	LOOP_FIRST,		/* the waiter queues work behind the loop */
	WAITER_FIRST,		/* the loop starts behind the waiter's timer */
	WAITER_LOOPS,		/* the waiter's process runs the loop */
};

static struct waiter *waiter_map(void)
{
	struct waiter *w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return w == MAP_FAILED ? NULL : w;
}

/*
 * A SCHED_OTHER task on @cpu that sleeps 3 s there (its hrtimer is armed
 * on @cpu), allowed on every CPU so that its wake-up can run elsewhere.
 */
static pid_t timer_sleeper(struct waiter *w, int cpu)
{
	struct timespec ts = { .tv_sec = 3 };
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	set_cpus(0, cpu);
	sched_yield();
	set_cpus(0, -1);	/* still running on @cpu */
	w->armed = 1;
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	w->done_ns = now_ns();
	_exit(0);
}

/* A task on CPU 0 that runs a work item on every CPU's kworker. */
static pid_t stat_refresher(struct waiter *w)
{
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	set_cpus(0, 0);
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	w->armed = 1;
	if (fd < 0 || write(fd, "1", 1) != 1)
		_exit(1);
	w->done_ns = now_ns();
	_exit(0);
}

/*
 * A SCHED_FIFO task above the busy loop on @cpu that waits for a UDP
 * datagram that never comes, for at most a second (SO_RCVTIMEO): the
 * timeout is a timer_list timer on @cpu, expired in TIMER_SOFTIRQ.
 */
static pid_t timeout_receiver(struct waiter *w, int cpu)
{
	struct sched_param sp = { .sched_priority = HOG_PRIO + 10 };
	struct timeval tv = { .tv_sec = 1 };
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	pid_t pid = fork();
	char c;
	int fd;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Above the loop before it goes there: it must not wait itself. */
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	set_cpus(0, cpu);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		_exit(1);
	w->armed = 1;
	if (recv(fd, &c, 1, 0) != -1 || errno != EAGAIN)
		_exit(1);
	w->done_ns = now_ns();
	_exit(0);
}

struct stopper_loop {
	struct waiter *w;
	int cpu;
};

/*
 * The parent's other thread: asleep in waitid() on @cpu until its child
 * stops, then the busy loop there, HOG_S from the moment the stop woke it.
 */
static void *stopper_loop(void *arg)
{
	struct stopper_loop *l = arg;
	struct sched_attr a = fifo_attr(HOG_PRIO);
	uint64_t end;
	siginfo_t si;

	prctl(PR_SET_NAME, "stv-hog");
	if (sched_setattr_tid(0, &a) || pin(0, l->cpu)) {
		snprintf(l->w->err, sizeof(l->w->err),
			 "the loop thread: SCHED_FIFO %d on CPU %d: %s",
			 HOG_PRIO, l->cpu, strerror(errno));
		return NULL;
	}
	l->w->loop = syscall(SYS_gettid);
	if (waitid(P_PID, l->w->stopping, &si, WSTOPPED | WNOWAIT)) {
		snprintf(l->w->err, sizeof(l->w->err),
			 "the loop thread: waitid(%d): %s", l->w->stopping,
			 strerror(errno));
		return NULL;
	}
	end = now_ns() + HOG_S * NSEC_PER_SEC;
	l->w->spun_until = end;
	/* Until the fork is done too (rescued): nothing waits any more. */
	while (now_ns() < end && !l->w->done_ns)
		;
	return NULL;
}

/* @pid's kernel stack on one line (/proc/PID/stack: root only). */
static void kernel_stack_of(pid_t pid, char *out, size_t len)
{
	char path[64], buf[2048], *l, *save = NULL;
	size_t off = 0;
	FILE *f;
	size_t n;

	snprintf(out, len, "unreadable");
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	out[0] = '\0';
	for (l = strtok_r(buf, "\n", &save); l && off + 1 < len;
	     l = strtok_r(NULL, "\n", &save)) {
		char *sym = strstr(l, "] ");

		off += snprintf(out + off, len - off, "%s%s", off ? " < " : "",
				sym ? sym + 2 : l);
	}
}

/*
 * A process on CPU 0 whose SCHED_FIFO 10 child on @cpu stops itself
 * while the parent's stopper_loop() thread waits for that on @cpu; then
 * the parent forks (the wait). Exits when both are done.
 */
static pid_t stopper_start(struct waiter *w, int cpu)
{
	struct stopper_loop l = { .w = w, .cpu = cpu };
	struct progress_sample ps;
	char path[64], st[256], state, kstack[320];
	pthread_t loop;
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "stv-forker");
	rt_hard_timers();
	/* Not w->stopping = fork(): the child would store 0 there too. */
	pid = fork();
	if (!pid) {
		struct sched_attr a = fifo_attr(10);
		struct rusage ru;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "stv-stopping");
		if (sched_setattr_tid(0, &a) || pin(0, cpu))
			_exit(1);
		while (!w->go)
			usleep(1000);
		getrusage(RUSAGE_THREAD, &ru);
		w->nvcsw = ru.ru_nvcsw;
		w->nivcsw = ru.ru_nivcsw;
		raise(SIGSTOP);
		_exit(0);
	}
	w->stopping = pid;
	if (pid < 0 || pthread_create(&loop, NULL, stopper_loop, &l))
		_exit(1);
	/* The loop thread asleep (in waitid()) before the child stops. */
	while (!w->loop && !w->err[0])
		usleep(1000);
	snprintf(path, sizeof(path), "/proc/%d/task/%d", getpid(), w->loop);
	while (!w->err[0] && task_state_at(path, st, sizeof(st)) != 'S')
		usleep(1000);
	w->go = 1;
	while (!w->spun_until && !w->err[0])
		usleep(1000);
	if (w->err[0])
		_exit(1);
	/* Where the stop left the child, for the test to check. */
	state = task_state(w->stopping, st, sizeof(st));
	task_progress(w->stopping, &ps);
	kernel_stack_of(w->stopping, kstack, sizeof(kstack));
	snprintf(w->stopped, sizeof(w->stopped),
		 "state %c, %ld voluntary and %ld involuntary switches since it raised SIGSTOP; kernel stack: %s",
		 state ? state : '?', (long)ps.nvcsw - w->nvcsw,
		 (long)ps.nivcsw - w->nivcsw, kstack);
	w->preempted = state == 'T' && ps.valid &&
		       (long)ps.nvcsw == w->nvcsw && (long)ps.nivcsw > w->nivcsw;
	pid = fork();
	if (!pid)
		_exit(0);
	if (pid > 0 && waitpid(pid, NULL, 0) == pid)
		w->done_ns = now_ns();
	kill(w->stopping, SIGKILL);
	waitpid(w->stopping, NULL, 0);
	pthread_join(loop, NULL);
	_exit(0);
}

/*
 * Starvation of a task on the test CPU (a kernel thread) that a task
 * waits for: start the busy loop and @start_waiter in @order; returns when
 * the wait and the loop have ended, with whether the wait ended before
 * the loop would have.
 * The loop spins until at least HOG_S after it was forked (or, in
 * WAITER_LOOPS, after the stop woke it): a wait that ended before then
 * ended during the loop. (Not the time this process sees the loop exit:
 * the kernel thread and the waiter, on the CPU the loop frees, can finish
 * before this process, woken on the other CPU, reads the clock, which
 * would show a wait that "ended during the busy loop" without any
 * daemon.)
 */
static bool waiter_round(FIXTURE_DATA(rescue) *self, struct waiter *w,
			 pid_t (*start_waiter)(struct waiter *, int),
			 enum round_order order)
{
	uint64_t spun_until;

	memset((void *)w, 0, sizeof(*w));
	if (order == WAITER_LOOPS) {
		self->worker = start_waiter(w, self->cpu);
		waitpid(self->worker, NULL, 0);
		self->worker = 0;
		return w->done_ns && w->done_ns < w->spun_until;
	}
	if (order == WAITER_FIRST) {
		struct thread_attr a;
		char st[256];
		int i;

		self->worker = start_waiter(w, self->cpu);
		/*
		 * Asleep in clock_nanosleep() with its last run on the test
		 * CPU, so its timer is queued there: were the busy loop to
		 * start first, the sleeper could move to CPU 0 and arm it
		 * there (a wait that was never at risk).
		 */
		for (i = 0; i < 500; i++) {
			if (w->armed && !read_attr(self->worker, self->worker, &a) &&
			    task_state(self->worker, st, sizeof(st)) == 'S' &&
			    a.cpu == self->cpu)
				break;
			usleep(10 * 1000);
		}
		spun_until = now_ns() + HOG_S * NSEC_PER_SEC;
		self->hog = hog_start(self->cpu, HOG_PRIO, HOG_S);
	} else {
		spun_until = now_ns() + HOG_S * NSEC_PER_SEC;
		self->hog = hog_start(self->cpu, HOG_PRIO, HOG_S);
		usleep(200 * 1000);	/* spinning */
		self->worker = start_waiter(w, self->cpu);
	}
	/*
	 * The wait ends first, rescued or once the loop is over: the loop
	 * is then of no more use (stopped early, it can only shorten the
	 * round, never make a wait look as if it ended during the loop).
	 */
	waitpid(self->worker, NULL, 0);
	self->worker = 0;
	kill_and_reap(self->hog);
	self->hog = 0;
	return w->done_ns && w->done_ns < spun_until;
}

static pid_t refresher(struct waiter *w, int cpu)
{
	return stat_refresher(w);
}

/* Does the running kernel's BTF have a variable named @name? */
static bool kernel_btf_has_var(const char *name)
{
#ifndef STARVD_NO_BPF
	struct btf *btf = btf__load_vmlinux_btf();
	bool has;

	if (libbpf_get_error(btf))
		return false;
	has = btf__find_by_name_kind(btf, name, BTF_KIND_VAR) > 0;
	btf__free(btf);
	return has;
#else
	return false;	/* built without libbpf: no BPF backend either */
#endif
}

/*
 * The report of the starving task says what it waits to run. With the
 * BPF backend: @what is "function" and @name a function of the work
 * queued for it or one it runs, or @what is "softirqs" and @name one of
 * those pending. A ksoftirqd's softirqs are read only where the kernel's
 * BTF has the per-CPU variable that holds them (from 6.1 in Debian's
 * kernels): elsewhere the report says it could not. With the module's
 * backend: that the module cannot tell.
 */
static void expect_pending(struct __test_metadata *_metadata,
			   const char *line, const char *what,
			   const char *name)
{
	const char *unknown = NULL, *list, *end;
	char want[128];

	if (strcmp(test_backend(), "bpf"))
		unknown = "\"pending\":{\"unknown\":\"the kernel module has no access";
	else if (!strcmp(what, "softirqs") &&
		 !kernel_btf_has_var("irq_stat") &&
		 !kernel_btf_has_var("pcpu_hot") &&
		 !kernel_btf_has_var("__softirq_pending"))
		unknown = "\"pending\":{\"unknown\":\"this kernel's BTF or kallsyms lack";
	if (unknown) {
		EXPECT_TRUE(strstr(line, unknown) != NULL)
			TH_LOG("the report does not say %s: %s", unknown, line);
		return;
	}
	if (!strcmp(what, "function")) {
		snprintf(want, sizeof(want), "\"function\":\"%s\"", name);
		EXPECT_TRUE(strstr(line, want) != NULL)
			TH_LOG("the report does not name %s: %s", name, line);
		return;
	}
	snprintf(want, sizeof(want), "\"%s\"", name);
	list = strstr(line, "\"softirqs\":[");
	end = list ? strchr(list, ']') : NULL;
	EXPECT_TRUE(end && strstr(list, want) && strstr(list, want) < end)
		TH_LOG("the report does not list %s pending: %s", name, line);
}

static void waiter_test(struct __test_metadata *_metadata,
			FIXTURE_DATA(rescue) *self,
			pid_t (*start_waiter)(struct waiter *, int),
			enum round_order order, const char *const *names,
			const char *option, const char *what,
			const char *name)
{
	const char *args[] = { "-t", THRESHOLD, "-d", "1", option, NULL };
	struct waiter *w = waiter_map();
	bool named = false, lower_bound = false;
	int i;

	ASSERT_TRUE(NULL != w);
	EXPECT_FALSE(waiter_round(self, w, start_waiter, order))
		TH_LOG("without starvd the wait ended during the busy loop: nothing starved");
	if (order == WAITER_LOOPS) {
		ASSERT_NE(0, w->spun_until)
			TH_LOG("the child's stop never woke the busy loop: %s",
			       w->err);
		TH_LOG("without starvd, once the loop ran: %s", w->stopped);
		ASSERT_TRUE(w->preempted)
			TH_LOG("the loop did not preempt the child inside its stop");
	}
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_TRUE(daemon_up(self->d));
	if (!waiter_round(self, w, start_waiter, order)) {
		const char *l = self->d->out;

		/* What starvd did about the starving tasks, for the log. */
		daemon_drain(self->d, 200);
		while ((l = strstr(l, names[0]))) {
			const char *b = l, *e = strchr(l, '\n');

			while (b > self->d->out && b[-1] != '\n')
				b--;
			TH_LOG("%.*s", (int)((e ? e : l + strlen(l)) - b), b);
			l = e ? e : l + strlen(l);
		}
		EXPECT_TRUE(false)
			TH_LOG("with starvd the wait still lasted the whole busy loop (it ended %s)",
			       w->done_ns ? "after it" : "never");
	}
	if (order == WAITER_LOOPS)
		TH_LOG("with starvd, once the loop ran: %s", w->stopped);
	/* The busy loop has exited: match it by the name hog_start() gave. */
	for (i = 0; names[i] && !named; i++) {
		char comm[64], hcomm[64];

		self->d->out_pos = 0;
		while (!daemon_wait_event(self->d, "starving", 0, 100,
					  self->line, sizeof(self->line))) {
			const char *h = strstr(self->line, "\"holder\":{");

			json_str(self->line, "comm", comm, sizeof(comm));
			if (strncmp(comm, names[i], strlen(names[i])) ||
			    json_int(self->line, "cpu") != self->cpu || !h)
				continue;
			json_str(h, "comm", hcomm, sizeof(hcomm));
			TH_LOG("starvd: %s starved on CPU %d behind %s", comm,
			       self->cpu, hcomm);
			named = !strcmp(hcomm, "stv-hog");
			lower_bound = strstr(self->line,
					     "\"wait_lower_bound\":true");
			if (named)
				break;
		}
	}
	EXPECT_TRUE(named)
		TH_LOG("no report named the starving task and the busy loop");
	if (named && what)
		expect_pending(_metadata, self->line, what, name);
	/* Never stamped: starvd vouches only for when it first saw it. */
	if (order == WAITER_LOOPS && named)
		EXPECT_TRUE(lower_bound) TH_LOG("%s", self->line);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 10000));
	snapshot_take(&self->after);
	EXPECT_EQ(0, snapshot_changed(_metadata, &self->before, &self->after));
	munmap(w, sizeof(*w));
}

TEST_F_TIMEOUT(rescue, kernel_thread_timer, 180)
{
	static const char *const kthreads[] = {
		"ktimers/", "ksoftirqd/", NULL
	};

	if (!kernel_preempt_rt())
		SKIP(return, "not PREEMPT_RT: a sleeper's hrtimer expires in interrupt context here, no kernel thread serves it");
	waiter_test(_metadata, self, timer_sleeper, WAITER_FIRST, kthreads,
		    NULL, NULL, NULL);
}

TEST_F_TIMEOUT(rescue, kernel_thread_workqueue, 180)
{
	static const char *const kthreads[] = { "kworker/", NULL };

	if (kernel_has_fair_server())
		SKIP(return, "the fair server (6.12+) gives SCHED_OTHER kworkers 5%% of a CPU behind a busy loop: no kworker starves here");
	waiter_test(_metadata, self, refresher, LOOP_FIRST, kthreads, NULL,
		    "function", "refresh_vm_stats");
}

TEST_F_TIMEOUT(rescue, kernel_thread_softirq, 180)
{
	static const char *const kthreads[] = { "ksoftirqd/", NULL };

	if (kernel_has_fair_server())
		SKIP(return, "the fair server (6.12+) gives ksoftirqd 5%% of a CPU behind a busy loop: it does not starve here");
	if (kernel_preempt_rt() || !kernel_cmdline_has("threadirqs"))
		SKIP(return, "boot a generic kernel with threadirqs: only then does every softirq a hard interrupt raises wait for ksoftirqd (PREEMPT_RT expires timers in ktimers/N)");
	waiter_test(_metadata, self, timeout_receiver, LOOP_FIRST, kthreads,
		    NULL, "softirqs", "TIMER");
}

static void stopping_test(struct __test_metadata *_metadata,
			  FIXTURE_DATA(rescue) *self, const char *option)
{
	static const char *const stopping[] = { "stv-stopping", NULL };

	if (!kernel_preempt_rt())
		SKIP(return, "not PREEMPT_RT: tasklist_lock disables preemption here, a stopping task is never preempted holding it");
	waiter_test(_metadata, self, stopper_start, WAITER_LOOPS, stopping,
		    option, NULL, NULL);
}

TEST_F_TIMEOUT(rescue, fork_waits_for_stopping_task, 180)
{
	stopping_test(_metadata, self, NULL);
}

/*
 * The same with the SCHED_FIFO emulation (-F), which must not take a task
 * that has not run yet for one that blocked: /proc shows it stopped.
 * (Not forced here: see the top of the file.)
 */
TEST_F_TIMEOUT(rescue, fork_waits_for_stopping_task_fifo, 180)
{
	stopping_test(_metadata, self, "-F");
}

TEST_HARNESS_MAIN

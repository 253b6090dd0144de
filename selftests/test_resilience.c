// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * starvd must never make things worse: boosts survive a SIGKILL of the
 * daemon (the next start restores them), a refused sched_setattr() falls
 * back with one log line, the daemon still works with a busy loop on
 * every CPU, and starvctl status/metrics describe what it does. Same
 * fixture and backends as test_starvation.c.
 */
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "lib/starve_fixture.h"
#include "cpuset.h"
#include "proc.h"
#include "task_cgroup.h"
#include "throttle.h"

#define THROTTLED_RT_US	950000	/* the kernel's default */

static const char *journal_file(pid_t tid)
{
	static char path[128];

	snprintf(path, sizeof(path), TEST_RUN_DIR "/boosts/%d", (int)tid);
	return path;
}

/*
 * Boost the victim for long, then SIGKILL starvd in the middle of it.
 * False: the test is skipped (said why), nothing left boosted.
 */
static bool kill_mid_boost(struct __test_metadata *_metadata,
			   FIXTURE_DATA(starve) *self)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO), mine, cur;
	pid_t tid = self->v.st->tid;
	char policy[32];

	/*
	 * Only the victim's process is boosted (-I: every process whose
	 * name does not begin with "stv-" is ignored, this test's among
	 * them). What the SIGKILL leaves boosted stays at 20 us of
	 * SCHED_DEADLINE a second until the next start, and these tests
	 * are about the victim. Left boosted, the test process may not run
	 * again for minutes after an overrun. On PREEMPT_RT, with every
	 * task eligible, kernel threads stay runnable without running after
	 * the SIGKILL (irq/4-ttyS0 on a mostly idle CPU 0, ktimers/1,
	 * rcuc/1), the serial IRQ thread holding CPU 0's softirq lock:
	 * ktimers/0, rcuc/0 and the killed starvd's BPF link release wait
	 * for it, and the test would time out (docs/kernel-behaviours.md,
	 * "The softirq lock of threaded IRQ handlers").
	 */
	ASSERT_EQ(0, sched_getattr_tid(0, &mine));
	START("-t", "0.5", "-d", "60", "-I", "^([^s]|s[^t]|st[^v]|stv[^-])");
	WAIT_EVENT("boost", tid);
	/*
	 * Frozen at once: a boost can become SCHED_FIFO emulation after a
	 * period (an overrun, boost.c), whose phases alternate between the
	 * boost and the task's own attributes, and these tests are about a
	 * SCHED_DEADLINE boost left behind. Unstopped, the victim can be
	 * SCHED_FIFO here.
	 */
	ASSERT_EQ(0, kill(self->d->pid, SIGSTOP));
	ASSERT_EQ(0, sched_getattr_tid(0, &cur));
	if (!sched_attr_same(&cur, &mine)) {
		/* starvd restores it as it stops: no SIGKILL then. */
		kill(self->d->pid, SIGCONT);
		daemon_stop(self->d, SIGTERM, 5000);
		ASSERT_TRUE(false)
			TH_LOG("the test process was boosted (policy %u) despite -I; stderr:\n%s",
			       cur.sched_policy, self->d->err);
	}
	json_str(self->line, "policy", policy, sizeof(policy));
	ASSERT_EQ(0, sched_getattr_tid(tid, &cur));
	if (strcmp(policy, "SCHED_DEADLINE") ||
	    cur.sched_policy != SCHED_DEADLINE) {
		TH_LOG("boost: %s", self->line);
		TH_LOG("stderr:\n%s", self->d->err);
		daemon_stop(self->d, SIGKILL, 5000);
		sched_setattr_tid(tid, &orig);
		unlink(journal_file(tid));
		SKIP(return false, "the boost was %s and the victim's policy %u when starvd was stopped (log above): these tests need a SCHED_DEADLINE boost",
		     policy, cur.sched_policy);
	}
	/*
	 * The busy loop goes first: on kernels without the fair server
	 * (before 6.12) it would starve the per-CPU kernel threads that a
	 * killed process's BPF teardown waits for, and nothing rescues them
	 * while starvd is down: the exit would not complete.
	 */
	kill_and_reap(self->hog);
	self->hog = 0;
	daemon_stop(self->d, SIGKILL, 5000);
	ASSERT_EQ(0, sched_getattr_tid(tid, &cur));
	ASSERT_EQ(SCHED_DEADLINE, cur.sched_policy)
		TH_LOG("the victim should still be boosted after the SIGKILL");
	ASSERT_EQ(0, access(journal_file(tid), F_OK))
		TH_LOG("no journal entry for the boosted victim");
	return true;
}

/* The restores happen at start-up: before starvd says it monitors. */
static void restart(struct __test_metadata *_metadata,
		    FIXTURE_DATA(starve) *self, const char *expect)
{
	const char *restored, *monitoring;
	uint64_t t0 = now_ns();

	/* A long threshold: nothing is boosted again during the check. */
	START("-t", "60");
	ASSERT_TRUE(daemon_wait_output(self->d, "monitoring CPUs", EVENT_MS))
		TH_LOG("starvd did not start: %s", self->d->err);
	TH_LOG("restart to 'monitoring': %.1f ms",
	       (double)(now_ns() - t0) / NSEC_PER_MSEC);
	restored = strstr(self->d->err, expect);
	monitoring = strstr(self->d->err, "monitoring CPUs");
	ASSERT_TRUE(NULL != restored) TH_LOG("no '%s' in:\n%s", expect,
					     self->d->err);
	EXPECT_TRUE(monitoring && restored < monitoring)
		TH_LOG("restored after 'monitoring CPUs':\n%s", self->d->err);
}

TEST_F_TIMEOUT(starve, sigkill_mid_boost_restored_at_next_start, 40)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	pid_t tid = self->v.st->tid;

	if (!kill_mid_boost(_metadata, self))
		return;
	restart(_metadata, self, "(left boosted by a previous starvd)");
	expect_attr(_metadata, tid, &orig);
	EXPECT_NE(0, access(journal_file(tid), F_OK));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

TEST_F_TIMEOUT(starve, sigkill_then_changed_by_someone_else, 40)
{
	struct sched_attr mine = fifo_attr(VICTIM_PRIO + 5);
	pid_t tid = self->v.st->tid;

	if (!kill_mid_boost(_metadata, self))
		return;
	ASSERT_EQ(0, set_attr_as_starvd_would(tid, &mine));
	restart(_metadata, self, "was changed by someone else");
	expect_attr(_metadata, tid, &mine);
	EXPECT_NE(0, access(journal_file(tid), F_OK));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

TEST_F_TIMEOUT(starve, sigkill_then_task_gone, 40)
{
	pid_t tid = self->v.st->tid;

	if (!kill_mid_boost(_metadata, self))
		return;
	victim_stop(&self->v);
	restart(_metadata, self, "from the boost journal is gone");
	EXPECT_NE(0, access(journal_file(tid), F_OK));
	EXPECT_FALSE(daemon_said_of(self->d, "cannot", tid))
		TH_LOG("stderr:\n%s", self->d->err);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/*
 * The restore comes first at start-up (docs/design.md, "The journal"): a start
 * that then fails, here at its backend (no BTF where it is told to look),
 * has put the victim back all the same.
 */
TEST_F_TIMEOUT(starve, sigkill_then_failed_start_restores, 40)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	pid_t tid = self->v.st->tid;
	int status;

	if (!kill_mid_boost(_metadata, self))
		return;
	ASSERT_EQ(0, setenv("STARVD_BTF_PATH", "/nonexistent/vmlinux", 1));
	START("-t", "60", "-b", "bpf");
	unsetenv("STARVD_BTF_PATH");
	status = daemon_stop(self->d, 0, EVENT_MS);
	ASSERT_TRUE(status > 0 && status < 128)
		TH_LOG("starvd should have failed to start (exit status %d):\n%s",
		       status, self->d->err);
	EXPECT_TRUE(NULL != strstr(self->d->err,
				   "(left boosted by a previous starvd)"))
		TH_LOG("no restore before the failure:\n%s", self->d->err);
	expect_attr(_metadata, tid, &orig);
	EXPECT_NE(0, access(journal_file(tid), F_OK));
}

/*
 * A thread name is any 15 bytes but NUL, newlines included, and
 * /proc/<tid>/stat shows it raw. A reader of that file that stops at
 * the first newline takes the task for gone and lets its boost go
 * without restoring it: left SCHED_DEADLINE, or raised SCHED_FIFO,
 * untracked.
 */
static void hostile_name_restored(struct __test_metadata *_metadata,
				  FIXTURE_DATA(starve) *self,
				  const char *mode)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc",
		.thread_name = "\x1b[2J\npid 1\nx\r",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	struct victim v;
	pid_t tid;

	add_victim(_metadata, self, &spec, &v);
	tid = v.st->tid;
	if (mode)
		START(mode, "-t", "0.5", "-d", "2");
	else
		START("-t", "0.5", "-d", "2");
	WAIT_EVENT("boost", tid);
	WAIT_EVENT("restore", tid);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
	EXPECT_NE(0, access(journal_file(tid), F_OK));
	victim_stop(&v);
}

TEST_F_TIMEOUT(starve, hostile_name_restored_deadline, 40)
{
	hostile_name_restored(_metadata, self, NULL);
}

TEST_F_TIMEOUT(starve, hostile_name_restored_fifo, 40)
{
	hostile_name_restored(_metadata, self, "-F");
}

static int count(const char *haystack, const char *needle)
{
	int n = 0;

	for (; (haystack = strstr(haystack, needle)); haystack++)
		n++;
	return n;
}

/*
 * With RT throttling on, the kernel refuses SCHED_DEADLINE for a task
 * pinned to fewer CPUs than its root domain (EPERM): starvd says so once
 * and boosts with the SCHED_FIFO emulation, every time.
 */
TEST_F_TIMEOUT(starve, deadline_refused_eperm_falls_back_once, 40)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	pid_t tid = self->v.st->tid;
	char policy[32];
	int boosts;

	/*
	 * As stalld, -S refuses to start with throttling on: it is turned on
	 * under the running daemon (an administrator's sysctl). The victim
	 * starves only from then on: a boost before it, which a slow guest
	 * can give, would rightly be SCHED_DEADLINE.
	 */
	kill_and_reap(self->hog);
	self->hog = 0;
	START("-S", "-t", "0.5", "-d", "0.3");
	WAIT_STARTED();
	ASSERT_EQ(0, rt_throttle_restore(THROTTLED_RT_US));
	self->hog = hog_start(self->cpu, HOG_PRIO, HOG_MAX_S);
	ASSERT_LT(0, self->hog);
	for (boosts = 0; boosts < 2; boosts++) {
		WAIT_EVENT("boost", tid);
		json_str(self->line, "policy", policy, sizeof(policy));
		EXPECT_STREQ("SCHED_FIFO", policy);
		WAIT_EVENT("restore", tid);
	}
	daemon_drain(self->d, 200);
	/* Kernel threads on that CPU may be refused the same way. */
	EXPECT_EQ(1, count(self->d->err, "refused: Operation not permitted"))
		TH_LOG("stderr:\n%s", self->d->err);
	/*
	 * Of the victim: a task that waits on starvd's own CPU behind one
	 * above starvd (stallwatch at 98 in the guests) is out of reach of
	 * the emulation there, and rightly said to be.
	 */
	EXPECT_FALSE(daemon_said_of(self->d, "cannot boost", tid))
		TH_LOG("stderr:\n%s", self->d->err);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
}

/* The value of "@key:" in /proc/@pid/status ("" if missing). */
static void proc_status(pid_t pid, const char *key, char *buf, size_t len)
{
	char path[64], line[256];
	size_t k = strlen(key);
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && line[k] == ':')
			sscanf(line + k + 1, " %[^\n]", buf);
	fclose(f);
}

/*
 * A SCHED_FIFO busy loop on every CPU, starvd's included: at a real-time
 * priority above them (as the unit runs it), pinned with -a and locked
 * in memory, it still sees the victim starve and boosts it.
 */
TEST_F_TIMEOUT(starve, busy_loop_on_every_cpu_fifo_daemon, 60)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	pid_t tid = self->v.st->tid, hogs[64];
	char v[64];
	int n;

	test_above_hogs(_metadata);
	START("-t", "0.5", "-d", "0.5", "--mlock");
	WAIT_STARTED();
	n = hog_other_cpus(self, hogs, HOG_PRIO);
	ASSERT_LT(0, n);
	WAIT_EVENT("boost", tid);
	WAIT_EVENT("restore", tid);
	proc_status(self->d->pid, "VmLck", v, sizeof(v));
	EXPECT_LT(0, atol(v)) TH_LOG("VmLck: %s", v);
	proc_status(self->d->pid, "Cpus_allowed_list", v, sizeof(v));
	EXPECT_STREQ("0", v);
	kill_hogs(self, hogs, n);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
}

/*
 * The same with starvd at SCHED_OTHER and a SCHED_DEADLINE reservation
 * (-R): SCHED_DEADLINE runs before any SCHED_FIFO busy loop. The loops
 * elsewhere are at 99, above the test: it watches from the test CPU,
 * above that CPU's loop (it sleeps but to read starvd's output: the
 * victim still starves). Behind a loop at 99 it would itself starve
 * until starvd boosts it, and a boost it overruns (a late tick under
 * emulation) leaves it owing the kernel minutes, which SCHED_FIFO
 * emulation cannot pay above a loop at 99.
 */
TEST_F_TIMEOUT(starve, busy_loop_on_every_cpu_reservation, 60)
{
	struct sched_attr orig = fifo_attr(VICTIM_PRIO), cur;
	pid_t tid = self->v.st->tid, hogs[64];
	const char *const args[] = { "-t", "0.5", "-d", "0.5", "-R", "10",
				     NULL };
	int n;

	test_above_hogs(_metadata);
	ASSERT_EQ(0, pin(0, self->cpu));
	self->d->pid = 0;
	ASSERT_EQ(0, daemon_start_as(self->d, args, NULL));
	WAIT_STARTED();
	ASSERT_TRUE(daemon_output_has(self->d, "SCHED_DEADLINE reservation"));
	ASSERT_EQ(0, sched_getattr_tid(self->d->pid, &cur));
	EXPECT_EQ(SCHED_DEADLINE, cur.sched_policy);
	n = hog_other_cpus(self, hogs, 99);
	ASSERT_LT(0, n);
	WAIT_EVENT("boost", tid);
	WAIT_EVENT("restore", tid);
	kill_hogs(self, hogs, n);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
}

/* A sleeping SCHED_DEADLINE thread holding @runtime_ns per second. */
struct blocker_arg {
	uint64_t runtime_ns;
	int ret;		/* 1 until sched_setattr() answered */
};

static void *blocker(void *arg)
{
	struct blocker_arg *a = arg;
	struct sched_attr dl = {
		.size = sizeof(dl),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = a->runtime_ns,
		.sched_deadline = NSEC_PER_SEC,
		.sched_period = NSEC_PER_SEC,
	};

	a->ret = sched_setattr_tid(0, &dl);
	for (;;)
		pause();
	return NULL;
}

/*
 * A child holding DEADLINE bandwidth: 50% reservations until one is
 * refused, then 10% and 1% ones, so that less than 1% stays free. A 50%
 * boost must still be refused when bandwidth that an exited task held
 * until its 0-lag time comes back meanwhile (the previous test's -R
 * reservation does: its 10% plus the 40% left over by the 50% ones would
 * let the boost through). Its pid, and in @held/@err how
 * many 50% reservations it holds and why the next failed.
 */
static pid_t hold_dl_bandwidth(int *held, int *err)
{
	static const uint64_t sizes[] = {
		500 * NSEC_PER_MSEC, 100 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC,
	};
	int ready[2], res[2] = { 0, 0 };
	pid_t pid;

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct blocker_arg a[3 * 64];
		int n = 0, i, ret;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		unpin(0);	/* the reservations need every CPU */
		for (i = 0; i < 3; i++) {
			ret = 0;
			while (n < (int)ARRAY_SIZE(a) && !ret) {
				pthread_t th;

				a[n] = (struct blocker_arg) {
					.runtime_ns = sizes[i], .ret = 1,
				};
				if (pthread_create(&th, NULL, blocker, &a[n]))
					a[n].ret = -EAGAIN;
				while (a[n].ret == 1)
					usleep(1000);
				ret = a[n++].ret;
				res[0] += !ret && i == 0;
			}
			if (i == 0)
				res[1] = ret;
		}
		if (write(ready[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], res, sizeof(res)) != sizeof(res))
		res[1] = -EIO;
	close(ready[0]);
	*held = res[0];
	*err = res[1];
	return pid;
}

/*
 * Lets the boosts starvd gave so far end: one in progress holds 50 % of
 * a CPU. Under TCG starvd's own start-up at SCHED_FIFO 60 can keep CPU
 * 0's tasks past the threshold. (A restore that left the bandwidth to
 * the kernel's 0-lag timer would, after the rebuild that turning RT
 * throttling on does, have it taken off the test's reservations and let
 * the test's 50 % boost through: docs/design.md, "Leaving
 * SCHED_DEADLINE".) False if boosts are still going on after EVENT_MS.
 */
static bool boosts_settled(struct daemon_proc *d)
{
	uint64_t end = now_ns() + EVENT_MS * NSEC_PER_MSEC;
	int seen = 0, n;

	daemon_drain(d, 100);
	while ((n = count(d->out, "\"event\":\"boost\"")) > seen) {
		while (count(d->out, "\"event\":\"restore\"") < n &&
		       now_ns() < end)
			daemon_drain(d, 100);
		if (now_ns() >= end)
			return false;
		seen = n;
		daemon_drain(d, 2000);	/* two periods without a new one */
	}
	if (seen)
		fprintf(stderr, "# %d boosts before the bandwidth was held, let end first:\n%s",
			seen, d->out);
	return true;
}

/*
 * SCHED_DEADLINE admission control refuses the boost (EBUSY: the
 * bandwidth is taken): SCHED_FIFO emulation instead, one line about it.
 * The victim is not pinned (pinned tasks get EPERM first) and starves
 * behind busy loops on every CPU.
 */
TEST_F_TIMEOUT(starve, deadline_refused_ebusy_falls_back, 60)
{
	struct victim_spec spec = {
		.proc_name = "stv-free",
		.thread_name = "stv-free",
		.cpu = -1,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	pid_t hogs[64], bw;
	struct victim free_victim;
	char policy[32];
	int n, held, err;

	test_above_hogs(_metadata);
	/*
	 * It must run once, to start: before the other CPUs are busy; and
	 * its wait starts once starvd runs (tracking mode sees it whole).
	 */
	ASSERT_EQ(0, victim_start(&spec, &free_victim));
	/*
	 * Nothing starves before the bandwidth is held: a SCHED_DEADLINE
	 * boost of the test CPU's victim would hold some of it, and free it
	 * for the free victim's boost when it ends (a slow guest can boost
	 * that early).
	 */
	kill_and_reap(self->hog);
	self->hog = 0;
	/* As stalld, -S refuses to start with throttling on: turned on after. */
	START("-S", "-t", "0.5", "-d", "0.5", "-r", "500000000",
	      "-p", "1000000000");
	WAIT_STARTED();
	ASSERT_TRUE(boosts_settled(self->d))
		TH_LOG("boosts still going on before the bandwidth is held:\n%s",
		       self->d->out);
	/* Admission control only works with RT throttling on. */
	ASSERT_EQ(0, rt_throttle_restore(THROTTLED_RT_US));
	bw = hold_dl_bandwidth(&held, &err);
	ASSERT_LT(0, bw);
	self->bw_holder = bw;
	ASSERT_EQ(-EBUSY, err) TH_LOG("%d reservations of 50%%, then %s",
				      held, strerror(-err));
	self->hog = hog_start(self->cpu, HOG_PRIO, HOG_MAX_S);
	ASSERT_LT(0, self->hog);
	n = hog_other_cpus(self, hogs, HOG_PRIO);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, daemon_wait_event(self->d, "boost", free_victim.st->tid,
				       EVENT_MS, self->line,
				       sizeof(self->line)))
		TH_LOG("no boost of %d; stdout:\n%s", free_victim.st->tid,
		       self->d->out);
	json_str(self->line, "policy", policy, sizeof(policy));
	EXPECT_STREQ("SCHED_FIFO", policy);
	WAIT_EVENT("restore", free_victim.st->tid);
	/* Starving again, boosted again: said once all the same. */
	WAIT_EVENT("boost", free_victim.st->tid);
	daemon_drain(self->d, 200);
	EXPECT_EQ(1, count(self->d->err, "refused: Device or resource busy"))
		TH_LOG("stderr:\n%s", self->d->err);
	EXPECT_TRUE(daemon_output_has(self->d, "admission control"));
	kill_hogs(self, hogs, n);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, free_victim.st->tid, &orig);
	victim_stop(&free_victim);
}

/* Has the victim run within @ms? Its count is the witness. */
static bool victim_runs_within(struct victim *v, int ms)
{
	return victim_progressed(v, v->st->count, ms);
}

/* Does @tid get CPU time within @ms of having had @since? */
static bool gets_cpu_within(pid_t tid, uint64_t since, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * NSEC_PER_MSEC;

	do {
		if (task_exec_ns(tid) > since)
			return true;
		usleep(10 * 1000);
	} while (now_ns() < end);
	return false;
}

/*
 * A task the kernel leaves throttled after a SCHED_DEADLINE reservation
 * (its replenishment timer fired while it had another policy, and its
 * 0-lag time is still ahead; docs/kernel-behaviours.md, "A task left
 * throttled is not enqueued again") is not enqueued by
 * a new sched_setattr() to SCHED_DEADLINE: a boost would give it
 * nothing. A victim that works 200 us each time it runs is put in that
 * state by hand (a 1 us runtime per second: its overrun puts its 0-lag
 * time minutes ahead), the kernel's behaviour is checked, then a fresh
 * starvd (no history of the task) boosts it: after one period it must
 * find the boost unserved and go on with the SCHED_FIFO emulation, and
 * the victim must get CPU time during the boost, not after its 30 s.
 */
TEST_F_TIMEOUT(starve, deadline_unserved_becomes_fifo, 60)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc",
		.thread_name = "stv-worker",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
		.burn_ns = 200 * NSEC_PER_USEC,
	};
	struct sched_attr orig = fifo_attr(VICTIM_PRIO), dl = {
		.size = sizeof(dl),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = 1024,
		.sched_deadline = NSEC_PER_SEC,
		.sched_period = NSEC_PER_SEC,
	};
	struct victim w;
	char policy[32];
	uint64_t t0;
	pid_t tid;

	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	ASSERT_TRUE(victim_stuck(&w));
	t0 = now_ns();
	ASSERT_EQ(0, sched_setattr_tid(tid, &dl));
	/* It runs, overruns its microsecond, is throttled, and leaves. */
	usleep(200 * 1000);
	ASSERT_EQ(0, sched_setattr_tid(tid, &orig));
	/* Its replenishment timer fires while it is SCHED_FIFO. */
	while (now_ns() < t0 + NSEC_PER_SEC + 200 * NSEC_PER_MSEC)
		usleep(10 * 1000);
	dl.sched_runtime = 20000;	/* what starvd grants */
	ASSERT_EQ(0, sched_setattr_tid(tid, &dl));
	if (victim_runs_within(&w, 1500)) {
		ASSERT_EQ(0, sched_setattr_tid(tid, &orig));
		victim_stop(&w);
		SKIP(return, "this kernel runs a task made SCHED_DEADLINE again while throttled from an earlier reservation: nothing to fall back from");
	}
	ASSERT_EQ(0, sched_setattr_tid(tid, &orig));

	START("-t", "0.5", "-d", "30");
	WAIT_EVENT("boost", tid);
	json_str(self->line, "policy", policy, sizeof(policy));
	EXPECT_STREQ("SCHED_DEADLINE", policy);
	EXPECT_TRUE(daemon_wait_output(self->d, "has not run at all since its SCHED_DEADLINE boost began",
				       EVENT_MS))
		TH_LOG("stderr:\n%s", self->d->err);
	/*
	 * CPU time, not a loop of the victim: the emulation gives it its
	 * 20 us a period, and one loop of it needs 200 us.
	 */
	EXPECT_TRUE(gets_cpu_within(tid, task_exec_ns(tid), EVENT_MS))
		TH_LOG("the victim got no CPU time during the boost");
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
	victim_stop(&w);
}

/* A victim on @cpu that always has work: 100 ms busy, 1 ms asleep. */
static struct victim_spec burner_spec(int cpu)
{
	return (struct victim_spec) {
		.proc_name = "stv-proc",
		.thread_name = "stv-burner",
		.cpu = cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = NSEC_PER_MSEC,
		.burn_ns = 100 * NSEC_PER_MSEC,
	};
}

/*
 * A SCHED_DEADLINE task that runs past its runtime (to the next tick
 * without HRTICK_DL, which lockdown keeps out of reach, or late under
 * emulation) has its deadline moved overrun/runtime periods ahead, and
 * the kernel does not run it again until then: for the rest of a long
 * boost, a task that always has work would get nothing, where its own
 * policy would run it as soon as the busy loop lets go. A victim that
 * burns 100 ms at a time is boosted for 30 s; where the kernel let it
 * overrun (the test skips where it held it to its runtime), starvd must
 * go on with the SCHED_FIFO emulation at its next check, and the victim
 * must get CPU time after that.
 */
TEST_F_TIMEOUT(starve, deadline_overrun_becomes_fifo, 60)
{
	struct victim_spec spec = burner_spec(self->cpu);
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	const uint64_t runtime = 20000;	/* starvd's default -r */
	uint64_t e0, t0, ran, periods;
	struct victim w;
	char policy[32];
	bool switched;
	pid_t tid;

	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	ASSERT_TRUE(victim_stuck(&w));
	e0 = task_exec_ns(tid);
	START("-t", "0.5", "-d", "30");
	WAIT_EVENT("boost", tid);
	t0 = now_ns();
	json_str(self->line, "policy", policy, sizeof(policy));
	EXPECT_STREQ("SCHED_DEADLINE", policy);
	/* Its first check is one period (-p, 1 s) into the boost. */
	switched = daemon_wait_output(self->d, "SCHED_FIFO emulation for the rest of this boost and until then",
				      EVENT_MS);
	ran = task_exec_ns(tid) - e0;
	periods = (now_ns() - t0) / NSEC_PER_SEC + 1;
	if (!switched && ran <= (periods + 5) * runtime) {
		EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
		victim_stop(&w);
		SKIP(return, "the kernel held the victim to its runtime (%llu us in %llu periods): no overrun to recover from",
		     (unsigned long long)ran / 1000,
		     (unsigned long long)periods);
	}
	EXPECT_TRUE(switched)
		TH_LOG("the victim ran %llu us in %llu periods of a %llu us boost, and starvd kept it waiting for its deadline; stderr:\n%s",
		       (unsigned long long)ran / 1000,
		       (unsigned long long)periods,
		       (unsigned long long)runtime / 1000, self->d->err);
	EXPECT_TRUE(gets_cpu_within(tid, task_exec_ns(tid), EVENT_MS))
		TH_LOG("the victim got no CPU time after the switch");
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
	victim_stop(&w);
}

/*
 * A task that leaves SCHED_DEADLINE keeps its bandwidth in the kernel's
 * total until its 0-lag time, and a root domain rebuild in between (any
 * write of sched_rt_runtime_us, a cpuset change) recounts the total
 * without it: taking it off then wraps the total below zero, and the
 * kernel refuses every write of sched_rt_runtime_us (EBUSY), CPU hotplug
 * and, with RT throttling on, every SCHED_DEADLINE admission, until the
 * next rebuild (docs/design.md, "Leaving SCHED_DEADLINE"). starvd's restores
 * must leave no bandwidth behind. The boost's 4 s period puts the 0-lag
 * time of a victim that ran its runtime (0.5 s) about 3 s after the
 * restore of a 1 s boost; in that window the test rebuilds, then takes
 * the victim into SCHED_DEADLINE itself, which takes off at once what
 * the timer would have (as starvd's next boost of it would). The total
 * (sched/debug, where it can be read) must not change, and RT
 * throttling must turn on: 12.5 % taken off a total that does not have
 * it wraps it on 2 CPUs even where a rebuild counts the fair servers'
 * 5 % each (6.14 and later).
 */
/* The SCHED_DEADLINE total of the first root domain, or -errno. */
static int dl_total_bw(long long *total)
{
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");
	char line[256];
	int ret = -ENOENT;

	if (!f)
		f = fopen("/proc/sched_debug", "r");	/* before 5.13 */
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " .dl_bw->total_bw : %lld", total) == 1) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

TEST_F_TIMEOUT(starve, restore_leaves_no_deadline_bandwidth_behind, 60)
{
	struct victim_spec spec = burner_spec(self->cpu);
	struct sched_attr orig = fifo_attr(VICTIM_PRIO), none = {
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = 1024, .sched_deadline = 1ULL << 31,
		.sched_period = 1ULL << 31,
	};
	long long before, after;
	char policy[32];
	bool have_total;
	struct victim w;
	pid_t tid;
	int ret;

	if (!strcmp(test_backend(), "netlink") &&
	    !access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP(return, "the restore does not depend on the backend: the BPF backend's run covers this kernel");
	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	ASSERT_TRUE(victim_stuck(&w));
	START("-t", "0.5", "-r", "500000000", "-p", "4000000000", "-d", "1");
	WAIT_EVENT("boost", tid);
	json_str(self->line, "policy", policy, sizeof(policy));
	ASSERT_STREQ("SCHED_DEADLINE", policy);
	WAIT_EVENT("restore", tid);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
	/* A rebuild: RT throttling stays as the fixture set it, off. */
	ASSERT_EQ(0, write_string(RT_RUNTIME_PATH, "-1"));
	have_total = !dl_total_bw(&before);
	ASSERT_EQ(0, sched_setattr_tid(tid, &none));
	ASSERT_EQ(0, sched_setattr_tid(tid, &orig));
	if (have_total) {
		ASSERT_EQ(0, dl_total_bw(&after));
		EXPECT_EQ(before, after)
			TH_LOG("the kernel's SCHED_DEADLINE total went from %lld to %lld when the victim's bandwidth left behind was taken off; stderr:\n%s",
			       before, after, self->d->err);
	}
	ret = write_string(RT_RUNTIME_PATH, "950000");
	EXPECT_EQ(0, ret)
		TH_LOG("RT throttling cannot be turned on (%s): the kernel's SCHED_DEADLINE total lost the bandwidth starvd's restore left behind; stderr:\n%s",
		       strerror(-ret), self->d->err);
	victim_stop(&w);
}

/*
 * A boosted task that does its work and goes back to sleep is asleep
 * past its 0-lag time when its boost ends: taken out of SCHED_DEADLINE in
 * one step, it would keep its bandwidth in the kernel's total for good
 * (docs/kernel-behaviours.md, "DEADLINE bandwidth left behind after a
 * task leaves the class"), on every kernel, with no rebuild needed. A
 * victim that runs once and sleeps 3 s is boosted at 50 % for 1 s: once
 * it is restored, the total holds none of it.
 */
TEST_F_TIMEOUT(starve, restore_while_asleep_leaves_no_bandwidth, 60)
{
	struct victim_spec spec = {
		.proc_name = "stv-sleeper",
		.thread_name = "stv-sleeper",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 3 * NSEC_PER_SEC,
	};
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	long long before, after;
	char policy[32];
	struct victim w;
	pid_t tid;

	if (dl_total_bw(&before))
		SKIP(return, "the kernel's SCHED_DEADLINE total is not readable here (no sched/debug in debugfs)");
	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	/* It alone is boosted, not stv-victim: the total holds no other. */
	START("-t", "0.5", "-r", "500000000", "-p", "1000000000", "-d", "1",
	      "-I", "^([^s]|s[^t]|st[^v]|stv[^-]|stv-[^s])");
	WAIT_EVENT("boost", tid);
	json_str(self->line, "policy", policy, sizeof(policy));
	ASSERT_STREQ("SCHED_DEADLINE", policy);
	WAIT_EVENT("restore", tid);
	ASSERT_EQ(0, dl_total_bw(&after));
	EXPECT_LE(after, before)
		TH_LOG("the kernel's SCHED_DEADLINE total went from %lld to %lld once the victim, asleep, was restored; events:\n%sstderr:\n%s",
		       before, after, daemon_out_tail(self->d, 4096),
		       self->d->err);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	expect_attr(_metadata, tid, &orig);
	victim_stop(&w);
}

/* The value of a Prometheus sample "@series " in @out, -1 if missing. */
static double metric(const char *out, const char *series)
{
	char want[128];
	const char *p;

	snprintf(want, sizeof(want), "\n%s ", series);
	if (!strncmp(out, want + 1, strlen(want + 1)))
		return atof(out + strlen(want + 1));
	p = strstr(out, want);
	return p ? atof(p + strlen(want)) : -1;
}

/*
 * starvctl status and metrics during a boost, and once starvd is gone.
 * Kernel threads queued behind the busy loop may starve and be boosted
 * too: counts are at least the victim's. The victim is a burner, which is
 * runnable at every moment, so that the live read finds it waiting
 * unless it is running its boost. The fixture's sleeper is not: raised
 * above the busy loop by the SCHED_FIFO emulation until it has used its
 * runtime, it spends the raise asleep in its 5 ms naps. With it, a read
 * can find no waiter during two boosts.
 */
TEST_F_TIMEOUT(starve, status_and_metrics_show_the_boost, 40)
{
	struct victim_spec spec = burner_spec(self->cpu);
	char out[16384], err[8192] = "", series[128], want[64];
	char what[CGROUP_PATH_LEN + 64];
	struct task_cgroup cg;
	const char *row;
	struct victim w;
	pid_t tid;
	int i;

	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	START("-t", "0.5", "-d", "60");
	WAIT_EVENT("boost", tid);
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "status", "--json")) TH_LOG("%s", out);
	EXPECT_LE(1, json_int(out, "boosts"));
	EXPECT_EQ(self->d->pid, json_int(out, "pid"));
	snprintf(want, sizeof(want), "\"tid\":%d,", (int)tid);
	EXPECT_TRUE(NULL != strstr(strstr(out, "\"boosting\"") ?: "", want))
		TH_LOG("%s", out);
	/*
	 * What the boosted victim is, as its report read it: a user task,
	 * in its cgroup ("" where /proc names none: the guests mount no
	 * cgroup hierarchy).
	 */
	task_cgroup_read(tid, &cg);
	snprintf(what, sizeof(what), "\"kind\":\"user\",\"cgroup\":\"%s\"",
		 cg.path);
	EXPECT_TRUE(NULL != strstr(strstr(strstr(out, "\"boosting\"") ?: "",
					  want) ?: "", what))
		TH_LOG("%s not in %s", what, out);
	/* And in the text's boost table, its row: TID, CPU, ..., KIND. */
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "status")) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "\n%7d %4d ", (int)tid, self->cpu);
	row = strstr(out, want);
	EXPECT_TRUE(row && strstr(row, "  user ") &&
		    strstr(row, "  user ") < strchr(row + 1, '\n'))
		TH_LOG("no row of %d with kind user in:\n%s", (int)tid, out);

	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "-b", test_backend(), "metrics")) TH_LOG("%s", out);
	EXPECT_EQ(1, metric(out, "starvd_up"));
	EXPECT_LE(1, metric(out, "starvd_boosts_in_progress"));
	const char *const per_cpu[] = {
		"starvd_boosts_total", "starvd_starvation_events_total",
	};
	for (i = 0; i < 2; i++) {
		snprintf(series, sizeof(series), "%s{cpu=\"%d\"}", per_cpu[i],
			 self->cpu);
		EXPECT_LE(1, metric(out, series)) TH_LOG("%s", series);
	}
	snprintf(series, sizeof(series),
		 "starvd_starving_episodes_total{cpu=\"%d\",kind=\"user\"}",
		 self->cpu);
	EXPECT_LE(1, metric(out, series)) TH_LOG("%s in %s", series, out);
	snprintf(series, sizeof(series), "starvd_cpu_waiters{cpu=\"%d\"}",
		 self->cpu);
	if (metric(out, series) < 1) {
		/* Where the victim is now, and what starvd said of it. */
		task_where(w.pid);
		RUN(err, bin_path("starvctl"), "-b", test_backend(), "tasks");
	}
	EXPECT_LE(1, metric(out, series))
		TH_LOG("%s\nstarvctl tasks a moment later:\n%s\nstarvd's stderr:\n%s",
		       out, err, self->d->err);

	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
	EXPECT_EQ(1, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "status"));
	EXPECT_TRUE(NULL != strstr(out, "starvd is not running")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "-b", test_backend(), "metrics"));
	EXPECT_EQ(0, metric(out, "starvd_up"));
	victim_stop(&w);
}

/*
 * What a fleet's Prometheus gets: node_exporter's textfile collector
 * parses the file "starvctl metrics -o" writes during a boost (a format
 * error would show as node_textfile_scrape_error 1) and serves starvd's
 * samples as written.
 */
TEST_F_TIMEOUT(starve, metrics_scraped_by_node_exporter, 40)
{
	char dir[] = "/tmp/starvd-prom.XXXXXX", file[PATH_MAX + 16];
	const char *exporter =
		test_path("node-exporter/usr/bin/prometheus-node-exporter");
	char out[16384], series[128];
	pid_t tid = self->v.st->tid;
	int ret;

	if (getenv("STARVD_VM_GUEST"))
		SKIP(return, "the test guests have no network, not even loopback: node_exporter is checked on the host");
	ASSERT_EQ(0, access(exporter, X_OK))
		TH_LOG("%s missing: make -C selftests fetches it", exporter);
	ASSERT_TRUE(NULL != mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/starvd.prom", dir);

	START("-t", "0.5", "-d", "60");
	WAIT_EVENT("boost", tid);
	ret = RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
		  "-b", test_backend(), "metrics", "-o", file);
	EXPECT_EQ(0, ret) TH_LOG("%s", out);
	/*
	 * The file is written: end the busy loop before the scrape, or the
	 * exporter's threads on the test CPU starve (and its runtime with
	 * them: a stop-the-world waits for every thread).
	 */
	kill_and_reap(self->hog);
	self->hog = 0;
	if (!ret)
		ret = RUN(out, "./scrape.sh", exporter, dir);
	unlink(file);
	rmdir(dir);
	ASSERT_EQ(0, ret) TH_LOG("%s", out);
	EXPECT_EQ(0, metric(out, "node_textfile_scrape_error"))
		TH_LOG("%s", out);
	EXPECT_EQ(1, metric(out, "starvd_up"));
	EXPECT_LE(1, metric(out, "starvd_boosts_in_progress"));
	snprintf(series, sizeof(series), "starvd_boosts_total{cpu=\"%d\"}",
		 self->cpu);
	EXPECT_LE(1, metric(out, series)) TH_LOG("%s", series);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/* --kstack: the report carries the starved task's kernel stack. */
TEST_F_TIMEOUT(starve, kstack_in_report, 40)
{
	char stack[1024];

	START("-t", "0.5", "-l", "--kstack");
	WAIT_EVENT("starving", self->v.st->tid);
	json_str(self->line, "stack", stack, sizeof(stack));
	/*
	 * Woken from its sleep and never run since, it is still in the
	 * syscall; preempted in user mode, it is in the return to it, or
	 * (6.1-rt) shown at the entry of the interrupt that preempted it
	 * ("asm_sysvec_reschedule_ipi+0x16/0x20 <- ...").
	 */
	EXPECT_TRUE(strstr(stack, "nanosleep") ||
		    strstr(stack, "exit_to_user_mode") ||
		    !strncmp(stack, "asm_sysvec_", 11) ||
		    !strncmp(stack, "asm_common_interrupt", 20))
		TH_LOG("stack: %s", stack);
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, 5000));
}

/*
 * Every test kills its children as kill_and_reap() does: stopped, given
 * the caller's CPU and policy, then killed. A child holding
 * SCHED_DEADLINE bandwidth (a reservation of its own, or a boost) is
 * stopped long past its 0-lag time, and a task taken out of the class
 * in one step then keeps its bandwidth in the kernel's total for good
 * (docs/kernel-behaviours.md, "DEADLINE bandwidth left behind after a
 * task leaves the class"): a few such kills and RT throttling cannot be
 * turned on again, every later test that needs it failing with EBUSY.
 * The total is back where it was once the child is gone.
 */
TEST(killed_deadline_child_leaves_no_bandwidth)
{
	struct sched_attr dl = {
		.size = sizeof(dl),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = 100 * NSEC_PER_MSEC,
		.sched_deadline = NSEC_PER_SEC,
		.sched_period = NSEC_PER_SEC,
	};
	long long before, held, after;
	int ready[2], ret = -EIO;
	pid_t pid;

	if (dl_total_bw(&before))
		SKIP(return, "the kernel's SCHED_DEADLINE total is not readable here (no sched/debug in debugfs)");
	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		unpin(0);	/* a reservation needs every CPU */
		ret = sched_setattr_tid(0, &dl);
		if (write(ready[1], &ret, sizeof(ret)) != sizeof(ret))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = -EIO;
	close(ready[0]);
	if (ret) {
		kill_and_reap(pid);
		ASSERT_EQ(0, ret)
			TH_LOG("a reservation of 10%% refused (%s): bandwidth already lost to an earlier test?",
			       strerror(-ret));
	}
	ASSERT_EQ(0, dl_total_bw(&held));
	EXPECT_LT(before, held);
	/* Asleep past its 0-lag time (microseconds after it blocked). */
	usleep(100 * 1000);
	kill_and_reap(pid);
	ASSERT_EQ(0, dl_total_bw(&after));
	EXPECT_LE(after, before)
		TH_LOG("the kernel's SCHED_DEADLINE total went from %lld to %lld (%lld with the child) after the child was killed",
		       before, after, held);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Task identity (user/task_id.h): a change never stays on a task that
 * reused a boosted task's tid. A fake kernel hands the tid to a stranger
 * before each of the calls a change makes in turn; then real tasks, a
 * pid reused on purpose (lib/pid_reuse.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/pid_reuse.h"
#include "lib/workload.h"
#include "proc.h"
#include "sched_attr.h"
#include "task_id.h"

#define FAKE_TID	4242
/* Past any open file: task_id_close() closes nothing of the test's. */
#define OLD_PIDFD	0x7ffffff0	/* the boosted task's pidfd */
#define NEW_PIDFD	0x7ffffff1	/* the stranger's */

struct fake_task {
	uint64_t start;
	struct sched_attr attr;
};

/*
 * The fake kernel: the tid is the old task's until call @reuse_at, from
 * which on it is the stranger's (the old task exited, was reaped, and its
 * tid handed out again).
 */
static struct {
	struct fake_task old, stranger;
	bool reused;
	int calls, reuse_at;
	bool pidfds;			/* the kernel gives one for the tid */
	bool unreadable;		/* the start time cannot be read */
	int first_set;			/* the call that first set attributes */
	int leaves;			/* leave_deadline() calls */
} fk;

static struct fake_task *holder(void)
{
	return fk.reused ? &fk.stranger : &fk.old;
}

static void tick(void)
{
	if (++fk.calls == fk.reuse_at)
		fk.reused = true;
}

static uint64_t fake_start_time(pid_t tid)
{
	tick();
	return fk.unreadable ? 0 : holder()->start;
}

static int fake_pidfd_open(pid_t tid)
{
	tick();
	if (!fk.pidfds)
		return -EINVAL;
	return fk.reused ? NEW_PIDFD : OLD_PIDFD;
}

static bool fake_pidfd_exited(int pidfd)
{
	tick();
	return pidfd == OLD_PIDFD && fk.reused;
}

static int fake_getattr(pid_t tid, struct sched_attr *attr)
{
	tick();
	*attr = holder()->attr;
	return 0;
}

static int fake_setattr(pid_t tid, const struct sched_attr *attr)
{
	tick();
	if (!fk.first_set)
		fk.first_set = fk.calls;
	holder()->attr = *attr;
	return 0;
}

static int fake_leave_deadline(pid_t tid, const struct sched_attr *cur,
			       const struct sched_attr *to)
{
	fk.leaves++;
	return fake_setattr(tid, to);
}

static const struct task_id_ops fake_ops = {
	.start_time = fake_start_time,
	.pidfd_open = fake_pidfd_open,
	.pidfd_exited = fake_pidfd_exited,
	.getattr = fake_getattr,
	.setattr = fake_setattr,
	.leave_deadline = fake_leave_deadline,
};

static struct sched_attr deadline(void)
{
	return (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
		.sched_runtime = 20000,
		.sched_deadline = 1000000000,
		.sched_period = 1000000000,
	};
}

/*
 * The old task at @mine, identified (with a pidfd if @pidfds), the
 * stranger that will take its tid at @theirs; no reuse yet.
 */
static void fake_boot(struct task_id *id, bool pidfds,
		      const struct sched_attr *mine,
		      const struct sched_attr *theirs)
{
	memset(&fk, 0, sizeof(fk));
	fk.old = (struct fake_task){ .start = 1000, .attr = *mine };
	fk.stranger = (struct fake_task){ .start = 2000, .attr = *theirs };
	fk.pidfds = pidfds;
	task_id_ops = &fake_ops;
	task_id_of(id, FAKE_TID, 0);
	if (task_id_open(id, FAKE_TID))
		id->start_time = 0;
	fk.calls = 0;
}

FIXTURE(fake) {
	const struct task_id_ops *real;
};

FIXTURE_VARIANT(fake) {
	bool pidfds;
};

FIXTURE_VARIANT_ADD(fake, pidfd) {
	.pidfds = true,
};

/* A thread not its process's leader, before 6.9: start time only. */
FIXTURE_VARIANT_ADD(fake, start_time) {
	.pidfds = false,
};

FIXTURE_SETUP(fake)
{
	self->real = task_id_ops;
}

FIXTURE_TEARDOWN(fake)
{
	task_id_ops = self->real;
}

TEST_F(fake, identity_is_what_was_opened)
{
	struct sched_attr own = other_attr(0);
	struct task_id id;

	fake_boot(&id, variant->pidfds, &own, &own);
	EXPECT_EQ(1000, id.start_time);
	EXPECT_EQ(variant->pidfds ? OLD_PIDFD : -1, id.pidfd);
	EXPECT_TRUE(task_id_same(&id));
	fk.reused = true;
	EXPECT_FALSE(task_id_same(&id));
}

/*
 * A start time that cannot be read leaves the identity unknown: never
 * opened, never the same task (the test's own tid, which exists).
 */
TEST_F(fake, unknown_identity_is_refused)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);
	struct task_id id;

	fake_boot(&id, variant->pidfds, &own, &own);
	fk.unreadable = true;
	EXPECT_EQ(-ENODATA, task_id_open(&id, gettid()));
	EXPECT_EQ(0, id.start_time);
	EXPECT_FALSE(task_id_same(&id));
	EXPECT_EQ(-ESRCH, task_id_change(&id, NULL, &raised));
	EXPECT_EQ(0, fk.first_set);
}

/* The tid reused between the start time and the pidfd: not opened. */
TEST_F(fake, reused_while_opened_is_refused)
{
	struct sched_attr own = other_attr(0);
	struct task_id id;

	fake_boot(&id, variant->pidfds, &own, &own);
	fk.reuse_at = 2;	/* at pidfd_open() */
	EXPECT_EQ(-ESRCH, task_id_open(&id, FAKE_TID));
	EXPECT_EQ(-1, id.pidfd);
}

/*
 * Raise, lower, restore, boost: a stranger that takes the tid before any
 * of the calls of a change ends with its own attributes, and the change
 * says the task is gone. The stranger has the old task's own attributes
 * (a task of the same program, say): the case a bare tid could not tell.
 */
static void sweep(struct __test_metadata *_metadata, bool pidfds,
		  const struct sched_attr *from, const struct sched_attr *to,
		  const struct sched_attr *own, const struct sched_attr *theirs)
{
	struct task_id id;
	int at, ret, calls;

	/* Without reuse: the calls a change makes. */
	fake_boot(&id, pidfds, from ? from : own, theirs);
	ASSERT_EQ(0, task_id_change(&id, from, to));
	ASSERT_TRUE(sched_attr_same(&fk.old.attr, to));
	calls = fk.calls;
	for (at = 1; at <= calls; at++) {
		fake_boot(&id, pidfds, from ? from : own, theirs);
		fk.reuse_at = at;
		ret = task_id_change(&id, from, to);
		EXPECT_TRUE(ret == -ESRCH || ret == -ESTALE)
			TH_LOG("reused at call %d of %d: %d", at, calls, ret);
		EXPECT_TRUE(sched_attr_same(&fk.stranger.attr, theirs))
			TH_LOG("reused at call %d of %d: the stranger kept policy %u",
			       at, calls, fk.stranger.attr.sched_policy);
	}
}

TEST_F(fake, boost_never_stays_on_a_stranger)
{
	struct sched_attr own = other_attr(0), dl = deadline();

	sweep(_metadata, variant->pidfds, NULL, &dl, &own, &own);
}

TEST_F(fake, raise_never_stays_on_a_stranger)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);

	sweep(_metadata, variant->pidfds, &own, &raised, &own, &own);
}

TEST_F(fake, lower_never_stays_on_a_stranger)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);

	/* A stranger at the raised priority: lowering it would be ours. */
	sweep(_metadata, variant->pidfds, &raised, &own, &own, &raised);
}

TEST_F(fake, restore_never_stays_on_a_stranger)
{
	struct sched_attr own = other_attr(0), dl = deadline();

	sweep(_metadata, variant->pidfds, &dl, &own, &own, &dl);
	EXPECT_LT(0, fk.leaves);	/* out of the class in two steps */
}

/*
 * Reused before the change, the change is not made at all: the stranger
 * is never given the attributes, not even for a moment.
 */
TEST_F(fake, reused_before_a_change_is_never_given_it)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);
	struct task_id id;

	fake_boot(&id, variant->pidfds, &own, &own);
	fk.reuse_at = 1;
	EXPECT_EQ(-ESRCH, task_id_change(&id, &own, &raised));
	EXPECT_EQ(0, fk.first_set);
}

/* The old task got the change and exited: the stranger is not touched. */
TEST_F(fake, exit_after_the_change_leaves_the_stranger_alone)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);
	struct sched_attr theirs = other_attr(3);
	struct task_id id;
	int set_at;

	fake_boot(&id, variant->pidfds, &own, &theirs);
	ASSERT_EQ(0, task_id_change(&id, &own, &raised));
	set_at = fk.first_set;
	fake_boot(&id, variant->pidfds, &own, &theirs);
	fk.reuse_at = set_at + 1;
	EXPECT_EQ(-ESRCH, task_id_change(&id, &own, &raised));
	EXPECT_TRUE(sched_attr_same(&fk.old.attr, &raised));
	EXPECT_TRUE(sched_attr_same(&fk.stranger.attr, &theirs));
}

/* What is not the task's, another's change, is -EBUSY; ours already, 1. */
TEST_F(fake, someone_elses_change_is_left_alone)
{
	struct sched_attr own = other_attr(0), raised = fifo_attr(50);
	struct sched_attr theirs = other_attr(3);
	struct task_id id;

	fake_boot(&id, variant->pidfds, &theirs, &theirs);
	EXPECT_EQ(-EBUSY, task_id_change(&id, &own, &raised));
	EXPECT_TRUE(sched_attr_same(&fk.old.attr, &theirs));
	EXPECT_EQ(1, task_id_change(&id, &own, &theirs));
	EXPECT_EQ(0, fk.first_set);
}

/* An exited task, a zombie until reaped, has no identity to change. */
TEST(zombie_is_not_identified)
{
	struct task_id id;
	pid_t child = fork();

	ASSERT_LE(0, child);
	if (child == 0)
		_exit(0);
	ASSERT_EQ(0, waitid(P_PID, child, &(siginfo_t){ 0 },
			    WEXITED | WNOWAIT));
	EXPECT_NE(0, task_start_time(child));
	EXPECT_EQ(0, task_live_start_time(child));
	EXPECT_EQ(-ESRCH, task_id_open(&id, child));
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	EXPECT_EQ(0, task_live_start_time(child));
}

/* The real kernel: a child, its pid reused once it is reaped. */
static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * @pidfd: the identity with its pidfd (a leader's: any kernel since 5.3),
 * else with the start time only.
 */
static void real_reuse(struct __test_metadata *_metadata, bool pidfd)
{
	struct sched_attr own = other_attr(0), raised = other_attr(7), cur;
	struct task_id id;
	pid_t old, stranger;

	if (geteuid())
		SKIP(return, "needs root (clone3() with set_tid)");
	old = sleeper();
	ASSERT_LT(0, old);
	ASSERT_EQ(0, task_id_open(&id, old));
	EXPECT_NE(0, id.start_time);
	if (!pidfd)
		task_id_close(&id);
	else if (id.pidfd < 0)
		TH_LOG("no pidfd for a process (before 5.3?): start time only");
	ASSERT_EQ(0, task_id_change(&id, NULL, &raised));
	ASSERT_EQ(1, task_id_change(&id, NULL, &raised));
	reap(old);
	/*
	 * A start time is in clock ticks (sysconf(_SC_CLK_TCK), 100 a
	 * second): one the same tick reuses is the same. Cycling the pid
	 * space takes longer than a tick; clone3() does not.
	 */
	usleep(2 * 1000000 / sysconf(_SC_CLK_TCK));
	stranger = child_with_pid(old, &own);
	if (stranger == -EPERM || stranger == -ENOSYS) {
		task_id_close(&id);
		SKIP(return, "clone3() with set_tid: %s", strerror(-stranger));
	}
	ASSERT_EQ(old, stranger);
	EXPECT_FALSE(task_id_same(&id));
	EXPECT_EQ(-ESRCH, task_id_change(&id, &raised, &own));
	EXPECT_EQ(-ESRCH, task_id_change(&id, NULL, &raised));
	ASSERT_EQ(0, sched_getattr_tid(stranger, &cur));
	EXPECT_TRUE(sched_attr_same(&cur, &own));
	reap(stranger);
	task_id_close(&id);
}

TEST(reused_pid_is_not_changed_pidfd)
{
	real_reuse(_metadata, true);
}

TEST(reused_pid_is_not_changed_start_time)
{
	real_reuse(_metadata, false);
}

static void *thread_sleeps(void *arg)
{
	__atomic_store_n((pid_t *)arg, gettid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* A thread that is not its process's leader is identified too. */
TEST(thread_is_identified)
{
	struct task_id id;
	pid_t tid = 0;
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, thread_sleeps, &tid));
	while (!__atomic_load_n(&tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	ASSERT_EQ(0, task_id_open(&id, tid));
	EXPECT_EQ(task_start_time(tid), id.start_time);
	EXPECT_TRUE(task_id_same(&id));
	TH_LOG("pidfd of a thread: %s", id.pidfd >= 0 ? "yes (6.9 and later)" :
	       "no, start time only (before 6.9)");
	task_id_close(&id);
	EXPECT_EQ(-ESRCH, task_id_open(&id, 0x7ffffff0));
	pthread_cancel(th);
	pthread_join(th, NULL);
}

TEST_HARNESS_MAIN

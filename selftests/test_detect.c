// SPDX-License-Identifier: GPL-2.0-or-later
/* Detection arithmetic: crossings, next wake-up, episodes. */
#include "kselftest_harness.h"

#include "detect.h"
#include "util.h"

#define T0	(1000 * NSEC_PER_SEC)
#define THRESH	(20 * NSEC_PER_SEC)

static void add(struct task_list *l, uint32_t tid, uint64_t wait,
		uint64_t switches, uint32_t state)
{
	struct starvd_task t = {
		.tid = tid, .cpu = 1, .wait_ns = wait,
		.nr_switches = switches, .state = state,
	};

	task_list_add(l, &t);
}

static void add_bound(struct task_list *l, uint32_t tid, uint64_t wait,
		      uint64_t switches)
{
	add(l, tid, wait, switches, STARVD_TASK_WAITING);
	l->v[l->n - 1].flags = STARVD_TASK_WAIT_LOWER_BOUND;
}

/* The next read, @dt later, of the same tasks: exact waits grow by @dt. */
static void later(struct task_list *l, uint64_t dt)
{
	size_t i;

	l->read_time_ns += dt;
	for (i = 0; i < l->n; i++)
		if (!(l->v[i].flags & STARVD_TASK_WAIT_LOWER_BOUND))
			l->v[i].wait_ns += dt;
}

static uint32_t boosted_tid;

static bool boosting(const struct booster *b, uint32_t tid)
{
	return tid == boosted_tid;
}

/* A detector (threshold THRESH, boosting boosted_tid), a read at T0. */
FIXTURE(scan) {
	struct task_list l;
	struct detect_result r;
	struct detect d;
};

static void rescan(FIXTURE_DATA(scan) *self)
{
	detect_scan(&self->d, &self->l, &self->r);
}

FIXTURE_SETUP(scan)
{
	self->l.read_time_ns = T0;
	detect_init(&self->d, THRESH, boosting, NULL);
}

FIXTURE_TEARDOWN(scan)
{
	detect_free(&self->d);
	detect_result_free(&self->r);
	task_list_free(&self->l);
}

TEST_F(scan, nothing_waits_sleep_a_threshold)
{
	add(&self->l, 1, 0, 5, STARVD_TASK_RUNNING);
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(T0 + THRESH, self->r.next_wake_ns);
}

TEST_F(scan, wake_at_earliest_crossing)
{
	add(&self->l, 1, 3 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&self->l, 2, 15 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&self->l, 3, 1 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(T0 + 5 * NSEC_PER_SEC, self->r.next_wake_ns);
}

TEST_F(scan, crossing_exactly_at_threshold_starves)
{
	add(&self->l, 1, THRESH - 1, 1, STARVD_TASK_WAITING);
	add(&self->l, 2, THRESH, 1, STARVD_TASK_WAITING);
	rescan(self);
	ASSERT_EQ(1, self->r.n);
	EXPECT_EQ(2, self->l.v[self->r.starving[0]].tid);
	EXPECT_EQ(T0 + 1, self->r.next_wake_ns);
}

/* One report per episode; a new wait after running is a new episode. */
TEST_F(scan, episodes)
{
	add(&self->l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	rescan(self);
	EXPECT_EQ(1, self->r.n);
	/* Same wait, later read: not again, and it does not drive wake-ups. */
	self->l.read_time_ns += NSEC_PER_SEC;
	self->l.v[0].wait_ns += NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(self->l.read_time_ns + THRESH, self->r.next_wake_ns);
	/* It ran (switch count moved) and starved again: new episode. */
	self->l.v[0].nr_switches = 11;
	rescan(self);
	EXPECT_EQ(1, self->r.n);
	/* Gone from the read: forgotten. */
	self->l.n = 0;
	rescan(self);
	EXPECT_EQ(0, self->d.n);
}

/* A boost that did not let it run: reported again once forgotten. */
TEST_F(scan, forgotten_episode_reported_again)
{
	add(&self->l, 7, THRESH, 10, STARVD_TASK_WAITING);
	rescan(self);
	EXPECT_EQ(1, self->r.n);
	detect_forget(&self->d, 7);
	detect_forget(&self->d, 8);	/* unknown: nothing happens */
	self->l.v[0].wait_ns += NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(1, self->r.n);
}

TEST_F(scan, boosted_tasks_are_skipped)
{
	add(&self->l, 9, THRESH * 2, 1, STARVD_TASK_WAITING);
	boosted_tid = 9;
	EXPECT_TRUE(detect_handled(&self->d, 9));
	EXPECT_FALSE(detect_handled(&self->d, 8));
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(T0 + THRESH, self->r.next_wake_ns);
	/* The boost ended and did not let it run: starving again. */
	boosted_tid = 0;
	later(&self->l, NSEC_PER_SEC);
	rescan(self);
	EXPECT_EQ(1, self->r.n);
}

/* starvd's own threads (its emulation threads) are never reported. */
TEST_F(scan, own_threads_are_skipped)
{
	add(&self->l, 9, THRESH * 2, 1, STARVD_TASK_WAITING);
	add(&self->l, 10, THRESH * 2, 1, STARVD_TASK_WAITING);
	self->l.v[0].tgid = 7;
	self->d.self_tgid = 7;
	rescan(self);
	ASSERT_EQ(1, self->r.n);
	EXPECT_EQ(10, self->l.v[self->r.starving[0]].tid);
}

/*
 * -l: as stalld, a task that keeps waiting is reported again every
 * threshold; the next wake-up is the repeat's crossing; a run ends it.
 */
TEST_F(scan, log_only_repeats_every_threshold)
{
	add(&self->l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	rescan(self);
	ASSERT_EQ(1, self->r.n);
	detect_repeat(&self->d, 7, THRESH + 5 + THRESH);
	/* 1 s later: not yet; wake when the repeat is due. */
	self->l.read_time_ns += NSEC_PER_SEC;
	self->l.v[0].wait_ns += NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(self->l.read_time_ns + THRESH - NSEC_PER_SEC, self->r.next_wake_ns);
	/* Due: reported again, once, until armed again. */
	self->l.read_time_ns += THRESH - NSEC_PER_SEC;
	self->l.v[0].wait_ns += THRESH - NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(1, self->r.n);
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	detect_repeat(&self->d, 7, self->l.v[0].wait_ns + THRESH);
	/* It ran: a new wait under the threshold is not reported. */
	self->l.v[0].nr_switches = 11;
	self->l.v[0].wait_ns = NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(self->l.read_time_ns + THRESH - NSEC_PER_SEC, self->r.next_wake_ns);
}

/*
 * A wait the kernel did not stamp (wait 0, flagged): the reads prove it
 * from the first that saw it, for as long as its switch count stays. It
 * crosses the threshold a threshold after that read, reported as the
 * lower bound it is.
 */
TEST_F(scan, unstamped_wait_counts_from_first_sight)
{
	add_bound(&self->l, 7, 0, 10);
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(T0 + THRESH, self->r.next_wake_ns);
	later(&self->l, THRESH - 1);
	self->l.v[0].wait_ns = 0;
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(THRESH - 1, self->l.v[0].wait_ns);
	EXPECT_EQ(T0 + THRESH, self->r.next_wake_ns);
	later(&self->l, 1);
	self->l.v[0].wait_ns = 0;
	rescan(self);
	ASSERT_EQ(1, self->r.n);
	EXPECT_EQ(THRESH, self->l.v[self->r.starving[0]].wait_ns);
	EXPECT_TRUE(self->l.v[0].flags & STARVD_TASK_WAIT_LOWER_BOUND);
	/* It ran: the bound starts again. */
	later(&self->l, NSEC_PER_SEC);
	self->l.v[0].wait_ns = 0;
	self->l.v[0].nr_switches++;
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	EXPECT_EQ(0, self->l.v[0].wait_ns);
	EXPECT_EQ(self->l.read_time_ns + THRESH, self->r.next_wake_ns);
}

/*
 * A source's own bound (tracking mode, a task queued before it attached)
 * wins when it is the longer; the reads' when they prove more.
 */
TEST_F(scan, lower_bound_is_the_longest_proven)
{
	add_bound(&self->l, 7, 3 * NSEC_PER_SEC, 10);
	rescan(self);
	EXPECT_EQ(3 * NSEC_PER_SEC, self->l.v[0].wait_ns);
	later(&self->l, 2 * NSEC_PER_SEC);
	self->l.v[0].wait_ns = NSEC_PER_SEC;	/* the source restarted */
	rescan(self);
	EXPECT_EQ(5 * NSEC_PER_SEC, self->l.v[0].wait_ns);
	later(&self->l, NSEC_PER_SEC);
	self->l.v[0].wait_ns = 10 * NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(10 * NSEC_PER_SEC, self->l.v[0].wait_ns);
}

/* An exact wait is the source's, even when it restarts (a migration). */
TEST_F(scan, exact_wait_is_taken_as_read)
{
	add(&self->l, 7, 5 * NSEC_PER_SEC, 10, STARVD_TASK_WAITING);
	rescan(self);
	later(&self->l, 4 * NSEC_PER_SEC);
	self->l.v[0].wait_ns = NSEC_PER_SEC;
	rescan(self);
	EXPECT_EQ(NSEC_PER_SEC, self->l.v[0].wait_ns);
	EXPECT_EQ(self->l.read_time_ns + THRESH - NSEC_PER_SEC,
		  self->r.next_wake_ns);
}

/* Many waiters, in any order: each one's wait is found again. */
TEST_F(scan, many_unstamped_waiters)
{
	size_t i;
	int tid;

	for (tid = 500; tid > 0; tid -= 3)
		add_bound(&self->l, tid, 0, tid);
	rescan(self);
	EXPECT_EQ(0, self->r.n);
	later(&self->l, THRESH);
	self->l.v[17].nr_switches++;	/* this one ran */
	rescan(self);
	EXPECT_EQ(self->l.n - 1, self->r.n);
	for (i = 0; i < self->l.n; i++)
		EXPECT_EQ(i == 17 ? 0 : THRESH, self->l.v[i].wait_ns);
	/* Reported again, its bound kept (a boost that did not help). */
	detect_forget(&self->d, self->l.v[3].tid);
	later(&self->l, 1);
	rescan(self);
	ASSERT_EQ(1, self->r.n);
	EXPECT_EQ(self->l.v[3].tid, self->l.v[self->r.starving[0]].tid);
	EXPECT_EQ(THRESH + 1, self->l.v[3].wait_ns);
	EXPECT_EQ(1, self->l.v[17].wait_ns);
}

/*
 * A starving task (tid 7) on CPU 1 of a 2-CPU read; the tests add what
 * else the read shows and ask for its holder.
 */
FIXTURE(holder) {
	struct task_list l;
	struct detect d;
};

FIXTURE_SETUP(holder)
{
	self->l.read_time_ns = T0;
	detect_init(&self->d, THRESH, boosting, NULL);
	add(&self->l, 7, THRESH, 1, STARVD_TASK_WAITING);
}

FIXTURE_TEARDOWN(holder)
{
	boosted_tid = 0;
	detect_free(&self->d);
	task_list_free(&self->l);
}

/* Another task of its own process on CPU 1, at kernel priority @prio. */
static void put(FIXTURE_DATA(holder) *self, uint32_t tid, int prio,
		uint32_t state, uint64_t wait)
{
	struct starvd_task t = {
		.tid = tid, .tgid = tid, .cpu = 1, .prio = prio,
		.state = state, .wait_ns = wait,
	};

	task_list_add(&self->l, &t);
}

/* The holder's tid, 0 for none, in a read of @nr_cpus CPUs. */
static uint32_t holder_of(FIXTURE_DATA(holder) *self, int prio, int nr_cpus)
{
	const struct starvd_task *h;

	self->l.v[0].prio = prio;
	h = detect_holder(&self->d, &self->l, nr_cpus, &self->l.v[0]);
	return h ? h->tid : 0;
}

#define RUNNING	STARVD_TASK_RUNNING
#define WAITING	STARVD_TASK_WAITING
#define FAIR	120	/* a fair task (kworker, ksoftirqd) */
#define FIFO10	89

/*
 * The holder: the task on the CPU unless another task runnable there
 * outranks it (the fair server running a SCHED_OTHER task for a moment
 * behind a real-time busy loop); never a task being boosted, nor starvd.
 */
TEST_F(holder, is_the_highest_priority_other_task)
{
	struct starvd_task other = {
		.tid = 5, .cpu = 0, .prio = 1, .state = WAITING,
	};
	struct starvd_cpu cpus[2];

	put(self, 3, FAIR, RUNNING, 0);
	task_list_cpus(&self->l, cpus, 2);
	EXPECT_EQ(1, cpus[1].nr_waiters);
	EXPECT_EQ(THRESH, cpus[1].max_wait_ns);
	EXPECT_EQ(3, holder_of(self, FAIR, 2));
	/* A busy loop waiting behind it outranks it; CPU 0's does not. */
	put(self, 4, 49, WAITING, 0);
	task_list_add(&self->l, &other);
	EXPECT_EQ(4, holder_of(self, FAIR, 2));
	/* Boosted tasks hold nothing. */
	boosted_tid = 4;
	EXPECT_EQ(3, holder_of(self, FAIR, 2));
	boosted_tid = 3;
	EXPECT_EQ(4, holder_of(self, FAIR, 2));
	boosted_tid = 0;
	/* starvd itself, on the CPU for its own read or waiting, is not. */
	self->d.self_tgid = 3;
	EXPECT_EQ(4, holder_of(self, FAIR, 2));
	self->d.self_tgid = 4;
	EXPECT_EQ(3, holder_of(self, FAIR, 2));
	self->d.self_tgid = 0;
	/* Not a CPU of this read: no holder. */
	EXPECT_EQ(0, holder_of(self, FAIR, 1));
}

/*
 * A real-time task is never held by a fair one: one on its CPU is there
 * by the fair server's time, in front of the real-time task that holds
 * the CPU; if the read does not show that one, the holder is unknown, and
 * the emulation raises the task above every other (a fair holder would
 * have it raised one step above its own, below the busy loop, and the
 * emulation thread with it: neither could run).
 */
TEST_F(holder, fair_task_never_holds_a_realtime_one)
{
	put(self, 3, FAIR, RUNNING, 0);
	put(self, 5, 110, WAITING, 0);
	EXPECT_EQ(0, holder_of(self, FIFO10, 2));
	put(self, 4, 50, WAITING, 0);
	EXPECT_EQ(4, holder_of(self, FIFO10, 2));
}

/*
 * A task waiting since before the starving one began to wait is not its
 * holder: it starves too. Two SCHED_FIFO 10 victims behind a busy loop
 * that the read does not show waiting: named each other's holder, each
 * would be raised to SCHED_FIFO 11, below the loop.
 */
TEST_F(holder, earlier_waiter_never_holds)
{
	put(self, 3, 49, RUNNING, 0);		/* being boosted */
	put(self, 5, FIFO10, WAITING, THRESH * 3);
	boosted_tid = 3;
	EXPECT_EQ(0, holder_of(self, 98, 2));	/* SCHED_FIFO 1, rcu_preempt */
	/* The loop, preempted for a moment, is seen: it holds the CPU. */
	put(self, 4, 50, WAITING, 1000);
	EXPECT_EQ(4, holder_of(self, 98, 2));
}

/*
 * A read can show two tasks on one CPU: the one being switched out is on
 * it until the switch completes. A busy loop being switched out for
 * starvd's emulation thread, read before it, must count: else the other
 * victim, a later waiter, is named, and the starving task raised to
 * SCHED_FIFO 11, below the loop.
 */
TEST_F(holder, every_task_on_the_cpu_may_hold_it)
{
	self->d.self_tgid = 3;
	put(self, 4, 50, RUNNING, 0);		/* the loop */
	put(self, 3, 48, RUNNING, 0);		/* starvd's thread */
	put(self, 5, FIFO10, WAITING, THRESH / 2);
	EXPECT_EQ(4, holder_of(self, FIFO10, 2));
	/* On a tie, the task on the CPU, wherever it is in the read. */
	put(self, 6, 50, WAITING, THRESH / 2);
	EXPECT_EQ(4, holder_of(self, FIFO10, 2));
}

/* As starvd asks it: with the holder detect_holder() found. */
static bool held_by_self(FIXTURE_DATA(holder) *self)
{
	const struct starvd_task *t = &self->l.v[0];

	return detect_held_by_self(&self->d, &self->l, t,
				   detect_holder(&self->d, &self->l, 2, t));
}

/*
 * starvd's own thread on the CPU, and nothing else that holds it: the
 * wait is starvd's doing (its start-up on the CPU it watches), not to be
 * boosted above every task. With a holder, or starvd elsewhere, it is not.
 */
TEST_F(holder, starvd_alone_on_the_cpu_holds_it)
{
	self->d.self_tgid = 3;
	put(self, 3, 39, RUNNING, 0);		/* starvd, FIFO 60 */
	EXPECT_EQ(0, holder_of(self, 40, 2));
	EXPECT_TRUE(held_by_self(self));
	/* The busy loop it preempted for its read holds the CPU. */
	put(self, 4, 40, WAITING, 1000);
	EXPECT_FALSE(held_by_self(self));
	self->d.self_tgid = 0;
	EXPECT_FALSE(held_by_self(self));
}

/* starvd elsewhere, or waiting itself: not what holds the CPU. */
TEST_F(holder, starvd_elsewhere_does_not_hold_it)
{
	struct starvd_task s = {
		.tid = 3, .tgid = 3, .cpu = 0, .prio = 39, .state = RUNNING,
	};

	self->d.self_tgid = 3;
	task_list_add(&self->l, &s);
	EXPECT_FALSE(held_by_self(self));
	put(self, 3, 39, WAITING, 10);
	EXPECT_FALSE(held_by_self(self));
}

/* starvctl cpus and top name the CPU's holder by the same rule. */
TEST_F(holder, the_cpus_view_shows_the_higher_of_two_running)
{
	struct starvd_cpu cpus[2];

	put(self, 3, 48, RUNNING, 0);
	put(self, 4, 50, RUNNING, 0);
	task_list_cpus(&self->l, cpus, 2);
	EXPECT_EQ(3, cpus[1].curr.tid);
	put(self, 5, 48, RUNNING, 0);
	task_list_cpus(&self->l, cpus, 2);
	EXPECT_EQ(5, cpus[1].curr.tid);
	EXPECT_EQ(0, cpus[0].curr.tid);
}

TEST_HARNESS_MAIN

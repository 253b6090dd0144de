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

static uint32_t boosted_tid;

static bool boosting(const struct booster *b, uint32_t tid)
{
	return tid == boosted_tid;
}

TEST(nothing_waits_sleep_a_threshold)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 1, 0, 5, STARVD_TASK_RUNNING);
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + THRESH, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(wake_at_earliest_crossing)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 1, 3 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&l, 2, 15 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	add(&l, 3, 1 * NSEC_PER_SEC, 1, STARVD_TASK_WAITING);
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + 5 * NSEC_PER_SEC, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(crossing_exactly_at_threshold_starves)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 1, THRESH - 1, 1, STARVD_TASK_WAITING);
	add(&l, 2, THRESH, 1, STARVD_TASK_WAITING);
	detect_scan(&d, &l, &r);
	ASSERT_EQ(1, r.n);
	EXPECT_EQ(2, l.v[r.starving[0]].tid);
	EXPECT_EQ(T0 + 1, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/* One report per episode; a new wait after running is a new episode. */
TEST(episodes)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, &r);
	EXPECT_EQ(1, r.n);
	/* Same wait, later read: not again, and it does not drive wake-ups. */
	l.read_time_ns += NSEC_PER_SEC;
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH, r.next_wake_ns);
	/* It ran (switch count moved) and starved again: new episode. */
	l.v[0].nr_switches = 11;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(1, r.n);
	/* Gone from the read: forgotten. */
	l.n = 0;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, d.n);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/* A boost that did not let it run: reported again once forgotten. */
TEST(forgotten_episode_reported_again)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 7, THRESH, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, &r);
	EXPECT_EQ(1, r.n);
	detect_forget(&d, 7);
	detect_forget(&d, 8);	/* unknown: nothing happens */
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(1, r.n);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

TEST(boosted_tasks_are_skipped)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, boosting, NULL);
	add(&l, 9, THRESH * 2, 1, STARVD_TASK_WAITING);
	boosted_tid = 9;
	EXPECT_TRUE(detect_handled(&d, 9));
	EXPECT_FALSE(detect_handled(&d, 8));
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(T0 + THRESH, r.next_wake_ns);
	boosted_tid = 0;
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/*
 * -l: as stalld, a task that keeps waiting is reported again every
 * threshold; the next wake-up is the repeat's crossing; a run ends it.
 */
TEST(log_only_repeats_every_threshold)
{
	struct task_list l = { .read_time_ns = T0 };
	struct detect_result r = {};
	struct detect d;

	detect_init(&d, THRESH, NULL, NULL);
	add(&l, 7, THRESH + 5, 10, STARVD_TASK_WAITING);
	detect_scan(&d, &l, &r);
	ASSERT_EQ(1, r.n);
	detect_repeat(&d, 7, THRESH + 5 + THRESH);
	/* 1 s later: not yet; wake when the repeat is due. */
	l.read_time_ns += NSEC_PER_SEC;
	l.v[0].wait_ns += NSEC_PER_SEC;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH - NSEC_PER_SEC, r.next_wake_ns);
	/* Due: reported again, once, until armed again. */
	l.read_time_ns += THRESH - NSEC_PER_SEC;
	l.v[0].wait_ns += THRESH - NSEC_PER_SEC;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(1, r.n);
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	detect_repeat(&d, 7, l.v[0].wait_ns + THRESH);
	/* It ran: a new wait under the threshold is not reported. */
	l.v[0].nr_switches = 11;
	l.v[0].wait_ns = NSEC_PER_SEC;
	detect_scan(&d, &l, &r);
	EXPECT_EQ(0, r.n);
	EXPECT_EQ(l.read_time_ns + THRESH - NSEC_PER_SEC, r.next_wake_ns);
	detect_free(&d);
	detect_result_free(&r);
	task_list_free(&l);
}

/*
 * The holder: the task on the CPU unless another task runnable there
 * outranks it (the fair server running a SCHED_OTHER task for a moment
 * behind a real-time busy loop); never a task being boosted.
 */
TEST(holder_is_the_highest_priority_other_task)
{
	struct task_list l = { .read_time_ns = T0 };
	struct starvd_task curr = {
		.tid = 3, .cpu = 1, .prio = 120, .state = STARVD_TASK_RUNNING,
	};
	struct starvd_task loop = {
		.tid = 4, .cpu = 1, .prio = 49, .state = STARVD_TASK_WAITING,
	};
	struct starvd_task other = {
		.tid = 5, .cpu = 0, .prio = 1, .state = STARVD_TASK_WAITING,
	};
	struct starvd_cpu cpus[2];
	struct detect d;

	detect_init(&d, THRESH, boosting, NULL);
	add(&l, 7, THRESH, 1, STARVD_TASK_WAITING);
	task_list_add(&l, &curr);
	task_list_cpus(&l, cpus, 2);
	EXPECT_EQ(1, cpus[1].nr_waiters);
	EXPECT_EQ(THRESH, cpus[1].max_wait_ns);
	EXPECT_EQ(3, detect_holder(&d, &l, cpus, 2, &l.v[0])->tid);
	/* A busy loop waiting behind it outranks it; CPU 0's does not. */
	task_list_add(&l, &loop);
	task_list_add(&l, &other);
	task_list_cpus(&l, cpus, 2);
	EXPECT_EQ(4, detect_holder(&d, &l, cpus, 2, &l.v[0])->tid);
	/* Boosted tasks hold nothing. */
	boosted_tid = 4;
	EXPECT_EQ(3, detect_holder(&d, &l, cpus, 2, &l.v[0])->tid);
	boosted_tid = 3;
	EXPECT_EQ(4, detect_holder(&d, &l, cpus, 2, &l.v[0])->tid);
	boosted_tid = 0;
	/* Not a CPU of this read: no holder. */
	EXPECT_EQ(NULL, detect_holder(&d, &l, cpus, 1, &l.v[0]));
	detect_free(&d);
	task_list_free(&l);
}

TEST_HARNESS_MAIN

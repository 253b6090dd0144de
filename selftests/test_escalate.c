// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Progress-aware boosts (user/escalate.c): what counts as progress, how
 * the runtime grows, where it stops, when it comes back; the context
 * switch count of a boost never wraps (a task gone at the end must not
 * read as "18446744073709551613 context switches"); the SCHED_DEADLINE
 * overrun debt (user/boost_debt.c); the SCHED_FIFO emulation's looks and
 * priority (user/fifo_policy.c); the HRTICK_DL feature parser
 * (user/hrtick.c).
 */
#include "kselftest_harness.h"

#include "boost_debt.h"
#include "escalate.h"
#include "fifo_policy.h"
#include "hrtick.h"
#include "util.h"

#define BASE	(20 * NSEC_PER_USEC)
#define PERIOD	NSEC_PER_SEC

static const struct escalate_policy on = {
	.enabled = true, .base_ns = BASE, .cap_ns = 50 * NSEC_PER_MSEC,
};

static struct progress_sample sample(uint64_t exec, uint64_t pcount,
				     uint64_t nvcsw, uint64_t nivcsw)
{
	return (struct progress_sample) {
		.valid = true, .exec_ns = exec, .pcount = pcount,
		.nvcsw = nvcsw, .nivcsw = nivcsw,
	};
}

TEST(ran_and_blocked_is_progress)
{
	struct progress_sample a = sample(1000, 5, 3, 2);
	struct progress_sample b = sample(9000, 7, 4, 3);
	struct boost_delta d = progress_delta(&a, &b);

	EXPECT_EQ(OUTCOME_PROGRESS, d.outcome);
	EXPECT_EQ(2, d.switches);
	EXPECT_EQ(8000, d.ran_ns);
}

TEST(never_ran_is_no_progress)
{
	struct progress_sample a = sample(1000, 5, 3, 2);
	struct boost_delta d = progress_delta(&a, &a);

	EXPECT_EQ(OUTCOME_NO_PROGRESS, d.outcome);
	EXPECT_EQ(0, d.switches);
}

TEST(ran_but_preempted_is_no_progress)
{
	/* Throttled at the end of its runtime before it could block. */
	struct progress_sample a = sample(1000, 5, 3, 2);
	struct progress_sample b = sample(21000, 6, 3, 3);

	EXPECT_EQ(OUTCOME_NO_PROGRESS, progress_delta(&a, &b).outcome);
	EXPECT_EQ(1, progress_delta(&a, &b).switches);
}

/* A task gone at the end must not read as 0 and wrap the count. */
TEST(gone_at_the_end_never_wraps)
{
	struct progress_sample a = sample(1000, 5, 2, 1);
	struct progress_sample gone = { .valid = false };
	struct boost_delta d = progress_delta(&a, &gone);

	EXPECT_EQ(OUTCOME_UNKNOWN, d.outcome);
	EXPECT_EQ(0, d.switches);
	EXPECT_EQ(0, d.ran_ns);
}

TEST(smaller_counts_are_another_task)
{
	struct progress_sample a = sample(1000, 5, 2, 3);
	struct progress_sample b = sample(2000, 6, 2, 0);
	struct boost_delta d = progress_delta(&a, &b);

	EXPECT_EQ(OUTCOME_UNKNOWN, d.outcome);
	EXPECT_EQ(0, d.switches);
}

TEST(no_progress_doubles)
{
	EXPECT_EQ(2 * BASE, escalate_next(&on, BASE, OUTCOME_NO_PROGRESS));
	EXPECT_EQ(4 * BASE, escalate_next(&on, 2 * BASE,
					  OUTCOME_NO_PROGRESS));
}

TEST(progress_keeps_the_runtime)
{
	EXPECT_EQ(BASE, escalate_next(&on, BASE, OUTCOME_PROGRESS));
	EXPECT_EQ(8 * BASE, escalate_next(&on, 8 * BASE, OUTCOME_PROGRESS));
}

TEST(unknown_goes_back_to_base)
{
	EXPECT_EQ(BASE, escalate_next(&on, 8 * BASE, OUTCOME_UNKNOWN));
	EXPECT_EQ(BASE, escalate_next(&on, 0, OUTCOME_NO_PROGRESS));
}

TEST(never_above_the_cap)
{
	uint64_t rt = BASE;
	int i;

	for (i = 0; i < 64; i++) {
		rt = escalate_next(&on, rt, OUTCOME_NO_PROGRESS);
		ASSERT_LE(rt, on.cap_ns);
	}
	/* It reaches the cap exactly, not the last doubling below it. */
	EXPECT_EQ(on.cap_ns, rt);
	EXPECT_EQ(on.cap_ns, escalate_next(&on, on.cap_ns,
					   OUTCOME_PROGRESS));
}

TEST(off_is_stalld)
{
	struct escalate_policy off = on;

	off.enabled = false;
	EXPECT_EQ(BASE, escalate_next(&off, BASE, OUTCOME_NO_PROGRESS));
	EXPECT_EQ(BASE, escalate_next(&off, 8 * BASE, OUTCOME_NO_PROGRESS));
}

TEST(default_cap_is_the_fair_servers_share)
{
	EXPECT_EQ(50 * NSEC_PER_MSEC, escalate_default_cap(BASE, PERIOD));
	/* Never below what -r asks for. */
	EXPECT_EQ(100 * NSEC_PER_MSEC,
		  escalate_default_cap(100 * NSEC_PER_MSEC, PERIOD));
}

TEST(decay_once_it_keeps_up)
{
	uint64_t end = 1000 * NSEC_PER_SEC, win = 5 * NSEC_PER_SEC;

	EXPECT_FALSE(escalate_kept_up(end, end, win));
	EXPECT_FALSE(escalate_kept_up(end, end + win - 1, win));
	EXPECT_TRUE(escalate_kept_up(end, end + win, win));
	/* A clock read before the end is not "kept up". */
	EXPECT_FALSE(escalate_kept_up(end, end - 1, win));
}

TEST(overrun_debt)
{
	uint64_t t0 = 1000 * NSEC_PER_SEC, end = t0 + 3 * NSEC_PER_SEC;

	/* 3 periods of 20 us: no debt. */
	EXPECT_EQ(0, dl_debt_until(t0, end, 60000, BASE, PERIOD));
	/* 3.8 ms over 3 s: 190 periods, the deadline 190 s after the start. */
	EXPECT_EQ(t0 + 190 * PERIOD + DL_STATE_SLACK_NS,
		  dl_debt_until(t0, end, 3800000, BASE, PERIOD));
	/* A partial period counts. */
	EXPECT_EQ(t0 + 191 * PERIOD + DL_STATE_SLACK_NS,
		  dl_debt_until(t0, end, 3800001, BASE, PERIOD));
	/* Never ran: nothing owed. */
	EXPECT_EQ(0, dl_debt_until(t0, end, 0, BASE, PERIOD));
}

/* The CBS state a boost leaves lasts to its deadline, debt or not. */
TEST(deadline_state)
{
	uint64_t t0 = 1000 * NSEC_PER_SEC;

	/* Its runtime in each of 3 periods: to the end of the third. */
	EXPECT_EQ(t0 + 3 * PERIOD + DL_STATE_SLACK_NS,
		  dl_state_until(t0, 3 * BASE, BASE, PERIOD));
	/* 1 ns over it is a fourth period. */
	EXPECT_EQ(t0 + 4 * PERIOD + DL_STATE_SLACK_NS,
		  dl_state_until(t0, 3 * BASE + 1, BASE, PERIOD));
	/* Less than its runtime: the first period. */
	EXPECT_EQ(t0 + PERIOD + DL_STATE_SLACK_NS,
		  dl_state_until(t0, BASE / 2, BASE, PERIOD));
	/* It never ran: no state to wait for (dl_unserved_until() is). */
	EXPECT_EQ(0, dl_state_until(t0, 0, BASE, PERIOD));
	EXPECT_EQ(0, dl_state_until(t0, BASE, 0, PERIOD));
}

TEST(deadline_unserved)
{
	uint64_t now = 1000 * NSEC_PER_SEC;
	struct boost_delta none = { .outcome = OUTCOME_NO_PROGRESS };
	struct boost_delta ran = { .outcome = OUTCOME_NO_PROGRESS,
				   .ran_ns = 1 };
	struct boost_delta switched = { .outcome = OUTCOME_NO_PROGRESS,
					.switches = 1 };
	struct boost_delta unknown = { .outcome = OUTCOME_UNKNOWN };

	/* Runnable, never ran: FIFO emulation for a while. */
	EXPECT_EQ(now + DL_UNSERVED_NS, dl_unserved_until(&none, now));
	/* It ran, however little, or switched: the kernel served it. */
	EXPECT_EQ(0, dl_unserved_until(&ran, now));
	EXPECT_EQ(0, dl_unserved_until(&switched, now));
	/* Counts that could not be read say nothing. */
	EXPECT_EQ(0, dl_unserved_until(&unknown, now));
}

/*
 * The FIFO emulation's checks of a raised task: the rest of its runtime at
 * the pace it ran while it runs, backing off while it does not, so that a
 * task that cannot run yet is not polled every 20 us for a whole period,
 * nor one that runs slowly checked back to back.
 */
TEST(fifo_poll)
{
	const uint64_t rt = BASE;
	uint64_t poll = rt, ran = 0, checks = 0, t = 0;

	/* It ran the whole last wait: the rest of its runtime. */
	EXPECT_EQ(rt - 5000, fifo_poll_ns(rt, 5000, 0, 5000, 0));
	EXPECT_EQ(rt - 15000, fifo_poll_ns(rt, 15000, 5000, 10000, 0));
	/* A quarter of it: four times the rest. */
	EXPECT_EQ(4 * (rt - 5000), fifo_poll_ns(rt, 5000, 0, rt, 0));
	/* So slowly that the rest would take longer than the cap: the cap. */
	EXPECT_EQ(FIFO_POLL_MAX_NS, fifo_poll_ns(rt, 10, 0, rt, 0));
	/* It did not run: twice the last wait, at least the rest. */
	EXPECT_EQ(2 * rt, fifo_poll_ns(rt, 0, 0, rt, 0));
	EXPECT_EQ(10000, fifo_poll_ns(rt, 15000, 15000, 5000, 0));
	EXPECT_EQ(rt - 19000, fifo_poll_ns(rt, 19000, 19000, 100, 0));
	/* Up to the cap, however long it has waited. */
	EXPECT_EQ(FIFO_POLL_MAX_NS,
		  fifo_poll_ns(rt, 0, 0, FIFO_POLL_MAX_NS / 2 + 1, 0));
	EXPECT_EQ(FIFO_POLL_MAX_NS, fifo_poll_ns(rt, 0, 0, FIFO_POLL_MAX_NS, 0));
	EXPECT_EQ(FIFO_POLL_MAX_NS, fifo_poll_ns(rt, 0, 0, UINT64_MAX, 0));
	/* An escalated runtime above the cap: never checked before it. */
	EXPECT_EQ(50000000, fifo_poll_ns(50000000, 0, 0, 50000000, 0));
	EXPECT_EQ(50000000 - 10, fifo_poll_ns(50000000, 10, 0, 50000000, 0));
	/* Never sooner than the check took; ratio times it if it did not run. */
	EXPECT_EQ(30000, fifo_poll_ns(rt, 19000, 0, 19000, 30000));
	EXPECT_EQ(FIFO_POLL_COST_RATIO * 30000,
		  fifo_poll_ns(rt, 0, 0, 10000, 30000));
	EXPECT_EQ(FIFO_POLL_COST_RATIO * 200000,
		  fifo_poll_ns(rt, 0, 0, FIFO_POLL_MAX_NS, 200000));
	/* Past its runtime (the caller lowers it): no wait. */
	EXPECT_EQ(0, fifo_poll_ns(rt, rt + 1, 0, rt, 0));
	EXPECT_EQ(0, fifo_poll_ns(rt, rt, 0, rt, 30000));
	/*
	 * A task that never runs in a 1 s period: the checks are counted,
	 * about one per cap once the wait has grown to it, not one per
	 * runtime (50000).
	 */
	while (t < PERIOD) {
		poll = fifo_poll_ns(rt, ran, ran, poll, 0);
		t += poll;
		checks++;
	}
	EXPECT_GE(PERIOD / FIFO_POLL_MAX_NS + 16, checks);
	/*
	 * Nor, at 200 us a check, one per cap: a tenth of the time (after the
	 * first check, a runtime after the raise).
	 */
	poll = rt;
	checks = 0;
	t = 0;
	while (t < PERIOD) {
		t += poll + 200000;
		poll = fifo_poll_ns(rt, 0, 0, poll, 200000);
		checks++;
	}
	EXPECT_GE(t, (checks - 1) * 200000 * 10)
		TH_LOG("%llu checks of 200 us in %llu ns",
		       (unsigned long long)checks, (unsigned long long)t);
	/*
	 * A task that runs 1 us in each 100 (its CPU shared, a virtual CPU
	 * run in slices), checked at 50 us a check: a few checks, which take
	 * at most a tenth of the time until it has had its runtime, where
	 * waiting the rest of its runtime each time made 34 checks, 80 % of
	 * it.
	 */
	poll = rt;
	ran = 0;
	checks = 0;
	t = 0;
	while (ran < rt && t < PERIOD) {
		uint64_t before = ran;

		t += poll + 50000;
		ran += (poll + 50000) / 100;
		poll = fifo_poll_ns(rt, ran, before, poll, 50000);
		checks++;
	}
	EXPECT_LE(rt, ran);
	EXPECT_GE(5, checks);
	EXPECT_GE(t, checks * 50000 * 10)
		TH_LOG("%llu checks of 50 us in %llu ns",
		       (unsigned long long)checks, (unsigned long long)t);
}

TEST(sched_features_parser)
{
	const char *f = "GENTLE_FAIR_SLEEPERS START_DEBIT NO_HRTICK NO_HRTICK_DL DOUBLE_TICK";

	EXPECT_EQ(0, sched_feature_on(f, "HRTICK_DL"));
	EXPECT_EQ(0, sched_feature_on(f, "HRTICK"));
	EXPECT_EQ(1, sched_feature_on(f, "START_DEBIT"));
	EXPECT_EQ(1, sched_feature_on("HRTICK_DL NO_HRTICK", "HRTICK_DL"));
	EXPECT_EQ(-1, sched_feature_on(f, "HRTICK_D"));
	EXPECT_EQ(-1, sched_feature_on("", "HRTICK_DL"));
}

/*
 * The emulation's priority: one above the holder, above the task's own,
 * and below starvd where the task shares starvd's only CPU (starvd must
 * preempt it there to lower it).
 */
TEST(fifo_boost_priority)
{
	/* Kernel prio 50 is SCHED_FIFO 49: raised to 50. */
	EXPECT_EQ(50, fifo_boost_prio(50, 10, 0));
	/* Not real-time (kernel prio 120): the lowest. */
	EXPECT_EQ(FIFO_BOOST_MIN_PRIO, fifo_boost_prio(120, 0, 0));
	/* Holder not known: all but the top, which stays the kernel's. */
	EXPECT_EQ(FIFO_BOOST_MAX_PRIO - 1, fifo_boost_prio(-1, 0, 0));
	/* Always above its own priority, never past the top. */
	EXPECT_EQ(41, fifo_boost_prio(90, 40, 0));
	EXPECT_EQ(FIFO_BOOST_MAX_PRIO, fifo_boost_prio(1, 10, 0));
	EXPECT_EQ(0, fifo_boost_prio(1, FIFO_BOOST_MAX_PRIO, 0));
	/* Nothing is above a SCHED_FIFO 99 holder. */
	EXPECT_EQ(0, fifo_boost_prio(0, 10, 0));
	/* On starvd's only CPU, with starvd at SCHED_FIFO 60: below 60. */
	EXPECT_EQ(59, fifo_boost_prio(-1, 10, 60));
	EXPECT_EQ(59, fifo_boost_prio(41, 10, 60));
	EXPECT_EQ(50, fifo_boost_prio(50, 10, 60));
	EXPECT_EQ(FIFO_BOOST_MIN_PRIO, fifo_boost_prio(120, 0, 60));
	/* Nothing between the holder (or its own) and starvd: no boost. */
	EXPECT_EQ(0, fifo_boost_prio(40, 10, 60));
	EXPECT_EQ(0, fifo_boost_prio(10, 10, 60));
	EXPECT_EQ(0, fifo_boost_prio(-1, 59, 60));
	EXPECT_EQ(0, fifo_boost_prio(-1, 70, 60));
	EXPECT_EQ(0, fifo_boost_prio(120, 0, 1));
}

/*
 * The emulation's steps (fifo_emul_step()), as both runners take them: a
 * boost of 3 periods of 100 us runtime each 1 ms, from t = 1000 us.
 */
#define US 1000ULL

TEST(fifo_emulation_steps)
{
	struct fifo_emul e;
	uint64_t next;

	fifo_emul_init(&e, 100 * US, 1000 * US, 1000 * US, 3500 * US);
	EXPECT_EQ(FIFO_ACT_WAIT, fifo_emul_step(&e, 900 * US, 0, true, 0, &next));
	EXPECT_EQ(1000 * US, next);
	EXPECT_EQ(FIFO_ACT_RAISE, fifo_emul_step(&e, 1000 * US, 0, true, 0, &next));
	/* Raised: the first look after the runtime. */
	EXPECT_EQ(1100 * US, fifo_emul_raised(&e, 1000 * US));
	/* Not run yet: wait, backing off, never past the period's end. */
	EXPECT_EQ(FIFO_ACT_WAIT, fifo_emul_step(&e, 1100 * US, 0, true, 10 * US, &next));
	EXPECT_LT(1100 * US, next);
	EXPECT_GE(2000 * US, next);
	/* Ran part of it and still runnable: the rest, at its pace. */
	EXPECT_EQ(FIFO_ACT_WAIT, fifo_emul_step(&e, 1300 * US, 40 * US, true, 10 * US, &next));
	/* Its runtime: lowered, raised again when the next period begins. */
	EXPECT_EQ(FIFO_ACT_LOWER, fifo_emul_step(&e, 1400 * US, 100 * US, true, 10 * US, &next));
	EXPECT_EQ(2000 * US, fifo_emul_lowered(&e, 1400 * US));
	EXPECT_FALSE(e.raised);
	EXPECT_EQ(FIFO_ACT_RAISE, fifo_emul_step(&e, 2000 * US, 0, true, 0, &next));
	fifo_emul_raised(&e, 2000 * US);
	/* Blocked (ran, then not runnable): lowered before its runtime. */
	EXPECT_EQ(FIFO_ACT_LOWER, fifo_emul_step(&e, 2050 * US, 30 * US, false, 0, &next));
	/* Not run, and not runnable: not blocked, it waits on. */
	fifo_emul_lowered(&e, 2050 * US);
	fifo_emul_raised(&e, 3000 * US);
	EXPECT_EQ(FIFO_ACT_WAIT, fifo_emul_step(&e, 3100 * US, 0, false, 0, &next));
	/* The period's end lowers it, whatever it ran. */
	EXPECT_EQ(FIFO_ACT_LOWER, fifo_emul_step(&e, 4000 * US, 10 * US, true, 0, &next));
	/* Lowered late: the next period starts now, but the boost is over. */
	EXPECT_EQ(3500 * US, fifo_emul_lowered(&e, 4100 * US));
	EXPECT_EQ(FIFO_ACT_END, fifo_emul_step(&e, 4100 * US, 0, true, 0, &next));
}

/* A lowered task's next step is its next raise, or the boost's end. */
TEST(fifo_emulation_ends_at_the_boost_end)
{
	struct fifo_emul e;
	uint64_t next;

	fifo_emul_init(&e, 100 * US, 1000 * US, 0, 1500 * US);
	fifo_emul_raised(&e, 0);
	EXPECT_EQ(FIFO_ACT_LOWER, fifo_emul_step(&e, 100 * US, 100 * US, true, 0, &next));
	EXPECT_EQ(1000 * US, fifo_emul_lowered(&e, 100 * US));
	fifo_emul_raised(&e, 1000 * US);
	EXPECT_EQ(FIFO_ACT_LOWER, fifo_emul_step(&e, 1100 * US, 100 * US, true, 0, &next));
	/* The next period (2000 us) is past the end: wake at the end. */
	EXPECT_EQ(1500 * US, fifo_emul_lowered(&e, 1100 * US));
	EXPECT_EQ(FIFO_ACT_WAIT, fifo_emul_step(&e, 1200 * US, 0, true, 0, &next));
	EXPECT_EQ(1500 * US, next);
	EXPECT_EQ(FIFO_ACT_END, fifo_emul_step(&e, 1500 * US, 0, true, 0, &next));
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boost.h"
#include "boost_refusal.h"
#include "daemon.h"
#include "escape.h"
#include "event.h"
#include "fifo_policy.h"
#include "log.h"
#include "proc.h"
#include "util.h"

/*
 * Every boost is reset on fork: the kernel refuses fork() to a
 * SCHED_DEADLINE task without it (docs/kernel-behaviours.md, "A
 * SCHED_DEADLINE task cannot fork"), and a child of an emulation boost
 * would keep its priority for good. A child forked during a boost starts
 * at SCHED_OTHER, nice 0; one forked while lowered as without starvd.
 */
#define BOOST_FLAGS	SCHED_FLAG_RESET_ON_FORK

/* Emulations run on their tasks' CPUs at once; more run from starvd's. */
#define FIFO_WORKERS	8

void booster_init(struct booster *b, const struct boost_params *p,
		  struct journal *j)
{
	memset(b, 0, sizeof(*b));
	b->p = *p;
	b->journal = j;
	b->esc.policy = (struct escalate_policy) {
		.enabled = !p->no_escalation,
		.base_ns = p->runtime_ns,
		.cap_ns = escalate_default_cap(p->runtime_ns, p->period_ns),
	};
	b->hrtick.state = HRTICK_UNAVAILABLE;
	/*
	 * The emulation's threads, made now and never while boosting
	 * (fifo_worker.h); without them, it runs from starvd's CPU.
	 */
	b->pool.done_fd = -1;
	if (j) {
		int ret = fifo_pool_init(&b->pool, FIFO_WORKERS);

		if (ret)
			log_msg("the SCHED_FIFO emulation has %d of its %d threads (%s): more emulations run from starvd's own CPUs, later than their runtime",
				b->pool.n, FIFO_WORKERS, strerror(-ret));
	}
	if (p->run_dir) {
		/* A killed starvd's change first, then what the kernel has. */
		hrtick_recover(p->run_dir);
		if (!p->force_fifo)
			hrtick_init(&b->hrtick, p->run_dir);
	}
}

void booster_free(struct booster *b)
{
	size_t i;

	fifo_pool_free(&b->pool);
	for (i = 0; i < b->n; i++)
		task_id_close(&b->v[i].id);
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
	escalations_free(&b->esc);
	dl_debts_free(&b->debts);
}

/* After a SCHED_DEADLINE boost: what its task owes (boost_debt.h). */
static void note_debt(struct booster *b, const struct boost *bo,
		      const struct boost_delta *delta, uint64_t now)
{
	if (bo->fifo)
		return;
	dl_debt_note(&b->debts, &bo->id, boost_began(b, bo), bo->runtime_ns,
		     b->p.period_ns, delta, now);
}

bool boost_take_again(struct booster *b, uint32_t tid)
{
	return escalation_take_again(&b->esc, tid);
}

void boost_again_clear(struct booster *b)
{
	escalation_again_clear(&b->esc);
}

bool boost_active(const struct booster *b, uint32_t tid)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->v[i].task.tid == tid)
			return true;
	return false;
}

/* -ESTALE (task_id.h) logged, and the task gone: -ESRCH. */
static int gone_if_reused(const struct boost *bo, int ret)
{
	if (ret != -ESTALE)
		return ret;
	log_reused(bo->task.tid, bo->task.comm);
	return -ESRCH;
}

static int apply(struct booster *b, struct boost *bo)
{
	int ret = journal_boost(b->journal, &bo->task, &bo->id, &bo->saved,
				&bo->applied);

	if (ret) {
		bo->unjournaled = true;
		return ret;
	}
	ret = gone_if_reused(bo, task_id_change(&bo->id, NULL, &bo->applied));
	if (ret > 0)
		ret = 0;
	if (ret && b->journal)
		journal_remove(b->journal, bo->task.tid);
	return ret;
}

static void log_boost(const struct booster *b, const struct boost *bo)
{
	struct event ev = {
		.kind = EVENT_BOOST, .task = bo->task,
		.boost = { .applied = &bo->applied,
			   .runtime_ns = bo->runtime_ns,
			   .period_ns = b->p.period_ns,
			   .duration_ns = b->p.duration_ns },
	};

	event_log(&ev);
}

static int start_deadline(struct booster *b, struct boost *bo)
{
	int ret;

	bo->applied = (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = BOOST_FLAGS,
		.sched_runtime = bo->runtime_ns,
		.sched_deadline = b->p.period_ns,
		.sched_period = b->p.period_ns,
	};
	ret = apply(b, bo);
	if (ret == -EINVAL || ret == -ENOSYS) {
		log_msg("this kernel refused SCHED_DEADLINE (%s): boosting with SCHED_FIFO emulation from now on",
			strerror(-ret));
		b->dl_unavailable = true;
	}
	return ret;
}

/* What an emulation boost raises a task to. */
static struct sched_attr fifo_applied(int prio)
{
	return (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
		.sched_flags = BOOST_FLAGS,
	};
}

/*
 * The emulation on the task's CPU (fifo_worker.h), its thread one
 * priority above the raised task (@prio), which is raised here for its
 * first period, after the journal: 0, -ENOTSUP when no thread can run
 * it there (said once), or -errno of the journal or the raise.
 */
static int start_worker(struct booster *b, struct boost *bo, int prio,
			uint64_t now)
{
	struct fifo_worker *w;
	uint64_t exec0;
	int ret;

	w = fifo_pool_get(&b->pool, bo->task.cpu, prio + 1, &ret);
	if (!w) {
		if (!b->worker_refused && b->pool.n)
			log_msg("cannot run the SCHED_FIFO emulation of pid %u (%s) on its CPU %d (%s): lowering raised tasks from starvd's own CPUs, later than their runtime",
				bo->task.tid, esc_name(bo->task.comm),
				bo->task.cpu,
				ret == -EAGAIN ?
				"the free emulation threads have not run since starvd started; its CPUs are busy: give it one of its own with -a" :
				ret ? strerror(-ret) :
				"every emulation thread is busy");
		b->worker_refused = true;
		return -ENOTSUP;
	}
	bo->applied = fifo_applied(prio);
	exec0 = task_exec_ns(bo->task.tid);
	ret = apply(b, bo);
	if (ret) {
		fifo_worker_put(w, false);
		return ret;
	}
	w->id = bo->id;
	w->saved = bo->saved;
	w->applied = bo->applied;
	w->runtime_ns = bo->runtime_ns;
	w->period_ns = b->p.period_ns;
	w->start_ns = now;
	w->exec0_ns = exec0;
	w->end_ns = bo->end_ns;
	fifo_worker_start(w);
	bo->worker = w;
	bo->fifo = true;
	return 0;
}

/*
 * The emulation: on the task's CPU, where a thread of starvd's one
 * priority above the raised task can run there; else from here, where a
 * task on the only CPU starvd may run on must stay below starvd, which
 * has to preempt it to lower it. Where starvd runs is read now
 * (daemon.h).
 */
static int start_fifo(struct booster *b, struct boost *bo, int holder_prio,
		      uint64_t now)
{
	int only, own, prio, ret;

	own_scheduling(&only, &own);
	/*
	 * The worker's own is one above. On starvd's only CPU at most
	 * starvd's real-time priority: raised above it for the first
	 * period, the task would preempt starvd before the hand-over.
	 */
	prio = fifo_boost_prio(holder_prio, bo->saved.sched_priority,
			       bo->task.cpu == only && own ?
			       own + 1 : FIFO_BOOST_MAX_PRIO);
	if (prio && bo->task.cpu >= 0 && b->pool.n) {
		ret = start_worker(b, bo, prio, now);
		if (ret != -ENOTSUP)
			return ret;
	}
	prio = fifo_boost_prio(holder_prio, bo->saved.sched_priority,
			       bo->task.cpu == only ? own : 0);
	if (!prio)
		return -ERANGE;
	bo->applied = fifo_applied(prio);
	bo->fifo = true;
	fifo_emul_init(&bo->emul, bo->runtime_ns, b->p.period_ns, now,
		       bo->end_ns);
	bo->exec_at_raise_ns = task_exec_ns(bo->task.tid);
	bo->next_ns = fifo_emul_raised(&bo->emul, now);
	return apply(b, bo);
}

/*
 * How long after its boost a task still starving is found again: its wait
 * restarted at the latest when the boost ended; the rest is slack.
 */
static uint64_t keep_up_window(const struct booster *b)
{
	return b->p.threshold_ns + b->p.duration_ns + b->p.period_ns;
}

/* Escalated tasks not found starving again keep up: back to -r. */
static int expire_escalations(struct booster *b, uint64_t now)
{
	return escalation_expire(&b->esc, keep_up_window(b), boost_active, b,
				 now);
}

/*
 * Save what @t has now, to restore it, and what its boost gets: 0, or
 * -errno if it is not to be boosted (gone, unreadable, SCHED_DEADLINE).
 */
static int save_task(struct booster *b, const struct starvd_task *t,
		     struct boost *bo, uint64_t now)
{
	int ret = task_id_open(&bo->id, t->tid);

	if (ret == -ENODATA) {
		log_err("cannot read the start time of pid %u (%s) in /proc/%u/stat: without it a task that reused its pid could not be told from it; not boosting (is /proc mounted, and readable by starvd?)",
			t->tid, esc_name(t->comm), t->tid);
		b->nr_failures++;
	}
	if (ret)
		return ret;	/* -ESRCH: exited meanwhile, nothing to do */
	ret = sched_getattr_tid(t->tid, &bo->saved);
	if (!ret && !task_id_same(&bo->id))
		ret = -ESRCH;	/* the attributes read may be another's */
	if (ret && ret != -ESRCH) {
		log_err("cannot read the scheduling attributes of pid %u (%s): %s; not boosting",
			t->tid, esc_name(t->comm), strerror(-ret));
		b->nr_failures++;
	}
	if (!ret && bo->saved.sched_policy == SCHED_DEADLINE) {
		log_msg("pid %u (%s) is already SCHED_DEADLINE: not boosting",
			t->tid, esc_name(t->comm));
		ret = -EEXIST;
	}
	if (ret) {
		task_id_close(&bo->id);
		return ret;
	}
	task_progress(t->tid, &bo->before);
	bo->end_ns = now + b->p.duration_ns;
	bo->runtime_ns = escalation_runtime(&b->esc, bo->task.tid,
					    bo->id.start_time);
	return 0;
}

/* Is SCHED_DEADLINE to be tried? Not while the task owes a boost's time. */
static bool deadline_allowed(struct booster *b, const struct boost *bo,
			     uint64_t now)
{
	if (b->p.force_fifo || b->dl_unavailable)
		return false;
	return !dl_debt_owed(&b->debts, &bo->id, bo->task.comm, now);
}

/* @bo is applied: track it until it ends. */
static void add_boost(struct booster *b, const struct boost *bo)
{
	grow_array((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	b->v[b->n++] = *bo;
	b->nr_boosts++;
	if (bo->runtime_ns > b->max_runtime_ns)
		b->max_runtime_ns = bo->runtime_ns;
	escalation_log(&b->esc, &bo->task, bo->runtime_ns, b->p.period_ns);
	log_boost(b, bo);
}

int boost_start(struct booster *b, const struct starvd_task *t,
		int holder_prio, uint64_t now)
{
	struct boost bo = { .task = *t, .holder_prio = holder_prio };
	int ret, dl_ret = 0;

	ret = save_task(b, t, &bo, now);
	if (ret)
		return ret;
	if (!b->p.force_fifo && !b->dl_unavailable)
		hrtick_boosting(&b->hrtick, true);

	ret = -EINVAL;	/* SCHED_FIFO emulation unless SCHED_DEADLINE works */
	if (deadline_allowed(b, &bo, now)) {
		ret = dl_ret = start_deadline(b, &bo);
		/*
		 * A success means bandwidth is free again: a later EBUSY is
		 * news. EPERM is about the refused task's affinity, which the
		 * success of another task says nothing about.
		 */
		if (!dl_ret)
			b->dl_refusals_logged &= ~refusal_bit(-EBUSY);
		if (!dl_ret && now + b->p.period_ns < bo.end_ns)
			bo.check_ns = now + b->p.period_ns + DL_STATE_SLACK_NS;
		if (dl_ret == -ESRCH || bo.unjournaled)
			goto failed;
	}
	if (ret)
		ret = start_fifo(b, &bo, holder_prio, now);
	if (ret == -ESRCH || bo.unjournaled)
		goto failed;
	if (ret) {
		/* The episode is not retried. */
		log_not_boosted(t, dl_ret, ret);
		goto failed;
	}
	log_deadline_refused(&b->dl_refusals_logged, b->dl_unavailable, t,
			     dl_ret);
	add_boost(b, &bo);
	return 0;

failed:
	/* Unchanged: nothing of it stays journaled (a worker's, say). */
	task_id_close(&bo.id);
	if (b->journal)
		journal_remove(b->journal, t->tid);
	if (ret != -ESRCH)
		b->nr_failures++;
	if (!b->n)
		hrtick_boosting(&b->hrtick, false);
	return ret;
}

/*
 * An emulation thread says when its boost is over, by the end of the
 * period that began before the boost's end. Not done later than that,
 * it cannot run on the task's CPU: a task above it holds the CPU (one
 * that came there after the boost began, above the holder it was raised
 * over). The main loop then ends the job itself (fifo_worker_put()
 * brings the thread home, where it lowers the task).
 */
#define WORKER_OVERDUE_SLACK_NS	(100 * NSEC_PER_MSEC)

static uint64_t worker_overdue_ns(const struct booster *b,
				  const struct boost *bo)
{
	return bo->end_ns + b->p.period_ns + WORKER_OVERDUE_SLACK_NS;
}

static void log_worker_overdue(const struct boost *bo)
{
	log_msg("the SCHED_FIFO emulation of pid %u (%s) cannot run on CPU %d (a task above the priority it was raised to holds it): lowering it from starvd's own CPUs; a next boost goes above that task",
		bo->task.tid, esc_name(bo->task.comm), bo->task.cpu);
}

/*
 * End the job of @bo's emulation thread, if it has one, and send the
 * thread home (at once if it is done or @outranked; else once it has
 * lowered its task): 0, or what the job ended with.
 */
static int end_worker(struct booster *b, struct boost *bo, bool outranked)
{
	int ret;

	if (!bo->worker)
		return 0;
	ret = fifo_worker_put(bo->worker, outranked);
	bo->worker = NULL;
	return ret;
}

/* Back, gone, or someone else's: a boost may leave the booster. */
static bool restore_settled(int ret)
{
	return !ret || ret == -ESRCH || ret == -EBUSY;
}

/* Longest wait between two tries of a restore the kernel refused. */
#define RESTORE_RETRY_MAX_NS	(64 * NSEC_PER_SEC)

/*
 * The restore of @bo failed and its task is still changed: it stays in
 * the booster (and so in the journal, in status, and never boosted
 * again meanwhile), and the restore is tried again, a period later, then
 * less and less often. Each failure is logged by restore_task().
 */
static void restore_later(struct booster *b, struct boost *bo, uint64_t now)
{
	bo->retry_ns = bo->retry_ns ? bo->retry_ns * 2 : b->p.period_ns;
	if (bo->retry_ns > RESTORE_RETRY_MAX_NS)
		bo->retry_ns = RESTORE_RETRY_MAX_NS;
	bo->restore_pending = true;
	bo->next_ns = now + bo->retry_ns;
}

/* Boost @i leaves the booster. */
static void leave(struct booster *b, size_t i)
{
	task_id_close(&b->v[i].id);
	b->v[i] = b->v[--b->n];
}

static void forget(struct booster *b, size_t i)
{
	if (b->journal)
		journal_remove(b->journal, b->v[i].task.tid);
	leave(b, i);
	if (!b->n)
		hrtick_boosting(&b->hrtick, false);
}

/*
 * End boost @i: restore its task and log it. False if the restore failed
 * and the task is still changed: the boost stays (restore_later()), but
 * not once starvd is stopping, when its journal entry stays for
 * "starvd --restore" (the unit's ExecStopPost) or the next start.
 */
static bool finish(struct booster *b, size_t i, const char *why,
		   uint64_t now)
{
	struct boost *bo = &b->v[i];
	struct progress_sample after;
	struct boost_delta d;
	struct event ev = {
		.kind = EVENT_RESTORE, .task = bo->task,
		.restore = { .saved = &bo->saved, .delta = &d,
			     .runtime_ns = bo->runtime_ns, .reason = why },
	};
	int ret;

	end_worker(b, bo, false);
	ret = restore_task(&bo->id, bo->task.comm, &bo->saved, &bo->applied,
			   NULL);
	if (!restore_settled(ret)) {
		if (!b->stopping) {
			restore_later(b, bo, now);
			return false;
		}
		log_err("pid %u (%s) stays in the boost journal of %s: \"starvd --restore\" or the next start puts it back",
			bo->task.tid, esc_name(bo->task.comm), b->p.run_dir ?: "starvd");
		leave(b, i);
		return true;
	}
	/* Sampled right after the restore, from bo->before's files. */
	task_progress(bo->task.tid, &after);
	if (!ret) {
		d = progress_delta(&bo->before, &after);
		event_log(&ev);
	}
	/* What the next boost of it gets: nothing after boost_stop_all(). */
	if (!ret && !b->stopping) {
		escalation_update(&b->esc, &bo->task, bo->id.start_time,
				  bo->runtime_ns, d.outcome, now);
		if (d.outcome != OUTCOME_UNKNOWN)
			note_debt(b, bo, &d, now);
	}
	forget(b, i);
	return true;
}

/*
 * The SCHED_FIFO emulation run from starvd's own CPUs: raise the task,
 * look at its CPU time (its schedstat) while raised, lower it when
 * fifo_emul_step() says so (fifo_policy.h), the same steps as the
 * emulation threads take on the task's CPU (fifo_worker.c). Measuring the
 * CPU time rather than trusting the clock matters: getting a queued task
 * onto its CPU can take longer than a 20 us runtime (an IPI to a busy
 * CPU, more under virtualisation).
 */
static int fifo_raise(struct boost *bo, uint64_t now)
{
	int ret;

	bo->exec_at_raise_ns = task_exec_ns(bo->task.tid);
	ret = gone_if_reused(bo, task_id_change(&bo->id, &bo->saved,
						&bo->applied));
	/* Someone else changed it while lowered: stop boosting it. */
	if (ret == -EBUSY)
		log_changed(bo->task.tid, bo->task.comm);
	if (ret < 0)
		return ret;
	bo->next_ns = fifo_emul_raised(&bo->emul, now);
	return 0;
}

static int fifo_step(struct booster *b, struct boost *bo, uint64_t now)
{
	uint64_t start = now_ns(), ran = 0, took;
	bool runnable = true;
	int ret;

	if (bo->emul.raised) {
		ran = task_exec_ns(bo->task.tid) - bo->exec_at_raise_ns;
		if (ran)
			runnable = task_runnable(bo->task.tid);
		/*
		 * What a look costs here: the shortest seen, not this one,
		 * which starvd's own preemption (or a host's) can stretch.
		 * Times the boosts in progress: this loop looks at each.
		 */
		took = now_ns() - start;
		if (!b->check_min_ns || took < b->check_min_ns)
			b->check_min_ns = took;
	}
	switch (fifo_emul_step(&bo->emul, now, ran, runnable,
			       b->check_min_ns * b->n, &bo->next_ns)) {
	case FIFO_ACT_RAISE:
		return fifo_raise(bo, now);
	case FIFO_ACT_LOWER:
		ret = restore_task(&bo->id, bo->task.comm, &bo->saved,
				   &bo->applied, NULL);
		bo->next_ns = fifo_emul_lowered(&bo->emul, now);
		return ret;
	default:	/* FIFO_ACT_END: boost_step() finishes it at its end */
		return 0;
	}
}

/*
 * A boost that cannot go on (@err: its task is gone, was changed by
 * someone else, or a step failed). It leaves the booster only once its
 * task is back, gone or someone else's, which restore_task() finds out
 * from the kernel, whatever the failed step was: a task left changed is
 * restored now, or later (restore_later()). False if it stays.
 */
static bool drop(struct booster *b, size_t i, int err, uint64_t now)
{
	struct boost *bo = &b->v[i];
	int ret = err;

	if (err != -ESRCH && err != -EBUSY)
		ret = restore_task(&bo->id, bo->task.comm, &bo->saved,
				   &bo->applied, "its boost could not go on");
	if (!restore_settled(ret)) {
		restore_later(b, bo, now);
		return false;
	}
	forget(b, i);
	return true;
}

/*
 * Each period of a SCHED_DEADLINE boost, is the kernel serving it? It
 * guarantees an admitted reservation its runtime in each period, so a
 * task still runnable that has had no CPU time and no context switch
 * since the boost began is not being served (escalate.h,
 * dl_unserved_until(): a throttle left from an earlier boost, ours or
 * another daemon's). And a task that ran well past its runtime (to the
 * next tick without HRTICK_DL, or late under virtualisation: 4 ms over a
 * 20 us runtime is 200 periods) has had its CBS deadline moved as many
 * periods ahead, and the kernel does not run it again until then: often
 * not before the boost ends, on a CPU where its own policy would run it
 * (docs/kernel-behaviours.md, "The overrun debt survives leaving
 * SCHED_DEADLINE").
 * In both cases the rest of this boost, and its boosts until that state
 * has expired, use the SCHED_FIFO emulation: not the whole boost lost,
 * and on PREEMPT_RT not every waiter of a lock the task holds with it.
 * -errno if the task is gone or was changed.
 */
static int check_served(struct booster *b, struct boost *bo, uint64_t now)
{
	uint64_t start = boost_began(b, bo), until;
	struct progress_sample s;
	struct boost_delta d;
	enum dl_wait why;
	int ret;

	task_progress(bo->task.tid, &s);
	d = progress_delta(&bo->before, &s);
	until = dl_unserved_until(&d, now);
	why = DL_WAIT_UNSERVED;
	if (!until || !task_runnable(bo->task.tid)) {
		/* Left without service beyond the next period. */
		until = dl_debt_until(start, now + b->p.period_ns, d.ran_ns,
				      bo->runtime_ns, b->p.period_ns);
		why = DL_WAIT_DEBT;
	}
	if (!until) {
		bo->check_ns += b->p.period_ns;
		if (bo->check_ns >= bo->end_ns)
			bo->check_ns = 0;
		return 0;
	}
	bo->check_ns = 0;
	dl_debt_add(&b->debts, &bo->id, until, why, now);
	dl_debt_find(&b->debts, &bo->id, now)->said = true;
	if (why == DL_WAIT_UNSERVED)
		log_msg("pid %u (%s) has not run at all since its SCHED_DEADLINE boost began, though runnable (the kernel keeps it throttled from an earlier boost): SCHED_FIFO emulation for the rest of this boost and for %.0f s",
			bo->task.tid, esc_name(bo->task.comm),
			(double)DL_UNSERVED_NS / NSEC_PER_SEC);
	else
		log_msg("pid %u (%s) ran %.3f ms of its %.0f us SCHED_DEADLINE runtime per period and the kernel will not run it again for %.0f s (its deadline moved overrun/runtime periods ahead; HRTICK_DL prevents it): SCHED_FIFO emulation for the rest of this boost and until then",
			bo->task.tid, esc_name(bo->task.comm), (double)d.ran_ns / 1e6,
			(double)bo->runtime_ns / 1e3,
			(double)(until - now) / NSEC_PER_SEC);
	/* Back first: a crash in between leaves nothing to restore. */
	ret = restore_task(&bo->id, bo->task.comm, &bo->saved, &bo->applied,
			   NULL);
	if (!ret)
		ret = start_fifo(b, bo, bo->holder_prio, now);
	return ret;
}

/*
 * Where a boost is (docs/design.md, "A boost's states"), from what its
 * steps set: the one place that tells them apart, for boost_run() and
 * boost_next_event().
 */
enum boost_state {
	BOOST_DEADLINE,		/* SCHED_DEADLINE, checked each period */
	BOOST_FIFO_WORKER,	/* emulation run on the task's CPU */
	BOOST_FIFO_RAISED,	/* emulation from here: the task raised */
	BOOST_FIFO_LOWERED,	/* emulation from here: until next period */
	BOOST_RESTORE_PENDING,	/* over, its restore refused: tried again */
};

static enum boost_state boost_state(const struct boost *bo)
{
	if (bo->worker)
		return BOOST_FIFO_WORKER;
	if (bo->restore_pending)
		return BOOST_RESTORE_PENDING;
	if (bo->fifo)
		return bo->emul.raised ? BOOST_FIFO_RAISED : BOOST_FIFO_LOWERED;
	return BOOST_DEADLINE;
}

/* An emulation thread's job that ended, or is overdue: the boost ends. */
static bool end_worker_job(struct booster *b, size_t i, uint64_t now)
{
	struct boost *bo = &b->v[i];
	bool done = fifo_worker_done(bo->worker);
	int ret;

	if (!done && now < worker_overdue_ns(b, bo))
		return false;
	if (!done)
		log_worker_overdue(bo);
	ret = gone_if_reused(bo, end_worker(b, bo, !done));
	if (ret == -EBUSY)
		log_changed(bo->task.tid, bo->task.comm);
	else if (ret && ret != -ESRCH)
		log_err("cannot raise or lower pid %u (%s) in its SCHED_FIFO emulation: %s",
			bo->task.tid, esc_name(bo->task.comm), strerror(-ret));
	return ret ? drop(b, i, ret, now) : finish(b, i, "boost over", now);
}

/* One step of boost @i, if one is due at @now; true if it left. */
static bool boost_step(struct booster *b, size_t i, uint64_t now)
{
	struct boost *bo = &b->v[i];
	int ret = 0;

	switch (boost_state(bo)) {
	case BOOST_FIFO_WORKER:
		return end_worker_job(b, i, now);
	case BOOST_RESTORE_PENDING:
		return now >= bo->next_ns && finish(b, i, "boost over", now);
	case BOOST_FIFO_LOWERED:
		if (now >= bo->end_ns)
			return finish(b, i, "boost over", now);
		fallthrough;
	case BOOST_FIFO_RAISED:
		if (now >= bo->next_ns)
			ret = fifo_step(b, bo, now);
		break;
	case BOOST_DEADLINE:
		if (now >= bo->end_ns)
			return finish(b, i, "boost over", now);
		if (bo->check_ns && now >= bo->check_ns)
			ret = check_served(b, bo, now);
		break;
	}
	return ret && drop(b, i, ret, now);
}

int boost_run(struct booster *b, uint64_t now)
{
	size_t i = 0, n = b->n;

	while (i < b->n)
		if (!boost_step(b, i, now))
			i++;
	return n - b->n + expire_escalations(b, now);
}

/* When boost @bo has its next step due (boost_step()). */
static uint64_t boost_due(const struct booster *b, const struct boost *bo)
{
	switch (boost_state(bo)) {
	case BOOST_FIFO_WORKER:
		return worker_overdue_ns(b, bo);	/* or boost_poll_fd() */
	case BOOST_RESTORE_PENDING:
	case BOOST_FIFO_RAISED:
		return bo->next_ns;
	case BOOST_FIFO_LOWERED:
		return bo->end_ns < bo->next_ns ? bo->end_ns : bo->next_ns;
	case BOOST_DEADLINE:
		return bo->check_ns && bo->check_ns < bo->end_ns ?
		       bo->check_ns : bo->end_ns;
	}
	return UINT64_MAX;
}

uint64_t boost_next_event(const struct booster *b)
{
	uint64_t next = UINT64_MAX, t;
	size_t i;

	for (i = 0; i < b->n; i++) {
		t = boost_due(b, &b->v[i]);
		if (t < next)
			next = t;
	}
	for (i = 0; i < b->esc.n; i++) {
		t = b->esc.v[i].end_ns + keep_up_window(b);
		if (t < next)
			next = t;
	}
	return next;
}

int boost_poll_fd(const struct booster *b)
{
	return b->pool.done_fd;
}

void boost_poll_ack(struct booster *b)
{
	uint64_t n;

	if (read(b->pool.done_fd, &n, sizeof(n)) < 0)
		return;	/* EAGAIN: nothing to take */
}

void boost_stop_all(struct booster *b)
{
	b->stopping = true;
	while (b->n)
		finish(b, b->n - 1, "starvd stopping", now_ns());
}

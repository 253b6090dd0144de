// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boost.h"
#include "log.h"
#include "proc.h"
#include "util.h"

#define FIFO_BOOST_MIN_PRIO	1
#define FIFO_BOOST_MAX_PRIO	99

void booster_init(struct booster *b, const struct boost_params *p,
		  struct journal *j)
{
	memset(b, 0, sizeof(*b));
	b->p = *p;
	b->journal = j;
}

void booster_free(struct booster *b)
{
	free(b->v);
	b->v = NULL;
	b->n = b->cap = 0;
}

bool boost_active(const struct booster *b, uint32_t tid)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->v[i].task.tid == tid)
			return true;
	return false;
}

static void journal_entry_of(const struct boost *bo, struct journal_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->tid = bo->task.tid;
	e->start_time = bo->start_time;
	memcpy(e->comm, bo->task.comm, sizeof(e->comm) - 1);
	e->saved = bo->saved;
	e->applied = bo->applied;
}

/* Journal first, then change the policy: a crash never loses a boost. */
static int apply(struct booster *b, struct boost *bo)
{
	struct journal_entry e;
	int ret;

	if (b->journal) {
		journal_entry_of(bo, &e);
		ret = journal_add(b->journal, &e);
		if (ret) {
			log_err("cannot journal the boost of pid %u (%s): %s; not boosting",
				bo->task.tid, bo->task.comm, strerror(-ret));
			bo->unjournaled = true;
			return ret;
		}
	}
	ret = sched_setattr_tid(bo->task.tid, &bo->applied);
	if (ret && b->journal)
		journal_remove(b->journal, bo->task.tid);
	return ret;
}

static void log_boost(const struct booster *b, const struct boost *bo)
{
	char rt[32], per[32], dur[32], text[512], json[640], comm[64];
	const struct starvd_task *t = &bo->task;

	format_ns(b->p.runtime_ns, rt, sizeof(rt));
	format_ns(b->p.period_ns, per, sizeof(per));
	format_ns(b->p.duration_ns, dur, sizeof(dur));
	if (bo->fifo)
		snprintf(text, sizeof(text),
			 "boosted pid %u (%s) (cpu %d) using SCHED_FIFO (priority %u for %s every %s, for %s)",
			 t->tid, t->comm, t->cpu, bo->applied.sched_priority,
			 rt, per, dur);
	else
		snprintf(text, sizeof(text),
			 "boosted pid %u (%s) (cpu %d) using SCHED_DEADLINE (%s/%s for %s)",
			 t->tid, t->comm, t->cpu, rt, per, dur);
	json_escape(t->comm, comm, sizeof(comm));
	snprintf(json, sizeof(json),
		 "\"event\":\"boost\",\"time_ns\":%llu,\"tid\":%u,\"tgid\":%u,\"comm\":\"%s\",\"cpu\":%d,\"policy\":\"%s\",\"priority\":%u,\"runtime_ns\":%llu,\"period_ns\":%llu,\"duration_ns\":%llu",
		 (unsigned long long)now_ns(), t->tid, t->tgid, comm, t->cpu,
		 bo->fifo ? "SCHED_FIFO" : "SCHED_DEADLINE",
		 bo->applied.sched_priority,
		 (unsigned long long)b->p.runtime_ns,
		 (unsigned long long)b->p.period_ns,
		 (unsigned long long)b->p.duration_ns);
	log_event(text, json);
}

/* What to do about a refused sched_setattr(), for the log. */
static const char *setattr_hint(int err)
{
	switch (err) {
	case -EBUSY:
		return " (SCHED_DEADLINE admission control: not enough bandwidth left; lower -r/--boost_runtime or raise -p/--boost_period)";
	case -EPERM:
		return " (starvd needs CAP_SYS_NICE; SCHED_DEADLINE also needs the task's affinity to span its root domain while RT throttling is on)";
	default:
		return "";
	}
}

static unsigned int refusal_bit(int err)
{
	return err == -EPERM ? 1 : err == -EBUSY ? 2 : 4;
}

static int start_deadline(struct booster *b, struct boost *bo)
{
	int ret;

	bo->applied = (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = b->p.runtime_ns,
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

static int start_fifo(struct booster *b, struct boost *bo, int holder_prio,
		      uint64_t now)
{
	int prio = FIFO_BOOST_MIN_PRIO;

	/* Run above the holder: kernel prio p is user priority 99 - p. */
	if (holder_prio >= 0 && holder_prio < 100)
		prio = 99 - holder_prio + 1;
	else if (holder_prio < 0)
		prio = FIFO_BOOST_MAX_PRIO - 1;
	/* Never at or below the task's own real-time priority: no boost. */
	if (prio <= (int)bo->saved.sched_priority)
		prio = bo->saved.sched_priority + 1;
	if (prio > FIFO_BOOST_MAX_PRIO)
		prio = FIFO_BOOST_MAX_PRIO;
	bo->applied = (struct sched_attr) {
		.size = sizeof(struct sched_attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
		.sched_flags = bo->saved.sched_flags & SCHED_FLAG_RESET_ON_FORK,
	};
	bo->fifo = true;
	bo->raised = true;
	bo->period_start_ns = now;
	bo->next_ns = now + b->p.runtime_ns;
	bo->exec_at_raise_ns = task_exec_ns(bo->task.tid);
	return apply(b, bo);
}

int boost_start(struct booster *b, const struct starvd_task *t,
		int holder_prio, uint64_t now)
{
	struct boost bo = { .task = *t };
	int ret, dl_ret = 0;

	ret = sched_getattr_tid(t->tid, &bo.saved);
	if (ret == -ESRCH)
		return ret;	/* exited meanwhile: nothing to do */
	if (ret) {
		log_err("cannot read the scheduling attributes of pid %u (%s): %s; not boosting",
			t->tid, t->comm, strerror(-ret));
		b->nr_failures++;
		return ret;
	}
	if (bo.saved.sched_policy == SCHED_DEADLINE) {
		log_msg("pid %u (%s) is already SCHED_DEADLINE: not boosting",
			t->tid, t->comm);
		return -EEXIST;
	}
	bo.start_time = task_start_time(t->tid);
	bo.switches_before = task_switches(t->tid);
	bo.end_ns = now + b->p.duration_ns;

	ret = -EINVAL;	/* SCHED_FIFO emulation unless SCHED_DEADLINE works */
	if (!b->p.force_fifo && !b->dl_unavailable) {
		ret = dl_ret = start_deadline(b, &bo);
		/*
		 * A success means bandwidth is free again: a later EBUSY is
		 * news. EPERM is about the refused task's affinity, which the
		 * success of another task says nothing about.
		 */
		if (!dl_ret)
			b->dl_refusals_logged &= ~refusal_bit(-EBUSY);
		if (dl_ret == -ESRCH || bo.unjournaled)
			goto failed;
	}
	if (ret)
		ret = start_fifo(b, &bo, holder_prio, now);
	if (ret == -ESRCH || bo.unjournaled)
		goto failed;
	if (ret) {
		/* One line for both attempts; the episode is not retried. */
		if (dl_ret && dl_ret != ret)
			log_err("cannot boost pid %u (%s): SCHED_DEADLINE: %s, SCHED_FIFO: %s%s",
				t->tid, t->comm, strerror(-dl_ret),
				strerror(-ret), setattr_hint(ret));
		else
			log_err("cannot boost pid %u (%s): %s%s", t->tid,
				t->comm, strerror(-ret), setattr_hint(ret));
		goto failed;
	}
	/* Said once per reason (EBUSY: again after a boost that worked). */
	if (dl_ret && !b->dl_unavailable &&
	    !(b->dl_refusals_logged & refusal_bit(dl_ret))) {
		log_msg("SCHED_DEADLINE boost of pid %u (%s) refused: %s%s; using SCHED_FIFO emulation for it and for the next ones refused this way",
			t->tid, t->comm, strerror(-dl_ret),
			setattr_hint(dl_ret));
		b->dl_refusals_logged |= refusal_bit(dl_ret);
	}
	grow_array((void **)&b->v, &b->cap, b->n + 1, sizeof(*b->v));
	b->v[b->n++] = bo;
	b->nr_boosts++;
	log_boost(b, &bo);
	return 0;

failed:
	if (ret != -ESRCH)
		b->nr_failures++;
	return ret;
}

int restore_task(pid_t tid, const char *comm, uint64_t start_time,
		 const struct sched_attr *saved,
		 const struct sched_attr *applied, const char *why)
{
	struct sched_attr cur;
	char to[64];
	int ret;

	if (start_time && task_start_time(tid) != start_time)
		return -ESRCH;	/* gone; the tid may have been reused */
	ret = sched_getattr_tid(tid, &cur);
	if (ret)
		return ret;
	if (sched_attr_same(&cur, saved))
		return 0;
	if (!sched_attr_same(&cur, applied)) {
		log_msg("pid %d (%s) was changed by someone else during the boost: leaving it as it is",
			tid, comm);
		return -EBUSY;
	}
	ret = sched_setattr_tid(tid, saved);
	if (ret) {
		log_err("cannot restore pid %d (%s): %s", tid, comm,
			strerror(-ret));
		return ret;
	}
	if (why) {
		sched_attr_format(saved, to, sizeof(to));
		log_msg("restored pid %d (%s) to %s (%s)", tid, comm, to, why);
	}
	return 0;
}

static void finish(struct booster *b, size_t i, const char *why)
{
	struct boost *bo = &b->v[i];
	char text[256], json[512], comm[64], to[64];
	uint64_t ran;
	int ret;

	ret = restore_task(bo->task.tid, bo->task.comm, bo->start_time,
			   &bo->saved, &bo->applied, NULL);
	if (b->journal)
		journal_remove(b->journal, bo->task.tid);
	if (!ret) {
		ran = task_switches(bo->task.tid) - bo->switches_before;
		sched_attr_format(&bo->saved, to, sizeof(to));
		json_escape(bo->task.comm, comm, sizeof(comm));
		snprintf(text, sizeof(text),
			 "restored pid %u (%s) to %s (%s; %llu context switches during the boost)",
			 bo->task.tid, bo->task.comm, to, why,
			 (unsigned long long)ran);
		snprintf(json, sizeof(json),
			 "\"event\":\"restore\",\"time_ns\":%llu,\"tid\":%u,\"comm\":\"%s\",\"cpu\":%d,\"policy\":\"%s\",\"priority\":%u,\"nice\":%d,\"switches\":%llu,\"reason\":\"%s\"",
			 (unsigned long long)now_ns(), bo->task.tid, comm,
			 bo->task.cpu, policy_name(bo->saved.sched_policy),
			 bo->saved.sched_priority, bo->saved.sched_nice,
			 (unsigned long long)ran, why);
		log_event(text, json);
	}
	b->v[i] = b->v[--b->n];
}

/*
 * FIFO emulation: raised until the task has had runtime of CPU time (its
 * schedstat), has blocked, or a period has passed, then back for the rest
 * of the period. Measuring the CPU time rather than trusting the clock
 * matters: getting a queued task onto its CPU can take longer than a
 * 20 us runtime (an IPI to a busy CPU, more under virtualisation).
 */
static int fifo_lower_or_extend(struct booster *b, struct boost *bo,
				uint64_t now)
{
	uint64_t ran = task_exec_ns(bo->task.tid) - bo->exec_at_raise_ns;
	int ret;

	if (ran < b->p.runtime_ns && task_runnable(bo->task.tid) &&
	    now - bo->period_start_ns < b->p.period_ns) {
		bo->next_ns = now + b->p.runtime_ns - ran;
		return 0;
	}
	ret = restore_task(bo->task.tid, bo->task.comm, 0, &bo->saved,
			   &bo->applied, NULL);
	bo->raised = false;
	bo->period_start_ns += b->p.period_ns;
	if (bo->period_start_ns < now)
		bo->period_start_ns = now;
	bo->next_ns = bo->period_start_ns;
	return ret;
}

static int fifo_raise(struct boost *bo, uint64_t now, uint64_t runtime)
{
	struct sched_attr cur;
	int ret;

	/* Someone else changed it while lowered: stop boosting it. */
	ret = sched_getattr_tid(bo->task.tid, &cur);
	if (ret)
		return ret;
	if (!sched_attr_same(&cur, &bo->saved))
		return -EBUSY;
	bo->exec_at_raise_ns = task_exec_ns(bo->task.tid);
	ret = sched_setattr_tid(bo->task.tid, &bo->applied);
	bo->raised = true;
	bo->next_ns = now + runtime;
	return ret;
}

static int fifo_step(struct booster *b, struct boost *bo, uint64_t now)
{
	if (bo->raised)
		return fifo_lower_or_extend(b, bo, now);
	return fifo_raise(bo, now, b->p.runtime_ns);
}

int boost_run(struct booster *b, uint64_t now)
{
	size_t i = 0, n = b->n;

	while (i < b->n) {
		struct boost *bo = &b->v[i];

		if (bo->fifo && !bo->raised && now >= bo->end_ns) {
			finish(b, i, "boost over");
			continue;
		}
		if (bo->fifo && now >= bo->next_ns) {
			if (fifo_step(b, bo, now)) {
				/* gone or changed by someone else */
				if (b->journal)
					journal_remove(b->journal,
						       bo->task.tid);
				b->v[i] = b->v[--b->n];
				continue;
			}
		} else if (!bo->fifo && now >= bo->end_ns) {
			finish(b, i, "boost over");
			continue;
		}
		i++;
	}
	return n - b->n;
}

uint64_t boost_next_event(const struct booster *b)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct boost *bo = &b->v[i];
		uint64_t t = bo->fifo ? bo->next_ns : bo->end_ns;

		if (bo->fifo && !bo->raised && bo->end_ns < t)
			t = bo->end_ns;
		if (t < next)
			next = t;
	}
	return next;
}

void boost_stop_all(struct booster *b)
{
	while (b->n)
		finish(b, b->n - 1, "starvd stopping");
}

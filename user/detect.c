// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "sched_attr.h"
#include "util.h"

void detect_init(struct detect *d, uint64_t threshold_ns,
		 detect_boosting_fn boosting, const struct booster *booster)
{
	memset(d, 0, sizeof(*d));
	d->threshold_ns = threshold_ns;
	d->boosting = boosting;
	d->booster = booster;
}

bool detect_handled(const struct detect *d, uint32_t tid)
{
	return d->boosting && d->boosting(d->booster, tid);
}

void detect_free(struct detect *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

void detect_result_free(struct detect_result *r)
{
	free(r->starving);
	free(r->might);
	memset(r, 0, sizeof(*r));
}

static int cmp_tid(const void *a, const void *b)
{
	const struct episode *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* @tid's wait among the first @n waits of @d (sorted by tid). */
static struct episode *find_episode(struct detect *d, size_t n, uint32_t tid)
{
	struct episode key = { .tid = tid };

	return bsearch(&key, d->v, n, sizeof(*d->v), cmp_tid);
}

void detect_forget(struct detect *d, uint32_t tid)
{
	struct episode *e = find_episode(d, d->n, tid);

	if (e) {
		e->reported = false;
		e->repeat_ns = 0;
	}
}

void detect_repeat(struct detect *d, uint32_t tid, uint64_t wait_ns)
{
	struct episode *e = find_episode(d, d->n, tid);

	if (e && e->reported)
		e->repeat_ns = wait_ns;
}

/*
 * Keep the waits this scan saw, sorted by tid for the next one: the first
 * @old were sorted, those after them are new.
 */
static void prune_episodes(struct detect *d, size_t old)
{
	bool added = d->n > old;
	size_t i, o = 0;

	for (i = 0; i < d->n; i++)
		if (d->v[i].gen == d->gen)
			d->v[o++] = d->v[i];
	d->n = o;
	if (added)
		qsort(d->v, d->n, sizeof(*d->v), cmp_tid);
}

/*
 * @t's wait (of a read at @read), recorded in @d: from an earlier read if
 * @t has not run since, else new. Raises @t's wait to what the reads
 * prove when the source gave only a lower bound.
 */
static struct episode *track_wait(struct detect *d, size_t old,
				  struct starvd_task *t, uint64_t read)
{
	uint64_t start = t->wait_ns < read ? read - t->wait_ns : 0;
	struct episode *e = find_episode(d, old, t->tid);

	if (e && e->nr_switches == t->nr_switches) {
		if (t->flags & STARVD_TASK_WAIT_LOWER_BOUND &&
		    e->start_ns < start)
			start = e->start_ns;
	} else {
		if (!e) {
			grow_array((void **)&d->v, &d->cap, d->n + 1,
				   sizeof(*d->v));
			e = &d->v[d->n++];
		}
		*e = (struct episode){ .tid = t->tid,
				       .nr_switches = t->nr_switches };
	}
	e->gen = d->gen;
	e->start_ns = start;
	t->wait_ns = read - start;
	return e;
}

/*
 * Is @t's wait (@e, task @i of the list) one that might starve: warn_ns
 * long, short of the threshold, not said yet? Else, when can it be?
 */
static void might_starve(struct detect *d, struct episode *e,
			 const struct starvd_task *t, size_t i,
			 struct detect_result *r, uint64_t *next)
{
	if (!d->warn_ns || e->warned || e->reported)
		return;
	if (t->wait_ns < d->warn_ns) {
		if (e->start_ns + d->warn_ns < *next)
			*next = e->start_ns + d->warn_ns;
		return;
	}
	e->warned = true;
	if (t->wait_ns >= d->threshold_ns)
		return;		/* reported as starving instead */
	grow_array((void **)&r->might, &r->cap_might, r->n_might + 1,
		   sizeof(*r->might));
	r->might[r->n_might++] = i;
}

void detect_scan(struct detect *d, struct task_list *l,
		 struct detect_result *r)
{
	uint64_t read = l->read_time_ns, next = read + d->threshold_ns;
	size_t i, old = d->n;

	d->gen++;
	r->n = 0;
	r->n_might = 0;
	for (i = 0; i < l->n; i++) {
		struct starvd_task *t = &l->v[i];
		struct episode *e;
		uint64_t due;

		if (t->state != STARVD_TASK_WAITING)
			continue;
		e = track_wait(d, old, t, read);
		/*
		 * Nor are starvd's own threads starving tasks: one boosted
		 * with SCHED_DEADLINE that overruns its runtime is kept off
		 * its CPU for as many periods (docs/kernel-behaviours.md,
		 * "The overrun debt survives leaving SCHED_DEADLINE"), and
		 * starvd waiting for it could then neither end a boost nor
		 * exit.
		 */
		if (detect_handled(d, t->tid) ||
		    (d->self_tgid && t->tgid == d->self_tgid))
			continue;
		might_starve(d, e, t, i, r, &next);
		due = e->reported ? e->repeat_ns : d->threshold_ns;
		if (!due)
			continue;	/* reported, not to be repeated */
		if (t->wait_ns < due) {
			if (e->start_ns + due < next)
				next = e->start_ns + due;
			continue;
		}
		e->reported = true;
		e->repeat_ns = 0;	/* the caller may arm it again */
		grow_array((void **)&r->starving, &r->cap, r->n + 1,
			   sizeof(*r->starving));
		r->starving[r->n++] = i;
	}
	prune_episodes(d, old);
	r->next_wake_ns = next;
}

/* @w may hold @t's CPU: another task there, not boosted, not starvd. */
static bool may_hold(const struct detect *d, const struct starvd_task *t,
		     const struct starvd_task *w)
{
	if (w->cpu != t->cpu || w->tid == t->tid)
		return false;
	if (w->state == STARVD_TASK_WAITING && w->wait_ns >= t->wait_ns)
		return false;
	return !detect_handled(d, w->tid) &&
	       (!d->self_tgid || w->tgid != d->self_tgid);
}

/* Is @w a stronger holder than @h: higher priority, on the CPU on a tie. */
static bool outranks(const struct starvd_task *w, const struct starvd_task *h)
{
	if (!h || w->prio != h->prio)
		return !h || w->prio < h->prio;
	return w->state == STARVD_TASK_RUNNING &&
	       h->state != STARVD_TASK_RUNNING;
}

/*
 * The holder is the highest-priority task on @t's CPU that runs or waits
 * there, with these exceptions:
 *
 * - Every task the read shows on the CPU counts, not only the last: a
 *   task being switched out is on its CPU until the switch completes, so
 *   a read can show two. Looking at the last alone would miss a busy loop
 *   being switched out for starvd's emulation thread, and name a victim.
 * - A fair task the kernel's fair server runs for a moment behind a
 *   real-time busy loop outranks nothing: the loop it preempted, waiting,
 *   does. (Named, it would have the SCHED_FIFO emulation run the task at
 *   priority 1, below the loop.)
 * - Tasks starvd is boosting hold nothing: their priority is starvd's,
 *   for a moment. Nor does starvd itself: its own read puts it on its
 *   CPU, and raised above starvd, a task would keep starvd from lowering
 *   it.
 * - A task that has waited since before @t began to wait held nothing
 *   meanwhile: it starves too (two victims behind one busy loop). Named,
 *   it would have the emulation raise @t one step above it, below the
 *   loop.
 * - A real-time task is never held by a fair one, which runs by the fair
 *   server's time in front of whatever real-time task holds the CPU. If
 *   the read did not show that one, the holder is unknown (NULL) and the
 *   emulation raises @t above every other: raised one step above the fair
 *   task, below the loop, neither @t nor the emulation thread meant to
 *   lower it would run.
 */
const struct starvd_task *detect_holder(const struct detect *d,
					const struct task_list *l,
					int nr_cpus,
					const struct starvd_task *t)
{
	const struct starvd_task *h = NULL;
	size_t i;

	if (t->cpu < 0 || t->cpu >= nr_cpus)
		return NULL;
	for (i = 0; i < l->n; i++)
		if (may_hold(d, t, &l->v[i]) && outranks(&l->v[i], h))
			h = &l->v[i];
	if (h && t->prio < MAX_RT_PRIO && h->prio >= MAX_RT_PRIO)
		return NULL;
	return h;
}

bool detect_held_by_self(const struct detect *d, const struct task_list *l,
			 const struct starvd_task *t,
			 const struct starvd_task *holder)
{
	size_t i;

	if (!d->self_tgid || holder)
		return false;
	for (i = 0; i < l->n; i++)
		if (l->v[i].cpu == t->cpu && l->v[i].tgid == d->self_tgid &&
		    l->v[i].state == STARVD_TASK_RUNNING)
			return true;
	return false;
}

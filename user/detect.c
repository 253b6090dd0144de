// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "detect.h"
#include "util.h"

void detect_init(struct detect *d, uint64_t threshold_ns)
{
	memset(d, 0, sizeof(*d));
	d->threshold_ns = threshold_ns;
}

void detect_free(struct detect *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

void detect_result_free(struct detect_result *r)
{
	free(r->starving);
	memset(r, 0, sizeof(*r));
}

static struct episode *find_episode(struct detect *d, uint32_t tid)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].tid == tid)
			return &d->v[i];
	return NULL;
}

void detect_forget(struct detect *d, uint32_t tid)
{
	struct episode *e = find_episode(d, tid);

	if (e)
		*e = d->v[--d->n];
}

void detect_repeat(struct detect *d, uint32_t tid, uint64_t wait_ns)
{
	struct episode *e = find_episode(d, tid);

	if (e)
		e->repeat_ns = wait_ns;
}

static void prune_episodes(struct detect *d)
{
	size_t i, o = 0;

	for (i = 0; i < d->n; i++)
		if (d->v[i].gen == d->gen)
			d->v[o++] = d->v[i];
	d->n = o;
}

void detect_scan(struct detect *d, const struct task_list *l,
		 detect_skip_fn skip, void *ctx, struct detect_result *r)
{
	uint64_t next = l->read_time_ns + d->threshold_ns;
	size_t i;

	d->gen++;
	r->n = 0;
	for (i = 0; i < l->n; i++) {
		const struct starvd_task *t = &l->v[i];
		struct episode *e;

		if (t->state != STARVD_TASK_WAITING)
			continue;
		if (skip && skip(ctx, t->tid))
			continue;
		e = find_episode(d, t->tid);
		if (e && e->nr_switches == t->nr_switches) {
			e->gen = d->gen;	/* still the same wait */
			if (!e->repeat_ns)
				continue;
			if (t->wait_ns < e->repeat_ns) {
				uint64_t cross = l->read_time_ns +
						 (e->repeat_ns - t->wait_ns);

				if (cross < next)
					next = cross;
				continue;
			}
			e->repeat_ns = 0;	/* the caller may arm it again */
			goto starving;
		}
		if (t->wait_ns < d->threshold_ns) {
			uint64_t cross = l->read_time_ns +
					 (d->threshold_ns - t->wait_ns);

			if (cross < next)
				next = cross;
			continue;
		}
		if (!e) {
			grow_array((void **)&d->v, &d->cap, d->n + 1,
				   sizeof(*d->v));
			e = &d->v[d->n++];
		}
		e->tid = t->tid;
		e->nr_switches = t->nr_switches;
		e->gen = d->gen;
		e->repeat_ns = 0;
starving:
		grow_array((void **)&r->starving, &r->cap, r->n + 1,
			   sizeof(*r->starving));
		r->starving[r->n++] = i;
	}
	prune_episodes(d);
	r->next_wake_ns = next;
}

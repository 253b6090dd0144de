// SPDX-License-Identifier: GPL-2.0-or-later
/* What starved lately, for the status file (starved.h). */
#include <stdio.h>
#include <string.h>

#include "starved.h"

static struct starved_task *find(const struct starved *s, uint32_t tid)
{
	unsigned int i;

	for (i = 0; i < STARVED_KEPT; i++)
		if (s->v[i].tid == tid)
			return (struct starved_task *)&s->v[i];
	return NULL;
}

bool starved_is_new(const struct starved *s, const struct starvd_task *t,
		    uint64_t read_time_ns)
{
	const struct starved_task *k = find(s, t->tid);

	return !k || read_time_ns - t->wait_ns >= k->seen_ns;
}

void starved_report(struct starved *s, struct cpu_stats *st,
		    const struct starvd_task *t, uint64_t read_time_ns,
		    const struct task_what *w)
{
	struct starved_task *k = find(s, t->tid);

	if (starved_is_new(s, t, read_time_ns))
		cpu_stats_episode(st, w->kind);
	if (!k) {
		/* The one kept longest makes room. */
		k = &s->v[s->next];
		s->next = (s->next + 1) % STARVED_KEPT;
	}
	k->tid = t->tid;
	k->seen_ns = read_time_ns;
	k->what = *w;
	st->last.tid = t->tid;
	memcpy(st->last.comm, t->comm, sizeof(st->last.comm) - 1);
	st->last.comm[sizeof(st->last.comm) - 1] = '\0';
	st->last.what = *w;
}

const struct task_what *starved_find(const struct starved *s, uint32_t tid)
{
	struct starved_task *k = tid ? find(s, tid) : NULL;

	return k ? &k->what : NULL;
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpuset.h"
#include "escape.h"
#include "event.h"
#include "log.h"
#include "report.h"
#include "sched_attr.h"
#include "util.h"

void format_holder(const struct starvd_task *h, char *buf, size_t len)
{
	int uprio = prio_to_user(h->policy, h->prio);

	if (h->policy == SCHED_FIFO || h->policy == SCHED_RR)
		snprintf(buf, len, "%s-%u, %s %d", esc_name(h->comm), h->tid,
			 policy_name(h->policy), uprio);
	else
		snprintf(buf, len, "%s-%u, %s nice %d", esc_name(h->comm),
			 h->tid, policy_name(h->policy), uprio);
}

/* The kernel stack of @tid on one line ("a <- b <- c"), if readable. */
static void read_kstack(unsigned int tid, char *buf, size_t len)
{
	char path[64], line[256];
	size_t off = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/stack", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && off + 4 < len) {
		char *sym = strchr(line, ' ');

		sym = sym ? sym + 1 : line;
		sym[strcspn(sym, "\n")] = '\0';
		off += snprintf(buf + off, len - off, "%s%s",
				off ? " <- " : "", sym);
	}
	fclose(f);
}

void report_starving(const struct starvd_task *t, uint64_t read_time_ns,
		     const struct starvd_task *holder, bool log_only,
		     bool kstack)
{
	struct event ev = {
		.kind = EVENT_STARVING, .task = *t,
		.starving = { .read_time_ns = read_time_ns, .holder = holder,
			      .log_only = log_only },
	};
	char stack[512];

	if (kstack) {
		read_kstack(t->tid, stack, sizeof(stack));
		ev.starving.stack = stack;
	}
	event_log(&ev);
}

void report_ignored(const struct starvd_task *t, const char *pcomm)
{
	struct event ev = {
		.kind = EVENT_IGNORED, .task = *t,
		.ignored.process = pcomm,
	};

	event_log(&ev);
}

void report_check(const struct task_list *l, int nr_cpus,
		  const struct cpuset *cpus)
{
	unsigned int *waiting = calloc(nr_cpus, sizeof(*waiting));
	bool any = false;
	size_t i;
	int c;

	if (!waiting)
		return;
	for (i = 0; i < l->n; i++) {
		const struct starvd_task *t = &l->v[i];

		if (t->state == STARVD_TASK_WAITING && t->cpu >= 0 &&
		    t->cpu < nr_cpus && (!cpus || cpuset_test(cpus, t->cpu)))
			waiting[t->cpu]++;
	}
	for (c = 0; c < nr_cpus; c++) {
		if (cpus && !cpuset_test(cpus, c))
			continue;
		if (!waiting[c]) {
			log_msg("cpu %d had idle time! skipping next phase", c);
			continue;
		}
		log_msg("CPU %d has %u waiting tasks", c, waiting[c]);
		any = true;
	}
	if (!any)
		log_msg("all CPUs had idle time, skipping sched_debug parse");
	free(waiting);
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "backend.h"
#include "cpuset.h"
#include "episodes.h"
#include "escape.h"
#include "event.h"
#include "log.h"
#include "options.h"
#include "pending.h"
#include "report.h"
#include "status_file.h"
#include "task_cgroup.h"
#include "task_role.h"
#include "util.h"

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

/* Where starving reports are kept for starvctl advise; NULL: nowhere. */
static struct episodes *kept;

void report_keep_episodes(struct episodes *e)
{
	kept = e;
}

/* The report's event in the episodes file; after a failure, no more. */
static void keep(const struct event *ev)
{
	char json[LOG_JSON_LEN];
	int ret;

	if (!kept || kept->fd < 0 || event_json(ev, now_ns(), json,
						 sizeof(json)))
		return;
	ret = episodes_add(kept, time(NULL), json);
	if (ret) {
		log_err("cannot add to %s: %s; starvctl advise will not see later episodes",
			kept->path, strerror(-ret));
		episodes_close(kept);
	}
}

/* What the views show of the task the report read @ev's parts of. */
static void what_of(const struct event *ev, struct task_what *w)
{
	const struct task_role *role = ev->starving.role;
	const struct task_cgroup *cg = ev->starving.cgroup;

	snprintf(w->kind, sizeof(w->kind), "%s",
		 role ? task_role_name(role->kind) : "unknown");
	w->irq = role && role->kind == ROLE_IRQ ? role->irq : -1;
	task_what_cut(w, cg ? cg->path : "");
	pending_brief(ev->starving.pending, w->waits, sizeof(w->waits));
}

/*
 * What @role's task waits to run, from @b: for a kworker its work, for
 * ksoftirqd its CPU's softirqs; NULL for any other kind, if @t is gone,
 * or without @b.
 */
static const struct task_pending *read_pending(struct backend *b,
					       const struct starvd_task *t,
					       const struct task_role *role,
					       struct task_pending *p)
{
	bool softirqs;

	switch (role ? role->kind : ROLE_USER) {
	case ROLE_KWORKER:
	case ROLE_KWORKER_UNBOUND:
		softirqs = false;
		break;
	case ROLE_KSOFTIRQD:
		softirqs = true;
		break;
	default:
		return NULL;
	}
	if (!b || backend_read_pending(b, t->tid, softirqs, p) == -ESRCH)
		return NULL;
	return p;
}

void report_starving(struct backend *b, const struct starvd_task *t,
		     uint64_t read_time_ns, const struct starvd_task *holder,
		     bool log_only, bool kstack, struct task_what *what)
{
	struct event ev = {
		.kind = EVENT_STARVING, .task = *t,
		.starving = { .read_time_ns = read_time_ns, .holder = holder,
			      .log_only = log_only },
	};
	struct task_cgroup cg, hcg;
	struct task_pending pending;
	struct task_role role;
	char stack[512];

	/* What the reader needs, read now: nothing watches cgroups between. */
	if (!task_cgroup_read(t->tid, &cg))
		ev.starving.cgroup = &cg;
	if (holder && holder->tid && !task_cgroup_read(holder->tid, &hcg))
		ev.starving.holder_cgroup = &hcg;
	if (!task_role_read("/proc", t, &role))
		ev.starving.role = &role;
	ev.starving.pending = read_pending(b, t, ev.starving.role, &pending);
	if (kstack) {
		read_kstack(t->tid, stack, sizeof(stack));
		ev.starving.stack = stack;
	}
	event_log(&ev);
	keep(&ev);
	what_of(&ev, what);
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
		log_msg("all CPUs had idle time, skipping parse");
	else
		log_msg("some cpus ran, so run-queues should be parsed");
	free(waiting);
}

void report_might_starve(const struct starvd_task *t)
{
	log_msg("%s-%u might starve on CPU %d (waiting for %llu seconds)",
		esc_name(t->comm), t->tid, t->cpu,
		(unsigned long long)(t->wait_ns / NSEC_PER_SEC));
}

/* @what, then "adding cpu N" for each CPU of @set. */
static void log_cpus(const char *what, const struct cpuset *set, int nr_cpus)
{
	int c;

	for (c = 0; c < nr_cpus; c++)
		if (cpuset_test(set, c))
			log_msg("%s: adding cpu %d", what, c);
}

/* stalld's check for the kernel's fair server, in its words. */
static void report_dl_server(void)
{
	struct stat st;

	if (stat(DL_SERVER_DIR, &st))
		log_msg("DL-server not detected: %s", strerror(errno));
	else if (S_ISDIR(st.st_mode))
		log_msg("DL-server detected.");
}

/* starvd's own line: version, backend, CPUs, threshold, boost. */
static void report_config(const struct config *cfg, const struct backend *b)
{
	char cpus[256] = "all", rt[32], per[32];

	if (!cfg->monitor_all)
		cpuset_format(&cfg->cpus, cpus, sizeof(cpus));
	format_ns(cfg->boost_runtime_ns, rt, sizeof(rt));
	format_ns(cfg->boost_period_ns, per, sizeof(per));
	log_msg("starvd %s: backend %s, monitoring CPUs %s, threshold %.3f s, %s, boost %s/%s for %.3f s%s",
		STARVD_VERSION, b->display_name, cpus,
		(double)cfg->threshold_ns / NSEC_PER_SEC,
		cfg->granularity_ns ? "fixed granularity" :
		"waking on threshold crossings", rt, per,
		(double)cfg->boost_duration_ns / NSEC_PER_SEC,
		cfg->log_only ? " (log only)" :
		cfg->force_fifo ? " (SCHED_FIFO emulation)" : "");
}

void report_start(const struct config *cfg, const struct backend *b)
{
	report_config(cfg, b);
	if (cfg->backend != BACKEND_AUTO)
		log_msg("using %s backend",
			strncmp(b->display_name, "netlink", 7) ?
			"queue_track" : "sched_debug");
	if (cfg->no_idle_detect)
		log_msg("idle detection disabled");
	if (cfg->verbose && !cfg->monitor_all)
		log_cpus("cpulist", &cfg->cpus, b->nr_cpus);
	if (cfg->have_affinity)
		log_cpus("self-affinity", &cfg->affinity, b->nr_cpus);
	report_dl_server();
	if (!cfg->log_only)
		log_msg("%s", cfg->force_fifo ?
			"forcing SCHED_FIFO for boosting" :
			"using SCHED_DEADLINE for boosting");
	log_msg("single threaded mode");
}

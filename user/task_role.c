// SPDX-License-Identifier: GPL-2.0-or-later
/* What a starving task is there to do (task_role.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "escape.h"
#include "proc.h"
#include "task_role.h"
#include "util.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */

static const struct {
	const char *prefix;
	enum task_role_kind kind;
} prefixes[] = {
	{ "kworker/u", ROLE_KWORKER_UNBOUND },
	{ "kworker/", ROLE_KWORKER },
	{ "ksoftirqd/", ROLE_KSOFTIRQD },
	{ "irq/", ROLE_IRQ },
	{ "rcuc/", ROLE_RCUC },
	{ "rcuog/", ROLE_RCU_NOCB },
	{ "rcuop/", ROLE_RCU_NOCB },
	{ "rcuos/", ROLE_RCU_NOCB },
	{ "ktimers/", ROLE_KTIMERS },
	{ "irq_work/", ROLE_IRQ_WORK },
	{ "cpuhp/", ROLE_CPUHP },
	{ "migration/", ROLE_MIGRATION },
};

static const char *const names[] = {
	[ROLE_USER] = "user",
	[ROLE_KTHREAD] = "kernel_thread",
	[ROLE_KWORKER] = "kworker",
	[ROLE_KWORKER_UNBOUND] = "kworker_unbound",
	[ROLE_KSOFTIRQD] = "ksoftirqd",
	[ROLE_IRQ] = "irq_thread",
	[ROLE_RCUC] = "rcuc",
	[ROLE_RCU_NOCB] = "rcu_nocb",
	[ROLE_KTIMERS] = "ktimers",
	[ROLE_IRQ_WORK] = "irq_work",
	[ROLE_CPUHP] = "cpuhp",
	[ROLE_MIGRATION] = "migration",
};

const char *task_role_name(enum task_role_kind k)
{
	return (unsigned int)k < ARRAY_SIZE(names) ? names[k] : "unknown";
}

enum task_role_kind task_role_kind(const char *comm, bool kthread)
{
	size_t i;

	if (!kthread)
		return ROLE_USER;
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(comm, prefixes[i].prefix,
			     strlen(prefixes[i].prefix)))
			return prefixes[i].kind;
	return ROLE_KTHREAD;
}

int cmdline_lists_cpu(const char *cmdline, const char *param, int cpu)
{
	size_t n = strlen(param), m;
	const char *p = cmdline, *v;
	struct cpuset set;
	char list[256];
	int found = -1;

	while ((p = strstr(p, param))) {
		bool word = p == cmdline || p[-1] == ' ';

		v = p + n;
		p = v;
		if (!word || (*v != '=' && *v != ' ' && *v != '\n' && *v))
			continue;
		if (*v != '=') {	/* "rcu_nocbs" alone: every CPU */
			found = 1;
			continue;
		}
		v++;
		/* isolcpus=[flag,]...list: flags are words, not CPUs. */
		while (isalpha((unsigned char)*v)) {
			v += strcspn(v, ", \n");
			if (*v == ',')
				v++;
		}
		m = strcspn(v, " \n");
		if (m >= sizeof(list))
			m = sizeof(list) - 1;
		memcpy(list, v, m);
		list[m] = '\0';
		/* Later parameters override earlier ones, as the kernel reads. */
		found = !cpuset_parse(list, STARVD_MAX_CPUS, &set, NULL) &&
			cpuset_test(&set, cpu);
	}
	return found;
}

/* "CPU N is (not) in param=", or that there is no such parameter. */
static const char *listed(const char *cmdline, const char *param, int cpu,
			  char *buf, size_t len)
{
	int l = cmdline_lists_cpu(cmdline, param, cpu);

	if (l < 0)
		snprintf(buf, len, "no %s= on the command line", param);
	else
		snprintf(buf, len, "CPU %d is %sin %s=", cpu, l ? "" : "not ",
			 param);
	return buf;
}

void task_role_explain(struct task_role *r, int cpu, const char *cmdline)
{
	char a[64], b[64];

	switch (r->kind) {
	case ROLE_USER:
		r->about[0] = '\0';
		break;
	case ROLE_KWORKER:
		snprintf(r->about, sizeof(r->about),
			 "per-CPU workqueue worker%s%s%s: work queued for CPU %d runs there; %s, %s",
			 r->workqueue[0] ? " (workqueue of its last work: " : "",
			 r->workqueue, r->workqueue[0] ? ")" : "",
			 cpu, listed(cmdline, "isolcpus", cpu, a, sizeof(a)),
			 listed(cmdline, "nohz_full", cpu, b, sizeof(b)));
		break;
	case ROLE_KWORKER_UNBOUND:
		snprintf(r->about, sizeof(r->about),
			 "unbound workqueue worker%s%s%s: /sys/devices/virtual/workqueue/cpumask keeps them off CPU %d",
			 r->workqueue[0] ? " (workqueue of its last work: " : "",
			 r->workqueue, r->workqueue[0] ? ")" : "", cpu);
		break;
	case ROLE_KSOFTIRQD:
		snprintf(r->about, sizeof(r->about),
			 "softirqs deferred on CPU %d (network receive, timers, tasklets): per-CPU, they stay on it",
			 cpu);
		break;
	case ROLE_IRQ:
		snprintf(r->about, sizeof(r->about),
			 "threaded handler of IRQ %d (%s), affinity %s, effective %s: /proc/irq/%d/smp_affinity_list moves it; %s",
			 r->irq, r->actions[0] ? r->actions : "no action",
			 r->affinity[0] ? r->affinity : "unknown",
			 r->effective[0] ? r->effective : "unknown", r->irq,
			 listed(cmdline, "irqaffinity", cpu, a, sizeof(a)));
		break;
	case ROLE_RCUC:
		snprintf(r->about, sizeof(r->about),
			 "RCU callbacks of CPU %d: rcu_nocbs= offloads them to threads that can run elsewhere; %s, %s",
			 cpu, listed(cmdline, "rcu_nocbs", cpu, a, sizeof(a)),
			 listed(cmdline, "nohz_full", cpu, b, sizeof(b)));
		break;
	case ROLE_RCU_NOCB:
		snprintf(r->about, sizeof(r->about),
			 "offloaded RCU callbacks: not bound to a CPU, keep it off CPU %d (taskset, housekeeping CPUs)",
			 cpu);
		break;
	case ROLE_KTIMERS:
		snprintf(r->about, sizeof(r->about),
			 "timers and soft hrtimers of CPU %d (PREEMPT_RT): per-CPU, they stay on it; %s",
			 cpu, listed(cmdline, "nohz_full", cpu, a, sizeof(a)));
		break;
	case ROLE_IRQ_WORK:
		snprintf(r->about, sizeof(r->about),
			 "deferred irq_work of CPU %d (PREEMPT_RT): per-CPU, it stays on it",
			 cpu);
		break;
	case ROLE_CPUHP:
		snprintf(r->about, sizeof(r->about),
			 "CPU hotplug of CPU %d: per-CPU", cpu);
		break;
	case ROLE_MIGRATION:
		snprintf(r->about, sizeof(r->about),
			 "stopper of CPU %d: per-CPU", cpu);
		break;
	case ROLE_KTHREAD:
		snprintf(r->about, sizeof(r->about), "kernel thread");
		break;
	}
}

/* The names of IRQ @irq's actions: the directories of /proc/irq/N. */
static void irq_actions(const char *proc, int irq, char *buf, size_t len)
{
	char path[128], name[ESC_NAME_LEN * 4];
	struct dirent *e;
	size_t off = 0;
	DIR *d;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/irq/%d", proc, irq);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		str_escape(e->d_name, name, sizeof(name));
		if (off + strlen(name) + 2 > len)
			break;
		off += snprintf(buf + off, len - off, "%s%s", off ? "," : "",
				name);
	}
	if (d)
		closedir(d);
}

static void irq_details(const char *proc, struct task_role *r,
			const char *comm)
{
	char path[128];

	r->irq = atoi(comm + strlen("irq/"));
	irq_actions(proc, r->irq, r->actions, sizeof(r->actions));
	snprintf(path, sizeof(path), "%s/irq/%d/smp_affinity_list", proc,
		 r->irq);
	if (read_line(path, r->affinity, sizeof(r->affinity)) < 0)
		r->affinity[0] = '\0';
	snprintf(path, sizeof(path), "%s/irq/%d/effective_affinity_list", proc,
		 r->irq);
	if (read_line(path, r->effective, sizeof(r->effective)) < 0)
		r->effective[0] = '\0';
}

/*
 * A kworker's /proc/TID/comm (not its task comm) ends in "-" and the name
 * of the workqueue of the work item it runs or last ran (the kernel's
 * wq_worker_comm()): "kworker/1:2-mm_percpu_wq", "kworker/1:2+events"
 * while it runs one.
 */
static void worker_queue(const char *proc, uint32_t tid, struct task_role *r)
{
	char path[128], comm[128];
	const char *q;

	snprintf(path, sizeof(path), "%s/%u/comm", proc, tid);
	if (read_line(path, comm, sizeof(comm)) < 0)
		return;
	q = comm + strcspn(comm, "-+");
	if (*q && q[1])
		str_escape(q + 1, r->workqueue, sizeof(r->workqueue));
}

int task_role_read(const char *proc, const struct starvd_task *t,
		   struct task_role *r)
{
	char path[128], stat[1024], cmdline[4096];
	const char *flags;
	bool kthread;
	int n;

	memset(r, 0, sizeof(*r));
	r->irq = -1;
	snprintf(path, sizeof(path), "%s/%u/stat", proc, t->tid);
	n = read_file(path, stat, sizeof(stat));
	if (n < 0)
		return n;
	flags = stat_field(stat, 9);
	kthread = flags && strtoull(flags, NULL, 10) & PF_KTHREAD;
	r->kind = task_role_kind(t->comm, kthread);
	if (r->kind == ROLE_USER)
		return 0;
	if (r->kind == ROLE_IRQ)
		irq_details(proc, r, t->comm);
	if (r->kind == ROLE_KWORKER || r->kind == ROLE_KWORKER_UNBOUND)
		worker_queue(proc, t->tid, r);
	snprintf(path, sizeof(path), "%s/cmdline", proc);
	if (read_line(path, cmdline, sizeof(cmdline)) < 0)
		cmdline[0] = '\0';
	task_role_explain(r, t->cpu, cmdline);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-or-later
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cpuset.h"
#include "metrics.h"
#include "util.h"

static void header(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, quote and newline escaped. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void per_cpu_counter(FILE *f, const struct daemon_status *d,
			    const struct cpuset *online, const char *name,
			    const char *help, size_t field)
{
	int i;

	header(f, name, "counter", help);
	for (i = 0; i < d->nr_cpus; i++) {
		const uint64_t *v = (const void *)((const char *)&d->cpu[i] +
						   field);

		/* Every online CPU, so a rate() sees the series from 0. */
		if (*v || cpuset_test(online, i))
			fprintf(f, "%s{cpu=\"%d\"} %" PRIu64 "\n", name, i, *v);
	}
}

/* Only the CPUs and kinds seen: kinds are few, a machine's CPUs many. */
static void episode_counter(FILE *f, const struct daemon_status *d)
{
	const struct kind_count *k;
	int i, j;

	header(f, "starvd_starving_episodes_total", "counter",
	       "Starvation episodes (one wait of one task), by CPU and kind of task.");
	for (i = 0; i < d->nr_cpus; i++)
		for (j = 0; j < STATUS_KINDS; j++) {
			k = &d->cpu[i].episodes[j];
			if (!k->kind[0])
				continue;
			fprintf(f, "starvd_starving_episodes_total{cpu=\"%d\",kind=\"",
				i);
			label(f, k->kind);
			fprintf(f, "\"} %" PRIu64 "\n", k->n);
		}
}

static void daemon_metrics(FILE *f, const struct daemon_status *d,
			   const struct cpuset *online)
{
	header(f, "starvd_info", "gauge",
	       "The running starvd: version, backend and boost mode.");
	fprintf(f, "starvd_info{version=\"");
	label(f, d->version);
	fprintf(f, "\",backend=\"");
	label(f, d->backend);
	fprintf(f, "\",boost_mode=\"");
	label(f, d->boost_mode);
	fprintf(f, "\",cpus=\"");
	label(f, d->cpus);
	fprintf(f, "\"} 1\n");
	header(f, "starvd_start_time_seconds", "gauge",
	       "When the running starvd started, in seconds since the epoch.");
	fprintf(f, "starvd_start_time_seconds %" PRIu64 "\n", d->start_time);
	header(f, "starvd_threshold_seconds", "gauge",
	       "How long a task may wait before it counts as starving.");
	fprintf(f, "starvd_threshold_seconds %.9g\n",
		(double)d->threshold_ns / NSEC_PER_SEC);
	per_cpu_counter(f, d, online, "starvd_starvation_events_total",
			"Tasks found starving, by CPU.",
			offsetof(struct cpu_stats, starving));
	episode_counter(f, d);
	per_cpu_counter(f, d, online, "starvd_boosts_total",
			"Boosts given to starving tasks, by CPU.",
			offsetof(struct cpu_stats, boosts));
	per_cpu_counter(f, d, online, "starvd_boost_failures_total",
			"Boosts that could not be applied, by CPU.",
			offsetof(struct cpu_stats, failures));
	header(f, "starvd_boost_escalations_total", "counter",
	       "Boosts given more runtime than the last one of the same task, which did not let it progress.");
	fprintf(f, "starvd_boost_escalations_total %" PRIu64 "\n",
		d->nr_escalations);
	header(f, "starvd_boost_runtime_max_seconds", "gauge",
	       "Largest runtime per period granted to a boost so far.");
	fprintf(f, "starvd_boost_runtime_max_seconds %.9g\n",
		(double)d->max_runtime_ns / NSEC_PER_SEC);
	header(f, "starvd_escalated_tasks", "gauge",
	       "Tasks whose next boost gets more than the configured runtime.");
	fprintf(f, "starvd_escalated_tasks %zu\n", d->nr_escalated);
	header(f, "starvd_boosts_in_progress", "gauge",
	       "Tasks boosted right now.");
	fprintf(f, "starvd_boosts_in_progress %zu\n", d->nr_boosting);
}

static void wait_metrics(FILE *f, const struct starvd_cpu *cpus, int n,
			 const struct cpuset *online)
{
	int i;

	header(f, "starvd_cpu_waiters", "gauge",
	       "Tasks runnable but not running, by CPU.");
	for (i = 0; i < n; i++)
		if (cpuset_test(online, i))
			fprintf(f, "starvd_cpu_waiters{cpu=\"%d\"} %u\n", i,
				cpus[i].nr_waiters);
	header(f, "starvd_cpu_longest_wait_seconds", "gauge",
	       "Longest current wait of a runnable task, by CPU.");
	for (i = 0; i < n; i++)
		if (cpuset_test(online, i))
			fprintf(f, "starvd_cpu_longest_wait_seconds{cpu=\"%d\"} %.9f\n",
				i, (double)cpus[i].max_wait_ns / NSEC_PER_SEC);
}

void metrics_print(FILE *f, const struct metrics_input *in)
{
	struct cpuset online;

	/* Once: a state file may list thousands of CPUs. */
	cpus_online(&online);
	header(f, "starvd_up", "gauge", "Whether starvd is running.");
	fprintf(f, "starvd_up %d\n", in->daemon != NULL);
	header(f, "starvd_backend_up", "gauge",
	       "Whether starvctl could read the wait data (label: backend).");
	fprintf(f, "starvd_backend_up{backend=\"");
	label(f, in->backend ? in->backend : "none");
	fprintf(f, "\"} %d\n", in->cpus != NULL);
	if (in->cpus)
		wait_metrics(f, in->cpus, in->nr_cpus, &online);
	if (in->daemon)
		daemon_metrics(f, in->daemon, &online);
}

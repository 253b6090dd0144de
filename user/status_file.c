// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "status_file.h"
#include "util.h"

#define STATE_MAGIC	"starvd-state 1"
#define STATE_MAX_SIZE	(1 << 20)
/* The daemon never has more (found by fuzzing: per-CPU loops took ages). */
#define STATE_MAX_CPUS	STARVD_MAX_CPUS

static void fill_state(FILE *f, const void *arg)
{
	const struct daemon_status *s = arg;
	size_t i;

	fprintf(f, STATE_MAGIC "\npid %d\nstart_time %" PRIu64 "\n"
		"updated_ns %" PRIu64 "\nversion %s\nbackend %s\ncpus %s\n"
		"boost_mode %s\nthreshold_ns %" PRIu64 "\n"
		"boost_params %" PRIu64 " %" PRIu64 " %" PRIu64 "\n"
		"nr_cpus %d\n",
		(int)s->pid, s->start_time, s->updated_ns, s->version,
		s->backend, s->cpus, s->boost_mode, s->threshold_ns,
		s->runtime_ns, s->period_ns, s->duration_ns, s->nr_cpus);
	fprintf(f, "escalation %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		s->cap_ns, s->nr_escalations, s->max_runtime_ns);
	for (i = 0; i < (size_t)s->nr_cpus; i++) {
		const struct cpu_stats *c = &s->cpu[i];

		if (c->starving || c->boosts || c->failures)
			fprintf(f, "cpu %zu %" PRIu64 " %" PRIu64 " %" PRIu64
				"\n", i, c->starving, c->boosts, c->failures);
	}
	/* comm goes last: it may contain spaces. */
	for (i = 0; i < s->nr_boosting; i++) {
		const struct boost_info *b = &s->boosting[i];

		fprintf(f, "boosting %" PRIu32 " %d %s %" PRIu64 " %" PRIu64
			" %s\n", b->tid, b->cpu, b->policy, b->start_ns,
			b->end_ns, b->comm);
	}
	for (i = 0; i < s->nr_escalated; i++) {
		const struct escalated_info *e = &s->escalated[i];

		fprintf(f, "escalated %" PRIu32 " %d %" PRIu64 " %s\n",
			e->tid, e->cpu, e->runtime_ns, e->comm);
	}
}

int status_file_write(const char *path, const struct daemon_status *s)
{
	return write_file_atomic(path, fill_state, s);
}

/* "key rest-of-line": copy the rest (bounded) if the key matches. */
static bool text_field(const char *line, const char *key, char *buf,
		       size_t len)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k) || line[k] != ' ')
		return false;
	snprintf(buf, len, "%s", line + k + 1);
	return true;
}

static int parse_line(char *line, struct daemon_status *s, size_t *cap,
		      size_t *ecap)
{
	struct escalated_info e = { 0 };
	struct boost_info b = { 0 };
	unsigned long long a, c, d;
	int cpu, n = 0;

	if (text_field(line, "version", s->version, sizeof(s->version)) ||
	    text_field(line, "backend", s->backend, sizeof(s->backend)) ||
	    text_field(line, "cpus", s->cpus, sizeof(s->cpus)) ||
	    text_field(line, "boost_mode", s->boost_mode,
		       sizeof(s->boost_mode)))
		return 0;
	if (sscanf(line, "pid %d%n", &s->pid, &n) == 1 && !line[n])
		return s->pid > 0 ? 0 : -EINVAL;
	if (sscanf(line, "start_time %" SCNu64 "%n", &s->start_time, &n) == 1 &&
	    !line[n])
		return 0;
	if (sscanf(line, "updated_ns %" SCNu64 "%n", &s->updated_ns, &n) == 1 &&
	    !line[n])
		return 0;
	if (sscanf(line, "threshold_ns %" SCNu64 "%n", &s->threshold_ns,
		   &n) == 1 && !line[n])
		return 0;
	if (sscanf(line, "boost_params %" SCNu64 " %" SCNu64 " %" SCNu64 "%n",
		   &s->runtime_ns, &s->period_ns, &s->duration_ns, &n) == 3 &&
	    !line[n])
		return 0;
	if (sscanf(line, "escalation %" SCNu64 " %" SCNu64 " %" SCNu64 "%n",
		   &s->cap_ns, &s->nr_escalations, &s->max_runtime_ns,
		   &n) == 3 && !line[n])
		return 0;
	if (sscanf(line, "escalated %" SCNu32 " %d %" SCNu64 " %n", &e.tid,
		   &e.cpu, &e.runtime_ns, &n) == 3 && n) {
		snprintf(e.comm, sizeof(e.comm), "%s", line + n);
		grow_array((void **)&s->escalated, ecap, s->nr_escalated + 1,
			   sizeof(*s->escalated));
		s->escalated[s->nr_escalated++] = e;
		return 0;
	}
	if (sscanf(line, "nr_cpus %d%n", &cpu, &n) == 1 && !line[n]) {
		if (s->cpu || cpu <= 0 || cpu > STATE_MAX_CPUS)
			return -EINVAL;
		s->cpu = calloc(cpu, sizeof(*s->cpu));
		if (!s->cpu)
			return -ENOMEM;
		s->nr_cpus = cpu;
		return 0;
	}
	if (sscanf(line, "cpu %d %llu %llu %llu%n", &cpu, &a, &c, &d, &n) == 4 &&
	    !line[n]) {
		if (cpu < 0 || cpu >= s->nr_cpus)
			return -EINVAL;
		s->cpu[cpu] = (struct cpu_stats) { a, c, d };
		return 0;
	}
	if (sscanf(line, "boosting %" SCNu32 " %d %15s %" SCNu64 " %" SCNu64
		   " %n", &b.tid, &b.cpu, b.policy, &b.start_ns, &b.end_ns,
		   &n) == 5 && n) {
		snprintf(b.comm, sizeof(b.comm), "%s", line + n);
		grow_array((void **)&s->boosting, cap, s->nr_boosting + 1,
			   sizeof(*s->boosting));
		s->boosting[s->nr_boosting++] = b;
		return 0;
	}
	return -EINVAL;
}

int status_file_parse(const char *buf, struct daemon_status *s)
{
	char *copy, *line, *save = NULL;
	size_t cap = 0, ecap = 0;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (strncmp(buf, STATE_MAGIC "\n", strlen(STATE_MAGIC) + 1))
		return -EINVAL;
	copy = strdup(buf + strlen(STATE_MAGIC) + 1);
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = parse_line(line, s, &cap, &ecap);
	free(copy);
	if (!ret && (!s->pid || !s->nr_cpus || !s->backend[0]))
		ret = -EINVAL;
	if (ret)
		status_file_free(s);
	return ret;
}

int status_file_read(const char *path, struct daemon_status *s)
{
	char *buf;
	ssize_t n;
	size_t len = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(STATE_MAX_SIZE + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < STATE_MAX_SIZE &&
	       (n = read(fd, buf + len, STATE_MAX_SIZE - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	ret = status_file_parse(buf, s);
	free(buf);
	return ret;
}

void status_file_free(struct daemon_status *s)
{
	free(s->cpu);
	free(s->boosting);
	free(s->escalated);
	s->cpu = NULL;
	s->boosting = NULL;
	s->escalated = NULL;
	s->nr_escalated = 0;
	s->nr_cpus = 0;
	s->nr_boosting = 0;
}

bool status_daemon_alive(const struct daemon_status *s)
{
	char path[64], comm[32];

	if (kill(s->pid, 0) && errno != EPERM)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->pid);
	return !read_line(path, comm, sizeof(comm)) && !strcmp(comm, "starvd");
}

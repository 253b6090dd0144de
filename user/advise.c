// SPDX-License-Identifier: GPL-2.0-or-later
/* What would have prevented the episodes starvd saw (advise.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "advise.h"
#include "util.h"

int advise_init(struct advise *a)
{
	memset(a, 0, sizeof(*a));
	a->ep = calloc(ADVISE_MAX_EPISODES, sizeof(*a->ep));
	return a->ep ? 0 : -ENOMEM;
}

void advise_free(struct advise *a)
{
	free(a->ep);
	a->ep = NULL;
}

static const char *str_of(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

static bool int_of(struct json_object *o, const char *key, int64_t *out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	*out = json_object_get_int64(v);
	return true;
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* The role and holder parts of a starving event into @e. */
static void parse_parts(struct json_object *o, struct advise_episode *e)
{
	struct json_object *role, *holder;
	int64_t v;

	copy(e->kind, sizeof(e->kind), "user");
	e->irq = -1;
	e->holder_prio = -1;
	if (json_object_object_get_ex(o, "role", &role) && role) {
		copy(e->kind, sizeof(e->kind), str_of(role, "kind") ?: "user");
		if (int_of(role, "irq", &v) && v >= 0 && v < 1 << 20)
			e->irq = v;
		copy(e->actions, sizeof(e->actions),
		     str_of(role, "irq_actions"));
	}
	if (json_object_object_get_ex(o, "holder", &holder) && holder &&
	    int_of(holder, "priority", &v) && v >= 0 && v < 100)
		e->holder_prio = v;
	copy(e->cgroup, sizeof(e->cgroup), str_of(o, "cgroup"));
	copy(e->comm, sizeof(e->comm), str_of(o, "comm"));
}

int advise_add_line(struct advise *a, const char *line)
{
	struct json_object *o = json_tokener_parse(line);
	struct advise_episode e = { 0 };
	int64_t tid, cpu, start, t;
	const char *ev;
	size_t i;

	ev = o ? str_of(o, "event") : NULL;
	if (!ev || strcmp(ev, "starving") || !int_of(o, "tid", &tid) ||
	    !int_of(o, "cpu", &cpu) || !int_of(o, "wait_start_ns", &start) ||
	    !int_of(o, "unix_time", &t) || cpu < 0 ||
	    cpu >= STARVD_MAX_CPUS) {
		json_object_put(o);
		a->skipped++;
		return 1;
	}
	e.tid = tid;
	e.cpu = cpu;
	e.wait_start_ns = start;
	e.unix_time = t;
	parse_parts(o, &e);
	json_object_put(o);
	for (i = 0; i < a->n; i++)
		if (a->ep[i].tid == e.tid &&
		    a->ep[i].wait_start_ns == e.wait_start_ns)
			return 0;	/* a later report of the same wait */
	if (a->n == ADVISE_MAX_EPISODES) {	/* keep the latest */
		memmove(a->ep, a->ep + 1, --a->n * sizeof(*a->ep));
	}
	a->ep[a->n++] = e;
	return 0;
}

/* The change @e belongs to: its name and, for some, what tells apart. */
static const char *change_of(const struct advise_episode *e)
{
	static const struct {
		const char *kind, *change;
	} map[] = {
		{ "irq_thread", "move_irq" },
		{ "rcuc", "offload_rcu" },
		{ "rcu_nocb", "house_rcu_nocb" },
		{ "kworker", "isolate_per_cpu_work" },
		{ "kworker_unbound", "move_unbound_work" },
		{ "ksoftirqd", "move_softirq_sources" },
		{ "ktimers", "boost_only" },
		{ "irq_work", "boost_only" },
		{ "user", "move_user_task" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(e->kind, map[i].kind))
			return map[i].change;
	return "boost_only";
}

static struct advise_change *change_for(struct advise *a,
					const struct advise_episode *e)
{
	const char *name = change_of(e);
	struct advise_change *c;
	size_t i;

	for (i = 0; i < a->nr_changes; i++) {
		c = &a->changes[i];
		if (strcmp(c->change, name))
			continue;
		if (!strcmp(name, "move_irq") && c->irq != e->irq)
			continue;
		if (!strcmp(name, "move_user_task") &&
		    strcmp(c->cgroup, e->cgroup))
			continue;
		return c;
	}
	if (a->nr_changes == ADVISE_MAX_CHANGES)
		return NULL;
	c = &a->changes[a->nr_changes++];
	memset(c, 0, sizeof(*c));
	c->change = name;
	c->irq = !strcmp(name, "move_irq") ? e->irq : -1;
	c->first = e->unix_time;
	if (!strcmp(name, "move_user_task"))
		copy(c->cgroup, sizeof(c->cgroup), e->cgroup);
	copy(c->actions, sizeof(c->actions), e->actions);
	return c;
}

static void add_task(struct advise_change *c, const char *comm)
{
	int i;

	for (i = 0; i < ADVISE_TASKS; i++) {
		if (!strcmp(c->tasks[i], comm))
			return;
		if (!c->tasks[i][0]) {
			copy(c->tasks[i], sizeof(c->tasks[i]), comm);
			return;
		}
	}
}

/* /sys/devices/virtual/workqueue/cpumask's format: 32-bit hex words. */
static void hex_mask(const struct cpuset *s, char *buf, size_t len)
{
	int w, top = -1;
	size_t off = 0;

	for (w = STARVD_MAX_CPUS / 32 - 1; w >= 0 && top < 0; w--)
		if ((s->bits[w / 2] >> (32 * (w % 2))) & 0xffffffffu)
			top = w;
	if (top < 0)
		top = 0;
	for (w = top; w >= 0 && off < len; w--)
		off += snprintf(buf + off, len - off, w == top ? "%x" : ",%08x",
				(unsigned int)(s->bits[w / 2] >>
					       (32 * (w % 2))));
}

/* A systemd unit name a shell reads as one word, or NULL. */
static const char *safe_unit(const char *cgroup, char *buf, size_t len)
{
	const char *base = strrchr(cgroup, '/');
	size_t n;

	base = base ? base + 1 : cgroup;
	n = strlen(base);
	if (n < strlen(".service") + 1 || n >= len ||
	    strcmp(base + n - strlen(".service"), ".service") ||
	    strspn(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.@-") != n)
		return NULL;
	memcpy(buf, base, n + 1);
	return buf;
}

static int max_holder_prio(const struct advise *a, const char *change)
{
	int p = -1;
	size_t i;

	for (i = 0; i < a->n; i++)
		if (!strcmp(change_of(&a->ep[i]), change) &&
		    a->ep[i].holder_prio > p)
			p = a->ep[i].holder_prio;
	return p;
}

/* Title, command, boot parameters and note of @c. */
static void write_change(const struct advise *a, struct advise_change *c)
{
	const char *hk = a->housekeeping;
	char cpus[256], mask[256], unit[200];
	struct cpuset house = { 0 };
	int prio;

	cpuset_format(&c->cpus, cpus, sizeof(cpus));
	c->title[0] = c->command[0] = c->boot[0] = c->note[0] = '\0';
	if (!strcmp(c->change, "move_irq")) {
		snprintf(c->title, sizeof(c->title), "Move IRQ %d%s%s%s off CPU %s",
			 c->irq, *c->actions ? " (" : "", c->actions,
			 *c->actions ? ")" : "", cpus);
		if (*hk) {
			snprintf(c->command, sizeof(c->command),
				 "echo %s > /proc/irq/%d/smp_affinity_list",
				 hk, c->irq);
			snprintf(c->boot, sizeof(c->boot), "irqaffinity=%s", hk);
		}
		snprintf(c->note, sizeof(c->note),
			 "its thread follows the IRQ; irqbalance moves IRQs back unless CPU %s is banned: IRQBALANCE_BANNED_CPULIST=%s in /etc/default/irqbalance",
			 cpus, cpus);
		c->docs = "Documentation/core-api/irq/irq-affinity.rst";
	} else if (!strcmp(c->change, "offload_rcu")) {
		snprintf(c->title, sizeof(c->title),
			 "Offload the RCU callbacks of CPU %s", cpus);
		snprintf(c->boot, sizeof(c->boot), "rcu_nocbs=%s nohz_full=%s",
			 cpus, cpus);
		prio = max_holder_prio(a, c->change);
		if (prio >= 0 && prio < 99)
			snprintf(c->note, sizeof(c->note),
				 "or rcutree.kthread_prio=%d: rcuc then runs above the busy loop (SCHED_FIFO %d) whenever it has callbacks",
				 prio + 1, prio);
		c->docs = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst";
	} else if (!strcmp(c->change, "house_rcu_nocb")) {
		snprintf(c->title, sizeof(c->title),
			 "Keep offloaded RCU threads off CPU %s", cpus);
		snprintf(c->boot, sizeof(c->boot), "nohz_full=%s", cpus);
		snprintf(c->note, sizeof(c->note),
			 "rcuo threads are not bound to a CPU: with nohz_full= they run on the housekeeping CPUs");
		c->docs = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst";
	} else if (!strcmp(c->change, "isolate_per_cpu_work")) {
		snprintf(c->title, sizeof(c->title),
			 "Keep per-CPU kernel work off CPU %s", cpus);
		snprintf(c->boot, sizeof(c->boot),
			 "isolcpus=domain,managed_irq,%s nohz_full=%s", cpus,
			 cpus);
		snprintf(c->note, sizeof(c->note),
			 "work queued for CPU %s itself (vmstat, LRU drains, per-CPU timers) cannot move: a boost is what serves it",
			 cpus);
		c->docs = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst";
	} else if (!strcmp(c->change, "move_unbound_work")) {
		snprintf(c->title, sizeof(c->title),
			 "Keep unbound workqueues off CPU %s", cpus);
		if (*hk && !cpuset_parse(hk, STARVD_MAX_CPUS, &house, NULL)) {
			hex_mask(&house, mask, sizeof(mask));
			snprintf(c->command, sizeof(c->command),
				 "echo %s > /sys/devices/virtual/workqueue/cpumask",
				 mask);
		}
		snprintf(c->boot, sizeof(c->boot), "isolcpus=domain,%s", cpus);
		c->docs = "Documentation/core-api/workqueue.rst";
	} else if (!strcmp(c->change, "move_softirq_sources")) {
		snprintf(c->title, sizeof(c->title),
			 "Handle IRQs away from CPU %s, whose softirqs starve", cpus);
		if (*hk)
			snprintf(c->boot, sizeof(c->boot), "irqaffinity=%s", hk);
		snprintf(c->note, sizeof(c->note),
			 "softirqs mostly follow the IRQs handled on the CPU; those its own work raises stay there, and a boost serves them");
		c->docs = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst";
	} else if (!strcmp(c->change, "move_user_task")) {
		snprintf(c->title, sizeof(c->title),
			 "Run the tasks of %s off CPU %s",
			 c->cgroup[0] ? c->cgroup : "the root cgroup", cpus);
		if (*hk && safe_unit(c->cgroup, unit, sizeof(unit)))
			snprintf(c->command, sizeof(c->command),
				 "systemctl set-property --runtime %s AllowedCPUs=%s",
				 unit, hk);
		snprintf(c->note, sizeof(c->note),
			 "a task placed on a busy CPU waits there: its service's AllowedCPUs= (or taskset, or its container's cpuset) keeps it on the housekeeping CPUs%s",
			 *c->command ? "" : "; no command: the cgroup names no systemd service, or one with characters a shell would interpret");
		c->docs = "systemd.resource-control(5), AllowedCPUs=";
	} else {
		snprintf(c->title, sizeof(c->title),
			 "Per-CPU kernel work on CPU %s: only a boost serves it",
			 cpus);
		snprintf(c->note, sizeof(c->note),
			 "no setting moves it off the CPU it was queued on: keep starvd running there");
		c->docs = "Documentation/admin-guide/kernel-per-CPU-kthreads.rst";
	}
}

void advise_build(struct advise *a, const struct cpuset *online)
{
	struct cpuset house = *online;
	struct advise_change *c;
	size_t i, w;

	memset(&a->busy, 0, sizeof(a->busy));
	a->nr_changes = 0;
	for (i = 0; i < a->n; i++)
		cpuset_set(&a->busy, a->ep[i].cpu);
	for (w = 0; w < ARRAY_SIZE(house.bits); w++)
		house.bits[w] &= ~a->busy.bits[w];
	a->housekeeping[0] = '\0';
	if (cpuset_count(&house))
		cpuset_format(&house, a->housekeeping,
			      sizeof(a->housekeeping));
	/* A list cut short ("0-3,...") is no list: no command from it. */
	if (strstr(a->housekeeping, "..."))
		a->housekeeping[0] = '\0';
	for (i = 0; i < a->n; i++) {
		c = change_for(a, &a->ep[i]);
		if (!c)
			continue;
		cpuset_set(&c->cpus, a->ep[i].cpu);
		c->episodes++;
		if (a->ep[i].unix_time < c->first)
			c->first = a->ep[i].unix_time;
		if (a->ep[i].unix_time > c->last)
			c->last = a->ep[i].unix_time;
		add_task(c, a->ep[i].comm);
	}
	for (i = 0; i < a->nr_changes; i++)
		write_change(a, &a->changes[i]);
}

static void when(long long t, char *buf, size_t len)
{
	time_t tt = t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%F %T", &tm))
		snprintf(buf, len, "%lld", t);
}

void advise_print_text(const struct advise *a, FILE *f)
{
	char first[32], last[32], cpus[256];
	const struct advise_change *c;
	size_t i;
	int t;

	if (!a->nr_changes) {
		fprintf(f, "No starvation episode recorded: nothing to advise.\n");
		return;
	}
	cpuset_format(&a->busy, cpus, sizeof(cpus));
	fprintf(f, "%zu starvation episode(s) on CPU %s; housekeeping CPUs (online, without episodes): %s\n",
		a->n, cpus, a->housekeeping[0] ? a->housekeeping : "none");
	for (i = 0; i < a->nr_changes; i++) {
		c = &a->changes[i];
		when(c->first, first, sizeof(first));
		when(c->last, last, sizeof(last));
		fprintf(f, "\n%s\n  evidence: %u episode(s), %s to %s, of", c->title,
			c->episodes, first, last);
		for (t = 0; t < ADVISE_TASKS && c->tasks[t][0]; t++)
			fprintf(f, "%s %s", t ? "," : "", c->tasks[t]);
		fprintf(f, "\n");
		if (c->command[0])
			fprintf(f, "  now, as root:\n%s\n", c->command);
		if (c->boot[0])
			fprintf(f, "  at boot, add to the kernel command line: %s\n",
				c->boot);
		if (c->note[0])
			fprintf(f, "  note: %s\n", c->note);
		if (c->docs)
			fprintf(f, "  see: %s; docs/advise.md\n", c->docs);
	}
}

static void put_str(struct json_object *o, const char *key, const char *v)
{
	json_object_object_add(o, key, v && *v ? json_object_new_string(v) :
						 NULL);
}

void advise_print_json(const struct advise *a, FILE *f)
{
	struct json_object *o = json_object_new_object(), *arr, *co, *tasks;
	const struct advise_change *c;
	char cpus[256];
	size_t i;
	int t;

	if (!o)
		return;
	json_object_object_add(o, "episodes", json_object_new_int64(a->n));
	cpuset_format(&a->busy, cpus, sizeof(cpus));
	put_str(o, "cpus", cpus);
	put_str(o, "housekeeping", a->housekeeping);
	arr = json_object_new_array();
	for (i = 0; arr && i < a->nr_changes; i++) {
		c = &a->changes[i];
		co = json_object_new_object();
		if (!co)
			break;
		put_str(co, "change", c->change);
		put_str(co, "title", c->title);
		cpuset_format(&c->cpus, cpus, sizeof(cpus));
		put_str(co, "cpus", cpus);
		json_object_object_add(co, "episodes",
				       json_object_new_int64(c->episodes));
		json_object_object_add(co, "first_unix_time",
				       json_object_new_int64(c->first));
		json_object_object_add(co, "last_unix_time",
				       json_object_new_int64(c->last));
		tasks = json_object_new_array();
		for (t = 0; tasks && t < ADVISE_TASKS && c->tasks[t][0]; t++)
			json_object_array_add(tasks,
					      json_object_new_string(c->tasks[t]));
		json_object_object_add(co, "tasks", tasks);
		if (c->irq >= 0)
			json_object_object_add(co, "irq",
					       json_object_new_int(c->irq));
		if (!strcmp(c->change, "move_user_task"))
			put_str(co, "cgroup", c->cgroup);
		put_str(co, "command", c->command);
		put_str(co, "boot", c->boot);
		put_str(co, "note", c->note);
		put_str(co, "docs", c->docs);
		json_object_array_add(arr, co);
	}
	json_object_object_add(o, "changes", arr);
	fprintf(f, "%s\n", json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

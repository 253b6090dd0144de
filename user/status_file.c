// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpuset.h"
#include "escape.h"
#include "json.h"
#include "options.h"
#include "status_file.h"
#include "util.h"

/*
 * The file is one JSON object (json-c writes and parses it), so that no
 * name in it can make a line or a field of its own: a comm is a JSON
 * string holding the escaped name (escape.h), unescaped when read.
 * "starvd_state" is the format's version (1 was a text format).
 */
#define STATE_FORMAT	2
#define STATE_MAX_SIZE	(1 << 20)
/* The daemon never has more, and per-CPU loops over more take ages. */
#define STATE_MAX_CPUS	STARVD_MAX_CPUS

void cpu_stats_episode(struct cpu_stats *st, const char *kind)
{
	struct kind_count *k = st->episodes;
	size_t i;

	for (i = 0; i < STATUS_KINDS - 1; i++, k++) {
		if (!k->kind[0])
			snprintf(k->kind, sizeof(k->kind), "%s", kind);
		if (!strcmp(k->kind, kind))
			break;
	}
	if (!k->kind[0])
		snprintf(k->kind, sizeof(k->kind), "%s", kind);
	k->n++;
}

/*
 * "kind", "irq" (an IRQ thread's alone), "cgroup": null if unknown;
 * "waits" only when something was read.
 */
static void put_what(struct json_object *o, const struct task_what *w)
{
	bool known = w->kind[0];

	json_put(o, "kind", known ? json_object_new_string(w->kind) : NULL);
	if (w->irq >= 0)
		json_put_int(o, "irq", w->irq);
	json_put(o, "cgroup", known ? json_object_new_string(w->cgroup) :
		 NULL);
	if (known && w->waits[0])
		json_put_str(o, "waits", w->waits);
}

static struct json_object *episodes_json(const struct cpu_stats *c)
{
	struct json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; o && i < STATUS_KINDS; i++)
		if (c->episodes[i].kind[0])
			json_put_u64(o, c->episodes[i].kind,
				     c->episodes[i].n);
	return o;
}

static struct json_object *last_json(const struct starved_info *l)
{
	struct json_object *o;

	if (!l->tid)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_put_u64(o, "tid", l->tid);
	json_put_name(o, "comm", l->comm);
	put_what(o, &l->what);
	return o;
}

/* An object for each CPU with something to count. */
struct json_object *status_cpus_json(const struct daemon_status *s,
				     struct cpu_stats *sum)
{
	struct json_object *arr = json_object_new_array(), *o;
	int i;

	if (sum)
		memset(sum, 0, sizeof(*sum));
	for (i = 0; i < s->nr_cpus; i++) {
		const struct cpu_stats *c = &s->cpu[i];

		if (sum) {
			sum->starving += c->starving;
			sum->boosts += c->boosts;
			sum->failures += c->failures;
		}
		if (!arr || (!c->starving && !c->boosts && !c->failures &&
			     !c->last.tid))
			continue;
		o = json_object_new_object();
		if (!o)
			continue;
		json_put_int(o, "cpu", i);
		json_put_u64(o, "starving", c->starving);
		json_put_u64(o, "boosts", c->boosts);
		json_put_u64(o, "failures", c->failures);
		json_put(o, "episodes", episodes_json(c));
		json_put(o, "last", last_json(&c->last));
		json_object_array_add(arr, o);
	}
	return arr;
}

const char *task_what_kind(const struct task_what *w, char *buf,
			   size_t len)
{
	if (!w->kind[0])
		snprintf(buf, len, "-");
	else if (w->irq >= 0)
		snprintf(buf, len, "%s %d", w->kind, w->irq);
	else
		snprintf(buf, len, "%s", w->kind);
	return buf;
}

const char *task_what_waits(const struct task_what *w, char *buf,
			    size_t len)
{
	snprintf(buf, len, "%s%s%s", w->kind[0] && w->waits[0] ?
		 " (waits to run " : "", w->kind[0] ? w->waits : "",
		 w->kind[0] && w->waits[0] ? ")" : "");
	return buf;
}

/* @path into @buf (@len bytes), "..." and its end if it does not fit. */
static void cut_front(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (n < len)
		snprintf(buf, len, "%s", path);
	else if (len > 4)
		snprintf(buf, len, "...%s", path + n - (len - 4));
	else if (len)
		buf[0] = '\0';
}

void task_what_cut(struct task_what *w, const char *path)
{
	cut_front(path, w->cgroup, sizeof(w->cgroup));
}

const char *task_what_cgroup(const struct task_what *w, char *buf,
			     size_t len)
{
	if (!w->kind[0])
		snprintf(buf, len, "-");
	else if (!w->cgroup[0])
		snprintf(buf, len, "/");
	else
		cut_front(w->cgroup, buf, len);
	return buf;
}

void status_config_json(struct json_object *o, const struct daemon_status *s)
{
	json_put_str(o, "backend", s->backend);
	json_put_str(o, "cpus", s->cpus);
	json_put_str(o, "boost_mode", s->boost_mode);
	json_put_u64(o, "threshold_ns", s->threshold_ns);
	json_put_u64(o, "runtime_ns", s->runtime_ns);
	json_put_u64(o, "period_ns", s->period_ns);
	json_put_u64(o, "duration_ns", s->duration_ns);
}

struct json_object *status_boosting_json(const struct daemon_status *s,
					 uint64_t now)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < s->nr_boosting; i++) {
		const struct boost_info *b = &s->boosting[i];

		o = json_object_new_object();
		if (!o)
			break;
		json_put_u64(o, "tid", b->tid);
		json_put_name(o, "comm", b->comm);
		json_put_int(o, "cpu", b->cpu);
		json_put_str(o, "policy", b->policy);
		put_what(o, &b->what);
		if (now) {
			json_put_u64(o, "remaining_ns",
				     b->end_ns > now ? b->end_ns - now : 0);
		} else {
			json_put_u64(o, "start_ns", b->start_ns);
			json_put_u64(o, "end_ns", b->end_ns);
		}
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *escalated_json(const struct daemon_status *s)
{
	struct json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; arr && i < s->nr_escalated; i++) {
		const struct escalated_info *e = &s->escalated[i];

		o = json_object_new_object();
		if (!o)
			break;
		json_put_u64(o, "tid", e->tid);
		json_put_int(o, "cpu", e->cpu);
		json_put_u64(o, "runtime_ns", e->runtime_ns);
		json_put_name(o, "comm", e->comm);
		json_object_array_add(arr, o);
	}
	return arr;
}

static void fill_state(FILE *f, const void *arg)
{
	const struct daemon_status *s = arg;
	struct json_object *o = json_object_new_object();
	const char *text;

	if (!o)
		return;
	json_put_int(o, "starvd_state", STATE_FORMAT);
	json_put_int(o, "pid", s->pid);
	json_put_u64(o, "start_time", s->start_time);
	json_put_u64(o, "updated_ns", s->updated_ns);
	json_put_str(o, "version", s->version);
	status_config_json(o, s);
	json_put_u64(o, "cap_ns", s->cap_ns);
	json_put_u64(o, "nr_escalations", s->nr_escalations);
	json_put_u64(o, "max_runtime_ns", s->max_runtime_ns);
	json_put_int(o, "nr_cpus", s->nr_cpus);
	json_put(o, "cpu", status_cpus_json(s, NULL));
	json_put(o, "boosting", status_boosting_json(s, 0));
	json_put(o, "escalated", escalated_json(s));
	text = json_line(o);
	/* A file cut short does not parse: starvctl then says so. */
	if (text)
		fprintf(f, "%s\n", text);
	json_object_put(o);
}

int status_file_write(const char *path, const struct daemon_status *s)
{
	return write_file_atomic(path, fill_state, s);
}

/*
 * The parser is strict: every field of its JSON type, every number in
 * its range, every string in its buffer (none is cut), or -EINVAL.
 */
static bool get_u64(struct json_object *o, const char *key, uint64_t max,
		    uint64_t *v)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_int) ||
	    json_object_get_int64(x) < 0)
		return false;
	*v = json_object_get_uint64(x);
	return *v <= max;
}

static bool get_int(struct json_object *o, const char *key, int min, int max,
		    int *v)
{
	struct json_object *x;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_int))
		return false;
	n = json_object_get_int64(x);
	if (n < min || n > max)
		return false;
	*v = n;
	return true;
}

static bool get_u32(struct json_object *o, const char *key, uint32_t *v)
{
	uint64_t n;

	if (!get_u64(o, key, UINT32_MAX, &n))
		return false;
	*v = n;
	return true;
}

static bool get_str(struct json_object *o, const char *key, char *buf,
		    size_t len)
{
	struct json_object *x;
	int n;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_string))
		return false;
	n = json_object_get_string_len(x);
	if ((size_t)n >= len || memchr(json_object_get_string(x), '\0', n))
		return false;
	memcpy(buf, json_object_get_string(x), n + 1);
	return true;
}

/* A name as fill_state() writes it: escaped, 15 bytes once unescaped. */
static bool get_name(struct json_object *o, const char *key, char *buf,
		     size_t len)
{
	char esc[ESC_NAME_LEN];

	return get_str(o, key, esc, sizeof(esc)) &&
	       str_unescape(esc, strlen(esc), buf, len) >= 0;
}

/* Printable ASCII alone, as escape.h escapes. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* @key's array (of at most @max elements), NULL if missing or not one. */
static struct json_object *get_array(struct json_object *o, const char *key,
				     size_t max, size_t *n)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, key, &x) ||
	    !json_object_is_type(x, json_type_array))
		return NULL;
	*n = json_object_array_length(x);
	return *n <= max ? x : NULL;
}

/* A kind as task_role_name() names it: a Prometheus label's value. */
static bool kind_ok(const char *kind)
{
	size_t n = strlen(kind);

	return n && n < TASK_KIND_LEN &&
	       strspn(kind, "abcdefghijklmnopqrstuvwxyz_") == n;
}

/*
 * put_what()'s fields into @w: absent (a file of an earlier starvd) or
 * null, unknown. A cgroup is escaped: printable ASCII.
 */
static bool get_what(struct json_object *o, struct task_what *w)
{
	struct json_object *x;

	memset(w, 0, sizeof(*w));
	w->irq = -1;
	if (json_object_object_get_ex(o, "irq", &x) &&
	    !get_int(o, "irq", 0, INT_MAX, &w->irq))
		return false;
	if (!json_object_object_get_ex(o, "kind", &x) || !x)
		return true;
	if (json_object_object_get_ex(o, "waits", &x) &&
	    (!get_str(o, "waits", w->waits, sizeof(w->waits)) ||
	     !printable(w->waits)))
		return false;
	return get_str(o, "kind", w->kind, sizeof(w->kind)) &&
	       kind_ok(w->kind) &&
	       get_str(o, "cgroup", w->cgroup, sizeof(w->cgroup)) &&
	       printable(w->cgroup);
}

static bool get_episodes(struct json_object *o, struct cpu_stats *st)
{
	struct json_object *x;
	size_t i = 0;

	if (!json_object_object_get_ex(o, "episodes", &x))
		return true;
	if (!json_object_is_type(x, json_type_object) ||
	    json_object_object_length(x) > STATUS_KINDS)
		return false;
	json_object_object_foreach(x, key, val) {
		struct kind_count *k = &st->episodes[i++];

		(void)val;
		if (!kind_ok(key) || !get_u64(x, key, UINT64_MAX, &k->n))
			return false;
		snprintf(k->kind, sizeof(k->kind), "%s", key);
	}
	return true;
}

static bool get_last(struct json_object *o, struct starved_info *l)
{
	struct json_object *x;

	if (!json_object_object_get_ex(o, "last", &x) || !x)
		return true;
	return json_object_is_type(x, json_type_object) &&
	       get_u32(x, "tid", &l->tid) && l->tid &&
	       get_name(x, "comm", l->comm, sizeof(l->comm)) &&
	       get_what(x, &l->what);
}

static int parse_cpus(struct json_object *o, struct daemon_status *s)
{
	struct json_object *arr, *c;
	struct cpu_stats *st;
	size_t i, n;
	int cpu;

	arr = get_array(o, "cpu", s->nr_cpus, &n);
	if (!arr)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		c = json_object_array_get_idx(arr, i);
		if (!get_int(c, "cpu", 0, s->nr_cpus - 1, &cpu))
			return -EINVAL;
		st = &s->cpu[cpu];
		if (!get_u64(c, "starving", UINT64_MAX, &st->starving) ||
		    !get_u64(c, "boosts", UINT64_MAX, &st->boosts) ||
		    !get_u64(c, "failures", UINT64_MAX, &st->failures) ||
		    !get_episodes(c, st) || !get_last(c, &st->last))
			return -EINVAL;
	}
	return 0;
}

static int parse_boosting(struct json_object *o, struct daemon_status *s)
{
	struct json_object *arr, *x;
	struct boost_info *b;
	size_t i, n;

	arr = get_array(o, "boosting", STATE_MAX_SIZE, &n);
	if (!arr)
		return -EINVAL;
	if (!n)
		return 0;
	s->boosting = calloc(n, sizeof(*s->boosting));
	if (!s->boosting)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(arr, i);
		b = &s->boosting[i];
		if (!get_u32(x, "tid", &b->tid) ||
		    !get_int(x, "cpu", -1, STATE_MAX_CPUS - 1, &b->cpu) ||
		    !get_str(x, "policy", b->policy, sizeof(b->policy)) ||
		    !get_u64(x, "start_ns", UINT64_MAX, &b->start_ns) ||
		    !get_u64(x, "end_ns", UINT64_MAX, &b->end_ns) ||
		    !get_name(x, "comm", b->comm, sizeof(b->comm)) ||
		    !get_what(x, &b->what))
			return -EINVAL;
		s->nr_boosting++;
	}
	return 0;
}

static int parse_escalated(struct json_object *o, struct daemon_status *s)
{
	struct json_object *arr, *x;
	struct escalated_info *e;
	size_t i, n;

	arr = get_array(o, "escalated", STATE_MAX_SIZE, &n);
	if (!arr)
		return -EINVAL;
	if (!n)
		return 0;
	s->escalated = calloc(n, sizeof(*s->escalated));
	if (!s->escalated)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		x = json_object_array_get_idx(arr, i);
		e = &s->escalated[i];
		if (!get_u32(x, "tid", &e->tid) ||
		    !get_int(x, "cpu", -1, STATE_MAX_CPUS - 1, &e->cpu) ||
		    !get_u64(x, "runtime_ns", UINT64_MAX, &e->runtime_ns) ||
		    !get_name(x, "comm", e->comm, sizeof(e->comm)))
			return -EINVAL;
		s->nr_escalated++;
	}
	return 0;
}

static int parse_object(struct json_object *o, struct daemon_status *s)
{
	int format, pid;
	int ret;

	if (!get_int(o, "starvd_state", STATE_FORMAT, STATE_FORMAT, &format) ||
	    !get_int(o, "pid", 1, INT_MAX, &pid) ||
	    !get_u64(o, "start_time", UINT64_MAX, &s->start_time) ||
	    !get_u64(o, "updated_ns", UINT64_MAX, &s->updated_ns) ||
	    !get_str(o, "version", s->version, sizeof(s->version)) ||
	    !get_str(o, "backend", s->backend, sizeof(s->backend)) ||
	    !s->backend[0] ||
	    !get_str(o, "cpus", s->cpus, sizeof(s->cpus)) ||
	    !get_str(o, "boost_mode", s->boost_mode, sizeof(s->boost_mode)) ||
	    !get_u64(o, "threshold_ns", UINT64_MAX, &s->threshold_ns) ||
	    !get_u64(o, "runtime_ns", UINT64_MAX, &s->runtime_ns) ||
	    !get_u64(o, "period_ns", UINT64_MAX, &s->period_ns) ||
	    !get_u64(o, "duration_ns", UINT64_MAX, &s->duration_ns) ||
	    !get_u64(o, "cap_ns", UINT64_MAX, &s->cap_ns) ||
	    !get_u64(o, "nr_escalations", UINT64_MAX, &s->nr_escalations) ||
	    !get_u64(o, "max_runtime_ns", UINT64_MAX, &s->max_runtime_ns) ||
	    !get_int(o, "nr_cpus", 1, STATE_MAX_CPUS, &s->nr_cpus))
		return -EINVAL;
	s->pid = pid;
	s->cpu = calloc(s->nr_cpus, sizeof(*s->cpu));
	if (!s->cpu)
		return -ENOMEM;
	ret = parse_cpus(o, s);
	if (!ret)
		ret = parse_boosting(o, s);
	if (!ret)
		ret = parse_escalated(o, s);
	return ret;
}

int status_file_parse(const char *buf, struct daemon_status *s)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o = NULL;
	size_t len = strlen(buf);
	int ret = -EINVAL;

	memset(s, 0, sizeof(*s));
	if (!tok)
		return -ENOMEM;
	if (len <= STATE_MAX_SIZE)
		o = json_tokener_parse_ex(tok, buf, len);
	/* One object, then nothing but white space. */
	if (o && json_object_is_type(o, json_type_object) &&
	    !buf[json_tokener_get_parse_end(tok) +
		 strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n")])
		ret = parse_object(o, s);
	json_object_put(o);
	json_tokener_free(tok);
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
	/* Either name it runs under: starvd, or stalld through a link. */
	return !read_line(path, comm, sizeof(comm)) &&
	       !strcmp(comm, personality(comm));
}

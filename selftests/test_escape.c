// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one escaping rule for names (user/escape.c) and the files that
 * hold names: the boost journal and the JSON state file round-trip any
 * name, and no name forges a line or a field of them.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "escape.h"
#include "journal.h"
#include "lib/hostile_names.h"
#include "lib/json_strict.h"
#include "sched_attr.h"
#include "status_file.h"

static const char *const names[] = {
	NAME_NL, NAME_CR, NAME_ESC, NAME_BACKSLASH, NAME_QUOTES, NAME_UTF8,
	NAME_FF, NAME_FORGED, "kworker/1:2 x", "",
};

/* Nothing but printable ASCII (and, if @nl, new lines). */
static bool printable(const char *s, bool nl)
{
	for (; *s; s++)
		if ((*s < 0x20 || *s > 0x7e) && !(nl && *s == '\n'))
			return false;
	return true;
}

TEST(every_byte)
{
	char in[2] = "", out[8], want[8], back[2];
	int c;

	for (c = 1; c < 256; c++) {
		in[0] = c;
		if (c >= 0x20 && c <= 0x7e && c != '\\')
			snprintf(want, sizeof(want), "%c", c);
		else
			snprintf(want, sizeof(want), "\\x%02x", c);
		EXPECT_STREQ(want, str_escape(in, out, sizeof(out)))
			TH_LOG("byte 0x%02x", c);
		ASSERT_EQ(1, str_unescape(out, strlen(out), back,
					  sizeof(back)));
		EXPECT_EQ(c, (unsigned char)back[0]);
		/* The net of log.c: the same, but a backslash stays. */
		EXPECT_STREQ(c == '\\' ? "\\" : want,
			     str_escape_ctl(in, out, sizeof(out)));
	}
}

TEST(hostile_names_round_trip)
{
	char out[ESC_NAME_LEN], back[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		str_escape(names[i], out, sizeof(out));
		EXPECT_TRUE(printable(out, false)) TH_LOG("%s", out);
		ASSERT_EQ((ssize_t)strlen(names[i]),
			  str_unescape(out, strlen(out), back, sizeof(back)));
		EXPECT_STREQ(names[i], back);
		/* The macro a log call uses: the same text. */
		EXPECT_STREQ(out, esc_name(names[i]));
	}
	EXPECT_STREQ("b\\x5cx0a\\x5c\\x5csl", esc_name(NAME_BACKSLASH));
	EXPECT_STREQ("kworker/1:2 x", esc_name("kworker/1:2 x"));
	/* 15 bytes of 0xff: 60 bytes escaped, all of them. */
	EXPECT_EQ(60, strlen(esc_name(NAME_FF)));
}

TEST(cut_before_an_escape)
{
	char out[8];

	/* "ab" then "\x0a" would need 4 more bytes and the NUL: cut. */
	EXPECT_STREQ("ab", str_escape("ab\ncd", out, 6));
	EXPECT_STREQ("ab\\x0a", str_escape("ab\ncd", out, 7));
	EXPECT_STREQ("ab\\x0ac", str_escape("ab\ncd", out, 8));
	EXPECT_STREQ("", str_escape("\n", out, 4));
}

TEST(unescape_keeps_what_is_no_escape)
{
	char out[16];

	/* Not an escape: kept as it is (an older starvd's raw name). */
	EXPECT_EQ(3, str_unescape("\\x4", 3, out, sizeof(out)));
	EXPECT_STREQ("\\x4", out + 0);
	EXPECT_EQ(4, str_unescape("\\xg1", 4, out, sizeof(out)));
	EXPECT_STREQ("\\xg1", out);
	EXPECT_EQ(2, str_unescape("a\\", 2, out, sizeof(out)));
	EXPECT_STREQ("a\\", out);
	EXPECT_EQ(1, str_unescape("\\x41", 4, out, sizeof(out)));
	EXPECT_STREQ("A", out);
	/* Only @n bytes: an escape cut by it is not one. */
	EXPECT_EQ(3, str_unescape("\\x41", 3, out, sizeof(out)));
	EXPECT_EQ(-EINVAL, str_unescape("a\\x00b", 6, out, sizeof(out)));
	EXPECT_EQ(-ENOSPC, str_unescape("0123456789abcdef", 16, out,
					sizeof(out)));
	EXPECT_EQ(15, str_unescape("0123456789abcde", 15, out, sizeof(out)));
}

static struct journal_entry journal_sample(const char *comm)
{
	struct journal_entry e = {
		.tid = 4242, .start_time = 99,
		.saved = { .sched_policy = SCHED_FIFO, .sched_priority = 10 },
		.applied = { .sched_policy = SCHED_DEADLINE,
			     .sched_runtime = 20000,
			     .sched_deadline = 1000000000,
			     .sched_period = 1000000000 },
	};

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	return e;
}

TEST(journal_round_trips_every_name)
{
	struct journal_entry e, back;
	char buf[512], want[128];
	const char *p;
	size_t i;
	int lines;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		e = journal_sample(names[i]);
		ASSERT_LT(0, journal_format(&e, buf, sizeof(buf)));
		EXPECT_TRUE(printable(buf, true)) TH_LOG("%s", buf);
		for (lines = 0, p = buf; (p = strchr(p, '\n')); p++)
			lines++;
		EXPECT_EQ(6, lines) TH_LOG("%s", buf);
		snprintf(want, sizeof(want), "\ncomm %s\n", esc_name(names[i]));
		EXPECT_TRUE(strstr(buf, want) != NULL) TH_LOG("%s", buf);
		ASSERT_EQ(0, journal_parse(buf, &back));
		EXPECT_STREQ(names[i], back.comm);
		EXPECT_EQ(e.tid, back.tid);
		EXPECT_EQ(e.saved.sched_priority, back.saved.sched_priority);
	}
}

TEST(journal_keeps_an_old_raw_name)
{
	struct journal_entry e = journal_sample("x"), back;
	char buf[512];
	int n;

	/* A journal an older starvd wrote: the name raw, a backslash too. */
	n = journal_format(&e, buf, sizeof(buf));
	ASSERT_LT(0, n);
	snprintf(buf + n - 2, sizeof(buf) - n + 2, "a\\b c\n");
	ASSERT_EQ(0, journal_parse(buf, &back));
	EXPECT_STREQ("a\\b c", back.comm);
	/* A name too long for comm: its first 15 bytes, still restored. */
	snprintf(buf + n - 2, sizeof(buf) - n + 2, "0123456789abcdefgh\n");
	ASSERT_EQ(0, journal_parse(buf, &back));
	EXPECT_STREQ("0123456789abcde", back.comm);
}

/* A state with every field set, @comm the name of a boost. */
static void sample_status(struct daemon_status *s, const char *comm)
{
	static struct cpu_stats cpu[4] = {
		[1] = { 3, 2, 1 }, [3] = { UINT64_MAX, 0, 7 },
	};
	static struct boost_info b[2];
	static struct escalated_info e[1];

	memset(s, 0, sizeof(*s));
	s->pid = 4242;
	s->start_time = 1700000000;
	s->updated_ns = 123456789;
	strcpy(s->version, "0.1.0");
	strcpy(s->backend, "bpf (sched_info)");
	strcpy(s->cpus, "1-3");
	strcpy(s->boost_mode, "deadline");
	s->threshold_ns = 60000000000ULL;
	s->runtime_ns = 20000;
	s->period_ns = 1000000000;
	s->duration_ns = 3000000000ULL;
	s->nr_cpus = 4;
	s->cpu = cpu;
	b[0] = (struct boost_info) { .tid = 212, .cpu = 1,
				     .policy = "SCHED_DEADLINE",
				     .start_ns = 1000, .end_ns = 4000 };
	snprintf(b[0].comm, sizeof(b[0].comm), "%s", comm);
	b[1] = (struct boost_info) { .tid = 213, .cpu = 3,
				     .policy = "SCHED_FIFO", .start_ns = 1,
				     .end_ns = UINT64_MAX, .comm = "my task" };
	s->nr_boosting = 2;
	s->boosting = b;
	s->cap_ns = 500000000;
	s->nr_escalations = 5;
	s->max_runtime_ns = 80000;
	e[0] = (struct escalated_info) { .tid = 212, .cpu = 1,
					 .runtime_ns = 40000 };
	snprintf(e[0].comm, sizeof(e[0].comm), "%s", comm);
	s->nr_escalated = 1;
	s->escalated = e;
}

static void expect_same(struct __test_metadata *_metadata,
			const struct daemon_status *a,
			const struct daemon_status *b)
{
	size_t i;

	EXPECT_EQ(a->pid, b->pid);
	EXPECT_EQ(a->start_time, b->start_time);
	EXPECT_EQ(a->updated_ns, b->updated_ns);
	EXPECT_STREQ(a->version, b->version);
	EXPECT_STREQ(a->backend, b->backend);
	EXPECT_STREQ(a->cpus, b->cpus);
	EXPECT_STREQ(a->boost_mode, b->boost_mode);
	EXPECT_EQ(a->threshold_ns, b->threshold_ns);
	EXPECT_EQ(a->runtime_ns, b->runtime_ns);
	EXPECT_EQ(a->period_ns, b->period_ns);
	EXPECT_EQ(a->duration_ns, b->duration_ns);
	EXPECT_EQ(a->cap_ns, b->cap_ns);
	EXPECT_EQ(a->nr_escalations, b->nr_escalations);
	EXPECT_EQ(a->max_runtime_ns, b->max_runtime_ns);
	ASSERT_EQ(a->nr_cpus, b->nr_cpus);
	EXPECT_EQ(0, memcmp(a->cpu, b->cpu, a->nr_cpus * sizeof(*a->cpu)));
	ASSERT_EQ(a->nr_boosting, b->nr_boosting);
	for (i = 0; i < a->nr_boosting; i++) {
		EXPECT_EQ(a->boosting[i].tid, b->boosting[i].tid);
		EXPECT_EQ(a->boosting[i].cpu, b->boosting[i].cpu);
		EXPECT_STREQ(a->boosting[i].policy, b->boosting[i].policy);
		EXPECT_EQ(a->boosting[i].start_ns, b->boosting[i].start_ns);
		EXPECT_EQ(a->boosting[i].end_ns, b->boosting[i].end_ns);
		EXPECT_STREQ(a->boosting[i].comm, b->boosting[i].comm);
	}
	ASSERT_EQ(a->nr_escalated, b->nr_escalated);
	for (i = 0; i < a->nr_escalated; i++) {
		EXPECT_EQ(a->escalated[i].tid, b->escalated[i].tid);
		EXPECT_EQ(a->escalated[i].cpu, b->escalated[i].cpu);
		EXPECT_EQ(a->escalated[i].runtime_ns,
			  b->escalated[i].runtime_ns);
		EXPECT_STREQ(a->escalated[i].comm, b->escalated[i].comm);
	}
}

/* The file's text, and whether it is one strict JSON object (UTF-8). */
static bool read_json(const char *path, char *buf, size_t len)
{
	struct json_object *o;
	FILE *f = fopen(path, "r");
	size_t n;
	bool ok;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	o = json_parse_strict_len(buf, n);
	ok = o && json_object_is_type(o, json_type_object);
	json_object_put(o);
	return ok;
}

TEST(state_file_round_trips_every_name)
{
	char dir[] = "/tmp/starvd-test-state.XXXXXX", path[64], text[8192];
	struct daemon_status s, back;
	size_t i;

	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/state", dir);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		sample_status(&s, names[i]);
		ASSERT_EQ(0, status_file_write(path, &s));
		ASSERT_TRUE(read_json(path, text, sizeof(text)))
			TH_LOG("%s", text);
		/* One line of ASCII: the names in it escaped. */
		EXPECT_TRUE(printable(text, true)) TH_LOG("%s", text);
		EXPECT_EQ(strlen(text) - 1, strcspn(text, "\n"));
		ASSERT_EQ(0, status_file_read(path, &back)) TH_LOG("%s", text);
		expect_same(_metadata, &s, &back);
		status_file_free(&back);
	}
	unlink(path);
	rmdir(dir);
}

static int parse(const char *text)
{
	struct daemon_status s;
	int ret = status_file_parse(text, &s);

	if (!ret)
		status_file_free(&s);
	return ret;
}

#define HEAD "{\"starvd_state\":2,\"pid\":7,\"start_time\":1," \
	"\"updated_ns\":2,\"version\":\"0.1.0\",\"backend\":\"bpf\"," \
	"\"cpus\":\"all\",\"boost_mode\":\"fifo\",\"threshold_ns\":3," \
	"\"runtime_ns\":4,\"period_ns\":5,\"duration_ns\":6,\"cap_ns\":0," \
	"\"nr_escalations\":0,\"max_runtime_ns\":0,\"nr_cpus\":2,"
#define TAIL "\"escalated\":[]}"

TEST(state_file_rejects_what_starvd_does_not_write)
{
	EXPECT_EQ(0, parse(HEAD "\"cpu\":[],\"boosting\":[]," TAIL "\n"));
	/* starvd 0.1.0's text format. */
	EXPECT_EQ(-EINVAL, parse("starvd-state 1\npid 4242\n"));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[],\"boosting\":[]," TAIL
				 "\npid 1\n"));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[{\"cpu\":2,\"starving\":1,"
				 "\"boosts\":0,\"failures\":0}],"
				 "\"boosting\":[]," TAIL));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[],\"boosting\":[{\"tid\":1,"
				 "\"cpu\":0,\"policy\":\"SCHED_FIFO\","
				 "\"start_ns\":1,\"end_ns\":2,"
				 "\"comm\":\"0123456789abcdef\"}]," TAIL));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[],\"boosting\":[{\"tid\":1,"
				 "\"cpu\":0,\"policy\":\"SCHED_FIFO\","
				 "\"start_ns\":1,\"end_ns\":2,"
				 "\"comm\":\"a\\\\x00b\"}]," TAIL));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[],\"boosting\":[{\"tid\":-1,"
				 "\"cpu\":0,\"policy\":\"SCHED_FIFO\","
				 "\"start_ns\":1,\"end_ns\":2,"
				 "\"comm\":\"a\"}]," TAIL));
	EXPECT_EQ(-EINVAL, parse(HEAD "\"cpu\":[],\"boosting\":\"x\"," TAIL));
	EXPECT_EQ(-EINVAL, parse("{\"starvd_state\":2,\"pid\":\"7\"}"));
	EXPECT_EQ(-EINVAL, parse("[]"));
	EXPECT_EQ(-EINVAL, parse(""));
}

TEST_HARNESS_MAIN

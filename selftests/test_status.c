// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What starved, in the operator's views: the status file keeps each
 * CPU's episodes by kind of task, its last starving task and what each
 * boosted task is (kind, IRQ, cgroup) through a write and a read;
 * starvctl metrics renders the episodes as a bounded label set; and the
 * daemon counts an episode once per wait, however often it is reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "metrics.h"
#include "starved.h"
#include "status_file.h"

/* A status file of two CPUs: CPU 1 has episodes, a last task, a boost. */
#define HEAD "{\"starvd_state\":2,\"pid\":7,\"start_time\":1," \
	"\"updated_ns\":2,\"version\":\"0.1.0\",\"backend\":\"bpf\"," \
	"\"cpus\":\"all\",\"boost_mode\":\"fifo\",\"threshold_ns\":3," \
	"\"runtime_ns\":4,\"period_ns\":5,\"duration_ns\":6,\"cap_ns\":0," \
	"\"nr_escalations\":0,\"max_runtime_ns\":0,\"nr_cpus\":2,"
#define LAST "{\"tid\":25,\"comm\":\"irq\\/25-virtio\",\"kind\":" \
	"\"irq_thread\",\"irq\":25,\"cgroup\":\"\"}"
#define CPU1 "{\"cpu\":1,\"starving\":4,\"boosts\":3,\"failures\":0," \
	"\"episodes\":{\"irq_thread\":2,\"user\":1},\"last\":" LAST "}"
#define BOOST "{\"tid\":300,\"comm\":\"app\",\"cpu\":1,\"policy\":" \
	"\"SCHED_FIFO\",\"kind\":\"user\",\"cgroup\":" \
	"\"\\/system.slice\\/app.service\",\"start_ns\":1,\"end_ns\":9}"
#define SAMPLE HEAD "\"cpu\":[" CPU1 "],\"boosting\":[" BOOST "]," \
	"\"escalated\":[]}"

/* The text of @path, or "". */
static void read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static void expect_in(struct __test_metadata *_metadata, const char *text,
		      const char *s)
{
	EXPECT_TRUE(strstr(text, s) != NULL) TH_LOG("%s not in:\n%s", s, text);
}

static int count(const char *text, const char *s)
{
	int n = 0;

	while ((text = strstr(text, s))) {
		n++;
		text++;
	}
	return n;
}

/*
 * Write @s (freed) to a state file and read the file's text back into
 * @text: 0, or -1 if the file could not be written.
 */
static int write_and_read(struct daemon_status *s, char *text, size_t len)
{
	char dir[] = "/tmp/starvd-test-status.XXXXXX", path[64];
	int ret;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/state", dir);
	ret = status_file_write(path, s);
	status_file_free(s);
	read_text(path, text, len);
	unlink(path);
	rmdir(dir);
	return ret ? -1 : 0;
}

TEST(what_starved_survives_a_write_and_a_read)
{
	struct daemon_status s;
	char text[8192];

	ASSERT_EQ(0, status_file_parse(SAMPLE, &s));
	ASSERT_EQ(0, write_and_read(&s, text, sizeof(text)));
	expect_in(_metadata, text,
		  "\"episodes\":{\"irq_thread\":2,\"user\":1}");
	expect_in(_metadata, text,
		  "\"last\":{\"tid\":25,\"comm\":\"irq/25-virtio\",\"kind\":\"irq_thread\",\"irq\":25,\"cgroup\":\"\"}");
	expect_in(_metadata, text,
		  "\"kind\":\"user\",\"cgroup\":\"/system.slice/app.service\"");
	/* Only an IRQ thread has an IRQ. */
	EXPECT_EQ(1, count(text, "\"irq\":")) TH_LOG("%s", text);
}

TEST(what_starved_is_read_back)
{
	const struct starved_info *l;
	const struct boost_info *b;
	struct daemon_status s;

	ASSERT_EQ(0, status_file_parse(SAMPLE, &s));
	l = &s.cpu[1].last;
	EXPECT_EQ(25, l->tid);
	EXPECT_STREQ("irq/25-virtio", l->comm);
	EXPECT_STREQ("irq_thread", l->what.kind);
	EXPECT_EQ(25, l->what.irq);
	EXPECT_STREQ("", l->what.cgroup);
	EXPECT_EQ(0, s.cpu[0].last.tid);
	EXPECT_STREQ("irq_thread", s.cpu[1].episodes[0].kind);
	EXPECT_EQ(2, s.cpu[1].episodes[0].n);
	EXPECT_STREQ("user", s.cpu[1].episodes[1].kind);
	EXPECT_EQ(1, s.cpu[1].episodes[1].n);
	ASSERT_EQ(1, s.nr_boosting);
	b = &s.boosting[0];
	EXPECT_STREQ("user", b->what.kind);
	EXPECT_EQ(-1, b->what.irq);
	EXPECT_STREQ("/system.slice/app.service", b->what.cgroup);
	status_file_free(&s);
}

/* A file of a starvd that wrote none of it: nothing known, no error. */
TEST(a_file_without_what_starved_is_read)
{
	struct daemon_status s;

	ASSERT_EQ(0, status_file_parse(HEAD "\"cpu\":[{\"cpu\":1,\"starving\":1,\"boosts\":1,\"failures\":0}],\"boosting\":[{\"tid\":3,\"comm\":\"a\",\"cpu\":1,\"policy\":\"SCHED_FIFO\",\"start_ns\":1,\"end_ns\":2}],\"escalated\":[]}",
				       &s));
	EXPECT_EQ(0, s.cpu[1].last.tid);
	EXPECT_STREQ("", s.cpu[1].episodes[0].kind);
	EXPECT_STREQ("", s.boosting[0].what.kind);
	EXPECT_EQ(-1, s.boosting[0].what.irq);
	status_file_free(&s);
}

/* What a kworker or ksoftirqd waited to run: kept, read back, checked. */
TEST(what_it_waits_to_run)
{
	struct daemon_status s, r;
	char text[8192];

	ASSERT_EQ(0, status_file_parse(SAMPLE, &s));
	snprintf(s.cpu[1].last.what.waits, sizeof(s.cpu[1].last.what.waits),
		 "refresh_vm_stats");
	ASSERT_EQ(0, write_and_read(&s, text, sizeof(text)));
	expect_in(_metadata, text, "\"waits\":\"refresh_vm_stats\"");
	ASSERT_EQ(0, status_file_parse(text, &r));
	EXPECT_STREQ("refresh_vm_stats", r.cpu[1].last.what.waits);
	status_file_free(&r);
	/* An escape byte is not printable: the file is refused. */
	ASSERT_NE(0, status_file_parse(HEAD "\"cpu\":[{\"cpu\":1,\"starving\":1,\"boosts\":0,\"failures\":0,\"last\":{\"tid\":7,\"comm\":\"k\",\"kind\":\"kworker\",\"cgroup\":\"\",\"waits\":\"a\\u001bb\"}}],\"boosting\":[],\"escalated\":[]}",
				       &r));
}

/* A kind is a label value of a bounded set: nothing else is taken. */
TEST(a_bad_kind_irq_or_cgroup_is_refused)
{
	static const char *const bad[] = {
		"\"episodes\":{\"Irq\":1}",
		"\"episodes\":{\"a\\\"b\":1}",
		"\"episodes\":{\"user\":-1}",
		"\"episodes\":{\"user\":\"1\"}",
		"\"episodes\":[1]",
		"\"last\":{\"tid\":0,\"comm\":\"a\",\"kind\":\"user\",\"cgroup\":\"\"}",
		"\"last\":{\"tid\":1,\"comm\":\"a\",\"kind\":\"\",\"cgroup\":\"\"}",
		"\"last\":{\"tid\":1,\"comm\":\"a\",\"kind\":\"user\"}",
		"\"last\":{\"tid\":1,\"comm\":\"a\",\"kind\":\"user\",\"irq\":-1,\"cgroup\":\"\"}",
		"\"last\":{\"tid\":1,\"comm\":\"a\",\"kind\":\"user\",\"cgroup\":\"\\u001b[2J\"}",
		"\"last\":7",
	};
	struct daemon_status s;
	char text[2048];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text), HEAD "\"cpu\":[{\"cpu\":1,"
			 "\"starving\":1,\"boosts\":0,\"failures\":0,%s}],"
			 "\"boosting\":[],\"escalated\":[]}", bad[i]);
		ret = status_file_parse(text, &s);
		if (!ret)
			status_file_free(&s);
		EXPECT_EQ(-EINVAL, ret) TH_LOG("%s", bad[i]);
	}
}

TEST(metrics_count_episodes_by_cpu_and_kind)
{
	struct metrics_input in = { 0 };
	struct daemon_status s;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_EQ(0, status_file_parse(SAMPLE, &s));
	in.daemon = &s;
	f = open_memstream(&text, &len);
	ASSERT_TRUE(f != NULL);
	metrics_print(f, &in);
	fclose(f);
	status_file_free(&s);
	expect_in(_metadata, text,
		  "\n# TYPE starvd_starving_episodes_total counter\n");
	expect_in(_metadata, text,
		  "\nstarvd_starving_episodes_total{cpu=\"1\",kind=\"irq_thread\"} 2\n");
	expect_in(_metadata, text,
		  "\nstarvd_starving_episodes_total{cpu=\"1\",kind=\"user\"} 1\n");
	/* No series for a CPU and kind never seen. */
	EXPECT_FALSE(strstr(text, "starvd_starving_episodes_total{cpu=\"0\"") != NULL)
		TH_LOG("%s", text);
	free(text);
}

static struct starvd_task task_at(uint32_t tid, uint64_t wait_ns)
{
	struct starvd_task t = { .tid = tid, .cpu = 1, .wait_ns = wait_ns };

	snprintf(t.comm, sizeof(t.comm), "t%u", tid);
	return t;
}

static uint64_t episodes(const struct cpu_stats *st, const char *kind)
{
	int i;

	for (i = 0; i < STATUS_KINDS; i++)
		if (!strcmp(st->episodes[i].kind, kind))
			return st->episodes[i].n;
	return 0;
}

/*
 * -l reports a wait again at every granularity: one episode. The same
 * task waiting again after it ran is another.
 */
TEST(an_episode_is_counted_once_per_wait)
{
	static struct starved kept;
	struct task_what irq = { .kind = "irq_thread", .irq = 25 };
	struct task_what user = { .kind = "user", .irq = -1,
				  .cgroup = "/system.slice/a.service" };
	struct cpu_stats st = { 0 };
	struct starvd_task t;

	t = task_at(100, 3000);		/* waiting since 1000 */
	EXPECT_TRUE(starved_is_new(&kept, &t, 4000));
	starved_report(&kept, &st, &t, 4000, &irq);
	t = task_at(100, 6000);		/* the same wait, reported again */
	EXPECT_FALSE(starved_is_new(&kept, &t, 7000));
	starved_report(&kept, &st, &t, 7000, &irq);
	EXPECT_EQ(1, episodes(&st, "irq_thread"));
	t = task_at(200, 500);
	starved_report(&kept, &st, &t, 7500, &user);
	EXPECT_EQ(1, episodes(&st, "user"));
	EXPECT_EQ(200, st.last.tid);
	EXPECT_STREQ("t200", st.last.comm);
	EXPECT_STREQ("/system.slice/a.service", st.last.what.cgroup);
	t = task_at(100, 1000);		/* ran after 7000, waits since 8000 */
	EXPECT_TRUE(starved_is_new(&kept, &t, 9000));
	starved_report(&kept, &st, &t, 9000, &irq);
	EXPECT_EQ(2, episodes(&st, "irq_thread"));
	EXPECT_EQ(100, st.last.tid);
	EXPECT_EQ(25, st.last.what.irq);
	ASSERT_TRUE(starved_find(&kept, 200) != NULL);
	EXPECT_STREQ("user", starved_find(&kept, 200)->kind);
	EXPECT_TRUE(starved_find(&kept, 300) == NULL);
}

/* The kept tasks are bounded: the one kept longest makes room. */
TEST(the_kept_tasks_are_bounded)
{
	static struct starved kept;
	struct task_what w = { .kind = "kworker", .irq = -1 };
	struct cpu_stats st = { 0 };
	struct starvd_task t;
	uint32_t tid;

	for (tid = 1; tid <= STARVED_KEPT + 1; tid++) {
		t = task_at(tid, 10);
		starved_report(&kept, &st, &t, 100, &w);
	}
	EXPECT_EQ(STARVED_KEPT + 1, episodes(&st, "kworker"));
	EXPECT_TRUE(starved_find(&kept, 1) == NULL);
	EXPECT_TRUE(starved_find(&kept, 2) != NULL);
	EXPECT_TRUE(starved_find(&kept, STARVED_KEPT + 1) != NULL);
}

/* More kinds than a CPU has room for: counted, in the last slot. */
TEST(kinds_beyond_the_bound_share_the_last_slot)
{
	struct cpu_stats st = { 0 };
	char kind[TASK_KIND_LEN];
	uint64_t total = 0;
	int i;

	for (i = 0; i < STATUS_KINDS + 3; i++) {
		snprintf(kind, sizeof(kind), "k%c", 'a' + i);
		cpu_stats_episode(&st, kind);
	}
	for (i = 0; i < STATUS_KINDS; i++)
		total += st.episodes[i].n;
	EXPECT_EQ(STATUS_KINDS + 3, total);
	EXPECT_EQ(4, st.episodes[STATUS_KINDS - 1].n);
}

/* A path longer than the file keeps: its end, the workload's name. */
TEST(a_long_cgroup_keeps_its_end)
{
	struct task_what w = { .kind = "user", .irq = -1 };
	char path[1024];

	memset(path, 'a', sizeof(path));
	strcpy(path + sizeof(path) - 12, "/app.scope");
	task_what_cut(&w, path);
	EXPECT_EQ(TASK_CGROUP_LEN - 1, strlen(w.cgroup));
	EXPECT_EQ(0, strncmp(w.cgroup, "...aaa", 6));
	EXPECT_STREQ("/app.scope",
		     w.cgroup + strlen(w.cgroup) - strlen("/app.scope"));
	task_what_cut(&w, "/system.slice/a.service");
	EXPECT_STREQ("/system.slice/a.service", w.cgroup);
}

TEST(a_table_shows_kind_and_the_end_of_a_long_cgroup)
{
	struct task_what w = { .kind = "irq_thread", .irq = 25,
			       .cgroup = "/kubepods.slice/pod-1/cri-containerd-abc.scope" };
	struct task_what none = { .irq = -1 };
	char buf[24];

	EXPECT_STREQ("irq_thread 25", task_what_kind(&w, buf, sizeof(buf)));
	EXPECT_STREQ("...containerd-abc.scope",
		     task_what_cgroup(&w, buf, sizeof(buf)));
	EXPECT_EQ(sizeof(buf) - 1, strlen(buf));
	EXPECT_STREQ("-", task_what_kind(&none, buf, sizeof(buf)));
	EXPECT_STREQ("-", task_what_cgroup(&none, buf, sizeof(buf)));
	w.cgroup[0] = '\0';
	EXPECT_STREQ("/", task_what_cgroup(&w, buf, sizeof(buf)));
}

TEST_HARNESS_MAIN

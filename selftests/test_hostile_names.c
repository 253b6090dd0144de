// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * No byte a thread name holds changes what starvd writes:
 * during a real boost of a victim named with each class of hostile name
 * (lib/hostile_names.h), every sink shows the name escaped the one way
 * (user/escape.h) and nothing else: starvd's stderr and --json, the
 * kernel log (/dev/kmsg), syslog as journald stored it (where journald
 * runs), the state file, starvctl status and tasks in both formats, the
 * boost journal and starvd --restore, and the metrics file, which
 * promtool must accept.
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "lib/starve_fixture.h"
#include "lib/hostile_names.h"
#include "lib/json_strict.h"

#include "escape.h"
#include "journal.h"
#include "proc.h"
#include "status_file.h"

FIXTURE_VARIANT(starve) {
	const char *name;
};

FIXTURE_VARIANT_ADD(starve, newlines) { .name = NAME_NL };
FIXTURE_VARIANT_ADD(starve, carriage_return) { .name = NAME_CR };
FIXTURE_VARIANT_ADD(starve, escape_sequences) { .name = NAME_ESC };
FIXTURE_VARIANT_ADD(starve, backslashes) { .name = NAME_BACKSLASH };
FIXTURE_VARIANT_ADD(starve, quotes) { .name = NAME_QUOTES };
FIXTURE_VARIANT_ADD(starve, invalid_utf8) { .name = NAME_UTF8 };
FIXTURE_VARIANT_ADD(starve, fifteen_0xff) { .name = NAME_FF };
FIXTURE_VARIANT_ADD(starve, forged_lines) { .name = NAME_FORGED };

#define DURATION	"2"

/* Nothing but printable ASCII and new lines. */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((*s < 0x20 || *s > 0x7e) && *s != '\n')
			return false;
	return true;
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ?
	       json_object_get_int64(v) : -1;
}

/* The "comm" of @tid's element of the array @key of @o, or NULL. */
static const char *comm_in(struct json_object *o, const char *key, pid_t tid)
{
	struct json_object *arr;
	size_t i;

	arr = json_member(o, key, json_type_array);
	if (!arr)
		return NULL;
	for (i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *e = json_object_array_get_idx(arr, i);

		if (get_int(e, "tid") == tid)
			return json_member_str(e, "comm");
	}
	return NULL;
}

/*
 * @text is printable, and every line of it that names the task (@who:
 * "pid N (" or " N ") holds @esc; if @required, one at least does.
 */
static void expect_named_if(struct __test_metadata *_metadata,
			    const char *what, const char *text,
			    const char *who, const char *esc, bool required)
{
	const char *l, *nl;
	int n = 0;

	EXPECT_TRUE(printable(text)) TH_LOG("%s: not printable ASCII:\n%s",
					    what, text);
	for (l = text; *l; l = *nl ? nl + 1 : nl) {
		nl = strchrnul(l, '\n');
		if (!memmem(l, nl - l, who, strlen(who)))
			continue;
		n++;
		EXPECT_TRUE(memmem(l, nl - l, esc, strlen(esc)) != NULL)
			TH_LOG("%s: '%.*s' lacks '%s'", what, (int)(nl - l),
			       l, esc);
	}
	if (required)
		EXPECT_LT(0, n) TH_LOG("%s: nothing names '%s':\n%s", what,
				       who, text);
}

#define expect_named(_metadata, what, text, who, esc) \
	expect_named_if(_metadata, what, text, who, esc, true)

static void read_all(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* @text is one JSON object whose array @key names @tid @esc. */
static void expect_json_comm(struct __test_metadata *_metadata,
			     const char *text, const char *key, pid_t tid,
			     const char *esc)
{
	struct json_object *o = json_parse_strict_len(text, strlen(text));

	EXPECT_TRUE(o != NULL) TH_LOG("%s", text);
	EXPECT_STREQ(esc, (o ? comm_in(o, key, tid) : NULL) ?: "(none)")
		TH_LOG("%s", text);
	json_object_put(o);
}

/* starvctl tasks, text and JSON: the victim waits behind the loop. */
static void check_tasks(struct __test_metadata *_metadata, pid_t tid,
			const char *esc)
{
	char out[65536], who[32];

	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "-b", test_backend(),
			 "tasks")) TH_LOG("%s", out);
	snprintf(who, sizeof(who), " %d ", (int)tid);
	expect_named(_metadata, "starvctl tasks", out, who, esc);
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "-b", test_backend(),
			 "tasks", "--json")) TH_LOG("%s", out);
	expect_json_comm(_metadata, out, "tasks", tid, esc);
}

/* The state file (JSON, the name escaped) and starvctl status. */
static void check_status(struct __test_metadata *_metadata, pid_t tid,
			 const char *name, const char *esc)
{
	char out[65536], who[32];
	struct daemon_status s;
	size_t i;

	read_all(TEST_RUN_DIR "/" STATUS_FILE, out, sizeof(out));
	EXPECT_TRUE(printable(out)) TH_LOG("state: %s", out);
	expect_json_comm(_metadata, out, "boosting", tid, esc);
	ASSERT_EQ(0, status_file_read(TEST_RUN_DIR "/" STATUS_FILE, &s));
	for (i = 0; i < s.nr_boosting && s.boosting[i].tid != (uint32_t)tid;
	     i++)
		;
	ASSERT_GT(s.nr_boosting, i);
	EXPECT_STREQ(name, s.boosting[i].comm);
	status_file_free(&s);

	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "status")) TH_LOG("%s", out);
	snprintf(who, sizeof(who), " %d ", (int)tid);
	expect_named(_metadata, "starvctl status", out, who, esc);
	ASSERT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "status", "--json")) TH_LOG("%s", out);
	expect_json_comm(_metadata, out, "boosting", tid, esc);
}

/* The boost journal's entry: text, the name escaped, read back whole. */
static void check_journal(struct __test_metadata *_metadata, pid_t tid,
			  const char *name, const char *esc)
{
	char path[128], buf[512], want[128];
	struct journal_entry e;

	snprintf(path, sizeof(path), TEST_RUN_DIR "/boosts/%d", (int)tid);
	read_all(path, buf, sizeof(buf));
	EXPECT_TRUE(printable(buf)) TH_LOG("%s: %s", path, buf);
	snprintf(want, sizeof(want), "\ncomm %s\n", esc);
	EXPECT_TRUE(strstr(buf, want) != NULL) TH_LOG("%s: %s", path, buf);
	ASSERT_EQ(0, journal_parse(buf, &e)) TH_LOG("%s: %s", path, buf);
	EXPECT_STREQ(name, e.comm);
}

/*
 * starvd --restore of a boost a killed starvd journaled, still applied
 * (SCHED_FIFO 20): the task back at @orig, the line naming it escaped.
 */
static void check_restore(struct __test_metadata *_metadata, pid_t tid,
			  const char *name, const char *esc)
{
	struct journal_entry e = {
		.tid = tid, .start_time = task_start_time(tid),
		.saved = fifo_attr(VICTIM_PRIO), .applied = fifo_attr(20),
	};
	struct journal j;
	char out[8192], who[32];

	snprintf(e.comm, sizeof(e.comm), "%s", name);
	ASSERT_EQ(0, sched_setattr_tid(tid, &e.applied));
	ASSERT_EQ(0, journal_open(&j, TEST_RUN_DIR));
	ASSERT_EQ(0, journal_add(&j, &e));
	journal_close(&j);
	EXPECT_EQ(0, RUN(out, bin_path("starvd"), "--restore", "--run-dir",
			 TEST_RUN_DIR)) TH_LOG("%s", out);
	snprintf(who, sizeof(who), "pid %d (", (int)tid);
	expect_named(_metadata, "starvd --restore", out, who, esc);
	expect_attr(_metadata, tid, &e.saved);
}

/* The metrics file, through promtool check metrics. */
static void check_metrics(struct __test_metadata *_metadata)
{
	char dir[] = "/tmp/starvd-names.XXXXXX", file[64], cmd[2 * PATH_MAX];
	const char *promtool = test_path("prometheus/usr/bin/promtool");
	char out[65536];

	ASSERT_EQ(0, access(promtool, X_OK))
		TH_LOG("%s missing: make -C selftests fetches it", promtool);
	ASSERT_TRUE(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/starvd.prom", dir);
	EXPECT_EQ(0, RUN(out, bin_path("starvctl"), "--run-dir", TEST_RUN_DIR,
			 "-b", test_backend(), "metrics", "-o", file))
		TH_LOG("%s", out);
	read_all(file, out, sizeof(out));
	EXPECT_TRUE(printable(out)) TH_LOG("%s", out);
	EXPECT_TRUE(strstr(out, "\nstarvd_boosts_in_progress 0\n") == NULL)
		TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "%s check metrics < %s", promtool, file);
	EXPECT_EQ(0, RUN(out, "/bin/sh", "-c", cmd)) TH_LOG("%s", out);
	unlink(file);
	rmdir(dir);
}

/* Every JSON line parses, and names @tid with the escaped name. */
static void check_json(struct __test_metadata *_metadata, const char *out,
		       pid_t tid, const char *esc)
{
	const char *l, *nl;
	int n = 0;

	for (l = out; *l; l = *nl ? nl + 1 : nl) {
		struct json_object *o;

		nl = strchrnul(l, '\n');
		o = json_parse_strict_len(l, nl - l);
		EXPECT_TRUE(o != NULL) TH_LOG("%.*s", (int)(nl - l), l);
		if (o && get_int(o, "tid") == tid) {
			EXPECT_STREQ(esc, json_member_str(o, "comm") ?: "(none)");
			n++;
		}
		json_object_put(o);
	}
	EXPECT_LT(2, n) TH_LOG("events for %d:\n%s", (int)tid, out);
}

/* Every line is starvd's (or libbpf's): none a name forged. */
static void check_stderr(struct __test_metadata *_metadata, const char *err,
			 pid_t tid, const char *esc)
{
	const char *l, *nl;
	char who[32];

	for (l = err; *l; l = *nl ? nl + 1 : nl) {
		nl = strchrnul(l, '\n');
		EXPECT_TRUE(!strncmp(l, "starvd: ", 8) ||
			    !strncmp(l, "libbpf: ", 8))
			TH_LOG("a line of its own: '%.*s'", (int)(nl - l), l);
	}
	snprintf(who, sizeof(who), "pid %d (", (int)tid);
	expect_named(_metadata, "stderr", err, who, esc);
}

/* /dev/kmsg from now on, or -1 where the test may not read it. */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The records starvd wrote since, each as starvd wrote it: the kernel
 * shows a record's bytes past ASCII, its control bytes and its
 * backslashes as \xNN on reading; the kernel's escapes are undone.
 */
static void kmsg_read(int fd, char *buf, size_t len)
{
	char rec[8192], *text;
	size_t o = 0;
	ssize_t n;

	buf[0] = '\0';
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		/* EPIPE: records were overwritten; the next one follows. */
		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		rec[strcspn(rec, "\n")] = '\0';
		text = strchr(rec, ';');
		if (!text || strncmp(text + 1, "starvd: ", 8))
			continue;
		text++;
		n = str_unescape(text, strlen(text), buf + o, len - o - 1);
		if (n < 0)
			break;
		o += n;
		buf[o++] = '\n';
		buf[o] = '\0';
	}
}

/* syslog, as journald stored it: -1 where journald does not run. */
static int journal_read(pid_t daemon, char *buf, size_t len)
{
	char match[32];
	const char *argv[] = { "journalctl", "-q", "--no-pager", "-o", "cat",
			       match, NULL };

	if (access("/run/systemd/journal/socket", F_OK))
		return -1;
	snprintf(match, sizeof(match), "_PID=%d", (int)daemon);
	usleep(500 * 1000);	/* journald stores what it reads a moment later */
	return run_capture(argv, buf, len) ? -1 : 0;
}

TEST_F_TIMEOUT(starve, every_sink, 60)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc", .thread_name = variant->name,
		.cpu = self->cpu, .attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = NSEC_PER_MSEC, .burn_ns = 100 * NSEC_PER_MSEC,
	};
	struct sched_attr orig = fifo_attr(VICTIM_PRIO);
	char esc[ESC_NAME_LEN], who[32], out[65536], comm[64];
	struct victim w;
	pid_t tid, daemon;
	int kmsg;

	str_escape(variant->name, esc, sizeof(esc));
	avoid_cpu(self->cpu);
	add_victim(_metadata, self, &spec, &w);
	tid = w.st->tid;
	snprintf(out, sizeof(out), "/proc/%d/comm", (int)tid);
	read_all(out, comm, sizeof(comm));
	/* The kernel's comm, and its newline: the name as set. */
	ASSERT_EQ(0, strncmp(comm, variant->name, strlen(variant->name)));
	ASSERT_TRUE(victim_stuck(&w));
	check_tasks(_metadata, tid, esc);

	kmsg = kmsg_open();
	START("-v", "-k", "-s", "-t", "0.5", "-d", DURATION,
	      "-i", "^stv-victim$");
	daemon = self->d->pid;
	WAIT_EVENT("boost", tid);
	check_status(_metadata, tid, variant->name, esc);
	check_journal(_metadata, tid, variant->name, esc);
	check_metrics(_metadata);
	/* Restored at the end of its boost; boosted again, then killed. */
	WAIT_EVENT("restore", tid);
	WAIT_EVENT("boost", tid);
	daemon_stop(self->d, SIGKILL, 2000);
	check_stderr(_metadata, self->d->err, tid, esc);
	check_json(_metadata, self->d->out, tid, esc);

	/*
	 * starvd --restore puts it back (silently if the SCHED_FIFO
	 * emulation had it lowered at the kill), naming it the same way.
	 */
	snprintf(who, sizeof(who), "pid %d (", (int)tid);
	EXPECT_EQ(0, RUN(out, bin_path("starvd"), "--restore", "--run-dir",
			 TEST_RUN_DIR)) TH_LOG("%s", out);
	expect_named_if(_metadata, "starvd --restore", out, who, esc, false);
	expect_attr(_metadata, tid, &orig);
	/* And a journaled boost it surely finds applied: it names it. */
	check_restore(_metadata, tid, variant->name, esc);

	/*
	 * The kernel log: what the kernel kept (it keeps 10 lines per 5 s
	 * of a writer unless printk_devkmsg is "on") is starvd's, printable.
	 */
	if (kmsg >= 0) {
		kmsg_read(kmsg, out, sizeof(out));
		close(kmsg);
		read_all("/proc/sys/kernel/printk_devkmsg", comm, sizeof(comm));
		expect_named_if(_metadata, "/dev/kmsg", out, who, esc,
				!strncmp(comm, "on", 2));
	}
	if (!journal_read(daemon, out, sizeof(out)))
		expect_named(_metadata, "syslog (journal)", out, who, esc);
	victim_stop(&w);
}

/* The sinks every_sink cannot read here, said as skips. */
TEST(kmsg_sink)
{
	char mode[32] = "";
	int fd = kmsg_open();

	if (fd < 0)
		SKIP(return, "/dev/kmsg cannot be read here (%s): every_sink did not check the kernel log",
		     strerror(errno));
	close(fd);
	read_all("/proc/sys/kernel/printk_devkmsg", mode, sizeof(mode));
	if (strncmp(mode, "on", 2))
		SKIP(return, "printk_devkmsg is %.*s: the kernel keeps 10 lines per 5 s of a writer, so every_sink checked that the lines kept are printable and starvd's, not that the boost's is there",
		     (int)strcspn(mode, "\n"), mode);
}

TEST(syslog_sink)
{
	if (access("/run/systemd/journal/socket", F_OK))
		SKIP(return, "journald does not run here (no /run/systemd/journal/socket): syslog() lines go nowhere a test can read, and every_sink did not check them");
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Events rendered once (user/event.c, user/json.c): every JSON line parses
 * whatever bytes a comm holds, which both formats escape (escape.h), each event carries the task the same way
 * and the fields user/event.h lists, and the text lines keep the words
 * stalld's scrapers match.
 */
#include <sched.h>
#include <string.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "lib/daemon_proc.h"

#include "event.h"
#include "json.h"
#include "log.h"
#include "stack.h"
#include "task_cgroup.h"
#include "task_role.h"
#include "util.h"

/* Quote, backslash, newline, DEL, a lone byte, an overlong '/', é. */
static const char nasty[] = "a\"b\\c\nd\x7f\xff\xc0\xaf\xc3\xa9";

static const char nasty_escaped[] =
	"a\"b\\x5cc\\x0ad\\x7f\\xff\\xc0\\xaf\\xc3\\xa9";
/* Printable ASCII: what a text line is made of. */
static const char printable[] =
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	"[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

static struct starvd_task task(const char *comm)
{
	struct starvd_task t = {
		.tid = 212, .tgid = 212, .cpu = 1, .prio = 120,
		.policy = SCHED_OTHER, .state = STARVD_TASK_WAITING,
		.wait_ns = 20004000000ULL,
	};

	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return t;
}

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const struct starvd_task hog = {
	.tid = 4051, .tgid = 4051, .cpu = 1, .prio = 49,
	.policy = SCHED_FIFO, .comm = "dpdk-worker",
};

/* Render @ev as JSON and parse it back; NULL if it does not parse. */
static struct json_object *parse(const struct event *ev)
{
	char buf[LOG_JSON_LEN];

	if (event_json(ev, 12345, buf, sizeof(buf)))
		return NULL;
	return json_parse_strict(buf);
}

static int64_t num(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return -999999;
	return json_object_get_int64(v);
}

/* Every event: its name, the time, and the task json_put_task() names. */
static void expect_common(struct __test_metadata *_metadata,
			  struct json_object *o, const char *name)
{
	ASSERT_TRUE(o != NULL);
	EXPECT_STREQ(name, json_member_str(o, "event"));
	EXPECT_EQ(12345, num(o, "time_ns"));
	EXPECT_EQ(212, num(o, "tid"));
	EXPECT_EQ(212, num(o, "tgid"));
	EXPECT_EQ(1, num(o, "cpu"));
	EXPECT_TRUE(json_member_str(o, "comm") != NULL);
	EXPECT_TRUE(json_member_str(o, "policy") != NULL);
	EXPECT_NE(-999999, num(o, "priority"));
}

TEST(utf8_sanitize_keeps_valid_replaces_invalid)
{
	char out[64];

	utf8_sanitize("kworker/1:2", out, sizeof(out));
	EXPECT_STREQ("kworker/1:2", out);
	utf8_sanitize("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", out, sizeof(out));
	EXPECT_STREQ("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", out);
	/* A lone continuation, a truncated sequence, an overlong '/'. */
	utf8_sanitize("a\x80" "b\xe2\x82" "c\xc0\xaf", out, sizeof(out));
	EXPECT_STREQ("a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd"
		     "c\xef\xbf\xbd\xef\xbf\xbd", out);
	/* UTF-16 surrogates and code points past U+10FFFF. */
	utf8_sanitize("\xed\xa0\x80\xf4\x90\x80\x80", out, sizeof(out));
	EXPECT_TRUE(strstr(out, "\xed\xa0") == NULL);
	EXPECT_TRUE(strstr(out, "\xf4\x90") == NULL);
	/* Cut to the buffer, never inside a sequence. */
	utf8_sanitize("ab\xc3\xa9", out, 4);
	EXPECT_STREQ("ab", out);
}

TEST(every_byte_of_a_comm_parses)
{
	struct starvd_task t;
	struct json_object *o;
	char comm[2] = "", want[8];
	struct event ev = { .kind = EVENT_IGNORED };
	int c;

	for (c = 1; c < 256; c++) {
		comm[0] = c;
		t = task(comm);
		ev.task = t;
		o = parse(&ev);
		ASSERT_TRUE(o != NULL) TH_LOG("comm byte 0x%02x", c);
		/* The name escaped (escape.h), as in the text lines. */
		snprintf(want, sizeof(want),
			 c >= 0x20 && c <= 0x7e && c != '\\' ? "%c" : "\\x%02x",
			 c);
		EXPECT_STREQ(want, json_member_str(o, "comm"));
		json_object_put(o);
	}
}

TEST(starving)
{
	struct event ev = {
		.kind = EVENT_STARVING, .task = task(nasty),
		.starving = { .read_time_ns = 30000000000ULL, .holder = &hog,
			      .stack = "worker_thread <- kthread" },
	};
	struct json_object *o = parse(&ev), *h;
	char text[LOG_TEXT_LEN];

	expect_common(_metadata, o, "starving");
	EXPECT_STREQ(nasty_escaped, json_member_str(o, "comm"));
	EXPECT_EQ(20004000000LL, num(o, "wait_ns"));
	EXPECT_EQ(30000000000LL - 20004000000LL, num(o, "wait_start_ns"));
	EXPECT_EQ(30000000000LL, num(o, "read_time_ns"));
	EXPECT_STREQ("worker_thread <- kthread", json_member_str(o, "stack"));
	ASSERT_TRUE(json_object_object_get_ex(o, "holder", &h));
	EXPECT_EQ(4051, num(h, "tid"));
	EXPECT_STREQ("SCHED_FIFO", json_member_str(h, "policy"));
	EXPECT_EQ(50, num(h, "priority"));
	json_object_put(o);

	/* The text line: the same escaped name, one line, no escape code. */
	event_text(&ev, text, sizeof(text));
	EXPECT_EQ(0, strncmp(text, nasty_escaped, strlen(nasty_escaped)))
		TH_LOG("%s", text);
	EXPECT_EQ(strlen(text), strspn(text, printable));

	ev.task = task("kworker/1:2");
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("kworker/1:2-212 starved on CPU 1 for 20 seconds (waited 20.004 s, behind dpdk-worker-4051, SCHED_FIFO 50) stack: worker_thread <- kthread",
		     text);

	ev.starving.holder = NULL;
	o = parse(&ev);
	ASSERT_TRUE(o != NULL);
	ASSERT_TRUE(json_object_object_get_ex(o, "holder", &h));
	EXPECT_TRUE(h == NULL);
	ASSERT_TRUE(json_object_object_get_ex(o, "wait_lower_bound", &h));
	EXPECT_FALSE(json_object_get_boolean(h));
	json_object_put(o);

	/* A wait the kernel did not stamp: stalld's words, then a bound. */
	ev.task.flags = STARVD_TASK_WAIT_LOWER_BOUND;
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("kworker/1:2-212 starved on CPU 1 for 20 seconds (waited at least 20.004 s) stack: worker_thread <- kthread",
		     text);
	o = parse(&ev);
	ASSERT_TRUE(o != NULL);
	ASSERT_TRUE(json_object_object_get_ex(o, "wait_lower_bound", &h));
	EXPECT_TRUE(json_object_get_boolean(h));
	json_object_put(o);
}

/* The workloads of the task and its holder, after stalld's words. */
TEST(starving_with_cgroups)
{
	static const struct task_cgroup cg = {
		.path = "/kubepods.slice/cri-containerd-" CID ".scope",
		.container = CID,
	}, hcg = { .path = "/system.slice/dpdk\\x0a.service" };
	struct event ev = {
		.kind = EVENT_STARVING, .task = task("app"),
		.starving = { .read_time_ns = 30000000000ULL, .holder = &hog,
			      .cgroup = &cg, .holder_cgroup = &hcg },
	};
	struct json_object *o = parse(&ev), *h, *v;
	char text[LOG_TEXT_LEN];

	ASSERT_TRUE(o != NULL);
	EXPECT_STREQ(cg.path, json_member_str(o, "cgroup"));
	EXPECT_STREQ(CID, json_member_str(o, "container_id"));
	ASSERT_TRUE(json_object_object_get_ex(o, "holder", &h));
	EXPECT_STREQ(hcg.path, json_member_str(h, "cgroup"));
	ASSERT_TRUE(json_object_object_get_ex(h, "container_id", &v));
	EXPECT_TRUE(v == NULL);
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("app-212 starved on CPU 1 for 20 seconds (waited 20.004 s, behind dpdk-worker-4051, SCHED_FIFO 50), cgroup /kubepods.slice/cri-containerd-" CID ".scope (container 0123456789ab), holder in cgroup /system.slice/dpdk\\x0a.service",
		     text);

	/* Root cgroup or kernel thread: nothing said, null in JSON. */
	ev.starving.cgroup = NULL;
	ev.starving.holder_cgroup = NULL;
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("app-212 starved on CPU 1 for 20 seconds (waited 20.004 s, behind dpdk-worker-4051, SCHED_FIFO 50)",
		     text);
	o = parse(&ev);
	ASSERT_TRUE(o != NULL);
	ASSERT_TRUE(json_object_object_get_ex(o, "cgroup", &v));
	EXPECT_TRUE(v == NULL);
	json_object_put(o);
}

/* What the task is there to do: after stalld's words, and as "role". */
TEST(starving_with_a_role)
{
	static const struct task_role role = {
		.kind = ROLE_IRQ, .irq = 25, .actions = "virtio0-requests",
		.affinity = "1", .effective = "1",
		.about = "threaded handler of IRQ 25 (virtio0-requests)",
	};
	struct event ev = {
		.kind = EVENT_STARVING, .task = task("irq/25-virtio0-"),
		.starving = { .read_time_ns = 30000000000ULL, .role = &role,
			      .log_only = true },
	};
	struct json_object *o = parse(&ev), *r;
	char text[LOG_TEXT_LEN];

	ASSERT_TRUE(o != NULL);
	ASSERT_TRUE(json_object_object_get_ex(o, "role", &r));
	EXPECT_STREQ("irq_thread", json_member_str(r, "kind"));
	EXPECT_EQ(25, num(r, "irq"));
	EXPECT_STREQ("virtio0-requests", json_member_str(r, "irq_actions"));
	EXPECT_STREQ("1", json_member_str(r, "irq_effective_affinity"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("irq/25-virtio0--212 starved on CPU 1 for 20 seconds (waited 20.004 s) [log only] [threaded handler of IRQ 25 (virtio0-requests)]",
		     text);
}

TEST(ignored)
{
	struct event ev = {
		.kind = EVENT_IGNORED, .task = task("ksoftirqd/1"),
		.ignored.process = "kthreadd",
	};
	struct json_object *o = parse(&ev);
	char text[LOG_TEXT_LEN];

	expect_common(_metadata, o, "ignored");
	EXPECT_STREQ("processes", json_member_str(o, "list"));
	EXPECT_STREQ("kthreadd", json_member_str(o, "process"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("Ignoring the thread ksoftirqd/1 (spawned by kthreadd) from consideration for boosting",
		     text);
}

TEST(boost_deadline_and_fifo)
{
	struct sched_attr dl = {
		.sched_policy = SCHED_DEADLINE, .sched_runtime = 20000,
		.sched_period = 1000000000,
	};
	struct sched_attr fifo = {
		.sched_policy = SCHED_FIFO, .sched_priority = 51,
	};
	struct event ev = {
		.kind = EVENT_BOOST, .task = task("kworker/1:2"),
		.boost = { .applied = &dl, .runtime_ns = 20000,
			   .period_ns = NSEC_PER_SEC,
			   .duration_ns = 3 * NSEC_PER_SEC },
	};
	struct json_object *o = parse(&ev);
	char text[LOG_TEXT_LEN];

	expect_common(_metadata, o, "boost");
	EXPECT_STREQ("SCHED_DEADLINE", json_member_str(o, "policy"));
	EXPECT_EQ(20000, num(o, "runtime_ns"));
	EXPECT_EQ(NSEC_PER_SEC, num(o, "period_ns"));
	EXPECT_EQ(3 * NSEC_PER_SEC, num(o, "duration_ns"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("boosted pid 212 (kworker/1:2) (cpu 1) using SCHED_DEADLINE (20us/1s for 3s)",
		     text);

	ev.boost.applied = &fifo;
	o = parse(&ev);
	ASSERT_TRUE(o != NULL);
	EXPECT_STREQ("SCHED_FIFO", json_member_str(o, "policy"));
	EXPECT_EQ(51, num(o, "priority"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("boosted pid 212 (kworker/1:2) (cpu 1) using SCHED_FIFO (priority 51 for 20us every 1s, for 3s)",
		     text);
}

TEST(escalate_and_deescalate)
{
	struct event ev = {
		.kind = EVENT_ESCALATE, .task = task("irq/25-virtio0"),
		.escalate = { .runtime_ns = 40000, .previous_ns = 20000,
			      .base_ns = 20000, .cap_ns = 50000000,
			      .period_ns = NSEC_PER_SEC },
	};
	struct json_object *o = parse(&ev);
	char text[LOG_TEXT_LEN];

	expect_common(_metadata, o, "escalate");
	EXPECT_EQ(40000, num(o, "runtime_ns"));
	EXPECT_EQ(20000, num(o, "previous_runtime_ns"));
	EXPECT_EQ(20000, num(o, "base_runtime_ns"));
	EXPECT_EQ(50000000, num(o, "cap_ns"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("escalating pid 212 (irq/25-virtio0) (cpu 1): its last boost (20us/1s) ended before it could block; this one gets 40us/1s (cap 50ms)",
		     text);

	ev.kind = EVENT_DEESCALATE;
	ev.deescalate.runtime_ns = 20000;
	o = parse(&ev);
	expect_common(_metadata, o, "deescalate");
	EXPECT_EQ(20000, num(o, "runtime_ns"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("pid 212 (irq/25-virtio0) keeps up without boosts: its next boost gets the configured 20us again",
		     text);
}

TEST(restore)
{
	struct sched_attr saved = {
		.sched_policy = SCHED_OTHER, .sched_nice = -5,
	};
	struct boost_delta d = {
		.outcome = OUTCOME_PROGRESS, .switches = 4, .ran_ns = 15000,
	};
	struct event ev = {
		.kind = EVENT_RESTORE, .task = task(nasty),
		.restore = { .saved = &saved, .delta = &d, .runtime_ns = 20000,
			     .reason = "boost over" },
	};
	struct json_object *o = parse(&ev);
	char text[LOG_TEXT_LEN];

	expect_common(_metadata, o, "restore");
	EXPECT_STREQ("SCHED_OTHER", json_member_str(o, "policy"));
	EXPECT_EQ(-5, num(o, "priority"));
	EXPECT_EQ(-5, num(o, "nice"));
	EXPECT_EQ(4, num(o, "switches"));
	EXPECT_EQ(15000, num(o, "ran_ns"));
	EXPECT_EQ(20000, num(o, "runtime_ns"));
	EXPECT_STREQ("progress", json_member_str(o, "outcome"));
	EXPECT_STREQ("boost over", json_member_str(o, "reason"));
	json_object_put(o);

	ev.task = task("kworker/1:2");
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("restored pid 212 (kworker/1:2) to SCHED_OTHER nice -5 (boost over; 4 context switches during the boost)",
		     text);
	d.outcome = OUTCOME_NO_PROGRESS;
	d.switches = 0;
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("restored pid 212 (kworker/1:2) to SCHED_OTHER nice -5 (boost over; 0 context switches during the boost, never blocked)",
		     text);
	d.outcome = OUTCOME_UNKNOWN;
	o = parse(&ev);
	ASSERT_TRUE(o != NULL);
	EXPECT_STREQ("unknown", json_member_str(o, "outcome"));
	json_object_put(o);
	event_text(&ev, text, sizeof(text));
	EXPECT_STREQ("restored pid 212 (kworker/1:2) to SCHED_OTHER nice -5 (boost over; it exited as the boost ended)",
		     text);
}

/*
 * A holder stack: frames as arrays, a stripped frame without symbol but
 * with build ID and offsets, an unknown offset as null, a symbol with
 * bytes that are not UTF-8 still valid JSON; 24 frames of each kind
 * with the longest names are cut to fit a log line, "truncated" said.
 */
TEST(holder_stack)
{
	struct holder_stack *h = calloc(1, sizeof(*h));
	struct event ev = { .kind = EVENT_HOLDER_STACK, .task = task(nasty) };
	struct json_object *o, *k, *u, *f, *v;
	char buf[LOG_JSON_LEN];
	unsigned int i, max;

	ASSERT_TRUE(h != NULL);
	h->holder = ev.task;
	h->victim = hog;
	h->nr_samples = 4;
	h->nr_same = 3;
	h->nr_kernel = 1;
	h->kernel[0] = (struct stack_frame){
		.offset = 0x7f, .size = 0xd0, .symbol = "read_zero" };
	h->nr_user = 2;
	h->user[0] = (struct stack_frame){
		.elf_addr = 0x11a7, .file_offset = 0x11a7,
		.module = "/usr/bin/spin", .build_id = "0123abcd" };
	h->user[1] = (struct stack_frame){
		.offset = 0x10, .size = 0x20, .symbol = "bad\xff\x01name",
		.module = "/lib/libc.so.6", .file_offset = UINT64_MAX };
	snprintf(h->user_note, sizeof(h->user_note), "2 frame(s) unwound");
	ev.holder_stack.stack = h;
	o = parse(&ev);
	expect_common(_metadata, o, "holder_stack");
	EXPECT_EQ(4, num(o, "samples"));
	EXPECT_EQ(3, num(o, "samples_with_this_stack"));
	k = json_member(o, "kernel_stack", json_type_array);
	u = json_member(o, "user_stack", json_type_array);
	ASSERT_TRUE(k && u);
	ASSERT_EQ(1, json_object_array_length(k));
	ASSERT_EQ(2, json_object_array_length(u));
	f = json_object_array_get_idx(k, 0);
	EXPECT_STREQ("read_zero", json_member_str(f, "symbol"));
	/* A frame's address is never shown (stack.h). */
	EXPECT_FALSE(json_object_object_get_ex(f, "address", NULL));
	EXPECT_EQ(0x7f, num(f, "offset"));
	f = json_object_array_get_idx(u, 0);
	/* No symbol: null, not absent. */
	v = f;
	EXPECT_TRUE(json_object_object_get_ex(f, "symbol", &v) && !v);
	EXPECT_STREQ("0123abcd", json_member_str(f, "build_id"));
	EXPECT_STREQ("0x11a7", json_member_str(f, "file_offset"));
	EXPECT_STREQ("0x11a7", json_member_str(f, "elf_address"));
	f = json_object_array_get_idx(u, 1);
	EXPECT_TRUE(json_member_str(f, "symbol") != NULL);
	EXPECT_TRUE(!json_member_str(f, "file_offset"));
	EXPECT_STREQ("2 frame(s) unwound", json_member_str(o, "user_stack_note"));
	json_object_put(o);

	/* Full stacks of the longest names: halved until the line fits. */
	h->nr_kernel = h->nr_user = STACK_MAX_FRAMES;
	for (i = 0; i < STACK_MAX_FRAMES; i++) {
		memset(h->kernel[i].symbol, 'k', sizeof(h->kernel[i].symbol) - 1);
		memset(h->user[i].symbol, 'u', sizeof(h->user[i].symbol) - 1);
		memset(h->user[i].module, 'm', sizeof(h->user[i].module) - 1);
	}
	EXPECT_EQ(-ENOSPC, event_json(&ev, 12345, buf, sizeof(buf)));
	for (max = STACK_MAX_FRAMES; max; max /= 2) {
		ev.holder_stack.max_frames = max;
		if (!event_json(&ev, 12345, buf, sizeof(buf)))
			break;
	}
	ASSERT_LT(0, max);
	o = json_parse_strict(buf);
	ASSERT_TRUE(o != NULL);
	EXPECT_TRUE(json_object_get_boolean(json_member(o, "truncated",
							json_type_boolean)));
	EXPECT_EQ(max, json_object_array_length(json_member(o, "user_stack",
							     json_type_array)));
	json_object_put(o);
	free(h);
}

TEST_HARNESS_MAIN

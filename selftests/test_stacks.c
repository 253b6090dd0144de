// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Holder stacks (--stacks, -v), judged from outside: a SCHED_FIFO busy
 * loop whose spinning function has a distinctive name (spin_stack.c,
 * built with frame pointers, without, and stripped) holds the test CPU
 * with a SCHED_FIFO victim behind it; starvd's holder_stack event must
 * name that function, or for the stripped build give the build ID and the
 * address eu-addr2line names it from; a loop inside read() must show
 * the kernel frames of that call; --no-user-stacks gives kernel frames
 * alone; without CAP_PERFMON the capture says why, once; with -v the
 * report line is unchanged and the stack follows it, and starvctl stacks
 * shows it; every JSON line starvd prints parses; naming a holder whose
 * file carries 96 MiB it never loads does not read those in; libdw is
 * mapped only with holder stacks, and where it cannot be loaded the
 * stack says what to install. No frame is shown by its address: started
 * without CAP_SYSLOG, starvd prints, logs and keeps no kernel address,
 * its stack file is root's alone, and no line of its own has stalld's
 * report words.
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <grp.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"
#include "lib/starve_fixture.h"
#include "stack.h"

#define SPIN_MAX_S	"20"

/* The holder: @bin (a spin_stack build) at SCHED_FIFO on @cpu. */
static pid_t spin_start(int cpu, const char *bin, const char *mode)
{
	struct sched_attr a = fifo_attr(HOG_PRIO);
	pid_t pid;

	if (kernel_preempt_rt()) {
		avoid_cpu(cpu);
		rt_hard_timers();
	}
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (sched_setattr_tid(0, &a) || pin(0, cpu))
		_exit(1);
	execl(bin, bin, mode, SPIN_MAX_S, (char *)NULL);
	_exit(127);
}

/* The frames of the event parsed, in ev (below): an array, or NULL. */
#define FRAMES(key)	json_member(ev, key, json_type_array)

/* The index of the first frame of @a whose symbol is @sym, or -1. */
static int frame_named(struct json_object *a, const char *sym)
{
	size_t i, n = a ? json_object_array_length(a) : 0;

	for (i = 0; i < n; i++) {
		const char *s =
			json_member_str(json_object_array_get_idx(a, i),
					"symbol");

		if (s && !strcmp(s, sym))
			return i;
	}
	return -1;
}

/* The build ID eu-readelf reads from @bin's note, in @id. */
static int build_id_of(const char *bin, char *id, size_t len)
{
	const char *const argv[] = { "eu-readelf", "-n", bin, NULL };
	char out[8192], *p;

	if (run_capture(argv, out, sizeof(out)))
		return -1;
	p = strstr(out, "Build ID: ");
	if (!p)
		return -1;
	p += strlen("Build ID: ");
	snprintf(id, len, "%.*s", (int)strspn(p, "0123456789abcdef"), p);
	return 0;
}

/* eu-addr2line -f: the function at @addr of @bin, then its line. */
static int addr2line(const char *bin, const char *addr, char *out,
		     size_t len)
{
	const char *const argv[] = { "eu-addr2line", "-f", "-e", bin, addr,
				     NULL };

	return run_capture(argv, out, len);
}

/*
 * The file offset of ELF address @addr in @bin, from its LOAD program
 * headers as eu-readelf -l prints them; -1 if in none.
 */
static long long offset_in_file(const char *bin, unsigned long long addr)
{
	const char *const argv[] = { "eu-readelf", "-l", bin, NULL };
	unsigned long long off, vaddr, paddr, filesz;
	static char out[16384];
	const char *l;

	if (run_capture(argv, out, sizeof(out)))
		return -1;
	for (l = strstr(out, "  LOAD "); l; l = strstr(l + 1, "  LOAD ")) {
		if (sscanf(l, " LOAD %llx %llx %llx %llx", &off, &vaddr, &paddr,
			   &filesz) == 4 &&
		    addr >= vaddr && addr < vaddr + filesz)
			return off + (addr - vaddr);
	}
	return -1;
}

static int starvctl_stacks(const char *run_dir, int cpu, char *out,
			   size_t len)
{
	char c[16];
	const char *const argv[] = { bin_path("starvctl"), "--run-dir",
				     run_dir, "-c", c, "stacks", NULL };

	snprintf(c, sizeof(c), "%d", cpu);
	return run_capture(argv, out, len);
}

/* A holder_stack line is longer than the fixture's line buffer. */
static char line[16384];
static struct json_object *ev;

/*
 * Read what naming @pid's stack reads, as libdwfl does (eu-stack): its
 * binaries and their debug information (with libc6-dbg installed, a few
 * megabytes for libc). Cold, over the guests' 9p root under TCG, that
 * takes seconds, and the test would time the test machine's I/O
 * instead of starvd's capture.
 */
static void read_files_of(pid_t pid)
{
	char p[16], out[256];
	const char *const argv[] = { "eu-stack", "-p", p, NULL };

	snprintf(p, sizeof(p), "%d", (int)pid);
	run_capture(argv, out, sizeof(out));
}

/*
 * @bin in @mode takes the test CPU from the fixture's busy loop, the
 * victim behind it; starvd (log only: the loop keeps the CPU) runs with
 * @flag and @flag2 (or NULL); the holder_stack event for it in line,
 * parsed in ev.
 */
static void holder_stack_of(struct __test_metadata *_metadata,
			    FIXTURE_DATA(starve) *self, const char *bin,
			    const char *mode, const char *flag, const char *flag2)
{
	const char *const args[] = { "-t", "0.5", "-l", flag, flag2, NULL };
	int ret;

	ASSERT_EQ(0, access(bin, X_OK)) TH_LOG("%s: not built", bin);
	kill_and_reap(self->hog);
	self->hog = spin_start(self->cpu, bin, mode);
	ASSERT_LT(0, self->hog);
	ASSERT_TRUE(victim_stuck(&self->v))
		TH_LOG("the victim still runs beside %s", bin);
	read_files_of(self->hog);
	ASSERT_EQ(0, daemon_start(self->d, args));
	ret = daemon_wait_event(self->d, "holder_stack", self->hog, EVENT_MS,
				line, sizeof(line));
	if (ret)
		held_up(self->d->pid, self->hog);
	ASSERT_EQ(0, ret) TH_LOG("no holder_stack event for %d; events:\n%sstderr:\n%s",
				 (int)self->hog,
				 daemon_out_tail(self->d, 4096), self->d->err);
	if (ev)
		json_object_put(ev);
	ev = json_parse_strict(line);
	ASSERT_TRUE(NULL != ev) TH_LOG("not JSON: %s", line);
}

/* Every line starvd printed on stdout is one JSON object. */
static void all_json_parses(struct __test_metadata *_metadata,
			    struct daemon_proc *d)
{
	char *copy = strndup(d->out, d->out_len), *l, *save = NULL;
	int n = 0;

	ASSERT_TRUE(NULL != copy);
	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct json_object *o = json_parse_strict(l);

		EXPECT_TRUE(o && json_object_is_type(o, json_type_object))
			TH_LOG("not a JSON object: %s", l);
		if (o)
			json_object_put(o);
		n++;
	}
	free(copy);
	EXPECT_LT(0, n);
}

/*
 * A kernel address in @s: a run of exactly as many hex digits as a
 * pointer has ("0x" or not), at or above the start of the kernel's half
 * of the address space (x86_64 and arm64: 0xffff800000000000; 32-bit
 * x86: 0xc0000000). Decimal numbers (times, tids) never begin with a
 * letter, and build IDs are longer. NULL if none.
 */
static const char *kernel_address_in(const char *s)
{
	const unsigned long long start = sizeof(long) == 8 ?
					 0xffff800000000000ULL : 0xc0000000ULL;
	const char *p = s;
	size_t n;

	for (; *p; p += n ? n : 1) {
		n = strspn(p, "0123456789abcdefABCDEF");
		if (n == 2 * sizeof(long) &&
		    strtoull(p, NULL, 16) >= start)
			return p;
	}
	return NULL;
}

/*
 * An address of @pid's memory in @s, as starvd would print one
 * ("0x..."): in a range of /proc/@pid/maps. NULL if none.
 */
static const char *task_address_in(const char *s, pid_t pid)
{
	unsigned long long lo[256], hi[256], a;
	char path[64], l[512];
	const char *p;
	int i, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && n < 256 && fgets(l, sizeof(l), f))
		n += sscanf(l, "%llx-%llx", &lo[n], &hi[n]) == 2;
	if (f)
		fclose(f);
	for (p = strstr(s, "0x"); p; p = strstr(p + 2, "0x")) {
		a = strtoull(p + 2, NULL, 16);
		for (i = 0; i < n; i++)
			if (a >= lo[i] && a < hi[i])
				return p;
	}
	return NULL;
}

/*
 * No frame of either kind has its address in the JSON event: names,
 * offsets, files and build IDs only.
 */
static void no_frame_address(struct __test_metadata *_metadata)
{
	const char *const kinds[] = { "kernel_stack", "user_stack" };
	size_t k, i, n;

	for (k = 0; k < 2; k++) {
		struct json_object *a = FRAMES(kinds[k]);

		n = a ? json_object_array_length(a) : 0;
		for (i = 0; i < n; i++)
			EXPECT_TRUE(!json_object_object_get_ex(
					json_object_array_get_idx(a, i),
					"address", NULL))
				TH_LOG("%s frame %zu has an address: %s",
				       kinds[k], i, line);
	}
}

/*
 * starvd unwinds user stacks on x86_64 only: elsewhere (the 686 guest's
 * 32-bit build) it says so in every event, and the user frames are not
 * there to check. On x86_64 they are required: a build that lost its
 * unwinder (LIBDW=0) fails.
 */
#ifdef __x86_64__
#define NEED_USER_FRAMES() do { } while (0)
#else
#define NEED_USER_FRAMES() do {						\
	const char *_n = json_member_str(ev, "user_stack_note");	\
									\
	if (_n && !strncmp(_n, "not taken: ", 11))			\
		SKIP(return, "%s", _n);					\
} while (0)
#endif

/* The spinning function, then its caller, by name, in @bin. */
static void names_spin(struct __test_metadata *_metadata,
		       FIXTURE_DATA(starve) *self, const char *bin)
{
	struct json_object *user = FRAMES("user_stack"), *f;
	int inner = frame_named(user, "starvd_spin_inner");

	NEED_USER_FRAMES();

	ASSERT_LE(0, inner) TH_LOG("starvd_spin_inner not in %s", line);
	f = json_object_array_get_idx(user, inner);
	EXPECT_STREQ(bin, json_member_str(f, "file"));
	/* Unwound past it: the CFI (or frame pointer) of the copy worked. */
	EXPECT_EQ(inner + 1, frame_named(user, "starvd_spin_outer"))
		TH_LOG("no caller after starvd_spin_inner: %s", line);
	EXPECT_LE(0, frame_named(user, "main"));
	/* Unwound to the outermost frame: nothing to say. */
	EXPECT_TRUE(json_member_str(ev, "user_stack_note") == NULL)
		TH_LOG("user stack note: %s", line);
	all_json_parses(_metadata, self->d);
}

TEST_F(starve, names_spinning_function_with_frame_pointers)
{
	holder_stack_of(_metadata, self, test_path("spin_stack-fp"), "user",
			"--stacks", NULL);
	names_spin(_metadata, self, test_path("spin_stack-fp"));
}

TEST_F(starve, names_spinning_function_without_frame_pointers)
{
	holder_stack_of(_metadata, self, test_path("spin_stack-nofp"), "user",
			"--stacks", NULL);
	names_spin(_metadata, self, test_path("spin_stack-nofp"));
}

/*
 * No symbols: build ID, file offset and the address in the file's own
 * layout, from which eu-addr2line names it; never where the holder has
 * it mapped (its ASLR layout), in the JSON event or the text.
 */
TEST_F(starve, stripped_binary_gives_build_id_and_file_offset)
{
	const char *stripped = test_path("spin_stack-stripped");
	const char *full = test_path("spin_stack-nofp");
	struct json_object *user, *f;
	char id[128], want[128], out[4096], text[512];
	const char *addr, *p;

	holder_stack_of(_metadata, self, stripped, "user", "--stacks", "-v");
	NEED_USER_FRAMES();
	user = FRAMES("user_stack");
	ASSERT_TRUE(user && json_object_array_length(user) > 0)
		TH_LOG("no user frames: %s", line);
	f = json_object_array_get_idx(user, 0);
	EXPECT_STREQ(stripped, json_member_str(f, "file"));
	EXPECT_TRUE(json_member_str(f, "symbol") == NULL);
	ASSERT_EQ(0, build_id_of(stripped, want, sizeof(want)));
	snprintf(id, sizeof(id), "%s", json_member_str(f, "build_id") ?: "");
	EXPECT_STREQ(want, id);
	addr = json_member_str(f, "elf_address");
	ASSERT_TRUE(addr != NULL);
	ASSERT_EQ(0, addr2line(full, addr, out, sizeof(out)));
	EXPECT_TRUE(!strncmp(out, "starvd_spin_inner", 17))
		TH_LOG("eu-addr2line -f -e %s %s: %s", full, addr, out);
	/* The offset a debuginfod client or a reader of the file takes. */
	ASSERT_TRUE(json_member_str(f, "file_offset") != NULL);
	EXPECT_EQ(offset_in_file(stripped, strtoull(addr, NULL, 16)),
		  (long long)strtoull(json_member_str(f, "file_offset"), NULL, 16));
	all_json_parses(_metadata, self->d);
	no_frame_address(_metadata);
	snprintf(text, sizeof(text), "  user: file offset %s of %s (build ID %s, no symbol; ELF address %s)",
		 json_member_str(f, "file_offset"), stripped, want, addr);
	EXPECT_TRUE(daemon_wait_output(self->d, text, EVENT_MS))
		TH_LOG("no \"%s\" on stderr:\n%s", text, self->d->err);
	p = task_address_in(self->d->err, self->hog);
	EXPECT_TRUE(!p) TH_LOG("stderr: %.60s", p);
	p = task_address_in(line, self->hog);
	EXPECT_TRUE(!p) TH_LOG("JSON: %.60s", p);
}

/* @key's value in /proc/@pid/status, in kB; -1 if not there. */
static long status_kb(pid_t pid, const char *key)
{
	char path[64], l[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && kb < 0 && fgets(l, sizeof(l), f))
		if (!strncmp(l, key, strlen(key)))
			kb = atol(l + strlen(key));
	if (f)
		fclose(f);
	return kb;
}

/*
 * Naming reads what it needs of a binary, not all of it: starvd's memory
 * is locked (mlockall), so a file mapped whole would be read in and
 * locked whole, here the 96 MiB the holder carries and never loads.
 */
TEST_F(starve, binary_is_not_read_whole)
{
	const char *big = test_path("spin_stack-big");
	long hwm;

	holder_stack_of(_metadata, self, big, "user", "--stacks", NULL);
	NEED_USER_FRAMES();
	EXPECT_LE(0, frame_named(FRAMES("user_stack"), "starvd_spin_inner"))
		TH_LOG("starvd_spin_inner not in %s", line);
	hwm = status_kb(self->d->pid, "VmHWM:");
	ASSERT_LT(0, hwm);
	EXPECT_GT(96 * 1024, hwm)
		TH_LOG("starvd's peak resident memory: %ld kB", hwm);
}

/* Spinning in read(): the kernel frames of that call, then the caller. */
TEST_F(starve, kernel_frames_of_a_system_call)
{
	struct json_object *kernel;

	holder_stack_of(_metadata, self, test_path("spin_stack-fp"),
			"syscall", "--stacks", NULL);
	kernel = FRAMES("kernel_stack");
	EXPECT_LE(0, frame_named(kernel, "ksys_read"))
		TH_LOG("no ksys_read in the kernel frames: %s", line);
	all_json_parses(_metadata, self->d);
#ifdef __x86_64__	/* where user stacks are unwound (NEED_USER_FRAMES) */
	EXPECT_LE(0, frame_named(FRAMES("user_stack"),
				 "starvd_spin_syscall"))
		TH_LOG("no starvd_spin_syscall in the user frames: %s",
		       line);
#endif
}

/*
 * stalld's report words, which scripts count ("starved on CPU",
 * "starved", "boosted pid", "restored pid"), are in no line of @err but
 * the reports themselves: "<comm>-<tid> starved on CPU <n> for ...".
 */
static void report_words_only_in_reports(struct __test_metadata *_metadata,
					 const char *err)
{
	const char *l, *end, *w;
	char one[1024];

	for (l = err; *l; l = *end ? end + 1 : end) {
		end = strchrnul(l, '\n');
		snprintf(one, sizeof(one), "%.*s", (int)(end - l), l);
		w = strstr(one, " starved on CPU ");
		if (w && strstr(one, "starved") == w + 1 &&
		    !strstr(w + 2, "starved"))
			continue;
		EXPECT_TRUE(!strstr(one, "starved") &&
			    !strstr(one, "boosted pid") &&
			    !strstr(one, "restored pid"))
			TH_LOG("a line of starvd's own with a report's words: %s",
			       one);
	}
}

/*
 * <run-dir>/holder-stack.cpuN once it is this holder's (the run directory
 * may hold an earlier test's), in @out, its status in @st.
 */
static void stack_file_of(struct __test_metadata *_metadata,
			  FIXTURE_DATA(starve) *self, char *out, size_t len,
			  struct stat *st)
{
	char path[128], want[96];
	uint64_t t0 = now_ns();
	int ret;

	snprintf(path, sizeof(path), "%s/" STACK_FILE_PREFIX "%d",
		 self->d->run_dir, self->cpu);
	snprintf(want, sizeof(want), "holder stack on CPU %d: %s-%d, ",
		 self->cpu, "spin_stack-fp", (int)self->hog);
	for (;; usleep(50000)) {
		ret = read_file(path, out, len);
		if ((ret >= 0 && strstr(out, want)) ||
		    now_ns() - t0 > EVENT_MS * NSEC_PER_MSEC)
			break;
	}
	ASSERT_TRUE(ret >= 0 && strstr(out, want))
		TH_LOG("%s: %s", path, ret < 0 ? strerror(-ret) : out);
	ASSERT_EQ(0, stat(path, st));
}

/*
 * Started as the shipped unit leaves it, without CAP_SYSLOG (then
 * /proc/kallsyms shows starvd no addresses unless kernel.kptr_restrict
 * is 0 and kernel.perf_event_paranoid at most 1), with the holder inside
 * read(): no kernel address in its stderr, its JSON events or the stack's
 * file, which is root's alone; the kernel frames are named, or the
 * stack says why they are not shown and the log says once what to do.
 * No line of its own has stalld's report words.
 */
TEST_F(starve, no_kernel_address_without_cap_syslog)
{
	const char *hidden = "frame(s) not shown: /proc/kallsyms hides kernel addresses";
	const char *said = "kernel frames of holder stacks are not shown: ";
	static char file[16384];
	struct json_object *kernel;
	const char *p, *l, *end, *note;
	char one[1024];
	struct stat st;

	/* starvd inherits the bounding set: setpriv --bounding-set -syslog. */
	ASSERT_EQ(0, prctl(PR_CAPBSET_DROP, CAP_SYSLOG, 0, 0, 0));
	holder_stack_of(_metadata, self, test_path("spin_stack-fp"),
			"syscall", "-v", "--stacks");
	stack_file_of(_metadata, self, file, sizeof(file), &st);
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	/* Each of the file's text lines is on stderr too (the log's). */
	for (l = strchr(file, '\n'); l && l[1]; l = end) {
		end = strchr(++l, '\n');
		snprintf(one, sizeof(one), "%.*s",
			 (int)(end ? end - l : (long)strlen(l)), l);
		EXPECT_TRUE(daemon_wait_output(self->d, one, EVENT_MS))
			TH_LOG("not on stderr: %s", one);
		if (!end)
			break;
	}
	p = kernel_address_in(self->d->err);
	EXPECT_TRUE(!p) TH_LOG("stderr: %.40s", p);
	p = kernel_address_in(self->d->out);
	EXPECT_TRUE(!p) TH_LOG("stdout: %.40s", p);
	p = kernel_address_in(file);
	EXPECT_TRUE(!p) TH_LOG("%s" STACK_FILE_PREFIX "%d: %.40s",
			       self->d->run_dir, self->cpu, p);
	no_frame_address(_metadata);
	kernel = FRAMES("kernel_stack");
	note = json_member_str(ev, "kernel_stack_note");
	if (frame_named(kernel, "ksys_read") < 0) {
		EXPECT_EQ(0, kernel ? json_object_array_length(kernel) : 1);
		EXPECT_TRUE(note && strstr(note, hidden))
			TH_LOG("kernel stack note: %s", note ?: "(none)");
		p = strstr(self->d->err, said);
		EXPECT_TRUE(p && strstr(p, "CAP_SYSLOG") &&
			    !strstr(p + 1, said))
			TH_LOG("said, not once: %s", self->d->err);
	}
	report_words_only_in_reports(_metadata, self->d->err);
}

/*
 * 64 KiB of stack, 16 KiB copied: the unwinding stops inside the copy,
 * says after how many frames and why, and every frame shown is right.
 */
TEST_F(starve, deep_stack_stops_without_a_wrong_frame)
{
	const char *bin = test_path("spin_stack-nofp");
	struct json_object *user;
	const char *note;
	char want[64];
	size_t i, n;

	holder_stack_of(_metadata, self, bin, "deep", "--stacks", NULL);
	NEED_USER_FRAMES();
	user = FRAMES("user_stack");
	ASSERT_TRUE(user != NULL);
	n = json_object_array_length(user);
	EXPECT_EQ(0, frame_named(user, "starvd_spin_inner"));
	EXPECT_EQ(1, frame_named(user, "starvd_spin_outer"));
	EXPECT_EQ(2, frame_named(user, "starvd_spin_deep"));
	EXPECT_EQ(-1, frame_named(user, "main"));
	for (i = 2; i < n; i++)
		EXPECT_STREQ("starvd_spin_deep",
			     json_member_str(json_object_array_get_idx(user, i),
					     "symbol"))
			TH_LOG("frame %zu: %s", i, line);
	note = json_member_str(ev, "user_stack_note");
	snprintf(want, sizeof(want), "%zu frame(s) unwound, then stopped", n);
	EXPECT_TRUE(note && !strncmp(note, want, strlen(want)))
		TH_LOG("user stack note: %s", note ?: "(none)");
	all_json_parses(_metadata, self->d);
}

/* --no-user-stacks: kernel frames alone, and why no user frames. */
TEST_F(starve, no_user_stacks_gives_kernel_frames_only)
{
	struct json_object *user;

	holder_stack_of(_metadata, self, test_path("spin_stack-fp"),
			"syscall", "--stacks", "--no-user-stacks");
	EXPECT_LE(0, frame_named(FRAMES("kernel_stack"), "ksys_read"))
		TH_LOG("no ksys_read in the kernel frames: %s", line);
	user = FRAMES("user_stack");
	ASSERT_TRUE(user != NULL);
	EXPECT_EQ(0, json_object_array_length(user));
	EXPECT_STREQ("not taken (--no-user-stacks)",
		     json_member_str(ev, "user_stack_note"));
	all_json_parses(_metadata, self->d);
}

/* Does /proc/@pid/maps map a file whose name has @name? -1: unreadable. */
static int maps_file(pid_t pid, const char *name)
{
	char path[64], l[512];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (!found && fgets(l, sizeof(l), f))
		found = strstr(l, name) != NULL;
	fclose(f);
	return found;
}

/*
 * libdw is loaded for user frames, not linked: starvd locks its memory,
 * and a daemon without holder stacks does not map it; with them it does.
 */
TEST_F(starve, libdw_mapped_only_for_user_frames)
{
	START("-t", "20");
	WAIT_STARTED();
	EXPECT_EQ(0, maps_file(self->d->pid, "/libdw"));
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, EVENT_MS));
	holder_stack_of(_metadata, self, test_path("spin_stack-fp"), "user",
			"--stacks", NULL);
	NEED_USER_FRAMES();
	EXPECT_EQ(1, maps_file(self->d->pid, "/libdw"));
}

/* Resident KiB of @pid's mappings named @name in smaps, -1 if unreadable. */
static long smaps_rss_kib(pid_t pid, const char *name)
{
	char path[64], l[512];
	bool in = false;
	long kib = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(l, sizeof(l), f)) {
		if (strchr(l, '-') && strchr(l, ':') && l[0] != ' ' &&
		    strncmp(l, "Rss:", 4) && isxdigit((unsigned char)l[0]))
			in = strstr(l, name) != NULL;
		else if (in && sscanf(l, "Rss: %ld kB", &v) == 1)
			kib += v;
	}
	fclose(f);
	return kib;
}

/*
 * libbpf reads the kernel's BTF once for each BPF object starvd loads;
 * under mlockall() a copy freed inside the heap stays resident. The
 * BPF daemon's heap, once started, holds less than one copy.
 */
TEST_F(starve, no_copy_of_the_kernel_btf_stays_locked)
{
	struct stat st;
	long heap;

	if (strcmp(test_backend(), "bpf"))
		SKIP(return, "the BPF backend's objects: STARVD_TEST_BACKEND=bpf");
	ASSERT_EQ(0, stat("/sys/kernel/btf/vmlinux", &st));
	START("-t", "20");
	WAIT_STARTED();
	heap = smaps_rss_kib(self->d->pid, "[heap]");
	ASSERT_LE(0, heap);
	EXPECT_LT(heap * 1024, st.st_size)
		TH_LOG("starvd's heap holds %ld KiB, the kernel's BTF is %lld KiB",
		       heap, (long long)st.st_size / 1024);
}

/* libdw.so.1 as the dynamic linker finds it; "" if it does not. */
static void libdw_path(char *path, size_t len)
{
	void *h = dlopen("libdw.so.1", RTLD_LAZY | RTLD_LOCAL);
	struct link_map *lm = NULL;

	path[0] = '\0';
	if (h && !dlinfo(h, RTLD_DI_LINKMAP, &lm) && lm)
		snprintf(path, len, "%s", lm->l_name);
	if (h)
		dlclose(h);
}

/*
 * Where libdw cannot be loaded (here /dev/null in its place, in a mount
 * namespace of the test's own), holder stacks have kernel frames, and
 * the user stack's note says what is missing and what to install.
 */
TEST_F(starve, without_libdw_says_what_to_install)
{
	char path[PATH_MAX], bin[PATH_MAX];
	const char *note;

	libdw_path(path, sizeof(path));
	if (!path[0])
		SKIP(return, "no libdw.so.1 here: nothing to take away");
	/*
	 * Found first: in a chroot (the test guests), /proc/self/exe reads
	 * outside it once the mount namespace is the test's own.
	 */
	snprintf(bin, sizeof(bin), "%s", test_path("spin_stack-fp"));
	ASSERT_EQ(0, unshare(CLONE_NEWNS));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("/dev/null", path, NULL, MS_BIND, NULL))
		TH_LOG("bind /dev/null on %s: %m", path);
	holder_stack_of(_metadata, self, bin, "syscall", "--stacks", NULL);
	EXPECT_LE(0, frame_named(FRAMES("kernel_stack"), "ksys_read"))
		TH_LOG("no ksys_read in the kernel frames: %s", line);
	EXPECT_EQ(0, json_object_array_length(FRAMES("user_stack")));
	note = json_member_str(ev, "user_stack_note");
	ASSERT_TRUE(note != NULL);
	EXPECT_TRUE(strstr(note, "cannot load libdw.so.1") &&
		    strstr(note, "install"))
		TH_LOG("user stack note: %s", note);
	all_json_parses(_metadata, self->d);
}

static void become_nobody(void)
{
	int cap;

	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		_exit(126);
}

/* As the shipped starvd.service: perf_event_open() fails with EPERM. */
static void deny_perf_event_open(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(f), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		_exit(126);
}

/*
 * Two captures of the fixture's busy loop by the capture code starvd
 * runs, in a child that calls @setup first; the stacks in @got.
 */
static void capture_twice(struct __test_metadata *_metadata,
			  FIXTURE_DATA(starve) *self, void (*setup)(void),
			  struct holder_stack got[2])
{
	struct starvd_task h = { .tid = self->hog, .tgid = self->hog,
				 .cpu = self->cpu, .comm = "stv-hog" };
	struct starvd_task v = { .tid = self->v.st->tid, .comm = "stv-victim" };
	int pipefd[2], status, i;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct stacks *s;

		setup();
		s = stacks_open(true);
		if (!s || stacks_start(s))
			_exit(1);
		for (i = 0; i < 2; i++) {
			struct pollfd p = { .fd = stacks_poll_fd(s),
					    .events = POLLIN };
			struct holder_stack *hs;

			if (!stacks_request(s, &h, &v))
				_exit(2);
			while (!(hs = stacks_take(s)))
				poll(&p, 1, 1000);
			if (write(pipefd[1], hs, sizeof(*hs)) != sizeof(*hs))
				_exit(3);
			free(hs);
		}
		stacks_close(s);
		_exit(0);
	}
	close(pipefd[1]);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(sizeof(got[i]), read(pipefd[0], &got[i],
					       sizeof(got[i])));
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	/* No frame; why, in each stack; said once, for the log. */
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, got[i].nr_kernel + got[i].nr_user);
		EXPECT_TRUE(strstr(got[i].kernel_note,
				   "not sampled: perf_event_open") != NULL)
			TH_LOG("kernel note: %s", got[i].kernel_note);
	}
	EXPECT_STREQ("", got[1].once_note);
}

/*
 * Without CAP_PERFMON (as a user who may not sample the holder): the
 * capture says, once, that CAP_PERFMON is what it needs. The daemon
 * itself needs CAP_PERFMON for the BPF backend anyway.
 */
TEST_F(starve, without_perfmon_says_why_once)
{
	struct holder_stack got[2];

	capture_twice(_metadata, self, become_nobody, got);
	EXPECT_TRUE(strstr(got[0].once_note, "needs CAP_PERFMON") != NULL)
		TH_LOG("said: %s", got[0].once_note);
}

/*
 * With CAP_PERFMON but perf_event_open() filtered out (seccomp, as by
 * the shipped unit's SystemCallFilter=): says so, not that a capability
 * is missing.
 */
TEST_F(starve, filtered_perf_event_open_says_so)
{
	struct holder_stack got[2];

	capture_twice(_metadata, self, deny_perf_event_open, got);
	EXPECT_TRUE(strstr(got[0].once_note, "although starvd holds what it asks for") &&
		    strstr(got[0].once_note, "\"The systemd unit\""))
		TH_LOG("said: %s", got[0].once_note);
}

/* The event of @line, its task, and the holder it names: a diagnosis. */
static void log_holder_of(struct __test_metadata *_metadata, const char *line)
{
	const char *h = strstr(line, "\"holder\":{");
	char ev[32], comm[32], hcomm[32] = "";

	json_str(line, "event", ev, sizeof(ev));
	json_str(line, "comm", comm, sizeof(comm));
	if (h)
		json_str(h, "comm", hcomm, sizeof(hcomm));
	TH_LOG("%s %s/%lld at %lld holder %s/%lld", ev, comm,
	       (long long)json_int(line, "tid"),
	       (long long)json_int(line, "time_ns"), hcomm,
	       h ? (long long)json_int(h, "tid") : 0LL);
}

/*
 * One capture an episode: two victims starve behind the holder (and, on
 * kernels without the fair server or with PREEMPT_RT, kernel threads of
 * the CPU), each reported, and with -l again every threshold; the holder
 * is sampled once.
 */
TEST_F(starve, one_capture_an_episode)
{
	struct victim_spec spec = {
		.proc_name = "stv-proc2",
		.thread_name = "stv-victim2",
		.cpu = self->cpu,
		.attr = fifo_attr(VICTIM_PRIO),
		.sleep_ns = 5 * NSEC_PER_MSEC,
	};
	struct victim v2;
	int i, n = 0;

	add_victim(_metadata, self, &spec, &v2);
	holder_stack_of(_metadata, self, test_path("spin_stack-fp"), "user",
			"--stacks", NULL);
	/* Each victim reported three more times, a threshold apart. */
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, daemon_wait_event(self->d, "starving",
					       self->v.st->tid, EVENT_MS,
					       line, sizeof(line)));
		EXPECT_EQ(0, daemon_wait_event(self->d, "starving",
					       v2.st->tid, EVENT_MS, line,
					       sizeof(line)));
	}
	self->d->out_pos = 0;
	while (!daemon_wait_event(self->d, "holder_stack", self->hog, 0, line,
				  sizeof(line)))
		n++;
	EXPECT_EQ(1, n) TH_LOG("%d holder_stack events for one holder", n);
	if (n != 1) {
		/* Which holders each report named, in the order seen. */
		self->d->out_pos = 0;
		while (!daemon_wait_event(self->d, NULL, 0, 0, line,
					  sizeof(line)))
			log_holder_of(_metadata, line);
	}
	victim_stop(&v2);
}

/*
 * A holder preempted at a read by a task of higher priority (an IRQ
 * thread on PREEMPT_RT, FIFO 50, runs in front of a FIFO 49 loop) is
 * not sampled again when it has the CPU back: the episode lasts while
 * tasks starve there, and each of its holders is sampled once.
 */
TEST_F(starve, a_holder_back_after_a_preemption_is_not_sampled_again)
{
	bool behind = false;
	const char *h;
	pid_t above;
	int i, n = 0;

	holder_stack_of(_metadata, self, test_path("spin_stack-fp"), "user",
			"--stacks", NULL);
	/* Until a read has seen it hold the CPU: its stack is taken. */
	above = hog_start(self->cpu, HOG_PRIO + 11, 60);
	ASSERT_LT(0, above);
	EXPECT_EQ(0, daemon_wait_event(self->d, "holder_stack", above,
				       EVENT_MS, line, sizeof(line)))
		TH_LOG("no holder_stack event for the loop above the holder");
	kill_and_reap(above);
	/* Reported behind the holder again (a read after the kill). */
	for (i = 0; i < 8 && !behind; i++) {
		if (daemon_wait_event(self->d, "starving", self->v.st->tid,
				      EVENT_MS, line, sizeof(line)))
			break;
		h = strstr(line, "\"holder\":{");
		behind = h && json_int(h, "tid") == self->hog;
	}
	EXPECT_TRUE(behind) TH_LOG("never reported behind the holder again");
	/* And once more: a capture that report asked for is out by then. */
	EXPECT_EQ(0, daemon_wait_event(self->d, "starving", self->v.st->tid,
				       EVENT_MS, line, sizeof(line)));
	self->d->out_pos = 0;
	while (!daemon_wait_event(self->d, "holder_stack", self->hog, 0, line,
				  sizeof(line)))
		n++;
	EXPECT_EQ(1, n) TH_LOG("%d holder_stack events for the holder", n);
}

/*
 * PREEMPT_RT: -v alone takes no stacks, and says why: with them, closing
 * the perf events would wait for the starved rcuc/N, and starvd could
 * not exit while the busy loop runs. It exits at once here.
 */
TEST_F(starve, verbose_alone_exits_during_starvation_on_preempt_rt)
{
	const char *const args[] = { "-t", "0.5", "-l", "-v", NULL };

	if (!kernel_preempt_rt())
		SKIP(return, "not PREEMPT_RT: closing a perf event waits for no grace period here, -v takes stacks");
	ASSERT_EQ(0, daemon_start(self->d, args));
	ASSERT_EQ(0, daemon_wait_event(self->d, "starving", self->v.st->tid,
				       EVENT_MS, line, sizeof(line)));
	EXPECT_TRUE(strstr(self->d->err,
			   "-v: holder stacks are not taken on PREEMPT_RT") != NULL)
		TH_LOG("stderr:\n%s", self->d->err);
	/* The busy loop still runs: nothing may wait for it to end. */
	EXPECT_EQ(0, daemon_stop(self->d, SIGTERM, EVENT_MS));
}

/*
 * -v: the report line as it was, then the stack as lines; starvctl
 * stacks shows it afterwards.
 */
TEST_F(starve, verbose_text_and_starvctl)
{
	const char *bin = test_path("spin_stack-fp");
	char want[160], out[16384];
	const char *report, *header, *frame, *end;
	char *line;
	char tail[128], on_cpu[64];
	uint64_t t0;
	int ret;

	/* -v alone takes them, except on PREEMPT_RT (below). */
	holder_stack_of(_metadata, self, bin, "user", "-v",
			kernel_preempt_rt() ? "--stacks" : NULL);
	NEED_USER_FRAMES();
	snprintf(want, sizeof(want), "holder stack on CPU %d: ", self->cpu);
	ASSERT_TRUE(daemon_wait_output(self->d, "  user: starvd_spin_inner+",
				       EVENT_MS))
		TH_LOG("stderr:\n%s", self->d->err);
	/* Not another CPU's: a busy machine has waits on CPU 0 too. */
	snprintf(on_cpu, sizeof(on_cpu), " starved on CPU %d for ", self->cpu);
	report = strstr(self->d->err, on_cpu);
	header = strstr(self->d->err, want);
	frame = strstr(self->d->err, "  user: starvd_spin_inner+");
	ASSERT_TRUE(report && header && frame);
	EXPECT_TRUE(report < header && header < frame);
	/*
	 * The stalld-compatible line is as it is without stacks: the holder
	 * (whose name, spin_stack-fp, says "stack" itself), then what the
	 * task serves and its cgroups, and no frame of the holder's.
	 */
	snprintf(tail, sizeof(tail), "behind spin_stack-fp-%d, SCHED_FIFO %d) [log only]",
		 (int)self->hog, HOG_PRIO);
	end = strchrnul(report, '\n');
	line = strndup(report, end - report);
	ASSERT_TRUE(line != NULL);
	EXPECT_TRUE(strstr(line, tail) && !strstr(line, "kernel: ") &&
		    !strstr(line, "user: "))
		TH_LOG("the report line is not \"...%s\" without frames: %s",
		       tail, line);
	free(line);
	/*
	 * starvd writes the file after its log lines; the run directory may
	 * hold an earlier test's: wait for this holder's, as for an event.
	 * (Behind whichever task starved first: the victim, or a kernel
	 * thread of the CPU.)
	 */
	snprintf(want, sizeof(want), "holder stack on CPU %d: spin_stack-fp-%d, ",
		 self->cpu, (int)self->hog);
	for (t0 = now_ns();; usleep(50000)) {
		ret = starvctl_stacks(self->d->run_dir, self->cpu, out,
				      sizeof(out));
		if ((!ret && strstr(out, want)) ||
		    now_ns() - t0 > EVENT_MS * NSEC_PER_MSEC)
			break;
	}
	EXPECT_EQ(0, ret);
	EXPECT_TRUE(strstr(out, want) &&
		    strstr(out, "  user: starvd_spin_inner+"))
		TH_LOG("starvctl stacks: %s", out);
}

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel frames' names (user/ksym.c): the table read once names an
 * address as a pass over /proc/kallsyms would (the closest text symbol at
 * or below, the last of its aliases, its size up to the next one), is
 * read again when /proc/modules changes and only then, and leaves to a
 * pass over the file what was made after it (BPF programs, trampolines),
 * and leaves no copy of itself in locked memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "daemon.h"
#include "ksym.h"

/* A file of @text in memory; the caller writes it again with put(). */
static int file_of(const char *text)
{
	int fd = memfd_create("ksym", MFD_CLOEXEC);

	if (fd >= 0 && (write(fd, text, strlen(text)) != (ssize_t)strlen(text)))
		return -1;
	return fd;
}

static int put(int fd, const char *text)
{
	if (ftruncate(fd, 0) ||
	    pwrite(fd, text, strlen(text), 0) != (ssize_t)strlen(text))
		return -1;
	return 0;
}

#define KALLSYMS \
	"ffffffff81000000 T _stext\n" \
	"ffffffff81000100 T start_kernel\n" \
	"ffffffff81000100 t alias_read_last\n" \
	"ffffffff81000180 D not_text\n" \
	"ffffffff81000200 T do_syscall_64\n" \
	"ffffffff81000300 T _etext\n" \
	"ffffffffc0000000 t foo_init\t[foo]\n" \
	"ffffffffc0000080 t foo_poll\t[foo]\n" \
	"ffffffffc0000100 t foo_last\t[foo]\n" \
	"ffffffffc0001000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n"
#define MODULES "foo 16384 0 - Live 0xffffffffc0000000\n"

FIXTURE(fake) {
	int kallsyms, modules;
	struct ksyms *k;
};

FIXTURE_SETUP(fake)
{
	self->kallsyms = file_of(KALLSYMS);
	self->modules = file_of(MODULES);
	ASSERT_LE(0, self->kallsyms);
	ASSERT_LE(0, self->modules);
	self->k = ksyms_open(dup(self->kallsyms), dup(self->modules));
	ASSERT_NE(NULL, self->k);
}

FIXTURE_TEARDOWN(fake)
{
	ksyms_close(self->k);
	close(self->kallsyms);
	close(self->modules);
}

/* @addr named by @k: its name and module, "name+0xoff/0xsize [mod]". */
static const char *named(struct ksyms *k, uint64_t addr)
{
	static char buf[256];
	struct ksym w = { .addr = addr };
	int ret = ksyms_name(k, &w, 1, NULL);

	if (ret)
		snprintf(buf, sizeof(buf), "error %d", ret);
	else
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64 "/0x%" PRIx64 " [%s]",
			 w.name, addr - w.start, w.size, w.module);
	return buf;
}

TEST_F(fake, names_as_a_pass_would)
{
	/* Aliases: the last one read. Data symbols are not functions. */
	EXPECT_STREQ("alias_read_last+0x0/0x100 []",
		     named(self->k, 0xffffffff81000100));
	EXPECT_STREQ("alias_read_last+0x90/0x100 []",
		     named(self->k, 0xffffffff81000190));
	EXPECT_STREQ("do_syscall_64+0x10/0x100 []",
		     named(self->k, 0xffffffff81000210));
	EXPECT_STREQ("foo_poll+0x8/0x80 [foo]",
		     named(self->k, 0xffffffffc0000088));
	/* A module's last function: its end is the next symbol's start. */
	EXPECT_STREQ("foo_last+0x10/0xf00 [foo]",
		     named(self->k, 0xffffffffc0000110));
	/* The last symbol of all has no known size. */
	EXPECT_STREQ("bpf_prog_6deef7357e7b4530_x+0x4/0x0 [bpf]",
		     named(self->k, 0xffffffffc0001004));
	/* Below every symbol: no name. */
	EXPECT_STREQ("+0x1000/0x0 []", named(self->k, 0x1000));
}

TEST_F(fake, code_made_after_the_table_is_named)
{
	EXPECT_STREQ("foo_poll+0x0/0x80 [foo]",
		     named(self->k, 0xffffffffc0000080));
	/* A BPF program loaded since: in no module, in no table. */
	ASSERT_EQ(0, put(self->kallsyms, KALLSYMS
		  "ffffffffc0002000 t bpf_prog_0123456789abcdef_new\t[bpf]\n"
		  "ffffffffc0002100 t bpf_prog_0123456789abcdef_next\t[bpf]\n"));
	EXPECT_STREQ("bpf_prog_0123456789abcdef_new+0x10/0x100 [bpf]",
		     named(self->k, 0xffffffffc0002010));
}

TEST_F(fake, read_again_only_when_the_modules_change)
{
	static const char renamed[] = KALLSYMS
		"ffffffff81000200 T renamed\n";

	EXPECT_STREQ("do_syscall_64+0x0/0x100 []",
		     named(self->k, 0xffffffff81000200));
	/* The kernel's text does not change: the table is not read again. */
	ASSERT_EQ(0, put(self->kallsyms, renamed));
	EXPECT_STREQ("do_syscall_64+0x0/0x100 []",
		     named(self->k, 0xffffffff81000200));
	/* A module's use count is no change of its symbols. */
	ASSERT_EQ(0, put(self->modules,
			 "foo 16384 3 bar, Live 0xffffffffc0000000\n"));
	EXPECT_STREQ("do_syscall_64+0x0/0x100 []",
		     named(self->k, 0xffffffff81000200));
	/* A module unloaded and loaded again elsewhere: read again. */
	ASSERT_EQ(0, put(self->modules,
			 "foo 16384 0 - Live 0xffffffffc0004000\n"));
	EXPECT_STREQ("renamed+0x0/0x100 []",
		     named(self->k, 0xffffffff81000200));
}

TEST_F(fake, an_unloaded_module_is_not_named_from_the_table)
{
	EXPECT_STREQ("foo_poll+0x0/0x80 [foo]",
		     named(self->k, 0xffffffffc0000080));
	ASSERT_EQ(0, put(self->modules, ""));
	ASSERT_EQ(0, put(self->kallsyms,
			 "ffffffff81000000 T _stext\n"
			 "ffffffff81000300 T _etext\n"));
	EXPECT_STREQ("_etext+0x3efffd80/0x0 []",
		     named(self->k, 0xffffffffc0000080));
}

TEST(hidden_addresses_say_so)
{
	struct ksyms *k = ksyms_open(file_of("0000000000000000 T _stext\n"
					     "0000000000000000 T start_kernel\n"),
				     -1);
	struct ksym w = { .addr = 0xffffffff81000100 };

	ASSERT_NE(NULL, k);
	EXPECT_EQ(-ENODATA, ksyms_name(k, &w, 1, NULL));
	EXPECT_STREQ("", w.name);
	/* Once hidden, for good: the opener's view does not change. */
	EXPECT_EQ(-ENODATA, ksyms_name(k, &w, 1, NULL));
	EXPECT_EQ(0, ksyms_bytes(k));
	ksyms_close(k);
}

/*
 * Without a table (here /proc/modules cannot be read) every address is
 * still named, by a pass over the file, and the table's error is kept for
 * starvd to say what each stack costs.
 */
TEST(no_table_names_by_a_pass_and_says_why)
{
	struct ksyms *k = ksyms_open(file_of(KALLSYMS),
				     open("/", O_RDONLY | O_DIRECTORY));
	struct ksym w = { .addr = 0xffffffffc0000088 };

	ASSERT_NE(NULL, k);
	EXPECT_EQ(0, ksyms_name(k, &w, 1, NULL));
	EXPECT_STREQ("foo_poll", w.name);
	EXPECT_STREQ("foo", w.module);
	EXPECT_EQ(-EISDIR, ksyms_table_error(k));
	EXPECT_EQ(0, ksyms_bytes(k));
	ksyms_close(k);
}

TEST(not_opened_says_so)
{
	struct ksyms *k = ksyms_open(-1, -1);
	struct ksym w = { .addr = 0xffffffff81000100 };

	ASSERT_NE(NULL, k);
	EXPECT_EQ(-EBADF, ksyms_name(k, &w, 1, NULL));
	EXPECT_STREQ("", w.name);
	ksyms_close(k);
}

/* --- memory --- */

/* This process's VmRSS, in KiB; -1 if not found. */
static long rss_kb(void)
{
	char l[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && kb < 0 && fgets(l, sizeof(l), f))
		if (!strncmp(l, "VmRSS:", 6))
			kb = atol(l + 6);
	if (f)
		fclose(f);
	return kb;
}

/*
 * Locked as starvd locks its memory (lock_memory()), and after a block
 * of megabytes was freed (in starvd, libbpf's copy of the kernel's BTF),
 * reading a table of 100,000 symbols leaves nothing of its making
 * resident: while it is held the process grows by the table, not by the
 * copies it grew from or by qsort()'s buffer, and once it is freed the
 * process is back to what it was, give or take a few small blocks.
 */
TEST(table_leaves_no_copies_in_locked_memory)
{
	const long slack_kb = 256;
	const int nr = 100000;
	struct ksym w = { .addr = 0xffffffff81000004 };
	long before, held, after, table_kb;
	size_t len = 0;
	struct ksyms *k;
	char *text;
	int i, ret;

	/* Locked beyond RLIMIT_MEMLOCK, a malloc() would fail instead. */
	if (geteuid())
		SKIP(return, "locks memory: run as root");
	text = malloc(nr * 40);
	ASSERT_NE(NULL, text);
	/* Out of order: the table is sorted by address. */
	for (i = 0; i < nr; i++)
		len += sprintf(text + len, "%016llx T symbol_%06d\n",
			       0xffffffff81000000ULL +
			       16ULL * ((i * 7919ULL) % nr), i);
	k = ksyms_open(file_of(text), -1);
	free(text);
	ASSERT_NE(NULL, k);
	ret = lock_memory();
	if (ret)
		SKIP(return, "cannot lock memory: %s (needs CAP_IPC_LOCK)",
		     strerror(-ret));
	text = malloc(8 << 20);
	ASSERT_NE(NULL, text);
	memset(text, 1, 8 << 20);
	free(text);
	before = rss_kb();
	ASSERT_EQ(0, ksyms_name(k, &w, 1, NULL));
	EXPECT_STREQ("symbol_000000", w.name);
	table_kb = ksyms_bytes(k) / 1024;
	held = rss_kb();
	ksyms_close(k);
	after = rss_kb();
	ASSERT_LT(0, before);
	EXPECT_GE(table_kb + slack_kb, held - before)
		TH_LOG("the table is %ld KiB, the process grew by %ld KiB",
		       table_kb, held - before);
	EXPECT_GE(slack_kb, after - before)
		TH_LOG("%ld KiB left resident once the table is freed",
		       after - before);
}

/* --- the running kernel --- */

struct sym {
	uint64_t addr;
	char name[128];
};

/* The text symbols of /proc/kallsyms in file order; 0 if hidden. */
static size_t read_text(struct sym **out)
{
	char line[512], type, name[128];
	struct sym *v = NULL;
	size_t n = 0, cap = 0;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 ||
		    (type != 't' && type != 'T') || !a)
			continue;
		if (n == cap) {
			struct sym *p = realloc(v, (cap + 65536) * sizeof(*v));

			if (!p)
				break;
			v = p;
			cap += 65536;
		}
		v[n].addr = a;
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	if (f)
		fclose(f);
	*out = v;
	return n;
}

/*
 * What the table and the passes give for addresses across the whole
 * running kernel is what a plain pass gives: the test's own, written
 * from the rule and not from ksym.c.
 */
TEST(the_running_kernel_named_as_a_plain_pass_would)
{
	struct ksym w[32];
	struct sym *v;
	size_t n = read_text(&v), i, j;
	struct ksyms *k;

	if (!n) {
		free(v);
		SKIP(return, "/proc/kallsyms shows no addresses here");
	}
	k = ksyms_open(open("/proc/kallsyms", O_RDONLY | O_CLOEXEC),
		       open("/proc/modules", O_RDONLY | O_CLOEXEC));
	ASSERT_NE(NULL, k);
	for (i = 0; i < 32; i++) {
		/* Spread over the file; inside each function, not at it. */
		w[i].addr = v[(n - 1) * i / 31].addr + (i % 2);
	}
	ASSERT_EQ(0, ksyms_name(k, w, 32, NULL));
	TH_LOG("%zu text symbols, the table holds %zu bytes", n,
	       ksyms_bytes(k));
	EXPECT_LT(0, ksyms_bytes(k));
	for (i = 0; i < 32; i++) {
		uint64_t best = 0, next = UINT64_MAX;
		const char *name = "";

		for (j = 0; j < n; j++) {
			if (v[j].addr <= w[i].addr && v[j].addr >= best) {
				best = v[j].addr;
				name = v[j].name;
			} else if (v[j].addr > w[i].addr && v[j].addr < next) {
				next = v[j].addr;
			}
		}
		EXPECT_STREQ(name, w[i].name);
		EXPECT_EQ(best, w[i].start);
		EXPECT_EQ(next == UINT64_MAX ? 0 : next - best, w[i].size);
	}
	ksyms_close(k);
	free(v);
}

TEST_HARNESS_MAIN

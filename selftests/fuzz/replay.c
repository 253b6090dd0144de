// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Regression replay of the fuzz targets, without libFuzzer: each target's
 * entry point runs over its seed corpus (fuzz/corpus/<target>/) and the
 * inputs that once broke it (fuzz/regressions/<target>/), in one process
 * like libFuzzer runs them, built with -fsanitize=address,undefined when
 * the compiler has them. One test per target: it fails if an input
 * crashes, breaks a property (abort) or leaks, or if there is no input.
 * STARVD_FUZZ_DIR is the fuzz/ directory (default: ./fuzz).
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "fuzz.h"

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#define HAVE_SANITIZERS 1
#else
#define HAVE_SANITIZERS 0
#endif

#if HAVE_SANITIZERS
/* Like libFuzzer's -rss_limit_mb: an input that eats memory fails. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "hard_rss_limit_mb=2048";
}
#endif

int fuzz_options(const uint8_t *data, size_t size);
int fuzz_starvctl(const uint8_t *data, size_t size);
int fuzz_cpuset(const uint8_t *data, size_t size);
int fuzz_journal(const uint8_t *data, size_t size);
int fuzz_status_file(const uint8_t *data, size_t size);
int fuzz_json(const uint8_t *data, size_t size);

/* The input being replayed, named if it kills the process. */
static char current[4096];

static void say_current(void)
{
	static const char msg[] = "# replay: the input that failed: ";

	if (!current[0])
		return;
	/* Async-signal-safe: this may run from a signal handler. */
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0 ||
	    write(STDERR_FILENO, current, strlen(current)) < 0 ||
	    write(STDERR_FILENO, "\n", 1) < 0)
		return;
}

static void on_abort(int sig)
{
	say_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* KTAP lines and sanitizer reports in the order they happen. */
static void __attribute__((constructor)) line_buffered(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static uint8_t *read_input(const char *path, size_t *size)
{
	struct stat st;
	uint8_t *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	/* Exactly st_size bytes, so that overreads are caught. */
	buf = malloc(st.st_size ? st.st_size : 1);
	n = buf ? read(fd, buf, st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		free(buf);
		return NULL;
	}
	*size = n;
	return buf;
}

/*
 * Run @fn over every file of @dir (none: 0), with stdout (--help) sent to
 * /dev/null so that the KTAP output stays clean. Returns the number of
 * inputs or -1 if one could not be read.
 */
static int replay_dir(struct __test_metadata *_metadata, const char *dir,
		      int (*fn)(const uint8_t *, size_t))
{
	struct dirent **names;
	int i, n, count = 0, out, null;

	n = scandir(dir, &names, NULL, by_name);
	if (n < 0)
		return 0;
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	out = dup(STDOUT_FILENO);
	for (i = 0; i < n; i++) {
		uint8_t *data;
		size_t size;

		if (names[i]->d_name[0] == '.' ||
		    !strcmp(names[i]->d_name, "README")) {
			free(names[i]);
			continue;
		}
		snprintf(current, sizeof(current), "%s/%s", dir,
			 names[i]->d_name);
		free(names[i]);
		data = read_input(current, &size);
		if (!data) {
			TH_LOG("cannot read %s", current);
			count = -1;
			continue;
		}
		fflush(stdout);
		dup2(null, STDOUT_FILENO);
		fn(data, size);
		fflush(stdout);
		dup2(out, STDOUT_FILENO);
		free(data);
		if (count >= 0)
			count++;
	}
	current[0] = '\0';
	free(names);
	close(out);
	close(null);
	return count;
}

static void replay(struct __test_metadata *_metadata, const char *target,
		   int (*fn)(const uint8_t *, size_t))
{
	const char *top = getenv("STARVD_FUZZ_DIR");
	char dir[4096];
	int seeds, regressions;

	if (!top)
		top = "fuzz";
	signal(SIGABRT, on_abort);
#if HAVE_SANITIZERS
	__sanitizer_set_death_callback(say_current);
#endif
	snprintf(dir, sizeof(dir), "%s/corpus/%s", top, target);
	seeds = replay_dir(_metadata, dir, fn);
	snprintf(dir, sizeof(dir), "%s/regressions/%s", top, target);
	regressions = replay_dir(_metadata, dir, fn);
	ASSERT_LT(0, seeds) TH_LOG("no readable seed in %s/corpus/%s", top,
				   target);
	ASSERT_LE(0, regressions);
#if HAVE_SANITIZERS
	ASSERT_EQ(0, __lsan_do_recoverable_leak_check())
		TH_LOG("%s leaked memory (report above)", target);
#endif
	TH_LOG("%s: %d seeds, %d regressions replayed%s", target, seeds,
	       regressions, HAVE_SANITIZERS ? " under ASan/UBSan" : "");
}

#define REPLAY(target)						\
	TEST(target) { replay(_metadata, #target, fuzz_##target); }

REPLAY(options)
REPLAY(starvctl)
REPLAY(cpuset)
REPLAY(journal)
REPLAY(status_file)
REPLAY(json)

TEST_HARNESS_MAIN

// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The daemon's state file (<run-dir>/state, read by starvctl status and
 * metrics): the input is the file's content. An accepted state is
 * consistent, prints as metrics, and status_file_free() releases it; a
 * rejected one leaves nothing allocated.
 */
#include "cpuset.h"
#include "fuzz.h"
#include "metrics.h"
#include "status_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_input in = { .backend = "fuzz" };
	struct daemon_status s;
	char *buf = fuzz_string(data, size), *text = NULL;
	size_t len = 0;
	FILE *f;

	if (status_file_parse(buf, &s)) {
		FUZZ_CHECK(!s.cpu && !s.boosting);
		free(buf);
		return 0;
	}
	free(buf);
	FUZZ_CHECK(s.pid > 0);
	/* No more than starvd has: the per-CPU loops took ages. */
	FUZZ_CHECK(s.nr_cpus > 0 && s.nr_cpus <= STARVD_MAX_CPUS && s.cpu);
	FUZZ_CHECK(!s.nr_boosting == !s.boosting);
	FUZZ_CHECK(memchr(s.version, '\0', sizeof(s.version)));
	FUZZ_CHECK(memchr(s.backend, '\0', sizeof(s.backend)) && s.backend[0]);
	FUZZ_CHECK(memchr(s.cpus, '\0', sizeof(s.cpus)));
	FUZZ_CHECK(memchr(s.boost_mode, '\0', sizeof(s.boost_mode)));
	in.daemon = &s;
	f = open_memstream(&text, &len);
	FUZZ_CHECK(f);
	metrics_print(f, &in);
	FUZZ_CHECK(!fclose(f));
	free(text);
	status_file_free(&s);
	FUZZ_CHECK(!s.cpu && !s.boosting && !s.nr_cpus && !s.nr_boosting);
	return 0;
}

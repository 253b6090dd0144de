// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Boost journal entries (<run-dir>/boosts/<tid>, possibly corrupt after a
 * crash): the input is the file's content, cut like journal_load() cuts
 * it. Only what journal_format() writes is accepted, but for the comm (an
 * older starvd's raw one, or cut to 15 bytes): an accepted entry formats
 * into journal_add()'s buffer as the input's own text up to the comm, as
 * printable ASCII, and parses back to the same entry.
 */
#include "fuzz.h"
#include "journal.h"

#define ENTRY_MAX 511	/* what journal_load() reads */

static void check_same(const struct journal_entry *a,
		       const struct journal_entry *b)
{
	FUZZ_CHECK(a->tid == b->tid);
	FUZZ_CHECK(a->start_time == b->start_time);
	FUZZ_CHECK(!strcmp(a->comm, b->comm));
	FUZZ_CHECK(!memcmp(&a->saved, &b->saved, sizeof(a->saved)));
	FUZZ_CHECK(!memcmp(&a->applied, &b->applied, sizeof(a->applied)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_entry e, back;
	char *buf, out[512], *comm;
	int n;

	buf = fuzz_string(data, size < ENTRY_MAX ? size : ENTRY_MAX);
	if (journal_parse(buf, &e)) {
		free(buf);
		return 0;
	}
	n = journal_format(&e, out, sizeof(out));
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof(out));
	comm = strstr(out, "\ncomm ");
	FUZZ_CHECK(comm && !strncmp(out, buf, comm + 6 - out));
	for (; *comm; comm++)
		FUZZ_CHECK(*comm == '\n' || (*comm >= 0x20 && *comm <= 0x7e));
	free(buf);
	FUZZ_CHECK(e.tid > 0);
	FUZZ_CHECK(e.saved.sched_nice >= -20 && e.saved.sched_nice <= 19);
	FUZZ_CHECK(e.saved.sched_priority <= 99);
	FUZZ_CHECK(e.applied.sched_nice >= -20 && e.applied.sched_nice <= 19);
	FUZZ_CHECK(e.applied.sched_priority <= 99);
	FUZZ_CHECK(memchr(e.comm, '\0', sizeof(e.comm)));
	FUZZ_CHECK(e.saved.size == sizeof(e.saved));
	FUZZ_CHECK(e.applied.size == sizeof(e.applied));
	FUZZ_CHECK(!journal_parse(out, &back));
	check_same(&e, &back);
	return 0;
}

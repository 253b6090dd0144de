// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The episodes starvd keeps for starvctl advise (user/episodes.c): one
 * line per report with its wall-clock time, mode 0600, bounded by one
 * rotation to episodes.old, read back old then new, and only as a
 * run-directory file (run_dir.h): no symbolic link followed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "episodes.h"

FIXTURE(ep) {
	char dir[64];
	struct episodes e;
};

FIXTURE_SETUP(ep)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/starvd-episodes-XXXXXX");
	ASSERT_TRUE(mkdtemp(self->dir) != NULL);
	self->e.fd = -1;
}

FIXTURE_TEARDOWN(ep)
{
	char cmd[128];

	episodes_close(&self->e);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	ASSERT_EQ(0, system(cmd));
}

struct lines {
	int n;
	char first[256], last[256];
};

static int count(const char *line, void *arg)
{
	struct lines *l = arg;

	if (!l->n++)
		snprintf(l->first, sizeof(l->first), "%s", line);
	snprintf(l->last, sizeof(l->last), "%s", line);
	return 0;
}

TEST_F(ep, lines_with_their_time_mode_0600)
{
	struct lines l = { 0 };
	char err[512], path[128];
	struct stat st;

	ASSERT_EQ(0, episodes_open(&self->e, self->dir, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, episodes_add(&self->e, 1796170000, "{\"event\":\"starving\",\"tid\":7}"));
	ASSERT_EQ(0, episodes_add(&self->e, 1796170001, "{\"event\":\"starving\",\"tid\":8}"));
	/* Not an object: refused, nothing written. */
	EXPECT_EQ(-EINVAL, episodes_add(&self->e, 1, "[]"));
	snprintf(path, sizeof(path), "%s/" EPISODES_FILE, self->dir);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0600, st.st_mode & 0777);
	ASSERT_EQ(0, episodes_each(self->dir, count, &l, err, sizeof(err)));
	EXPECT_EQ(2, l.n);
	EXPECT_STREQ("{\"unix_time\":1796170000,\"event\":\"starving\",\"tid\":7}", l.first);
	EXPECT_STREQ("{\"unix_time\":1796170001,\"event\":\"starving\",\"tid\":8}", l.last);
}

/* Past the bound: one generation kept, read before the new file. */
TEST_F(ep, bounded_by_one_rotation)
{
	char err[512], json[1100], old[128];
	struct lines l = { 0 };
	struct stat st;
	int i, n = EPISODES_MAX_BYTES / 1000 * 3;

	memset(json, 'x', sizeof(json));
	ASSERT_EQ(0, episodes_open(&self->e, self->dir, err, sizeof(err)));
	for (i = 0; i < n; i++) {
		snprintf(json, sizeof(json), "{\"event\":\"starving\",\"tid\":%d,\"pad\":\"%0900d\"}",
			 i, 0);
		ASSERT_EQ(0, episodes_add(&self->e, i, json));
	}
	snprintf(old, sizeof(old), "%s/" EPISODES_OLD, self->dir);
	ASSERT_EQ(0, stat(old, &st));
	EXPECT_GE(EPISODES_MAX_BYTES + 1100, st.st_size);
	ASSERT_EQ(0, episodes_each(self->dir, count, &l, err, sizeof(err)));
	EXPECT_GT(n, l.n);
	EXPECT_LE(EPISODES_MAX_BYTES / 1000, l.n);
	/* The latest last, and the oldest kept are later ones. */
	EXPECT_TRUE(strstr(l.last, "\"unix_time\":") != NULL);
	EXPECT_NE(0, strncmp(l.first, "{\"unix_time\":0,", 15));
}

/* A symbolic link in the episodes' place is refused, never followed. */
TEST_F(ep, a_link_is_refused)
{
	char err[512], path[128], decoy[128];
	struct lines l = { 0 };
	struct stat st;
	FILE *f;

	/* What the link points at: a file of the test's, never written. */
	snprintf(decoy, sizeof(decoy), "%s/decoy", self->dir);
	f = fopen(decoy, "w");
	ASSERT_TRUE(f != NULL);
	fputs("{\"unix_time\":1,\"event\":\"starving\"}\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/" EPISODES_FILE, self->dir);
	ASSERT_EQ(0, symlink(decoy, path));
	EXPECT_GT(0, episodes_open(&self->e, self->dir, err, sizeof(err)));
	EXPECT_EQ(-1, self->e.fd);
	EXPECT_GT(0, episodes_each(self->dir, count, &l, err, sizeof(err)));
	EXPECT_EQ(0, l.n);
	ASSERT_EQ(0, stat(decoy, &st));
	EXPECT_EQ(35, st.st_size);
}

/* No run directory, or none kept yet: no line, no error. */
TEST_F(ep, nothing_kept_yet)
{
	char err[512], missing[128];
	struct lines l = { 0 };

	snprintf(missing, sizeof(missing), "%s/none", self->dir);
	EXPECT_EQ(0, episodes_each(missing, count, &l, err, sizeof(err)));
	EXPECT_EQ(0, episodes_each(self->dir, count, &l, err, sizeof(err)));
	EXPECT_EQ(0, l.n);
}

TEST_HARNESS_MAIN

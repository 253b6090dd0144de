// SPDX-License-Identifier: GPL-2.0-or-later
/* A task's cgroup and container id (task_cgroup.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "task_cgroup.h"
#include "util.h"

/* Copy the @n bytes at @s into @out (@len bytes), cut to fit. */
static void copy_cut(const char *s, size_t n, char *out, size_t len)
{
	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

bool cgroup_parse(const char *text, char *out, size_t len)
{
	const char *line, *next, *c1, *c2;
	bool found = false;
	size_t n;

	if (!len)
		return false;
	/* Lines "ID:CONTROLLERS:PATH"; a path may hold ':' but no '\n'. */
	for (line = text; *line; line = next) {
		n = strcspn(line, "\n");
		next = line[n] ? line + n + 1 : line + n;
		c1 = memchr(line, ':', n);
		c2 = c1 ? memchr(c1 + 1, ':', line + n - c1 - 1) : NULL;
		if (!c2)
			continue;
		if (c1 - line == 1 && line[0] == '0' && c2 == c1 + 1) {
			copy_cut(c2 + 1, line + n - c2 - 1, out, len);
			return true;	/* the unified hierarchy */
		}
		if (!found && c2 - c1 - 1 == strlen("name=systemd") &&
		    !strncmp(c1 + 1, "name=systemd", c2 - c1 - 1)) {
			copy_cut(c2 + 1, line + n - c2 - 1, out, len);
			found = true;
		}
	}
	return found;
}

/* Are the @n bytes at @s hex digits, and exactly @n of them? */
static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

bool cgroup_container_id(const char *path, char *id)
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-", "",
	};
	const char *end = path + strlen(path), *c, *dot;
	size_t i, n;

	/* From the last component up: a pod's cgroup holds its containers'. */
	while (end > path) {
		c = end;
		while (c > path && c[-1] != '/')
			c--;
		n = end - c;
		dot = memchr(c, '.', n);
		if (dot && n - (dot - c) == strlen(".scope") &&
		    !strncmp(dot, ".scope", strlen(".scope")))
			n = dot - c;
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
			size_t pl = strlen(prefixes[i]);

			if (n == pl + CONTAINER_ID_LEN &&
			    !strncmp(c, prefixes[i], pl) &&
			    all_hex(c + pl, CONTAINER_ID_LEN)) {
				memcpy(id, c + pl, CONTAINER_ID_LEN);
				id[CONTAINER_ID_LEN] = '\0';
				return true;
			}
		}
		end = c > path ? c - 1 : path;
	}
	return false;
}

int task_cgroup_read(pid_t tid, struct task_cgroup *cg)
{
	char proc[64], text[4096], path[CGROUP_PATH_LEN];
	int n;

	cg->path[0] = cg->container[0] = '\0';
	snprintf(proc, sizeof(proc), "/proc/%d/cgroup", (int)tid);
	n = read_file(proc, text, sizeof(text));
	if (n < 0)
		return n;
	if (!cgroup_parse(text, path, sizeof(path)))
		return -ENOENT;
	if (!strcmp(path, "/"))
		return 0;
	if (!cgroup_container_id(path, cg->container))
		cg->container[0] = '\0';
	str_escape(path, cg->path, sizeof(cg->path));
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which workload a task belongs to: its cgroup, read from /proc/TID/cgroup
 * when a report is made (the unified hierarchy's "0::" line, else
 * systemd's named v1 hierarchy), and the container id its path names
 * (Docker, containerd and CRI-O under Kubernetes, Podman: 64 hex digits in
 * a component such as "docker-ID.scope", "cri-containerd-ID.scope",
 * "crio-ID.scope", "libpod-ID.scope" or "/docker/ID"). A cgroup's name is
 * any bytes but '/' and NUL, chosen by whoever may create it (a container,
 * a user with a delegated subtree): the path is kept escaped (escape.h),
 * and a report shows nothing else of it.
 */
#ifndef STARVD_TASK_CGROUP_H
#define STARVD_TASK_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CGROUP_PATH_LEN		1024	/* escaped; longer paths are cut */
#define CONTAINER_ID_LEN	64

struct task_cgroup {
	char path[CGROUP_PATH_LEN];	/* escaped; "" in the root cgroup */
	char container[CONTAINER_ID_LEN + 1];	/* "" if it names none */
};

/*
 * Read @tid's cgroup into @cg: 0, or -errno (the task is gone, /proc
 * says nothing of it); @cg is empty then. Kernel threads and tasks in the
 * root cgroup get an empty path.
 */
int task_cgroup_read(pid_t tid, struct task_cgroup *cg);
/*
 * The cgroup path in the text of /proc/TID/cgroup: the unified
 * hierarchy's, else the "name=systemd" one; unescaped, into @out (@len
 * bytes, cut to fit). Returns false if the text names neither.
 */
bool cgroup_parse(const char *text, char *out, size_t len);
/*
 * The container id a cgroup path names, into @id (CONTAINER_ID_LEN + 1
 * bytes): the last component holding 64 hex digits alone, after "docker/",
 * or between a runtime's prefix and ".scope". Returns false if none.
 */
bool cgroup_container_id(const char *path, char *id);

#endif

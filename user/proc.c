// SPDX-License-Identifier: GPL-2.0-or-later
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "proc.h"
#include "util.h"

const char *stat_field(const char *stat, int n)
{
	const char *p;
	int i;

	/* comm may hold spaces and parentheses: skip past the last ')'. */
	p = strrchr(stat, ')');
	for (i = 2; p && i < n; i++)
		p = strchr(p + 1, ' ');
	return p ? p + 1 : NULL;
}

const char *task_stat_field(pid_t tid, int n, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	/* Whole: a comm may hold newlines, any byte but NUL. */
	if (read_file(path, buf, len) < 0)
		return NULL;
	return stat_field(buf, n);
}

/* starttime; 0 if gone, or, if @live, exited. */
static uint64_t read_start_time(pid_t tid, bool live)
{
	char buf[1024];
	const char *state = task_stat_field(tid, 3, buf, sizeof(buf));
	const char *f = state ? stat_field(buf, 22) : NULL;
	unsigned long long start;

	if (!state || (live && (*state == 'Z' || *state == 'X')))
		return 0;
	return f && sscanf(f, "%llu", &start) == 1 ? start : 0;
}

uint64_t task_start_time(pid_t tid)
{
	return read_start_time(tid, false);
}

uint64_t task_live_start_time(pid_t tid)
{
	return read_start_time(tid, true);
}

bool task_exited(pid_t tid)
{
	char path[64], buf[1024];
	const char *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	ret = read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret == -ENOENT || ret == -ESRCH;
	/*
	 * A line it cannot parse says nothing of an exit: the task is then
	 * treated as alive, and sched_getattr() tells whether it is gone.
	 */
	f = stat_field(buf, 3);
	return f && (*f == 'Z' || *f == 'X');
}

bool task_runnable(pid_t tid)
{
	char buf[1024];
	const char *f = task_stat_field(tid, 3, buf, sizeof(buf));

	return f && *f == 'R';
}

uint64_t task_exec_ns(pid_t tid)
{
	unsigned long long ns;
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	if (read_line(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &ns) != 1)
		return 0;
	return ns;
}

int task_progress(pid_t tid, struct progress_sample *p)
{
	unsigned long long exec, delay, pcount, v;
	char path[64], line[256];
	int found = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/%d/schedstat", tid);
	if (read_line(path, line, sizeof(line)) ||
	    sscanf(line, "%llu %llu %llu", &exec, &delay, &pcount) != 3)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1) {
			p->nvcsw = v;
			found |= 1;
		} else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu",
				  &v) == 1) {
			p->nivcsw = v;
			found |= 2;
		}
	}
	fclose(f);
	if (found != 3)
		return -ESRCH;
	p->exec_ns = exec;
	p->run_delay_ns = delay;
	p->pcount = pcount;
	p->valid = true;
	return 0;
}

void task_comm(pid_t tid, char *buf, size_t len)
{
	char path[64];

	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	if (read_file(path, buf, len) < 0) {
		buf[0] = '\0';
		return;
	}
	/* The kernel's newline only: the name itself may hold some. */
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

int proc_for_each_thread_of(pid_t pid,
			    int (*fn)(pid_t pid, pid_t tid, void *arg),
			    void *arg)
{
	struct dirent *te;
	char path[64];
	DIR *td;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	td = opendir(path);
	if (!td)
		return -errno;
	while (!ret && (te = readdir(td))) {
		pid_t tid = atoi(te->d_name);

		if (tid > 0)
			ret = fn(pid, tid, arg);
	}
	closedir(td);
	return ret;
}

int proc_for_each_thread(int (*fn)(pid_t pid, pid_t tid, void *arg),
			 void *arg)
{
	struct dirent *pe;
	DIR *pd;
	int ret = 0;

	pd = opendir("/proc");
	if (!pd)
		return -errno;
	while (!ret && (pe = readdir(pd))) {
		pid_t pid = atoi(pe->d_name);

		if (pid <= 0)
			continue;
		ret = proc_for_each_thread_of(pid, fn, arg);
		if (ret < 0)
			ret = 0;	/* gone */
	}
	closedir(pd);
	return ret;
}

/*
 * The initial pid namespace's inode number is fixed (PROC_PID_INIT_INO in
 * the kernel's include/linux/proc_ns.h, 0xEFFFFFFC since Linux 3.8); a
 * namespace made later takes one from 0xF0000000 on. systemd tells the
 * initial namespaces the same way. NSpid in /proc/self/status cannot
 * tell: it lists the ids from the namespace of the /proc mount down, a
 * single one under a container's own /proc.
 */
#define PID_NS_INIT_INO 0xEFFFFFFCUL

int proc_in_initial_pid_ns(unsigned long *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*ino = st.st_ino;
	return st.st_ino == PID_NS_INIT_INO;
}

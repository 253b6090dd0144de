// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF fallback where it is needed: on a kernel whose BTF has no
 * sched_info.last_queued (CONFIG_SCHED_INFO off), tracking mode must be
 * chosen by itself, load, and report real waiters. The kernel is played
 * by this one's BTF minus the members of struct sched_info, written to a
 * file and given to the backend with STARVD_BTF_PATH (libbpf's
 * btf_custom_path: CO-RE relocates the programs against it).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kselftest_harness.h"

#include "lib/workload.h"
#include "backend.h"
#include "util.h"

#define VMLINUX_BTF	"/sys/kernel/btf/vmlinux"

/* The members CONFIG_SCHED_INFO adds to struct sched_info. */
static bool dropped(const char *member)
{
	static const char *const names[] = {
		"pcount", "run_delay", "max_run_delay", "min_run_delay",
		"last_arrival", "last_queued",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(member, names[i]))
			return true;
	return false;
}

/*
 * Copy every type of @src in order (so type ids stay the same), struct
 * sched_info without its CONFIG_SCHED_INFO members; returns how many
 * members were dropped, or -errno.
 */
static int copy_without_sched_info(struct btf *dst, const struct btf *src)
{
	int n = btf__type_cnt(src), id, i, ret, nr_dropped = 0;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);
		const char *name = btf__name_by_offset(src, t->name_off);
		const struct btf_member *m = btf_members(t);

		if (!btf_is_struct(t) || strcmp(name, "sched_info")) {
			ret = btf__add_type(dst, src, t);
			if (ret < 0)
				return ret;
			continue;
		}
		ret = btf__add_struct(dst, name, t->size);
		if (ret < 0)
			return ret;
		for (i = 0; i < btf_vlen(t); i++, m++) {
			const char *mname = btf__name_by_offset(src,
								m->name_off);

			if (dropped(mname)) {
				nr_dropped++;
				continue;
			}
			ret = btf__add_field(dst, mname, m->type,
					     btf_member_bit_offset(t, i),
					     btf_member_bitfield_size(t, i));
			if (ret < 0)
				return ret;
		}
	}
	return nr_dropped;
}

/* Write the running kernel's BTF minus sched_info's members to @path. */
static int write_btf_without_sched_info(const char *path)
{
	struct btf *src = btf__parse(VMLINUX_BTF, NULL), *dst;
	const void *raw;
	__u32 size;
	FILE *f;
	int ret;

	if (libbpf_get_error(src))
		return -ENOENT;
	dst = btf__new_empty();
	ret = libbpf_get_error(dst) ? -ENOMEM :
				      copy_without_sched_info(dst, src);
	if (ret > 0) {
		raw = btf__raw_data(dst, &size);
		f = fopen(path, "w");
		if (!raw || !f || fwrite(raw, 1, size, f) != size)
			ret = -EIO;
		if (f && fclose(f))
			ret = -EIO;
	} else if (!ret) {
		ret = -ENOENT;	/* this kernel has no sched_info to remove */
	}
	btf__free(dst);
	btf__free(src);
	return ret;
}

/* Busy for @max_s seconds at most on @cpu, dies with the test. */
static pid_t spin_on(int cpu, int max_s)
{
	pid_t pid = fork();
	cpu_set_t set;
	uint64_t end;

	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	end = now_ns() + (uint64_t)max_s * NSEC_PER_SEC;
	while (now_ns() < end)
		;
	_exit(0);
}

FIXTURE(no_sched_info) {
	char btf_path[64];
	struct backend b;
	bool opened;
};

FIXTURE_SETUP(no_sched_info)
{
	int fd, ret;

	if (access(VMLINUX_BTF, R_OK))
		SKIP(return, "no %s: this kernel has no BTF", VMLINUX_BTF);
	strcpy(self->btf_path, "/tmp/starvd-btf-XXXXXX");
	fd = mkstemp(self->btf_path);
	ASSERT_LE(0, fd);
	close(fd);
	ret = write_btf_without_sched_info(self->btf_path);
	ASSERT_LT(0, ret) TH_LOG("writing the BTF without sched_info: %s",
				 strerror(-ret));
	TH_LOG("%s: the kernel's BTF minus %d members of struct sched_info",
	       self->btf_path, ret);
	ASSERT_EQ(0, setenv("STARVD_BTF_PATH", self->btf_path, 1));
}

FIXTURE_TEARDOWN(no_sched_info)
{
	if (self->opened)
		backend_close(&self->b);
	unsetenv("STARVD_BTF_PATH");
	unlink(self->btf_path);
}

/* -b bpf, --bpf-mode auto: tracking mode, loaded, reads real waiters. */
TEST_F_TIMEOUT(no_sched_info, auto_mode_loads_tracking_and_reads, 30)
{
	int cpu = test_cpu(), i, found = 0;
	struct task_list l = {};
	char err[512] = "";
	pid_t a, b;
	size_t j;

	ASSERT_EQ(0, backend_open(&self->b, BACKEND_BPF, STARVD_MODE_AUTO,
				  err, sizeof(err))) TH_LOG("%s", err);
	self->opened = true;
	EXPECT_STREQ("bpf (tracking mode)", self->b.display_name);

	/* Two busy loops on one CPU: one of them is always queued. */
	a = spin_on(cpu, 10);
	b = spin_on(cpu, 10);
	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	for (i = 0; i < 50 && found < 3; i++) {
		usleep(20000);
		ASSERT_EQ(0, backend_read_tasks(&self->b, NULL, &l));
		for (j = 0; j < l.n; j++) {
			const struct starvd_task *t = &l.v[j];

			/*
			 * On its way to @cpu a spinner can wait elsewhere: on
			 * PREEMPT_RT the migration thread preempts it in its
			 * sched_setaffinity(), queued on the CPU it left.
			 */
			if ((t->tid == (uint32_t)a || t->tid == (uint32_t)b) &&
			    t->state == STARVD_TASK_WAITING && t->cpu == cpu) {
				found++;
				break;
			}
		}
	}
	kill_and_reap(a);
	kill_and_reap(b);
	task_list_free(&l);
	EXPECT_EQ(3, found) TH_LOG("reads that reported a queued busy loop");
}

/* Forcing sched_info mode there says what is wrong and what to do. */
TEST_F(no_sched_info, sched_info_mode_refused_with_a_reason)
{
	char err[512] = "";

	EXPECT_EQ(-ENOTSUP, backend_open(&self->b, BACKEND_BPF,
					 STARVD_MODE_SCHED_INFO, err,
					 sizeof(err)));
	EXPECT_TRUE(NULL != strstr(err, "--bpf-mode tracking")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN

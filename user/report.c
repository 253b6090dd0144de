// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "report.h"
#include "sched_attr.h"
#include "util.h"

void format_holder(const struct starvd_task *h, char *buf, size_t len)
{
	int uprio = prio_to_user(h->policy, h->prio);

	if (h->policy == 1 || h->policy == 2)	/* SCHED_FIFO, SCHED_RR */
		snprintf(buf, len, "%s-%u, %s %d", h->comm, h->tid,
			 policy_name(h->policy), uprio);
	else
		snprintf(buf, len, "%s-%u, %s nice %d", h->comm, h->tid,
			 policy_name(h->policy), uprio);
}

/* The kernel stack of @tid on one line ("a <- b <- c"), if readable. */
static void read_kstack(unsigned int tid, char *buf, size_t len)
{
	char path[64], line[256];
	size_t off = 0;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/stack", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && off + 4 < len) {
		char *sym = strchr(line, ' ');

		sym = sym ? sym + 1 : line;
		sym[strcspn(sym, "\n")] = '\0';
		off += snprintf(buf + off, len - off, "%s%s",
				off ? " <- " : "", sym);
	}
	fclose(f);
}

void report_starving(const struct starvd_task *t, uint64_t read_time_ns,
		     const struct starvd_task *holder, bool log_only,
		     bool kstack)
{
	char behind[96] = "", hjson[256] = "null", stack[512] = "";
	char text[1024], json[1536], comm[64], hcomm[64], sjson[1024];
	unsigned long long secs = t->wait_ns / NSEC_PER_SEC;

	if (holder && holder->tid) {
		format_holder(holder, behind, sizeof(behind));
		json_escape(holder->comm, hcomm, sizeof(hcomm));
		snprintf(hjson, sizeof(hjson),
			 "{\"tid\":%u,\"tgid\":%u,\"comm\":\"%s\",\"policy\":\"%s\",\"priority\":%d}",
			 holder->tid, holder->tgid, hcomm,
			 policy_name(holder->policy),
			 prio_to_user(holder->policy, holder->prio));
	}
	if (kstack)
		read_kstack(t->tid, stack, sizeof(stack));
	snprintf(text, sizeof(text),
		 "%s-%u starved on CPU %d for %llu seconds (waited %.3f s%s%s)%s%s%s",
		 t->comm, t->tid, t->cpu, secs,
		 (double)t->wait_ns / NSEC_PER_SEC,
		 *behind ? ", behind " : "", behind,
		 log_only ? " [log only]" : "",
		 *stack ? " stack: " : "", stack);
	json_escape(t->comm, comm, sizeof(comm));
	json_escape(stack, sjson, sizeof(sjson));
	snprintf(json, sizeof(json),
		 "\"event\":\"starving\",\"time_ns\":%llu,\"read_time_ns\":%llu,\"wait_start_ns\":%llu,\"tid\":%u,\"tgid\":%u,\"comm\":\"%s\",\"cpu\":%d,\"policy\":\"%s\",\"priority\":%d,\"waited_ns\":%llu,\"log_only\":%s,\"holder\":%s%s%s%s",
		 (unsigned long long)now_ns(),
		 (unsigned long long)read_time_ns,
		 (unsigned long long)(read_time_ns - t->wait_ns),
		 t->tid, t->tgid, comm, t->cpu, policy_name(t->policy), prio_to_user(t->policy, t->prio),
		 (unsigned long long)t->wait_ns, log_only ? "true" : "false",
		 hjson, kstack ? ",\"stack\":\"" : "", kstack ? sjson : "",
		 kstack ? "\"" : "");
	log_event(text, json);
}

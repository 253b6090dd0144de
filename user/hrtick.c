// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hrtick.h"
#include "log.h"
#include "util.h"

int sched_feature_on(const char *features, const char *feat)
{
	size_t len = strlen(feat);
	const char *p = features;

	while (*p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == len && !strncmp(p, feat, len))
			return 1;
		if (n == len + 3 && !strncmp(p, "NO_", 3) &&
		    !strncmp(p + 3, feat, len))
			return 0;
		p += n;
	}
	return -1;
}

/* CONFIG_HZ of the running kernel from its config, 0 if unknown. */
static int kernel_hz(void)
{
	char path[320], line[128];
	struct utsname u;
	int hz = 0;
	FILE *f;

	if (uname(&u))
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CONFIG_HZ=%d", &hz) == 1)
			break;
	fclose(f);
	return hz;
}

/* The scheduler features file of the running kernel. */
static const char *features_path(void)
{
	if (access(SCHED_FEATURES_PATH, F_OK) &&
	    !access(SCHED_FEATURES_PATH_OLD, F_OK))
		return SCHED_FEATURES_PATH_OLD;
	return SCHED_FEATURES_PATH;
}

static void say_unavailable(const char *why)
{
	char tick[64] = "one scheduler tick (1 to 10 ms, CONFIG_HZ)";
	int hz = kernel_hz();

	if (hz > 0)
		snprintf(tick, sizeof(tick), "one scheduler tick (%.3g ms at CONFIG_HZ=%d)",
			 1000.0 / hz, hz);
	log_msg("note: " HRTICK_OUT_OF_REACH " (%s): a SCHED_DEADLINE boost is throttled only at the next tick, so it can run up to %s beyond its runtime, taken from the CPU's owner. To bound it, let starvd write %s (mounted debugfs, no kernel lockdown, no ProtectKernelTunables= in the unit) or turn HRTICK_DL on yourself",
		why, tick, features_path());
}

static int write_feature(const char *feat)
{
	return write_string(features_path(), feat);
}

static void fill_journal(FILE *f, const void *arg)
{
	fprintf(f, "%s\n", (const char *)arg);
}

void hrtick_init(struct hrtick *h, const char *run_dir)
{
	char features[4096];
	int ret, on;

	memset(h, 0, sizeof(*h));
	snprintf(h->journal, sizeof(h->journal), "%s/" HRTICK_JOURNAL,
		 run_dir);
	ret = read_line(features_path(), features, sizeof(features));
	if (ret) {
		say_unavailable(ret == -ENOENT ?
				"no debugfs at /sys/kernel/debug" :
				strerror(-ret));
		return;
	}
	on = sched_feature_on(features, "HRTICK_DL");
	if (on < 0) {
		say_unavailable("this kernel has no HRTICK_DL feature");
		return;
	}
	if (on) {
		h->state = HRTICK_ALREADY_ON;
		return;
	}
	/* Writing the current state changes nothing: can we write? */
	ret = write_feature("NO_HRTICK_DL");
	if (ret) {
		say_unavailable(ret == -EPERM ?
				"writing debugfs: EPERM, kernel lockdown?" :
				strerror(-ret));
		return;
	}
	h->state = HRTICK_OFF;
}

void hrtick_boosting(struct hrtick *h, bool boosting)
{
	int ret;

	if (boosting && h->state == HRTICK_OFF) {
		/* Journal first: a killed starvd's change is put back. */
		ret = write_file_atomic(h->journal, fill_journal,
					"NO_HRTICK_DL");
		if (ret) {
			log_err("cannot journal the HRTICK_DL state in %s: %s; leaving it off",
				h->journal, strerror(-ret));
			return;
		}
		ret = write_feature("HRTICK_DL");
		if (ret) {
			log_err(HRTICK_CANNOT ": %s; boosts may overrun by a tick",
				strerror(-ret));
			unlink(h->journal);
			h->state = HRTICK_UNAVAILABLE;
			return;
		}
		h->state = HRTICK_ON_BY_US;
	} else if (!boosting && h->state == HRTICK_ON_BY_US) {
		ret = write_feature("NO_HRTICK_DL");
		if (ret) {
			log_err("cannot turn HRTICK_DL back off: %s; 'starvd --restore' will retry",
				strerror(-ret));
			return;
		}
		unlink(h->journal);
		h->state = HRTICK_OFF;
	}
}

void hrtick_recover(const char *run_dir)
{
	char path[4096], feat[64];
	int ret;

	snprintf(path, sizeof(path), "%s/" HRTICK_JOURNAL, run_dir);
	if (read_line(path, feat, sizeof(feat)))
		return;
	if (strcmp(feat, "NO_HRTICK_DL") && strcmp(feat, "HRTICK_DL")) {
		log_msg("ignoring %s: unexpected content '%s'", path, feat);
		unlink(path);
		return;
	}
	ret = write_feature(feat);
	if (ret) {
		log_err("cannot put the %s scheduler feature back (left by a previous starvd): %s",
			feat, strerror(-ret));
		return;
	}
	log_msg("put the scheduler feature %s back (left by a previous starvd)",
		feat);
	unlink(path);
}

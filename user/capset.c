// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/capability.h>
#include <unistd.h>

#include "capset.h"

int capset_nr(void)
{
	int n = cap_max_bits();

	return n > 64 ? 64 : n;
}

/* The set @flag of this process as a mask. */
static uint64_t proc_caps(cap_flag_t flag)
{
	cap_t c = cap_get_proc();
	cap_flag_value_t v;
	uint64_t mask = 0;
	int i;

	if (!c)
		return 0;
	for (i = 0; i < capset_nr(); i++)
		if (!cap_get_flag(c, i, flag, &v) && v == CAP_SET)
			mask |= CAP_BIT(i);
	cap_free(c);
	return mask;
}

uint64_t capset_effective(void)
{
	return proc_caps(CAP_EFFECTIVE);
}

uint64_t capset_permitted(void)
{
	return proc_caps(CAP_PERMITTED);
}

static uint64_t bounding_caps(void)
{
	uint64_t mask = 0;
	int i;

	for (i = 0; i < capset_nr(); i++)
		if (cap_get_bound(i) == 1)
			mask |= CAP_BIT(i);
	return mask;
}

void capset_names(uint64_t mask, char *buf, size_t len)
{
	int i, n = __builtin_popcountll(mask), k = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < 64 && off < len; i++) {
		char *name, *p;

		if (!(mask & CAP_BIT(i)))
			continue;
		name = cap_to_name(i);
		for (p = name; p && *p; p++)
			*p = toupper((unsigned char)*p);
		off += snprintf(buf + off, len - off, "%s%s",
				!k ? "" : k == n - 1 ? " and " : ", ",
				name ? name : "?");
		cap_free(name);
		k++;
	}
}

void capset_explain(uint64_t missing, char *buf, size_t len)
{
	char names[192];

	capset_names(missing, names, sizeof(names));
	if (geteuid())
		snprintf(buf, len,
			 "this process lacks %s (it runs as uid %u, not as root)",
			 names, (unsigned int)geteuid());
	else if (missing & ~bounding_caps())
		snprintf(buf, len,
			 "this process runs as root but lacks %s (missing from its capability bounding set, e.g. removed by a container runtime, setpriv or systemd's CapabilityBoundingSet=)",
			 names);
	else
		snprintf(buf, len,
			 "this process runs as root but lacks %s in its effective capabilities",
			 names);
}

bool capset_explain_missing(uint64_t need, uint64_t alt, char *buf,
			    size_t len)
{
	uint64_t eff = capset_effective(), missing;

	buf[0] = '\0';
	if (!need || (alt && (eff & alt) == alt))
		return false;
	if (capset_nr() < 64 && need >> capset_nr())
		missing = alt & ~eff;
	else
		missing = need & ~eff;
	if (!missing)
		return false;
	capset_explain(missing, buf, len);
	return true;
}

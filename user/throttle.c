// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "throttle.h"
#include "util.h"

int rt_runtime_read(long *us)
{
	char buf[32], *end;
	int ret;

	ret = read_line(RT_RUNTIME_PATH, buf, sizeof(buf));
	if (ret)
		return ret;
	*us = strtol(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

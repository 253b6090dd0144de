# SPDX-License-Identifier: GPL-2.0-or-later
#
# stalld.service is starvd.service under stalld's names (make
# install-stalld-compat, the starvd-stalld-compat packages): the stalld
# link (log ident and prefix "stalld", run directory /run/stalld), the
# variables in /etc/default/stalld (Debian) or /etc/sysconfig/stalld
# (stalld's own place, and RHEL's), and the two units conflict with each
# other. Everything else, the sandbox included, is starvd.service's: one
# unit to maintain.
s|^Description=.*|Description=Stall Monitor (starvd, a drop-in for stalld)|
s|^Conflicts=stalld\.service|Conflicts=starvd.service|
s|^# One starvation daemon at a time (stalld.service.*|# One starvation daemon at a time.|
s|^EnvironmentFile=-/etc/default/starvd$|EnvironmentFile=-/etc/default/stalld|
s|^EnvironmentFile=-/etc/sysconfig/starvd$|EnvironmentFile=-/etc/sysconfig/stalld|
s|^RuntimeDirectory=starvd$|RuntimeDirectory=stalld|
s|@BINDIR@/starvd |@BINDIR@/stalld |g
s|/run/starvd|/run/stalld|g

# SPDX-License-Identifier: GPL-2.0-or-later
#
# make dkms-install [DESTDIR=...] [DKMSDIR=...]: install exactly the
# module's sources where DKMS looks for them (/usr/src/starvd-VERSION),
# then `dkms add starvd/VERSION`. The one list of those sources, used by
# vm/dkms.sh, debian/rules and starvd.spec alike; build outputs, user/ and
# caches never reach /usr/src. Included by the top-level Makefile.

DKMS_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMSDIR		?= /usr/src/starvd-$(DKMS_VERSION)
DKMS_SOURCES	:= dkms.conf Kbuild kmod/Kbuild kmod/compat.h kmod/starvd.c \
		   include/starvd/abi.h include/starvd/starvd.h

dkms-install: $(DKMS_SOURCES)
	@test -n "$(DKMS_VERSION)" || { echo "no PACKAGE_VERSION in dkms.conf"; exit 1; }
	@$(foreach f,$(DKMS_SOURCES),install -m 0644 -D $(f) $(DESTDIR)$(DKMSDIR)/$(f) &&) true
	@echo "  DKMS-INSTALL $(DESTDIR)$(DKMSDIR): $(DKMS_SOURCES)"

.PHONY: dkms-install

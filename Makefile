# SPDX-License-Identifier: GPL-2.0-or-later
#
# starvd: `make` builds user/starvd and user/starvctl, `make check` runs
# every test, `make run` runs the daemon in the foreground, `make demo`
# shows a rescue, `make bench` measures, `make fuzz` fuzzes the parsers
# (mk/fuzz.mk). See README.md.

# The one place the version is written; make check (unit-version) checks
# every other file that names it, scripts/set-version.sh NEW sets them all.
VERSION		:= $(shell cat $(dir $(lastword $(MAKEFILE_LIST)))VERSION)
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
UNITDIR		?= $(PREFIX)/lib/systemd/system
SYSCONFDIR	?= /etc
DATADIR		?= $(PREFIX)/share
DESTDIR		?=

# BPF=0 builds without the BPF backend (32-bit guests, kernels without BTF).
# O: objects; BIN: where starvd and starvctl go (e.g. BIN=build32 for -m32).
BPF		?= 1
O		?= build
BIN		?= user
CC		?= gcc
CLANG		?= clang
BPFTOOL		?= bpftool
PKG_CONFIG	?= pkg-config

CFLAGS		?= -O2 -g
WARN		:= -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
		   -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS	+= -D_GNU_SOURCE -DSTARVD_VERSION='"$(VERSION)"' -Iinclude \
		   -I$(O) -Iuser $(shell $(PKG_CONFIG) --cflags libnl-genl-3.0 2>/dev/null)
LDLIBS		+= $(shell $(PKG_CONFIG) --libs libnl-genl-3.0 2>/dev/null) -lm -pthread
# libcap: starvd drops the capabilities it no longer needs (user/caps.c).
LDLIBS		+= $(or $(shell $(PKG_CONFIG) --libs libcap 2>/dev/null),-lcap)
# json-c: event lines and starvctl --json (user/json.h says why json-c).
CPPFLAGS	+= $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
LDLIBS		+= $(or $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null),-ljson-c)

USER_OBJS	:= util cpuset sched_attr options log log_ring task_list backend \
		   backend_netlink proc detect journal boost report read_retry \
		   daemon throttle status_file metrics starvctl_args caps \
		   escalate hrtick json event escape fifo_worker ksym stack \
		   stack_sample stack_unwind stack_render \
		   run_dir task_id holder capset task_cgroup task_role episodes advise oneshot \
		   starved pending
# The booster's modules beside boost.c and fifo_worker.c.
USER_OBJS	+= fifo_policy boost_debt boost_escalation boost_refusal \
		   boost_restore boost_status
ifeq ($(BPF),1)
USER_OBJS	+= backend_bpf
LDLIBS		+= -lbpf -lelf -lz
else
CPPFLAGS	+= -DSTARVD_NO_BPF
endif
# libdw (elfutils): user frames of holder stacks (user/stack_unwind.c),
# unwound from DWARF CFI. Its headers at build time; the library itself
# is loaded (dlopen) when holder stacks with user frames are on, not
# linked. LIBDW=0 (the default for -m32 builds) builds without: holder
# stacks then have kernel frames only.
LIBDW		?= $(if $(findstring -m32,$(CC) $(CFLAGS)),0,1)
ifeq ($(LIBDW),1)
CPPFLAGS	+= $(shell $(PKG_CONFIG) --cflags libdw 2>/dev/null)
LDLIBS		+= -ldl
else
CPPFLAGS	+= -DSTARVD_NO_LIBDW
endif
# ncursesw: starvctl top (user/top.c), linked into starvctl alone.
# NCURSES=0 (the default for -m32 builds, which have no 32-bit library)
# builds it without: top then prints its table once.
NCURSES		?= $(if $(findstring -m32,$(CC) $(CFLAGS)),0,1)
USER_OBJS	+= top
ifeq ($(NCURSES),1)
NCURSES_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
NCURSES_LIBS	:= $(or $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null),-lncursesw)
else
NCURSES_CFLAGS	:= -DSTARVD_NO_NCURSES
endif
LIB_OBJS	:= $(USER_OBJS:%=$(O)/user/%.o)
PROGS		:= $(BIN)/starvd $(BIN)/starvctl

all: $(PROGS)

# The kernel types the BPF programs are compiled against: committed
# (bpf/vmlinux/gen.sh regenerates them from a pinned Debian kernel's BTF),
# never the build machine's kernel, so the same sources give the same
# object anywhere; CO-RE adapts it to the running kernel at load time.
# The programs are tp_btf and iterator ones that read no pt_regs, so one
# object serves every architecture: x86's types and target on any build
# machine, arm64 included (vm/build.sh checks the arm64 starvd embeds
# the x86 build's object). VMLINUX_H=FILE builds against another, e.g.
# one dumped with "bpftool btf dump file /sys/kernel/btf/vmlinux format c".
ARCH_BPF	:= x86
VMLINUX_H	?= bpf/vmlinux/$(ARCH_BPF)/vmlinux.h

$(O)/vmlinux.h: $(VMLINUX_H)
	@mkdir -p $(@D)
	cp $< $@

$(VMLINUX_H):
	@echo "no $@ for $(ARCH_BPF): make VMLINUX_H=FILE (see bpf/vmlinux/gen.sh)"; exit 1

$(O)/%.bpf.o: bpf/%.bpf.c bpf/starvd_bpf.h bpf/task_core.h bpf/pending_core.h include/starvd/abi.h \
		$(O)/vmlinux.h
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH_BPF) -I$(O) \
		-Iinclude -Wall -fdebug-prefix-map=$(CURDIR)=. -c $< -o $@

# The skeleton embeds the object as bpftool's linker writes it: the
# programs, BTF and CO-RE relocations without the DWARF clang -g adds
# (about 40 KiB instead of 850), which starvd would keep resident.
$(O)/%.link.o: $(O)/%.bpf.o
	$(BPFTOOL) gen object $@ $<

# starvd's object: the detection programs and the report's readers of
# what a kernel thread waits to run (bpf/pending.bpf.c), linked into one
# object, loaded at once (libbpf reads the kernel's BTF once an object).
$(O)/starvd.link.o: $(O)/starvd.bpf.o $(O)/pending.bpf.o
	$(BPFTOOL) gen object $@ $^

$(O)/%.skel.h: $(O)/%.link.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp
	@mv $@.tmp $@

ifeq ($(BPF),1)
$(O)/user/backend_bpf.o: $(O)/starvd.skel.h $(O)/softirqs.skel.h bpf/starvd_bpf.h
$(O)/user/backend_bpf.o: CPPFLAGS += -Ibpf
endif

$(O)/user/%.o: user/%.c $(wildcard user/*.h) include/starvd/abi.h \
		include/starvd/starvd.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -c $< -o $@

$(O)/user/top.o: CPPFLAGS += $(NCURSES_CFLAGS)
$(BIN)/starvctl: LDLIBS += $(NCURSES_LIBS)

$(O)/libstarvd.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(PROGS): $(BIN)/%: $(O)/user/%.o $(O)/libstarvd.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The netlink uapi header, generated from its spec by the kernel's
# ynl-gen-c.py (committed; the unit suite checks it is up to date).
abi:
	scripts/gen-abi.py "$$(vm/ynl.sh)" include/starvd/starvd.yaml \
		include/starvd/starvd.h

# Debian/Ubuntu packages, installed when missing: deps what building and
# running needs, deps-check also what make check needs on the host
# (scripts/deps-vm.sh installs the guests').
deps:
	@scripts/deps.sh

deps-check:
	@scripts/deps.sh check

run: deps all
	scripts/run.sh $(ARGS)

# The busy loop and its victim: selftests/starve, built without the
# kselftest harness (no kernel sources needed).
demo: deps all
	$(SELFTESTS) demo
	scripts/demo.sh $(abspath $(O))/selftests/starve

# The tree built and tested in a Debian chroot sharing this kernel
# (vm/chroot.sh): trixie (Debian 13, make check runs it: CHROOT= skips
# it), or arm64 (Debian 12 arm64 under qemu-user-static: a native build
# and the unit suite, too slow for make check; docs/testing.md).
CHROOT		?= trixie

check-chroot: deps-check
	$(if $(CHROOT),vm/chroot.sh $(CHROOT),@echo "check-chroot: CHROOT= names no chroot (trixie, arm64)")

# The chroot's root and packages, for make check's preparation phase.
check-chroot-prepare:
	vm/chroot.sh $(CHROOT) prepare

# VM=0 skips the kernel-module tests in qemu guests (see mk/kmod.mk).
VM		?= 1
RESULTS		:= $(abspath $(O))/results.txt
SELFTESTS	= $(MAKE) -C selftests O=$(abspath $(O)) CC="$(CC)" \
		  LDLIBS="$(LDLIBS) -lpthread"

# make check's order: the host suites, alone (their busy loops take CPU 0
# too, and starvd reports and boosts whatever waits there: work run beside
# them in the background broke a test's count of events); the packages
# built while the guests' kernels are fetched and their module built and
# the Debian 13 chroot's packages installed (CHECK_PREP, make -j3: no test
# runs then); the chroot's build, unit suite and one boost (vm/chroot.sh);
# the guests, two at a time, the package guest among them; the kselftest
# target.
CHECK_PREP	:= $(if $(wildcard mk/pkg.mk),check-pkg-recorded) \
		   $(if $(and $(filter 1,$(VM)),$(wildcard mk/kmod.mk)),check-vm-prepare) \
		   $(if $(CHROOT),check-chroot-prepare)

check: deps-check all
	$(SELFTESTS) all
	@rm -f $(RESULTS) $(O)/vm-prepared
	@selftests/host-state.sh save $(O)/host-state
	-RESULTS=$(RESULTS) selftests/run.sh $(O)/selftests unit host load
	-@RESULTS=$(RESULTS) $(MAKE) -j3 --output-sync=target $(CHECK_PREP)
	$(if $(CHROOT),-RESULTS=$(RESULTS) vm/chroot.sh $(CHROOT) || \
		grep -q '^chroot-' $(RESULTS) || \
		echo "chroot-$(CHROOT)-build # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> $(RESULTS))
# The package guest boots in check-vm, next to the other guests, when
# PKG_GUEST is one of them; alone after it otherwise.
ifneq ($(wildcard mk/kmod.mk),)
	$(if $(filter 1,$(VM)),@RESULTS=$(RESULTS) \
		VM_PREPARED=$$(test -f $(O)/vm-prepared && echo 1) \
		VM_PKG_GUEST=$(PKG_GUEST) VM_PKG_DEBS=$(PKG_DIR) $(MAKE) check-vm || \
		grep -q '^vm-' $(RESULTS) || \
		echo "check-vm # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> $(RESULTS))
endif
ifneq ($(wildcard mk/pkg.mk),)
	$(if $(filter 1,$(VM)),@grep -q '^pkg-vm-' $(RESULTS) || \
		RESULTS=$(RESULTS) vm/pkg-guest.sh $(PKG_GUEST) $(PKG_DIR) || \
		grep -q '^pkg-vm-' $(RESULTS) || echo "pkg-vm-build # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> $(RESULTS))
endif
ifneq ($(wildcard mk/kselftest.mk),)
	@RESULTS=$(RESULTS) $(MAKE) kselftest-run || grep -q '^kselftest ' $(RESULTS) || \
		echo "kselftest-build # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> $(RESULTS)
endif
	-@selftests/host-state.sh check $(O)/host-state $(RESULTS) $(CURDIR)
	@selftests/summary.sh $(RESULTS)

# check-pkg for make check: its results line even when it fails early.
check-pkg-recorded:
	@RESULTS=$(RESULTS) $(MAKE) -j1 check-pkg || grep -q '^pkg ' $(RESULTS) || \
		echo "pkg-build # Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:1" >> $(RESULTS)

bench: deps-check all $(O)/bench.skel.h
	STARVD_BIN_DIR=$(abspath $(BIN)) $(SELFTESTS) bench

install: all
	install -D -m 0755 $(BIN)/starvd $(DESTDIR)$(BINDIR)/starvd
	install -D -m 0755 $(BIN)/starvctl $(DESTDIR)$(BINDIR)/starvctl
	install -D -m 0644 man/starvd.8 $(DESTDIR)$(MANDIR)/man8/starvd.8
	install -D -m 0644 man/starvctl.8 $(DESTDIR)$(MANDIR)/man8/starvctl.8
	for u in starvd.service starvd-metrics.service; do \
		sed 's|@BINDIR@|$(BINDIR)|g' systemd/$$u > $(O)/$$u && \
		install -D -m 0644 $(O)/$$u $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -D -m 0644 systemd/starvd-metrics.timer \
		$(DESTDIR)$(UNITDIR)/starvd-metrics.timer
	install -D -m 0644 systemd/starvd.conf $(DESTDIR)$(SYSCONFDIR)/default/starvd
	install -D -m 0644 contrib/prometheus/starvd-rules.yml \
		$(DESTDIR)$(DATADIR)/starvd/prometheus/starvd-rules.yml

# For machines switching from stalld (README.md, "Switching from stalld"):
# the stalld name (a link: starvd then logs as stalld and keeps its state
# in /run/stalld), stalld.service (starvd.service under stalld's names,
# systemd/stalld.sed), throttlectl (its man page: starvd(8), which
# describes it), and stalld's /etc/sysconfig/stalld unless the machine
# has one. The starvd-stalld-compat packages ship what it installs.
install-stalld-compat: install
	ln -sfn starvd $(DESTDIR)$(BINDIR)/stalld
	ln -sfn starvd.8 $(DESTDIR)$(MANDIR)/man8/stalld.8
	ln -sfn starvd.8 $(DESTDIR)$(MANDIR)/man8/throttlectl.8
	sed 's|@BINDIR@|$(BINDIR)|g' scripts/throttlectl.sh > $(O)/throttlectl
	install -D -m 0755 $(O)/throttlectl $(DESTDIR)$(BINDIR)/throttlectl
	sed -f systemd/stalld.sed systemd/starvd.service | \
		sed 's|@BINDIR@|$(BINDIR)|g' > $(O)/stalld.service
	install -D -m 0644 $(O)/stalld.service $(DESTDIR)$(UNITDIR)/stalld.service
	test -e $(DESTDIR)$(SYSCONFDIR)/sysconfig/stalld || \
		install -D -m 0644 systemd/stalld.conf \
			$(DESTDIR)$(SYSCONFDIR)/sysconfig/stalld

clean:
	rm -rf $(O) $(PROGS)

-include mk/kmod.mk
-include mk/dkms.mk
-include mk/pkg.mk
-include mk/kselftest.mk
-include mk/fuzz.mk

.PHONY: all abi deps deps-check run demo check-chroot check-chroot-prepare check check-pkg-recorded bench install install-stalld-compat clean
.SECONDARY:

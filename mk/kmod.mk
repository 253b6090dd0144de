# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel module and its tests in qemu guests; included by the
# top-level Makefile.
#   make kmod [KDIR=...]   build kmod/starvd.ko against KDIR (default: the
#                          running kernel's headers)
#   make check-vm          module tests in Debian guests, two at a time
#                          (default: VM_DEFAULT_GUESTS in vm/lib.sh;
#                          VM_GUESTS="5.10 6.12-rt" for others); one results line
#                          per suite appended to $(RESULTS) when set;
#                          VM_PREPARED=1: check-vm-prepare has run
#   make check-vm-prepare  what the guests need from the host (vm/prepare.sh)
#   make bench-vm          module benchmarks in the 6.12-rt guest
#                          (BENCH_GUEST=6.12 for another)
# The VM targets need root (DKMS) and install their dependencies with
# scripts/deps-vm.sh.

KDIR		?= /lib/modules/$(shell uname -r)/build
VM_GUESTS	?=

kmod:
	@test -d $(KDIR) || { echo "no kernel headers in $(KDIR): install linux-headers-$(shell uname -r) or set KDIR=/path/to/kernel/build"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules

kmod-clean:
	@test ! -d $(KDIR) || $(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean

check-vm:
	$(if $(filter 1,$(VM_PREPARED)),,scripts/deps-vm.sh)
	vm/check.sh $(VM_GUESTS)

# Not this make's flags (make check runs it with -j2): DKMS's make would
# log "jobserver unavailable", which vm/dkms.sh counts as a build warning.
check-vm-prepare:
	scripts/deps-vm.sh
	env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS vm/prepare.sh $(VM_GUESTS)
	@touch $(O)/vm-prepared

bench-vm:
	scripts/deps-vm.sh
	vm/bench.sh $(BENCH_GUEST)

.PHONY: kmod kmod-clean check-vm check-vm-prepare bench-vm

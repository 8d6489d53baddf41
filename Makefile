# SPDX-License-Identifier: GPL-2.0
#
# primepair: out-of-tree build of primebuf, vdisplay and vrender for every
# supported kernel, the userspace tests and tools, and the checks.
#
#   make                  modules for every kernel + userspace
#   make KVER=6.1.0-57-amd64   modules for one kernel
#   make check            lint + the whole suite in QEMU, every kernel
#   make demo             the demo in QEMU, every kernel, with a report
#   make lint             checkpatch --strict, sparse, kernel-doc, uapi
#   make bench            every benchmark, one QEMU boot per kernel
#   make check-debug      the suite on KASAN/lockdep/kmemleak/DMA-debug builds
#                         of every series of tools/kernels

TOP := $(CURDIR)
BUILD := $(TOP)/build
KVERS ?= $(shell $(TOP)/tools/kernels 2>/dev/null)
ifneq ($(KVER),)
KVERS := $(KVER)
endif
KSRC ?= /usr/src/linux-source-6.1

export CONFIG_PRIMEBUF := m
export CONFIG_PRIMEBUF_SELFTEST := m
export CONFIG_DRM_VDISPLAY := m
export CONFIG_DRM_VRENDER := m

KDIR_OF = $(or $(KDIR),/usr/src/linux-headers-$(1))
# Headers on the host build with the host's compiler.  Headers found only
# in the Debian 13 build root (7.x, which needs gcc-14; see tools/build-root)
# build inside it, the repository at the same path.
BUILD_ROOT := $(TOP)/.cache/trixie-root
KBUILD_IN = $(if $(or $(KDIR),$(wildcard /usr/src/linux-headers-$(1))),,$(TOP)/tools/build-root run)
KERNEL_TREE := Kbuild dma-buf drm include

CC ?= cc
CFLAGS ?= -O2 -g
# Userspace: lib/libprimepair (error-returning, for tools, benchmarks and
# tests) and the tests' IGT shim igt-tests/lib (asserting, on top of it)
# are each built once into an archive and linked.  Tools and benchmarks
# see neither igt-tests/lib's headers nor its archive (tools/lint checks
# the sources).
# pkg-config is asked once, and only by a rule that builds userspace:
# the 7.x modules are built in the Debian 13 root, which has no
# pkg-config and needs none.
LIBDRM_CFLAGS = $(eval LIBDRM_CFLAGS := $(shell pkg-config --cflags libdrm))$(LIBDRM_CFLAGS)
LIBDRM_LIBS = $(eval LIBDRM_LIBS := $(shell pkg-config --libs libdrm))$(LIBDRM_LIBS)
USER_CFLAGS = $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-clobbered -D_GNU_SOURCE \
	-I$(TOP)/lib/libprimepair -I$(TOP)/lib/libvrender -I$(TOP)/include/uapi/drm \
	$(LIBDRM_CFLAGS)
TEST_CFLAGS = $(USER_CFLAGS) -I$(TOP)/igt-tests/lib
# Every symbol bound at start-up: a test child in a memory cgroup at its
# limit must not need a page to bind one (kms_vdisplay_configfs).
USER_LIBS = -Wl,-z,relro,-z,now $(LIBDRM_LIBS) -lpthread -lm
# Header dependencies, kept out of build/bin and named after the source,
# so that those of a source that moved or went away are not read.
DEPFLAGS = -MMD -MP -MF $(BUILD)/dep/$(subst /,_,$<).d

LIBPP := $(BUILD)/lib/libprimepair.a
LIBPP_SRC := $(wildcard lib/libprimepair/*.c)
LIBPP_OBJ := $(patsubst lib/libprimepair/%.c,$(BUILD)/obj/libprimepair/%.o,$(LIBPP_SRC))
LIBIGT := $(BUILD)/lib/libigt-lite.a
LIBIGT_SRC := $(wildcard igt-tests/lib/*.c)
LIBIGT_OBJ := $(patsubst igt-tests/lib/%.c,$(BUILD)/obj/igt-lite/%.o,$(LIBIGT_SRC))
TEST_SRC := $(wildcard igt-tests/tests/*.c)
TESTS := $(patsubst igt-tests/tests/%.c,$(BUILD)/bin/tests/%,$(TEST_SRC))
TOOL_SRC := $(wildcard tools/*.c)
TOOLS := $(patsubst tools/%.c,$(BUILD)/bin/%,$(TOOL_SRC))
BENCH_SRC := $(wildcard benchmarks/*.c)
BENCHES := $(patsubst benchmarks/%.c,$(BUILD)/bin/%,$(BENCH_SRC))

.PHONY: all modules userspace check check-debug demo bench lint clean setup \
	install uninstall $(KVERS:%=modules-%)

all: modules userspace

modules: $(KVERS:%=modules-%)

# Each kernel builds in its own copy of the tree, so that objects of two
# kernels never mix; cp -a keeps timestamps and so incremental builds.
$(KVERS:%=modules-%): modules-%:
	@test -d $(call KDIR_OF,$*) || test -d $(BUILD_ROOT)$(call KDIR_OF,$*) || \
		{ echo "missing headers for $*: run tools/setup"; exit 1; }
	@mkdir -p $(BUILD)/$*
	@cp -a $(KERNEL_TREE) $(BUILD)/$*/
	$(call KBUILD_IN,$*) $(MAKE) -C $(call KDIR_OF,$*) M=$(BUILD)/$* W=1 KCFLAGS=-Werror modules

userspace: $(LIBPP) $(LIBIGT) $(TESTS) $(TOOLS) $(BENCHES)

-include $(foreach c,$(LIBPP_SRC) $(LIBIGT_SRC) $(TEST_SRC) $(TOOL_SRC) \
	$(BENCH_SRC),$(wildcard $(BUILD)/dep/$(subst /,_,$(c)).d))

$(BUILD)/obj/libprimepair/%.o: lib/libprimepair/%.c
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/obj/igt-lite/%.o: igt-tests/lib/%.c
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(LIBPP): $(LIBPP_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBIGT): $(LIBIGT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

# The pipeline and kms-capture write their writeback captures as PNG.
$(BUILD)/bin/pipeline $(BUILD)/bin/kms-capture: USER_LIBS += $(shell pkg-config --libs libpng)

# Wayland protocol glue for tools/wl-vrender, from Debian's wayland-protocols
WL_PROTOCOLS := $(shell pkg-config --variable=pkgdatadir wayland-protocols 2>/dev/null)
WL_XML := $(WL_PROTOCOLS)/stable/xdg-shell/xdg-shell.xml \
	$(WL_PROTOCOLS)/unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml \
	$(WL_PROTOCOLS)/unstable/fullscreen-shell/fullscreen-shell-unstable-v1.xml
WL_GEN := $(BUILD)/wayland
WL_GEN_SRC := $(patsubst %.xml,$(WL_GEN)/%-protocol.c,$(notdir $(WL_XML)))
WL_GEN_HDR := $(patsubst %.xml,$(WL_GEN)/%-client-protocol.h,$(notdir $(WL_XML)))

$(WL_GEN)/%-protocol.c: $(WL_XML)
	@mkdir -p $(dir $@)
	wayland-scanner private-code $(filter %/$*.xml,$(WL_XML)) $@

$(WL_GEN)/%-client-protocol.h: $(WL_XML)
	@mkdir -p $(dir $@)
	wayland-scanner client-header $(filter %/$*.xml,$(WL_XML)) $@

$(BUILD)/bin/wl-vrender: tools/wl-vrender.c $(WL_GEN_SRC) $(WL_GEN_HDR) $(LIBPP)
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -I$(WL_GEN) -o $@ $< $(WL_GEN_SRC) \
		$(LIBPP) $(USER_LIBS) $(shell pkg-config --libs wayland-client)

# weston's output capture protocol for tools/wl-capture, from weston's
# development files in the Debian 13 root (Debian 12's weston 10 has no
# weston_capture_v1); without that root, wl-capture is not built.
WESTON_XML := $(firstword $(wildcard \
	$(BUILD_ROOT)/usr/share/libweston-*/protocols/weston-output-capture.xml))
ifeq ($(WESTON_XML),)
TOOLS := $(filter-out $(BUILD)/bin/wl-capture,$(TOOLS))
endif

$(WL_GEN)/weston-output-capture-protocol.c: $(WESTON_XML)
	@mkdir -p $(dir $@)
	wayland-scanner private-code $< $@

$(WL_GEN)/weston-output-capture-client-protocol.h: $(WESTON_XML)
	@mkdir -p $(dir $@)
	wayland-scanner client-header $< $@

$(BUILD)/bin/wl-capture: tools/wl-capture.c \
		$(WL_GEN)/weston-output-capture-protocol.c \
		$(WL_GEN)/weston-output-capture-client-protocol.h $(LIBPP)
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -I$(WL_GEN) -o $@ $< \
		$(WL_GEN)/weston-output-capture-protocol.c $(LIBPP) $(USER_LIBS) \
		$(shell pkg-config --libs wayland-client libpng)

$(BUILD)/bin/tests/%: igt-tests/tests/%.c $(LIBIGT) $(LIBPP)
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBIGT) $(LIBPP) $(USER_LIBS)

$(BUILD)/bin/%: tools/%.c $(LIBPP)
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBPP) $(USER_LIBS)

# build/bin/bench-*, where tools/bench finds them
$(BUILD)/bin/%: benchmarks/%.c $(LIBPP)
	@mkdir -p $(dir $@) $(BUILD)/dep
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -o $@ $< $(LIBPP) $(USER_LIBS)

setup:
	$(TOP)/tools/setup

lint:
	$(TOP)/tools/lint

check: setup
	$(MAKE) all
	$(MAKE) lint
	@out=$$($(TOP)/igt-tests/lib/selftest/run.sh) || \
		{ echo "$$out"; exit 1; }; echo "igt-tests/lib selftest: $$(echo "$$out" | tail -n1)"
	$(TOP)/tools/check-packaging
	$(TOP)/tools/run-suite

demo: setup
	$(MAKE) all
	$(TOP)/tools/demo

check-debug: setup
	$(TOP)/tools/check-debug

bench: setup
	$(MAKE) all
	$(TOP)/tools/bench

# Install for one kernel (default: the running one).  DESTDIR and
# INSTALL_MOD_PATH stage the files elsewhere, as packagers do.
INSTALL_KVER ?= $(shell uname -r)
PREFIX ?= /usr/local
LIBEXEC := $(DESTDIR)$(PREFIX)/libexec/primepair
MODDIR := $(INSTALL_MOD_PATH)/lib/modules/$(INSTALL_KVER)/updates/primepair

# The self-test module is for the suite: install builds without it.
install: userspace
	$(MAKE) KVER=$(INSTALL_KVER) CONFIG_PRIMEBUF_SELFTEST= modules
	$(MAKE) -C $(call KDIR_OF,$(INSTALL_KVER)) M=$(BUILD)/$(INSTALL_KVER) \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) INSTALL_MOD_DIR=updates/primepair \
		modules_install
	-depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(INSTALL_KVER)
	install -D -m 0644 include/uapi/drm/vrender_drm.h \
		$(DESTDIR)$(PREFIX)/include/libdrm/vrender_drm.h
	install -D -m 0644 lib/libvrender/vrender.h \
		$(DESTDIR)$(PREFIX)/include/libvrender/vrender.h
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed 's|@PREFIX@|$(PREFIX)|' lib/libvrender/vrender.pc.in \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/vrender.pc
	install -D -m 0644 udev/60-primepair.rules \
		$(DESTDIR)/etc/udev/rules.d/60-primepair.rules
	install -d $(LIBEXEC)/tests
	install -m 0755 $(TOOLS) $(BENCHES) $(LIBEXEC)/
	install -m 0755 $(TESTS) $(LIBEXEC)/tests/

uninstall:
	rm -rf $(MODDIR) $(LIBEXEC)
	rm -rf $(DESTDIR)$(PREFIX)/include/libvrender
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/vrender.pc
	rm -f $(DESTDIR)$(PREFIX)/include/libdrm/vrender_drm.h \
		$(DESTDIR)/etc/udev/rules.d/60-primepair.rules
	-depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(INSTALL_KVER)

clean:
	rm -rf $(BUILD)

// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_outputs - vdisplay's module parameters and connectors
 *
 * Reloads vdisplay with outputs=4 overlays=2, and checks the resources
 * match the parameters, that each CRTC sets a mode, counts vblanks and
 * turns off again, and that the mode list stops at max_width/max_height.
 * Then the hotplug file: unplugging a connector sends a hotplug uevent
 * and the connector reads disconnected with no modes; plugging it back
 * restores both.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay outputs, module parameters and hotplug");

static void test_each_crtc(void)
{
	struct primepair_kms kms;
	unsigned int i;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "outputs=4 overlays=2");
	primepair_kms_open(&kms);
	igt_assert_eq(kms.noutputs, 4);

	for (i = 0; i < kms.noutputs; i++) {
		struct primepair_output *o = &kms.outputs[i];
		uint64_t seq, next;
		struct primepair_fb fb;

		igt_assert(o->connector_id && o->wb_connector_id);
		igt_assert(o->primary && o->cursor);
		igt_assert_eq(o->noverlays, 2);

		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			     DRM_FORMAT_XRGB8888, &fb);
		igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
		igt_assert_eq(primepair_prop_value(kms.fd, o->crtc_id,
					    DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
		seq = primepair_wait_vblank(&kms, o);
		next = primepair_wait_vblank(&kms, o);
		igt_assert_eq_u64(next, seq + 1);

		primepair_disable_all(&kms);
		igt_assert_eq(primepair_prop_value(kms.fd, o->crtc_id,
					    DRM_MODE_OBJECT_CRTC, "ACTIVE"), 0);
		primepair_fb_destroy(kms.fd, &fb);
	}
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

static void test_no_optional_planes(void)
{
	struct primepair_kms kms;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER,
				"cursor=0 overlays=0 writeback=0 max_width=800 max_height=600");
	primepair_kms_open(&kms);
	igt_assert_eq(kms.noutputs, 1);
	igt_assert(kms.outputs[0].primary);
	igt_assert_eq(kms.outputs[0].cursor, 0);
	igt_assert_eq(kms.outputs[0].noverlays, 0);
	igt_assert_eq(kms.outputs[0].wb_connector_id, 0);
	{
		drmModeConnectorPtr c = drmModeGetConnector(kms.fd,
						kms.outputs[0].connector_id);
		int i;

		igt_assert(c && c->count_modes > 0);
		for (i = 0; i < c->count_modes; i++) {
			igt_assert_lte(c->modes[i].hdisplay, 800);
			igt_assert_lte(c->modes[i].vdisplay, 600);
		}
		drmModeFreeConnector(c);
	}
	primepair_kms_close(&kms);

	/* Out of range: the module refuses to load (-EINVAL) */
	igt_assert_eq(system("rmmod vdisplay"), 0);
	igt_assert_neq(system("modprobe vdisplay outputs=5 2>/dev/null"), 0);
	igt_assert_neq(system("modprobe vdisplay overlays=5 2>/dev/null"), 0);
	igt_assert_eq(system("modprobe vdisplay"), 0);
}

static int uevent_open(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,
	};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	igt_require(fd >= 0);
	igt_require(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	return fd;
}

/* A "change" uevent with HOTPLUG=1 arrives within a second */
static bool uevent_hotplug(int fd)
{
	char buf[4096];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, 1000) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		bool hotplug = false, drm = false;
		ssize_t off;

		if (n <= 0)
			return false;
		buf[n] = 0;
		for (off = 0; off < n; off += strlen(buf + off) + 1) {
			if (!strcmp(buf + off, "HOTPLUG=1"))
				hotplug = true;
			if (!strcmp(buf + off, "SUBSYSTEM=drm"))
				drm = true;
		}
		if (hotplug && drm)
			return true;
	}
	return false;
}

static void set_connected(struct primepair_kms *kms, uint32_t connector_id,
			  bool connected)
{
	drmModeConnectorPtr c = drmModeGetConnector(kms->fd, connector_id);
	char path[256];
	struct stat st;
	int fd;

	igt_assert(c);
	igt_assert_eq(fstat(kms->fd, &st), 0);
	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/dri/%u/Virtual-%u/vdisplay_connected",
		 minor(st.st_rdev), c->connector_type_id);
	drmModeFreeConnector(c);
	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_eq(write(fd, connected ? "1" : "0", 1), 1);
	close(fd);
}

static void test_hotplug(void)
{
	struct primepair_kms kms;
	drmModeConnectorPtr c;
	uint32_t id;
	int ev;

	primepair_kms_open(&kms);
	id = kms.outputs[0].connector_id;
	ev = uevent_open();

	set_connected(&kms, id, false);
	igt_assert(uevent_hotplug(ev));
	c = drmModeGetConnector(kms.fd, id);
	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_DISCONNECTED);
	igt_assert_eq(c->count_modes, 0);
	drmModeFreeConnector(c);

	set_connected(&kms, id, true);
	igt_assert(uevent_hotplug(ev));
	c = drmModeGetConnector(kms.fd, id);
	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_CONNECTED);
	igt_assert_lt(0, c->count_modes);
	drmModeFreeConnector(c);

	close(ev);
	primepair_kms_close(&kms);
}

igt_main
{
	igt_subtest("modeset-each-crtc")
		test_each_crtc();
	igt_subtest("optional-planes-off")
		test_no_optional_planes();
	igt_subtest("hotplug")
		test_hotplug();

	igt_fixture {
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
		primepair_assert_summary_zero();
	}
}

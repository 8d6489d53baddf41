// SPDX-License-Identifier: GPL-2.0
/*
 * device_spec - the device names the tools' --device, --display and
 * --render options take resolve to the right node
 *
 * primepair_open_device() accepts a path, a driver name or NAME:N.  Every
 * form that names vrender's (or vdisplay's) node must open that very node
 * (same st_rdev), N must count the driver's instances, and a driver or an
 * instance that does not exist must fail with ENODEV, so that a CI script
 * never ends up on some other card.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"

IGT_TEST_DESCRIPTION("Device specs (path, driver name, NAME:N) resolve to the right DRM node");

#define LINK_DIR "/tmp/device_spec"

static dev_t rdev_of(int fd)
{
	struct stat st;

	igt_assert_eq(fstat(fd, &st), 0);
	igt_assert(S_ISCHR(st.st_mode));
	return st.st_rdev;
}

/* The platform device behind a DRM node, e.g. "vrender.1" */
static const char *parent_of(dev_t rdev)
{
	static char target[512];
	char path[128];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(rdev), minor(rdev));
	n = readlink(path, target, sizeof(target) - 1);
	igt_assert_f(n > 0, "%s: %s\n", path, strerror(errno));
	target[n] = '\0';
	slash = strrchr(target, '/');
	return slash ? slash + 1 : target;
}

/* @spec opens the node @want (a st_rdev) */
static void assert_opens(const char *spec, bool render, dev_t want)
{
	int fd = primepair_open_device(spec, "nosuchdriver", render);

	igt_assert_f(fd >= 0, "%s: %s\n", spec, strerror(errno));
	igt_info("%-36s -> %u:%u\n", spec, major(rdev_of(fd)),
		 minor(rdev_of(fd)));
	igt_assert_f(rdev_of(fd) == want, "%s opened %u:%u, not %u:%u\n", spec,
		     major(rdev_of(fd)), minor(rdev_of(fd)), major(want),
		     minor(want));
	close(fd);
}

static void assert_fails(const char *spec, bool render, int err)
{
	int fd;

	errno = 0;
	fd = primepair_open_device(spec, "nosuchdriver", render);
	igt_assert_f(fd < 0, "%s opened a device\n", spec);
	igt_assert_f(errno == err, "%s: errno %d (%s), expected %d\n", spec,
		     errno, strerror(errno), err);
}

/*
 * Every name of the first node of @driver opens it: driver name, NAME:0,
 * the /dev/dri path (as libdrm names the fd), a symlink to it such as
 * udev's /dev/dri/by-name links, and the by-name link itself where the
 * udev rule is installed and udev runs.
 */
static void check_names(const char *driver, bool render, const char *by_name)
{
	char spec[64], link[128];
	char *path;
	dev_t want;
	int fd;

	fd = render ? primepair_open_render(driver) :
		      primepair_open_driver(driver);
	want = rdev_of(fd);
	path = drmGetDeviceNameFromFd2(fd);
	igt_assert(path);
	close(fd);

	assert_opens(driver, render, want);
	snprintf(spec, sizeof(spec), "%s:0", driver);
	assert_opens(spec, render, want);
	assert_opens(path, render, want);

	/* what the udev rule makes, wherever udev is not running */
	igt_assert_eq(system("mkdir -p " LINK_DIR), 0);
	snprintf(link, sizeof(link), LINK_DIR "/%s-%s", driver,
		 render ? "render" : "card");
	unlink(link);
	igt_assert_eq(symlink(path, link), 0);
	assert_opens(link, render, want);
	igt_assert_eq(unlink(link), 0);

	if (access(by_name, F_OK) == 0)
		assert_opens(by_name, render, want);
	else
		igt_info("%s: not there (no udev), skipped\n", by_name);
	free(path);
}

/*
 * With @driver loaded with @param (two devices), DRIVER:0 and DRIVER:1
 * open the nodes of platform devices DRIVER.0 and DRIVER.1, the plain
 * name the first, and DRIVER:2 fails with ENODEV.
 */
static void check_instances(const char *driver, bool render,
			    const char *param)
{
	char spec[64], parent[64];
	dev_t rdev[2];
	int fd, n;

	primepair_reload_module(driver, param);
	for (n = 0; n < 2; n++) {
		fd = render ? primepair_open_render_nth(driver, n) :
			      primepair_open_driver_nth(driver, n);
		rdev[n] = rdev_of(fd);
		close(fd);
		snprintf(parent, sizeof(parent), "%s.%d", driver, n);
		igt_assert_eq(strcmp(parent_of(rdev[n]), parent), 0);
		snprintf(spec, sizeof(spec), "%s:%d", driver, n);
		assert_opens(spec, render, rdev[n]);
	}
	igt_assert(rdev[0] != rdev[1]);
	assert_opens(driver, render, rdev[0]);
	snprintf(spec, sizeof(spec), "%s:2", driver);
	assert_fails(spec, render, ENODEV);
	primepair_reload_module(driver, "");
}

igt_main
{
	igt_describe("\"vrender\", \"vrender:0\", /dev/dri/renderDN and its by-name link open the same render node");
	igt_subtest("vrender-names")
		check_names(PRIMEPAIR_RENDER_DRIVER, true,
			    "/dev/dri/by-name/vrender.0-render");

	igt_describe("\"vdisplay\", \"vdisplay:0\", /dev/dri/cardN and its by-name link open the same KMS node");
	igt_subtest("vdisplay-names")
		check_names(PRIMEPAIR_DISPLAY_DRIVER, false,
			    "/dev/dri/by-name/vdisplay-card");

	igt_describe("With NULL the default driver is opened; unknown drivers and instances fail with ENODEV, malformed specs with EINVAL, missing paths with ENOENT");
	igt_subtest("unknown") {
		int fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		dev_t want = rdev_of(fd);

		close(fd);
		fd = primepair_open_device(NULL, PRIMEPAIR_RENDER_DRIVER, true);
		igt_assert_lte(0, fd);
		igt_assert(rdev_of(fd) == want);
		close(fd);

		assert_fails("nosuchdriver", true, ENODEV);
		assert_fails("nosuchdriver:0", false, ENODEV);
		assert_fails("vrender:99", true, ENODEV);
		assert_fails("vdisplay:99", false, ENODEV);
		assert_fails(NULL, true, ENODEV);	/* default "nosuchdriver" */
		assert_fails("vrender:", true, EINVAL);
		assert_fails("vrender:x", true, EINVAL);
		assert_fails("vrender:1x", true, EINVAL);
		assert_fails("/dev/dri/nosuchnode", true, ENOENT);
	}

	igt_describe("NAME:N counts the driver's instances: with two vrender devices, vrender:0 and vrender:1 are different nodes, each as its path names it");
	igt_subtest("vrender-instances")
		check_instances(PRIMEPAIR_RENDER_DRIVER, true, "instances=2");

	igt_describe("The same for vdisplay: with devices=2, vdisplay:0 and vdisplay:1 are the KMS nodes of vdisplay.0 and vdisplay.1");
	igt_subtest("vdisplay-devices")
		check_instances(PRIMEPAIR_DISPLAY_DRIVER, false, "devices=2");

	igt_fixture
		rmdir(LINK_DIR);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_configfs - vdisplay devices built through configfs
 *
 * A device is described under /sys/kernel/config/vdisplay/<name>/ by
 * directories (planes, CRTCs, encoders, connectors) and symlinks (what
 * feeds what), and created by writing 1 to its "enabled".  These tests
 * build devices as a compositor's CI script would, check that the DRM
 * device has exactly the described shape and shows pictures, plug and
 * unplug connectors, give them an EDID, refuse descriptions the DRM core
 * would reject, and remove a device while its clients still hold it and
 * its buffers, with vrender rendering into one.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay devices made, changed and removed through configfs");

#define CFS		"/sys/kernel/config/vdisplay"
#define DEV		CFS "/pp-test"
#define DRIVER_DIR	"/sys/bus/platform/drivers/vdisplay/"
/* Platform device ids below this one are the module parameters' devices. */
#define FIRST_CFS_ID	4
#define FILL		0xff3080c0u

/* ----------------------------------------------------------------------
 * configfs helpers: each returns 0 or -errno, the tests assert on it
 */

static int cfs_mkdir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), DEV "/%s", rel);
	return mkdir(path, 0755) ? -errno : 0;
}

/* Link @target (relative to the device) into @dir (relative too). */
static int cfs_link(const char *dir, const char *target)
{
	char from[512], to[512];
	const char *name = strrchr(target, '/');

	snprintf(to, sizeof(to), DEV "/%s", target);
	snprintf(from, sizeof(from), DEV "/%s/%s", dir, name ? name + 1 : target);
	return symlink(to, from) ? -errno : 0;
}

/*
 * A text attribute's store errors come back from write(); a binary
 * attribute's are only those of write() itself (too big: EFBIG), configfs
 * hands it over at close() and ignores what it returns.
 */
static int cfs_write_bytes(const char *rel, const void *buf, size_t len)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), DEV "/%s", rel);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, len) != (ssize_t)len)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static int cfs_write(const char *rel, const char *value)
{
	return cfs_write_bytes(rel, value, strlen(value));
}

static ssize_t cfs_read_bytes(const char *rel, void *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DEV "/%s", rel);
	fd = open(path, O_RDONLY);
	igt_assert_f(fd >= 0, "open %s: %m\n", path);
	n = read(fd, buf, len);
	close(fd);
	return n;
}

static int cfs_read_int(const char *rel)
{
	char path[512], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), DEV "/%s", rel);
	fd = open(path, O_RDONLY);
	igt_assert_f(fd >= 0, "open %s: %m\n", path);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	igt_assert_lt(0, n);
	return atoi(buf);
}

/*
 * The names of @dir's entries of type @type, read before any is removed:
 * removing entries while reading a configfs directory skips some.
 */
static unsigned int list_dir(const char *dir, unsigned char type,
			     char names[][64], unsigned int max)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max)
		if (de->d_type == type && de->d_name[0] != '.' &&
		    strlen(de->d_name) < 64)
			strcpy(names[n++], de->d_name);
	closedir(d);
	return n;
}

static void rm_links(const char *dir)
{
	char names[64][64], path[2048];
	unsigned int n = list_dir(dir, DT_LNK, names, 64);

	for (unsigned int i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) <
		    (int)sizeof(path))
			unlink(path);
	}
}

/* Remove every object of one kind ("planes", ...), their links first. */
static void rm_objects(const char *kind)
{
	static const char *const possible[] = {
		"possible_crtcs", "possible_encoders",
	};
	char names[64][64], dir[512], path[2048];
	unsigned int n;

	snprintf(dir, sizeof(dir), DEV "/%s", kind);
	n = list_dir(dir, DT_DIR, names, 64);
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < ARRAY_SIZE(possible); j++) {
			if (snprintf(path, sizeof(path), "%s/%s/%s", dir,
				     names[i], possible[j]) < (int)sizeof(path))
				rm_links(path);
		}
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) <
		    (int)sizeof(path))
			rmdir(path);
	}
}

/* Every object, each after what links to it */
static void rm_all_objects(void)
{
	rm_objects("planes");
	rm_objects("connectors");
	rm_objects("encoders");
	rm_objects("crtcs");
}

/* Take the test device down and away, whatever state it is in. */
static void cfs_teardown(int sig)
{
	if (access(DEV, F_OK))
		return;
	cfs_write("enabled", "0");
	rm_all_objects();
	rmdir(DEV);
}

/* The platform device ids of the configfs devices now bound */
static unsigned int cfs_bound(int *id)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(DRIVER_DIR);
	int i;

	igt_assert(d);
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "vdisplay.%d", &i) == 1 &&
		    i >= FIRST_CFS_ID) {
			n++;
			if (id)
				*id = i;
		}
	closedir(d);
	return n;
}

/* Open the primary node of the one configfs device, filling @kms. */
static void cfs_kms_open(struct primepair_kms *kms)
{
	char path[512];
	struct dirent *de;
	int id, card = -1;
	DIR *d;

	igt_assert_eq(cfs_bound(&id), 1);
	snprintf(path, sizeof(path), DRIVER_DIR "vdisplay.%d/drm", id);
	d = opendir(path);
	igt_assert(d);
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "card%d", &card) == 1)
			break;
	closedir(d);
	igt_assert_lte(0, card);

	/* primepair_kms_open_nth() counts vdisplay cards in minor order. */
	for (unsigned int n = 0;; n++) {
		struct stat st;

		primepair_kms_open_nth(kms, n);
		igt_assert_eq(fstat(kms->fd, &st), 0);
		if ((int)minor(st.st_rdev) == card)
			return;
		close(kms->fd);
	}
}

/*
 * The acceptance topology: 2 CRTCs (the first with writeback), a primary
 * plane each, 3 overlays either CRTC can show, a cursor on the first,
 * and an encoder and a connector for each CRTC.
 */
static void build_two_outputs(void)
{
	static const char *const planes[] = {
		"primary0", "primary1", "overlay0", "overlay1", "overlay2",
		"cursor0",
	};

	cfs_teardown(0);
	igt_assert_eq(mkdir(DEV, 0755), 0);
	igt_assert_eq(cfs_mkdir("crtcs/crtc0"), 0);
	igt_assert_eq(cfs_mkdir("crtcs/crtc1"), 0);
	igt_assert_eq(cfs_write("crtcs/crtc0/writeback", "1"), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(planes); i++) {
		char path[128];

		snprintf(path, sizeof(path), "planes/%s", planes[i]);
		igt_assert_eq(cfs_mkdir(path), 0);
	}
	/* Types as DRM_PLANE_TYPE_* numbers them; overlay is the default */
	igt_assert_eq(cfs_read_int("planes/overlay0/type"), 0);
	igt_assert_eq(cfs_write("planes/primary0/type", "1"), 0);
	igt_assert_eq(cfs_write("planes/primary1/type", "1"), 0);
	igt_assert_eq(cfs_write("planes/cursor0/type", "2"), 0);
	igt_assert_eq(cfs_link("planes/primary0/possible_crtcs", "crtcs/crtc0"), 0);
	igt_assert_eq(cfs_link("planes/primary1/possible_crtcs", "crtcs/crtc1"), 0);
	igt_assert_eq(cfs_link("planes/cursor0/possible_crtcs", "crtcs/crtc0"), 0);
	for (unsigned int i = 0; i < 3; i++) {
		char dir[128];

		snprintf(dir, sizeof(dir), "planes/overlay%u/possible_crtcs", i);
		igt_assert_eq(cfs_link(dir, "crtcs/crtc0"), 0);
		igt_assert_eq(cfs_link(dir, "crtcs/crtc1"), 0);
	}
	igt_assert_eq(cfs_mkdir("encoders/encoder0"), 0);
	igt_assert_eq(cfs_mkdir("encoders/encoder1"), 0);
	igt_assert_eq(cfs_link("encoders/encoder0/possible_crtcs", "crtcs/crtc0"), 0);
	igt_assert_eq(cfs_link("encoders/encoder1/possible_crtcs", "crtcs/crtc1"), 0);
	igt_assert_eq(cfs_mkdir("connectors/connector0"), 0);
	igt_assert_eq(cfs_mkdir("connectors/connector1"), 0);
	igt_assert_eq(cfs_link("connectors/connector0/possible_encoders",
			       "encoders/encoder0"), 0);
	igt_assert_eq(cfs_link("connectors/connector1/possible_encoders",
			       "encoders/encoder1"), 0);
}

static void require_configfs(void)
{
	igt_require_f(access(CFS, F_OK) == 0,
		      "no " CFS " (configfs not mounted?)\n");
}

/* ----------------------------------------------------------------------
 * Subtests
 */

static void assert_plane(int fd, uint32_t id, uint64_t type, uint32_t crtcs)
{
	drmModePlanePtr p = drmModeGetPlane(fd, id);

	igt_assert(p);
	igt_assert_eq(primepair_prop_value(fd, id, DRM_MODE_OBJECT_PLANE, "type"),
		      type);
	igt_assert_eq_u32(p->possible_crtcs, crtcs);
	drmModeFreePlane(p);
}

static void test_topology(void)
{
	struct primepair_kms kms = {};
	struct primepair_fb fb[2], wb;
	drmModePlaneResPtr pres;
	drmModeResPtr res;
	unsigned int n[3] = {};
	int before;

	require_configfs();
	before = cfs_bound(NULL);
	build_two_outputs();
	igt_assert_eq(cfs_read_int("enabled"), 0);
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	igt_assert_eq(cfs_read_int("enabled"), 1);
	igt_assert_eq(cfs_bound(NULL), before + 1);
	cfs_kms_open(&kms);

	res = drmModeGetResources(kms.fd);
	igt_assert(res);
	igt_assert_eq(res->count_crtcs, 2);
	/* Two connectors and encoders, plus the writeback pair of crtc0 */
	igt_assert_eq(res->count_connectors, 3);
	igt_assert_eq(res->count_encoders, 3);
	for (int i = 0; i < 2; i++) {
		drmModeEncoderPtr e = drmModeGetEncoder(kms.fd, res->encoders[i]);

		igt_assert(e);
		igt_assert_eq_u32(e->possible_crtcs, 1u << i);
		drmModeFreeEncoder(e);
	}
	drmModeFreeResources(res);

	pres = drmModeGetPlaneResources(kms.fd);
	igt_assert(pres);
	igt_assert_eq(pres->count_planes, 6);
	/* Planes in the order they were made in configfs */
	assert_plane(kms.fd, pres->planes[0], 1, 0x1);	/* primary0 */
	assert_plane(kms.fd, pres->planes[1], 1, 0x2);	/* primary1 */
	for (int i = 2; i <= 4; i++)			/* overlay0..2 */
		assert_plane(kms.fd, pres->planes[i], 0, 0x3);
	assert_plane(kms.fd, pres->planes[5], 2, 0x1);	/* cursor0 */
	for (unsigned int i = 0; i < pres->count_planes; i++)
		n[primepair_prop_value(kms.fd, pres->planes[i],
				       DRM_MODE_OBJECT_PLANE, "type")]++;
	igt_assert_eq(n[0], 3);
	drmModeFreePlaneResources(pres);

	igt_assert_eq(kms.noutputs, 2);
	igt_assert(kms.outputs[0].wb_connector_id);
	igt_assert(!kms.outputs[1].wb_connector_id);
	igt_assert_eq(kms.outputs[0].noverlays, 3);
	igt_assert_eq(kms.outputs[1].noverlays, 3);

	/* Both outputs light up; writeback shows crtc0's picture. */
	for (int i = 0; i < 2; i++) {
		primepair_fb_create(kms.fd, kms.outputs[i].mode.hdisplay,
				    kms.outputs[i].mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &fb[i]);
		primepair_fb_fill_color(&fb[i], i ? ~FILL : FILL);
		igt_assert_eq(primepair_modeset(&kms, &kms.outputs[i], &fb[i]), 0);
	}
	primepair_fb_create(kms.fd, fb[0].width, fb[0].height,
			    DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(&kms, &kms.outputs[0], &wb);
	for (uint32_t y = 0; y < wb.height; y += 7)
		for (uint32_t x = 0; x < wb.width; x += 5)
			igt_assert_eq_u32(((uint32_t *)wb.map)[y * wb.pitch / 4 + x] &
					  0xffffff, FILL & 0xffffff);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb[0]);
	primepair_fb_destroy(kms.fd, &fb[1]);
	primepair_kms_close(&kms);

	/* Disabled, the device is gone; the description stays. */
	igt_assert_eq(cfs_write("enabled", "0"), 0);
	igt_assert_eq(cfs_bound(NULL), before);
	igt_assert_eq(cfs_read_int("enabled"), 0);
	igt_assert_eq(access(DEV "/planes/primary0", F_OK), 0);

	/* And it can be enabled again. */
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	igt_assert_eq(cfs_bound(NULL), before + 1);
	cfs_teardown(0);
	igt_assert_eq(cfs_bound(NULL), before);
	primepair_assert_summary_zero();
}

static void assert_connection(int fd, uint32_t id, int connection)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, id);

	igt_assert(c);
	igt_assert_eq(c->connection, connection);
	if (connection == DRM_MODE_CONNECTED)
		igt_assert_lt(0, c->count_modes);
	else
		igt_assert_eq(c->count_modes, 0);
	drmModeFreeConnector(c);
}

static void test_hotplug(void)
{
	struct primepair_kms kms = {};
	uint32_t id;
	int ev;

	require_configfs();
	build_two_outputs();
	/* connector1 starts unplugged */
	igt_assert_eq(cfs_read_int("connectors/connector1/status"), 1);
	igt_assert_eq(cfs_write("connectors/connector1/status", "2"), 0);
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	cfs_kms_open(&kms);
	id = kms.outputs[1].connector_id;
	assert_connection(kms.fd, kms.outputs[0].connector_id, DRM_MODE_CONNECTED);
	assert_connection(kms.fd, id, DRM_MODE_DISCONNECTED);

	ev = primepair_uevent_open();
	igt_assert_eq(cfs_write("connectors/connector1/status", "1"), 0);
	igt_assert(primepair_uevent_hotplug(ev));
	assert_connection(kms.fd, id, DRM_MODE_CONNECTED);

	igt_assert_eq(cfs_write("connectors/connector1/status", "2"), 0);
	igt_assert(primepair_uevent_hotplug(ev));
	assert_connection(kms.fd, id, DRM_MODE_DISCONNECTED);
	igt_assert_eq(cfs_read_int("connectors/connector1/status"), 2);

	/* No event when nothing changes */
	igt_assert_eq(cfs_write("connectors/connector1/status", "2"), 0);
	igt_assert(!primepair_uevent_hotplug(ev));

	/* Only connected (1) and disconnected (2) */
	igt_assert_eq(cfs_write("connectors/connector1/status", "0"), -EINVAL);
	igt_assert_eq(cfs_write("connectors/connector1/status", "3"), -EINVAL);
	igt_assert_eq(cfs_write("connectors/connector1/status", "x"), -EINVAL);
	igt_assert_eq(cfs_read_int("connectors/connector1/status"), 2);

	close(ev);
	primepair_kms_close(&kms);
	cfs_teardown(0);
	primepair_assert_summary_zero();
}

/* A bad EDID written to @rel leaves it as it was: @before, or empty. */
static void assert_edid_refused(const char *rel, const uint8_t *edid,
				size_t len, const uint8_t *before)
{
	uint8_t back[256];

	igt_assert_eq(cfs_write_bytes(rel, edid, len), 0);
	igt_assert_eq(cfs_read_bytes(rel, back, sizeof(back)), before ? 128 : 0);
	if (before)
		igt_assert(!memcmp(back, before, 128));
}

static void test_edid(void)
{
	struct primepair_kms kms = {};
	struct primepair_fb fb;
	uint8_t edid[128], bad[256];
	uint32_t id;
	int ev;

	require_configfs();
	primepair_make_edid(edid);
	build_two_outputs();

	/*
	 * Refused, the attribute staying empty: bad checksum, bad header,
	 * short, an announced extension missing; too big fails write().
	 */
	memcpy(bad, edid, 128);
	bad[127] ^= 1;
	assert_edid_refused("connectors/connector0/edid", bad, 128, NULL);
	memcpy(bad, edid, 128);
	bad[1] = 0;
	bad[127] += 0xff;
	assert_edid_refused("connectors/connector0/edid", bad, 128, NULL);
	assert_edid_refused("connectors/connector0/edid", edid, 127, NULL);
	memcpy(bad, edid, 128);
	bad[126] = 1;
	bad[127] -= 1;
	assert_edid_refused("connectors/connector0/edid", bad, 128, NULL);
	{
		static uint8_t huge[2048];

		igt_assert_eq(cfs_write_bytes("connectors/connector0/edid", huge,
					      sizeof(huge)), -EFBIG);
	}

	/* Given before enabling: the connector starts with its modes */
	igt_assert_eq(cfs_write_bytes("connectors/connector0/edid", edid, 128), 0);
	igt_assert_eq(cfs_read_bytes("connectors/connector0/edid", bad, sizeof(bad)), 128);
	igt_assert(!memcmp(bad, edid, 128));
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	cfs_kms_open(&kms);
	igt_assert_eq(kms.outputs[0].mode.hdisplay, 1280);
	primepair_assert_edid_modes(kms.fd, kms.outputs[0].connector_id, edid);

	/* The EDID's mode lights the output. */
	primepair_fb_create(kms.fd, 1280, 720, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_color(&fb, FILL);
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb), 0);
	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &fb);

	/* Given to a live connector: a hotplug event, then its modes */
	id = kms.outputs[1].connector_id;
	ev = primepair_uevent_open();
	igt_assert_eq(cfs_write_bytes("connectors/connector1/edid", edid, 128), 0);
	igt_assert(primepair_uevent_hotplug(ev));
	primepair_assert_edid_modes(kms.fd, id, edid);
	/* A bad one changes nothing. */
	memcpy(bad, edid, 128);
	bad[127] ^= 1;
	assert_edid_refused("connectors/connector1/edid", bad, 128, edid);
	primepair_assert_edid_modes(kms.fd, id, edid);
	close(ev);

	primepair_kms_close(&kms);
	cfs_teardown(0);
	primepair_assert_summary_zero();
}

/* primepair_make_edid()'s block and an empty CTA-861 extension */
static void make_edid_two_blocks(uint8_t edid[256])
{
	uint8_t sum = 0;

	primepair_make_edid(edid);
	edid[126] = 1;
	edid[127] = 0;
	for (int i = 0; i < 127; i++)
		sum += edid[i];
	edid[127] = -sum;

	memset(edid + 128, 0, 128);
	edid[128] = 0x02;	/* CTA-861 */
	edid[129] = 3;		/* revision */
	edid[130] = 4;		/* no data blocks, no detailed timings */
	sum = 0;
	for (int i = 128; i < 255; i++)
		sum += edid[i];
	edid[255] = -sum;
}

static void stop_writer(void *data)
{
	pid_t *writer = data;

	if (*writer > 0) {
		kill(*writer, SIGKILL);
		waitpid(*writer, NULL, 0);
		*writer = 0;
	}
}

/*
 * configfs reads a binary attribute in two calls, one for the size and
 * one for the bytes, and hands the reader as many bytes as the first
 * call said.  An EDID of another size written in between must not leave
 * the reader with a mix, or with bytes nobody wrote: each read gives one
 * of the EDIDs whole, or fails with EAGAIN.
 */
static void test_edid_read_race(void)
{
	const char *rel = "connectors/connector0/edid";
	uint8_t one[128], two[256], back[512];
	int reads = 0, again = 0, status;
	pid_t writer;

	require_configfs();
	primepair_make_edid(one);
	make_edid_two_blocks(two);
	build_two_outputs();
	igt_assert_eq(cfs_write_bytes(rel, two, sizeof(two)), 0);
	igt_assert_eq(cfs_write_bytes(rel, one, sizeof(one)), 0);

	writer = fork();
	igt_assert(writer >= 0);
	if (writer)
		primepair_subtest_cleanup_push(stop_writer, &writer);
	else {
		for (int i = 0; i < 4000; i++)
			if (cfs_write_bytes(rel, i & 1 ? one : two,
					    i & 1 ? sizeof(one) : sizeof(two)))
				_exit(1);
		_exit(0);
	}

	while (waitpid(writer, &status, WNOHANG) == 0) {
		ssize_t n = cfs_read_bytes(rel, back, sizeof(back));

		reads++;
		if (n < 0 && errno == EAGAIN) {
			again++;
			continue;
		}
		igt_assert_f((n == sizeof(one) && !memcmp(back, one, n)) ||
			     (n == sizeof(two) && !memcmp(back, two, n)),
			     "read %zd bytes, neither EDID whole\n", n);
	}
	writer = 0;	/* reaped */
	primepair_subtest_cleanup_pop(true);
	igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	igt_info("%d reads while the EDID changed, %d asked to start again\n",
		 reads, again);
	igt_assert_lt(0, reads);
	cfs_teardown(0);
}

/* Enabling refuses the description: EINVAL, no device, "enabled" is 0. */
static void assert_refused(const char *why)
{
	int before = cfs_bound(NULL);

	igt_assert_f(cfs_write("enabled", "1") == -EINVAL,
		     "enabling %s did not fail with EINVAL\n", why);
	igt_assert_eq(cfs_read_int("enabled"), 0);
	igt_assert_eq(cfs_bound(NULL), before);
}

static void test_bad_config(void)
{
	require_configfs();

	/* Nothing at all */
	cfs_teardown(0);
	igt_assert_eq(mkdir(DEV, 0755), 0);
	assert_refused("an empty device");

	/* A CRTC without a primary plane */
	igt_assert_eq(cfs_mkdir("crtcs/crtc0"), 0);
	assert_refused("a CRTC without primary plane");

	/* A primary plane linked to no CRTC */
	igt_assert_eq(cfs_mkdir("planes/primary0"), 0);
	igt_assert_eq(cfs_write("planes/primary0/type", "1"), 0);
	assert_refused("a plane without CRTC");
	igt_assert_eq(cfs_link("planes/primary0/possible_crtcs", "crtcs/crtc0"), 0);

	/* Two primaries on one CRTC; then one primary for two CRTCs */
	igt_assert_eq(cfs_mkdir("planes/primary1"), 0);
	igt_assert_eq(cfs_write("planes/primary1/type", "1"), 0);
	igt_assert_eq(cfs_link("planes/primary1/possible_crtcs", "crtcs/crtc0"), 0);
	assert_refused("two primary planes on a CRTC");
	igt_assert_eq(cfs_mkdir("crtcs/crtc1"), 0);
	igt_assert_eq(cfs_link("planes/primary1/possible_crtcs", "crtcs/crtc1"), 0);
	assert_refused("a primary plane on two CRTCs");
	igt_assert_eq(unlink(DEV "/planes/primary1/possible_crtcs/crtc0"), 0);

	/* Two cursors on one CRTC */
	igt_assert_eq(cfs_mkdir("planes/cursor0"), 0);
	igt_assert_eq(cfs_mkdir("planes/cursor1"), 0);
	igt_assert_eq(cfs_write("planes/cursor0/type", "2"), 0);
	igt_assert_eq(cfs_write("planes/cursor1/type", "2"), 0);
	igt_assert_eq(cfs_link("planes/cursor0/possible_crtcs", "crtcs/crtc0"), 0);
	igt_assert_eq(cfs_link("planes/cursor1/possible_crtcs", "crtcs/crtc0"), 0);
	assert_refused("two cursor planes on a CRTC");
	igt_assert_eq(unlink(DEV "/planes/cursor1/possible_crtcs/crtc0"), 0);
	igt_assert_eq(rmdir(DEV "/planes/cursor1"), 0);

	/* An encoder without CRTC; a connector without encoder */
	igt_assert_eq(cfs_mkdir("encoders/encoder0"), 0);
	assert_refused("an encoder without CRTC");
	igt_assert_eq(cfs_link("encoders/encoder0/possible_crtcs", "crtcs/crtc0"), 0);
	igt_assert_eq(cfs_mkdir("connectors/connector0"), 0);
	assert_refused("a connector without encoder");
	igt_assert_eq(cfs_link("connectors/connector0/possible_encoders",
			       "encoders/encoder0"), 0);

	/* More planes on a CRTC than it can blend (8) */
	for (int i = 0; i < 7; i++) {
		char path[128];

		snprintf(path, sizeof(path), "planes/extra%d", i);
		igt_assert_eq(cfs_mkdir(path), 0);
		snprintf(path, sizeof(path), "planes/extra%d/possible_crtcs", i);
		igt_assert_eq(cfs_link(path, "crtcs/crtc0"), 0);
	}
	assert_refused("nine planes on a CRTC");
	igt_assert_eq(unlink(DEV "/planes/extra6/possible_crtcs/crtc0"), 0);
	igt_assert_eq(rmdir(DEV "/planes/extra6"), 0);

	/* Links of the wrong kind, or into another device */
	igt_assert_eq(cfs_link("planes/extra0/possible_crtcs", "encoders/encoder0"),
		      -EINVAL);
	igt_assert_eq(cfs_link("connectors/connector0/possible_encoders",
			       "crtcs/crtc1"), -EINVAL);
	igt_assert_eq(mkdir(CFS "/pp-other", 0755), 0);
	igt_assert_eq(mkdir(CFS "/pp-other/crtcs/crtc9", 0755), 0);
	igt_assert_eq(symlink(CFS "/pp-other/crtcs/crtc9",
			      DEV "/planes/extra0/possible_crtcs/crtc9"), -1);
	igt_assert_eq(errno, EINVAL);
	/* A link target cannot go while linked. */
	igt_assert_eq(rmdir(DEV "/crtcs/crtc0"), -1);
	igt_assert_eq(errno, EBUSY);
	igt_assert_eq(rmdir(CFS "/pp-other/crtcs/crtc9"), 0);
	igt_assert_eq(rmdir(CFS "/pp-other"), 0);

	/* Bad values */
	igt_assert_eq(cfs_write("planes/extra0/type", "3"), -EINVAL);
	igt_assert_eq(cfs_write("planes/extra0/type", "-1"), -EINVAL);
	igt_assert_eq(cfs_write("planes/extra0/type", "primary"), -EINVAL);
	igt_assert_eq(cfs_write("crtcs/crtc0/writeback", "2"), -EINVAL);
	igt_assert_eq(cfs_write("enabled", "maybe"), -EINVAL);
	igt_assert_eq(cfs_read_int("planes/extra0/type"), 0);

	/* Complete now, with eight planes on crtc0; while on, fixed */
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	igt_assert_eq(cfs_mkdir("planes/late"), -EBUSY);
	igt_assert_eq(cfs_mkdir("crtcs/late"), -EBUSY);
	igt_assert_eq(cfs_write("planes/extra0/type", "1"), -EBUSY);
	igt_assert_eq(cfs_write("crtcs/crtc0/writeback", "1"), -EBUSY);
	igt_assert_eq(cfs_link("planes/extra0/possible_crtcs", "crtcs/crtc1"), -EBUSY);
	igt_assert_eq(cfs_write("enabled", "1"), 0);	/* already on: no-op */
	igt_assert_eq(cfs_bound(NULL), 1);

	cfs_teardown(0);
	igt_assert_eq(cfs_bound(NULL), 0);
	primepair_assert_summary_zero();
}

/* vrender fills its import @bo of @fb's layout with @color and waits. */
static void render_fill(int render, uint32_t bo, const struct primepair_fb *fb,
			uint32_t color)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, fb->pitch, 0, 0,
							  fb->width, fb->height,
							  color);

	primepair_vrender_submit(render, &c, 1);
	primepair_vrender_bo_wait(render, bo, 10000000000ll);
}

/*
 * Disabled (or its directory removed) while a client holds it open with
 * a picture on screen and vrender renders into its exported scanout
 * buffer: the client gets ENODEV, the buffer lives on, nothing leaks.
 */
static void remove_busy(bool by_rmdir)
{
	struct primepair_kms kms = {};
	struct primepair_fb fb;
	uint32_t imported, *map;
	int render, dmabuf;

	require_configfs();
	build_two_outputs();
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	cfs_kms_open(&kms);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	primepair_fb_create_shared(&kms, &kms.outputs[0], render, &fb, &dmabuf,
				   &imported);
	render_fill(render, imported, &fb, FILL);
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb), 0);

	if (by_rmdir) {
		/* configfs cannot refuse rmdir: the device goes with it. */
		rm_all_objects();
		igt_assert_eq(cfs_bound(NULL), 1);
		igt_assert_eq(rmdir(DEV), 0);
	} else {
		igt_assert_eq(cfs_write("enabled", "0"), 0);
	}
	igt_assert_eq(cfs_bound(NULL), 0);

	primepair_kms_assert_unplugged(&kms, &fb);

	render_fill(render, imported, &fb, ~FILL);
	map = mmap(NULL, fb.size, PROT_READ, MAP_SHARED, dmabuf, 0);
	igt_assert(map != MAP_FAILED);
	for (uint32_t y = 0; y < fb.height; y++)
		for (uint32_t x = 0; x < fb.width; x++)
			igt_assert_eq_u32(map[y * fb.pitch / 4 + x] & 0xffffff,
					  ~FILL & 0xffffff);
	munmap(map, fb.size);

	close(dmabuf);
	igt_assert_eq(drmCloseBufferHandle(render, imported), 0);
	if (fb.map)
		munmap(fb.map, fb.size);
	close(kms.fd);
	close(render);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
	cfs_teardown(0);
}

/* The largest mode @o's connector lists becomes @o's test mode. */
static void pick_largest_mode(int fd, struct primepair_output *o)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, o->connector_id);

	igt_assert(c && c->count_modes > 0);
	for (int i = 0; i < c->count_modes; i++)
		if ((uint32_t)c->modes[i].hdisplay * c->modes[i].vdisplay >
		    (uint32_t)o->mode.hdisplay * o->mode.vdisplay)
			o->mode = c->modes[i];
	drmModeFreeConnector(c);
}

#define MEMCG		"primepair-vdisplay"

/*
 * In the group: the writeback commit @req and opening the CRC file
 * @crc_data must both fail with ENOMEM.  Exit status 0 if so, else what
 * went wrong (no asserts in a plain child).
 */
static void memcg_child(int fd, drmModeAtomicReqPtr req, const char *crc_data)
{
	int ret, data;

	if (primepair_memcg_join(MEMCG))
		_exit(200);
	ret = primepair_commit(fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET);
	if (ret != -ENOMEM)
		_exit(ret ? 100 + (-ret & 0x3f) : 201);
	data = open(crc_data, O_RDONLY);
	if (data >= 0)
		_exit(202);
	_exit(errno == ENOMEM ? 0 : 150 + (errno & 0x3f));
}

/*
 * A fresh device composes nothing until a writeback job or a CRC reader
 * asks for frames; the image it then needs is reserved in the asking
 * process and charged to its memory cgroup.  Over the group's limit the
 * commit and the CRC open fail with ENOMEM, nothing waits for a frame
 * that cannot come, nothing is killed; outside it both work.
 */
static void test_memcg_image(void)
{
	const uint32_t t = DRM_MODE_OBJECT_CONNECTOR;
	struct primepair_kms kms = {};
	struct primepair_output *o;
	struct primepair_fb fb, wb;
	char ctl[256], data[256], name[64], max[32];
	drmModeAtomicReqPtr req;
	int32_t fence = -1;
	uint64_t image;
	int status, fd;
	pid_t pid;

	require_configfs();
	/* No limit yet: the group is made before anything can skip */
	primepair_memcg_create(MEMCG, "max");
	build_two_outputs();
	igt_assert_eq(cfs_write("enabled", "1"), 0);
	cfs_kms_open(&kms);
	o = &kms.outputs[0];
	igt_assert(o->wb_connector_id);
	pick_largest_mode(kms.fd, o);
	/*
	 * The image holds a 64-bit pixel for each of the mode's, three
	 * times the group's limit.  Under KASAN a failed vmalloc leaves
	 * its shadow (an eighth of its size) charged until the kernel
	 * purges freed areas lazily, so the two failed reservations can
	 * leave the group at its limit for a while: the child then must
	 * not fault in a page (its symbols are bound at start-up, see the
	 * Makefile), or the group's OOM killer takes it.
	 */
	image = (uint64_t)o->mode.hdisplay * o->mode.vdisplay * 8;
	snprintf(max, sizeof(max), "%llu",
		 (unsigned long long)(image / 3) & ~4095ull);
	igt_assert(image / 3 > 1u << 20);
	primepair_memcg_create(MEMCG, max);

	/* Both buffers' pages are allocated here, outside the group. */
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	for (uint32_t y = 0; y < fb.height; y++)
		for (uint32_t x = 0; x < fb.width; x++)
			((uint32_t *)fb.map)[y * fb.pitch / 4 + x] = FILL;
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &wb);
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);

	snprintf(name, sizeof(name), "crtc-%u/crc/control", o->crtc_index);
	igt_assert_eq(pp_dri_debugfs_path(kms.fd, name, ctl, sizeof(ctl)), 0);
	snprintf(name, sizeof(name), "crtc-%u/crc/data", o->crtc_index);
	igt_assert_eq(pp_dri_debugfs_path(kms.fd, name, data, sizeof(data)), 0);
	fd = open(ctl, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", ctl);
	igt_assert_eq(write(fd, "auto", 4), 4);
	close(fd);

	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(kms.fd, req, o->wb_connector_id, t, "CRTC_ID", o->crtc_id);
	primepair_add(kms.fd, req, o->wb_connector_id, t, "WRITEBACK_FB_ID",
		      wb.fb_id);
	primepair_add(kms.fd, req, o->wb_connector_id, t,
		      "WRITEBACK_OUT_FENCE_PTR", (uint64_t)(uintptr_t)&fence);
	pid = fork();
	igt_assert_lte(0, pid);
	if (pid == 0)
		memcg_child(kms.fd, req, data);
	drmModeAtomicFree(req);
	igt_assert_eq(waitpid(pid, &status, 0), pid);
	igt_assert_f(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		     "in the group: status %#x\n", status);
	primepair_memcg_remove(MEMCG);

	/* Outside the group: the frame is written back, CRCs come. */
	primepair_writeback_capture(&kms, o, &wb);
	for (uint32_t y = 0; y < wb.height; y++)
		for (uint32_t x = 0; x < wb.width; x++)
			igt_assert_eq_u32(((uint32_t *)wb.map)[y * wb.pitch / 4 + x] &
					  0xffffff, FILL & 0xffffff);
	/* vdisplay's CRC: the CRC-32 register over the rows, not inverted */
	igt_assert_eq_u32(fb.pitch, fb.width * 4);
	igt_assert_eq_u32(primepair_crc_still(&kms, o, 10),
			  ~primepair_crc32(0, fb.map, (size_t)fb.pitch * fb.height));

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb);
	close(kms.fd);
	cfs_teardown(0);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		igt_install_exit_handler(cfs_teardown);
	}

	igt_describe("Two CRTCs, two connectors, three shared overlays and a cursor made in configfs: the DRM device has that shape and shows pictures; disabling removes it");
	igt_subtest("topology")
		test_topology();

	igt_describe("A connector's status unplugs and plugs it at run time, each change with a hotplug uevent");
	igt_subtest("hotplug")
		test_hotplug();

	igt_describe("A connector's EDID becomes its mode list and EDID property, before enabling and at run time; bad EDIDs are refused");
	igt_subtest("edid")
		test_edid();

	igt_describe("An EDID read while EDIDs of other sizes are written gives one of them whole, or EAGAIN; never a mix or bytes nobody wrote");
	igt_subtest("edid-read-race")
		test_edid_read_race();

	igt_describe("Descriptions the DRM core would reject fail to enable with EINVAL; a live device's shape cannot change");
	igt_subtest("bad-config")
		test_bad_config();

	igt_describe("Disabling a device in use by a client and by vrender: ENODEV for the client, the shared buffer lives on, nothing leaks");
	igt_subtest("disable-busy")
		remove_busy(false);

	igt_describe("Removing the directory of an enabled device in use removes the device, safely");
	igt_subtest("rmdir-busy")
		remove_busy(true);

	igt_describe("The composer's image is charged to the process asking for frames: over its memory cgroup's limit, writeback and CRC fail with ENOMEM; outside it they work");
	igt_subtest("memcg-image")
		test_memcg_image();
}

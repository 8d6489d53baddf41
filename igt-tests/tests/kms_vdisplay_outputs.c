// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_outputs - vdisplay's module parameters and connectors
 *
 * Reloads vdisplay with outputs=4 overlays=2, and checks the resources
 * match the parameters, that each CRTC sets a mode, counts vblanks and
 * turns off again, that the mode list stops at max_width/max_height and
 * that a made-up mode past that list still works.
 * Then the hotplug file: unplugging a connector sends a hotplug uevent
 * and the connector reads disconnected with no modes; plugging it back
 * restores both.  An EDID forced through the core's edid_override or
 * drm.edid_firmware gives the connector that EDID's modes until it is
 * reset; two connectors given the EDIDs of the tiles of one monitor flip
 * together.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
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

/*
 * A mode userspace makes up may be larger than any the connector lists
 * (a compositor's custom 1280x720 on a connector listing up to 800x600):
 * it is set, scanned out and written back pixel for pixel.  Past the
 * framebuffer limit, 8192, it is refused (kms_vdisplay_bad_input).
 */
static void test_custom_mode(void)
{
	static const drmModeModeInfo m720 = {
		.clock = 74250,
		.hdisplay = 1280, .hsync_start = 1390, .hsync_end = 1430,
		.htotal = 1650,
		.vdisplay = 720, .vsync_start = 725, .vsync_end = 730,
		.vtotal = 750,
		.vrefresh = 60,
		.flags = DRM_MODE_FLAG_PHSYNC | DRM_MODE_FLAG_PVSYNC,
		.type = DRM_MODE_TYPE_USERDEF,
		.name = "1280x720",
	};
	struct primepair_fb fb, wb;
	struct primepair_kms kms;
	struct primepair_output *o;
	drmModeConnectorPtr c;
	uint64_t seq;
	uint32_t *ref;
	int i;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER,
				"max_width=800 max_height=600");
	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	c = drmModeGetConnector(kms.fd, o->connector_id);
	igt_assert(c && c->count_modes > 0);
	for (i = 0; i < c->count_modes; i++)
		igt_assert_lte(c->modes[i].hdisplay, 800);
	drmModeFreeConnector(c);

	o->mode = m720;
	primepair_fb_create(kms.fd, 1280, 720, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 720);
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	seq = primepair_wait_vblank(&kms, o);
	igt_assert_eq_u64(primepair_wait_vblank(&kms, o), seq + 1);

	ref = calloc(1280 * 720, sizeof(*ref));
	igt_assert(ref);
	primepair_ref_blend(ref, 1280, 720, &fb, 0, 0, 0, 0, 1280, 720,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	primepair_fb_create(kms.fd, 1280, 720, DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq_u32(primepair_compare(&wb, ref, 0), 0);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb);
	free(ref);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/* The platform device behind @fd's node: "vdisplay.N" */
static void assert_parent(int fd, const char *want)
{
	char path[96], target[256];
	const char *name;
	struct stat st;
	ssize_t n;

	igt_assert_eq(fstat(fd, &st), 0);
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(path, target, sizeof(target) - 1);
	igt_assert_lt(0, n);
	target[n] = '\0';
	name = strrchr(target, '/');
	name = name ? name + 1 : target;
	igt_assert_f(!strcmp(name, want), "%s is %s, not %s\n", path, name,
		     want);
}

/*
 * devices=2: two DRM devices, each with every output the other parameters
 * ask for.  A dumb buffer of the first, exported and imported into the
 * second (what wlroots' multi-GPU path does), is scanned out by both at
 * once and both writebacks show its exact contents; every buffer is gone
 * after.
 */
static void test_two_devices(void)
{
	struct primepair_kms a, b;
	struct primepair_fb fb, alias, wba, wbb;
	uint32_t handles[4] = {}, pitches[4] = {}, offsets[4] = {};
	uint32_t imported, fb_b, w, h;
	struct stat sta, stb;
	uint32_t *ref;
	int dmabuf;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "devices=2 outputs=2");
	primepair_kms_open_nth(&a, 0);
	primepair_kms_open_nth(&b, 1);
	igt_assert_eq(fstat(a.fd, &sta), 0);
	igt_assert_eq(fstat(b.fd, &stb), 0);
	igt_assert(sta.st_rdev != stb.st_rdev);
	assert_parent(a.fd, "vdisplay.0");
	assert_parent(b.fd, "vdisplay.1");
	igt_assert_eq(a.noutputs, 2);
	igt_assert_eq(b.noutputs, 2);
	igt_assert(b.outputs[1].wb_connector_id && b.outputs[1].cursor);

	w = a.outputs[0].mode.hdisplay;
	h = a.outputs[0].mode.vdisplay;
	igt_assert_eq(b.outputs[1].mode.hdisplay, w);
	igt_assert_eq(b.outputs[1].mode.vdisplay, h);
	primepair_fb_create(a.fd, w, h, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 0x5eed);
	ref = malloc((size_t)w * h * 4);
	igt_assert(ref);
	memset(ref, 0, (size_t)w * h * 4);
	primepair_ref_blend(ref, w, h, &fb, 0, 0, 0, 0, w, h, 0xffff,
			    PRIMEPAIR_BLEND_PREMULTI);

	igt_assert_eq(drmPrimeHandleToFD(a.fd, fb.handle, DRM_CLOEXEC,
					 &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(b.fd, dmabuf, &imported), 0);
	close(dmabuf);
	handles[0] = imported;
	pitches[0] = fb.pitch;
	igt_assert_eq(drmModeAddFB2(b.fd, w, h, DRM_FORMAT_XRGB8888, handles,
				    pitches, offsets, &fb_b, 0), 0);

	igt_assert_eq(primepair_modeset(&a, &a.outputs[0], &fb), 0);
	/* the same picture, as device b's framebuffer */
	alias = fb;
	alias.handle = imported;
	alias.fb_id = fb_b;
	alias.map = NULL;
	igt_assert_eq(primepair_modeset(&b, &b.outputs[1], &alias), 0);

	primepair_fb_create(a.fd, w, h, DRM_FORMAT_XRGB8888, &wba);
	primepair_fb_create(b.fd, w, h, DRM_FORMAT_XRGB8888, &wbb);
	primepair_writeback_capture(&a, &a.outputs[0], &wba);
	primepair_writeback_capture(&b, &b.outputs[1], &wbb);
	igt_assert_eq_u32(primepair_compare(&wba, ref, 0), 0);
	igt_assert_eq_u32(primepair_compare(&wbb, ref, 0), 0);

	primepair_disable_all(&b);
	primepair_disable_all(&a);
	primepair_fb_destroy(b.fd, &wbb);
	primepair_fb_destroy(a.fd, &wba);
	igt_assert_eq(drmModeRmFB(b.fd, fb_b), 0);
	igt_assert_eq(drmCloseBufferHandle(b.fd, imported), 0);
	primepair_fb_destroy(a.fd, &fb);
	free(ref);
	primepair_kms_close(&b);
	primepair_kms_close(&a);
	primepair_assert_summary_zero();

	/* Out of range: the module refuses to load (-EINVAL) */
	igt_assert_eq(system("rmmod vdisplay"), 0);
	igt_assert_neq(system("modprobe vdisplay devices=0 2>/dev/null"), 0);
	igt_assert_neq(system("modprobe vdisplay devices=5 2>/dev/null"), 0);
	igt_assert_eq(system("modprobe vdisplay"), 0);
}

static void set_connected(struct primepair_kms *kms, uint32_t connector_id,
			  bool connected)
{
	char path[256];
	int fd;

	primepair_connector_debugfs(kms, connector_id, "vdisplay_connected",
				    path, sizeof(path));
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
	ev = primepair_uevent_open();

	set_connected(&kms, id, false);
	igt_assert(primepair_uevent_hotplug(ev));
	c = drmModeGetConnector(kms.fd, id);
	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_DISCONNECTED);
	igt_assert_eq(c->count_modes, 0);
	drmModeFreeConnector(c);

	set_connected(&kms, id, true);
	igt_assert(primepair_uevent_hotplug(ev));
	c = drmModeGetConnector(kms.fd, id);
	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_CONNECTED);
	igt_assert_lt(0, c->count_modes);
	drmModeFreeConnector(c);

	close(ev);
	primepair_kms_close(&kms);
}

/* Write @len bytes to the connector's edid_override file in debugfs */
static void write_edid_override(struct primepair_kms *kms, uint32_t id,
				const void *buf, size_t len)
{
	char path[256];
	int fd;

	primepair_connector_debugfs(kms, id, "edid_override", path, sizeof(path));
	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* The connector's first mode, from its EDID, lights @o. */
static void light_first_mode(struct primepair_kms *kms,
			     struct primepair_output *o)
{
	drmModeConnectorPtr c = drmModeGetConnector(kms->fd, o->connector_id);
	struct primepair_fb fb;

	igt_assert(c);
	igt_assert_lt(0, c->count_modes);
	o->mode = c->modes[0];
	drmModeFreeConnector(c);
	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);
	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

/* Connector @id has its @count standard modes again, and no EDID */
static void assert_standard_modes(int fd, uint32_t id, int count)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, id);

	igt_assert(c);
	igt_assert_eq(c->count_modes, count);
	drmModeFreeConnector(c);
	igt_assert_eq_u64(primepair_prop_value(fd, id, DRM_MODE_OBJECT_CONNECTOR,
					       "EDID"), 0);
}

/* The modes connector @id lists without an EDID: more than one */
static int standard_mode_count(int fd, uint32_t id)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, id);
	int count;

	igt_assert(c);
	count = c->count_modes;
	igt_assert_lt(1, count);
	drmModeFreeConnector(c);
	return count;
}

/*
 * The EDID forced through the core (what IGT's kmstest_force_edid() and
 * compositor CI scripts do) replaces the standard modes; "reset" brings
 * them back.  With @unload, vdisplay is unloaded with the EDID still
 * forced instead, and the next device has its standard modes; the core
 * frees a forced EDID only when it is reset, so vdisplay drops it on
 * removal (on a kmemleak kernel the suite's final scan would show it).
 */
static void test_edid_override(bool unload)
{
	struct primepair_kms kms;
	uint8_t edid[128];
	int count;
	uint32_t id;

	primepair_make_edid(edid);
	primepair_kms_open(&kms);
	id = kms.outputs[0].connector_id;
	count = standard_mode_count(kms.fd, id);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, id, DRM_MODE_OBJECT_CONNECTOR,
					       "EDID"), 0);

	write_edid_override(&kms, id, edid, sizeof(edid));
	primepair_assert_edid_modes(kms.fd, id, edid);

	if (unload) {
		/* vdisplay must drop the override: the core does on reset only */
		primepair_kms_close(&kms);
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
		primepair_kms_open(&kms);
		id = kms.outputs[0].connector_id;
	} else {
		/* The forced EDID's mode lights the output. */
		light_first_mode(&kms, &kms.outputs[0]);
		write_edid_override(&kms, id, "reset", 5);
	}
	assert_standard_modes(kms.fd, id, count);

	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/* @len bytes into a module parameter in sysfs, all of them */
static void write_param(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY);

	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_f(write(fd, buf, len) == (ssize_t)len, "write %s: %m\n", path);
	close(fd);
}

#define FW_PATH_PARAM	"/sys/module/firmware_class/parameters/path"
#define EDID_FW_PARAM	"/sys/module/drm/parameters/edid_firmware"

static char edid_fw_dir[64];

/*
 * Both parameters empty again, the file and its directory gone.  The
 * parameters are written a NUL byte: an empty write need not reach them.
 */
static void edid_firmware_cleanup(void)
{
	char path[128];

	write_param(EDID_FW_PARAM, "", 1);
	write_param(FW_PATH_PARAM, "", 1);
	if (!edid_fw_dir[0])
		return;
	snprintf(path, sizeof(path), "%s/pp-edid.bin", edid_fw_dir);
	unlink(path);
	rmdir(edid_fw_dir);
	edid_fw_dir[0] = '\0';
}

/*
 * drm.edid_firmware=<connector>:<file> (what users of real monitors with
 * broken EDIDs put on the kernel command line) gives the connector that
 * file's EDID and its modes; connectors it does not name keep theirs, and
 * emptying the parameter brings the standard modes back.  The file comes
 * from firmware_class.path, set at run time to a directory of the test's.
 */
static void test_edid_firmware(void)
{
	struct primepair_kms kms;
	drmModeConnectorPtr c;
	char path[128], param[64];
	uint8_t edid[128];
	int count, fd;
	uint32_t id;

	igt_require_f(access(EDID_FW_PARAM, W_OK) == 0,
		      "kernel without CONFIG_DRM_LOAD_EDID_FIRMWARE\n");
	igt_require(access(FW_PATH_PARAM, W_OK) == 0);

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "outputs=2");
	primepair_make_edid(edid);
	primepair_kms_open(&kms);
	igt_assert_eq(kms.noutputs, 2);
	id = kms.outputs[1].connector_id;

	c = drmModeGetConnector(kms.fd, id);
	igt_assert(c);
	count = c->count_modes;
	igt_assert_lt(1, count);
	snprintf(param, sizeof(param), "Virtual-%u:pp-edid.bin", c->connector_type_id);
	drmModeFreeConnector(c);

	strcpy(edid_fw_dir, "/tmp/pp-edidfw.XXXXXX");
	igt_assert(mkdtemp(edid_fw_dir));
	snprintf(path, sizeof(path), "%s/pp-edid.bin", edid_fw_dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	igt_assert(fd >= 0);
	igt_assert_eq(write(fd, edid, sizeof(edid)), (ssize_t)sizeof(edid));
	close(fd);

	write_param(FW_PATH_PARAM, edid_fw_dir, strlen(edid_fw_dir));
	write_param(EDID_FW_PARAM, param, strlen(param));

	/* The next probe loads it. */
	primepair_assert_edid_modes(kms.fd, id, edid);
	/* The connector it does not name keeps its own. */
	assert_standard_modes(kms.fd, kms.outputs[0].connector_id, count);

	/* Its mode lights the output, as any EDID's would. */
	light_first_mode(&kms, &kms.outputs[1]);

	edid_firmware_cleanup();
	assert_standard_modes(kms.fd, id, count);

	primepair_kms_close(&kms);
	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	primepair_assert_summary_zero();
}

/*
 * The EDID of tile @h_loc of a monitor made of two 1280x720 tiles side by
 * side: primepair_make_edid()'s base block and a DisplayID 1.2 extension
 * holding one tiled display topology block.
 */
static void make_tiled_edid(uint8_t edid[256], unsigned int h_loc)
{
	static const uint8_t topology_id[9] = {
		'P', 'P', 'R', 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,
	};
	uint8_t *ext = edid + 128, *tile = ext + 5, sum = 0;
	int i;

	primepair_make_edid(edid);
	edid[126] = 1;
	for (i = 0; i < 127; i++)
		sum += edid[i];
	edid[127] = (uint8_t)-sum;

	memset(ext, 0, 128);
	ext[0] = 0x70;			/* DisplayID extension */
	ext[1] = 0x12;			/* DisplayID 1.2 */
	ext[2] = 3 + 22;		/* one data block */
	tile[0] = 0x12;			/* tiled display topology */
	tile[2] = 22;
	tile[3] = 0x80;			/* one enclosure */
	tile[4] = 0x10;			/* 2 x 1 tiles (minus one each) */
	tile[5] = h_loc << 4;		/* at (h_loc, 0) */
	tile[7] = 1279 & 0xff;		/* tile size minus one, little endian */
	tile[8] = 1279 >> 8;
	tile[9] = 719 & 0xff;
	tile[10] = 719 >> 8;
	memcpy(tile + 16, topology_id, sizeof(topology_id));
	sum = 0;
	for (i = 1; i < 5 + 25; i++)
		sum += ext[i];
	ext[5 + 25] = (uint8_t)-sum;	/* the DisplayID section's */
	sum = 0;
	for (i = 0; i < 127; i++)
		sum += ext[i];
	ext[127] = (uint8_t)-sum;
}

/* The connector's TILE property: group, single, tiles h/v, loc h/v, size */
static void read_tile(int fd, uint32_t id, unsigned int v[8])
{
	drmModePropertyBlobPtr blob;
	uint64_t blob_id;
	char str[128];

	blob_id = primepair_prop_value(fd, id, DRM_MODE_OBJECT_CONNECTOR, "TILE");
	igt_assert(blob_id);
	blob = drmModeGetPropertyBlob(fd, blob_id);
	igt_assert(blob);
	igt_assert_lt(blob->length, sizeof(str));
	memcpy(str, blob->data, blob->length);
	str[blob->length] = 0;
	drmModeFreePropertyBlob(blob);
	igt_assert_eq(sscanf(str, "%u:%u:%u:%u:%u:%u:%u:%u", &v[0], &v[1],
			     &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]), 8);
}

/* Both CRTCs' events of one commit, in the order they came */
struct tile_events {
	unsigned int n;
	uint32_t crtc[2];
	int64_t ts_ns[2];
};

static void on_tile_flip(int fd, unsigned int sequence, unsigned int sec,
			 unsigned int usec, unsigned int crtc_id, void *data)
{
	struct tile_events *e = data;

	igt_assert_lt(e->n, 2);
	e->crtc[e->n] = crtc_id;
	e->ts_ns[e->n++] = (int64_t)sec * 1000000000ll + (int64_t)usec * 1000;
}

static void read_tile_events(int fd, struct tile_events *e)
{
	drmEventContext ctx = {
		.version = 3,
		.page_flip_handler2 = on_tile_flip,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (e->n < 2) {
		igt_assert_eq(poll(&pfd, 1, 1000), 1);
		igt_assert_eq(drmHandleEvent(fd, &ctx), 0);
	}
}

/* Switch @o on with its half of @fb, the tile at @h_loc */
static void light_tile(struct primepair_kms *kms, struct primepair_output *o,
		       const struct primepair_fb *fb, unsigned int h_loc)
{
	igt_assert_eq(primepair_modeset_src(kms, o, fb, h_loc * o->mode.hdisplay,
					    0), 0);
}

/*
 * A tiled monitor: two connectors given the EDIDs of the two tiles of one
 * 2560x720 monitor report one TILE group, and the two CRTCs scanning out
 * the halves of one framebuffer flip at the same vblank time, although
 * the second CRTC was switched on frames after the first.
 */
static void test_tiled(void)
{
	struct primepair_kms kms;
	struct primepair_fb fb[2], wb;
	unsigned int tile[2][8], i, j;
	uint8_t edid[256];
	uint32_t *ref;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "outputs=2");
	primepair_kms_open(&kms);
	igt_assert_eq(kms.noutputs, 2);

	for (i = 0; i < 2; i++) {
		struct primepair_output *o = &kms.outputs[i];
		drmModeConnectorPtr c;

		make_tiled_edid(edid, i);
		write_edid_override(&kms, o->connector_id, edid, sizeof(edid));
		c = drmModeGetConnector(kms.fd, o->connector_id);
		igt_assert(c);
		igt_assert_eq(c->count_modes, 1);
		igt_assert_eq(c->modes[0].hdisplay, 1280);
		igt_assert_eq(c->modes[0].vdisplay, 720);
		o->mode = c->modes[0];
		drmModeFreeConnector(c);
		read_tile(kms.fd, o->connector_id, tile[i]);
		igt_assert_eq(tile[i][1], 1);		/* one enclosure */
		igt_assert_eq(tile[i][2], 2);		/* 2 x 1 tiles */
		igt_assert_eq(tile[i][3], 1);
		igt_assert_eq(tile[i][4], i);		/* at (i, 0) */
		igt_assert_eq(tile[i][5], 0);
		igt_assert_eq(tile[i][6], 1280);
		igt_assert_eq(tile[i][7], 720);
	}
	igt_assert_eq(tile[0][0], tile[1][0]);		/* one group */

	for (i = 0; i < 2; i++) {
		primepair_fb_create(kms.fd, 2560, 720, DRM_FORMAT_XRGB8888, &fb[i]);
		primepair_fb_fill_random(&fb[i], 0x711e + i);
	}
	light_tile(&kms, &kms.outputs[0], &fb[0], 0);
	for (i = 0; i < 3; i++)
		primepair_wait_vblank(&kms, &kms.outputs[0]);
	light_tile(&kms, &kms.outputs[1], &fb[0], 1);

	for (i = 0; i < 6; i++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		struct tile_events e = {};

		igt_assert(req);
		for (j = 0; j < 2; j++)
			primepair_add(kms.fd, req, kms.outputs[j].primary,
				      DRM_MODE_OBJECT_PLANE, "FB_ID",
				      fb[(i + 1) & 1].fb_id);
		igt_assert_eq(drmModeAtomicCommit(kms.fd, req,
						  DRM_MODE_PAGE_FLIP_EVENT |
						  DRM_MODE_ATOMIC_NONBLOCK, &e), 0);
		drmModeAtomicFree(req);
		read_tile_events(kms.fd, &e);
		igt_assert(e.crtc[0] != e.crtc[1]);
		igt_assert_f(e.ts_ns[0] == e.ts_ns[1],
			     "flip %u: tiles flipped %" PRId64 " ns apart\n",
			     i, e.ts_ns[1] - e.ts_ns[0]);
	}

	/* Each CRTC shows its half of the last framebuffer flipped to */
	ref = malloc(1280 * 720 * 4);
	igt_assert(ref);
	for (i = 0; i < 2; i++) {
		memset(ref, 0, 1280 * 720 * 4);
		primepair_ref_blend(ref, 1280, 720, &fb[0], 0, 0, i * 1280, 0,
				    1280, 720, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		primepair_fb_create(kms.fd, 1280, 720, DRM_FORMAT_XRGB8888, &wb);
		primepair_writeback_capture(&kms, &kms.outputs[i], &wb);
		igt_assert_eq_u32(primepair_compare(&wb, ref, 0), 0);
		primepair_fb_destroy(kms.fd, &wb);
	}
	free(ref);

	primepair_disable_all(&kms);
	for (i = 0; i < 2; i++) {
		write_edid_override(&kms, kms.outputs[i].connector_id, "reset", 5);
		primepair_fb_destroy(kms.fd, &fb[i]);
	}
	primepair_kms_close(&kms);
	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	primepair_assert_summary_zero();
}

/* Switch @o alone off: its planes, its connector and its CRTC. */
static void output_off(struct primepair_kms *kms, struct primepair_output *o)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	igt_assert(req);
	primepair_add_plane_off(kms->fd, req, o->primary);
	primepair_add(kms->fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		      "CRTC_ID", 0);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", 0);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 0);
	igt_assert_eq(primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET), 0);
	drmModeAtomicFree(req);
}

/*
 * An output switched on beside one that runs at the same rate joins that
 * output's vblank grid; its vblank counter still counts its frames, from
 * before it was switched off to after, whatever the phase it came back
 * at.  Userspace (a compositor's frame scheduling, IGT's sequence checks)
 * relies on the counter moving by the frames that passed.
 */
static void test_rejoin_count(void)
{
	struct primepair_kms kms;
	struct primepair_fb fb[2];
	unsigned int i;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "outputs=2");
	primepair_kms_open(&kms);
	igt_assert_eq(kms.noutputs, 2);
	for (i = 0; i < 2; i++) {
		struct primepair_output *o = &kms.outputs[i];

		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &fb[i]);
		igt_assert_eq(primepair_modeset(&kms, o, &fb[i]), 0);
	}
	igt_assert_eq(kms.outputs[0].mode.clock, kms.outputs[1].mode.clock);

	for (i = 0; i < 12; i++) {
		struct primepair_output *o = &kms.outputs[1];
		int64_t frame_ns = (int64_t)o->mode.htotal * o->mode.vtotal *
				   1000000 / o->mode.clock;
		uint32_t before, after, frames;
		int64_t t0;

		before = primepair_wait_vblank(&kms, o);
		t0 = pp_now_ns();
		output_off(&kms, o);
		/* Back at a different phase of the running output's frame */
		usleep(1000 + i * frame_ns / 12 / 1000);
		igt_assert_eq(primepair_modeset(&kms, o, &fb[1]), 0);
		after = primepair_wait_vblank(&kms, o);
		frames = (pp_now_ns() - t0) / frame_ns;
		igt_assert_f(after - before >= 1 && after - before <= frames + 2,
			     "round %u: counter %u -> %u in %u frames\n", i,
			     before, after, frames);
	}

	primepair_disable_all(&kms);
	for (i = 0; i < 2; i++)
		primepair_fb_destroy(kms.fd, &fb[i]);
	primepair_kms_close(&kms);
	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	primepair_assert_summary_zero();
}

igt_main
{
	igt_subtest("modeset-each-crtc")
		test_each_crtc();
	igt_subtest("optional-planes-off")
		test_no_optional_planes();
	igt_subtest("hotplug")
		test_hotplug();
	igt_describe("An EDID forced through debugfs edid_override gives its modes; reset restores the standard ones");
	igt_subtest("edid-override")
		test_edid_override(false);
	igt_describe("vdisplay unloaded with an EDID forced through edid_override frees it; the next device has its standard modes");
	igt_subtest("edid-override-unload")
		test_edid_override(true);
	igt_describe("drm.edid_firmware naming one connector gives it the file's EDID and modes; the others keep theirs");
	igt_subtest("edid-firmware")
		test_edid_firmware();
	igt_describe("Two connectors with the EDIDs of one tiled monitor share a TILE group and their CRTCs flip at the same vblank");
	igt_subtest("tiled")
		test_tiled();
	igt_describe("An output switched off and on beside a running one keeps counting its vblanks, without a jump");
	igt_subtest("rejoin-count")
		test_rejoin_count();
	igt_describe("A made-up mode larger than any listed is scanned out and written back exactly");
	igt_subtest("custom-mode")
		test_custom_mode();
	igt_describe("devices=2 makes two vdisplay devices; a buffer of one, imported into the other, is scanned out by both");
	igt_subtest("two-devices")
		test_two_devices();

	igt_fixture {
		if (edid_fw_dir[0])
			edid_firmware_cleanup();
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
		primepair_assert_summary_zero();
	}
}

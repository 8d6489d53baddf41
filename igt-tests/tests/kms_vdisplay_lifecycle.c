// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_lifecycle - vdisplay unbound and bound again while clients
 * hold its buffers
 *
 * vdisplay binds its devices through a platform driver.  Unbinding one in
 * sysfs while a client has it open, with a framebuffer on screen and its
 * scanout buffer imported and rendered into by vrender, unplugs the DRM
 * device: the client's KMS calls fail with ENODEV, while the buffer and
 * its dma-buf stay valid until their last user lets go; binding again
 * brings a working device back.  Suspend and resume: prime_suspend.
 *
 * When the last file closes, vdisplay detaches a writeback connector its
 * clients left attached, which a client without the writeback cap could
 * not see to detach, and without which it cannot switch the output off.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay unbound and rebound under its clients, and tidied at last close");

#define DRIVER_DIR	"/sys/bus/platform/drivers/vdisplay/"
#define DEVICE		"vdisplay.0"
#define FILL		0xff20c040u

static bool bound(void)
{
	return access(DRIVER_DIR DEVICE, F_OK) == 0;
}

/* A subtest that failed half-way may leave the device unbound. */
static void rebind(int sig)
{
	int fd;

	if (bound())
		return;
	fd = open(DRIVER_DIR "bind", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, DEVICE, strlen(DEVICE)) < 0)
			fprintf(stderr, "rebinding " DEVICE ": %m\n");
		close(fd);
	}
}

/* Every pixel of @fb (XRGB8888) reads @color through @map. */
static void assert_color(const uint32_t *map, const struct primepair_fb *fb,
			 uint32_t color)
{
	for (uint32_t y = 0; y < fb->height; y++)
		for (uint32_t x = 0; x < fb->width; x++)
			igt_assert_f((map[y * fb->pitch / 4 + x] & 0xffffff) ==
				     (color & 0xffffff),
				     "pixel (%u,%u) is %08x, want %08x\n", x, y,
				     map[y * fb->pitch / 4 + x], color);
}

/* vrender fills the whole of its import @bo of @fb's layout with @color. */
static void render_fill(int render, uint32_t bo,
			const struct primepair_fb *fb, uint32_t color)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, fb->pitch, 0,
							  0, fb->width,
							  fb->height, color);

	primepair_vrender_submit(render, &c, 1);
	primepair_vrender_bo_wait(render, bo, 10000000000ll);
}

static void test_unbind_rebind(void)
{
	struct primepair_kms kms = {};
	struct primepair_fb fb, wb;
	uint32_t imported, *map;
	int render, dmabuf;

	rebind(0);
	igt_require(bound());
	primepair_kms_open(&kms);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	/* A scanout buffer, shared with vrender, which renders into it */
	primepair_fb_create_shared(&kms, &kms.outputs[0], render, &fb, &dmabuf,
				   &imported);
	render_fill(render, imported, &fb, FILL);
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb), 0);
	igt_assert_lt(0, primepair_mapped_segments(DEVICE));

	primepair_sysfs_write(DRIVER_DIR "unbind", DEVICE);
	igt_assert(!bound());
	/* Scanout's mappings, kept between uses, went with the driver. */
	igt_assert_eq(primepair_mapped_segments(DEVICE), 0);

	/* The open card is unplugged: KMS calls fail, none crashes. */
	primepair_kms_assert_unplugged(&kms, &fb);

	/* The buffer lives on: vrender renders, the dma-buf shows it. */
	render_fill(render, imported, &fb, ~FILL);
	map = mmap(NULL, fb.size, PROT_READ, MAP_SHARED, dmabuf, 0);
	igt_assert(map != MAP_FAILED);
	assert_color(map, &fb, ~FILL);
	munmap(map, fb.size);

	/* Let go of everything of the unplugged device. */
	close(dmabuf);
	igt_assert_eq(drmCloseBufferHandle(render, imported), 0);
	close(kms.fd);
	if (fb.map)
		munmap(fb.map, fb.size);
	primepair_assert_summary_zero();

	/* Bound again, it is a new, working device. */
	primepair_sysfs_write(DRIVER_DIR "bind", DEVICE);
	igt_assert(bound());
	primepair_kms_open(&kms);
	primepair_fb_create(kms.fd, kms.outputs[0].mode.hdisplay,
			    kms.outputs[0].mode.vdisplay, DRM_FORMAT_XRGB8888,
			    &fb);
	primepair_fb_fill_color(&fb, FILL);
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb), 0);
	primepair_fb_create(kms.fd, fb.width, fb.height, DRM_FORMAT_XRGB8888,
			    &wb);
	primepair_writeback_capture(&kms, &kms.outputs[0], &wb);
	assert_color(wb.map, &wb, FILL);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	close(render);
	primepair_assert_summary_zero();
}

/*
 * A child flips between two buffers as fast as it can while vrender
 * renders into both; the device is unbound under it.  The child's next
 * flip fails with ENODEV and it exits; nothing is left behind.
 */
static void test_unbind_during_flips(void)
{
	int sync[2];
	char c;

	rebind(0);
	igt_require(bound());
	igt_assert_eq(pipe(sync), 0);
	igt_fork(child, 1) {
		int render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		struct primepair_kms kms = {};
		struct primepair_fb fb[2];
		uint32_t imported[2];
		int dmabuf, ret = 0;

		primepair_kms_open(&kms);
		for (int i = 0; i < 2; i++) {
			primepair_fb_create(kms.fd, kms.outputs[0].mode.hdisplay,
					    kms.outputs[0].mode.vdisplay,
					    DRM_FORMAT_XRGB8888, &fb[i]);
			igt_assert_eq(drmPrimeHandleToFD(kms.fd, fb[i].handle,
							 DRM_CLOEXEC, &dmabuf), 0);
			igt_assert_eq(drmPrimeFDToHandle(render, dmabuf,
							 &imported[i]), 0);
			close(dmabuf);
		}
		igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb[0]), 0);
		igt_assert_eq(write(sync[1], "f", 1), 1);
		for (unsigned int n = 0; !ret; n++) {
			struct drm_vrender_cmd cmd =
				primepair_vrender_fill(imported[n & 1], 0,
						       fb[n & 1].pitch, 0, 0,
						       fb[n & 1].width, 16, n);

			primepair_vrender_submit(render, &cmd, 1);
			ret = drmModePageFlip(kms.fd, kms.outputs[0].crtc_id,
					      fb[n & 1].fb_id, 0, NULL) ? -errno : 0;
			if (ret == -EBUSY)
				ret = 0;
		}
		/* Only the unplug may end the flips. */
		igt_assert_eq(ret, -ENODEV);
	}

	/* Unbind once the flips run. */
	igt_assert_eq(read(sync[0], &c, 1), 1);
	usleep(300000);
	primepair_sysfs_write(DRIVER_DIR "unbind", DEVICE);
	igt_waitchildren();
	close(sync[0]);
	close(sync[1]);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();

	primepair_sysfs_write(DRIVER_DIR "bind", DEVICE);
	igt_assert(bound());
}

/* Whether the DRM core lists an in-kernel client @name on @fd's device */
static bool has_internal_client(int fd, const char *name)
{
	char path[256], buf[4096];
	ssize_t n;
	int dfd;

	igt_assert_eq(pp_dri_debugfs_path(fd, "internal_clients", path,
					  sizeof(path)), 0);
	dfd = open(path, O_RDONLY);
	if (dfd < 0)
		return false;
	n = read(dfd, buf, sizeof(buf) - 1);
	close(dfd);
	igt_assert_lte(0, n);
	buf[n] = 0;
	return strstr(buf, name) != NULL;
}

/* A client of vdisplay with the atomic cap but not the writeback one */
static int open_plain(void)
{
	int fd = primepair_open_driver_nth(PRIMEPAIR_DISPLAY_DRIVER, 0);

	igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
	igt_assert_eq(drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	return fd;
}

/*
 * Switch @o off as a client that knows its connector and primary plane;
 * with @name_wb, the commit also sets the writeback connector's CRTC_ID
 * to @wb_crtc.
 */
static int switch_off_wb(int fd, const struct primepair_output *o,
			 bool name_wb, uint32_t wb_crtc)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	primepair_add(fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 0);
	primepair_add(fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", 0);
	primepair_add(fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		      "CRTC_ID", 0);
	if (name_wb)
		primepair_add(fd, req, o->wb_connector_id,
			      DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", wb_crtc);
	primepair_add_plane_off(fd, req, o->primary);
	ret = primepair_commit(fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET);
	drmModeAtomicFree(req);
	return ret;
}

static int switch_off(int fd, const struct primepair_output *o)
{
	return switch_off_wb(fd, o, false, 0);
}

/*
 * Open vdisplay as a client with the writeback cap, or skip when its
 * first output has no writeback connector.  A skip leaves nothing open:
 * the file would keep DRM master from the subtests after it.
 */
static void open_with_writeback(struct primepair_kms *kms)
{
	primepair_kms_open(kms);
	if (!kms->outputs[0].wb_connector_id) {
		primepair_kms_close(kms);
		igt_skip("no writeback connector\n");
	}
}

/*
 * Every output off; @fb, filled with FILL, and @wb, for a capture, both
 * of @o's mode
 */
static void outputs_off_and_fbs(struct primepair_kms *kms,
				const struct primepair_output *o,
				struct primepair_fb *fb, struct primepair_fb *wb)
{
	primepair_disable_all(kms);
	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, fb);
	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, wb);
	primepair_fb_fill_color(fb, FILL);
}

/*
 * A capture client that exits with the writeback connector attached, with
 * (@with_connector) or without the output's own connector on the CRTC.
 * After the last close the writeback connector is detached, the output
 * is as it was (on with its connector, or off when only the writeback
 * connector held it), and a client without the writeback cap switches
 * it off.
 */
static void check_writeback_left(bool with_connector)
{
	struct primepair_kms kms = {}, view = {};
	struct primepair_output *o;
	struct primepair_fb fb, wb;
	drmModeAtomicReqPtr req;
	uint32_t blob;
	int plain;

	open_with_writeback(&kms);
	o = &kms.outputs[0];
	if (!has_internal_client(kms.fd, "vdisplay")) {
		primepair_kms_close(&kms);
		igt_skip("no in-kernel client (a kernel without CONFIG_DRM_CLIENT)\n");
	}
	outputs_off_and_fbs(&kms, o, &fb, &wb);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	if (with_connector) {
		igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	} else {
		/* The CRTC on for the writeback connector alone */
		igt_assert_eq(drmModeCreatePropertyBlob(kms.fd, &o->mode,
							sizeof(o->mode), &blob), 0);
		primepair_add(kms.fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC,
			      "MODE_ID", blob);
		primepair_add(kms.fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC,
			      "ACTIVE", 1);
		primepair_add_plane(kms.fd, req, o->primary, o->crtc_id, &fb,
				    0, 0, 0, 0, o->mode.hdisplay, o->mode.vdisplay);
	}
	primepair_writeback_capture_req(&kms, o, &wb, req);
	drmModeAtomicFree(req);
	if (!with_connector)
		drmModeDestroyPropertyBlob(kms.fd, blob);
	igt_assert_eq_u32(((uint32_t *)wb.map)[0] & 0xffffff, FILL & 0xffffff);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), o->crtc_id);

	/* The capture client dies: the last file of the device closes. */
	close(kms.fd);
	munmap(fb.map, fb.size);
	munmap(wb.map, wb.size);

	primepair_kms_open(&view);
	igt_assert_eq_u64(primepair_prop_value(view.fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), 0);
	igt_assert_eq_u64(primepair_prop_value(view.fd, o->crtc_id,
					       DRM_MODE_OBJECT_CRTC, "ACTIVE"),
			  with_connector);
	igt_assert_eq_u64(primepair_prop_value(view.fd, o->connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"),
			  with_connector ? o->crtc_id : 0);
	close(view.fd);

	plain = open_plain();
	igt_assert_eq(switch_off(plain, o), 0);
	close(plain);

	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

/*
 * A capture client leaves the writeback connector routed and stays open
 * (a lessee or capture tool killed while its master lives).  A client
 * without the writeback cap, which cannot see that connector, switches
 * the output off all the same, and the connector goes off with the CRTC.
 * A commit that names the connector is judged as before: keeping it on a
 * CRTC switched off is EINVAL, taking it off with the CRTC succeeds.
 */
static void test_writeback_follows_crtc(void)
{
	struct primepair_kms kms = {};
	struct primepair_output *o;
	struct primepair_fb fb, wb;
	int plain;

	open_with_writeback(&kms);
	o = &kms.outputs[0];
	outputs_off_and_fbs(&kms, o, &fb, &wb);

	/* Routed by a capture, left routed, master handed on */
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), o->crtc_id);
	igt_assert_eq(drmDropMaster(kms.fd), 0);
	plain = open_plain();
	igt_assert_eq(switch_off(plain, o), 0);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->crtc_id,
					       DRM_MODE_OBJECT_CRTC, "ACTIVE"),
			  0);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), 0);
	close(plain);
	igt_assert_eq(drmSetMaster(kms.fd), 0);

	/* Named by the commit: kept on a CRTC switched off, EINVAL */
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq(switch_off_wb(kms.fd, o, true, o->crtc_id), -EINVAL);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->crtc_id,
					       DRM_MODE_OBJECT_CRTC, "ACTIVE"),
			  1);
	/* and taken off with it: the switch-off succeeds */
	igt_assert_eq(switch_off_wb(kms.fd, o, true, 0), 0);
	igt_assert_eq_u64(primepair_prop_value(kms.fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), 0);

	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		igt_install_exit_handler(rebind);
	}

	igt_describe("Unbinding vdisplay with its buffer on screen and rendered into by vrender: ENODEV for KMS, the buffer and its dma-buf live on; binding again gives a working device");
	igt_subtest("unbind-rebind")
		test_unbind_rebind();

	igt_describe("Unbinding vdisplay under a client that flips while vrender renders into its buffers: the client gets ENODEV, nothing leaks");
	igt_subtest("unbind-during-flips")
		test_unbind_during_flips();

	igt_describe("A writeback connector left attached by a client that exits is detached at last close, so a client without the writeback cap can switch the output off; the output stays on otherwise");
	igt_subtest("writeback-left-at-close")
		check_writeback_left(true);

	igt_describe("A writeback connector left routed by a client that lives on goes off with its CRTC when a client without the writeback cap switches the output off; a commit that names it is judged as before");
	igt_subtest("writeback-follows-crtc-off")
		test_writeback_follows_crtc();

	igt_describe("A CRTC that only a writeback connector left at exit kept on is switched off at last close");
	igt_subtest("writeback-only-left-at-close")
		check_writeback_left(false);
}

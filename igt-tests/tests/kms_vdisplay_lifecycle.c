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
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay unbound and rebound under its clients");

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

	primepair_sysfs_write(DRIVER_DIR "unbind", DEVICE);
	igt_assert(!bound());

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
}

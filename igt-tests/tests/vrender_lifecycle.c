// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_lifecycle - vrender unbound and bound again under its clients
 *
 * vrender binds its devices through a platform driver.  Unbinding one in
 * sysfs while clients hold it open, with jobs queued that render into a
 * buffer vdisplay exported, unplugs the render node: the queued jobs
 * still run and their fences signal before the unbind returns, every
 * later ioctl and new mmap fails with ENODEV, existing CPU mappings keep
 * working, and the buffers live until their last user lets go.  Binding
 * again gives a new, working render node; nothing leaks.
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

IGT_TEST_DESCRIPTION("vrender unbound and rebound under its clients");

#define DRIVER_DIR	"/sys/bus/platform/drivers/vrender/"
#define DEVICE		"vrender.0"
#define JOBS		4

static bool bound(void)
{
	return access(DRIVER_DIR DEVICE, F_OK) == 0;
}

static unsigned long long saved_speed;

/* A subtest that failed half-way may leave the device unbound. */
static void restore(int sig)
{
	int fd;

	if (!bound()) {
		fd = open(DRIVER_DIR "bind", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, DEVICE, strlen(DEVICE)) < 0)
				fprintf(stderr, "rebinding " DEVICE ": %m\n");
			close(fd);
		}
	}
	fd = open("/sys/module/vrender/parameters/engine_speed", O_WRONLY);
	if (fd >= 0) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%llu", saved_speed);

		if (write(fd, buf, n) != n)
			fprintf(stderr, "restoring engine_speed: %m\n");
		close(fd);
	}
}

/* Every pixel of @fb (XRGB8888) reads @color at @map. */
static void assert_color(const uint32_t *map, const struct primepair_fb *fb,
			 uint32_t color)
{
	for (uint32_t y = 0; y < fb->height; y++)
		for (uint32_t x = 0; x < fb->width; x++)
			igt_assert_f(map[y * fb->pitch / 4 + x] == color,
				     "pixel (%u,%u) is %08x, want %08x\n", x, y,
				     map[y * fb->pitch / 4 + x], color);
}

/* Queue a FILL of all of @bo (laid out as @fb) with @color; its out fence. */
static int queue_fill(int render, uint32_t bo, const struct primepair_fb *fb,
		      uint32_t color)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, fb->pitch, 0, 0,
							  fb->width, fb->height,
							  color);
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(render, &s), 0);
	return s.out_fence_fd;
}

static void test_unbind_rebind(void)
{
	struct primepair_kms kms = {};
	struct primepair_fb fb;
	uint32_t imported, own, *own_map;
	int render, dmabuf, fence[JOBS];
	size_t own_size = 1 << 20;
	struct drm_vrender_bo_mmap_offset own_offset = {};
	uint32_t handle;
	void *map;

	restore(0);
	igt_require(bound());
	primepair_kms_open(&kms);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	/* A vdisplay scanout buffer, imported into vrender */
	primepair_fb_create_shared(&kms, &kms.outputs[0], render, &fb, &dmabuf,
				   &imported);
	/* and a buffer of vrender's own, mapped for the CPU */
	own = primepair_vrender_bo_create(render, own_size);
	own_map = primepair_vrender_bo_mmap(render, own, own_size,
					    PROT_READ | PROT_WRITE);
	memset(own_map, 0x5a, own_size);
	own_offset.handle = own;
	igt_assert_eq(drmIoctl(render, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET,
			       &own_offset), 0);

	/* Slow engine: the jobs are still queued when the unbind starts. */
	primepair_vrender_set_param("engine_speed", 20ull << 20);
	for (int i = 0; i < JOBS; i++)
		fence[i] = queue_fill(render, imported, &fb, 0xff000000u | (i + 1));
	igt_assert_eq(primepair_sync_file_status(fence[JOBS - 1]), 0);

	primepair_sysfs_write(DRIVER_DIR "unbind", DEVICE);
	igt_assert(!bound());

	/* Every queued job ran and signalled before the unbind returned. */
	for (int i = 0; i < JOBS; i++) {
		igt_assert_eq(primepair_sync_file_status(fence[i]), 1);
		close(fence[i]);
	}
	assert_color(fb.map, &fb, 0xff000000u | JOBS);

	/* The node is unplugged: ioctls and new mappings fail, none crashes. */
	igt_assert_eq(__primepair_vrender_bo_create(render, 4096, 0, &handle),
		      -ENODEV);
	{
		struct drm_vrender_cmd c = primepair_vrender_fill(own, 0, 4096, 0,
								  0, 16, 16, 0);
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
		};

		igt_assert_eq(__primepair_vrender_submit(render, &s), -ENODEV);
	}
	igt_assert_eq(__primepair_vrender_bo_wait(render, own, 0), -ENODEV);
	/* A new mapping of the buffer, at the offset it had, is refused. */
	map = mmap(NULL, own_size, PROT_READ, MAP_SHARED, render,
		   own_offset.offset);
	igt_assert(map == MAP_FAILED);
	igt_assert_eq(errno, ENODEV);
	/* The old CPU mapping still reads and writes the buffer. */
	for (size_t i = 0; i < own_size / 4; i += 1021)
		igt_assert_eq_u32(own_map[i], 0x5a5a5a5a);
	own_map[0] = 0x12345678;
	igt_assert_eq_u32(own_map[0], 0x12345678);

	/* The shared buffer still scans out from vdisplay. */
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &fb), 0);
	primepair_disable_all(&kms);

	munmap(own_map, own_size);
	close(render);
	close(dmabuf);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();

	/* Bound again: a new render node that works */
	primepair_vrender_set_param("engine_speed", saved_speed);
	primepair_sysfs_write(DRIVER_DIR "bind", DEVICE);
	igt_assert(bound());
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	own = primepair_vrender_bo_create(render, own_size);
	{
		struct drm_vrender_cmd c = primepair_vrender_fill(own, 0, 4096, 0, 0,
								  1024, own_size / 4096,
								  0xc0ffee00u);

		primepair_vrender_submit(render, &c, 1);
		primepair_vrender_bo_wait(render, own, 10000000000ll);
	}
	own_map = primepair_vrender_bo_mmap(render, own, own_size, PROT_READ);
	for (size_t i = 0; i < own_size / 4; i += 1021)
		igt_assert_eq_u32(own_map[i], 0xc0ffee00u);
	munmap(own_map, own_size);
	close(render);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		saved_speed = primepair_vrender_param("engine_speed");
		igt_install_exit_handler(restore);
	}

	igt_describe("Unbinding vrender with jobs queued into a vdisplay buffer: the jobs finish first, then ENODEV for every ioctl and new mmap; old mappings and the shared buffer live on; binding again gives a working node");
	igt_subtest("unbind-rebind")
		test_unbind_rebind();
}

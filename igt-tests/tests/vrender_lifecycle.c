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
 *
 * A system suspend cycle (the kernel's pm_test "devices" level) with jobs
 * queued stops the engines: the queued jobs run after resume, none fails,
 * the buffers hold what the jobs wrote.  A job still on an engine when
 * the suspend gives up waiting makes it fail with EBUSY, and the job
 * completes.  Both need a guest whose root is not on virtio-9p, which
 * cannot suspend (tools/vm-run -l).
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
/* suspend-resume: files (one per engine), jobs each, buffer size */
#define PM_FILES	2
#define PM_JOBS		6
#define PM_BO_SIZE	(4u << 20)
#define PM_PITCH	4096u

static bool bound(void)
{
	return access(DRIVER_DIR DEVICE, F_OK) == 0;
}

static unsigned long long saved_speed, saved_latency, saved_timeout;

static void restore_param(const char *name, unsigned long long value)
{
	char path[128], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), "/sys/module/vrender/parameters/%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%llu", value);
	if (write(fd, buf, n) != n)
		fprintf(stderr, "restoring %s: %m\n", name);
	close(fd);
}

/*
 * A subtest that failed half-way may leave the device unbound or the
 * engine slow.
 */
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
	restore_param("engine_speed", saved_speed);
	restore_param("job_latency_us", saved_latency);
	restore_param("job_timeout_ms", saved_timeout);
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

/* Queue one command; its out fence. */
static int queue_cmd(int render, const struct drm_vrender_cmd *c)
{
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(render, &s), 0);
	return s.out_fence_fd;
}

/* Queue a FILL of all of @bo (laid out as @fb) with @color; its out fence. */
static int queue_fill(int render, uint32_t bo, const struct primepair_fb *fb,
		      uint32_t color)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, fb->pitch, 0, 0,
							  fb->width, fb->height,
							  color);

	return queue_cmd(render, &c);
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
	igt_assert_lt(0, primepair_mapped_segments(DEVICE));

	primepair_sysfs_write(DRIVER_DIR "unbind", DEVICE);
	igt_assert(!bound());
	/* The mappings kept between jobs went with the driver. */
	igt_assert_eq(primepair_mapped_segments(DEVICE), 0);

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

/* How long pm_test keeps the devices suspended, in ns (5 s by default) */
static int64_t pm_test_delay_ns(void)
{
	FILE *f = fopen("/sys/module/suspend/parameters/pm_test_delay", "r");
	unsigned int s = 5;

	if (f) {
		igt_assert_eq(fscanf(f, "%u", &s), 1);
		fclose(f);
	}
	return (int64_t)s * 1000000000;
}

static uint32_t pm_color(int f, int i)
{
	return 0xff000000u | (f + 1) << 16 | (i + 1);
}

static void test_suspend_resume(void)
{
	int render[PM_FILES], fence[PM_FILES][PM_JOBS + 1];
	uint32_t bo[PM_FILES], result[PM_FILES], *map[PM_FILES], *crc;
	uint32_t rows = PM_BO_SIZE / PM_PITCH, want;
	int64_t before, signalled;
	int status;

	restore(0);
	igt_require(bound());

	/*
	 * A slow engine: half a second a job, three seconds a file, so that
	 * most jobs are still queued when the devices suspend.  One file
	 * per engine, each filling its buffer again and again, then
	 * checksumming it.
	 */
	primepair_vrender_set_param("engine_speed", 8ull << 20);
	for (int f = 0; f < PM_FILES; f++) {
		struct drm_vrender_cmd sum;

		render[f] = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		bo[f] = primepair_vrender_bo_create(render[f], PM_BO_SIZE);
		result[f] = primepair_vrender_bo_create(render[f], 4096);
		for (int i = 0; i < PM_JOBS; i++) {
			struct drm_vrender_cmd c =
				primepair_vrender_fill(bo[f], 0, PM_PITCH, 0, 0,
						       PM_PITCH / 4, rows,
						       pm_color(f, i));

			fence[f][i] = queue_cmd(render[f], &c);
		}
		sum = primepair_vrender_checksum(bo[f], 0, PM_PITCH,
						 PM_PITCH / 4, rows,
						 result[f], 0);
		fence[f][PM_JOBS] = queue_cmd(render[f], &sum);
	}
	for (int f = 0; f < PM_FILES; f++)
		igt_assert_eq(primepair_sync_file_status(fence[f][PM_JOBS]), 0);

	before = primepair_now_ns();
	primepair_suspend_cycle("devices");

	/*
	 * Every job ran, in order, without error; the queued ones after the
	 * resume: the engines stood still while the devices were suspended.
	 */
	for (int f = 0; f < PM_FILES; f++) {
		for (int i = 0; i <= PM_JOBS; i++) {
			igt_assert(primepair_sync_file_wait(fence[f][i], 20000));
			igt_assert_eq(pp_sync_file_info(fence[f][i], &status,
							&signalled), 0);
			igt_assert_eq(status, 1);
		}
		igt_assert_f(signalled - before >= pm_test_delay_ns(),
			     "file %d's last job signalled %.3f s after the suspend started\n",
			     f, (signalled - before) / 1e9);
	}

	/* The buffers hold the last fill, and the engine read it back. */
	for (int f = 0; f < PM_FILES; f++) {
		map[f] = primepair_vrender_bo_mmap(render[f], bo[f], PM_BO_SIZE,
						   PROT_READ);
		for (uint32_t i = 0; i < PM_BO_SIZE / 4; i++)
			igt_assert_f(map[f][i] == pm_color(f, PM_JOBS - 1),
				     "file %d word %u is %08x\n", f, i, map[f][i]);
		want = primepair_crc32(0, map[f], PM_BO_SIZE);
		crc = primepair_vrender_bo_mmap(render[f], result[f], 4096,
						PROT_READ);
		igt_assert_eq_u32(*crc, want);
		munmap(crc, 4096);

		/* A new job after the resume */
		primepair_vrender_set_param("engine_speed", saved_speed);
		igt_assert_eq_u32(primepair_vrender_crc32(render[f], bo[f],
							  PM_BO_SIZE), want);
		munmap(map[f], PM_BO_SIZE);
	}

	for (int f = 0; f < PM_FILES; f++) {
		for (int i = 0; i <= PM_JOBS; i++)
			close(fence[f][i]);
		close(render[f]);
	}
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

static void test_suspend_busy(void)
{
	struct drm_vrender_cmd c;
	uint32_t bo, *map;
	int render, fence;

	restore(0);
	igt_require(bound());

	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	bo = primepair_vrender_bo_create(render, 4096);

	/*
	 * A job on the engine for four seconds; the suspend waits only
	 * job_timeout_ms, a tenth of a second, for it.  The job must have
	 * started (its scheduler reached it) before the suspend, or it
	 * would rightly wait for the resume: give the scheduler a second.
	 */
	primepair_vrender_set_param("job_latency_us", 4000000);
	c = primepair_vrender_fill(bo, 0, 4096, 0, 0, 1024, 1, 0xff00ff00u);
	fence = queue_cmd(render, &c);
	usleep(1000000);
	primepair_vrender_set_param("job_timeout_ms", 100);
	igt_assert_eq(__primepair_suspend_cycle("devices"), -EBUSY);
	primepair_vrender_set_param("job_timeout_ms", saved_timeout);
	primepair_vrender_set_param("job_latency_us", saved_latency);

	/* The job was not touched: it finishes, and the engines run. */
	igt_assert(primepair_sync_file_wait(fence, 20000));
	igt_assert_eq(primepair_sync_file_status(fence), 1);
	close(fence);
	map = primepair_vrender_bo_mmap(render, bo, 4096, PROT_READ);
	igt_assert_eq_u32(map[1023], 0xff00ff00u);
	igt_assert_eq_u32(primepair_vrender_crc32(render, bo, 4096),
			  primepair_crc32(0, map, 4096));
	munmap(map, 4096);
	close(render);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		saved_speed = primepair_vrender_param("engine_speed");
		saved_latency = primepair_vrender_param("job_latency_us");
		saved_timeout = primepair_vrender_param("job_timeout_ms");
		igt_install_exit_handler(restore);
	}

	igt_describe("Unbinding vrender with jobs queued into a vdisplay buffer: the jobs finish first, then ENODEV for every ioctl and new mmap; old mappings and the shared buffer live on; binding again gives a working node");
	igt_subtest("unbind-rebind")
		test_unbind_rebind();

	igt_describe("A suspend cycle with jobs queued on both engines: the engines stand still while suspended, then every job runs without error and the buffers hold what they wrote");
	igt_subtest("suspend-resume")
		test_suspend_resume();

	igt_describe("A suspend that finds a job on the engine past job_timeout_ms fails with EBUSY; the job completes and the engines run on");
	igt_subtest("suspend-busy")
		test_suspend_busy();
}

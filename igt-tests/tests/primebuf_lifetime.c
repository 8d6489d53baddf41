// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_lifetime - mappings that block migration, and modules pinned
 * by the buffers they made
 *
 * primebuf's debugfs test importer holds a DMA mapping of a dma-buf for as
 * long as the test wants, which no driver ioctl does.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define TEST_IMPORTER "/sys/kernel/debug/primebuf_selftest/test_importer"

static int test_importer(const char *fmt, int fd)
{
	char cmd[64];
	int dfd, ret = 0;

	snprintf(cmd, sizeof(cmd), fmt, fd);
	dfd = open(TEST_IMPORTER, O_WRONLY);
	igt_require_f(dfd >= 0, "no %s\n", TEST_IMPORTER);
	if (write(dfd, cmd, strlen(cmd)) < 0)
		ret = -errno;
	close(dfd);
	return ret;
}

static int run(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

static uint32_t pattern(int fd, uint32_t bo, uint64_t size)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_PATTERN,
		.dst_handle = bo,
		.dst_pitch = 4096,
		.width = 1024,
		.height = size / 4096,
		.value = 42,
	};

	primepair_vrender_submit(fd, &c, 1);
	primepair_vrender_bo_wait(fd, bo, 10ll * 1000000000);
	return primepair_vrender_crc32(fd, bo, size);
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		igt_require(access(TEST_IMPORTER, W_OK) == 0);
	}

	igt_describe("A contiguous-only device cannot attach while the buffer is mapped scattered (EBUSY); after the unmap it attaches and the buffer migrates intact");
	igt_subtest("attach-busy-while-mapped") {
		const uint64_t size = 256 << 10;
		uint32_t bo, imp, crc;
		int plain, contig, dmabuf;

		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER,
					"instances=2 contiguous=0,1");
		plain = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 0);
		contig = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 1);

		bo = primepair_vrender_bo_create(plain, size);
		crc = pattern(plain, bo, size);
		igt_assert_eq(drmPrimeHandleToFD(plain, bo, DRM_CLOEXEC,
						 &dmabuf), 0);

		igt_assert_eq(test_importer("hold %d", dmabuf), 0);
		igt_assert_eq_u64(primepair_summary("mappings"), 1);
		igt_assert_eq(drmPrimeFDToHandle(contig, dmabuf, &imp), -1);
		igt_assert_eq(errno, EBUSY);
		/* a second hold is refused while the first lasts */
		igt_assert_eq(test_importer("hold %d", dmabuf), -EBUSY);

		igt_assert_eq(test_importer("release", 0), 0);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);
		igt_assert_eq(drmPrimeFDToHandle(contig, dmabuf, &imp), 0);
		igt_assert_eq_u32(primepair_vrender_crc32(contig, imp, size),
				  crc);

		/* Once contiguous, holding a map does not block anyone. */
		igt_assert_eq(test_importer("hold %d", dmabuf), 0);
		igt_assert_eq_u32(primepair_vrender_crc32(contig, imp, size),
				  crc);
		igt_assert_eq(test_importer("release", 0), 0);
		igt_assert_eq(test_importer("release", 0), -ENOENT);

		igt_assert_eq(drmCloseBufferHandle(contig, imp), 0);
		igt_assert_eq(drmCloseBufferHandle(plain, bo), 0);
		close(dmabuf);
		close(contig);
		close(plain);
		primepair_assert_summary_zero();
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, "");
	}

	igt_describe("rmmod of the exporting driver is refused while one of its dma-bufs lives, and succeeds once it is gone");
	igt_subtest("rmmod-refused-while-exported") {
		uint32_t bo;
		int fd, dmabuf;

		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		bo = primepair_vrender_bo_create(fd, 4096);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		close(fd);

		igt_assert_neq(run("rmmod vrender 2>/dev/null"), 0);
		igt_assert_neq(run("rmmod primebuf 2>/dev/null"), 0);
		close(dmabuf);
		igt_assert_eq(run("rmmod vrender"), 0);
		igt_assert_eq(run("modprobe vrender"), 0);
	}

	igt_describe("rmmod of vdisplay is refused while another device holds a mapping of its buffer");
	igt_subtest("rmmod-refused-while-mapped") {
		uint32_t dumb, pitch;
		uint64_t size;
		int fd, dmabuf;

		fd = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(fd, 64, 64, 32, 0, &dumb,
						      &pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(fd, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(test_importer("hold %d", dmabuf), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(fd, dumb), 0);
		close(fd);

		/* Only the held mapping keeps the buffer and the module. */
		igt_assert_eq_u64(primepair_summary("buffers"), 1);
		igt_assert_neq(run("rmmod vdisplay 2>/dev/null"), 0);
		igt_assert_eq(test_importer("release", 0), 0);
		igt_assert_eq_u64(primepair_summary("buffers"), 0);
		igt_assert_eq(run("rmmod vdisplay"), 0);
		igt_assert_eq(run("modprobe vdisplay"), 0);
	}

	igt_describe("The test importer refuses what is not a dma-buf");
	igt_subtest("test-importer-bad-fd") {
		int fd = open("/dev/null", O_RDONLY);

		igt_assert_eq(test_importer("hold %d", fd), -EINVAL);
		/* a closed fd (high, so the debugfs open cannot reuse it) */
		igt_assert_eq(dup2(fd, 999), 999);
		close(999);
		close(fd);
		igt_assert_eq(test_importer("hold %d", 999), -EBADF);
		igt_assert_eq(test_importer("bogus %d", 0), -EINVAL);
	}

	igt_fixture {
		primepair_assert_summary_zero();
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_faults - injected failures reach the right caller as an errno,
 * the device stays usable, nothing leaks; fresh memory reads as zero
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define DEBUGFS "/sys/kernel/debug/primebuf/"
#define MAX_TOTAL "/sys/module/primebuf/parameters/max_total_mb"

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

static void set_max_total(const char *mb)
{
	int fd = open(MAX_TOTAL, O_WRONLY);

	igt_require(fd >= 0);
	igt_assert_eq(write(fd, mb, strlen(mb)), (ssize_t)strlen(mb));
	close(fd);
}

static void inject(const char *knob, int n)
{
	char path[128], val[16];
	int fd;

	snprintf(path, sizeof(path), DEBUGFS "%s", knob);
	snprintf(val, sizeof(val), "%d", n);
	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_eq(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

/* FILL the buffer; returns the status of the job's fence (1 or -errno) */
static int fill_status(int fd, uint32_t bo, uint64_t size, uint32_t value)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, 4096, 0, 0,
							  1024, size / 4096,
							  value);
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};
	struct sync_file_info info = { 0 };
	struct pollfd pfd;

	igt_assert_eq(__primepair_vrender_submit(fd, &submit), 0);
	pfd.fd = submit.out_fence_fd;
	pfd.events = POLLIN;
	igt_assert_eq(poll(&pfd, 1, 10000), 1);
	igt_assert_eq(ioctl(submit.out_fence_fd, SYNC_IOC_FILE_INFO, &info), 0);
	close(submit.out_fence_fd);
	return info.status;
}

static int sync_start(int dmabuf)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW,
	};

	return ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

static void sync_end(int dmabuf)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW,
	};

	igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
}

static bool all_zero(const uint32_t *p, size_t size)
{
	for (size_t i = 0; i < size / 4; i++)
		if (p[i])
			return false;
	return true;
}

igt_main
{
	const uint64_t size = 64 << 10;
	int fd = -1;

	igt_fixture {
		igt_require(access(DEBUGFS "fail_alloc", W_OK) == 0);
		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	}

	igt_describe("A failed allocation at first CPU access fails DMA_BUF_IOCTL_SYNC with ENOMEM; the retry allocates");
	igt_subtest("fail-alloc-cpu-access") {
		uint64_t bytes = primepair_summary("bytes");
		uint32_t bo;
		int dmabuf;

		bo = primepair_vrender_bo_create(fd, size);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		inject("fail_alloc", 1);
		igt_assert_eq(sync_start(dmabuf), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("bytes"), bytes);
		igt_assert_eq(sync_start(dmabuf), 0);
		igt_assert_eq_u64(primepair_summary("bytes"), bytes + size);
		sync_end(dmabuf);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("A failed allocation or map under a job fails that job's fence with ENOMEM; the next job works");
	igt_subtest("fail-alloc-and-map-in-job") {
		uint32_t bo, *map;

		bo = primepair_vrender_bo_create(fd, size);
		inject("fail_alloc", 1);
		igt_assert_eq(fill_status(fd, bo, size, 1), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);

		igt_assert_eq(fill_status(fd, bo, size, 2), 1);
		inject("fail_map", 1);
		igt_assert_eq(fill_status(fd, bo, size, 3), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);

		/* the failed job wrote nothing */
		map = primepair_vrender_bo_mmap(fd, bo, size, PROT_READ);
		igt_assert_eq_u32(map[0], 2);
		igt_assert_eq_u32(fill_status(fd, bo, size, 4), 1);
		igt_assert_eq_u32(map[size / 4 - 1], 4);
		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("Beyond max_total_mb a first use fails: ENOMEM from SYNC and from a job's fence, SIGBUS on a CPU touch; never the OOM killer");
	igt_subtest("max-total-limit") {
		const uint64_t big = 4 << 20;
		uint32_t bo, *map;
		volatile uint32_t *vmap;
		int dmabuf, sig;

		set_max_total("2");
		bo = primepair_vrender_bo_create(fd, big);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		igt_assert_eq(sync_start(dmabuf), -ENOMEM);
		igt_assert_eq(fill_status(fd, bo, big, 5), -ENOMEM);

		map = primepair_vrender_bo_mmap(fd, bo, big,
						PROT_READ | PROT_WRITE);
		vmap = map;
		signal(SIGBUS, on_sigbus);
		sig = sigsetjmp(bus_jmp, 1);
		if (!sig)
			vmap[0] = 1;
		signal(SIGBUS, SIG_DFL);
		igt_assert_eq(sig, SIGBUS);
		igt_assert_eq_u64(primepair_summary("bytes"), 0);

		/* within the limit, the same buffer works */
		set_max_total("0");
		igt_assert_eq(fill_status(fd, bo, big, 6), 1);
		igt_assert_eq_u32(vmap[0], 6);
		munmap(map, big);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("A failed attach fails PRIME import with ENOMEM and leaves nothing; the retry imports");
	igt_subtest("fail-attach") {
		uint32_t dumb, pitch, imp;
		uint64_t dsize;
		int display, dmabuf;

		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(display, 64, 64, 32, 0,
						      &dumb, &pitch, &dsize), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		inject("fail_attach", 1);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), -1);
		igt_assert_eq(errno, ENOMEM);
		igt_assert_eq_u64(primepair_summary("attachments"), 0);
		igt_assert_eq_u64(primepair_summary("imports"), 0);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), 0);
		igt_assert_eq_u64(primepair_summary("attachments"), 1);

		igt_assert_eq(drmCloseBufferHandle(fd, imp), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
	}

	igt_describe("Fresh buffers read as zero, through every CPU view and through an importer's job");
	igt_subtest("fresh-buffers-zero") {
		uint32_t bo, dumb, pitch, imp, *map;
		uint64_t dsize, offset;
		int display, dmabuf;

		bo = primepair_vrender_bo_create(fd, size);
		map = primepair_vrender_bo_mmap(fd, bo, size, PROT_READ);
		igt_assert(all_zero(map, size));
		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);

		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(display, 256, 64, 32, 0,
						      &dumb, &pitch, &dsize), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), 0);
		map = calloc(1, dsize);
		igt_assert_eq_u32(primepair_vrender_crc32(fd, imp, dsize),
				  primepair_crc32(0, map, dsize));
		free(map);

		igt_assert_eq(drmModeMapDumbBuffer(display, dumb, &offset), 0);
		map = mmap(NULL, dsize, PROT_READ, MAP_SHARED, display, offset);
		igt_assert(map != MAP_FAILED);
		igt_assert(all_zero(map, dsize));
		munmap(map, dsize);

		igt_assert_eq(drmCloseBufferHandle(fd, imp), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
	}

	igt_fixture {
		set_max_total("0");
		inject("fail_alloc", 0);
		inject("fail_attach", 0);
		inject("fail_map", 0);
		inject("fail_vmap", 0);
		close(fd);
		primepair_assert_summary_zero();
	}
}

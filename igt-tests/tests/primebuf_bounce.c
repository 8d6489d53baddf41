// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_bounce - buffers whose DMA mappings go through bounce buffers
 *
 * tools/run-suite runs this test in a boot of its own with swiotlb=force,
 * as in a confidential-computing guest: every streaming DMA mapping then
 * points at a bounce buffer, and the engine reads and writes that copy,
 * as a real device would.  primebuf keeps a device's mapping across jobs,
 * from SUBMIT until after the job's fence, so what the CPU writes between
 * two jobs must be synced to the bounce buffer when the next job starts,
 * and what the engine wrote must be synced back before its fence
 * signals.  A missing or misplaced sync shows here as stale contents.
 * Large buffers must be mapped in segments the bounce buffers can take.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define PITCH		4096
#define ROUNDS		8
#define SWIOTLB_USED	"/sys/kernel/debug/swiotlb/io_tlb_used"

static bool cmdline_has(const char *word)
{
	char line[4096];
	FILE *f = fopen("/proc/cmdline", "r");
	bool found = false;
	char *tok, *save;

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			found |= !strcmp(tok, word);
	fclose(f);
	return found;
}

/* Slots (2 KiB each) of the bounce buffer pool in use now */
static long swiotlb_used(void)
{
	FILE *f = fopen(SWIOTLB_USED, "r");
	long used = -1;

	if (f) {
		if (fscanf(f, "%ld", &used) != 1)
			used = -1;
		fclose(f);
	}
	return used;
}

static void fill_words(uint32_t *map, size_t size, uint32_t seed)
{
	for (size_t i = 0; i < size / 4; i++)
		map[i] = seed * 2654435761u + (uint32_t)i;
}

static void check_words(const uint32_t *map, size_t size, uint32_t seed,
			const char *what)
{
	for (size_t i = 0; i < size / 4; i++)
		igt_assert_f(map[i] == seed * 2654435761u + (uint32_t)i,
			     "%s, word %zu: 0x%08x, expected 0x%08x\n", what, i,
			     map[i], seed * 2654435761u + (uint32_t)i);
}

static void check_value(const uint32_t *map, size_t size, uint32_t value,
			const char *what)
{
	for (size_t i = 0; i < size / 4; i++)
		igt_assert_f(map[i] == value, "%s, word %zu: 0x%08x, expected 0x%08x\n",
			     what, i, map[i], value);
}

static struct drm_vrender_cmd copy_all(uint32_t dst, uint32_t src,
				       size_t size)
{
	return (struct drm_vrender_cmd) {
		.op = VRENDER_CMD_COPY,
		.dst_handle = dst, .dst_pitch = PITCH,
		.src_handle = src, .src_pitch = PITCH,
		.width = PITCH / 4, .height = size / PITCH,
	};
}

static struct drm_vrender_cmd fill_all(uint32_t dst, size_t size,
				       uint32_t value)
{
	return primepair_vrender_fill(dst, 0, PITCH, 0, 0, PITCH / 4,
				      size / PITCH, value);
}

/*
 * Rounds of CPU writes and engine work on two vrender buffers, each
 * mapped for the device once and kept: the engine must see each round's
 * CPU writes, and the CPU each round's engine writes.
 */
static void cpu_device_rounds(size_t size)
{
	int fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	uint32_t a = primepair_vrender_bo_create(fd, size);
	uint32_t b = primepair_vrender_bo_create(fd, size);
	uint32_t *ma = primepair_vrender_bo_mmap(fd, a, size,
						 PROT_READ | PROT_WRITE);
	uint32_t *mb = primepair_vrender_bo_mmap(fd, b, size, PROT_READ);
	uint64_t hits = primepair_summary("map_cache_hits");
	struct drm_vrender_cmd c;

	for (uint32_t r = 1; r <= ROUNDS; r++) {
		fill_words(ma, size, r);
		c = copy_all(b, a, size);
		primepair_vrender_submit(fd, &c, 1);
		primepair_vrender_bo_wait(fd, b, 10000000000ll);
		check_words(mb, size, r, "copy of the CPU's words");

		c = fill_all(a, size, 0xa5000000 | r);
		primepair_vrender_submit(fd, &c, 1);
		primepair_vrender_bo_wait(fd, a, 10000000000ll);
		check_value(ma, size, 0xa5000000 | r, "engine's fill");
	}
	/* The mappings were kept from job to job, not made again. */
	igt_assert_lte_u64(hits + ROUNDS, primepair_summary("map_cache_hits"));

	munmap(ma, size);
	munmap(mb, size);
	igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
	igt_assert_eq(drmCloseBufferHandle(fd, b), 0);
	close(fd);
	primepair_assert_summary_zero();
}

/* Submit one command with an out-fence, and wait for that fence only. */
static void submit_and_wait_fence(int fd, struct drm_vrender_cmd *c)
{
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(fd, &submit), 0);
	igt_assert(primepair_sync_file_wait(submit.out_fence_fd, 10000));
	igt_assert_eq(primepair_sync_file_status(submit.out_fence_fd), 1);
	close(submit.out_fence_fd);
}

static void reset_release_delay(void *data)
{
	primepair_vrender_set_param("job_release_delay_us", 0);
}

/*
 * Rounds in which each step waits only for the previous job's fence, as
 * a compositor does, and not for vrender to release the job (BO_WAIT):
 * the next job then maps the buffer while the last one still holds its
 * mapping.  The fill of @a must be in the pages when its fence has
 * signalled (@ma is a CPU mapping of them with no sync of its own), the
 * CPU's writes made right after it must reach the next job, and no late
 * release may copy the job's view back over them.
 */
static void fence_rounds(int fd, uint32_t a, uint32_t *ma, size_t size,
			 uint32_t rounds)
{
	uint32_t b = primepair_vrender_bo_create(fd, size);
	uint32_t *mb = primepair_vrender_bo_mmap(fd, b, size, PROT_READ);
	struct drm_vrender_cmd c;

	/* Each job is released well after the next one has mapped. */
	primepair_subtest_cleanup_push(reset_release_delay, NULL);
	primepair_vrender_set_param("job_release_delay_us", 20000);
	for (uint32_t r = 1; r <= rounds; r++) {
		c = fill_all(a, size, 0xc3000000 | r);
		submit_and_wait_fence(fd, &c);
		check_value(ma, size, 0xc3000000 | r, "fill, once its fence signalled");

		fill_words(ma, size, r);
		c = copy_all(b, a, size);
		submit_and_wait_fence(fd, &c);
		check_words(mb, size, r, "copy of the CPU's words written after the fill's fence");
	}
	primepair_vrender_bo_wait(fd, a, 10000000000ll);
	primepair_vrender_bo_wait(fd, b, 10000000000ll);
	primepair_subtest_cleanup_pop(true);
	check_words(ma, size, rounds, "the CPU's words once every job is released");
	check_words(mb, size, rounds, "the last copy once every job is released");

	munmap(mb, size);
	igt_assert_eq(drmCloseBufferHandle(fd, b), 0);
}

static void dmabuf_sync(int dmabuf, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
}

igt_main
{
	igt_fixture {
		igt_require_f(cmdline_has("swiotlb=force"),
			      "needs a boot with swiotlb=force (tools/run-suite gives it one)\n");
	}

	igt_describe("With swiotlb=force, a job's buffers are mapped through bounce buffers, so the rest of this test checks the syncs");
	igt_subtest("bounce-in-use") {
		const size_t size = 256 * 1024;
		int fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		uint32_t bo = primepair_vrender_bo_create(fd, size);
		struct drm_vrender_cmd c = fill_all(bo, size, 1);
		struct drm_vrender_submit submit = {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
			.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		};
		long before, during;

		before = swiotlb_used();
		igt_require_f(before >= 0, "no %s\n", SWIOTLB_USED);
		/* The job keeps its mapping through its simulated time. */
		primepair_vrender_set_param("job_latency_us", 1000000);
		igt_assert_eq(__primepair_vrender_submit(fd, &submit), 0);
		during = swiotlb_used();
		igt_assert(primepair_sync_file_wait(submit.out_fence_fd, 10000));
		primepair_vrender_set_param("job_latency_us", 0);
		igt_assert_eq(primepair_sync_file_status(submit.out_fence_fd), 1);
		close(submit.out_fence_fd);
		igt_info("bounce slots in use: %ld before, %ld while the job was queued\n",
			 before, during);
		igt_assert_lte(before + (long)(size / 2048), during);

		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
		close(fd);
		primepair_assert_summary_zero();
	}

	igt_describe("CPU writes between jobs reach the engine, and the engine's writes reach the CPU, on buffers whose mapping is kept across jobs");
	igt_subtest("cpu-device-rounds")
		cpu_device_rounds(64 * 1024);

	igt_describe("The same on 4 MiB buffers, mapped in segments the bounce buffers can take");
	igt_subtest("large-buffer")
		cpu_device_rounds(4 << 20);

	igt_describe("Each job waits only for the last one's fence: its results are in the pages when the fence signals, and the CPU's writes made right after reach the next job and are not overwritten by the last job's release");
	igt_subtest("fence-rounds") {
		const size_t size = 64 * 1024;
		int fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		uint32_t a = primepair_vrender_bo_create(fd, size);
		uint32_t *ma = primepair_vrender_bo_mmap(fd, a, size,
							 PROT_READ | PROT_WRITE);

		fence_rounds(fd, a, ma, size, 4 * ROUNDS);
		munmap(ma, size);
		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		close(fd);
		primepair_assert_summary_zero();
	}

	igt_describe("The same on a vdisplay dumb buffer imported into vrender, read and written through vdisplay's mapping of it");
	igt_subtest("fence-rounds-imported") {
		int display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		int render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		const size_t size = (size_t)PITCH * 16;
		uint32_t dumb, import, pitch;
		uint64_t dumb_size, offset;
		uint32_t *map;
		int dmabuf;

		igt_assert_eq(drmModeCreateDumbBuffer(display, PITCH / 4, 16, 32,
						      0, &dumb, &pitch,
						      &dumb_size), 0);
		igt_assert_eq_u32(pitch, PITCH);
		igt_assert_eq(drmModeMapDumbBuffer(display, dumb, &offset), 0);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   display, offset);
		igt_assert(map != MAP_FAILED);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC | DRM_RDWR,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &import), 0);
		close(dmabuf);

		fence_rounds(render, import, map, size, 4 * ROUNDS);
		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(render, import), 0);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(render);
		close(display);
		primepair_assert_summary_zero();
	}

	igt_describe("A vdisplay dumb buffer imported into vrender: the CPU's writes through the dma-buf reach vrender's checksum, vrender's fill reaches the CPU");
	igt_subtest("imported-display-buffer") {
		int display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		int render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		uint32_t dumb, import, pitch;
		uint64_t size;
		uint32_t *map;
		int dmabuf;

		igt_assert_eq(drmModeCreateDumbBuffer(display, PITCH / 4, 256, 32,
						      0, &dumb, &pitch, &size), 0);
		igt_assert_eq_u32(pitch, PITCH);
		size = (uint64_t)PITCH * 256;
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC | DRM_RDWR,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &import), 0);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   dmabuf, 0);
		igt_assert(map != MAP_FAILED);

		for (uint32_t r = 1; r <= ROUNDS; r++) {
			struct drm_vrender_cmd c;

			dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
			fill_words(map, size, r);
			dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
			igt_assert_eq_u32(primepair_vrender_crc32(render, import, size),
					  primepair_crc32(0, map, size));

			c = fill_all(import, size, 0x5a000000 | r);
			primepair_vrender_submit(render, &c, 1);
			primepair_vrender_bo_wait(render, import, 10000000000ll);
			dmabuf_sync(dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
			check_value(map, size, 0x5a000000 | r, "vrender's fill");
			dmabuf_sync(dmabuf, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
		}

		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(render, import), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(render);
		close(display);
		primepair_assert_summary_zero();
	}
}

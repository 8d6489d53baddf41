// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_uapi_leaks - what vrender's ioctls copy back holds only what the
 * ioctl returns: no kernel memory, no stale values of the caller's
 *
 * DRM core copies the whole argument struct back to userspace after every
 * ioctl, so every byte of it is either an input echoed back or a value the
 * handler wrote.  Must-be-zero inputs (flags, pad) are rejected when not
 * zero (vrender_uapi checks that), so here the output fields are filled
 * with two different poison patterns before each call: the outputs must
 * come back the same both times (the kernel wrote them), the inputs as
 * they were sent, and the user arrays the ioctls fill must be written
 * exactly as far as documented.  The segment list of a buffer that has
 * moved since its last mapping is empty: no count of a mapping that is
 * gone, and no kernel heap contents.
 *
 * Debian's kernels are built with CONFIG_INIT_ON_ALLOC_DEFAULT_ON, which
 * zeroes every kernel allocation and so would hide a heap leak as such;
 * bo-info-after-move also fails on the count of a dropped mapping, which
 * is what let BO_INFO copy out entries it never wrote.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define SIZE		(256 * 1024)
#define PITCH		4096
#define NSEGS		64

static const uint64_t poison[2] = { ~0ull, 0x5a5a5a5a5a5a5a5aull };

static void fill_u64(void *p, size_t bytes, uint64_t v)
{
	uint64_t *q = p;

	for (size_t i = 0; i < bytes / 8; i++)
		q[i] = v;
}

static void fill_and_wait(int fd, uint32_t bo, uint32_t value)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, PITCH, 0, 0,
							  PITCH / 4,
							  SIZE / PITCH, value);

	primepair_vrender_submit(fd, &c, 1);
	primepair_vrender_bo_wait(fd, bo, 10000000000ll);
}

/*
 * BO_INFO with the outputs and every entry of @segs poisoned with
 * @pattern; checks the inputs came back unchanged and the entries past
 * min(nsegs, NSEGS) were not written.
 */
static void bo_info(int fd, uint32_t bo, uint64_t pattern,
		    struct drm_vrender_bo_info *info,
		    struct drm_vrender_segment *segs)
{
	unsigned int i, written;

	fill_u64(segs, NSEGS * sizeof(*segs), pattern);
	memset(info, 0, sizeof(*info));
	info->handle = bo;
	info->size = pattern;
	info->placement = (uint32_t)pattern;
	info->nsegs = (uint32_t)pattern;
	info->segs_ptr = (uintptr_t)segs;
	info->segs_count = NSEGS;
	igt_assert_eq(__primepair_vrender_bo_info(fd, info), 0);

	igt_assert_eq_u32(info->handle, bo);
	igt_assert_eq_u32(info->flags, 0);
	igt_assert_eq_u64(info->segs_ptr, (uintptr_t)segs);
	igt_assert_eq_u32(info->segs_count, NSEGS);
	igt_assert_eq_u32(info->pad, 0);
	igt_assert_lte_u32(info->nsegs, SIZE / 4096);

	written = info->nsegs < NSEGS ? info->nsegs : NSEGS;
	for (i = written; i < NSEGS; i++)
		igt_assert_f(segs[i].addr == pattern && segs[i].len == pattern,
			     "segment %u of %u written\n", i, info->nsegs);
}

/* The written entries describe the whole buffer, as one device sees it */
static void check_segments(const struct drm_vrender_bo_info *info,
			   const struct drm_vrender_segment *segs)
{
	uint64_t total = 0;

	igt_assert_lt_u32(0, info->nsegs);
	igt_assert_lte_u32(info->nsegs, NSEGS);
	for (unsigned int i = 0; i < info->nsegs; i++) {
		igt_assert_f(segs[i].len && !(segs[i].len & 4095) &&
			     !(segs[i].addr & 4095),
			     "segment %u: %#llx + %#llx\n", i,
			     (unsigned long long)segs[i].addr,
			     (unsigned long long)segs[i].len);
		total += segs[i].len;
	}
	igt_assert_eq_u64(total, info->size);
}

static void test_get_param(int fd)
{
	for (uint32_t param = VRENDER_PARAM_COMMANDS;
	     param <= VRENDER_PARAM_TIMELINES; param++) {
		struct drm_vrender_get_param gp[2];

		for (int i = 0; i < 2; i++) {
			gp[i] = (struct drm_vrender_get_param) {
				.param = param,
				.value = poison[i],
			};
			igt_assert_eq(drmIoctl(fd, DRM_IOCTL_VRENDER_GET_PARAM,
					       &gp[i]), 0);
			igt_assert_eq_u32(gp[i].param, param);
			igt_assert_eq_u32(gp[i].pad, 0);
		}
		igt_assert_f(gp[0].value == gp[1].value,
			     "param %u: %#llx, then %#llx\n", param,
			     (unsigned long long)gp[0].value,
			     (unsigned long long)gp[1].value);
	}
}

static void test_bo_create_and_offset(int fd)
{
	struct drm_vrender_bo_mmap_offset mo[2];
	struct drm_vrender_bo_create bc;
	uint32_t *map;

	bc = (struct drm_vrender_bo_create) {
		.size = 4096,
		.handle = (uint32_t)poison[0],
	};
	igt_assert_eq(drmIoctl(fd, DRM_IOCTL_VRENDER_BO_CREATE, &bc), 0);
	igt_assert_eq_u64(bc.size, 4096);
	igt_assert_eq_u32(bc.flags, 0);
	/* a real handle, not the value passed in */
	igt_assert_neq(bc.handle, 0);
	igt_assert_neq(bc.handle, (uint32_t)poison[0]);

	for (int i = 0; i < 2; i++) {
		mo[i] = (struct drm_vrender_bo_mmap_offset) {
			.handle = bc.handle,
			.offset = poison[i],
		};
		igt_assert_eq(drmIoctl(fd, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET,
				       &mo[i]), 0);
		igt_assert_eq_u32(mo[i].handle, bc.handle);
		igt_assert_eq_u32(mo[i].pad, 0);
	}
	igt_assert_eq_u64(mo[0].offset, mo[1].offset);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, mo[0].offset);
	igt_assert(map != MAP_FAILED);
	igt_assert_eq_u32(map[0], 0);
	munmap(map, 4096);
	igt_assert_eq(drmCloseBufferHandle(fd, bc.handle), 0);
}

static void test_bo_info(int fd)
{
	struct drm_vrender_segment segs[2][NSEGS];
	struct drm_vrender_bo_info info[2];
	uint32_t bo = primepair_vrender_bo_create(fd, SIZE);

	/* Never used: no memory, no segments, nothing written to segs */
	for (int i = 0; i < 2; i++)
		bo_info(fd, bo, poison[i], &info[i], segs[i]);
	for (int i = 0; i < 2; i++) {
		igt_assert_eq_u64(info[i].size, SIZE);
		igt_assert_eq_u32(info[i].placement, VRENDER_PLACEMENT_NONE);
		igt_assert_eq_u32(info[i].nsegs, 0);
	}

	/* Mapped once by a job: the segments of that mapping */
	fill_and_wait(fd, bo, 0x11111111);
	for (int i = 0; i < 2; i++)
		bo_info(fd, bo, poison[i], &info[i], segs[i]);
	igt_assert_eq_u32(info[0].placement, VRENDER_PLACEMENT_PAGES);
	igt_assert_eq_u64(info[0].size, info[1].size);
	igt_assert_eq_u32(info[0].placement, info[1].placement);
	igt_assert_eq_u32(info[0].nsegs, info[1].nsegs);
	igt_assert_eq(memcmp(segs[0], segs[1],
			     info[0].nsegs * sizeof(segs[0][0])), 0);
	check_segments(&info[0], segs[0]);

	igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
}

/*
 * A contiguous-only importer makes the buffer move: the exporter's own
 * mapping is dropped, so BO_INFO reports no segments and writes none of
 * the array (the poison stays), never the segments of the dropped mapping
 * or the contents of a kernel allocation.  Just before, BO_INFO of
 * another, mapped buffer leaves its DMA addresses in the allocator's free
 * memory of the same size, so a leak shows as entries that do not
 * describe this buffer.
 */
static void test_bo_info_after_move(int fd0, int fd1)
{
	struct drm_vrender_segment segs[NSEGS], other_segs[NSEGS];
	struct drm_vrender_bo_info info, other;
	uint32_t bo, decoy, imported;
	uint64_t migrations;
	int dmabuf;

	bo = primepair_vrender_bo_create(fd0, SIZE);
	decoy = primepair_vrender_bo_create(fd0, SIZE);
	fill_and_wait(fd0, bo, 0x22222222);
	fill_and_wait(fd0, decoy, 0x33333333);
	bo_info(fd0, bo, poison[0], &info, segs);
	check_segments(&info, segs);
	igt_assert_eq_u32(info.placement, VRENDER_PLACEMENT_PAGES);

	igt_assert_eq(drmPrimeHandleToFD(fd0, bo, DRM_CLOEXEC, &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(fd1, dmabuf, &imported), 0);
	close(dmabuf);
	/* The contiguous device reads it: the buffer moves, intact. */
	migrations = primepair_summary("migrations");
	{
		uint32_t ref[PITCH / 4];
		uint32_t crc = 0;

		for (unsigned int i = 0; i < PITCH / 4; i++)
			ref[i] = 0x22222222;
		for (unsigned int row = 0; row < SIZE / PITCH; row++)
			crc = primepair_crc32(crc, ref, sizeof(ref));
		igt_assert_eq_u32(primepair_vrender_crc32(fd1, imported, SIZE),
				  crc);
	}
	igt_assert_eq_u64(primepair_summary("migrations"), migrations + 1);

	for (int round = 0; round < 8; round++) {
		bo_info(fd0, decoy, poison[round & 1], &other, other_segs);
		check_segments(&other, other_segs);
		bo_info(fd0, bo, poison[round & 1], &info, segs);
		igt_assert_eq_u32(info.placement, VRENDER_PLACEMENT_CONTIG);
		/* bo_info() checked that entries past nsegs kept the poison */
		igt_assert_eq_u32(info.nsegs, 0);
	}

	/* The next job maps it again: one contiguous segment */
	fill_and_wait(fd0, bo, 0x44444444);
	bo_info(fd0, bo, poison[1], &info, segs);
	check_segments(&info, segs);

	igt_assert_eq(drmCloseBufferHandle(fd1, imported), 0);
	igt_assert_eq(drmCloseBufferHandle(fd0, decoy), 0);
	igt_assert_eq(drmCloseBufferHandle(fd0, bo), 0);
}

static void test_submit(int fd)
{
	uint32_t bo = primepair_vrender_bo_create(fd, SIZE);
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, PITCH, 0, 0,
							  PITCH / 4,
							  SIZE / PITCH, 5);
	struct drm_vrender_submit s, sent;
	uint64_t seqno = 0;

	for (int i = 0; i < 4; i++) {
		bool want_fd = i & 2;

		s = (struct drm_vrender_submit) {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
			.flags = want_fd ? VRENDER_SUBMIT_OUT_FENCE_FD : 0,
			.out_fence_fd = (int32_t)poison[i & 1],
			.seqno = poison[i & 1],
		};
		sent = s;
		igt_assert_eq(__primepair_vrender_submit(fd, &s), 0);
		if (want_fd) {
			igt_assert_lte(0, s.out_fence_fd);
			igt_assert(primepair_sync_file_wait(s.out_fence_fd,
							    10000));
			igt_assert_eq(primepair_sync_file_status(s.out_fence_fd),
				      1);
			close(s.out_fence_fd);
		} else {
			igt_assert_eq(s.out_fence_fd, -1);
		}
		/* one job at a time on this device: seqnos follow */
		if (seqno)
			igt_assert_eq_u64(s.seqno, seqno + 1);
		igt_assert_lt_u64(0, s.seqno);
		igt_assert_lt_u64(s.seqno, 1ull << 32);
		seqno = s.seqno;
		/* and the inputs come back as they were sent */
		s.out_fence_fd = sent.out_fence_fd;
		s.seqno = sent.seqno;
		igt_assert_eq(memcmp(&s, &sent, sizeof(s)), 0);
	}

	/* A refused job writes nothing back */
	s = (struct drm_vrender_submit) {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		.out_syncobj = 0x7fffffff,
		.out_fence_fd = (int32_t)poison[1],
		.seqno = poison[1],
	};
	sent = s;
	igt_assert_eq(__primepair_vrender_submit(fd, &s), -ENOENT);
	igt_assert_eq(memcmp(&s, &sent, sizeof(s)), 0);

	primepair_vrender_bo_wait(fd, bo, 10000000000ll);
	igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
}

igt_main
{
	int fd0 = -1, fd1 = -1;

	igt_fixture {
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER,
					"instances=2 contiguous=0,1");
		fd0 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 0);
		fd1 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 1);
		igt_require(primepair_vrender_get_param(fd1,
					VRENDER_PARAM_CONTIGUOUS) == 1);
	}

	igt_describe("GET_PARAM writes every parameter's value, whatever value the caller passed in");
	igt_subtest("get-param")
		test_get_param(fd0);

	igt_describe("BO_CREATE returns a fresh handle and BO_MMAP_OFFSET a working offset over poisoned outputs");
	igt_subtest("bo-create-mmap-offset")
		test_bo_create_and_offset(fd0);

	igt_describe("BO_INFO writes its outputs and exactly min(nsegs, segs_count) segments");
	igt_subtest("bo-info")
		test_bo_info(fd0);

	igt_describe("BO_INFO of a buffer that moved since its last mapping copies no kernel memory");
	igt_subtest("bo-info-after-move")
		test_bo_info_after_move(fd0, fd1);

	igt_describe("SUBMIT writes seqno and out_fence_fd (-1 without the flag), echoes its inputs, and writes nothing when refused");
	igt_subtest("submit")
		test_submit(fd0);

	igt_fixture {
		close(fd0);
		close(fd1);
		primepair_assert_summary_zero();
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, "");
	}
}

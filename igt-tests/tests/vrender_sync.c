// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_sync - ordering of jobs, implicit and explicit
 *
 * Two vrender instances have two independent engines, so a job on one
 * runs concurrently with a job on the other unless something orders them.
 * The first job (A) is made slow with the engine_speed parameter; the
 * second (B) is queued at once, without userspace waiting.  B must see
 * A's result through the shared buffer's reservation object (implicit
 * sync), or must not finish before A when it waits for A's fence through
 * a syncobj or a sync_file (explicit sync).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

/* 1 MiB at 4 MiB/s: A takes 250 ms */
#define BIG		(1024 * 1024)
#define PITCH		4096
#define SPEED		(4 * 1024 * 1024)

static int fd0 = -1, fd1 = -1;

static void exit_handler(int sig)
{
	primepair_vrender_set_param("engine_speed", 0);
	primepair_vrender_set_param("job_timeout_ms", 10000);
}

/* Share @handle of @from with @to through a dma-buf. */
static uint32_t share(int from, uint32_t handle, int to)
{
	uint32_t imported;
	int dmabuf;

	igt_assert_eq(drmPrimeHandleToFD(from, handle, DRM_CLOEXEC, &dmabuf),
		      0);
	igt_assert_eq(drmPrimeFDToHandle(to, dmabuf, &imported), 0);
	close(dmabuf);
	return imported;
}

static struct drm_vrender_cmd fill_big(uint32_t bo, uint32_t value)
{
	return primepair_vrender_fill(bo, 0, PITCH, 0, 0, PITCH / 4,
				      BIG / PITCH, value);
}

/* Submit one command with optional explicit fences; returns the out fd. */
static int submit(int fd, struct drm_vrender_cmd c, uint32_t in_syncobj,
		  int in_fence, uint32_t out_syncobj)
{
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.in_syncobjs = (uintptr_t)&in_syncobj,
		.in_syncobj_count = in_syncobj ? 1 : 0,
		.out_syncobj = out_syncobj,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	if (in_fence >= 0) {
		s.flags |= VRENDER_SUBMIT_IN_FENCE_FD;
		s.in_fence_fd = in_fence;
	}
	igt_assert_eq(__primepair_vrender_submit(fd, &s), 0);
	return s.out_fence_fd;
}

static uint32_t big_crc(uint32_t value)
{
	uint32_t *buf = malloc(BIG);
	uint32_t crc;
	size_t i;

	igt_assert(buf);
	for (i = 0; i < BIG / 4; i++)
		buf[i] = value;
	crc = primepair_crc32(0, buf, BIG);
	free(buf);
	return crc;
}

/* B, on the other engine, finishes only after A. */
static void assert_after(int fence_a, int fence_b)
{
	igt_assert(primepair_sync_file_wait(fence_b, 10000));
	igt_assert_eq(primepair_sync_file_status(fence_b), 1);
	igt_assert_f(primepair_sync_file_status(fence_a) == 1,
		     "B signalled while A was still running\n");
	close(fence_a);
	close(fence_b);
}

igt_main
{
	igt_fixture {
		primepair_reload_module("vrender", "instances=2");
		igt_install_exit_handler(exit_handler);
		fd0 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 0);
		fd1 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 1);
		igt_assert_eq_u64(primepair_vrender_get_param(fd1,
						VRENDER_PARAM_INSTANCE), 1);
		primepair_vrender_set_param("engine_speed", SPEED);
	}

	igt_describe("Without explicit sync, the engines really run concurrently (control)");
	igt_subtest("unordered-control") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t b = primepair_vrender_bo_create(fd1, 4096);
		int fa, fb;

		fa = submit(fd0, fill_big(a, 1), 0, -1, 0);
		fb = submit(fd1, primepair_vrender_fill(b, 0, 16, 0, 0, 1, 1, 2),
			    0, -1, 0);
		igt_assert(primepair_sync_file_wait(fb, 10000));
		igt_assert_eq(primepair_sync_file_status(fa), 0);
		igt_assert(primepair_sync_file_wait(fa, 10000));
		close(fa);
		close(fb);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, b), 0);
	}

	igt_describe("B reads A's output on another engine and sees A's result, userspace never waits in between");
	igt_subtest("implicit-read-after-write") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t a1 = share(fd0, a, fd1);
		uint32_t res = primepair_vrender_bo_create(fd1, 4096);
		uint32_t *map;
		int fa, fb;

		fa = submit(fd0, fill_big(a, 0x5a5a0001), 0, -1, 0);
		fb = submit(fd1, primepair_vrender_checksum(a1, 0, PITCH,
							    PITCH / 4,
							    BIG / PITCH, res,
							    0), 0, -1, 0);
		assert_after(fa, fb);
		map = primepair_vrender_bo_mmap(fd1, res, 4096, PROT_READ);
		igt_assert_eq_u32(map[0], big_crc(0x5a5a0001));
		munmap(map, 4096);
		igt_assert_eq(drmCloseBufferHandle(fd1, res), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, a1), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
	}

	igt_describe("B overwrites what A reads: B waits until A has read it");
	igt_subtest("implicit-write-after-read") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t a1 = share(fd0, a, fd1);
		uint32_t copy = primepair_vrender_bo_create(fd0, BIG);
		uint32_t res = primepair_vrender_bo_create(fd0, 4096);
		struct drm_vrender_cmd c = {
			.op = VRENDER_CMD_COPY,
			.dst_handle = copy, .dst_pitch = PITCH,
			.src_handle = a, .src_pitch = PITCH,
			.width = PITCH / 4, .height = BIG / PITCH,
		};
		int fa, fb;

		close(submit(fd0, fill_big(a, 7), 0, -1, 0));
		primepair_vrender_bo_wait(fd0, a, 10000000000ll);
		fa = submit(fd0, c, 0, -1, 0);
		fb = submit(fd1, primepair_vrender_fill(a1, 0, PITCH, 0, 0,
							PITCH / 4,
							BIG / PITCH, 8),
			    0, -1, 0);
		assert_after(fa, fb);
		igt_assert_eq_u32(primepair_vrender_crc32(fd0, copy, BIG),
				  big_crc(7));
		igt_assert_eq_u32(primepair_vrender_crc32(fd0, a, BIG),
				  big_crc(8));
		igt_assert_eq(drmCloseBufferHandle(fd0, res), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, copy), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, a1), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
	}

	igt_describe("B waits for A through A's out-syncobj, shared with B's device as an in-syncobj");
	igt_subtest("explicit-syncobj") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t b = primepair_vrender_bo_create(fd1, 4096);
		uint32_t s0, s1;
		int fa, fb, sfd;

		igt_assert_eq(drmSyncobjCreate(fd0, 0, &s0), 0);
		igt_assert_eq(drmSyncobjHandleToFD(fd0, s0, &sfd), 0);
		igt_assert_eq(drmSyncobjFDToHandle(fd1, sfd, &s1), 0);
		close(sfd);

		fa = submit(fd0, fill_big(a, 1), 0, -1, s0);
		fb = submit(fd1, primepair_vrender_fill(b, 0, 16, 0, 0, 1, 1, 2),
			    s1, -1, 0);
		assert_after(fa, fb);

		igt_assert_eq(drmSyncobjDestroy(fd1, s1), 0);
		igt_assert_eq(drmSyncobjDestroy(fd0, s0), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, b), 0);
	}

	igt_describe("B waits for A through a point of a timeline syncobj that A signals");
	igt_subtest("explicit-timeline") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t b = primepair_vrender_bo_create(fd1, 4096);
		struct drm_vrender_cmd ca = fill_big(a, 1);
		struct drm_vrender_cmd cb = primepair_vrender_fill(b, 0, 16, 0,
								   0, 1, 1, 2);
		uint64_t point = 5, reached = 0;
		uint32_t t0, t1;
		struct drm_vrender_submit sa = {
			.cmds = (uintptr_t)&ca, .cmd_count = 1,
			.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		};
		struct drm_vrender_submit sb = {
			.cmds = (uintptr_t)&cb, .cmd_count = 1,
			.in_syncobjs = (uintptr_t)&t1, .in_syncobj_count = 1,
			.in_points = (uintptr_t)&point,
			.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		};
		int sfd;

		igt_assert_eq(drmSyncobjCreate(fd0, 0, &t0), 0);
		igt_assert_eq(drmSyncobjHandleToFD(fd0, t0, &sfd), 0);
		igt_assert_eq(drmSyncobjFDToHandle(fd1, sfd, &t1), 0);
		close(sfd);

		sa.out_syncobj = t0;
		sa.out_point = point;
		igt_assert_eq(__primepair_vrender_submit(fd0, &sa), 0);
		igt_assert_eq(__primepair_vrender_submit(fd1, &sb), 0);
		assert_after(sa.out_fence_fd, sb.out_fence_fd);

		igt_assert_eq(drmSyncobjTimelineWait(fd0, &t0, &point, 1,
						     INT64_MAX, 0, NULL), 0);
		igt_assert_eq(drmSyncobjQuery(fd1, &t1, &reached, 1), 0);
		igt_assert_eq_u64(reached, point);

		igt_assert_eq(drmSyncobjDestroy(fd1, t1), 0);
		igt_assert_eq(drmSyncobjDestroy(fd0, t0), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, b), 0);
	}

	igt_describe("B waits for A through A's out sync_file passed as B's in-fence");
	igt_subtest("explicit-sync-file") {
		uint32_t a = primepair_vrender_bo_create(fd0, BIG);
		uint32_t b = primepair_vrender_bo_create(fd1, 4096);
		int fa, fb;

		fa = submit(fd0, fill_big(a, 1), 0, -1, 0);
		fb = submit(fd1, primepair_vrender_fill(b, 0, 16, 0, 0, 1, 1, 2),
			    0, fa, 0);
		assert_after(fa, fb);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, b), 0);
	}

	igt_describe("A dependency that does not signal within job_timeout_ms fails the waiting job with -ETIMEDOUT; the engine goes on");
	igt_subtest("dependency-timeout") {
		uint32_t a = primepair_vrender_bo_create(fd0, 4096);
		uint32_t b = primepair_vrender_bo_create(fd1, 4096);
		struct drm_vrender_cmd c;
		int f1, f2, fa;

		/* Two hung jobs on instance 1: the second ends at 2 x 300 ms. */
		primepair_vrender_set_param("job_timeout_ms", 300);
		primepair_inject_hang(2);
		c = primepair_vrender_fill(b, 0, 16, 0, 0, 1, 1, 1);
		f1 = submit(fd1, c, 0, -1, 0);
		f2 = submit(fd1, c, 0, -1, 0);

		c = primepair_vrender_fill(a, 0, 16, 0, 0, 1, 1, 2);
		fa = submit(fd0, c, 0, f2, 0);
		igt_assert(primepair_sync_file_wait(fa, 10000));
		igt_assert_eq(primepair_sync_file_status(fa), -ETIMEDOUT);
		/* It gave up before its dependency signalled. */
		igt_assert_eq(primepair_sync_file_status(f2), 0);
		close(fa);

		/* The next job on instance 0 runs at once. */
		fa = submit(fd0, c, 0, -1, 0);
		igt_assert(primepair_sync_file_wait(fa, 10000));
		igt_assert_eq(primepair_sync_file_status(fa), 1);
		close(fa);

		igt_assert(primepair_sync_file_wait(f2, 10000));
		igt_assert_eq(primepair_sync_file_status(f1), -ETIMEDOUT);
		igt_assert_eq(primepair_sync_file_status(f2), -ETIMEDOUT);
		close(f1);
		close(f2);
		primepair_vrender_set_param("job_timeout_ms", 10000);
		igt_assert_eq(drmCloseBufferHandle(fd0, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd1, b), 0);
	}

	igt_describe("A vrender job rendering into an imported vdisplay buffer: the CPU waiting on vdisplay's side sees the result");
	igt_subtest("implicit-to-exporter") {
		int display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		uint32_t dumb, pitch, imported;
		uint64_t size, offset;
		uint32_t *map;
		int dmabuf;

		igt_assert_eq(drmModeCreateDumbBuffer(display, PITCH / 4,
						      BIG / PITCH, 32, 0,
						      &dumb, &pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(fd0, dmabuf, &imported), 0);
		close(submit(fd0, primepair_vrender_fill(imported, 0, pitch, 0,
							 0, pitch / 4,
							 BIG / PITCH,
							 0xc0ffee),
			     0, -1, 0));
		/* The dma-buf fd polls readable once every writer is done. */
		igt_assert(primepair_sync_file_wait(dmabuf, 10000));
		igt_assert_eq(drmModeMapDumbBuffer(display, dumb, &offset), 0);
		map = mmap(NULL, size, PROT_READ, MAP_SHARED, display, offset);
		igt_assert(map != MAP_FAILED);
		igt_assert_eq_u32(map[0], 0xc0ffee);
		igt_assert_eq_u32(map[(BIG - 4) / 4], 0xc0ffee);
		munmap(map, size);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(fd0, imported), 0);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
	}

	igt_fixture {
		primepair_vrender_set_param("engine_speed", 0);
		primepair_vrender_set_param("job_timeout_ms", 10000);
		close(fd0);
		close(fd1);
		primepair_assert_summary_zero();
		primepair_reload_module("vrender", "");
	}
}

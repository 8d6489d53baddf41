// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_stall - a hung job holds its buffer until its timeout, no longer
 *
 * SUBMIT maps a job's buffers before the job's fence is published, and the
 * job keeps them mapped until it is freed.  An importer that needs the
 * buffer to move (a contiguous-only device) therefore waits, as a move of
 * a busy buffer does, for the buffer's fences and for the job to let go:
 * here until the hung job has failed with -ETIMEDOUT.  Then it attaches,
 * the buffer migrates, and its contents are intact.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define SIZE	(256 * 1024)
#define PITCH	4096
#define ROWS	(SIZE / PITCH)

static void exit_handler(int sig)
{
	primepair_vrender_set_param("job_timeout_ms", 10000);
}

static uint32_t placement(int fd, uint32_t handle)
{
	struct drm_vrender_bo_info info = { .handle = handle };

	igt_assert_eq(__primepair_vrender_bo_info(fd, &info), 0);
	return info.placement;
}

igt_main
{
	int fd0 = -1, fd1 = -1;

	igt_fixture {
		primepair_reload_module("vrender",
					"instances=2 contiguous=0,1");
		igt_install_exit_handler(exit_handler);
		fd0 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 0);
		fd1 = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 1);
		igt_require(primepair_vrender_get_param(fd1,
					VRENDER_PARAM_CONTIGUOUS) == 1);
		primepair_vrender_set_param("job_timeout_ms", 400);
	}

	igt_describe("A contiguous-only importer waits while a job on the buffer hangs, attaches once the job has timed out, and the buffer migrates with its contents");
	igt_subtest("hung-job-pins-until-timeout") {
		uint32_t x = primepair_vrender_bo_create(fd0, SIZE);
		struct drm_vrender_cmd c;
		uint32_t x1, *ref;
		int dmabuf, hung;
		int64_t t0, waited;
		size_t n;

		c = primepair_vrender_fill(x, 0, PITCH, 0, 0, PITCH / 4, ROWS,
					   0x77777777);
		primepair_vrender_submit(fd0, &c, 1);
		primepair_vrender_bo_wait(fd0, x, 10000000000ll);
		igt_assert_eq_u32(placement(fd0, x), VRENDER_PLACEMENT_PAGES);

		primepair_inject_hang(1);
		c.value = 0xdeaddead;
		t0 = primepair_now_ns();
		{
			struct drm_vrender_submit s = {
				.cmds = (uintptr_t)&c, .cmd_count = 1,
				.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
			};

			igt_assert_eq(__primepair_vrender_submit(fd0, &s), 0);
			hung = s.out_fence_fd;
		}
		igt_assert_eq(primepair_vrender_param("job_timeout_ms"), 400);

		/* The job is stuck, with its buffer mapped. */
		igt_assert_eq(primepair_sync_file_status(hung), 0);
		igt_assert_eq_u64(primepair_summary("mappings"), 1);
		igt_assert_eq_u32(placement(fd0, x), VRENDER_PLACEMENT_PAGES);

		/* The import waits for the hung job to end, then attaches. */
		igt_assert_eq(drmPrimeHandleToFD(fd0, x, DRM_CLOEXEC, &dmabuf),
			      0);
		igt_assert_eq(drmPrimeFDToHandle(fd1, dmabuf, &x1), 0);
		waited = primepair_now_ns() - t0;
		close(dmabuf);
		igt_assert_eq(primepair_sync_file_status(hung), -ETIMEDOUT);
		igt_assert_lte_s64(350 * 1000000ll, waited);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);
		close(hung);

		/* The contiguous instance reads it: the buffer moves, intact. */
		ref = malloc(SIZE);
		igt_assert(ref);
		for (n = 0; n < SIZE / 4; n++)
			ref[n] = 0x77777777;
		igt_assert_eq_u32(primepair_vrender_crc32(fd1, x1, SIZE),
				  primepair_crc32(0, ref, SIZE));
		free(ref);
		igt_assert_eq_u32(placement(fd0, x), VRENDER_PLACEMENT_CONTIG);
		igt_assert_eq_u64(primepair_summary("migrations"), 1);

		igt_assert_eq(drmCloseBufferHandle(fd1, x1), 0);
		igt_assert_eq(drmCloseBufferHandle(fd0, x), 0);
	}

	igt_fixture {
		primepair_vrender_set_param("job_timeout_ms", 10000);
		close(fd0);
		close(fd1);
		primepair_assert_summary_zero();
		primepair_reload_module("vrender", "");
	}
}

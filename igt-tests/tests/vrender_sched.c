// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_sched - one client cannot stall another
 *
 * Each open file has its own queue on the device's scheduler.  A client
 * whose jobs wait for a fence that does not signal (here a vgem fence,
 * the kind of foreign fence another driver hands out) blocks only
 * itself: other clients' jobs run meanwhile, as fast as they run alone.
 * The blocked jobs fail with -ETIMEDOUT at job_timeout_ms, and a file
 * with VRENDER_MAX_QUEUED jobs in flight gets -EBUSY for the next one.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define MAX_QUEUED	64
#define B_JOBS		1000

/* A foreign fence that signals only when told (or after vgem's 10 s). */
struct blocker {
	int vgem;
	struct pp_vgem_fence f;
	int sync_file;
};

static void blocker_create(struct blocker *b)
{
	igt_require(system("modprobe vgem 2>/dev/null") == 0);
	b->vgem = primepair_open_driver("vgem");
	igt_assert_eq(pp_vgem_fence_create(b->vgem, &b->f), 0);
	b->sync_file = b->f.sync_file;
	igt_assert_eq(primepair_sync_file_status(b->sync_file), 0);
}

static void blocker_release(struct blocker *b)
{
	/* vgem may have timed it out already (-ETIMEDOUT): either is fine */
	pp_vgem_fence_signal(&b->f);
	pp_vgem_fence_destroy(&b->f);
	close(b->vgem);
}

/* One small FILL; returns its sync_file. */
static int submit_fill(int fd, uint32_t bo, uint32_t value, int in_fence)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, 16, 0, 0,
							  4, 1, value);
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		.in_fence_fd = -1,
	};

	if (in_fence >= 0) {
		s.flags |= VRENDER_SUBMIT_IN_FENCE_FD;
		s.in_fence_fd = in_fence;
	}
	igt_assert_eq(__primepair_vrender_submit(fd, &s), 0);
	return s.out_fence_fd;
}

/* B_JOBS small jobs, then wait for all; returns the time taken in ns. */
static int64_t run_b(int fd, uint32_t bo)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, 16, 0, 0,
							  4, 1, 0);
	int64_t t0 = primepair_now_ns();
	unsigned int i;

	for (i = 0; i < B_JOBS; i++) {
		c.value = i;
		primepair_vrender_submit(fd, &c, 1);
	}
	primepair_vrender_bo_wait(fd, bo, 60ll * 1000000000);
	return primepair_now_ns() - t0;
}

static void assert_live_zero(void)
{
	int i;

	/* Jobs of closed fds may still be finishing: give them a moment. */
	for (i = 0; i < 100 && primepair_summary("buffers"); i++)
		usleep(50 * 1000);
	primepair_assert_summary_zero();
}

static void exit_handler(int sig)
{
	primepair_vrender_set_param("job_timeout_ms", 10000);
}

igt_main
{
	igt_fixture {
		igt_install_exit_handler(exit_handler);
	}

	igt_describe("A client whose job waits for a fence that never signals does not slow another client's 1000 jobs; its job fails with -ETIMEDOUT at job_timeout_ms");
	igt_subtest("blocked-client") {
		int fa_fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		int fb_fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		uint32_t a = primepair_vrender_bo_create(fa_fd, 4096);
		uint32_t b = primepair_vrender_bo_create(fb_fd, 4096);
		int64_t alone, blocked, t0, waited;
		struct blocker blk;
		int fa;

		primepair_vrender_set_param("job_timeout_ms", 8000);
		run_b(fb_fd, b);			/* warm up */
		alone = run_b(fb_fd, b);

		blocker_create(&blk);
		t0 = primepair_now_ns();
		fa = submit_fill(fa_fd, a, 1, blk.sync_file);
		blocked = run_b(fb_fd, b);
		igt_info("B alone %lld ms, B while A blocks %lld ms\n",
			 (long long)(alone / 1000000),
			 (long long)(blocked / 1000000));
		/* A is still blocked: B really ran beside it. */
		igt_assert_eq(primepair_sync_file_status(fa), 0);
		igt_assert_lte_s64(blocked, 2 * alone + 100 * 1000000ll);

		igt_assert(primepair_sync_file_wait(fa, 20000));
		waited = primepair_now_ns() - t0;
		igt_assert_eq(primepair_sync_file_status(fa), -ETIMEDOUT);
		igt_assert_lte_s64(7200 * 1000000ll, waited);
		igt_assert_lte_s64(waited, 9900 * 1000000ll);
		close(fa);

		blocker_release(&blk);
		primepair_vrender_set_param("job_timeout_ms", 10000);
		close(fa_fd);
		close(fb_fd);
	}

	igt_describe("64 jobs of client A on a fence that never signals: client B's FILL finishes in under a second, A's 65th job gets -EBUSY, A's jobs run once the fence signals");
	igt_subtest("attacker-queue") {
		int fa_fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		int fb_fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		uint32_t a = primepair_vrender_bo_create(fa_fd, 4096);
		uint32_t b = primepair_vrender_bo_create(fb_fd, 4096);
		struct drm_vrender_cmd c = primepair_vrender_fill(a, 0, 16, 0, 0,
								  4, 1, 7);
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
			.flags = VRENDER_SUBMIT_IN_FENCE_FD,
		};
		int fences[MAX_QUEUED];
		struct blocker blk;
		int64_t t0;
		int i, fb;

		primepair_vrender_set_param("job_timeout_ms", 10000);
		blocker_create(&blk);
		for (i = 0; i < MAX_QUEUED; i++)
			fences[i] = submit_fill(fa_fd, a, i, blk.sync_file);

		t0 = primepair_now_ns();
		fb = submit_fill(fb_fd, b, 1, -1);
		igt_assert(primepair_sync_file_wait(fb, 10000));
		igt_assert_lt_s64(primepair_now_ns() - t0, 1000000000ll);
		igt_assert_eq(primepair_sync_file_status(fb), 1);
		close(fb);

		/* A's queue is full: the next job waits job_timeout_ms, then -EBUSY */
		primepair_vrender_set_param("job_timeout_ms", 300);
		s.in_fence_fd = blk.sync_file;
		t0 = primepair_now_ns();
		igt_assert_eq(__primepair_vrender_submit(fa_fd, &s), -EBUSY);
		igt_assert_lte_s64(250 * 1000000ll, primepair_now_ns() - t0);
		primepair_vrender_set_param("job_timeout_ms", 10000);
		for (i = 0; i < MAX_QUEUED; i++)
			igt_assert_eq(primepair_sync_file_status(fences[i]), 0);

		/* The fence signals: A's jobs run, in order. */
		blocker_release(&blk);
		for (i = 0; i < MAX_QUEUED; i++) {
			igt_assert(primepair_sync_file_wait(fences[i], 20000));
			igt_assert_eq(primepair_sync_file_status(fences[i]), 1);
			close(fences[i]);
		}
		close(fa_fd);
		close(fb_fd);
	}

	igt_fixture {
		primepair_vrender_set_param("job_timeout_ms", 10000);
		assert_live_zero();
	}
}

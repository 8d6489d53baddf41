// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_engine - timeouts, hangs, a slow engine, and jobs in flight when
 * their owner goes away
 *
 * A hang is injected through primebuf_selftest (hang_jobs): the engine cancels
 * the job at job_timeout_ms, its fence signals -ETIMEDOUT, its buffers are
 * left untouched, and the next job runs.  The engine's simulated speed and
 * latency are module parameters.  After every subtest primebuf's live
 * counters read 0: cancelled and orphaned jobs release everything.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_child.h"
#include "primepair_vrender.h"

#define TIMEOUT_MS	300
#define BO_SIZE		(64 * 1024)
#define PITCH		1024
#define ROWS		(BO_SIZE / PITCH)

/* Submit @n commands as one job; returns its sync_file. */
static int submit_cmds_fenced(int fd, const struct drm_vrender_cmd *cmds,
			      uint32_t n, uint32_t out_syncobj)
{
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)cmds,
		.cmd_count = n,
		.out_syncobj = out_syncobj,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(fd, &submit), 0);
	igt_assert_lte(0, submit.out_fence_fd);
	return submit.out_fence_fd;
}

/* Submit @cmd alone; returns its sync_file. */
static int submit_fenced(int fd, const struct drm_vrender_cmd *cmd,
			 uint32_t out_syncobj)
{
	return submit_cmds_fenced(fd, cmd, 1, out_syncobj);
}

static struct drm_vrender_cmd fill_all(uint32_t bo, uint32_t value)
{
	return primepair_vrender_fill(bo, 0, PITCH, 0, 0, PITCH / 4, ROWS,
				      value);
}

/* Wait for the fence and return its status. */
static int fence_result(int fence)
{
	int status;

	igt_assert(primepair_sync_file_wait(fence, 10 * TIMEOUT_MS + 5000));
	status = primepair_sync_file_status(fence);
	close(fence);
	return status;
}

static void assert_filled(int fd, uint32_t bo, uint32_t value)
{
	uint32_t *map = primepair_vrender_bo_mmap(fd, bo, BO_SIZE, PROT_READ);
	unsigned int i;

	for (i = 0; i < BO_SIZE / 4; i++)
		igt_assert_f(map[i] == value, "word %u: 0x%08x, expected 0x%08x\n",
			     i, map[i], value);
	munmap(map, BO_SIZE);
}

static void assert_live_zero(void)
{
	int i;

	/* Jobs of closed fds may still be finishing: give them a moment. */
	for (i = 0; i < 100 && primepair_summary("buffers"); i++)
		usleep(50 * 1000);
	primepair_assert_summary_zero();
}

/*
 * Each subtest works on a new fd, so that what a failed subtest left
 * behind is released before the next one counts buffers.
 */
static int cur_fd = -1;

static int fresh_fd(void)
{
	if (cur_fd >= 0)
		close(cur_fd);
	cur_fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	return cur_fd;
}

static void close_fd(void)
{
	if (cur_fd >= 0)
		close(cur_fd);
	cur_fd = -1;
}

static void reset_params(void)
{
	primepair_vrender_set_param("job_timeout_ms", 10000);
	primepair_vrender_set_param("engine_speed", 0);
	primepair_vrender_set_param("job_latency_us", 0);
}

static void exit_handler(int sig)
{
	reset_params();
}

static void reset_engine_speed(void *data)
{
	primepair_vrender_set_param("engine_speed", 0);
}

/* In a process of its own: 16 buffers, each with a FILL job queued */
static bool queue_fills(void *arg)
{
	int cfd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	struct drm_vrender_cmd c;
	uint32_t bo;
	int i;

	for (i = 0; i < 16; i++) {
		bo = primepair_vrender_bo_create(cfd, BO_SIZE);
		c = fill_all(bo, i);
		primepair_vrender_submit(cfd, &c, 1);
	}
	return true;
}

igt_main
{
	igt_fixture {
		fresh_fd();
		primepair_vrender_set_param("job_timeout_ms", TIMEOUT_MS);
		igt_install_exit_handler(exit_handler);
	}

	igt_describe("A hung job is cancelled at the timeout with -ETIMEDOUT, writes nothing, and the next job runs");
	igt_subtest("hang-timeout") {
		int fd = fresh_fd();

		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		uint32_t b = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c;
		int64_t t0, elapsed;
		int fa, fb;

		c = fill_all(a, 0x11111111);
		primepair_vrender_submit(fd, &c, 1);
		primepair_vrender_bo_wait(fd, a, 5000000000ll);

		primepair_inject_hang(1);
		t0 = primepair_now_ns();
		c = fill_all(a, 0xdeadbeef);
		fa = submit_fenced(fd, &c, 0);
		c = fill_all(b, 0x22222222);
		fb = submit_fenced(fd, &c, 0);

		igt_assert_eq(fence_result(fa), -ETIMEDOUT);
		elapsed = primepair_now_ns() - t0;
		igt_assert_lte_s64((int64_t)TIMEOUT_MS * 1000000 * 9 / 10,
				   elapsed);
		igt_assert_eq(fence_result(fb), 1);

		assert_filled(fd, a, 0x11111111);
		assert_filled(fd, b, 0x22222222);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, b), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("A job whose commands run past job_timeout_ms of real time (engine_speed 0: no simulated time) fails with -ETIMEDOUT soon after, not when its last command ends; another client's small job completes meanwhile");
	igt_subtest("runtime-budget") {
		const uint64_t big = 64ull << 20;
		struct drm_vrender_cmd c[64];
		int fd = fresh_fd();
		uint32_t src = primepair_vrender_bo_create(fd, big);
		uint32_t res = primepair_vrender_bo_create(fd, 4096);
		int64_t t0, one, elapsed;
		int fence, other, small_fence;
		uint32_t small;

		igt_require(primepair_vrender_get_param(fd, VRENDER_PARAM_MAX_COMMANDS) >= 64);
		for (int i = 0; i < 64; i++)
			c[i] = primepair_vrender_checksum(src, 0, 64 * 1024, 16 * 1024,
							  big / (64 * 1024), res, 0);

		/* How long one command over the buffer takes here */
		t0 = primepair_now_ns();
		primepair_vrender_submit(fd, c, 1);
		primepair_vrender_bo_wait(fd, res, 60000000000ll);
		one = primepair_now_ns() - t0;
		igt_require_f(one * 64 > (int64_t)TIMEOUT_MS * 3 * 1000000,
			      "64 commands take %lld ms, too few to cross the budget\n",
			      (long long)(one * 64 / 1000000));

		t0 = primepair_now_ns();
		fence = submit_cmds_fenced(fd, c, 64, 0);

		/*
		 * Another client's small job is not held behind the long one:
		 * it runs on another engine and is done while the long job is
		 * still at its commands.
		 */
		other = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		small = primepair_vrender_bo_create(other, BO_SIZE);
		c[0] = fill_all(small, 0x5a5a5a5a);
		small_fence = submit_fenced(other, &c[0], 0);
		igt_assert(primepair_sync_file_wait(small_fence, 5000));
		igt_assert_eq(primepair_sync_file_status(small_fence), 1);
		igt_assert_f(primepair_sync_file_status(fence) == 0,
			     "the long job ended before the small one\n");
		assert_filled(other, small, 0x5a5a5a5a);
		close(small_fence);
		igt_assert_eq(drmCloseBufferHandle(other, small), 0);
		close(other);

		igt_assert_eq(fence_result(fence), -ETIMEDOUT);
		elapsed = primepair_now_ns() - t0;
		igt_info("one command %lld ms; 64 stopped after %lld ms (budget %d ms)\n",
			 (long long)(one / 1000000), (long long)(elapsed / 1000000),
			 TIMEOUT_MS);
		/* The budget, and at most the command running when it ended */
		igt_assert_lte_s64(elapsed, (int64_t)TIMEOUT_MS * 2 * 1000000 + 2 * one);

		igt_assert_eq(drmCloseBufferHandle(fd, src), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, res), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("A job that reads a hung job's output runs after it, on the contents the hung job left");
	igt_subtest("hang-dependent-runs") {
		int fd = fresh_fd();

		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		uint32_t b = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c;
		int fa, fb, fc;

		c = fill_all(a, 0x11111111);
		primepair_vrender_submit(fd, &c, 1);
		primepair_vrender_bo_wait(fd, a, 5000000000ll);
		primepair_inject_hang(1);
		c = fill_all(a, 0xdeadbeef);
		fa = submit_fenced(fd, &c, 0);
		c = (struct drm_vrender_cmd) {
			.op = VRENDER_CMD_COPY,
			.dst_handle = b, .dst_pitch = PITCH,
			.src_handle = a, .src_pitch = PITCH,
			.width = PITCH / 4, .height = ROWS,
		};
		fb = submit_fenced(fd, &c, 0);
		/* Writing the buffer again works: it is not poisoned. */
		c = fill_all(a, 0x33333333);
		fc = submit_fenced(fd, &c, 0);

		igt_assert_eq(fence_result(fa), -ETIMEDOUT);
		igt_assert_eq(fence_result(fb), 1);
		igt_assert_eq(fence_result(fc), 1);
		assert_filled(fd, b, 0x11111111);
		assert_filled(fd, a, 0x33333333);

		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, b), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("The out-syncobj of a hung job carries -ETIMEDOUT too");
	igt_subtest("hang-syncobj") {
		int fd = fresh_fd();

		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c = fill_all(a, 1);
		uint32_t syncobj;
		int fa, exported;

		igt_assert_eq(drmSyncobjCreate(fd, 0, &syncobj), 0);
		primepair_inject_hang(1);
		fa = submit_fenced(fd, &c, syncobj);
		close(fa);
		igt_assert_eq(drmSyncobjWait(fd, &syncobj, 1, INT64_MAX, 0,
					     NULL), 0);
		igt_assert_eq(drmSyncobjExportSyncFile(fd, syncobj, &exported),
			      0);
		igt_assert_eq(primepair_sync_file_status(exported), -ETIMEDOUT);
		close(exported);

		/* The syncobj is reused by the next, healthy job. */
		c = fill_all(a, 2);
		close(submit_fenced(fd, &c, syncobj));
		igt_assert_eq(drmSyncobjWait(fd, &syncobj, 1, INT64_MAX, 0,
					     NULL), 0);
		igt_assert_eq(drmSyncobjExportSyncFile(fd, syncobj, &exported),
			      0);
		igt_assert_eq(primepair_sync_file_status(exported), 1);
		close(exported);
		assert_filled(fd, a, 2);

		igt_assert_eq(drmSyncobjDestroy(fd, syncobj), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("Several hangs in a row are each cancelled, then the engine serves jobs again");
	igt_subtest("hang-several") {
		int fd = fresh_fd();

		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c = fill_all(a, 7);
		int f[3], i;

		primepair_inject_hang(2);
		for (i = 0; i < 3; i++) {
			c.value = 7 + i;
			f[i] = submit_fenced(fd, &c, 0);
		}
		igt_assert_eq(fence_result(f[0]), -ETIMEDOUT);
		igt_assert_eq(fence_result(f[1]), -ETIMEDOUT);
		igt_assert_eq(fence_result(f[2]), 1);
		assert_filled(fd, a, 9);
		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("Writing a negative count to hang_jobs hangs nothing");
	igt_subtest("hang-knob-negative") {
		int fd = fresh_fd();
		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c = fill_all(a, 3);
		int i;

		primepair_inject_hang(-1);
		for (i = 0; i < 2; i++)
			igt_assert_eq(fence_result(submit_fenced(fd, &c, 0)), 1);
		primepair_inject_hang(0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("engine_speed and job_latency_us slow jobs down; a job slower than the timeout is cancelled");
	igt_subtest("slow-engine") {
		int fd = fresh_fd();

		uint32_t a = primepair_vrender_bo_create(fd, BO_SIZE);
		struct drm_vrender_cmd c = fill_all(a, 5);
		int64_t t0, elapsed;

		/* 64 KiB at 512 KiB/s: 125 ms */
		primepair_vrender_set_param("engine_speed", 512 * 1024);
		t0 = primepair_now_ns();
		igt_assert_eq(fence_result(submit_fenced(fd, &c, 0)), 1);
		elapsed = primepair_now_ns() - t0;
		igt_assert_lte_s64(120 * 1000000ll, elapsed);
		primepair_vrender_set_param("engine_speed", 0);

		primepair_vrender_set_param("job_latency_us", 100000);
		t0 = primepair_now_ns();
		c.value = 6;
		igt_assert_eq(fence_result(submit_fenced(fd, &c, 0)), 1);
		elapsed = primepair_now_ns() - t0;
		igt_assert_lte_s64(95 * 1000000ll, elapsed);
		assert_filled(fd, a, 6);

		/* Longer than the timeout: cancelled, nothing written */
		primepair_vrender_set_param("job_latency_us",
					    2 * TIMEOUT_MS * 1000);
		c.value = 7;
		igt_assert_eq(fence_result(submit_fenced(fd, &c, 0)),
			      -ETIMEDOUT);
		primepair_vrender_set_param("job_latency_us", 0);
		assert_filled(fd, a, 6);

		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("At the slowest engine_speed, 64 fills of a 300 MiB buffer (2e10 bytes, 2e19 ns) are simulated as too slow and cancelled with -ETIMEDOUT, the arithmetic not overflowing");
	igt_subtest("slowest-engine-largest-job") {
		const uint32_t pitch = 64 * 1024, rows = 4800;
		struct drm_vrender_cmd c[64];
		int fd = fresh_fd();
		uint32_t a = primepair_vrender_bo_create(fd, (uint64_t)pitch * rows);

		for (uint32_t i = 0; i < 64; i++)
			c[i] = primepair_vrender_fill(a, 0, pitch, 0, 0,
						      pitch / 4, rows, i);
		primepair_subtest_cleanup_push(reset_engine_speed, NULL);
		primepair_vrender_set_param("engine_speed", 1);
		igt_assert_eq(fence_result(submit_cmds_fenced(fd, c, 64, 0)),
			      -ETIMEDOUT);
		primepair_subtest_cleanup_pop(true);

		igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
		close_fd();
		assert_live_zero();
	}

	igt_describe("Closing the fd with slow and hung jobs in flight: they finish or are cancelled, and release everything");
	igt_subtest("close-fd-in-flight") {
		int fd2 = fresh_fd();
		uint32_t a = primepair_vrender_bo_create(fd2, BO_SIZE);
		uint32_t b = primepair_vrender_bo_create(fd2, BO_SIZE);
		struct drm_vrender_cmd c;
		int fa, fb, fc;

		primepair_vrender_set_param("job_latency_us", 50000);
		c = fill_all(a, 1);
		fa = submit_fenced(fd2, &c, 0);
		primepair_inject_hang(1);
		c = fill_all(b, 2);
		fb = submit_fenced(fd2, &c, 0);
		c = (struct drm_vrender_cmd) {
			.op = VRENDER_CMD_COPY,
			.dst_handle = a, .dst_pitch = PITCH,
			.src_handle = a, .src_pitch = PITCH, .src_y = 1,
			.width = PITCH / 4, .height = ROWS - 1,
		};
		fc = submit_fenced(fd2, &c, 0);
		close_fd();

		igt_assert_eq(fence_result(fa), 1);
		igt_assert_eq(fence_result(fb), -ETIMEDOUT);
		igt_assert_eq(fence_result(fc), 1);
		primepair_vrender_set_param("job_latency_us", 0);
		assert_live_zero();
	}

	igt_describe("Closing every fd while hung and slow jobs use an imported vdisplay buffer: the import, its attachment and the buffer go once the jobs are done");
	igt_subtest("close-all-in-flight-imported") {
		int render = fresh_fd();
		int display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		uint32_t dumb, pitch, imported, own;
		struct drm_vrender_cmd c;
		uint64_t size;
		int dmabuf, f1, f2;

		igt_assert_eq(drmModeCreateDumbBuffer(display, 256, 64, 32, 0,
						      &dumb, &pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &imported), 0);
		own = primepair_vrender_bo_create(render, size);

		primepair_inject_hang(1);
		c = primepair_vrender_fill(imported, 0, pitch, 0, 0, 256, 64, 1);
		f1 = submit_fenced(render, &c, 0);
		primepair_vrender_set_param("job_latency_us", 50000);
		c = (struct drm_vrender_cmd) {
			.op = VRENDER_CMD_COPY,
			.dst_handle = own, .dst_pitch = pitch,
			.src_handle = imported, .src_pitch = pitch,
			.width = 256, .height = 64,
		};
		f2 = submit_fenced(render, &c, 0);

		/* Everything userspace holds goes, except the fences. */
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
		close_fd();
		igt_assert_lt_u64(0, primepair_summary("imports"));

		igt_assert_eq(fence_result(f1), -ETIMEDOUT);
		igt_assert_eq(fence_result(f2), 1);
		primepair_vrender_set_param("job_latency_us", 0);
		assert_live_zero();
	}

	igt_describe("Killing a process with jobs queued releases every buffer once they are done");
	igt_subtest("kill-in-flight") {
		pid_t pid;

		close_fd();
		primepair_vrender_set_param("job_latency_us", 20000);
		pid = primepair_held_start(queue_fills, NULL);
		igt_assert_lt_u64(0, primepair_summary("buffers"));
		primepair_held_stop(pid);
		assert_live_zero();
		primepair_vrender_set_param("job_latency_us", 0);
	}

	igt_fixture {
		reset_params();
		close_fd();
		primepair_assert_summary_zero();
	}
}

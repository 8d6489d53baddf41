// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_uapi - every field of every ioctl, refused with the errno that
 * include/uapi/drm/vrender_drm.h documents
 *
 * Each bad value is tried alone on an otherwise valid request, and the
 * valid request is shown to work first, so that each errno is caused by
 * the field under test.  Nothing is left behind (primebuf's summary reads
 * 0) and the kernel log stays clean (checked by the runner).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define BO_SIZE	(64 * 1024)
#define PITCH	1024
#define ROWS	(BO_SIZE / PITCH)
#define BAD_PTR	((uint64_t)(uintptr_t)-4096)

static int fd = -1;
static uint32_t dst, src, res;

static int ioctl_errno(unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? errno : 0;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	alarms++;
}

/* SIGALRM in @us, its handler installed with SA_RESTART or without */
static void alarm_in(bool restart, long us)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = us } };

	sa.sa_flags = restart ? SA_RESTART : 0;
	igt_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	igt_assert_eq(setitimer(ITIMER_REAL, &it, NULL), 0);
}

static int submit_errno(struct drm_vrender_submit *s)
{
	int ret = -__primepair_vrender_submit(fd, s);

	if (!ret && (s->flags & VRENDER_SUBMIT_OUT_FENCE_FD))
		close(s->out_fence_fd);
	return ret;
}

static int cmd_errno(const struct drm_vrender_cmd *c)
{
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)c,
		.cmd_count = 1,
	};

	return submit_errno(&s);
}

static struct drm_vrender_cmd good_fill(void)
{
	return primepair_vrender_fill(dst, 0, PITCH, 0, 0, PITCH / 4, ROWS,
				      0x1234);
}

static struct drm_vrender_cmd good_copy(void)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_COPY,
		.dst_handle = dst, .dst_pitch = PITCH,
		.src_handle = src, .src_pitch = PITCH,
		.width = PITCH / 4, .height = ROWS,
	};

	return c;
}

static struct drm_vrender_cmd good_checksum(void)
{
	return primepair_vrender_checksum(src, 0, PITCH, PITCH / 4, ROWS, res,
					  0);
}

#define CHECK_CMD(base, field, value, err) do { \
	struct drm_vrender_cmd __c = (base); \
	__c.field = (value); \
	igt_assert_f(cmd_errno(&__c) == (err), \
		     #base " with " #field " = " #value ": %s, expected %s\n", \
		     strerror(cmd_errno(&__c)), strerror(err)); \
} while (0)

static void check_rectangles(struct drm_vrender_cmd base, bool dst_side)
{
	struct drm_vrender_cmd c;

	igt_assert_eq(cmd_errno(&base), 0);

	c = base;
	c.width = 0;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = 0;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = ROWS + 1;			/* one row past the end */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.width = PITCH / 4 + 1;		/* wider than the pitch */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.width = UINT32_MAX;			/* (x + w) * 4 overflows 32 bits */
	igt_assert_eq(cmd_errno(&c), EINVAL);

#define SIDE(f) (*(dst_side ? &c.dst_##f : &c.src_##f))
	c = base;
	SIDE(x) = 1;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	SIDE(y) = 1;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	SIDE(x) = UINT32_MAX;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = 1;
	SIDE(y) = UINT32_MAX;			/* y * pitch beyond 32 bits */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	SIDE(pitch) = PITCH + 2;		/* not a multiple of 4 */
	c.height = 1;
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	SIDE(pitch) = UINT32_MAX & ~3u;		/* pitch * rows overflows */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = 1;
	SIDE(offset) = 2;			/* offset unaligned */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = 1;
	SIDE(offset) = UINT64_MAX & ~3ull;	/* offset + size overflows */
	igt_assert_eq(cmd_errno(&c), EINVAL);
	c = base;
	c.height = 1;
	SIDE(offset) = BO_SIZE;			/* just past the end */
	igt_assert_eq(cmd_errno(&c), EINVAL);
#undef SIDE
}

igt_main
{
	igt_fixture {
		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		dst = primepair_vrender_bo_create(fd, BO_SIZE);
		src = primepair_vrender_bo_create(fd, BO_SIZE);
		res = primepair_vrender_bo_create(fd, 4096);
	}

	igt_describe("GET_PARAM: unknown parameter and padding -> EINVAL");
	igt_subtest("get-param") {
		struct drm_vrender_get_param gp = {
			.param = VRENDER_PARAM_MAX_COMMANDS,
		};

		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, &gp), 0);
		igt_assert_eq_u64(gp.value, 64);
		gp.param = VRENDER_PARAM_JOB_TIMEOUT_MS;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, &gp), 0);
		igt_assert_eq_u64(gp.value,
				  primepair_vrender_param("job_timeout_ms"));
		igt_assert_eq_u64(primepair_vrender_get_param(fd,
						VRENDER_PARAM_TIMELINES), 1);
		gp.param = 0;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, &gp),
			      EINVAL);
		gp.param = 10000;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, &gp),
			      EINVAL);
		gp.param = VRENDER_PARAM_MAX_COMMANDS;
		gp.pad = 1;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, &gp),
			      EINVAL);
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_GET_PARAM, NULL),
			      EFAULT);
	}

	igt_describe("BO_CREATE: flags and size 0 -> EINVAL, above the limit -> E2BIG");
	igt_subtest("bo-create") {
		uint64_t max = primepair_vrender_get_param(fd,
						VRENDER_PARAM_MAX_BO_SIZE);
		uint32_t h;

		igt_assert_eq(__primepair_vrender_bo_create(fd, 0, 0, &h),
			      -EINVAL);
		igt_assert_eq(__primepair_vrender_bo_create(fd, 4096, 1, &h),
			      -EINVAL);
		igt_assert_eq(__primepair_vrender_bo_create(fd, 4096,
							    0x80000000, &h),
			      -EINVAL);
		igt_assert_eq(__primepair_vrender_bo_create(fd, max + 1, 0, &h),
			      -E2BIG);
		igt_assert_eq(__primepair_vrender_bo_create(fd, UINT64_MAX, 0,
							    &h), -E2BIG);
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_CREATE, NULL),
			      EFAULT);
	}

	igt_describe("BO_MMAP_OFFSET: padding -> EINVAL, unknown handle -> ENOENT");
	igt_subtest("bo-mmap-offset") {
		struct drm_vrender_bo_mmap_offset mo = { .handle = dst };

		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &mo),
			      0);
		mo.pad = 1;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &mo),
			      EINVAL);
		mo.pad = 0;
		mo.handle = 0;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &mo),
			      ENOENT);
		mo.handle = 0x7fffffff;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &mo),
			      ENOENT);
	}

	igt_describe("BO_INFO: flags, padding, count without pointer -> EINVAL; bad handle -> ENOENT; bad pointer -> EFAULT");
	igt_subtest("bo-info") {
		struct drm_vrender_segment segs[4];
		struct drm_vrender_bo_info info = { .handle = dst };
		struct drm_vrender_cmd c = good_fill();

		/* Map it once, so there are segments to copy out. */
		primepair_vrender_submit(fd, &c, 1);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);

		info.segs_ptr = (uintptr_t)segs;
		info.segs_count = 4;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), 0);
		igt_assert_lt_u32(0, info.nsegs);

		info.flags = 1;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), -EINVAL);
		info.flags = 0;
		info.pad = 1;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), -EINVAL);
		info.pad = 0;
		info.segs_ptr = 0;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), -EINVAL);
		info.segs_ptr = BAD_PTR;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), -EFAULT);
		info.segs_ptr = (uintptr_t)segs;
		info.handle = 0x7fffffff;
		igt_assert_eq(__primepair_vrender_bo_info(fd, &info), -ENOENT);
	}

	igt_describe("BO_WAIT: flags -> EINVAL, bad handle -> ENOENT, busy past the timeout -> ETIME");
	igt_subtest("bo-wait") {
		struct drm_vrender_bo_wait w = { .handle = dst };
		struct drm_vrender_cmd c = good_fill();

		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_WAIT, &w), 0);
		w.flags = 1;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_WAIT, &w),
			      EINVAL);
		w.flags = 0;
		w.handle = 0x7fffffff;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_WAIT, &w),
			      ENOENT);

		primepair_vrender_set_param("job_latency_us", 300000);
		primepair_vrender_submit(fd, &c, 1);
		w.handle = dst;
		w.timeout_ns = 0;		/* poll */
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_WAIT, &w), ETIME);
		w.timeout_ns = primepair_now_ns() + 10000000;
		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_BO_WAIT, &w), ETIME);
		primepair_vrender_set_param("job_latency_us", 0);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);
	}

	igt_describe("BO_WAIT interrupted by a signal: EINTR without SA_RESTART; restarted with it, the same absolute timeout, until the buffer is idle");
	igt_subtest("bo-wait-interrupted") {
		struct drm_vrender_bo_wait w = { .handle = dst };
		struct drm_vrender_cmd c = good_fill();
		int64_t t0;

		primepair_vrender_set_param("job_latency_us", 300000);
		primepair_vrender_submit(fd, &c, 1);
		w.timeout_ns = primepair_now_ns() + 5000000000ll;
		alarm_in(false, 50000);
		igt_assert_eq(ioctl(fd, DRM_IOCTL_VRENDER_BO_WAIT, &w), -1);
		igt_assert_eq(errno, EINTR);

		t0 = primepair_now_ns();
		alarm_in(true, 50000);
		igt_assert_eq(ioctl(fd, DRM_IOCTL_VRENDER_BO_WAIT, &w), 0);
		igt_assert_lt(50000000ll, primepair_now_ns() - t0);
		igt_assert_eq(alarms, 2);
		signal(SIGALRM, SIG_DFL);
		primepair_vrender_set_param("job_latency_us", 0);
	}

	igt_describe("SUBMIT: flags, command count, in-syncobj count -> EINVAL; bad pointers -> EFAULT; bad syncobj -> ENOENT; bad fence fd -> EINVAL");
	igt_subtest("submit") {
		struct drm_vrender_cmd cmds[65];
		struct drm_vrender_submit s;
		uint64_t points[65] = { 0 };
		uint32_t syncobjs[65];
		uint32_t syncobj;
		int i;

		igt_assert_eq(drmSyncobjCreate(fd, DRM_SYNCOBJ_CREATE_SIGNALED,
					       &syncobj), 0);
		for (i = 0; i < 65; i++) {
			cmds[i] = good_fill();
			syncobjs[i] = syncobj;
		}
#define GOOD() (struct drm_vrender_submit) { \
		.cmds = (uintptr_t)cmds, .cmd_count = 1, \
		.in_syncobjs = (uintptr_t)syncobjs, .in_syncobj_count = 1, \
		.out_syncobj = syncobj, .flags = VRENDER_SUBMIT_OUT_FENCE_FD }

		s = GOOD();
		igt_assert_eq(submit_errno(&s), 0);
		s = GOOD();
		s.cmd_count = 64;
		s.in_syncobj_count = 64;
		igt_assert_eq(submit_errno(&s), 0);

		s = GOOD();
		s.flags = 1 << 2;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.flags = 1u << 31;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.cmd_count = 0;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.cmd_count = 65;			/* too many commands */
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.cmd_count = UINT32_MAX;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.in_syncobj_count = 65;
		igt_assert_eq(submit_errno(&s), EINVAL);

		s = GOOD();
		s.cmds = 0;
		igt_assert_eq(submit_errno(&s), EFAULT);
		s = GOOD();
		s.cmds = BAD_PTR;
		igt_assert_eq(submit_errno(&s), EFAULT);
		s = GOOD();
		s.in_syncobjs = 0;
		igt_assert_eq(submit_errno(&s), EFAULT);
		s = GOOD();
		s.in_syncobjs = BAD_PTR;
		igt_assert_eq(submit_errno(&s), EFAULT);

		syncobjs[0] = 0x7fffffff;
		s = GOOD();
		igt_assert_eq(submit_errno(&s), ENOENT);	/* in-syncobj */
		syncobjs[0] = syncobj;
		s = GOOD();
		s.out_syncobj = 0x7fffffff;
		igt_assert_eq(submit_errno(&s), ENOENT);

		s = GOOD();
		s.flags |= VRENDER_SUBMIT_IN_FENCE_FD;
		s.in_fence_fd = -1;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s.in_fence_fd = 1000;			/* not open */
		igt_assert_eq(submit_errno(&s), EINVAL);
		s.in_fence_fd = fd;			/* not a sync_file */
		igt_assert_eq(submit_errno(&s), EINVAL);
		/* Inputs that would be ignored are refused */
		s = GOOD();
		s.in_fence_fd = fd;			/* without its flag */
		igt_assert_eq(submit_errno(&s), EINVAL);
		s.in_fence_fd = -1;			/* "none": fine */
		igt_assert_eq(submit_errno(&s), 0);
		s = GOOD();
		s.in_syncobj_count = 0;
		s.in_points = (uintptr_t)points;	/* points, no syncobjs */
		igt_assert_eq(submit_errno(&s), EINVAL);

		/* Timeline points */
		s = GOOD();
		s.out_syncobj = 0;
		s.out_point = 1;			/* point without syncobj */
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.in_points = BAD_PTR;
		igt_assert_eq(submit_errno(&s), EFAULT);
		points[0] = 7;				/* binary syncobj */
		s = GOOD();
		s.in_points = (uintptr_t)points;
		igt_assert_eq(submit_errno(&s), EINVAL);
		s = GOOD();
		s.out_point = 3;
		igt_assert_eq(submit_errno(&s), 0);
		s = GOOD();
		s.in_points = (uintptr_t)points;	/* point 7: no fence yet */
		igt_assert_eq(submit_errno(&s), EINVAL);
		points[0] = 3;
		igt_assert_eq(submit_errno(&s), 0);

		igt_assert_eq(ioctl_errno(DRM_IOCTL_VRENDER_SUBMIT, NULL),
			      EFAULT);
		igt_assert_eq(drmSyncobjDestroy(fd, syncobj), 0);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);
#undef GOOD
	}

	igt_describe("Commands: unknown op, flags, padding, unused fields, bad handles");
	igt_subtest("command-fields") {
		igt_assert_eq(cmd_errno(&(struct drm_vrender_cmd){ 0 }), EINVAL);
		CHECK_CMD(good_fill(), op, 0, EINVAL);
		CHECK_CMD(good_fill(), op, 5, EINVAL);
		CHECK_CMD(good_fill(), op, UINT32_MAX, EINVAL);
		CHECK_CMD(good_fill(), flags, 1, EINVAL);
		CHECK_CMD(good_fill(), pad, 1, EINVAL);
		CHECK_CMD(good_copy(), flags, 1u << 31, EINVAL);
		CHECK_CMD(good_copy(), pad, 1, EINVAL);

		/* Fields a command does not use must be zero. */
		CHECK_CMD(good_fill(), src_handle, src, EINVAL);
		CHECK_CMD(good_fill(), src_pitch, PITCH, EINVAL);
		CHECK_CMD(good_fill(), src_offset, 4, EINVAL);
		CHECK_CMD(good_fill(), src_x, 1, EINVAL);
		CHECK_CMD(good_fill(), src_y, 1, EINVAL);
		CHECK_CMD(good_copy(), value, 1, EINVAL);
		CHECK_CMD(good_checksum(), dst_pitch, 4, EINVAL);
		CHECK_CMD(good_checksum(), dst_x, 1, EINVAL);
		CHECK_CMD(good_checksum(), dst_y, 1, EINVAL);
		CHECK_CMD(good_checksum(), value, 1, EINVAL);

		/* Handles: 0 and unknown -> ENOENT */
		CHECK_CMD(good_fill(), dst_handle, 0, ENOENT);
		CHECK_CMD(good_fill(), dst_handle, 0x7fffffff, ENOENT);
		CHECK_CMD(good_copy(), src_handle, 0, ENOENT);
		CHECK_CMD(good_copy(), src_handle, 0x7fffffff, ENOENT);
		CHECK_CMD(good_checksum(), dst_handle, 0x7fffffff, ENOENT);

		/* CHECKSUM result: aligned, inside the buffer */
		CHECK_CMD(good_checksum(), dst_offset, 4096 - 4, 0);
		CHECK_CMD(good_checksum(), dst_offset, 2, EINVAL);
		CHECK_CMD(good_checksum(), dst_offset, 4096, EINVAL);
		CHECK_CMD(good_checksum(), dst_offset, UINT64_MAX & ~3ull,
			  EINVAL);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);
		primepair_vrender_bo_wait(fd, res, 10000000000ll);
	}

	igt_describe("Rectangles: empty, out of range, pitch and offset overflow or misalignment -> EINVAL");
	igt_subtest("command-rectangles") {
		struct drm_vrender_cmd pattern = good_fill();

		pattern.op = VRENDER_CMD_PATTERN;
		check_rectangles(good_fill(), true);
		check_rectangles(pattern, true);
		check_rectangles(good_copy(), true);
		check_rectangles(good_copy(), false);
		check_rectangles(good_checksum(), false);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);
	}

	igt_describe("A bad command anywhere in a job rejects the whole job: nothing runs");
	igt_subtest("bad-command-rejects-job") {
		struct drm_vrender_cmd c[3] = { good_fill(), good_fill(),
						good_fill() };
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)c, .cmd_count = 3,
		};
		uint32_t *map;

		c[0].value = 0x1111;
		primepair_vrender_submit(fd, c, 1);
		c[0].value = 0x2222;
		c[2].height = ROWS + 1;
		igt_assert_eq(submit_errno(&s), EINVAL);
		primepair_vrender_bo_wait(fd, dst, 10000000000ll);
		map = primepair_vrender_bo_mmap(fd, dst, BO_SIZE, PROT_READ);
		igt_assert_eq_u32(map[0], 0x1111);
		munmap(map, BO_SIZE);
	}

	igt_fixture {
		primepair_vrender_set_param("job_latency_us", 0);
		close(fd);
		primepair_assert_summary_zero();
	}
}

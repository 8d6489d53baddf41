// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_unprivileged - the render node as an ordinary user sees it
 *
 * Like udev, the test makes the render node world-accessible (0666) and
 * leaves the card nodes alone; a child then drops to nobody (uid/gid
 * 65534).  It can create buffers, render, import a dma-buf it was handed
 * and mmap, but KMS, master and global-name ioctls are refused, the card
 * nodes and the debug knobs stay closed, and handles of another file
 * (another process's) are simply unknown.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define NOBODY	65534
#define BO_SIZE	(16 * 1024)
#define PITCH	1024

static char render_path[64], card_path[64];
static mode_t render_mode;

static void node_path(int fd, const char *prefix, char *path, size_t len)
{
	struct stat st;

	igt_assert_eq(fstat(fd, &st), 0);
	snprintf(path, len, "/dev/dri/%s%u", prefix, minor(st.st_rdev));
}

static void restore_mode(int sig)
{
	chmod(render_path, render_mode);
}

static void drop_privileges(void)
{
	igt_assert_eq(setgroups(0, NULL), 0);
	igt_assert_eq(setgid(NOBODY), 0);
	igt_assert_eq(setuid(NOBODY), 0);
	igt_assert_eq(geteuid(), NOBODY);
}

static int ioctl_errno(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? errno : 0;
}

igt_main
{
	uint32_t parent_bo = 0;
	int parent = -1, dmabuf = -1;

	igt_fixture {
		struct stat st;
		int card;

		igt_require_f(getuid() == 0, "needs root to drop privileges\n");
		parent = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		card = primepair_open_driver(PRIMEPAIR_RENDER_DRIVER);
		node_path(parent, "renderD", render_path, sizeof(render_path));
		node_path(card, "card", card_path, sizeof(card_path));
		close(card);

		igt_assert_eq(stat(render_path, &st), 0);
		render_mode = st.st_mode & 07777;
		igt_install_exit_handler(restore_mode);
		igt_assert_eq(chmod(render_path, 0666), 0);

		/* The parent's buffer, filled and shared as a dma-buf. */
		parent_bo = primepair_vrender_bo_create(parent, BO_SIZE);
		{
			struct drm_vrender_cmd c =
				primepair_vrender_fill(parent_bo, 0, PITCH, 0,
						       0, PITCH / 4,
						       BO_SIZE / PITCH,
						       0xfeedf00d);
			primepair_vrender_submit(parent, &c, 1);
		}
		primepair_vrender_bo_wait(parent, parent_bo, 10000000000ll);
		igt_assert_eq(drmPrimeHandleToFD(parent, parent_bo, DRM_CLOEXEC,
						 &dmabuf), 0);
	}

	igt_describe("nobody renders into its own buffers, imports a dma-buf handed to it, and reads the results");
	igt_subtest("render-node-works") {
		igt_fork(child, 1) {
			struct drm_vrender_cmd c;
			uint32_t bo, imported;
			uint32_t *map;
			int fd;

			drop_privileges();
			fd = open(render_path, O_RDWR | O_CLOEXEC);
			igt_assert_lte(0, fd);

			bo = primepair_vrender_bo_create(fd, BO_SIZE);
			c = primepair_vrender_fill(bo, 0, PITCH, 1, 2, 3, 4,
						   0x600d);
			primepair_vrender_submit(fd, &c, 1);
			primepair_vrender_bo_wait(fd, bo, 10000000000ll);
			map = primepair_vrender_bo_mmap(fd, bo, BO_SIZE,
							PROT_READ);
			igt_assert_eq_u32(map[2 * PITCH / 4 + 1], 0x600d);
			igt_assert_eq_u32(map[0], 0);
			munmap(map, BO_SIZE);

			igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imported),
				      0);
			c = (struct drm_vrender_cmd) {
				.op = VRENDER_CMD_COPY,
				.dst_handle = bo, .dst_pitch = PITCH,
				.src_handle = imported, .src_pitch = PITCH,
				.width = PITCH / 4, .height = BO_SIZE / PITCH,
			};
			primepair_vrender_submit(fd, &c, 1);
			primepair_vrender_bo_wait(fd, bo, 10000000000ll);
			map = primepair_vrender_bo_mmap(fd, bo, BO_SIZE,
							PROT_READ);
			igt_assert_eq_u32(map[0], 0xfeedf00d);
			igt_assert_eq_u32(map[BO_SIZE / 4 - 1], 0xfeedf00d);
			munmap(map, BO_SIZE);
			close(fd);
		}
		igt_waitchildren();
	}

	igt_describe("nobody gets EACCES for KMS, master and global-name ioctls on the render node, and cannot open the card nodes or debug knobs");
	igt_subtest("privileged-refused") {
		igt_fork(child, 1) {
			struct drm_mode_card_res res;
			struct drm_mode_create_dumb dumb;
			struct drm_gem_flink flink;
			struct drm_gem_open gopen;
			int fd;

			drop_privileges();
			fd = open(render_path, O_RDWR | O_CLOEXEC);
			igt_assert_lte(0, fd);

			memset(&res, 0, sizeof(res));
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_MODE_GETRESOURCES,
						  &res), EACCES);
			memset(&dumb, 0, sizeof(dumb));
			dumb.width = 64;
			dumb.height = 64;
			dumb.bpp = 32;
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_MODE_CREATE_DUMB,
						  &dumb), EACCES);
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_SET_MASTER, NULL),
				      EACCES);
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_DROP_MASTER,
						  NULL), EACCES);
			memset(&flink, 0, sizeof(flink));
			flink.handle = primepair_vrender_bo_create(fd, 4096);
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_GEM_FLINK,
						  &flink), EACCES);
			memset(&gopen, 0, sizeof(gopen));
			gopen.name = 1;
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_GEM_OPEN, &gopen),
				      EACCES);

			igt_assert_eq(open(card_path, O_RDWR), -1);
			igt_assert_eq(errno, EACCES);
			igt_assert_eq(open("/sys/kernel/debug/primebuf_selftest/hang_jobs",
					   O_WRONLY), -1);
			igt_assert_eq(errno, EACCES);
			igt_assert_eq(open("/sys/module/vrender/parameters/job_timeout_ms",
					   O_WRONLY), -1);
			igt_assert_eq(errno, EACCES);
			igt_assert_eq(drmCloseBufferHandle(fd, flink.handle), 0);
			close(fd);
		}
		igt_waitchildren();
	}

	igt_describe("BO_INFO tells nobody the layout of its buffer's mapping but no DMA (physical) address; root gets them; primebuf's buffer list is root's");
	igt_subtest("no-dma-addresses") {
		struct drm_vrender_segment segs[8];
		struct drm_vrender_bo_info info = {
			.handle = parent_bo,
			.segs_ptr = (uintptr_t)segs,
			.segs_count = 8,
		};
		bool any = false;

		/* The parent's buffer was mapped by its fill: root sees where. */
		igt_assert_eq(__primepair_vrender_bo_info(parent, &info), 0);
		igt_assert_lt(0, info.nsegs);
		for (unsigned int i = 0; i < info.nsegs && i < 8; i++)
			any |= segs[i].addr != 0;
		igt_assert(any);

		igt_fork(child, 1) {
			struct drm_vrender_cmd c;
			uint64_t total = 0;
			uint32_t bo;
			int fd;

			drop_privileges();
			fd = open(render_path, O_RDWR | O_CLOEXEC);
			igt_assert_lte(0, fd);
			bo = primepair_vrender_bo_create(fd, BO_SIZE);
			c = primepair_vrender_fill(bo, 0, PITCH, 0, 0, PITCH / 4,
						   BO_SIZE / PITCH, 0x5ec);
			primepair_vrender_submit(fd, &c, 1);
			primepair_vrender_bo_wait(fd, bo, 10000000000ll);

			memset(segs, 0xa5, sizeof(segs));
			info = (struct drm_vrender_bo_info) {
				.handle = bo,
				.segs_ptr = (uintptr_t)segs,
				.segs_count = 8,
			};
			igt_assert_eq(__primepair_vrender_bo_info(fd, &info), 0);
			igt_assert_eq_u64(info.size, BO_SIZE);
			igt_assert_lt(0, info.nsegs);
			for (unsigned int i = 0; i < info.nsegs && i < 8; i++) {
				igt_assert_eq_u64(segs[i].addr, 0);
				total += segs[i].len;
			}
			if (info.nsegs <= 8)
				igt_assert_eq_u64(total, BO_SIZE);

			igt_assert_eq(open("/sys/kernel/debug/primebuf/buffers",
					   O_RDONLY), -1);
			igt_assert_eq(errno, EACCES);
			close(fd);
		}
		igt_waitchildren();
	}

	igt_describe("Handles are per open file: another process's handle is ENOENT for every ioctl that takes one");
	igt_subtest("foreign-handles-unknown") {
		igt_fork(child, 1) {
			struct drm_vrender_bo_mmap_offset mo = {
				.handle = parent_bo,
			};
			struct drm_vrender_bo_info info = {
				.handle = parent_bo,
			};
			struct drm_vrender_cmd c;
			int fd, out;

			drop_privileges();
			fd = open(render_path, O_RDWR | O_CLOEXEC);
			igt_assert_lte(0, fd);

			/* Nothing created yet: the parent's number is free. */
			igt_assert_eq(ioctl_errno(fd, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET,
						  &mo), ENOENT);
			igt_assert_eq(__primepair_vrender_bo_info(fd, &info),
				      -ENOENT);
			igt_assert_eq(__primepair_vrender_bo_wait(fd, parent_bo,
								  0), -ENOENT);
			c = primepair_vrender_fill(parent_bo, 0, PITCH, 0, 0, 1,
						   1, 0xbad);
			{
				struct drm_vrender_submit s = {
					.cmds = (uintptr_t)&c,
					.cmd_count = 1,
				};

				igt_assert_eq(__primepair_vrender_submit(fd, &s),
					      -ENOENT);
			}
			igt_assert_eq(drmPrimeHandleToFD(fd, parent_bo,
							 DRM_CLOEXEC, &out),
				      -1);
			igt_assert_eq(errno, ENOENT);
			igt_assert_eq(drmCloseBufferHandle(fd, parent_bo), -1);
			igt_assert_eq(errno, EINVAL);
			close(fd);
		}
		igt_waitchildren();

		/* The parent's buffer is untouched. */
		igt_assert_eq_u32(primepair_vrender_crc32(parent, parent_bo,
							  PITCH),
				  ({
					uint32_t v[PITCH / 4], i;

					for (i = 0; i < PITCH / 4; i++)
						v[i] = 0xfeedf00d;
					primepair_crc32(0, v, sizeof(v));
				  }));
	}

	igt_fixture {
		restore_mode(0);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(parent, parent_bo), 0);
		close(parent);
		primepair_assert_summary_zero();
	}
}

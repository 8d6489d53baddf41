// SPDX-License-Identifier: GPL-2.0
/*
 * module_lifetime - the three modules load and unload cleanly, again and
 * again, and refuse to unload while anything of theirs is alive
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

static int run(const char *cmd)
{
	int ret = system(cmd);

	return WIFEXITED(ret) ? WEXITSTATUS(ret) : -1;
}

static bool loaded(const char *module)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return access(path, F_OK) == 0;
}

/* How many vrender devices DRM has initialised since boot */
static int vrender_inits(void)
{
	FILE *f = popen("dmesg | grep -c 'Initialized vrender'", "r");
	int n = -1;

	igt_assert(f);
	igt_assert_eq(fscanf(f, "%d", &n), 1);
	pclose(f);
	return n;
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
	}

	igt_describe("50 rounds of unload and load of all three modules, a buffer shared in each; nothing is left behind");
	igt_subtest("load-unload-loop") {
		for (int i = 0; i < 50; i++) {
			uint32_t bo, imp;
			int fd, other, dmabuf;

			igt_assert_eq(run("rmmod vrender vdisplay && "
					  "{ ! test -d /sys/module/primebuf_selftest || "
					  "rmmod primebuf_selftest; } && rmmod primebuf"), 0);
			igt_assert(!loaded("primebuf"));
			igt_assert_eq(run(i % 2 ? "modprobe vrender instances=2 && modprobe vdisplay" :
					  "modprobe vdisplay && modprobe vrender instances=2"), 0);

			fd = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 0);
			other = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, 1);
			bo = primepair_vrender_bo_create(fd, 64 << 10);
			igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC,
							 &dmabuf), 0);
			igt_assert_eq(drmPrimeFDToHandle(other, dmabuf, &imp), 0);
			primepair_vrender_crc32(other, imp, 64 << 10);
			close(dmabuf);
			close(other);
			close(fd);
			primepair_assert_summary_zero();
		}
		igt_assert_eq(run("rmmod vrender && modprobe vrender"), 0);
	}

	igt_describe("vrender cannot be unloaded while a job of it runs; it can once the job is done");
	igt_subtest("rmmod-refused-while-job-runs") {
		struct drm_vrender_cmd c;
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
			.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		};
		uint32_t bo;
		int fd;

		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		bo = primepair_vrender_bo_create(fd, 1 << 20);
		/* a slow engine: the job takes about a second */
		primepair_vrender_set_param("engine_speed", 1 << 20);
		c = primepair_vrender_fill(bo, 0, 4096, 0, 0, 1024, 256, 1);
		igt_assert_eq(__primepair_vrender_submit(fd, &s), 0);
		close(fd);	/* the job still runs, and holds the module */

		igt_assert_neq(run("rmmod vrender 2>/dev/null"), 0);
		igt_assert(primepair_sync_file_wait(s.out_fence_fd, 20000));
		igt_assert_eq(primepair_sync_file_status(s.out_fence_fd), 1);
		igt_assert_neq(run("rmmod vrender 2>/dev/null"), 0);
		close(s.out_fence_fd);	/* the last fence reference */
		primepair_vrender_set_param("engine_speed", 0);
		for (int i = 0; i < 50 && run("rmmod vrender 2>/dev/null"); i++)
			usleep(100000);
		igt_assert(!loaded("vrender"));
		igt_assert_eq(run("modprobe vrender"), 0);
	}

	igt_describe("Bad DMA constraints for any instance fail the load with EINVAL before any instance registers: no device comes and goes");
	igt_subtest("bad-instance-params") {
		static const char *const bad[] = {
			"instances=2 dma_bits=32,16",
			"instances=3 max_segment=65536,65536,100",
			"instances=2 segment_boundary=0xffffffff,0x1000",
		};
		int before;

		igt_assert_eq(run("rmmod vrender"), 0);
		before = vrender_inits();
		for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
			char cmd[128];

			snprintf(cmd, sizeof(cmd),
				 "modprobe vrender %s 2>/dev/null", bad[i]);
			igt_assert_neq(run(cmd), 0);
			igt_assert(!loaded("vrender"));
			igt_assert_eq(vrender_inits(), before);
		}
		igt_assert_eq(run("modprobe vrender"), 0);
		igt_assert_eq(vrender_inits(), before + 1);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_memcg - buffer memory is charged to its creator's memory cgroup
 *
 * A process in a cgroup v2 group with memory.max=64M creates 16 MiB
 * buffers and fills each.  The backing is allocated by the first SUBMIT
 * on a buffer and charged to the buffer's creator, whoever submits: the
 * job that would cross the limit fails with -ENOMEM (from SUBMIT; from
 * its fence if a kernel ever allocated later), long before the global
 * pool (half of RAM) runs out, and nothing is killed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define CGNAME		"primepair-memcg"
#define BO_SIZE		(16u << 20)
#define PITCH		16384
#define NBUFS		10

/* In the group: fill buffers until one fails; exit with how many worked. */
static void child(void)
{
	uint32_t bo[NBUFS];
	int fd, i;

	if (primepair_memcg_join(CGNAME))
		_exit(200);
	fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	for (i = 0; i < NBUFS; i++) {
		struct drm_vrender_cmd c;
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)&c,
			.cmd_count = 1,
			.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
		};
		int status;

		bo[i] = primepair_vrender_bo_create(fd, BO_SIZE);
		c = primepair_vrender_fill(bo[i], 0, PITCH, 0, 0, PITCH / 4,
					   BO_SIZE / PITCH, i);
		status = __primepair_vrender_submit(fd, &s);
		if (status == -ENOMEM)
			_exit(i);
		if (status)
			_exit(100 + (-status & 0x3f));
		if (!primepair_sync_file_wait(s.out_fence_fd, 30000))
			_exit(202);
		status = primepair_sync_file_status(s.out_fence_fd);
		close(s.out_fence_fd);
		if (status == -ENOMEM)
			_exit(i);
		if (status != 1)
			_exit(203);
	}
	_exit(NBUFS);
}

igt_main
{
	igt_describe("A cgroup with memory.max=64M gets -ENOMEM from the job that would cross it, not from the global pool");
	igt_subtest("memory-max") {
		int status;
		pid_t pid;

		primepair_memcg_create(CGNAME, "64M");
		pid = fork();
		igt_assert_lte(0, pid);
		if (pid == 0)
			child();
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		igt_assert(WIFEXITED(status));
		igt_info("buffers filled in the group: %d of %d\n",
			 WEXITSTATUS(status), NBUFS);
		/* 64 MiB hold at most four 16 MiB buffers */
		igt_assert_lte(1, WEXITSTATUS(status));
		igt_assert_lte(WEXITSTATUS(status), 4);
	}

	igt_fixture {
		int i;

		/* The child's buffers go with its fd; then the group. */
		for (i = 0; i < 100 && primepair_summary("buffers"); i++)
			usleep(50 * 1000);
		primepair_assert_summary_zero();
		primepair_memcg_remove(CGNAME);
	}
}

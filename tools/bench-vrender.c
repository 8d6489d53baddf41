// SPDX-License-Identifier: GPL-2.0
/*
 * bench-vrender - throughput of vrender's FILL and COPY against the CPU
 *
 * Not a test: run it in the guest (tools/vm-run -- build/bin/bench-vrender)
 * and read the table.  For 4 MiB and 64 MiB buffers it times a few jobs
 * from submission to idle (the engine walks the mapped scatterlists page
 * by page) and memset()/memcpy() of malloc'ed buffers of the same size in
 * the same guest, and prints both rates and their ratio.  Buffers are
 * touched once before timing, so allocation is not measured.  Set the
 * engine_speed parameter to 0 (the default) for meaningful numbers.
 *
 *   bench-vrender [--device SPEC]
 *
 * SPEC names the vrender render node: a path ("/dev/dri/renderD128"), a
 * driver name ("vrender") or a driver name and index ("vrender:1"); by
 * default the first vrender render node.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define PITCH	16384		/* 4096 pixels per row */
#define MIB	(1024 * 1024)

static struct primepair_device_specs specs;

static const struct option bench_opts[] = {
	PRIMEPAIR_DEVICE_OPTION,
	{ NULL, 0, NULL, 0 },
};

static double seconds(int64_t ns)
{
	return ns / 1e9;
}

static unsigned int rounds_for(uint64_t size)
{
	return size >= 64ull * MIB ? 4 : 16;
}

/* Time @rounds jobs of @cmd, queued at once, until @wait_bo is idle. */
static double engine_rate(int fd, struct drm_vrender_cmd *cmd,
			  uint32_t wait_bo, uint64_t size,
			  unsigned int rounds)
{
	int64_t t0;
	unsigned int i;

	primepair_vrender_submit(fd, cmd, 1);		/* warm up, allocate */
	primepair_vrender_bo_wait(fd, wait_bo, 60ll * 1000000000);

	t0 = primepair_now_ns();
	for (i = 0; i < rounds; i++) {
		if (cmd->op == VRENDER_CMD_FILL)	/* COPY takes none */
			cmd->value ^= 1 + i;
		primepair_vrender_submit(fd, cmd, 1);
	}
	primepair_vrender_bo_wait(fd, wait_bo, 120ll * 1000000000);
	return size * rounds / seconds(primepair_now_ns() - t0) / MIB;
}

static double memset_rate(void *buf, uint64_t size, unsigned int rounds)
{
	unsigned int i;
	int64_t t0;

	memset(buf, 1, size);
	t0 = primepair_now_ns();
	for (i = 0; i < rounds; i++)
		memset(buf, i, size);
	/* Keep the compiler from dropping the stores. */
	igt_assert(((volatile uint8_t *)buf)[size - 1] == rounds - 1);
	return size * rounds / seconds(primepair_now_ns() - t0) / MIB;
}

static double memcpy_rate(void *dst, void *src, uint64_t size,
			  unsigned int rounds)
{
	unsigned int i;
	int64_t t0;

	memset(src, 3, size);
	memcpy(dst, src, size);
	t0 = primepair_now_ns();
	for (i = 0; i < rounds; i++) {
		((volatile uint8_t *)src)[0] = i;
		memcpy(dst, src, size);
	}
	igt_assert(((volatile uint8_t *)dst)[0] == rounds - 1);
	return size * rounds / seconds(primepair_now_ns() - t0) / MIB;
}

static void bench(int fd, uint64_t size)
{
	unsigned int rounds = rounds_for(size);
	struct drm_vrender_cmd cmd;
	uint32_t a, b;
	double fill, copy, cpu_set, cpu_copy;
	void *x, *y;

	a = primepair_vrender_bo_create(fd, size);
	b = primepair_vrender_bo_create(fd, size);

	cmd = primepair_vrender_fill(a, 0, PITCH, 0, 0, PITCH / 4,
				     size / PITCH, 0x01010101);
	fill = engine_rate(fd, &cmd, a, size, rounds);
	cmd = (struct drm_vrender_cmd) {
		.op = VRENDER_CMD_COPY,
		.dst_handle = b, .dst_pitch = PITCH,
		.src_handle = a, .src_pitch = PITCH,
		.width = PITCH / 4, .height = size / PITCH,
	};
	copy = engine_rate(fd, &cmd, b, size, rounds);
	igt_assert_eq(drmCloseBufferHandle(fd, a), 0);
	igt_assert_eq(drmCloseBufferHandle(fd, b), 0);

	x = malloc(size);
	y = malloc(size);
	igt_assert(x && y);
	cpu_set = memset_rate(x, size, rounds);
	cpu_copy = memcpy_rate(y, x, size, rounds);
	free(x);
	free(y);

	printf("%4llu MiB  FILL %8.1f MiB/s  memset %8.1f MiB/s  ratio %.3f\n",
	       (unsigned long long)(size / MIB), fill, cpu_set,
	       fill / cpu_set);
	printf("%4llu MiB  COPY %8.1f MiB/s  memcpy %8.1f MiB/s  ratio %.3f\n",
	       (unsigned long long)(size / MIB), copy, cpu_copy,
	       copy / cpu_copy);
}

igt_simple_main_args("", bench_opts, PRIMEPAIR_DEVICE_HELP,
		     primepair_device_opt, &specs)
{
	int fd = primepair_require_device(specs.render, PRIMEPAIR_RENDER_DRIVER,
					  true);
	uint64_t max = primepair_vrender_get_param(fd,
						   VRENDER_PARAM_MAX_BO_SIZE);

	printf("vrender FILL/COPY vs CPU memset/memcpy (engine_speed=%llu)\n",
	       primepair_vrender_param("engine_speed"));
	bench(fd, 4 * MIB);
	if (max >= 64ull * MIB)
		bench(fd, 64 * MIB);
	else
		printf("64 MiB: above VRENDER_PARAM_MAX_BO_SIZE (%llu), skipped\n",
		       (unsigned long long)max);
	close(fd);
}

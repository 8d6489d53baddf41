// SPDX-License-Identifier: GPL-2.0
/*
 * slice-demo - one buffer's life from vdisplay to vrender, narrated
 *
 * Creates a scanout buffer on vdisplay, draws into it through the dumb
 * mmap, exports it as a dma-buf, imports it into vrender, lets a vrender
 * job checksum it through the mapped scatterlist, and compares the result
 * with the CPU's CRC-32, printing primebuf's accounting at every step.
 *
 *   slice-demo [--display SPEC] [--render SPEC]
 *
 * SPEC names a device: a path ("/dev/dri/card0"), a driver name
 * ("vdisplay") or a driver name and index ("vrender:1"); by default the
 * first vdisplay card and the first vrender render node.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define WIDTH	640
#define HEIGHT	480

static struct primepair_device_specs specs;

static const struct option slice_opts[] = {
	PRIMEPAIR_DISPLAY_OPTION,
	PRIMEPAIR_RENDER_OPTION,
	{ NULL, 0, NULL, 0 },
};

static void show(const char *step)
{
	static const char * const keys[] = {
		"buffers", "imports", "exports", "attachments", "mappings",
		"bytes", "created", "released",
	};
	uint64_t v;

	printf("%-44s", step);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!primepair_debugfs_read_u64(PRIMEPAIR_SUMMARY_PATH, keys[i],
						&v))
			v = ~0ull;
		printf(" %s=%llu", keys[i], (unsigned long long)v);
	}
	printf("\n");
}

static void show_buffers(void)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("    | %s", line);
	fclose(f);
}

static void draw(uint32_t *map, uint32_t pitch)
{
	for (uint32_t y = 0; y < HEIGHT; y++)
		for (uint32_t x = 0; x < WIDTH; x++)
			map[y * (pitch / 4) + x] =
				primepair_vrender_pattern_pixel(x, y, 0);
}

igt_simple_main_args("", slice_opts,
		     PRIMEPAIR_DISPLAY_HELP PRIMEPAIR_RENDER_HELP,
		     primepair_device_opt, &specs)
{
	uint32_t dumb, pitch, import, gpu_crc, cpu_crc;
	int display, render, dmabuf;
	uint64_t size, offset;
	uint32_t *map;

	display = primepair_require_device(specs.display,
					   PRIMEPAIR_DISPLAY_DRIVER, false);
	render = primepair_require_device(specs.render, PRIMEPAIR_RENDER_DRIVER,
					  true);
	show("start");

	igt_assert_eq(drmModeCreateDumbBuffer(display, WIDTH, HEIGHT, 32, 0,
					      &dumb, &pitch, &size), 0);
	show("vdisplay: dumb buffer created");

	igt_assert_eq(drmModeMapDumbBuffer(display, dumb, &offset), 0);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, display,
		   offset);
	igt_assert(map != MAP_FAILED);
	draw(map, pitch);
	cpu_crc = primepair_crc32(0, map, (size_t)pitch * HEIGHT);
	munmap(map, size);
	show("CPU drew a test pattern (first touch)");

	igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC, &dmabuf),
		      0);
	show("vdisplay: exported as dma-buf");

	igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &import), 0);
	show("vrender: imported (attached, not mapped)");

	gpu_crc = primepair_vrender_crc32(render, import,
					  (uint64_t)pitch * HEIGHT);
	show("vrender: CHECKSUM job done (mapped, unmapped)");
	show_buffers();

	printf("\nCRC-32 by the CPU:     %08x\n", cpu_crc);
	printf("CRC-32 by vrender job: %08x  %s\n\n", gpu_crc,
	       gpu_crc == cpu_crc ? "(same bytes, no copy)" : "MISMATCH");
	igt_assert_eq_u32(gpu_crc, cpu_crc);

	close(dmabuf);
	show("dma-buf fd closed");
	igt_assert_eq(drmCloseBufferHandle(render, import), 0);
	show("vrender: import closed (detached)");
	igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
	show("vdisplay: dumb buffer destroyed (released)");
	close(render);
	close(display);
	primepair_assert_summary_zero();
}

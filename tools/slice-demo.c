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
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libprimepair.h"

#define WIDTH	640
#define HEIGHT	480

static const char help[] =
	"  --display SPEC   KMS device: path, driver name or NAME:N (default vdisplay)\n"
	"  --render SPEC    render node: path, driver name or NAME:N (default vrender)\n"
	"  --help, -h       this text\n";

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("slice-demo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void show(const char *step)
{
	static const char * const keys[] = {
		"buffers", "imports", "exports", "attachments", "mappings",
		"bytes", "created", "released",
	};
	uint64_t v;

	printf("%-44s", step);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (pp_counter_read(PP_SUMMARY_PATH, keys[i], &v))
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
			map[y * (pitch / 4) + x] = pp_pattern_pixel(x, y, 0);
}

static int open_or_die(const char *spec, const char *driver, bool render)
{
	int fd = pp_open_device(spec, driver, render);

	if (fd < 0)
		die("no %s node for \"%s\": %s", render ? "render" : "primary",
		    spec ?: driver, strerror(errno));
	return fd;
}

/* Every live counter back to 0, allowing a kernel thread's late fput */
static void check_summary_zero(void)
{
	uint64_t v = 0;
	char key[64];
	int ret = 0;

	for (int tries = 0; tries < 100; tries++) {
		ret = pp_counter_first_nonzero(PP_SUMMARY_PATH,
					       pp_live_counters, key,
					       sizeof(key), &v);
		if (ret <= 0)
			break;
		usleep(20000);
	}
	if (ret < 0)
		die("cannot read %s: %s", PP_SUMMARY_PATH, strerror(-ret));
	if (ret)
		die("%s: %s is %llu, expected 0", PP_SUMMARY_PATH, key,
		    (unsigned long long)v);
}

static void parse_args(int argc, char **argv, const char **display,
		       const char **render)
{
	static const struct option opts[] = {
		{ "display", required_argument, NULL, 'D' },
		{ "render", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'D':
			*display = optarg;
			break;
		case 'R':
			*render = optarg;
			break;
		case 'h':
			printf("Usage: slice-demo [OPTIONS]\n%s", help);
			exit(0);
		default:
			fprintf(stderr, "Usage: slice-demo [OPTIONS]\n%s", help);
			exit(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Usage: slice-demo [OPTIONS]\n%s", help);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	const char *display_spec = NULL, *render_spec = NULL;
	uint32_t import, gpu_crc, cpu_crc;
	struct pp_fb fb;
	int display, render, dmabuf, ret;

	parse_args(argc, argv, &display_spec, &render_spec);
	display = open_or_die(display_spec, PP_DISPLAY_DRIVER, false);
	render = open_or_die(render_spec, PP_RENDER_DRIVER, true);
	show("start");

	ret = pp_fb_create(display, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, &fb);
	if (ret)
		die("creating a dumb buffer: %s", strerror(-ret));
	show("vdisplay: dumb buffer created");

	ret = pp_fb_map(display, &fb);
	if (ret)
		die("mapping the dumb buffer: %s", strerror(-ret));
	draw(fb.map, fb.pitch);
	cpu_crc = pp_crc32(0, fb.map, (size_t)fb.pitch * HEIGHT);
	munmap(fb.map, fb.size);
	fb.map = NULL;
	show("CPU drew a test pattern (first touch)");

	if (drmPrimeHandleToFD(display, fb.handle, DRM_CLOEXEC, &dmabuf))
		die("exporting the buffer: %s", strerror(errno));
	show("vdisplay: exported as dma-buf");

	if (drmPrimeFDToHandle(render, dmabuf, &import))
		die("importing the buffer into vrender: %s", strerror(errno));
	show("vrender: imported (attached, not mapped)");

	ret = pp_vrender_crc32(render, import, (uint64_t)fb.pitch * HEIGHT,
			       &gpu_crc);
	if (ret)
		die("vrender's CHECKSUM job: %s", strerror(-ret));
	show("vrender: CHECKSUM job done (mapped, unmapped)");
	show_buffers();

	printf("\nCRC-32 by the CPU:     %08x\n", cpu_crc);
	printf("CRC-32 by vrender job: %08x  %s\n\n", gpu_crc,
	       gpu_crc == cpu_crc ? "(same bytes, no copy)" : "MISMATCH");
	if (gpu_crc != cpu_crc)
		die("vrender saw other bytes than the CPU wrote");

	close(dmabuf);
	show("dma-buf fd closed");
	if (drmCloseBufferHandle(render, import))
		die("closing the import: %s", strerror(errno));
	show("vrender: import closed (detached)");
	ret = pp_fb_destroy(display, &fb);
	if (ret)
		die("destroying the dumb buffer: %s", strerror(-ret));
	show("vdisplay: dumb buffer destroyed (released)");
	close(render);
	close(display);
	check_summary_zero();
	return 0;
}

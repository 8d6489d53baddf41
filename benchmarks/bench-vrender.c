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

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "libprimepair.h"
#include "vrender.h"

#define PITCH	16384		/* 4096 pixels per row */
#define MIB	(1024 * 1024)

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench-vrender: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* A libprimepair or libvrender call returned @ret: go on only if 0 */
static void check(int ret, const char *what)
{
	if (ret)
		die("%s: %s", what, strerror(-ret));
}

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

	/* warm up, allocate */
	check(pp_vrender_submit(fd, cmd, 1, 0, NULL), "SUBMIT");
	check(pp_vrender_wait(fd, wait_bo, 60ll * 1000000000), "BO_WAIT");

	t0 = pp_now_ns();
	for (i = 0; i < rounds; i++) {
		if (cmd->op == VRENDER_CMD_FILL)	/* COPY takes none */
			cmd->value ^= 1 + i;
		check(pp_vrender_submit(fd, cmd, 1, 0, NULL), "SUBMIT");
	}
	check(pp_vrender_wait(fd, wait_bo, 120ll * 1000000000), "BO_WAIT");
	return size * rounds / seconds(pp_now_ns() - t0) / MIB;
}

static double memset_rate(void *buf, uint64_t size, unsigned int rounds)
{
	unsigned int i;
	int64_t t0;

	memset(buf, 1, size);
	t0 = pp_now_ns();
	for (i = 0; i < rounds; i++)
		memset(buf, i, size);
	/* Keep the compiler from dropping the stores. */
	if (((volatile uint8_t *)buf)[size - 1] != rounds - 1)
		die("memset() did not store");
	return size * rounds / seconds(pp_now_ns() - t0) / MIB;
}

static double memcpy_rate(void *dst, void *src, uint64_t size,
			  unsigned int rounds)
{
	unsigned int i;
	int64_t t0;

	memset(src, 3, size);
	memcpy(dst, src, size);
	t0 = pp_now_ns();
	for (i = 0; i < rounds; i++) {
		((volatile uint8_t *)src)[0] = i;
		memcpy(dst, src, size);
	}
	if (((volatile uint8_t *)dst)[0] != rounds - 1)
		die("memcpy() did not copy");
	return size * rounds / seconds(pp_now_ns() - t0) / MIB;
}

static void bench(int fd, uint64_t size)
{
	unsigned int rounds = rounds_for(size);
	struct drm_vrender_cmd cmd;
	uint32_t a, b;
	double fill, copy, cpu_set, cpu_copy;
	void *x, *y;

	check(vrender_bo_create(fd, size, 0, &a), "BO_CREATE");
	check(vrender_bo_create(fd, size, 0, &b), "BO_CREATE");

	cmd = pp_vrender_fill(a, 0, PITCH, 0, 0, PITCH / 4, size / PITCH,
			      0x01010101);
	fill = engine_rate(fd, &cmd, a, size, rounds);
	cmd = (struct drm_vrender_cmd) {
		.op = VRENDER_CMD_COPY,
		.dst_handle = b, .dst_pitch = PITCH,
		.src_handle = a, .src_pitch = PITCH,
		.width = PITCH / 4, .height = size / PITCH,
	};
	copy = engine_rate(fd, &cmd, b, size, rounds);
	if (drmCloseBufferHandle(fd, a) || drmCloseBufferHandle(fd, b))
		die("closing a buffer: %s", strerror(errno));

	x = malloc(size);
	y = malloc(size);
	if (!x || !y)
		die("out of memory for two %llu MiB buffers",
		    (unsigned long long)(size / MIB));
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

/* engine_speed, a vrender module parameter */
static unsigned long long engine_speed(void)
{
	unsigned long long value = 0;
	FILE *f = fopen("/sys/module/vrender/parameters/engine_speed", "re");

	if (!f || fscanf(f, "%llu", &value) != 1)
		die("cannot read vrender's engine_speed parameter");
	fclose(f);
	return value;
}

static const char help[] =
	"  --device SPEC    render node: path, driver name or NAME:N (default vrender)\n"
	"  --help, -h       this text\n";

static const char *parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *device = NULL;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			device = optarg;
			break;
		case 'h':
			printf("Usage: bench-vrender [OPTIONS]\n%s", help);
			exit(0);
		default:
			fprintf(stderr, "Usage: bench-vrender [OPTIONS]\n%s", help);
			exit(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Usage: bench-vrender [OPTIONS]\n%s", help);
		exit(2);
	}
	return device;
}

int main(int argc, char **argv)
{
	const char *device = parse_args(argc, argv);
	uint64_t max;
	int fd;

	fd = pp_open_device(device, PP_RENDER_DRIVER, true);
	if (fd < 0)
		die("no render node for \"%s\": %s", device ?: PP_RENDER_DRIVER,
		    strerror(errno));
	check(vrender_get_param(fd, VRENDER_PARAM_MAX_BO_SIZE, &max),
	      "GET_PARAM(MAX_BO_SIZE)");

	printf("vrender FILL/COPY vs CPU memset/memcpy (engine_speed=%llu)\n",
	       engine_speed());
	bench(fd, 4 * MIB);
	if (max >= 64ull * MIB)
		bench(fd, 64 * MIB);
	else
		printf("64 MiB: above VRENDER_PARAM_MAX_BO_SIZE (%llu), skipped\n",
		       (unsigned long long)max);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench-primebuf - cost of a device map: first map versus cached map
 *
 * For buffers of 64 KiB, 4 MiB and 256 MiB made by vrender, primebuf's
 * debugfs test importer attaches, times the first map (which allocates the
 * backing and builds and DMA-maps the table) and then N map/unmap cycles
 * served from the cache, on several buffers one after the other.  Prints
 * a table; a benchmark, not a test.
 *
 *   bench-primebuf [--device SPEC]
 *
 * SPEC names the vrender render node: a path ("/dev/dri/renderD128"), a
 * driver name ("vrender") or a driver name and index ("vrender:1"); by
 * default the first vrender render node.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>

#include "libprimepair.h"
#include "bench.h"
#include "vrender.h"

#define TEST_IMPORTER "/sys/kernel/debug/primebuf_selftest/test_importer"
#define MAX_SAMPLES 9

static uint64_t importer_value(const char *key)
{
	uint64_t v;
	int ret = pp_counter_read(TEST_IMPORTER, key, &v);

	if (ret)
		die("%s: %s: %s", TEST_IMPORTER, key, strerror(-ret));
	return v;
}

/*
 * One sample: a new buffer, exported and attached by the test importer,
 * which times its first map and then @iterations cached map/unmap
 * cycles.  Returns the first map's time; the cycles' time in @cycles_ns.
 */
static uint64_t sample(int fd, uint64_t size, unsigned long iterations,
		       uint64_t *cycles_ns)
{
	uint64_t first_ns;
	uint32_t bo;
	char cmd[64];
	int dmabuf, dfd, ret;

	ret = vrender_bo_create(fd, size, 0, &bo);
	if (ret)
		die("BO_CREATE of %llu bytes: %s", (unsigned long long)size,
		    strerror(-ret));
	if (drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf))
		die("HANDLE_TO_FD: %s", strerror(errno));

	snprintf(cmd, sizeof(cmd), "bench %d %lu", dmabuf, iterations);
	dfd = open(TEST_IMPORTER, O_WRONLY);
	if (dfd < 0)
		die("%s: %s", TEST_IMPORTER, strerror(errno));
	if (write(dfd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		die("%s: \"%s\": %s", TEST_IMPORTER, cmd, strerror(errno));
	close(dfd);

	first_ns = importer_value("bench_first_map_ns");
	*cycles_ns = importer_value("bench_cached_cycles_ns");

	close(dmabuf);
	if (drmCloseBufferHandle(fd, bo))
		die("closing a buffer: %s", strerror(errno));
	return first_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * One buffer of @size, then @samples more, one after the other.  The
 * first is printed apart: in a fresh boot it is likely the first time
 * the guest touches that memory at all, which under emulation costs the
 * host a page fault per page; the buffers after it mostly get pages the
 * one before freed.  Minimum, median and maximum are of the @samples
 * after it; the cached cycles' figure is the median of theirs.
 */
static void bench(int fd, uint64_t size, unsigned int samples,
		  unsigned long iterations)
{
	uint64_t first[MAX_SAMPLES], cycles[MAX_SAMPLES], once, cyc;
	unsigned int i;

	once = sample(fd, size, iterations, &cyc);
	for (i = 0; i < samples; i++)
		first[i] = sample(fd, size, iterations, &cycles[i]);
	qsort(first, samples, sizeof(first[0]), cmp_u64);
	qsort(cycles, samples, sizeof(cycles[0]), cmp_u64);
	cyc = cycles[samples / 2];
	printf("%10llu KiB %12.1f %3u %12.1f %12.1f %12.1f %14.3f %10.0fx\n",
	       (unsigned long long)(size >> 10), once / 1000.0, samples,
	       first[0] / 1000.0, first[samples / 2] / 1000.0,
	       first[samples - 1] / 1000.0, cyc / 1000.0 / iterations,
	       first[samples / 2] / ((double)cyc / iterations));
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
			printf("Usage: bench-primebuf [OPTIONS]\n%s", help);
			exit(0);
		default:
			fprintf(stderr, "Usage: bench-primebuf [OPTIONS]\n%s", help);
			exit(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Usage: bench-primebuf [OPTIONS]\n%s", help);
		exit(2);
	}
	return device;
}

int main(int argc, char **argv)
{
	static const struct {
		uint64_t size;
		unsigned int samples;
	} sizes[] = {
		{ 64 << 10, MAX_SAMPLES },
		{ 4 << 20, MAX_SAMPLES },
		{ 256 << 20, 5 },
	};
	const char *device = parse_args(argc, argv);
	int fd;

	if (access(TEST_IMPORTER, W_OK))
		die("%s: %s (is primebuf_selftest loaded, and are you root?)",
		    TEST_IMPORTER, strerror(errno));
	fd = pp_open_device(device, PP_RENDER_DRIVER, true);
	if (fd < 0)
		die("no render node for \"%s\": %s", device ?: PP_RENDER_DRIVER,
		    strerror(errno));

	printf("primebuf map cost (test importer, no IOMMU, one guest run)\n");
	printf("first map: of the first buffer of a size, then min/median/max\n");
	printf("of the next n; cached map + unmap: median of those n\n");
	printf("%14s %12s %3s %12s %12s %12s %14s %11s\n", "buffer",
	       "1st buf us", "n", "min us", "median us", "max us",
	       "cached map us", "median/cached");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench(fd, sizes[i].size, sizes[i].samples, 20000);
	close(fd);
	return 0;
}

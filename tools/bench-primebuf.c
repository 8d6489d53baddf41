// SPDX-License-Identifier: GPL-2.0
/*
 * bench-primebuf - cost of a device map: first map versus cached map
 *
 * For buffers of 64 KiB, 4 MiB and 256 MiB made by vrender, primebuf's
 * debugfs test importer attaches, times the first map (which allocates the
 * backing and builds and DMA-maps the table) and then N map/unmap cycles
 * served from the cache.  Prints a table; a benchmark, not a test.
 *
 *   bench-primebuf [--device SPEC]
 *
 * SPEC names the vrender render node: a path ("/dev/dri/renderD128"), a
 * driver name ("vrender") or a driver name and index ("vrender:1"); by
 * default the first vrender render node.
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

#define TEST_IMPORTER "/sys/kernel/debug/primebuf_selftest/test_importer"

static struct primepair_device_specs specs;

static const struct option bench_opts[] = {
	PRIMEPAIR_DEVICE_OPTION,
	{ NULL, 0, NULL, 0 },
};

static void bench(int fd, uint64_t size, unsigned long iterations)
{
	uint64_t first_ns, cycles_ns;
	uint32_t bo;
	char cmd[64];
	int dmabuf, dfd;

	bo = primepair_vrender_bo_create(fd, size);
	igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf), 0);

	snprintf(cmd, sizeof(cmd), "bench %d %lu", dmabuf, iterations);
	dfd = open(TEST_IMPORTER, O_WRONLY);
	igt_assert_lte(0, dfd);
	igt_assert_eq(write(dfd, cmd, strlen(cmd)), (ssize_t)strlen(cmd));
	close(dfd);

	igt_assert(primepair_debugfs_read_u64(TEST_IMPORTER,
					      "bench_first_map_ns", &first_ns));
	igt_assert(primepair_debugfs_read_u64(TEST_IMPORTER,
					      "bench_cached_cycles_ns",
					      &cycles_ns));
	printf("%10llu KiB %14.1f %18.3f %16.0f %10.0fx\n",
	       (unsigned long long)(size >> 10), first_ns / 1000.0,
	       cycles_ns / 1000.0 / iterations,
	       iterations * 1e9 / (double)cycles_ns,
	       first_ns / ((double)cycles_ns / iterations));

	close(dmabuf);
	igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
}

igt_simple_main_args("", bench_opts, PRIMEPAIR_DEVICE_HELP,
		     primepair_device_opt, &specs)
{
	static const uint64_t sizes[] = { 64 << 10, 4 << 20, 256 << 20 };
	int fd;

	igt_require(access(TEST_IMPORTER, W_OK) == 0);
	fd = primepair_require_device(specs.render, PRIMEPAIR_RENDER_DRIVER,
				      true);

	printf("primebuf map cost (test importer, no IOMMU, one guest run)\n");
	printf("%14s %14s %18s %16s %11s\n", "buffer", "first map us",
	       "cached map+unmap us", "cached cycles/s", "first/cached");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench(fd, sizes[i], 20000);
	close(fd);
}

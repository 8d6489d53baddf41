// SPDX-License-Identifier: GPL-2.0
/*
 * bench-prime - PRIME against its peers in the same guest
 *
 *  a. export + import + close cycles per second: vdisplay -> vrender,
 *     vgem -> vgem (Debian's vgem), system heap -> vrender (where the
 *     kernel has /dev/dma_heap/system); ratios to vgem
 *  c. HANDLE_TO_FD and FD_TO_HANDLE lookups with 10 .. 10,000 live imports
 *  f. kernel memory (slab) per live buffer, vdisplay/vrender and vgem
 *
 * Figures, not verdicts.  Lines starting "csv," are machine-readable.
 *
 *   bench-prime [--display SPEC] [--render SPEC]
 *
 * SPEC names a device: a path ("/dev/dri/card0"), a driver name
 * ("vdisplay") or a driver name and index ("vrender:1"); by default the
 * first vdisplay card and the first vrender render node.
 * vgem is the first card node of driver vgem.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-heap.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct primepair_device_specs specs;

static const struct option bench_opts[] = {
	PRIMEPAIR_DISPLAY_OPTION,
	PRIMEPAIR_RENDER_OPTION,
	{ NULL, 0, NULL, 0 },
};

static uint64_t slab_kib(void)
{
	char line[256];
	uint64_t total = 0, v;
	FILE *f = fopen("/proc/meminfo", "r");

	igt_assert(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lu kB", &v) == 1)
			total = v;
	fclose(f);
	return total;
}

/* One create + export + import + close of a 64x64 buffer */
static void cycle_dumb(int exporter, int importer)
{
	uint32_t h, pitch, imp;
	uint64_t size;
	int fd;

	igt_assert_eq(drmModeCreateDumbBuffer(exporter, 64, 64, 32, 0, &h,
					      &pitch, &size), 0);
	igt_assert_eq(drmPrimeHandleToFD(exporter, h, DRM_CLOEXEC, &fd), 0);
	igt_assert_eq(drmPrimeFDToHandle(importer, fd, &imp), 0);
	close(fd);
	drmCloseBufferHandle(importer, imp);
	if (importer != exporter)
		drmModeDestroyDumbBuffer(exporter, h);
}

static void cycle_heap(int heap, int importer)
{
	struct dma_heap_allocation_data a = {
		.len = 16384,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	uint32_t imp;

	igt_assert_eq(ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	igt_assert_eq(drmPrimeFDToHandle(importer, a.fd, &imp), 0);
	close(a.fd);
	drmCloseBufferHandle(importer, imp);
}

static double rate(void (*fn)(int, int), int a, int b, double seconds)
{
	double t0 = now(), t;
	unsigned long n = 0;

	do {
		for (int i = 0; i < 50; i++)
			fn(a, b);
		n += 50;
		t = now();
	} while (t - t0 < seconds);
	return n / (t - t0);
}

static void bench_cycles(int display, int render, int vgem)
{
	double ours, peer = 0, heap_rate = 0;
	int heap;

	printf("\na. PRIME export + import + close cycles per second\n");
	ours = rate(cycle_dumb, display, render, 2);
	printf("   vdisplay -> vrender      %10.0f/s\n", ours);
	if (vgem >= 0) {
		peer = rate(cycle_dumb, vgem, vgem, 2);
		printf("   vgem -> vgem             %10.0f/s\n", peer);
		printf("   ratio to vgem            %10.2f\n", ours / peer);
	} else {
		printf("   vgem -> vgem             not available in this kernel\n");
	}
	heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (heap >= 0) {
		heap_rate = rate(cycle_heap, heap, render, 2);
		printf("   system heap -> vrender   %10.0f/s\n", heap_rate);
		close(heap);
	} else {
		printf("   system heap -> vrender   no /dev/dma_heap/system in this kernel\n");
	}
	printf("csv,cycles,vdisplay-vrender,%.0f\n", ours);
	printf("csv,cycles,vgem-vgem,%.0f\n", peer);
	printf("csv,cycles,systemheap-vrender,%.0f\n", heap_rate);
}

static void bench_lookups(int display, int render)
{
	static const int counts[] = { 10, 100, 1000, 10000 };
	struct rlimit rl = { 65536, 65536 };

	setrlimit(RLIMIT_NOFILE, &rl);
	printf("\nc. PRIME lookups with N live imports (ns per call)\n");
	printf("   %8s %16s %16s\n", "imports", "HANDLE_TO_FD", "FD_TO_HANDLE");
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		int n = counts[k];
		uint32_t *dumb = calloc(n, sizeof(*dumb));
		uint32_t *imp = calloc(n, sizeof(*imp));
		uint32_t pitch, h;
		uint64_t size;
		double t0, t_h2fd, t_fd2h;
		const int reps = 2000;
		int fd;

		for (int i = 0; i < n; i++) {
			igt_assert_eq(drmModeCreateDumbBuffer(display, 32, 32, 32,
							      0, &dumb[i],
							      &pitch, &size), 0);
			igt_assert_eq(drmPrimeHandleToFD(display, dumb[i],
							 DRM_CLOEXEC, &fd), 0);
			igt_assert_eq(drmPrimeFDToHandle(render, fd, &imp[i]),
				      0);
			close(fd);
		}

		t0 = now();
		for (int r = 0; r < reps; r++) {
			igt_assert_eq(drmPrimeHandleToFD(display,
							 dumb[r % n],
							 DRM_CLOEXEC, &fd), 0);
			close(fd);
		}
		t_h2fd = (now() - t0) / reps * 1e9;

		igt_assert_eq(drmPrimeHandleToFD(display, dumb[n / 2],
						 DRM_CLOEXEC, &fd), 0);
		t0 = now();
		for (int r = 0; r < reps; r++) {
			igt_assert_eq(drmPrimeFDToHandle(render, fd, &h), 0);
			igt_assert_eq_u32(h, imp[n / 2]);
		}
		t_fd2h = (now() - t0) / reps * 1e9;
		close(fd);

		printf("   %8d %16.0f %16.0f\n", n, t_h2fd, t_fd2h);
		printf("csv,lookup,%d,%.0f,%.0f\n", n, t_h2fd, t_fd2h);
		for (int i = 0; i < n; i++) {
			drmCloseBufferHandle(render, imp[i]);
			drmModeDestroyDumbBuffer(display, dumb[i]);
		}
		free(dumb);
		free(imp);
	}
}

static double slab_per_buffer(int exporter, int importer, int n)
{
	uint32_t *h = calloc(n, sizeof(*h)), *imp = calloc(n, sizeof(*imp));
	uint64_t before, after, size;
	uint32_t pitch;
	int fd;

	before = slab_kib();
	for (int i = 0; i < n; i++) {
		igt_assert_eq(drmModeCreateDumbBuffer(exporter, 64, 64, 32, 0,
						      &h[i], &pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(exporter, h[i], DRM_CLOEXEC,
						 &fd), 0);
		igt_assert_eq(drmPrimeFDToHandle(importer, fd, &imp[i]), 0);
		close(fd);
	}
	after = slab_kib();
	for (int i = 0; i < n; i++) {
		if (importer != exporter)
			drmCloseBufferHandle(importer, imp[i]);
		drmModeDestroyDumbBuffer(exporter, h[i]);
	}
	free(h);
	free(imp);
	return (after - before) * 1024.0 / n;
}

static void bench_memory(int display, int render, int vgem)
{
	double ours, peer = 0;

	printf("\nf. slab memory per live shared buffer (bytes; 2000 buffers)\n");
	ours = slab_per_buffer(display, render, 2000);
	printf("   vdisplay -> vrender      %10.0f\n", ours);
	if (vgem >= 0) {
		peer = slab_per_buffer(vgem, vgem, 2000);
		printf("   vgem                     %10.0f\n", peer);
	}
	printf("csv,slab,vdisplay-vrender,%.0f\n", ours);
	printf("csv,slab,vgem,%.0f\n", peer);
}

igt_simple_main_args("", bench_opts,
		     PRIMEPAIR_DISPLAY_HELP PRIMEPAIR_RENDER_HELP,
		     primepair_device_opt, &specs)
{
	int display, render, vgem;

	igt_require(getuid() == 0);
	if (system("modprobe vgem 2>/dev/null"))
		igt_info("vgem: not available\n");
	display = primepair_require_device(specs.display,
					   PRIMEPAIR_DISPLAY_DRIVER, false);
	render = primepair_require_device(specs.render, PRIMEPAIR_RENDER_DRIVER,
					  true);
	vgem = primepair_open_device(NULL, "vgem", false);

	printf("PRIME against its peers, one guest run\n");
	bench_cycles(display, render, vgem);
	bench_lookups(display, render);
	bench_memory(display, render, vgem);

	if (vgem >= 0)
		close(vgem);
	close(render);
	close(display);
}

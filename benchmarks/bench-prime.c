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
#include <getopt.h>
#include <stdarg.h>
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

#include "libprimepair.h"
#include "bench.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A @size x @size XRGB8888 dumb buffer on @fd */
static uint32_t dumb_create(int fd, uint32_t size)
{
	uint32_t handle, pitch;
	uint64_t bytes;

	if (drmModeCreateDumbBuffer(fd, size, size, 32, 0, &handle, &pitch,
				    &bytes))
		die("creating a dumb buffer: %s", strerror(errno));
	return handle;
}

static int export(int fd, uint32_t handle)
{
	int dmabuf;

	if (drmPrimeHandleToFD(fd, handle, DRM_CLOEXEC, &dmabuf))
		die("HANDLE_TO_FD: %s", strerror(errno));
	return dmabuf;
}

static uint32_t import(int fd, int dmabuf)
{
	uint32_t handle;

	if (drmPrimeFDToHandle(fd, dmabuf, &handle))
		die("FD_TO_HANDLE: %s", strerror(errno));
	return handle;
}

static uint64_t slab_kib(void)
{
	char line[256];
	uint64_t total = 0, v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %lu kB", &v) == 1)
			total = v;
	fclose(f);
	return total;
}

/* One create + export + import + close of a 64x64 buffer */
static void cycle_dumb(int exporter, int importer)
{
	uint32_t h, imp;
	int fd;

	h = dumb_create(exporter, 64);
	fd = export(exporter, h);
	imp = import(importer, fd);
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

	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a))
		die("DMA_HEAP_IOCTL_ALLOC: %s", strerror(errno));
	imp = import(importer, a.fd);
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
		double t0, t_h2fd, t_fd2h;
		uint32_t h;
		const int reps = 2000;
		int fd;

		if (!dumb || !imp)
			die("out of memory");
		for (int i = 0; i < n; i++) {
			dumb[i] = dumb_create(display, 32);
			fd = export(display, dumb[i]);
			imp[i] = import(render, fd);
			close(fd);
		}

		t0 = now();
		for (int r = 0; r < reps; r++) {
			fd = export(display, dumb[r % n]);
			close(fd);
		}
		t_h2fd = (now() - t0) / reps * 1e9;

		fd = export(display, dumb[n / 2]);
		t0 = now();
		for (int r = 0; r < reps; r++) {
			h = import(render, fd);
			if (h != imp[n / 2])
				die("FD_TO_HANDLE gave handle %u, not %u", h,
				    imp[n / 2]);
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
	uint64_t before, after;
	int fd;

	if (!h || !imp)
		die("out of memory");
	before = slab_kib();
	for (int i = 0; i < n; i++) {
		h[i] = dumb_create(exporter, 64);
		fd = export(exporter, h[i]);
		imp[i] = import(importer, fd);
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

static const char help[] =
	"  --display SPEC   KMS device: path, driver name or NAME:N (default vdisplay)\n"
	"  --render SPEC    render node: path, driver name or NAME:N (default vrender)\n"
	"  --help, -h       this text\n";

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
			printf("Usage: bench-prime [OPTIONS]\n%s", help);
			exit(0);
		default:
			fprintf(stderr, "Usage: bench-prime [OPTIONS]\n%s", help);
			exit(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "Usage: bench-prime [OPTIONS]\n%s", help);
		exit(2);
	}
}

static int open_or_die(const char *spec, const char *driver, bool render)
{
	int fd = pp_open_device(spec, driver, render);

	if (fd < 0)
		die("no %s node for \"%s\": %s", render ? "render" : "primary",
		    spec ?: driver, strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	const char *display_spec = NULL, *render_spec = NULL;
	int display, render, vgem;

	parse_args(argc, argv, &display_spec, &render_spec);
	if (getuid() != 0)
		die("needs root (to load vgem and read kernel memory use)");
	if (system("modprobe vgem 2>/dev/null"))
		printf("vgem: not available\n");
	display = open_or_die(display_spec, PP_DISPLAY_DRIVER, false);
	render = open_or_die(render_spec, PP_RENDER_DRIVER, true);
	vgem = pp_open_device(NULL, "vgem", false);

	printf("PRIME against its peers, one guest run\n");
	bench_cycles(display, render, vgem);
	bench_lookups(display, render);
	bench_memory(display, render, vgem);

	if (vgem >= 0)
		close(vgem);
	close(render);
	close(display);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench-vrender - throughput of vrender's FILL and COPY against the CPU
 *
 * Not a test: run it in the guest (tools/vm-run -- build/bin/bench-vrender)
 * and read the table.  For 4 MiB and 64 MiB buffers it times a few jobs
 * from submission to idle and memset()/memcpy() of malloc'ed buffers of
 * the same size in the same guest, five times over, and prints the
 * median rates, the median ratio and the range of the five ratios.
 * Buffers are touched once before timing, so allocation is not measured.
 * Set the engine_speed parameter to 0 (the default) for meaningful
 * numbers.
 *
 * Then it measures a client's latency (SUBMIT of a small FILL until its
 * out-fence signals) alone, and while another client's job waits for a
 * fence that does not signal (a vgem fence, if the kernel has vgem), in
 * alternating rounds, and prints both medians and their ratio.
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
#include "bench.h"
#include "vrender.h"

#define PITCH	16384		/* 4096 pixels per row */
#define MIB	(1024 * 1024)
#define LATENCY_JOBS	200
#define LATENCY_ROUNDS	5
#define TRIALS		5

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

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/*
 * TRIALS rounds of the four measurements, one after the other, so that a
 * guest whose speed drifts (TCG's code cache, the host's other work)
 * weighs on the engine and the CPU alike; each ratio is of one trial,
 * and the medians are printed.
 */
static void bench(int fd, uint64_t size)
{
	unsigned int rounds = rounds_for(size), t;
	double fill[TRIALS], copy[TRIALS], cpu_set[TRIALS], cpu_copy[TRIALS];
	double fill_ratio[TRIALS], copy_ratio[TRIALS], fr, cr;
	struct drm_vrender_cmd fill_cmd, copy_cmd;
	uint32_t a, b;
	void *x, *y;

	check(vrender_bo_create(fd, size, 0, &a), "BO_CREATE");
	check(vrender_bo_create(fd, size, 0, &b), "BO_CREATE");
	x = malloc(size);
	y = malloc(size);
	if (!x || !y)
		die("out of memory for two %llu MiB buffers",
		    (unsigned long long)(size / MIB));

	fill_cmd = pp_vrender_fill(a, 0, PITCH, 0, 0, PITCH / 4, size / PITCH,
				   0x01010101);
	copy_cmd = (struct drm_vrender_cmd) {
		.op = VRENDER_CMD_COPY,
		.dst_handle = b, .dst_pitch = PITCH,
		.src_handle = a, .src_pitch = PITCH,
		.width = PITCH / 4, .height = size / PITCH,
	};
	for (t = 0; t < TRIALS; t++) {
		fill[t] = engine_rate(fd, &fill_cmd, a, size, rounds);
		copy[t] = engine_rate(fd, &copy_cmd, b, size, rounds);
		cpu_set[t] = memset_rate(x, size, rounds);
		cpu_copy[t] = memcpy_rate(y, x, size, rounds);
		fill_ratio[t] = fill[t] / cpu_set[t];
		copy_ratio[t] = copy[t] / cpu_copy[t];
	}
	if (drmCloseBufferHandle(fd, a) || drmCloseBufferHandle(fd, b))
		die("closing a buffer: %s", strerror(errno));
	free(x);
	free(y);

	/* median() sorts: the ratios' range is read after it */
	fr = median(fill_ratio, TRIALS);
	cr = median(copy_ratio, TRIALS);
	printf("%4llu MiB  FILL %8.1f MiB/s  memset %8.1f MiB/s  ratio %.3f (%.3f-%.3f)\n",
	       (unsigned long long)(size / MIB), median(fill, TRIALS),
	       median(cpu_set, TRIALS), fr, fill_ratio[0],
	       fill_ratio[TRIALS - 1]);
	printf("%4llu MiB  COPY %8.1f MiB/s  memcpy %8.1f MiB/s  ratio %.3f (%.3f-%.3f)\n",
	       (unsigned long long)(size / MIB), median(copy, TRIALS),
	       median(cpu_copy, TRIALS), cr, copy_ratio[0],
	       copy_ratio[TRIALS - 1]);
}

/* Mean time in us from SUBMIT of a one-row FILL to its fence signalling */
static double job_latency_us(int fd, uint32_t bo)
{
	struct drm_vrender_cmd c = pp_vrender_fill(bo, 0, 64, 0, 0, 16, 1, 0);
	int64_t total = 0;
	unsigned int i;

	for (i = 0; i < LATENCY_JOBS; i++) {
		int64_t t0 = pp_now_ns();
		int fence;

		c.value = i;
		check(pp_vrender_submit(fd, &c, 1, VRENDER_SUBMIT_OUT_FENCE_FD,
					&fence), "SUBMIT");
		check(pp_sync_file_wait(fence, 10000), "sync_file wait");
		total += pp_now_ns() - t0;
		close(fence);
	}
	return total / 1000.0 / LATENCY_JOBS;
}

/* Submit A's one-row FILL behind @blocker's fence; returns its sync_file */
static int block_a(int a, uint32_t a_bo, const struct pp_vgem_fence *blocker)
{
	struct drm_vrender_cmd c = pp_vrender_fill(a_bo, 0, 64, 0, 0, 16, 1, 1);
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_IN_FENCE_FD | VRENDER_SUBMIT_OUT_FENCE_FD,
		.in_fence_fd = blocker->sync_file,
	};

	check(vrender_submit(a, &s), "SUBMIT of A");
	return s.out_fence_fd;
}

/*
 * Rounds that alternate B alone and B beside a blocked A, so that a guest
 * whose speed drifts (other load on the host) affects both alike; the
 * medians are printed.
 */
static void bench_blocked_client(const char *device)
{
	double alone[LATENCY_ROUNDS], blocked[LATENCY_ROUNDS];
	struct pp_vgem_fence blocker;
	int a, b, vgem, a_fence, status;
	uint32_t a_bo, b_bo;
	bool held = true;
	unsigned int r;

	printf("\nlatency of client B's one-row FILL, SUBMIT to fence, median of %u rounds of %u jobs\n",
	       LATENCY_ROUNDS, LATENCY_JOBS);
	vgem = pp_open_device(NULL, "vgem", false);
	if (vgem < 0) {
		printf("   no vgem in this kernel: no foreign fence to block on, skipped\n");
		return;
	}
	a = pp_open_device(device, PP_RENDER_DRIVER, true);
	b = pp_open_device(device, PP_RENDER_DRIVER, true);
	if (a < 0 || b < 0)
		die("cannot open the render node twice: %s", strerror(errno));
	check(vrender_bo_create(a, 4096, 0, &a_bo), "BO_CREATE");
	check(vrender_bo_create(b, 4096, 0, &b_bo), "BO_CREATE");

	job_latency_us(b, b_bo);		/* warm up */
	for (r = 0; r < LATENCY_ROUNDS; r++) {
		alone[r] = job_latency_us(b, b_bo);
		check(pp_vgem_fence_create(vgem, &blocker), "vgem fence");
		a_fence = block_a(a, a_bo, &blocker);
		blocked[r] = job_latency_us(b, b_bo);
		check(pp_sync_file_info(a_fence, &status, NULL),
		      "SYNC_FILE_INFO");
		held &= status == 0;
		/* Let A's job run. */
		check(pp_vgem_fence_signal(&blocker), "vgem fence signal");
		check(pp_sync_file_wait(a_fence, 20000), "A's fence");
		close(a_fence);
		pp_vgem_fence_destroy(&blocker);
	}
	qsort(alone, LATENCY_ROUNDS, sizeof(*alone), cmp_double);
	qsort(blocked, LATENCY_ROUNDS, sizeof(*blocked), cmp_double);

	printf("   B alone                  %10.1f us\n",
	       alone[LATENCY_ROUNDS / 2]);
	printf("   B while A is blocked     %10.1f us%s\n",
	       blocked[LATENCY_ROUNDS / 2],
	       held ? "" : "   (A was not blocked throughout!)");
	printf("   ratio                    %10.2f\n",
	       blocked[LATENCY_ROUNDS / 2] / alone[LATENCY_ROUNDS / 2]);
	printf("csv,latency,alone,%.1f\n", alone[LATENCY_ROUNDS / 2]);
	printf("csv,latency,blocked,%.1f\n", blocked[LATENCY_ROUNDS / 2]);
	close(vgem);
	close(a);
	close(b);
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
	bench_blocked_client(device);
	return 0;
}

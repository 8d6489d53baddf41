// SPDX-License-Identifier: GPL-2.0
/*
 * bench-soak - many clients sharing buffers for a minute while vdisplay
 * flips at its refresh rate
 *
 * Not a test: run it in the guest (tools/vm-run -- build/bin/bench-soak)
 * and read the figures.  CLIENTS processes each loop until the time is up:
 * create a dumb buffer on vdisplay, export it, import it into vrender,
 * render a PATTERN frame into it with an out-fence, wait for the fence,
 * check one pixel of every 16th frame through the dumb buffer's mapping,
 * and close everything.  Meanwhile the parent flips two framebuffers on
 * vdisplay's first output, one flip per vblank, and samples the kernel's
 * memory every 100 ms.
 *
 * It prints the jobs per second of all clients, pixel mismatches, the
 * slowest job, flips, vblanks missed and the longest gap between two
 * flips, the peak of primebuf's backing bytes and of the
 * slab's growth over its start, and whether primebuf's live counters are
 * back at zero once every client has exited.
 *
 *   bench-soak [--clients N] [--seconds S] [--size PIXELS]
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libprimepair.h"
#include "bench.h"
#include "vrender.h"

#define SUMMARY	"/sys/kernel/debug/primebuf/summary"

static unsigned int nclients = 16;
static unsigned int seconds = 60;
static unsigned int size = 256;

struct client_result {
	unsigned long long jobs;
	unsigned long long mismatches;
	int64_t longest_ns;	/* the slowest job, SUBMIT to fence */
	int error;		/* the first failure's errno, 0 if none */
};

/* One frame's life: create, share, render, check, close. */
static int client_frame(int card, int render, unsigned long long n,
			struct client_result *r)
{
	struct drm_vrender_cmd cmd;
	struct pp_fb fb = {};
	uint32_t imported = 0;
	int fence = -1, status = 0, ret;
	int64_t ts, t0;

	ret = pp_fb_create(card, size, size, DRM_FORMAT_XRGB8888, &fb);
	if (ret)
		return ret;
	ret = pp_prime_share(card, fb.handle, render, &imported, NULL);
	if (ret)
		goto out;
	cmd = pp_vrender_pattern(imported, fb.pitch, size, size, (uint32_t)n);
	t0 = pp_now_ns();
	ret = pp_vrender_submit(render, &cmd, 1, VRENDER_SUBMIT_OUT_FENCE_FD,
				&fence);
	if (ret)
		goto out;
	ret = pp_sync_file_wait(fence, 10000);
	if (pp_now_ns() - t0 > r->longest_ns)
		r->longest_ns = pp_now_ns() - t0;
	if (!ret)
		ret = pp_sync_file_info(fence, &status, &ts);
	if (!ret && status != 1)
		ret = status < 0 ? status : -ETIMEDOUT;
	if (!ret && n % 16 == 0) {
		uint32_t x = (uint32_t)(n * 7) % size, y = (uint32_t)(n * 13) % size;
		const uint32_t *px;

		ret = pp_fb_map(card, &fb);
		if (ret)
			goto out;
		px = (const uint32_t *)((const char *)fb.map +
					(size_t)y * fb.pitch) + x;
		if (*px != pp_pattern_pixel(x, y, (uint32_t)n))
			r->mismatches++;
	}
out:
	if (fence >= 0)
		close(fence);
	if (imported)
		drmCloseBufferHandle(render, imported);
	if (pp_fb_destroy(card, &fb) && !ret)
		ret = -errno;
	return ret;
}

static void client(int out_fd, int64_t deadline)
{
	struct client_result r = {};
	int card = pp_open_nth("vdisplay", 0, false);
	int render = pp_open_nth("vrender", 0, true);

	if (card < 0 || render < 0) {
		r.error = errno;
	} else {
		while (pp_now_ns() < deadline) {
			int ret = client_frame(card, render, r.jobs, &r);

			if (ret) {
				r.error = -ret;
				break;
			}
			r.jobs++;
		}
	}
	if (write(out_fd, &r, sizeof(r)) != sizeof(r))
		_exit(2);
	_exit(0);
}

/* ---- the display ----------------------------------------------------- */

struct display {
	int fd;
	uint32_t crtc, conn;
	drmModeModeInfo mode;
	struct pp_fb fb[2];
	unsigned int flips, missed, next;
	unsigned int last_seq;
	int64_t last_ns, longest_gap_ns;
	bool pending;
};

static void flip_done(int fd, unsigned int seq, unsigned int sec,
		      unsigned int usec, void *data)
{
	struct display *d = data;
	int64_t t = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;

	(void)fd;
	if (d->flips && t - d->last_ns > d->longest_gap_ns)
		d->longest_gap_ns = t - d->last_ns;
	d->last_ns = t;
	if (d->flips && seq > d->last_seq + 1)
		d->missed += seq - d->last_seq - 1;
	d->last_seq = seq;
	d->flips++;
	d->pending = false;
}

static void display_start(struct display *d)
{
	drmModeRes *res;
	drmModeConnector *conn;

	d->fd = pp_open_nth("vdisplay", 0, false);
	if (d->fd < 0)
		die("no vdisplay card: %s", strerror(errno));
	res = drmModeGetResources(d->fd);
	if (!res || !res->count_crtcs || !res->count_connectors)
		die("vdisplay has no CRTC or no connector");
	d->crtc = res->crtcs[0];
	conn = drmModeGetConnector(d->fd, res->connectors[0]);
	if (!conn || !conn->count_modes)
		die("vdisplay's first connector has no mode");
	d->conn = conn->connector_id;
	d->mode = conn->modes[0];
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);

	for (int i = 0; i < 2; i++) {
		check(pp_fb_create(d->fd, d->mode.hdisplay, d->mode.vdisplay,
				   DRM_FORMAT_XRGB8888, &d->fb[i]), "dumb buffer");
		check(pp_fb_add(d->fd, &d->fb[i]), "AddFB2");
	}
	check(drmModeSetCrtc(d->fd, d->crtc, d->fb[0].fb_id, 0, 0, &d->conn, 1,
			     &d->mode), "SetCrtc");
}

static void display_flip(struct display *d)
{
	d->next ^= 1;
	check(drmModePageFlip(d->fd, d->crtc, d->fb[d->next].fb_id,
			      DRM_MODE_PAGE_FLIP_EVENT, d), "PageFlip");
	d->pending = true;
}

static void display_stop(struct display *d)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = flip_done };
	struct pollfd pfd = { .fd = d->fd, .events = POLLIN };

	while (d->pending && poll(&pfd, 1, 1000) == 1)
		drmHandleEvent(d->fd, &ev);
	drmModeSetCrtc(d->fd, d->crtc, 0, 0, 0, NULL, 0, NULL);
	for (int i = 0; i < 2; i++)
		pp_fb_destroy(d->fd, &d->fb[i]);
	close(d->fd);
}

/* ---- memory ---------------------------------------------------------- */

static uint64_t meminfo_kib(const char *key)
{
	uint64_t v = 0;

	pp_counter_read("/proc/meminfo", key, &v);
	return v;
}

static const char help[] =
	"usage: bench-soak [--clients N] [--seconds S] [--size PIXELS]\n";

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "clients", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned long v = 0;

		if (opt == 'h') {
			fputs(help, stdout);
			exit(0);
		}
		if (opt == '?' || !optarg)
			die("%s", help);
		v = strtoul(optarg, NULL, 0);
		if (opt == 'c' && v >= 1 && v <= 256)
			nclients = v;
		else if (opt == 's' && v >= 1 && v <= 3600)
			seconds = v;
		else if (opt == 'z' && v >= 16 && v <= 4096)
			size = v;
		else
			die("bad value '%s'\n%s", optarg, help);
	}
}

int main(int argc, char **argv)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = flip_done };
	struct client_result total = {}, r;
	uint64_t slab0, slab_peak = 0, bytes_peak = 0, v;
	struct display d = {};
	int64_t deadline, next_sample = 0;
	unsigned int failed = 0;
	char key[64];
	int pipefd[2];
	int ret;

	parse_args(argc, argv);
	if (pipe(pipefd))
		die("pipe: %s", strerror(errno));
	display_start(&d);
	slab0 = meminfo_kib("Slab");

	deadline = pp_now_ns() + (int64_t)seconds * 1000000000;
	for (unsigned int i = 0; i < nclients; i++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid) {
			close(pipefd[0]);
			close(d.fd);
			client(pipefd[1], deadline);
		}
	}
	close(pipefd[1]);

	display_flip(&d);
	while (pp_now_ns() < deadline) {
		struct pollfd pfd = { .fd = d.fd, .events = POLLIN };
		int64_t now = pp_now_ns();

		if (now >= next_sample) {
			uint64_t slab = meminfo_kib("Slab");

			if (slab > slab0 && slab - slab0 > slab_peak)
				slab_peak = slab - slab0;
			if (!pp_counter_read(SUMMARY, "bytes", &v) &&
			    v > bytes_peak)
				bytes_peak = v;
			next_sample = now + 100000000;
		}
		if (poll(&pfd, 1, 100) == 1) {
			check(drmHandleEvent(d.fd, &ev), "events");
			if (!d.pending && pp_now_ns() < deadline)
				display_flip(&d);
		}
	}

	for (unsigned int i = 0; i < nclients; i++) {
		if (read(pipefd[0], &r, sizeof(r)) != sizeof(r)) {
			failed++;
			continue;
		}
		total.jobs += r.jobs;
		total.mismatches += r.mismatches;
		if (r.longest_ns > total.longest_ns)
			total.longest_ns = r.longest_ns;
		if (r.error) {
			failed++;
			fprintf(stderr, "bench-soak: a client failed: %s\n",
				strerror(r.error));
		}
	}
	while (wait(NULL) > 0)
		;
	display_stop(&d);

	printf("%u clients, %u s, %ux%u buffers created, shared, rendered and closed\n",
	       nclients, seconds, size, size);
	printf("  jobs            %llu (%.1f per second), %llu of %llu pixel checks wrong, %u clients failed\n",
	       total.jobs, (double)total.jobs / seconds, total.mismatches,
	       (total.jobs + 15) / 16, failed);
	printf("  slowest job     %.1f ms from SUBMIT to its fence\n",
	       total.longest_ns / 1e6);
	printf("  flips           %u at %u Hz, vblanks missed %u, longest gap %.1f ms\n",
	       d.flips, d.mode.vrefresh, d.missed, d.longest_gap_ns / 1e6);
	printf("  peak memory     primebuf backing %llu KiB, slab growth %llu KiB\n",
	       (unsigned long long)(bytes_peak / 1024),
	       (unsigned long long)slab_peak);

	/* Closed files' last jobs may still be finishing. */
	for (int i = 0; i < 100; i++) {
		ret = pp_counter_first_nonzero(SUMMARY, pp_live_counters, key,
					       sizeof(key), &v);
		if (ret <= 0)
			break;
		usleep(50000);
	}
	if (ret < 0)
		die("reading %s: %s", SUMMARY, strerror(-ret));
	if (ret)
		printf("  live counters   %s is %llu after every client exited\n",
		       key, (unsigned long long)v);
	else
		printf("  live counters   all zero after every client exited\n");
	printf("csv,soak,%u,%u,%llu,%llu,%u,%u,%llu,%llu,%d\n", nclients, seconds,
	       total.jobs, total.mismatches, d.flips, d.missed,
	       (unsigned long long)(bytes_peak / 1024),
	       (unsigned long long)slab_peak, ret);
	return failed || total.mismatches || ret ? 1 : 0;
}

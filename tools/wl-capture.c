// SPDX-License-Identifier: GPL-2.0
/*
 * wl-capture - take one picture of a weston output through weston's
 * output capture protocol (weston_capture_v1, weston 12 and later)
 *
 *   wl-capture [--source writeback|framebuffer] [--png PATH]
 *              [--timeout-ms N]
 *
 * With the default source, writeback, weston's DRM backend routes the
 * output's CRTC to a writeback connector of the device for one frame and
 * hands the client what the display controller composed: on vdisplay,
 * the frame its composer built, planes and all, not what weston's
 * renderer drew.  The picture lands in a wl_shm buffer of the format and
 * size weston names.  It then prints one line:
 *
 *   captured source=S width=W height=H format=F crc=0xC
 *
 * F is the DRM fourcc as four characters, C the CRC-32 (zlib's) of the
 * picture's rows, each W * 4 bytes, with the X byte of XRGB8888 set to
 * 0xff, as vrender's CHECKSUM computes it of a frame it rendered and as
 * vdisplay's writeback writes it.  --png writes the picture to PATH.
 *
 * weston answers only clients it lets capture: weston 14 lets every
 * client when it runs with --debug.  Exits 0 on a picture; 1 with
 * weston's reason if the capture failed (no writeback connector for the
 * output's CRTC, say), or if nothing came within the timeout (default
 * 30 s).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <wayland-client.h>

#include "weston-output-capture-client-protocol.h"

#include "libprimepair.h"

/* weston's retry event: the format or size changed; try again so often */
#define MAX_RETRIES	5

enum capture_state { CAPTURE_WAITING, CAPTURE_DONE, CAPTURE_RETRY,
		     CAPTURE_FAILED };

struct capture {
	struct wl_display *display;
	struct wl_shm *shm;
	struct weston_capture_v1 *factory;
	struct wl_output *output;
	struct weston_capture_source_v1 *source;
	uint32_t format;
	int32_t width, height;
	bool have_format, have_size;
	enum capture_state state;
	char reason[256];
};

struct shm_picture {
	struct wl_buffer *wl;
	void *map;
	size_t size;
	uint32_t stride;
};

static void die(const char *what)
{
	fprintf(stderr, "wl-capture: %s\n", what);
	exit(1);
}

static void source_format(void *data, struct weston_capture_source_v1 *src,
			  uint32_t drm_format)
{
	struct capture *c = data;

	c->format = drm_format;
	c->have_format = true;
}

static void source_size(void *data, struct weston_capture_source_v1 *src,
			int32_t width, int32_t height)
{
	struct capture *c = data;

	c->width = width;
	c->height = height;
	c->have_size = true;
}

static void source_complete(void *data, struct weston_capture_source_v1 *src)
{
	struct capture *c = data;

	c->state = CAPTURE_DONE;
}

static void source_retry(void *data, struct weston_capture_source_v1 *src)
{
	struct capture *c = data;

	c->state = CAPTURE_RETRY;
}

static void source_failed(void *data, struct weston_capture_source_v1 *src,
			  const char *msg)
{
	struct capture *c = data;

	snprintf(c->reason, sizeof(c->reason), "%s", msg ? msg : "no reason given");
	c->state = CAPTURE_FAILED;
}

static const struct weston_capture_source_v1_listener source_listener = {
	.format = source_format,
	.size = source_size,
	.complete = source_complete,
	.retry = source_retry,
	.failed = source_failed,
};

static void registry_global(void *data, struct wl_registry *registry,
			    uint32_t name, const char *interface,
			    uint32_t version)
{
	struct capture *c = data;

	if (!strcmp(interface, wl_shm_interface.name))
		c->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	else if (!strcmp(interface, weston_capture_v1_interface.name))
		c->factory = wl_registry_bind(registry, name,
					      &weston_capture_v1_interface, 1);
	else if (!strcmp(interface, wl_output_interface.name) && !c->output)
		c->output = wl_registry_bind(registry, name,
					     &wl_output_interface, 1);
}

static void registry_global_remove(void *data, struct wl_registry *registry,
				   uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* wl_shm names its two first formats apart from DRM's fourccs */
static int shm_format(uint32_t drm_format, uint32_t *out)
{
	switch (drm_format) {
	case DRM_FORMAT_XRGB8888:
		*out = WL_SHM_FORMAT_XRGB8888;
		return 0;
	case DRM_FORMAT_ARGB8888:
		*out = WL_SHM_FORMAT_ARGB8888;
		return 0;
	default:
		return -EINVAL;
	}
}

static void picture_create(struct capture *c, struct shm_picture *p)
{
	struct wl_shm_pool *pool;
	uint32_t wl_format;
	int fd;

	if (shm_format(c->format, &wl_format))
		die("weston offers a format other than XRGB8888 or ARGB8888");
	if (c->width <= 0 || c->height <= 0 || c->width > 16384 ||
	    c->height > 16384)
		die("weston offers no usable size");
	p->stride = c->width * 4;
	p->size = (size_t)p->stride * c->height;
	fd = memfd_create("wl-capture", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, p->size))
		die("memfd");
	p->map = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p->map == MAP_FAILED)
		die("mmap");
	pool = wl_shm_create_pool(c->shm, fd, p->size);
	p->wl = wl_shm_pool_create_buffer(pool, 0, c->width, c->height,
					  p->stride, wl_format);
	wl_shm_pool_destroy(pool);
	close(fd);
}

static void picture_destroy(struct shm_picture *p)
{
	wl_buffer_destroy(p->wl);
	munmap(p->map, p->size);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Dispatch until the capture leaves CAPTURE_WAITING or @deadline passes */
static void wait_capture(struct capture *c, long long deadline)
{
	struct pollfd pfd = { .fd = wl_display_get_fd(c->display),
			      .events = POLLIN };

	while (c->state == CAPTURE_WAITING) {
		long long left = deadline - now_ms();

		while (wl_display_prepare_read(c->display))
			wl_display_dispatch_pending(c->display);
		if (wl_display_flush(c->display) < 0 && errno != EAGAIN) {
			wl_display_cancel_read(c->display);
			die("lost the compositor");
		}
		if (left <= 0) {
			wl_display_cancel_read(c->display);
			die("no picture within the timeout");
		}
		/* poll() takes an int: a long --timeout-ms waits in steps */
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) <= 0) {
			wl_display_cancel_read(c->display);
			continue;
		}
		if (wl_display_read_events(c->display) ||
		    wl_display_dispatch_pending(c->display) < 0)
			die("lost the compositor");
	}
}

static uint32_t picture_crc(const struct capture *c, struct shm_picture *p)
{
	uint32_t crc = 0;
	int32_t y, x;

	for (y = 0; y < c->height; y++) {
		uint32_t *row = (uint32_t *)((char *)p->map + y * p->stride);

		/* weston's ARGB8888 from writeback is opaque; X reads 0xff */
		for (x = 0; x < c->width; x++)
			row[x] |= 0xff000000;
		crc = pp_crc32(crc, row, c->width * 4);
	}
	return crc;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wl-capture [--source writeback|framebuffer] [--png PATH] [--timeout-ms N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "png", required_argument, NULL, 'p' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	uint32_t source = WESTON_CAPTURE_V1_SOURCE_WRITEBACK;
	const char *source_name = "writeback", *png = NULL;
	struct capture c = { .state = CAPTURE_WAITING };
	struct wl_registry *registry;
	struct shm_picture p;
	long long deadline;
	long timeout = 30000;
	int opt, tries;
	char *end;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "writeback"))
				source = WESTON_CAPTURE_V1_SOURCE_WRITEBACK;
			else if (!strcmp(optarg, "framebuffer"))
				source = WESTON_CAPTURE_V1_SOURCE_FRAMEBUFFER;
			else
				usage();
			source_name = optarg;
			break;
		case 'p':
			png = optarg;
			break;
		case 't':
			errno = 0;
			timeout = strtol(optarg, &end, 10);
			if (errno || *end || timeout <= 0)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	deadline = now_ms() + timeout;

	c.display = wl_display_connect(NULL);
	if (!c.display)
		die("no Wayland display (WAYLAND_DISPLAY, XDG_RUNTIME_DIR)");
	registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	wl_display_roundtrip(c.display);
	if (!c.shm || !c.output)
		die("the compositor has no wl_shm or no output");
	if (!c.factory)
		die("the compositor has no weston_capture_v1");

	c.source = weston_capture_v1_create(c.factory, c.output, source);
	weston_capture_source_v1_add_listener(c.source, &source_listener, &c);
	wl_display_roundtrip(c.display);

	for (tries = 0; ; tries++) {
		/* an unavailable source names no format; capture says why */
		if (!c.have_format || !c.have_size) {
			c.format = DRM_FORMAT_XRGB8888;
			c.width = 1;
			c.height = 1;
		}
		picture_create(&c, &p);
		c.state = CAPTURE_WAITING;
		weston_capture_source_v1_capture(c.source, p.wl);
		wait_capture(&c, deadline);
		if (c.state != CAPTURE_RETRY)
			break;
		picture_destroy(&p);
		if (tries == MAX_RETRIES)
			die("weston kept asking to retry");
	}
	if (c.state == CAPTURE_FAILED) {
		fprintf(stderr, "wl-capture: capture failed: %s\n", c.reason);
		return 1;
	}

	printf("captured source=%s width=%d height=%d format=%.4s crc=0x%08x\n",
	       source_name, c.width, c.height, (const char *)&c.format,
	       picture_crc(&c, &p));
	fflush(stdout);
	if (png && pp_png_write_xrgb(png, p.map, c.width, c.height, p.stride))
		die("writing the PNG failed");

	picture_destroy(&p);
	weston_capture_source_v1_destroy(c.source);
	weston_capture_v1_destroy(c.factory);
	wl_output_destroy(c.output);
	wl_shm_destroy(c.shm);
	wl_registry_destroy(registry);
	wl_display_disconnect(c.display);
	return 0;
}

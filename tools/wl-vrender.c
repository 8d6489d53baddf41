// SPDX-License-Identifier: GPL-2.0
/*
 * wl-vrender - a Wayland client that renders on vrender and hands its
 * frames to the compositor as dma-bufs (zwp_linux_dmabuf_v1)
 *
 *   wl-vrender [--device SPEC] [--frames N] [--buffers N] [--hold]
 *              [--modifier linear|implicit]
 *
 * The window is fullscreen: through zwp_fullscreen_shell_v1 where the
 * compositor has it (weston --shell=fullscreen-shell.so), at the size of the
 * first output's current mode; else as an xdg_toplevel asking for
 * fullscreen, at the size of the compositor's first configure.  Each frame
 * is vrender's PATTERN test image keyed by the frame number, rendered by a
 * vrender job into one of N buffers (BO_CREATE
 * on the render node, exported with drmPrimeHandleToFD) and committed once
 * the job is done.  After the last frame has been presented (its frame
 * callback fired) it prints one line for the test that drives it:
 *
 *   shown frame=F width=W height=H crc=0xC ino=I
 *
 * C is the CRC-32 (zlib's) of the frame's pixels as vrender's CHECKSUM
 * command computed it from the buffer, and I the inode of the buffer's
 * dma-buf, which names the buffer in any process that holds it.  With
 * --hold it then keeps the window up until its stdin ends or it gets
 * SIGTERM; it exits 0 if every step worked.
 *
 * --device takes a path, a driver name or NAME:N (default: vrender).
 * --modifier picks how the buffers' layout is named to the compositor:
 * DRM_FORMAT_MOD_LINEAR, or DRM_FORMAT_MOD_INVALID (the layout is
 * implicit, linear for vrender).  By default: LINEAR if the compositor
 * lists it for XRGB8888, else INVALID.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <wayland-client.h>
#include <xf86drm.h>

#include "fullscreen-shell-unstable-v1-client-protocol.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#include "libprimepair.h"
#include "vrender.h"

#define MAX_BUFFERS	4
#define JOB_TIMEOUT_NS	(10 * 1000000000LL)

struct buffer {
	uint32_t handle;
	int dmabuf;
	ino_t ino;
	struct wl_buffer *wl;
	bool busy;		/* the compositor holds it */
};

struct client {
	int render;
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct xdg_wm_base *wm_base;
	struct zwp_linux_dmabuf_v1 *dmabuf;
	struct zwp_fullscreen_shell_v1 *fullscreen;
	struct wl_output *output;
	struct wl_surface *surface;
	struct xdg_surface *xdg_surface;
	struct xdg_toplevel *toplevel;

	bool linear, implicit;	/* XRGB8888 modifiers the compositor takes */
	const char *modifier;	/* --modifier, or NULL */
	bool configured, closed, frame_done;
	int32_t width, height;
	uint32_t pitch;

	uint32_t result;	/* a 4 KiB BO that receives CHECKSUM results */
	uint32_t *result_map;

	int nbuf;
	struct buffer buf[MAX_BUFFERS];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "wl-vrender: %s: %s\n", what, strerror(err));
	exit(1);
}

/* A failed dispatch: say what the compositor objected to, if it did */
static void dispatch(struct client *c)
{
	const struct wl_interface *iface;
	uint32_t id, code;

	if (wl_display_dispatch(c->display) >= 0)
		return;
	if (wl_display_get_error(c->display) == EPROTO) {
		code = wl_display_get_protocol_error(c->display, &iface, &id);
		fprintf(stderr, "wl-vrender: protocol error %u on %s@%u\n",
			code, iface ? iface->name : "?", id);
		exit(1);
	}
	die("wl_display_dispatch", errno);
}

/* ---- globals ------------------------------------------------------------- */

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *dmabuf,
			  uint32_t format)
{
}

static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *dmabuf,
			    uint32_t format, uint32_t hi, uint32_t lo)
{
	struct client *c = data;
	uint64_t modifier = (uint64_t)hi << 32 | lo;

	if (format != DRM_FORMAT_XRGB8888)
		return;
	if (modifier == DRM_FORMAT_MOD_LINEAR)
		c->linear = true;
	else if (modifier == DRM_FORMAT_MOD_INVALID)
		c->implicit = true;
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = {
	.format = dmabuf_format,
	.modifier = dmabuf_modifier,
};

static void wm_base_ping(void *data, struct xdg_wm_base *wm_base,
			 uint32_t serial)
{
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = wm_base_ping,
};

static void output_geometry(void *data, struct wl_output *output,
			    int32_t x, int32_t y, int32_t mm_width,
			    int32_t mm_height, int32_t subpixel,
			    const char *make, const char *model,
			    int32_t transform)
{
}

static void output_mode(void *data, struct wl_output *output,
			uint32_t flags, int32_t width, int32_t height,
			int32_t refresh)
{
	struct client *c = data;

	if (flags & WL_OUTPUT_MODE_CURRENT && c->fullscreen) {
		c->width = width;
		c->height = height;
	}
}

static void output_done(void *data, struct wl_output *output)
{
}

static void output_scale(void *data, struct wl_output *output,
			 int32_t factor)
{
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
};

static void registry_global(void *data, struct wl_registry *registry,
			    uint32_t name, const char *interface,
			    uint32_t version)
{
	struct client *c = data;

	if (!strcmp(interface, wl_compositor_interface.name)) {
		c->compositor = wl_registry_bind(registry, name,
						 &wl_compositor_interface, 1);
	} else if (!strcmp(interface, xdg_wm_base_interface.name)) {
		c->wm_base = wl_registry_bind(registry, name,
					      &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(c->wm_base, &wm_base_listener, c);
	} else if (!strcmp(interface,
			   zwp_fullscreen_shell_v1_interface.name)) {
		c->fullscreen = wl_registry_bind(registry, name,
						 &zwp_fullscreen_shell_v1_interface,
						 1);
	} else if (!strcmp(interface, wl_output_interface.name) &&
		   !c->output) {
		c->output = wl_registry_bind(registry, name,
					     &wl_output_interface, 2);
		wl_output_add_listener(c->output, &output_listener, c);
	} else if (!strcmp(interface, zwp_linux_dmabuf_v1_interface.name) &&
		   version >= 3) {
		c->dmabuf = wl_registry_bind(registry, name,
					     &zwp_linux_dmabuf_v1_interface, 3);
		zwp_linux_dmabuf_v1_add_listener(c->dmabuf, &dmabuf_listener,
						 c);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry,
				   uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

/* ---- the window ---------------------------------------------------------- */

static void xdg_surface_configure(void *data, struct xdg_surface *surface,
				  uint32_t serial)
{
	struct client *c = data;

	xdg_surface_ack_configure(surface, serial);
	c->configured = true;
}

static const struct xdg_surface_listener xdg_surface_listener = {
	.configure = xdg_surface_configure,
};

static void toplevel_configure(void *data, struct xdg_toplevel *toplevel,
			       int32_t width, int32_t height,
			       struct wl_array *states)
{
	struct client *c = data;

	/* The first size sticks: buffers are allocated for it. */
	if (!c->width && width > 0 && height > 0) {
		c->width = width;
		c->height = height;
	}
}

static void toplevel_close(void *data, struct xdg_toplevel *toplevel)
{
	struct client *c = data;

	c->closed = true;
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = toplevel_configure,
	.close = toplevel_close,
};

static void buffer_release(void *data, struct wl_buffer *wl)
{
	struct buffer *b = data;

	b->busy = false;
}

static const struct wl_buffer_listener buffer_listener = {
	.release = buffer_release,
};

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct client *c = data;

	c->frame_done = true;
	wl_callback_destroy(cb);
}

static const struct wl_callback_listener frame_listener = {
	.done = frame_done,
};

/* ---- buffers ------------------------------------------------------------- */

static void buffer_create(struct client *c, struct buffer *b)
{
	uint64_t modifier = c->linear ? DRM_FORMAT_MOD_LINEAR :
					DRM_FORMAT_MOD_INVALID;

	if (c->modifier)
		modifier = strcmp(c->modifier, "linear") ?
			   DRM_FORMAT_MOD_INVALID : DRM_FORMAT_MOD_LINEAR;
	struct zwp_linux_buffer_params_v1 *params;
	struct stat st;
	int ret;

	ret = vrender_bo_create(c->render, (uint64_t)c->pitch * c->height, 0,
				&b->handle);
	if (ret)
		die("BO_CREATE", -ret);
	if (drmPrimeHandleToFD(c->render, b->handle, DRM_CLOEXEC | DRM_RDWR,
			       &b->dmabuf))
		die("drmPrimeHandleToFD", errno);
	if (fstat(b->dmabuf, &st))
		die("fstat of the dma-buf", errno);
	b->ino = st.st_ino;

	params = zwp_linux_dmabuf_v1_create_params(c->dmabuf);
	zwp_linux_buffer_params_v1_add(params, b->dmabuf, 0, 0, c->pitch,
				       modifier >> 32, modifier & 0xffffffff);
	b->wl = zwp_linux_buffer_params_v1_create_immed(params, c->width,
							c->height,
							DRM_FORMAT_XRGB8888,
							0);
	zwp_linux_buffer_params_v1_destroy(params);
	wl_buffer_add_listener(b->wl, &buffer_listener, b);
}

static void buffer_destroy(struct client *c, struct buffer *b)
{
	wl_buffer_destroy(b->wl);
	close(b->dmabuf);
	drmCloseBufferHandle(c->render, b->handle);
}

/*
 * Render frame @frame into @b with one vrender job, and checksum it in the
 * same job: returns the CRC the engine computed of the finished picture.
 */
static uint32_t render(struct client *c, struct buffer *b, uint32_t frame)
{
	struct drm_vrender_cmd cmds[2] = {
		{
			.op = VRENDER_CMD_PATTERN,
			.dst_handle = b->handle,
			.dst_pitch = c->pitch,
			.width = c->width,
			.height = c->height,
			.value = frame,
		}, {
			.op = VRENDER_CMD_CHECKSUM,
			.dst_handle = c->result,
			.src_handle = b->handle,
			.src_pitch = c->pitch,
			.width = c->width,
			.height = c->height,
		},
	};
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)cmds,
		.cmd_count = 2,
	};
	int ret;

	ret = vrender_submit(c->render, &submit);
	if (ret)
		die("SUBMIT", -ret);
	ret = vrender_bo_wait(c->render, c->result,
			      vrender_now_ns() + JOB_TIMEOUT_NS);
	if (ret)
		die("BO_WAIT", -ret);
	return c->result_map[0];
}

static struct buffer *idle_buffer(struct client *c)
{
	int i;

	for (;;) {
		for (i = 0; i < c->nbuf; i++)
			if (!c->buf[i].busy)
				return &c->buf[i];
		dispatch(c);
	}
}

/* Commit @b and wait until the compositor has presented it */
static void show(struct client *c, struct buffer *b)
{
	struct wl_callback *cb = wl_surface_frame(c->surface);

	wl_callback_add_listener(cb, &frame_listener, c);
	c->frame_done = false;
	b->busy = true;
	wl_surface_attach(c->surface, b->wl, 0, 0);
	wl_surface_damage(c->surface, 0, 0, c->width, c->height);
	wl_surface_commit(c->surface);
	while (!c->frame_done && !c->closed)
		dispatch(c);
}

/* Keep the window up until stdin ends, a signal, or the window is closed */
static void hold(struct client *c)
{
	struct pollfd pfd[2] = {
		{ .fd = wl_display_get_fd(c->display), .events = POLLIN },
		{ .fd = 0, .events = POLLIN },
	};

	while (!stop && !c->closed) {
		wl_display_flush(c->display);
		if (poll(pfd, 2, 200) < 0 && errno != EINTR)
			die("poll", errno);
		if (pfd[1].revents)
			break;
		if (pfd[0].revents & POLLIN)
			dispatch(c);
	}
}

static void window_fullscreen_shell(struct client *c)
{
	if (!c->output)
		die("zwp_fullscreen_shell_v1 without a wl_output", ENOTSUP);
	zwp_fullscreen_shell_v1_present_surface(c->fullscreen, c->surface,
						ZWP_FULLSCREEN_SHELL_V1_PRESENT_METHOD_DEFAULT,
						c->output);
}

static void window_xdg(struct client *c)
{
	c->xdg_surface = xdg_wm_base_get_xdg_surface(c->wm_base, c->surface);
	xdg_surface_add_listener(c->xdg_surface, &xdg_surface_listener, c);
	c->toplevel = xdg_surface_get_toplevel(c->xdg_surface);
	xdg_toplevel_add_listener(c->toplevel, &toplevel_listener, c);
	xdg_toplevel_set_title(c->toplevel, "wl-vrender");
	xdg_toplevel_set_fullscreen(c->toplevel, NULL);
	wl_surface_commit(c->surface);
	while (!c->configured)
		dispatch(c);
	if (!c->width) {	/* the compositor leaves the size to us */
		c->width = 640;
		c->height = 480;
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wl-vrender [--device SPEC] [--frames N] [--buffers N] [--hold]\n"
		"                  [--modifier linear|implicit]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "hold", no_argument, NULL, 'H' },
		{ "modifier", required_argument, NULL, 'm' },
		{ }
	};
	const char *device = NULL;
	unsigned int frames = 10, frame;
	struct client c = { .nbuf = 3 };
	struct wl_registry *registry;
	struct buffer *b = NULL;
	bool keep = false;
	uint32_t crc = 0;
	void *map;
	int opt, i, ret;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			device = optarg;
			break;
		case 'f':
			frames = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			c.nbuf = atoi(optarg);
			break;
		case 'H':
			keep = true;
			break;
		case 'm':
			if (strcmp(optarg, "linear") && strcmp(optarg, "implicit"))
				usage();
			c.modifier = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !frames || c.nbuf < 1 || c.nbuf > MAX_BUFFERS)
		usage();
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);

	c.render = pp_open_device(device, PP_RENDER_DRIVER, true);
	if (c.render < 0)
		die(device ? device : PP_RENDER_DRIVER, errno);
	if (!vrender_is_vrender(c.render))
		die("not a vrender node", ENODEV);
	ret = vrender_bo_create(c.render, 4096, 0, &c.result);
	if (!ret)
		ret = vrender_bo_mmap(c.render, c.result, 4096, PROT_READ,
				      &map);
	if (ret)
		die("result buffer", -ret);
	c.result_map = map;

	c.display = wl_display_connect(NULL);
	if (!c.display)
		die("wl_display_connect", errno ? errno : ENOENT);
	registry = wl_display_get_registry(c.display);
	wl_registry_add_listener(registry, &registry_listener, &c);
	/* globals, then the events the new bindings sent (dma-buf formats) */
	wl_display_roundtrip(c.display);
	wl_display_roundtrip(c.display);
	if (!c.compositor || !(c.fullscreen || c.wm_base) || !c.dmabuf)
		die("compositor lacks wl_compositor, a shell or zwp_linux_dmabuf_v1 v3",
		    ENOTSUP);
	if (!c.linear && !c.implicit && !c.modifier)
		die("no linear XRGB8888 in zwp_linux_dmabuf_v1", ENOTSUP);

	c.surface = wl_compositor_create_surface(c.compositor);
	if (c.fullscreen)
		window_fullscreen_shell(&c);
	else
		window_xdg(&c);
	if (c.width <= 0 || c.height <= 0)
		die("no size for the window", EINVAL);
	c.pitch = c.width * 4;

	for (i = 0; i < c.nbuf; i++)
		buffer_create(&c, &c.buf[i]);

	for (frame = 0; frame < frames && !stop && !c.closed; frame++) {
		b = idle_buffer(&c);
		crc = render(&c, b, frame);
		show(&c, b);
	}
	if (stop || c.closed || !b)
		die("interrupted before the last frame", EINTR);

	printf("shown frame=%u width=%d height=%d crc=0x%08x ino=%lu\n",
	       frames - 1, c.width, c.height, crc, (unsigned long)b->ino);
	fflush(stdout);
	if (keep)
		hold(&c);

	for (i = 0; i < c.nbuf; i++)
		buffer_destroy(&c, &c.buf[i]);
	if (c.toplevel) {
		xdg_toplevel_destroy(c.toplevel);
		xdg_surface_destroy(c.xdg_surface);
	}
	wl_surface_destroy(c.surface);
	zwp_linux_dmabuf_v1_destroy(c.dmabuf);
	if (c.wm_base)
		xdg_wm_base_destroy(c.wm_base);
	if (c.fullscreen)
		zwp_fullscreen_shell_v1_release(c.fullscreen);
	if (c.output)
		wl_output_destroy(c.output);
	wl_compositor_destroy(c.compositor);
	wl_registry_destroy(registry);
	wl_display_roundtrip(c.display);
	wl_display_disconnect(c.display);
	munmap(c.result_map, 4096);
	close(c.render);
	return 0;
}

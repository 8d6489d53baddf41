// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline - render on vrender, scan out on vdisplay, no copies, no CPU
 * waits
 *
 * N scanout buffers are allocated on vdisplay (dumb), exported, and
 * imported into vrender.  At each vblank the next frame is rendered by
 * vrender (PATTERN keyed by the frame number, and a FILL square that
 * moves) and the flip is committed at once: vdisplay waits for vrender's
 * fence itself, through the buffer's reservation object (implicit sync),
 * or through IN_FENCE_FD (--explicit).  With --reverse the buffers come
 * from vrender and vdisplay imports them.  With --nv12 the scanout
 * buffers are NV12 (one dumb buffer each, the Y plane then the CbCr
 * plane), which vrender draws in YUV and vdisplay converts back to RGB.
 *
 *   pipeline [--display SPEC] [--render SPEC] [--frames N] [--buffers N]
 *            [--explicit] [--reverse | --nv12] [--camera]
 *            [--width W --height H]
 *            [--capture DIR [--every N]]
 *
 * SPEC names a device: a path ("/dev/dri/card0"), a driver name
 * ("vdisplay") or a driver name and index ("vrender:1"); by default the
 * first vdisplay card and the first vrender render node.
 *
 * With --camera the frames come from vivid, the kernel's virtual camera,
 * capturing with V4L2_MEMORY_DMABUF straight into the scanout buffers.
 *
 * Prints frames shown, vblanks missed, render-done to flip-done latency
 * (median, p99) and the zero-copy proof: the pages vrender's engine used
 * are the pages of the buffers vdisplay scans out, and no other buffer
 * exists.  With --capture, every N-th frame is also written by vdisplay's
 * writeback connector and saved as DIR/frame-NNNN.png.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libprimepair.h"
#include "vrender.h"

#define MAX_BUFFERS	8

struct buffer {
	uint32_t display_handle;	/* handle on vdisplay */
	uint32_t render_handle;		/* handle on vrender */
	uint32_t fb;
	int busy;			/* queued or on screen */
	int dmabuf;			/* exported fd, kept for the camera */
};

struct pipeline {
	int display, render;
	uint32_t width, height, pitch;
	uint64_t size;
	int nbuf;
	bool explicit_sync, reverse, camera, nv12;
	const char *display_spec, *render_spec;	/* --display, --render */
	int video;			/* vivid capture node */
	int64_t capture_ns[MAX_BUFFERS];
	struct buffer buf[MAX_BUFFERS];

	uint32_t crtc, conn, plane, mode_blob;
	uint32_t wb_conn, wb_handle, wb_fb;	/* writeback, if capturing */
	uint64_t wb_size;
	const char *capture_dir;
	unsigned int capture_every, captured;
	int wb_fence;				/* out-fence of a capture */
	uint32_t wb_frame;
	drmModeModeInfo mode;
	uint32_t prop_fb, prop_in_fence, prop_crtc_id, prop_active,
		 prop_mode_id, prop_conn_crtc;

	uint32_t frame;
	int pending;			/* buffer of the commit in flight */
	int shown;			/* buffer on screen */
	int fence[MAX_BUFFERS];		/* sync_file of the job per buffer */
	int64_t *latency;
	unsigned int nlatency, shown_frames, missed;
	uint32_t last_seq;
};

__attribute__((noreturn, format(printf, 1, 2)))
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("pipeline: ", stderr);
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

/* A libdrm call returned @ret (errno set if not 0) */
static void check_drm(int ret, const char *what)
{
	if (ret)
		die("%s: %s", what, strerror(errno));
}

static uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name)
{
	uint32_t id = pp_prop_id(fd, obj, type, name);

	if (!id)
		die("object %u has no property %s", obj, name);
	return id;
}

static void setup_writeback(struct pipeline *p, drmModeRes *res)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint32_t pitch;

	check_drm(drmSetClientCap(p->display,
				  DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1),
		  "writeback connectors cap");
	res = drmModeGetResources(p->display);
	if (!res)
		die("KMS resources: %s", strerror(errno));
	for (int i = 0; i < res->count_connectors && !p->wb_conn; i++) {
		drmModeConnector *c = drmModeGetConnector(p->display,
							  res->connectors[i]);

		if (c && c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			p->wb_conn = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	if (!p->wb_conn)
		die("the display has no writeback connector for --capture");

	check_drm(drmModeCreateDumbBuffer(p->display, p->width, p->height,
					  32, 0, &p->wb_handle, &pitch,
					  &p->wb_size), "writeback buffer");
	handles[0] = p->wb_handle;
	pitches[0] = pitch;
	check_drm(drmModeAddFB2(p->display, p->width, p->height,
				DRM_FORMAT_XRGB8888, handles, pitches,
				offsets, &p->wb_fb, 0), "writeback framebuffer");
	p->wb_fence = -1;
}

static void save_png(struct pipeline *p, const char *path)
{
	uint64_t off;
	void *map;
	int ret;

	check_drm(drmModeMapDumbBuffer(p->display, p->wb_handle, &off),
		  "mapping the writeback buffer");
	map = mmap(NULL, p->wb_size, PROT_READ, MAP_SHARED, p->display, off);
	if (map == MAP_FAILED)
		die("mapping the writeback buffer: %s", strerror(errno));
	ret = pp_png_write_xrgb(path, map, p->width, p->height, p->width * 4);
	if (ret)
		die("cannot write %s: %s", path, strerror(-ret));
	munmap(map, p->wb_size);
}

/* A capture commit finished: its frame is in the writeback buffer */
static void finish_capture(struct pipeline *p)
{
	char path[512];

	if (p->wb_fence < 0)
		return;
	check(pp_sync_file_wait(p->wb_fence, 5000), "writeback out-fence");
	close(p->wb_fence);
	p->wb_fence = -1;
	snprintf(path, sizeof(path), "%s/frame-%04u.png", p->capture_dir,
		 p->wb_frame);
	save_png(p, path);
	p->captured++;
}

static void setup_kms(struct pipeline *p)
{
	drmModeRes *res;
	drmModeConnector *conn;
	drmModePlaneRes *planes;

	check_drm(drmSetClientCap(p->display, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1),
		  "universal planes cap");
	check_drm(drmSetClientCap(p->display, DRM_CLIENT_CAP_ATOMIC, 1),
		  "atomic cap (is the display a KMS device?)");
	res = drmModeGetResources(p->display);
	if (!res || !res->count_crtcs || !res->count_connectors)
		die("the display has no CRTC or no connector");
	p->crtc = res->crtcs[0];
	conn = drmModeGetConnector(p->display, res->connectors[0]);
	if (!conn || !conn->count_modes)
		die("the display's first connector has no mode");
	p->conn = conn->connector_id;
	p->mode = conn->modes[0];
	for (int i = 0; i < conn->count_modes; i++)
		if (conn->modes[i].hdisplay == p->width &&
		    conn->modes[i].vdisplay == p->height)
			p->mode = conn->modes[i];
	p->width = p->mode.hdisplay;
	p->height = p->mode.vdisplay;
	drmModeFreeConnector(conn);

	planes = drmModeGetPlaneResources(p->display);
	if (!planes)
		die("plane resources: %s", strerror(errno));
	for (uint32_t i = 0; i < planes->count_planes && !p->plane; i++) {
		drmModePlane *pl = drmModeGetPlane(p->display, planes->planes[i]);
		drmModeObjectProperties *props =
			drmModeObjectGetProperties(p->display, pl->plane_id,
						   DRM_MODE_OBJECT_PLANE);

		for (uint32_t j = 0; j < props->count_props; j++) {
			drmModePropertyRes *pr =
				drmModeGetProperty(p->display, props->props[j]);

			if (!strcmp(pr->name, "type") &&
			    props->prop_values[j] == DRM_PLANE_TYPE_PRIMARY &&
			    (pl->possible_crtcs & 1))
				p->plane = pl->plane_id;
			drmModeFreeProperty(pr);
		}
		drmModeFreeObjectProperties(props);
		drmModeFreePlane(pl);
	}
	drmModeFreePlaneResources(planes);
	drmModeFreeResources(res);
	if (!p->plane)
		die("no primary plane for the first CRTC");

	p->prop_fb = prop_id(p->display, p->plane, DRM_MODE_OBJECT_PLANE, "FB_ID");
	p->prop_in_fence = prop_id(p->display, p->plane, DRM_MODE_OBJECT_PLANE,
				   "IN_FENCE_FD");
	p->prop_crtc_id = prop_id(p->display, p->plane, DRM_MODE_OBJECT_PLANE,
				  "CRTC_ID");
	p->prop_active = prop_id(p->display, p->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE");
	p->prop_mode_id = prop_id(p->display, p->crtc, DRM_MODE_OBJECT_CRTC,
				  "MODE_ID");
	p->prop_conn_crtc = prop_id(p->display, p->conn,
				    DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	check_drm(drmModeCreatePropertyBlob(p->display, &p->mode,
					    sizeof(p->mode), &p->mode_blob),
		  "mode blob");
}

/* Add "@name = @value" of object @obj to @req */
static void add(struct pipeline *p, drmModeAtomicReq *req, uint32_t obj,
		uint32_t type, const char *name, uint64_t value)
{
	int ret = pp_atomic_add(p->display, req, obj, type, name, value);

	if (ret)
		die("property %s of object %u: %s", name, obj, strerror(-ret));
}

static void add_plane(struct pipeline *p, drmModeAtomicReq *req, int b,
		      int in_fence)
{
	uint32_t pl = p->plane;

	drmModeAtomicAddProperty(req, pl, p->prop_fb, p->buf[b].fb);
	drmModeAtomicAddProperty(req, pl, p->prop_crtc_id, p->crtc);
	add(p, req, pl, DRM_MODE_OBJECT_PLANE, "SRC_W", (uint64_t)p->width << 16);
	add(p, req, pl, DRM_MODE_OBJECT_PLANE, "SRC_H", (uint64_t)p->height << 16);
	add(p, req, pl, DRM_MODE_OBJECT_PLANE, "CRTC_W", p->width);
	add(p, req, pl, DRM_MODE_OBJECT_PLANE, "CRTC_H", p->height);
	if (in_fence >= 0)
		drmModeAtomicAddProperty(req, pl, p->prop_in_fence, in_fence);
}

static void alloc_buffers(struct pipeline *p)
{
	for (int i = 0; i < p->nbuf; i++) {
		struct buffer *b = &p->buf[i];
		uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };

		b->dmabuf = -1;
		if (!p->reverse) {
			/* NV12: rows of a byte per pixel, h of Y, h / 2 of CbCr */
			check_drm(drmModeCreateDumbBuffer(p->display, p->width,
							  p->nv12 ? p->height * 3 / 2 :
							  p->height,
							  p->nv12 ? 8 : 32, 0,
							  &b->display_handle,
							  &p->pitch, &p->size),
				  "scanout buffer");
			if (p->camera)
				check_drm(drmPrimeHandleToFD(p->display,
							     b->display_handle,
							     DRM_CLOEXEC | DRM_RDWR,
							     &b->dmabuf),
					  "exporting a scanout buffer");
			else
				check(pp_prime_share(p->display,
						     b->display_handle,
						     p->render,
						     &b->render_handle, NULL),
				      "sharing a scanout buffer with vrender");
		} else {
			p->pitch = p->width * 4;
			p->size = (uint64_t)p->pitch * p->height;
			check(vrender_bo_create(p->render, p->size, 0,
						&b->render_handle),
			      "vrender buffer");
			check(pp_prime_share(p->render, b->render_handle,
					     p->display, &b->display_handle,
					     NULL),
			      "sharing a vrender buffer with the display");
		}
		handles[0] = b->display_handle;
		pitches[0] = p->pitch;
		if (p->nv12) {
			handles[1] = b->display_handle;
			pitches[1] = p->pitch;
			offsets[1] = p->pitch * p->height;
		}
		check_drm(drmModeAddFB2(p->display, p->width, p->height,
					p->nv12 ? DRM_FORMAT_NV12 :
					DRM_FORMAT_XRGB8888, handles, pitches,
					offsets, &b->fb, 0),
			  "framebuffer");
	}
}

/* Render frame p->frame into buffer @b; returns the job's sync_file */
static int render_frame(struct pipeline *p, int b)
{
	uint32_t h = p->buf[b].render_handle;
	/* even, as NV12 takes 2x2 blocks only */
	uint32_t sq = p->height / 4 & ~1u;
	uint32_t x = (p->frame * 8) % (p->width - sq);
	uint32_t y = (p->height / 2 - sq / 2) & ~1u;
	struct drm_vrender_cmd cmds[2] = {
		pp_vrender_pattern(h, p->pitch, p->width, p->height, p->frame),
		pp_vrender_fill(h, 0, p->pitch, x, y, sq, sq, 0xffffffff),
	};
	int fence = -1;

	for (int i = 0; p->nv12 && i < 2; i++) {
		/* The same frame in YUV: the CbCr plane follows the Y plane */
		cmds[i].flags = VRENDER_CMD_FORMAT_NV12;
		cmds[i].src_offset = (uint64_t)p->pitch * p->height;
		cmds[i].src_pitch = p->pitch;
	}
	check(pp_vrender_submit(p->render, cmds, 2,
				VRENDER_SUBMIT_OUT_FENCE_FD, &fence),
	      "vrender job");
	return fence;
}

/* When the job behind @fence signalled, CLOCK_MONOTONIC ns; waits for it */
static int64_t fence_time(int fence)
{
	int64_t t = 0;
	int status = 0;

	check(pp_sync_file_wait(fence, 10000), "waiting for vrender's fence");
	check(pp_sync_file_info(fence, &status, &t), "vrender's fence");
	if (status != 1)
		die("vrender's job failed: %s", strerror(-status));
	return t;
}

static void commit(struct pipeline *p, int b, int fence, bool modeset)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t flags = DRM_MODE_PAGE_FLIP_EVENT;

	if (!req)
		die("out of memory");

	if (modeset) {
		drmModeAtomicAddProperty(req, p->conn, p->prop_conn_crtc, p->crtc);
		drmModeAtomicAddProperty(req, p->crtc, p->prop_mode_id,
					 p->mode_blob);
		drmModeAtomicAddProperty(req, p->crtc, p->prop_active, 1);
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	} else {
		flags |= DRM_MODE_ATOMIC_NONBLOCK;
	}
	add_plane(p, req, b, p->explicit_sync ? fence : -1);
	if (p->capture_dir && p->frame % p->capture_every == 0) {
		const uint32_t t = DRM_MODE_OBJECT_CONNECTOR;

		add(p, req, p->wb_conn, t, "CRTC_ID", p->crtc);
		add(p, req, p->wb_conn, t, "WRITEBACK_FB_ID", p->wb_fb);
		add(p, req, p->wb_conn, t, "WRITEBACK_OUT_FENCE_PTR",
		    (uintptr_t)&p->wb_fence);
		p->wb_frame = p->frame;
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	}
	check_drm(drmModeAtomicCommit(p->display, req, flags,
				      (void *)(intptr_t)b), "atomic commit");
	drmModeAtomicFree(req);
	p->pending = b;
	p->buf[b].busy = 1;
}

static struct pipeline *the_pipeline;

static void flip_done(int fd, unsigned int seq, unsigned int sec,
		      unsigned int usec, void *data)
{
	struct pipeline *p = the_pipeline;
	int64_t t = (int64_t)sec * 1000000000 + (int64_t)usec * 1000;
	int b = (int)(intptr_t)data;

	(void)fd;
	if (b != p->pending)
		die("flip of buffer %d completed, %d was pending", b, p->pending);
	if (p->shown_frames && seq > p->last_seq + 1)
		p->missed += seq - p->last_seq - 1;
	p->last_seq = seq;
	if (p->shown >= 0)
		p->buf[p->shown].busy = 0;
	p->shown = p->pending;
	p->pending = -1;
	finish_capture(p);
	if (p->camera) {
		/* from the camera's capture timestamp */
		p->latency[p->nlatency++] = t - p->capture_ns[b];
	} else {
		/* the job signalled before the flip completed: no wait here */
		p->latency[p->nlatency++] = t - fence_time(p->fence[b]);
		close(p->fence[b]);
		p->fence[b] = -1;
	}
	p->shown_frames++;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void camera_open(struct pipeline *p)
{
	struct v4l2_pix_format pix;
	struct v4l2_requestbuffers req = {
		.count = p->nbuf,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};

	p->video = pp_vivid_open(p->width, p->height, &pix);
	if (p->video < 0 && errno == ENODEV)
		die("no vivid capture node (modprobe vivid)");
	if (p->video < 0 && errno == EOPNOTSUPP)
		die("vivid does not capture %ux%u XBGR32", p->width, p->height);
	if (p->video < 0)
		die("setting vivid's format: %s", strerror(errno));
	if (pix.bytesperline != p->pitch)
		die("vivid's pitch %u is not the buffers' %u", pix.bytesperline,
		    p->pitch);
	check(pp_v4l2_ioctl(p->video, VIDIOC_REQBUFS, &req), "VIDIOC_REQBUFS");
	if (req.count != (uint32_t)p->nbuf)
		die("vivid took %u buffers, not %d", req.count, p->nbuf);
}

static void camera_queue(struct pipeline *p, int b)
{
	struct v4l2_buffer buf = {
		.index = b,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
		.length = p->size,
	};

	buf.m.fd = p->buf[b].dmabuf;
	check(pp_v4l2_ioctl(p->video, VIDIOC_QBUF, &buf), "VIDIOC_QBUF");
	p->buf[b].busy = 1;
}

/* The next captured frame: its buffer, its capture time */
static int camera_dequeue(struct pipeline *p)
{
	struct v4l2_buffer buf = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	struct pollfd pfd = { .fd = p->video, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		die("no frame from vivid in 10 s");
	check(pp_v4l2_ioctl(p->video, VIDIOC_DQBUF, &buf), "VIDIOC_DQBUF");
	/* vivid's own timestamps follow its virtual clock: take ours */
	p->capture_ns[buf.index] = pp_now_ns();
	return buf.index;
}

/*
 * Every scanout buffer is in the camera's hands, attached (dma-contig
 * allocator) or vmapped (vmalloc allocator); no other buffer exists.
 */
static void camera_zero_copy_proof(struct pipeline *p)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");
	int own = 0, attached = 0;

	if (!f)
		die("cannot read primebuf's buffer list: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned int att, maps, vmaps;

		if (line[0] == '#' || strstr(line, " import ") ||
		    sscanf(line, "%*u %*u %*s %*s %u %u %u", &att, &maps,
			   &vmaps) != 3)
			continue;
		own++;
		attached += att > 0 || vmaps > 0;
	}
	fclose(f);
	own -= !!p->capture_dir;	/* the writeback target */
	printf("zero-copy: %d buffers exist, vivid holds %d/%d scanout buffers (attached or vmapped)\n",
	       own, attached, p->nbuf);
	if (own != p->nbuf || attached != p->nbuf)
		die("zero-copy proof failed");
}

/* Compare primebuf's listing with what vrender mapped */
static void zero_copy_proof(struct pipeline *p)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");
	int own = 0, matched = 0;

	if (!f)
		die("cannot read primebuf's buffer list: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long id, phys;
		char placement[16], driver[16];
		size_t size;

		if (line[0] == '#' ||
		    sscanf(line, "%llu %zu %15s %15s %*u %*u %*u %*u %llx",
			   &id, &size, placement, driver, &phys) != 5)
			continue;
		if (!strcmp(placement, "import"))
			continue;
		own++;
		for (int i = 0; i < p->nbuf; i++) {
			struct drm_vrender_segment seg;
			struct drm_vrender_bo_info info = {
				.handle = p->buf[i].render_handle,
				.segs_ptr = (uintptr_t)&seg,
				.segs_count = 1,
			};

			check(vrender_bo_info(p->render, &info), "BO_INFO");
			if (info.nsegs && seg.addr == phys)
				matched++;
		}
	}
	fclose(f);
	own -= !!p->capture_dir;	/* the writeback target */
	printf("zero-copy: %d buffers exist, %d/%d scanout buffers are the pages vrender rendered into\n",
	       own, matched, p->nbuf);
	if (own != p->nbuf || matched != p->nbuf)
		die("zero-copy proof failed");
}

static const char pipeline_help[] =
	"  --display SPEC   KMS device: path, driver name or NAME:N (default vdisplay)\n"
	"  --render SPEC    render node: path, driver name or NAME:N (default vrender)\n"
	"  --frames N       frames to show (default 120)\n"
	"  --buffers N      scanout buffers, 2 to 8 (default 3)\n"
	"  --width W --height H   mode to use (default 640x480)\n"
	"  --explicit       pass vrender's fence as IN_FENCE_FD\n"
	"  --reverse        buffers from vrender, imported by vdisplay\n"
	"  --nv12           NV12 scanout buffers, drawn in YUV by vrender\n"
	"  --camera         frames from vivid (V4L2 DMABUF import)\n"
	"  --capture DIR    save frames written back by vdisplay as PNG\n"
	"  --every N        capture every N-th frame (default 30)\n"
	"  --help, -h       this text\n";

static struct pipeline pl = {
	.width = 640, .height = 480, .nbuf = 3, .pending = -1, .shown = -1,
	.capture_every = 30, .wb_fence = -1,
};

static unsigned int frames = 120;

__attribute__((noreturn))
static void usage(int status)
{
	fprintf(status ? stderr : stdout, "Usage: pipeline [OPTIONS]\n%s",
		pipeline_help);
	exit(status);
}

static void parse_args(int argc, char **argv, struct pipeline *p)
{
	static const struct option opts[] = {
		{ "display", required_argument, NULL, 'D' },
		{ "render", required_argument, NULL, 'R' },
		{ "frames", required_argument, NULL, 'f' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "width", required_argument, NULL, 'W' },
		{ "height", required_argument, NULL, 'H' },
		{ "explicit", no_argument, NULL, 'e' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "nv12", no_argument, NULL, 'y' },
		{ "capture", required_argument, NULL, 'c' },
		{ "camera", no_argument, NULL, 'v' },
		{ "every", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'D':
			p->display_spec = optarg;
			break;
		case 'R':
			p->render_spec = optarg;
			break;
		case 'f':
			frames = atoi(optarg);
			break;
		case 'b':
			p->nbuf = atoi(optarg);
			break;
		case 'W':
			p->width = atoi(optarg);
			break;
		case 'H':
			p->height = atoi(optarg);
			break;
		case 'e':
			p->explicit_sync = true;
			break;
		case 'r':
			p->reverse = true;
			break;
		case 'y':
			p->nv12 = true;
			break;
		case 'c':
			p->capture_dir = optarg;
			break;
		case 'v':
			p->camera = true;
			break;
		case 'n':
			p->capture_every = atoi(optarg);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (p->nv12 && (p->reverse || p->camera || p->width % 2 || p->height % 2))
		die("--nv12 takes neither --reverse nor --camera, and an even size");
	if (p->nbuf < 2 || p->nbuf > MAX_BUFFERS)
		die("--buffers must be 2 to %d", MAX_BUFFERS);
	if (!frames || (p->capture_dir && !p->capture_every))
		die("--frames and --every must be at least 1");
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
	struct pipeline *p = &pl;
	drmEventContext ev = {
		.version = 2,
		.page_flip_handler = flip_done,
	};
	int fence, next;
	int64_t t0;

	parse_args(argc, argv, p);
	p->latency = calloc(frames + 1, sizeof(*p->latency));
	if (!p->latency)
		die("out of memory");

	p->display = open_or_die(p->display_spec, PP_DISPLAY_DRIVER, false);
	p->render = open_or_die(p->render_spec, PP_RENDER_DRIVER, true);
	setup_kms(p);
	if (p->capture_dir)
		setup_writeback(p, NULL);
	alloc_buffers(p);

	the_pipeline = p;

	/* first frame: modeset, blocking */
	if (p->camera) {
		enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

		camera_open(p);
		for (int i = 0; i < p->nbuf; i++)
			camera_queue(p, i);
		check(pp_v4l2_ioctl(p->video, VIDIOC_STREAMON, &type),
		      "VIDIOC_STREAMON");
		next = camera_dequeue(p);
		commit(p, next, -1, true);
	} else {
		fence = render_frame(p, 0);
		p->fence[0] = fence;
		commit(p, 0, fence, true);
	}
	t0 = pp_now_ns();

	while (p->shown_frames < frames) {
		struct pollfd pfd = { .fd = p->display, .events = POLLIN };

		if (poll(&pfd, 1, 5000) != 1)
			die("no flip completed in 5 s");
		check_drm(drmHandleEvent(p->display, &ev), "drmHandleEvent");
		if (p->shown_frames >= frames)
			break;

		if (p->camera) {
			/* give the camera back what left the screen */
			for (int i = 0; i < p->nbuf; i++)
				if (!p->buf[i].busy)
					camera_queue(p, i);
			p->frame++;
			next = camera_dequeue(p);
			commit(p, next, -1, false);
			continue;
		}

		/* next free buffer in turn: render into it, flip right away */
		next = p->shown;
		do {
			next = (next + 1) % p->nbuf;
		} while (p->buf[next].busy && next != p->shown);
		if (p->buf[next].busy)
			die("no free buffer");
		p->frame++;
		fence = render_frame(p, next);
		p->fence[next] = fence;
		commit(p, next, fence, false);
	}

	qsort(p->latency, p->nlatency, sizeof(*p->latency), cmp64);
	printf("pipeline: %s, %s sync, %dx%d@%d, %d buffers\n",
	       p->camera ? "vivid camera -> vdisplay buffers" :
	       p->reverse ? "vrender buffers -> vdisplay" :
			    "vdisplay buffers -> vrender",
	       p->explicit_sync ? "explicit (IN_FENCE_FD)" : "implicit (dma_resv)",
	       p->width, p->height, p->mode.vrefresh, p->nbuf);
	printf("frames shown: %u in %.2f s (%.1f fps), vblanks missed: %u\n",
	       p->shown_frames, (pp_now_ns() - t0) / 1e9,
	       p->shown_frames * 1e9 / (pp_now_ns() - t0), p->missed);
	printf("%s to flip-done: median %.2f ms, p99 %.2f ms\n",
	       p->camera ? "capture" : "render-done",
	       p->latency[p->nlatency / 2] / 1e6,
	       p->latency[p->nlatency * 99 / 100] / 1e6);
	if (p->capture_dir)
		printf("captured %u frames to %s\n", p->captured, p->capture_dir);
	if (p->camera) {
		enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		struct v4l2_requestbuffers req = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_DMABUF,
		};

		camera_zero_copy_proof(p);
		check(pp_v4l2_ioctl(p->video, VIDIOC_STREAMOFF, &type),
		      "VIDIOC_STREAMOFF");
		check(pp_v4l2_ioctl(p->video, VIDIOC_REQBUFS, &req),
		      "VIDIOC_REQBUFS");
		close(p->video);
		for (int i = 0; i < p->nbuf; i++)
			close(p->buf[i].dmabuf);
	} else {
		zero_copy_proof(p);
	}

	for (int i = 0; i < p->nbuf; i++) {
		drmModeRmFB(p->display, p->buf[i].fb);
		drmCloseBufferHandle(p->render, p->buf[i].render_handle);
		drmCloseBufferHandle(p->display, p->buf[i].display_handle);
	}
	if (p->capture_dir) {
		drmModeRmFB(p->display, p->wb_fb);
		drmModeDestroyDumbBuffer(p->display, p->wb_handle);
	}
	close(p->render);
	close(p->display);
	free(p->latency);
	return 0;
}

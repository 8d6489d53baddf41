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
 * from vrender and vdisplay imports them.
 *
 *   pipeline [--display SPEC] [--render SPEC] [--frames N] [--buffers N]
 *            [--explicit] [--reverse] [--camera] [--width W --height H]
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <png.h>
#include <linux/sync_file.h>
#include <linux/videodev2.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_v4l2.h"
#include "primepair_vrender.h"

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
	bool explicit_sync, reverse, camera;
	struct primepair_device_specs specs;	/* --display, --render */
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

static uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;

	igt_assert(props);
	for (uint32_t i = 0; i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name))
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	igt_assert_f(id, "no property %s\n", name);
	return id;
}

static void setup_writeback(struct pipeline *p, drmModeRes *res)
{
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint32_t pitch;

	igt_assert_eq(drmSetClientCap(p->display,
				      DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0);
	res = drmModeGetResources(p->display);
	for (int i = 0; i < res->count_connectors && !p->wb_conn; i++) {
		drmModeConnector *c = drmModeGetConnector(p->display,
							  res->connectors[i]);

		if (c && c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK)
			p->wb_conn = c->connector_id;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	igt_require_f(p->wb_conn, "vdisplay has no writeback connector\n");

	igt_assert_eq(drmModeCreateDumbBuffer(p->display, p->width, p->height,
					      32, 0, &p->wb_handle, &pitch,
					      &p->wb_size), 0);
	handles[0] = p->wb_handle;
	pitches[0] = pitch;
	igt_assert_eq(drmModeAddFB2(p->display, p->width, p->height,
				    DRM_FORMAT_XRGB8888, handles, pitches,
				    offsets, &p->wb_fb, 0), 0);
	p->wb_fence = -1;
}

static void save_png(struct pipeline *p, const char *path)
{
	uint64_t off;
	uint32_t *map;
	png_structp png;
	png_infop info;
	uint8_t *row;
	FILE *f;

	igt_assert_eq(drmModeMapDumbBuffer(p->display, p->wb_handle, &off), 0);
	map = mmap(NULL, p->wb_size, PROT_READ, MAP_SHARED, p->display, off);
	igt_assert(map != MAP_FAILED);
	f = fopen(path, "wb");
	igt_assert_f(f, "cannot write %s\n", path);
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	info = png_create_info_struct(png);
	igt_assert(png && info && !setjmp(png_jmpbuf(png)));
	png_init_io(png, f);
	png_set_IHDR(png, info, p->width, p->height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	row = malloc(p->width * 3);
	for (uint32_t y = 0; y < p->height; y++) {
		const uint32_t *src = map + (size_t)y * p->width;

		for (uint32_t x = 0; x < p->width; x++) {
			row[x * 3 + 0] = src[x] >> 16;
			row[x * 3 + 1] = src[x] >> 8;
			row[x * 3 + 2] = src[x];
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	free(row);
	fclose(f);
	munmap(map, p->wb_size);
}

/* A capture commit finished: its frame is in the writeback buffer */
static void finish_capture(struct pipeline *p)
{
	struct pollfd pfd = { .fd = p->wb_fence, .events = POLLIN };
	char path[512];

	if (p->wb_fence < 0)
		return;
	igt_assert_eq(poll(&pfd, 1, 5000), 1);
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

	igt_assert_eq(drmSetClientCap(p->display, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
	igt_assert_eq(drmSetClientCap(p->display, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	res = drmModeGetResources(p->display);
	igt_assert(res && res->count_crtcs && res->count_connectors);
	p->crtc = res->crtcs[0];
	conn = drmModeGetConnector(p->display, res->connectors[0]);
	igt_assert(conn && conn->count_modes);
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
	igt_assert(planes);
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
	igt_assert(p->plane);

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
	igt_assert_eq(drmModeCreatePropertyBlob(p->display, &p->mode,
						sizeof(p->mode),
						&p->mode_blob), 0);
}

static void add_plane(struct pipeline *p, drmModeAtomicReq *req, int b,
		      int in_fence)
{
	uint32_t pl = p->plane;

	drmModeAtomicAddProperty(req, pl, p->prop_fb, p->buf[b].fb);
	drmModeAtomicAddProperty(req, pl, p->prop_crtc_id, p->crtc);
	drmModeAtomicAddProperty(req, pl, prop_id(p->display, pl,
		DRM_MODE_OBJECT_PLANE, "SRC_W"), (uint64_t)p->width << 16);
	drmModeAtomicAddProperty(req, pl, prop_id(p->display, pl,
		DRM_MODE_OBJECT_PLANE, "SRC_H"), (uint64_t)p->height << 16);
	drmModeAtomicAddProperty(req, pl, prop_id(p->display, pl,
		DRM_MODE_OBJECT_PLANE, "CRTC_W"), p->width);
	drmModeAtomicAddProperty(req, pl, prop_id(p->display, pl,
		DRM_MODE_OBJECT_PLANE, "CRTC_H"), p->height);
	if (in_fence >= 0)
		drmModeAtomicAddProperty(req, pl, p->prop_in_fence, in_fence);
}

static void alloc_buffers(struct pipeline *p)
{
	for (int i = 0; i < p->nbuf; i++) {
		struct buffer *b = &p->buf[i];
		uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
		int fd;

		if (!p->reverse) {
			igt_assert_eq(drmModeCreateDumbBuffer(p->display, p->width,
							      p->height, 32, 0,
							      &b->display_handle,
							      &p->pitch, &p->size), 0);
			igt_assert_eq(drmPrimeHandleToFD(p->display,
							 b->display_handle,
							 DRM_CLOEXEC | DRM_RDWR,
							 &fd), 0);
			if (p->camera) {
				b->dmabuf = fd;
				fd = -1;
			} else {
				igt_assert_eq(drmPrimeFDToHandle(p->render, fd,
								 &b->render_handle),
					      0);
			}
		} else {
			p->pitch = p->width * 4;
			p->size = (uint64_t)p->pitch * p->height;
			b->render_handle = primepair_vrender_bo_create(p->render,
								       p->size);
			igt_assert_eq(drmPrimeHandleToFD(p->render,
							 b->render_handle,
							 DRM_CLOEXEC, &fd), 0);
			igt_assert_eq(drmPrimeFDToHandle(p->display, fd,
							 &b->display_handle), 0);
		}
		if (fd >= 0)
			close(fd);
		handles[0] = b->display_handle;
		pitches[0] = p->pitch;
		igt_assert_eq(drmModeAddFB2(p->display, p->width, p->height,
					    DRM_FORMAT_XRGB8888, handles, pitches,
					    offsets, &b->fb, 0), 0);
	}
}

/* Render frame p->frame into buffer @b; returns the job's sync_file */
static int render_frame(struct pipeline *p, int b)
{
	uint32_t h = p->buf[b].render_handle;
	uint32_t sq = p->height / 4;
	uint32_t x = (p->frame * 8) % (p->width - sq);
	struct drm_vrender_cmd cmds[2] = {
		{
			.op = VRENDER_CMD_PATTERN,
			.dst_handle = h,
			.dst_pitch = p->pitch,
			.width = p->width,
			.height = p->height,
			.value = p->frame,
		},
		primepair_vrender_fill(h, 0, p->pitch, x, p->height / 2 - sq / 2,
				       sq, sq, 0xffffffff),
	};
	struct drm_vrender_submit s = {
		.cmds = (uintptr_t)cmds,
		.cmd_count = 2,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(p->render, &s), 0);
	return s.out_fence_fd;
}

/* When the job behind @fence signalled, CLOCK_MONOTONIC ns; waits for it */
static int64_t fence_time(int fence)
{
	struct sync_fence_info fi = { 0 };
	struct sync_file_info info = {
		.num_fences = 1,
		.sync_fence_info = (uintptr_t)&fi,
	};
	struct pollfd pfd = { .fd = fence, .events = POLLIN };

	igt_assert_eq(poll(&pfd, 1, 10000), 1);
	igt_assert_eq(ioctl(fence, SYNC_IOC_FILE_INFO, &info), 0);
	igt_assert_eq(fi.status, 1);
	return fi.timestamp_ns;
}

static void commit(struct pipeline *p, int b, int fence, bool modeset)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t flags = DRM_MODE_PAGE_FLIP_EVENT;

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
		drmModeAtomicAddProperty(req, p->wb_conn,
			prop_id(p->display, p->wb_conn,
				DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID"), p->crtc);
		drmModeAtomicAddProperty(req, p->wb_conn,
			prop_id(p->display, p->wb_conn,
				DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID"),
			p->wb_fb);
		drmModeAtomicAddProperty(req, p->wb_conn,
			prop_id(p->display, p->wb_conn,
				DRM_MODE_OBJECT_CONNECTOR,
				"WRITEBACK_OUT_FENCE_PTR"),
			(uintptr_t)&p->wb_fence);
		p->wb_frame = p->frame;
		flags |= DRM_MODE_ATOMIC_ALLOW_MODESET;
	}
	igt_assert_eq(drmModeAtomicCommit(p->display, req, flags,
					  (void *)(intptr_t)b), 0);
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
	igt_assert_eq(b, p->pending);
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

	p->video = primepair_vivid_open(p->width, p->height, &pix);
	igt_assert_eq_u32(pix.bytesperline, p->pitch);
	igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_REQBUFS, &req), 0);
	igt_assert_eq_u32(req.count, p->nbuf);
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
	igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_QBUF, &buf), 0);
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

	igt_assert_eq(poll(&pfd, 1, 10000), 1);
	igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_DQBUF, &buf), 0);
	/* vivid's own timestamps follow its virtual clock: take ours */
	p->capture_ns[buf.index] = primepair_now_ns();
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

	igt_assert(f);
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
	own -= p->capture_dir != NULL;	/* the writeback target */
	printf("zero-copy: %d buffers exist, vivid holds %d/%d scanout buffers (attached or vmapped)\n",
	       own, attached, p->nbuf);
	igt_assert_eq(own, p->nbuf);
	igt_assert_eq(attached, p->nbuf);
}

/* Compare primebuf's listing with what vrender mapped */
static void zero_copy_proof(struct pipeline *p)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");
	int own = 0, matched = 0;

	igt_assert(f);
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

			igt_assert_eq(__primepair_vrender_bo_info(p->render, &info), 0);
			if (info.nsegs && seg.addr == phys)
				matched++;
		}
	}
	fclose(f);
	own -= p->capture_dir != NULL;	/* the writeback target */
	printf("zero-copy: %d buffers exist, %d/%d scanout buffers are the pages vrender rendered into\n",
	       own, matched, p->nbuf);
	igt_assert_eq(own, p->nbuf);
	igt_assert_eq(matched, p->nbuf);
}

static const struct option pipeline_opts[] = {
	PRIMEPAIR_DISPLAY_OPTION,
	PRIMEPAIR_RENDER_OPTION,
	{ "frames", required_argument, NULL, 'f' },
	{ "buffers", required_argument, NULL, 'b' },
	{ "width", required_argument, NULL, 'W' },
	{ "height", required_argument, NULL, 'H' },
	{ "explicit", no_argument, NULL, 'e' },
	{ "reverse", no_argument, NULL, 'r' },
	{ "capture", required_argument, NULL, 'c' },
	{ "camera", no_argument, NULL, 'v' },
	{ "every", required_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

static const char pipeline_help[] =
	PRIMEPAIR_DISPLAY_HELP
	PRIMEPAIR_RENDER_HELP
	"  --frames N       frames to show (default 120)\n"
	"  --buffers N      scanout buffers, 2 to 8 (default 3)\n"
	"  --width W --height H   mode to use (default 640x480)\n"
	"  --explicit       pass vrender's fence as IN_FENCE_FD\n"
	"  --reverse        buffers from vrender, imported by vdisplay\n"
	"  --camera         frames from vivid (V4L2 DMABUF import)\n"
	"  --capture DIR    save frames written back by vdisplay as PNG\n"
	"  --every N        capture every N-th frame (default 30)\n";

static struct pipeline pl = {
	.width = 640, .height = 480, .nbuf = 3, .pending = -1, .shown = -1,
	.capture_every = 30, .wb_fence = -1,
};
static unsigned int frames = 120;

static int pipeline_opt(int opt, int opt_index, void *data)
{
	struct pipeline *p = data;

	switch (opt) {
	case 'f': frames = atoi(optarg); break;
	case 'b': p->nbuf = atoi(optarg); break;
	case 'W': p->width = atoi(optarg); break;
	case 'H': p->height = atoi(optarg); break;
	case 'e': p->explicit_sync = true; break;
	case 'r': p->reverse = true; break;
	case 'c': p->capture_dir = optarg; break;
	case 'v': p->camera = true; break;
	case 'n': p->capture_every = atoi(optarg); break;
	default: return primepair_device_opt(opt, opt_index, &p->specs);
	}
	return IGT_OPT_HANDLER_SUCCESS;
}

igt_simple_main_args("", pipeline_opts, pipeline_help, pipeline_opt, &pl)
{
	struct pipeline *p = &pl;
	drmEventContext ev = {
		.version = 2,
		.page_flip_handler = flip_done,
	};
	int fence, next;
	int64_t t0;

	igt_assert(p->nbuf >= 2 && p->nbuf <= MAX_BUFFERS);
	p->latency = calloc(frames + 1, sizeof(*p->latency));

	p->display = primepair_require_device(p->specs.display,
					      PRIMEPAIR_DISPLAY_DRIVER, false);
	p->render = primepair_require_device(p->specs.render,
					     PRIMEPAIR_RENDER_DRIVER, true);
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
		igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_STREAMON,
						   &type), 0);
		next = camera_dequeue(p);
		commit(p, next, -1, true);
	} else {
		fence = render_frame(p, 0);
		p->fence[0] = fence;
		commit(p, 0, fence, true);
	}
	t0 = primepair_now_ns();

	while (p->shown_frames < frames) {
		struct pollfd pfd = { .fd = p->display, .events = POLLIN };

		igt_assert_eq(poll(&pfd, 1, 5000), 1);
		igt_assert_eq(drmHandleEvent(p->display, &ev), 0);
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
		igt_assert(!p->buf[next].busy);
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
	       p->shown_frames, (primepair_now_ns() - t0) / 1e9,
	       p->shown_frames * 1e9 / (primepair_now_ns() - t0), p->missed);
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
		igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_STREAMOFF,
						   &type), 0);
		igt_assert_eq(primepair_v4l2_ioctl(p->video, VIDIOC_REQBUFS,
						   &req), 0);
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
}

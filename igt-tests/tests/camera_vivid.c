// SPDX-License-Identifier: GPL-2.0
/*
 * camera_vivid - the original dma-buf use case: a camera captures straight
 * into the buffers the display scans out, with no copy
 *
 * vivid, the kernel's virtual camera, imports vdisplay's dumb buffers with
 * V4L2_MEMORY_DMABUF and fills them with its test pattern; the frames are
 * then scanned out.  With vivid's vmalloc allocator the importer vmaps the
 * buffer; with its dma-contig allocator it needs one contiguous DMA
 * segment, which primebuf provides when vdisplay runs with contiguous=1
 * (a display controller without an IOMMU) and cannot otherwise.  And the
 * other way round: vivid exports its own buffers, vrender and vdisplay
 * import them.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_v4l2.h"
#include "primepair_vrender.h"

#define WIDTH	640
#define HEIGHT	480
#define NBUF	3
#define FRAMES	6

struct cam {
	int video;
	uint32_t pitch;
	uint32_t sizeimage;
};

static void load_vivid(const char *params)
{
	char cmd[256];

	igt_require(getuid() == 0);
	igt_assert_eq(system("rmmod vivid 2>/dev/null; true"), 0);
	snprintf(cmd, sizeof(cmd), "modprobe vivid %s", params);
	igt_require_f(system(cmd) == 0, "vivid not available\n");
}

static void cam_open(struct cam *c, const char *vivid_params)
{
	struct v4l2_pix_format pix;

	load_vivid(vivid_params);
	c->video = primepair_vivid_open(WIDTH, HEIGHT, &pix);
	c->pitch = pix.bytesperline;
	c->sizeimage = pix.sizeimage;
	igt_assert_eq_u32(c->pitch, WIDTH * 4);
}

static void cam_close(struct cam *c)
{
	close(c->video);
	igt_assert_eq(system("rmmod vivid"), 0);
}

/* vivid's colour bars: the first line holds several distinct colours */
static int distinct_colours(const uint32_t *row, int n)
{
	uint32_t seen[16];
	int count = 0;

	for (int x = 0; x < n && count < 16; x++) {
		int j;

		for (j = 0; j < count; j++)
			if (seen[j] == (row[x] & 0xffffff))
				break;
		if (j == count)
			seen[count++] = row[x] & 0xffffff;
	}
	return count;
}

struct scanout {
	uint32_t crtc, conn, fb[NBUF];
	drmModeModeInfo mode;
};

static void scanout_setup(int display, struct scanout *s)
{
	drmModeRes *res = drmModeGetResources(display);
	drmModeConnector *conn;

	igt_assert(res && res->count_crtcs > 0 && res->count_connectors > 0);
	conn = drmModeGetConnector(display, res->connectors[0]);
	igt_assert(conn && conn->count_modes > 0);
	s->crtc = res->crtcs[0];
	s->conn = conn->connector_id;
	s->mode = conn->modes[0];
	for (int i = 0; i < conn->count_modes; i++)
		if (conn->modes[i].hdisplay == WIDTH &&
		    conn->modes[i].vdisplay == HEIGHT)
			s->mode = conn->modes[i];
	drmModeFreeConnector(conn);
	drmModeFreeResources(res);
}

/*
 * Capture FRAMES frames into NBUF vdisplay buffers and show each on the
 * CRTC.  Returns 0, or the errno of the first QBUF (the import) on failure.
 */
static int capture_into_vdisplay(struct cam *c, int display, bool show,
				 uint32_t *colours)
{
	struct v4l2_requestbuffers req = {
		.count = NBUF,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	uint32_t handles[NBUF], pitch;
	int fds[NBUF], ret = 0;
	enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	struct scanout s = { 0 };
	uint64_t size;

	igt_assert_eq(primepair_v4l2_ioctl(c->video, VIDIOC_REQBUFS, &req), 0);
	igt_assert_eq_u32(req.count, NBUF);
	if (show)
		scanout_setup(display, &s);

	for (int i = 0; i < NBUF; i++) {
		uint32_t bo_handles[4] = { 0 }, pitches[4] = { 0 };
		uint32_t offsets[4] = { 0 };

		igt_assert_eq(drmModeCreateDumbBuffer(display, WIDTH, HEIGHT,
						      32, 0, &handles[i],
						      &pitch, &size), 0);
		igt_assert_eq_u32(pitch, c->pitch);
		igt_assert_lte_u64(c->sizeimage, size);
		igt_assert_eq(drmPrimeHandleToFD(display, handles[i],
						 DRM_CLOEXEC | DRM_RDWR,
						 &fds[i]), 0);
		if (show) {
			bo_handles[0] = handles[i];
			pitches[0] = pitch;
			igt_assert_eq(drmModeAddFB2(display, WIDTH, HEIGHT,
						    DRM_FORMAT_XRGB8888,
						    bo_handles, pitches,
						    offsets, &s.fb[i], 0), 0);
		}
	}

	for (int i = 0; i < NBUF && !ret; i++) {
		struct v4l2_buffer buf = {
			.index = i,
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_DMABUF,
			.length = size,
		};

		buf.m.fd = fds[i];
		ret = primepair_v4l2_ioctl(c->video, VIDIOC_QBUF, &buf);
	}

	if (!ret) {
		igt_assert_eq(primepair_v4l2_ioctl(c->video, VIDIOC_STREAMON,
						   &type), 0);
		for (int n = 0; n < FRAMES; n++) {
			struct v4l2_buffer buf = {
				.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				.memory = V4L2_MEMORY_DMABUF,
			};
			struct pollfd pfd = { .fd = c->video, .events = POLLIN };
			uint64_t off;
			uint32_t *map;

			igt_assert_eq(poll(&pfd, 1, 10000), 1);
			igt_assert_eq(primepair_v4l2_ioctl(c->video,
							   VIDIOC_DQBUF, &buf),
				      0);
			igt_assert_eq_u32(buf.bytesused, c->sizeimage);

			/* what vivid wrote is in vdisplay's buffer */
			igt_assert_eq(drmModeMapDumbBuffer(display,
							   handles[buf.index],
							   &off), 0);
			map = mmap(NULL, size, PROT_READ, MAP_SHARED, display,
				   off);
			igt_assert(map != MAP_FAILED);
			*colours = distinct_colours(map, WIDTH);
			munmap(map, size);

			if (show)
				igt_assert_eq(drmModeSetCrtc(display, s.crtc,
							     s.fb[buf.index],
							     0, 0, &s.conn, 1,
							     &s.mode), 0);
			igt_assert_eq(primepair_v4l2_ioctl(c->video,
							   VIDIOC_QBUF, &buf),
				      0);
		}
		igt_assert_eq(primepair_v4l2_ioctl(c->video, VIDIOC_STREAMOFF,
						   &type), 0);
	}

	req.count = 0;
	igt_assert_eq(primepair_v4l2_ioctl(c->video, VIDIOC_REQBUFS, &req), 0);
	if (show)
		igt_assert_eq(drmModeSetCrtc(display, s.crtc, 0, 0, 0, NULL, 0,
					     NULL), 0);
	for (int i = 0; i < NBUF; i++) {
		if (show)
			drmModeRmFB(display, s.fb[i]);
		close(fds[i]);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, handles[i]), 0);
	}
	return ret;
}

igt_main
{
	struct cam c;

	igt_describe("vivid (vmalloc) captures into vdisplay's scanout buffers through DMABUF import; each frame is shown");
	igt_subtest("vmalloc-into-vdisplay") {
		uint32_t colours = 0;
		int display;

		cam_open(&c, "");
		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(capture_into_vdisplay(&c, display, true,
						    &colours), 0);
		igt_info("vivid's pattern: %u colours on the first line\n",
			 colours);
		igt_assert_lte(4, colours);
		close(display);
		cam_close(&c);
		primepair_assert_summary_zero();
	}

	igt_describe("vivid's dma-contig allocator needs one contiguous segment: QBUF fails with EFAULT on scattered buffers, and works when vdisplay runs with contiguous=1");
	igt_subtest("dma-contig-needs-contiguous") {
		uint32_t colours = 0;
		int display;

		cam_open(&c, "allocators=1");
		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(capture_into_vdisplay(&c, display, false,
						    &colours), -EFAULT);
		close(display);

		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "contiguous=1");
		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(capture_into_vdisplay(&c, display, true,
						    &colours), 0);
		igt_assert_lte(4, colours);
		close(display);
		cam_close(&c);

		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
		primepair_assert_summary_zero();
	}

	igt_describe("vivid exports its buffers (VIDIOC_EXPBUF); vrender checksums them as the CPU sees them, vdisplay makes framebuffers of them");
	igt_subtest("vivid-exports") {
		struct v4l2_requestbuffers req = {
			.count = 1,
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};
		struct v4l2_exportbuffer exp = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.index = 0,
			.flags = O_RDWR | O_CLOEXEC,
		};
		struct v4l2_buffer buf = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.memory = V4L2_MEMORY_MMAP,
		};
		enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		struct pollfd pfd;
		uint32_t imp, dimp, fb, crc;
		uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
		int render, display;
		void *map;

		cam_open(&c, "");
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_REQBUFS,
						   &req), 0);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_QUERYBUF,
						   &buf), 0);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_QBUF,
						   &buf), 0);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_STREAMON,
						   &type), 0);
		pfd.fd = c.video;
		pfd.events = POLLIN;
		igt_assert_eq(poll(&pfd, 1, 10000), 1);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_DQBUF,
						   &buf), 0);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_STREAMOFF,
						   &type), 0);
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_EXPBUF,
						   &exp), 0);

		map = mmap(NULL, buf.length, PROT_READ, MAP_SHARED, c.video,
			   buf.m.offset);
		igt_assert(map != MAP_FAILED);
		crc = primepair_crc32(0, map, c.sizeimage);
		igt_assert_lte(4, distinct_colours(map, WIDTH));
		munmap(map, buf.length);

		render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		igt_assert_eq(drmPrimeFDToHandle(render, exp.fd, &imp), 0);
		igt_assert_eq_u32(primepair_vrender_crc32(render, imp,
							  c.sizeimage), crc);

		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmPrimeFDToHandle(display, exp.fd, &dimp), 0);
		handles[0] = dimp;
		pitches[0] = c.pitch;
		igt_assert_eq(drmModeAddFB2(display, WIDTH, HEIGHT,
					    DRM_FORMAT_XRGB8888, handles,
					    pitches, offsets, &fb, 0), 0);
		drmModeRmFB(display, fb);

		igt_assert_eq(drmCloseBufferHandle(display, dimp), 0);
		igt_assert_eq(drmCloseBufferHandle(render, imp), 0);
		close(display);
		close(render);
		close(exp.fd);
		req.count = 0;
		igt_assert_eq(primepair_v4l2_ioctl(c.video, VIDIOC_REQBUFS,
						   &req), 0);
		cam_close(&c);
		primepair_assert_summary_zero();
	}
}

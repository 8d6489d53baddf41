// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_prime - scanout of buffers shared with vrender
 *
 * Both directions of PRIME between the display and the render device,
 * each checked on screen through writeback: a vdisplay dumb buffer filled
 * by vrender, and a vrender buffer scanned out by vdisplay.  With
 * vdisplay contiguous=1 a vrender buffer already in scattered pages is
 * migrated to contiguous memory when vdisplay maps it for scanout, and
 * the picture survives the move.
 *
 * MAP_DUMB works on imported handles too: the CPU mapping of the
 * vdisplay fd is the exporter's own dma-buf mmap, so it shows what vrender
 * (or vgem, or a udmabuf) holds, writes through it reach the exporter,
 * and the mapping keeps the buffer alive after every handle is closed.
 */

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay scanout of buffers rendered by vrender");

#define FILL_A	0xff336699u
#define FILL_B	0xffcc2211u

static void check_solid_halves(struct primepair_kms *kms, struct primepair_output *o,
			       uint32_t left, uint32_t right)
{
	uint32_t w = o->mode.hdisplay, h = o->mode.vdisplay, x, y;
	uint32_t *ref = malloc((size_t)w * h * 4);
	struct primepair_fb wb;

	igt_assert(ref);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			ref[y * w + x] = x < w / 2 ? left : right;
	primepair_fb_create(kms->fd, w, h, DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(kms, o, &wb);
	igt_assert_eq_u32(primepair_compare(&wb, ref, 0), 0);
	primepair_fb_destroy(kms->fd, &wb);
	free(ref);
}

/* Two FILLs, left and right half, by vrender into @handle */
static void render_colors(int render, uint32_t handle, uint32_t pitch,
			  uint32_t w, uint32_t h, uint32_t left, uint32_t right)
{
	struct drm_vrender_cmd cmds[2] = {
		primepair_vrender_fill(handle, 0, pitch, 0, 0, w / 2, h, left),
		primepair_vrender_fill(handle, 0, pitch, w / 2, 0, w - w / 2, h,
				       right),
	};

	primepair_vrender_submit(render, cmds, 2);
	primepair_vrender_bo_wait(render, handle, 5000000000ll);
}

static void render_halves(int render, uint32_t handle, uint32_t pitch,
			  uint32_t w, uint32_t h)
{
	render_colors(render, handle, pitch, w, h, FILL_A, FILL_B);
}

static void test_export_fill(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	uint32_t imported;
	struct primepair_fb fb;
	int render, dmabuf;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
		     DRM_FORMAT_XRGB8888, &fb);
	igt_assert_eq(drmPrimeHandleToFD(kms.fd, fb.handle,
					 DRM_CLOEXEC | DRM_RDWR, &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &imported), 0);
	close(dmabuf);

	render_halves(render, imported, fb.pitch, fb.width, fb.height);
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	check_solid_halves(&kms, o, FILL_A, FILL_B);

	/* Render again while on screen: the next frame shows it. */
	render_colors(render, imported, fb.pitch, fb.width, fb.height, FILL_B,
		      FILL_A);
	check_solid_halves(&kms, o, FILL_B, FILL_A);

	primepair_disable_all(&kms);
	drmCloseBufferHandle(render, imported);
	close(render);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

static double clamp255(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

/*
 * The pattern pixel (@x, @y) after an NV12 trip: its own luma and the
 * chroma of its 2x2 block's top-left pixel, in BT.601 limited range,
 * back to RGB, all in floating point.
 */
static uint32_t nv12_trip(uint32_t x, uint32_t y, uint32_t frame)
{
	uint32_t p = primepair_vrender_pattern_pixel(x, y, frame);
	uint32_t q = primepair_vrender_pattern_pixel(x & ~1u, y & ~1u, frame);
	double lp = 0.299 * ((p >> 16) & 0xff) + 0.587 * ((p >> 8) & 0xff) +
		    0.114 * (p & 0xff);
	double lq = 0.299 * ((q >> 16) & 0xff) + 0.587 * ((q >> 8) & 0xff) +
		    0.114 * (q & 0xff);
	/* Cb and Cr as the encoder leaves them, then decoded */
	double cb = ((q & 0xff) - lq) / 1.772, cr = (((q >> 16) & 0xff) - lq) / 1.402;
	double r = lp + 1.402 * cr, b = lp + 1.772 * cb;
	double g = (lp - 0.299 * r - 0.114 * b) / 0.587;

	return 0xff000000u | (uint32_t)(clamp255(r) + 0.5) << 16 |
	       (uint32_t)(clamp255(g) + 0.5) << 8 | (uint32_t)(clamp255(b) + 0.5);
}

/*
 * A YUV frame travels from render to display: vrender draws its PATTERN
 * into an NV12 framebuffer of vdisplay (one dumb buffer, Y then CbCr),
 * and the frame written back matches the pattern's RGB after the trip
 * through BT.601 limited range and 2x2 chroma subsampling.  Then an
 * XRGB16161616 framebuffer the same way, exactly.
 */
static void test_render_yuv_and_16bpc(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb = {}, wb;
	uint32_t w, h, pitch, imported, handles[4] = {}, pitches[4] = {};
	uint32_t offsets[4] = {}, *ref;
	uint64_t size;
	int render, dmabuf;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	igt_require(o->wb_connector_id);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	w = o->mode.hdisplay;
	h = o->mode.vdisplay;
	ref = malloc((size_t)w * h * 4);
	igt_assert(ref);
	primepair_fb_create(kms.fd, w, h, DRM_FORMAT_XRGB8888, &wb);

	for (int pass = 0; pass < 2; pass++) {
		bool nv12 = !pass;
		struct drm_vrender_cmd c = {
			.op = VRENDER_CMD_PATTERN,
			.width = w, .height = h,
			.value = 7,
		};

		/* NV12: 8-bit rows, h of Y then h / 2 of CbCr; else 64-bit */
		igt_assert_eq(drmModeCreateDumbBuffer(kms.fd, w, nv12 ? h * 3 / 2 : h,
						      nv12 ? 8 : 64, 0, &fb.handle,
						      &pitch, &size), 0);
		handles[0] = handles[1] = fb.handle;
		pitches[0] = pitches[1] = pitch;
		offsets[1] = nv12 ? pitch * h : 0;
		igt_assert_eq(drmModeAddFB2(kms.fd, w, h,
					    nv12 ? DRM_FORMAT_NV12 : DRM_FORMAT_XRGB16161616,
					    handles, pitches, offsets, &fb.fb_id,
					    0), 0);
		fb.width = w;
		fb.height = h;

		igt_assert_eq(drmPrimeHandleToFD(kms.fd, fb.handle,
						 DRM_CLOEXEC | DRM_RDWR, &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &imported), 0);
		close(dmabuf);
		for (uint32_t y = 0; y < h; y++)
			for (uint32_t x = 0; x < w; x++)
				ref[y * w + x] = nv12 ? nv12_trip(x, y, 7) :
					primepair_vrender_pattern_pixel(x, y, 7);
		c.dst_handle = imported;
		c.dst_pitch = pitch;
		if (nv12) {
			c.flags = VRENDER_CMD_FORMAT_NV12;
			c.src_offset = offsets[1];
			c.src_pitch = pitch;
		} else {
			c.flags = VRENDER_CMD_FORMAT_XRGB16161616;
		}
		primepair_vrender_submit(render, &c, 1);
		primepair_vrender_bo_wait(render, imported, 5000000000ll);

		igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
		primepair_writeback_capture(&kms, o, &wb);
		/* Two roundings on the NV12 trip; XRGB16161616 is exact. */
		igt_assert_eq_u32(primepair_compare(&wb, ref, nv12 ? 3 : 0), 0);

		primepair_disable_all(&kms);
		igt_assert_eq(drmModeRmFB(kms.fd, fb.fb_id), 0);
		igt_assert_eq(drmCloseBufferHandle(render, imported), 0);
		igt_assert_eq(drmModeDestroyDumbBuffer(kms.fd, fb.handle), 0);
	}

	free(ref);
	primepair_fb_destroy(kms.fd, &wb);
	close(render);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

struct vrender_fb {
	uint32_t handle;	/* on vrender */
	uint32_t imported;	/* on vdisplay */
	uint32_t fb_id;
	uint32_t pitch;
	uint64_t size;
};

static void vrender_fb_create(struct primepair_kms *kms, int render,
			      struct primepair_output *o, struct vrender_fb *v)
{
	uint32_t handles[4] = {}, pitches[4] = {}, offsets[4] = {};
	int dmabuf;

	v->pitch = o->mode.hdisplay * 4;
	v->size = (uint64_t)v->pitch * o->mode.vdisplay;
	v->handle = primepair_vrender_bo_create(render, v->size);
	render_halves(render, v->handle, v->pitch, o->mode.hdisplay,
		      o->mode.vdisplay);

	igt_assert_eq(drmPrimeHandleToFD(render, v->handle, DRM_CLOEXEC,
					 &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(kms->fd, dmabuf, &v->imported), 0);
	close(dmabuf);

	handles[0] = v->imported;
	pitches[0] = v->pitch;
	igt_assert_eq(drmModeAddFB2(kms->fd, o->mode.hdisplay,
				    o->mode.vdisplay, DRM_FORMAT_XRGB8888,
				    handles, pitches, offsets, &v->fb_id, 0), 0);
}

static void vrender_fb_destroy(struct primepair_kms *kms, int render,
			       struct vrender_fb *v)
{
	drmModeRmFB(kms->fd, v->fb_id);
	drmCloseBufferHandle(kms->fd, v->imported);
	drmCloseBufferHandle(render, v->handle);
}

static uint32_t vrender_placement(int render, uint32_t handle, uint32_t *nsegs)
{
	struct drm_vrender_bo_info info = { .handle = handle };

	igt_assert_eq(__primepair_vrender_bo_info(render, &info), 0);
	*nsegs = info.nsegs;
	return info.placement;
}

static void scanout_vrender(bool contiguous)
{
	uint64_t migrations = primepair_summary("migrations");
	struct primepair_fb scanout = {};
	struct vrender_fb v;
	struct primepair_kms kms;
	uint32_t nsegs;
	int render;

	primepair_kms_open(&kms);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	vrender_fb_create(&kms, render, &kms.outputs[0], &v);
	igt_assert_eq_u32(vrender_placement(render, v.handle, &nsegs),
			  VRENDER_PLACEMENT_PAGES);
	igt_assert_lt_u32(1, nsegs);

	scanout.fb_id = v.fb_id;
	igt_assert_eq(primepair_modeset(&kms, &kms.outputs[0], &scanout), 0);
	check_solid_halves(&kms, &kms.outputs[0], FILL_A, FILL_B);

	if (contiguous) {
		/* Moved once, into one block, when vdisplay mapped it */
		igt_assert_eq_u64(primepair_summary("migrations"),
				  migrations + 1);
		igt_assert_eq_u32(vrender_placement(render, v.handle, &nsegs),
				  VRENDER_PLACEMENT_CONTIG);
	} else {
		igt_assert_eq_u64(primepair_summary("migrations"), migrations);
		igt_assert_eq_u32(vrender_placement(render, v.handle, &nsegs),
				  VRENDER_PLACEMENT_PAGES);
	}

	/* vrender still renders into it, now while it is scanned out */
	render_colors(render, v.handle, v.pitch, kms.outputs[0].mode.hdisplay,
		      kms.outputs[0].mode.vdisplay, FILL_B, FILL_A);
	check_solid_halves(&kms, &kms.outputs[0], FILL_B, FILL_A);

	primepair_disable_all(&kms);
	vrender_fb_destroy(&kms, render, &v);
	close(render);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * Explicit sync: vrender's job fence (a sync_file) goes in as the
 * primary's IN_FENCE_FD, the commit's CRTC OUT_FENCE_PTR comes back and
 * signals when the frame is latched; the picture is the job's.
 */
static void test_fences(void)
{
	struct drm_vrender_cmd cmds[2];
	struct drm_vrender_submit submit = {};
	drmModeAtomicReqPtr req;
	struct primepair_output *o;
	struct pollfd pfd = { .events = POLLIN };
	struct primepair_kms kms;
	int32_t out_fence = -1;
	uint32_t imported;
	struct primepair_fb fb;
	int render, dmabuf;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
		     DRM_FORMAT_XRGB8888, &fb);
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);

	igt_assert_eq(drmPrimeHandleToFD(kms.fd, fb.handle, DRM_CLOEXEC,
					 &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &imported), 0);
	close(dmabuf);

	cmds[0] = primepair_vrender_fill(imported, 0, fb.pitch, 0, 0,
					 fb.width / 2, fb.height, FILL_B);
	cmds[1] = primepair_vrender_fill(imported, 0, fb.pitch, fb.width / 2,
					 0, fb.width - fb.width / 2, fb.height,
					 FILL_A);
	submit.cmds = (uintptr_t)cmds;
	submit.cmd_count = 2;
	submit.flags = VRENDER_SUBMIT_OUT_FENCE_FD;
	igt_assert_eq(__primepair_vrender_submit(render, &submit), 0);
	igt_assert_lte(0, submit.out_fence_fd);

	req = drmModeAtomicAlloc();
	primepair_add(kms.fd, req, o->primary, DRM_MODE_OBJECT_PLANE, "FB_ID", fb.fb_id);
	primepair_add(kms.fd, req, o->primary, DRM_MODE_OBJECT_PLANE, "IN_FENCE_FD",
	       submit.out_fence_fd);
	primepair_add(kms.fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "OUT_FENCE_PTR",
	       (uint64_t)(uintptr_t)&out_fence);
	igt_assert_eq(primepair_commit(kms.fd, req, DRM_MODE_ATOMIC_NONBLOCK), 0);
	drmModeAtomicFree(req);
	close(submit.out_fence_fd);

	igt_assert_lte(0, out_fence);
	pfd.fd = out_fence;
	igt_assert_eq(poll(&pfd, 1, 5000), 1);
	close(out_fence);
	check_solid_halves(&kms, o, FILL_B, FILL_A);

	primepair_disable_all(&kms);
	drmCloseBufferHandle(render, imported);
	close(render);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

#define MAP_W	640
#define MAP_H	480

/* MAP_DUMB on vdisplay's handle @handle, and mmap of the vdisplay fd */
static uint32_t *map_dumb(int display, uint32_t handle, size_t size)
{
	uint64_t offset;
	void *map;

	igt_assert_eq(drmModeMapDumbBuffer(display, handle, &offset), 0);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, display,
		   offset);
	igt_assert(map != MAP_FAILED);
	return map;
}

/* Some pixel values that differ from word to word and from @seed to @seed */
static void scribble(uint32_t *map, size_t size, uint32_t seed)
{
	for (size_t i = 0; i < size / 4; i++)
		map[i] = (uint32_t)i * 2654435761u ^ seed;
}

/*
 * vrender renders a PATTERN into its own buffer; vdisplay imports it and
 * maps the import with MAP_DUMB.  The mapping shows vrender's pixels, and
 * what the CPU writes there is what vrender's engine checksums and what
 * vrender's own mapping reads.
 */
static void test_map_dumb_vrender(void)
{
	const uint32_t pitch = MAP_W * 4;
	const size_t size = (size_t)pitch * MAP_H;
	struct drm_vrender_cmd pattern = {
		.op = VRENDER_CMD_PATTERN,
		.dst_pitch = pitch,
		.width = MAP_W,
		.height = MAP_H,
		.value = 7,
	};
	uint32_t bo, imported, crc, *map, *vmap;
	int display, render, dmabuf;

	display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	bo = primepair_vrender_bo_create(render, size);
	pattern.dst_handle = bo;
	primepair_vrender_submit(render, &pattern, 1);
	primepair_vrender_bo_wait(render, bo, 5000000000ll);

	igt_assert_eq(drmPrimeHandleToFD(render, bo, DRM_CLOEXEC | DRM_RDWR,
					 &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(display, dmabuf, &imported), 0);
	close(dmabuf);

	map = map_dumb(display, imported, size);
	for (uint32_t y = 0; y < MAP_H; y++)
		for (uint32_t x = 0; x < MAP_W; x++)
			igt_assert_f(map[y * MAP_W + x] ==
				     primepair_vrender_pattern_pixel(x, y, 7),
				     "pixel %u,%u: 0x%08x, vrender drew 0x%08x\n",
				     x, y, map[y * MAP_W + x],
				     primepair_vrender_pattern_pixel(x, y, 7));

	scribble(map, size, 0x5a5a5a5a);
	crc = primepair_crc32(0, map, size);
	igt_assert_eq_u32(primepair_vrender_crc32(render, bo, size), crc);
	vmap = primepair_vrender_bo_mmap(render, bo, size, PROT_READ);
	igt_assert(!memcmp(vmap, map, size));
	munmap(vmap, size);

	/*
	 * The mapping holds the dma-buf, and so vrender's buffer: with every
	 * handle and fd closed it is still there, the import is not.
	 */
	igt_assert_eq(drmCloseBufferHandle(display, imported), 0);
	igt_assert_eq(drmCloseBufferHandle(render, bo), 0);
	close(render);
	close(display);
	igt_assert_eq_u64(primepair_summary_settle("imports", 0), 0);
	igt_assert_eq_u64(primepair_summary("exports"), 1);
	igt_assert_eq_u64(primepair_summary("buffers"), 1);
	igt_assert_eq_u32(primepair_crc32(0, map, size), crc);

	munmap(map, size);
	primepair_summary_settle("buffers", 0);
	primepair_assert_summary_zero();
}

/*
 * A foreign exporter's dma-buf @dmabuf (consumed), which the exporter's
 * own CPU mapping @emap of @size bytes also shows: vdisplay imports it,
 * MAP_DUMB's mapping reads what the exporter holds, and what the CPU
 * writes through it the exporter sees, also once the handle is closed.
 */
static void check_foreign_map_dumb(int dmabuf, uint32_t *emap, size_t size)
{
	uint32_t imported, *map;
	int display;

	display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
	scribble(emap, size, 0x1234abcd);
	igt_assert_eq(drmPrimeFDToHandle(display, dmabuf, &imported), 0);
	close(dmabuf);
	igt_assert_eq_u64(primepair_summary("imports"), 1);

	map = map_dumb(display, imported, size);
	igt_assert(!memcmp(map, emap, size));
	scribble(map, size, 0xcafe0000);
	igt_assert(!memcmp(emap, map, size));

	igt_assert_eq(drmCloseBufferHandle(display, imported), 0);
	close(display);
	igt_assert_eq_u64(primepair_summary_settle("imports", 0), 0);
	scribble(map, size, 0x00c0ffee);
	igt_assert(!memcmp(emap, map, size));
	munmap(map, size);
	primepair_assert_summary_zero();
}

static void test_map_dumb_vgem(void)
{
	bool loaded = access("/sys/module/vgem", F_OK) == 0;
	uint32_t handle, pitch;
	uint64_t size, offset;
	int vgem, dmabuf;
	uint32_t *emap;

	igt_require_f(loaded || system("modprobe vgem 2>/dev/null") == 0,
		      "vgem not available\n");
	vgem = primepair_open_device(NULL, "vgem", false);
	igt_require_f(vgem >= 0, "no vgem card node\n");

	igt_assert_eq(drmModeCreateDumbBuffer(vgem, 256, 64, 32, 0, &handle,
					      &pitch, &size), 0);
	igt_assert_eq(drmModeMapDumbBuffer(vgem, handle, &offset), 0);
	emap = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem,
		    offset);
	igt_assert(emap != MAP_FAILED);
	igt_assert_eq(drmPrimeHandleToFD(vgem, handle, DRM_CLOEXEC | DRM_RDWR,
					 &dmabuf), 0);

	check_foreign_map_dumb(dmabuf, emap, size);

	munmap(emap, size);
	igt_assert_eq(drmModeDestroyDumbBuffer(vgem, handle), 0);
	close(vgem);
	/* the last dma-buf reference may go a moment after the munmap */
	for (int i = 0; !loaded && system("rmmod vgem 2>/dev/null"); i++) {
		igt_assert_f(i < 20, "vgem stays in use\n");
		usleep(100000);
	}
}

static void test_map_dumb_udmabuf(void)
{
	const size_t size = 64 * 4096;
	struct udmabuf_create create = {
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.size = size,
	};
	int dev, memfd, dmabuf;
	uint32_t *emap;

	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	igt_require_f(dev >= 0, "no /dev/udmabuf in this kernel\n");
	memfd = memfd_create("map-dumb", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	igt_assert_lte(0, memfd);
	igt_assert_eq(ftruncate(memfd, size), 0);
	igt_assert_eq(fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	create.memfd = memfd;
	dmabuf = ioctl(dev, UDMABUF_CREATE, &create);
	igt_assert_lte(0, dmabuf);
	close(dev);

	/* the memfd's own mapping: the same pages as the udmabuf */
	emap = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	igt_assert(emap != MAP_FAILED);
	check_foreign_map_dumb(dmabuf, emap, size);
	munmap(emap, size);
	close(memfd);
}

igt_main
{
	igt_subtest("dumb-export-vrender-fill")
		test_export_fill();
	igt_describe("vrender draws into NV12 and XRGB16161616 framebuffers of vdisplay; writeback shows the pattern");
	igt_subtest("render-nv12-and-16bpc")
		test_render_yuv_and_16bpc();
	igt_subtest("in-fence-out-fence")
		test_fences();
	igt_subtest("scanout-vrender-buffer")
		scanout_vrender(false);
	igt_describe("MAP_DUMB on vdisplay's import of a vrender buffer maps vrender's pages: the CPU reads what vrender rendered, vrender sees what the CPU wrote, and the mapping outlives every handle");
	igt_subtest("map-dumb-vrender-import")
		test_map_dumb_vrender();
	igt_describe("MAP_DUMB on vdisplay's import of a vgem buffer goes through vgem's dma-buf mmap");
	igt_subtest("map-dumb-vgem-import")
		test_map_dumb_vgem();
	igt_describe("MAP_DUMB on vdisplay's import of a udmabuf shows and writes the memfd's pages");
	igt_subtest("map-dumb-udmabuf-import")
		test_map_dumb_udmabuf();
	igt_subtest("contiguous-migrates-vrender-buffer") {
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "contiguous=1");
		scanout_vrender(true);
	}

	igt_fixture
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
}

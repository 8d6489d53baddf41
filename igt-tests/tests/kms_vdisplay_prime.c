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
 */

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

igt_main
{
	igt_subtest("dumb-export-vrender-fill")
		test_export_fill();
	igt_subtest("in-fence-out-fence")
		test_fences();
	igt_subtest("scanout-vrender-buffer")
		scanout_vrender(false);
	igt_subtest("contiguous-migrates-vrender-buffer") {
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "contiguous=1");
		scanout_vrender(true);
	}

	igt_fixture
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
}

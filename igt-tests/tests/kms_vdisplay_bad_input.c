// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_bad_input - what vdisplay and the DRM core refuse, and how
 *
 * Each case names the errno and where it comes from, on both kernels:
 * ADDFB2 (drm_framebuffer.c framebuffer_check(), drm_gem_framebuffer_
 * helper.c, vdisplay_fb_create()), atomic commits (drm_atomic_uapi.c,
 * drm_atomic.c, the helpers) and legacy page flips (drm_plane.c).
 */

#include <errno.h>
#include <string.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay's and DRM core's answers to bad input");

#define W 64
#define H 64

static int addfb(int fd, uint32_t handle, uint32_t w, uint32_t h,
		 uint32_t format, uint32_t pitch, const uint64_t *modifier,
		 uint32_t *fb_id)
{
	uint32_t handles[4] = { handle }, pitches[4] = { pitch };
	uint32_t offsets[4] = {};
	uint64_t mods[4] = { modifier ? *modifier : 0 };
	int ret;

	*fb_id = 0;
	ret = drmModeAddFB2WithModifiers(fd, w, h, format, handles, pitches,
					 offsets, modifier ? mods : NULL, fb_id,
					 modifier ? DRM_MODE_FB_MODIFIERS : 0);
	return ret ? -errno : 0;
}

static void test_addfb(struct primepair_kms *kms)
{
	const uint64_t linear = DRM_FORMAT_MOD_LINEAR;
	const uint64_t invalid = DRM_FORMAT_MOD_INVALID;
	const uint64_t x_tiled = I915_FORMAT_MOD_X_TILED;
	const uint64_t afbc = DRM_FORMAT_MOD_ARM_AFBC(AFBC_FORMAT_MOD_BLOCK_SIZE_16x16);
	struct primepair_fb fb;
	uint32_t id;

	primepair_fb_create(kms->fd, W, H, DRM_FORMAT_XRGB8888, &fb);

	/* Good ones, with and without a LINEAR modifier */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    fb.pitch, NULL, &id), 0);
	drmModeRmFB(kms->fd, id);
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_ARGB8888,
			    fb.pitch, &linear, &id), 0);
	drmModeRmFB(kms->fd, id);

	/* framebuffer_check(): pitch below width * cpp */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    W * 4 - 4, NULL, &id), -EINVAL);
	/* drm_gem_fb_init_with_funcs(): the object is too small */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H * 2, DRM_FORMAT_XRGB8888,
			    fb.pitch, NULL, &id), -EINVAL);
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    fb.pitch * 2, NULL, &id), -EINVAL);
	/* framebuffer_check(): a fourcc the core does not know */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, 0x20202020, fb.pitch,
			    NULL, &id), -EINVAL);
	/* vdisplay_fb_create(): known formats no plane scans out */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_BGRX8888,
			    fb.pitch, NULL, &id), -EINVAL);
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XBGR2101010,
			    fb.pitch, NULL, &id), -EINVAL);
	/* drm_gem_fb_init_with_funcs(): no such handle */
	igt_assert_eq(addfb(kms->fd, fb.handle + 1000, W, H,
			    DRM_FORMAT_XRGB8888, fb.pitch, NULL, &id), -ENOENT);
	/* framebuffer_check(): zero size */
	igt_assert_eq(addfb(kms->fd, fb.handle, 0, H, DRM_FORMAT_XRGB8888,
			    fb.pitch, NULL, &id), -EINVAL);
	/* Modifiers: only LINEAR, refused at ADDFB2 itself on both kernels */
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    fb.pitch, &invalid, &id), -EINVAL);
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    fb.pitch, &x_tiled, &id), -EINVAL);
	igt_assert_eq(addfb(kms->fd, fb.handle, W, H, DRM_FORMAT_XRGB8888,
			    fb.pitch, &afbc, &id), -EINVAL);

	primepair_fb_destroy(kms->fd, &fb);
}

/*
 * framebuffer_check(): sizes from mode_config's minimum, 10x10 as in
 * vkms, up.  IGT's cursor tests add 64x21 ARGB8888 framebuffers.
 */
static void test_addfb_small(struct primepair_kms *kms)
{
	static const struct { uint32_t w, h; int ret; } sizes[] = {
		{ 64, 21, 0 }, { 10, 10, 0 }, { 9, 9, -EINVAL },
		{ 9, 64, -EINVAL }, { 64, 9, -EINVAL },
	};
	struct primepair_fb fb;
	unsigned int i;
	uint32_t id;

	primepair_fb_create(kms->fd, W, H, DRM_FORMAT_ARGB8888, &fb);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		igt_debug("%ux%u\n", sizes[i].w, sizes[i].h);
		igt_assert_eq(addfb(kms->fd, fb.handle, sizes[i].w, sizes[i].h,
				    DRM_FORMAT_ARGB8888, sizes[i].w * 4, NULL,
				    &id), sizes[i].ret);
		if (!sizes[i].ret)
			drmModeRmFB(kms->fd, id);
	}
	primepair_fb_destroy(kms->fd, &fb);
}

static int commit_one(struct primepair_kms *kms, uint32_t obj, uint32_t prop,
		      uint64_t value, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	igt_assert_lt(0, drmModeAtomicAddProperty(req, obj, prop, value));
	ret = primepair_commit(kms->fd, req, flags);
	drmModeAtomicFree(req);
	return ret;
}

static void test_atomic(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	const uint32_t P = DRM_MODE_OBJECT_PLANE, C = DRM_MODE_OBJECT_CRTC;
	uint32_t alpha = primepair_prop_id(kms->fd, o->primary, P, "alpha");
	uint32_t zpos = primepair_prop_id(kms->fd, o->primary, P, "zpos");
	uint32_t fb_id = primepair_prop_id(kms->fd, o->primary, P, "FB_ID");
	uint32_t active = primepair_prop_id(kms->fd, o->crtc_id, C, "ACTIVE");
	uint32_t type = primepair_prop_id(kms->fd, o->primary, P, "type");
	uint32_t rotation = primepair_prop_id(kms->fd, o->primary, P, "rotation");
	uint64_t max_zpos = kms->outputs[0].noverlays + (o->cursor ? 1 : 0);
	struct primepair_fb fb;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
		     DRM_FORMAT_XRGB8888, &fb);
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);

	/* drm_mode_atomic_ioctl(): no such object, no such property on it */
	igt_assert_eq(commit_one(kms, 0xdead, alpha, 0, 0), -ENOENT);
	igt_assert_eq(commit_one(kms, o->crtc_id, alpha, 0, 0), -ENOENT);
	/* drm_property_change_valid_get(): out of the property's range */
	igt_assert_eq(commit_one(kms, o->primary, alpha, 0x10000, 0), -EINVAL);
	igt_assert_eq(commit_one(kms, o->primary, zpos, max_zpos + 1, 0), -EINVAL);
	/* an immutable property */
	igt_assert_eq(commit_one(kms, o->primary, type, 0, 0), -EINVAL);
	/*
	 * drm_property_change_valid_get(): FB_ID naming no framebuffer is
	 * an invalid value, -EINVAL (not -ENOENT as for ADDFB2's handles)
	 */
	igt_assert_eq(commit_one(kms, o->primary, fb_id, 0xdead, 0), -EINVAL);
	/*
	 * rotation: no rotation bit, two of them, a bit past REFLECT_Y (a
	 * quarter turn of a full-screen primary is a scaled plane now; scale
	 * factors out of range are kms_vdisplay_planes scaling's rows)
	 */
	igt_assert_eq(commit_one(kms, o->primary, rotation, 0, 0), -EINVAL);
	igt_assert_eq(commit_one(kms, o->primary, rotation, 0x6, 0), -EINVAL);
	igt_assert_eq(commit_one(kms, o->primary, rotation, 0x41, 0), -EINVAL);
	/* drm_mode_atomic_ioctl(): unknown flags */
	igt_assert_eq(commit_one(kms, o->primary, alpha, 0xffff, 0x80000000),
		      -EINVAL);
	/* drm_atomic_check_only(): a modeset without ALLOW_MODESET */
	igt_assert_eq(commit_one(kms, o->crtc_id, active, 0, 0), -EINVAL);
	/* the helpers: a plane with an fb but no CRTC */
	{
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		primepair_add(kms->fd, req, o->overlays[0], P, "FB_ID", fb.fb_id);
		igt_assert_eq(primepair_commit(kms->fd, req, 0), -EINVAL);
		drmModeAtomicFree(req);
	}
	/* still on, still the same */
	igt_assert_eq(primepair_prop_value(kms->fd, o->crtc_id, C, "ACTIVE"), 1);
	igt_assert_eq(primepair_prop_value(kms->fd, o->primary, P, "alpha"), 0xffff);
	igt_assert_eq(primepair_prop_value(kms->fd, o->primary, P, "rotation"), 1);

	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

static void test_flip_disabled(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	drmModeAtomicReqPtr req;
	struct primepair_fb fb;
	int ret;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
		     DRM_FORMAT_XRGB8888, &fb);

	/* drm_mode_page_flip_ioctl(): no framebuffer on the CRTC: -EBUSY */
	primepair_disable_all(kms);
	ret = drmModePageFlip(kms->fd, o->crtc_id, fb.fb_id,
			      DRM_MODE_PAGE_FLIP_EVENT, NULL);
	igt_assert_eq(ret ? -errno : 0, -EBUSY);

	/*
	 * Switched off (ACTIVE = 0) with its planes kept: an event cannot
	 * be sent for a CRTC that stays off, drm_atomic_crtc_check(): -EINVAL
	 */
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);
	req = drmModeAtomicAlloc();
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 0);
	igt_assert_eq(primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET), 0);
	drmModeAtomicFree(req);
	ret = drmModePageFlip(kms->fd, o->crtc_id, fb.fb_id,
			      DRM_MODE_PAGE_FLIP_EVENT, NULL);
	igt_assert_eq(ret ? -errno : 0, -EINVAL);

	/* A CRTC that does not exist: -ENOENT */
	ret = drmModePageFlip(kms->fd, 0xdead, fb.fb_id,
			      DRM_MODE_PAGE_FLIP_EVENT, NULL);
	igt_assert_eq(ret ? -errno : 0, -ENOENT);

	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

/*
 * Mode timings: drm_mode_convert_umode() runs the core's ordering checks
 * and then vdisplay_mode_valid(), for a legacy SETCRTC and for an atomic
 * MODE_ID blob alike.  Every timing the vblank timer could not run (zero
 * or overflowing frame time, absurd refresh) and every size beyond the
 * connectors' is refused with -EINVAL before anything is programmed.
 */
struct bad_mode {
	const char *what;
	void (*edit)(drmModeModeInfo *m);
};

static void mode_clock0(drmModeModeInfo *m) { m->clock = 0; }
static void mode_clock_max(drmModeModeInfo *m) { m->clock = INT32_MAX; }
static void mode_htotal_short(drmModeModeInfo *m) { m->htotal = m->hdisplay - 8; }
static void mode_vtotal_short(drmModeModeInfo *m) { m->vtotal = m->vdisplay - 8; }
static void mode_1hz(drmModeModeInfo *m) { m->clock = m->htotal * m->vtotal / 1000; }
static void mode_300hz(drmModeModeInfo *m) { m->clock = m->htotal * m->vtotal / 1000 * 300; }
static void mode_dblscan(drmModeModeInfo *m) { m->flags |= DRM_MODE_FLAG_DBLSCAN; }
static void mode_vscan(drmModeModeInfo *m) { m->vscan = 0xffff; }
static void mode_interlace(drmModeModeInfo *m) { m->flags |= DRM_MODE_FLAG_INTERLACE; }

/* One line a frame, 60 fields a second: the core halves it to none. */
static void mode_interlace_one_line(drmModeModeInfo *m)
{
	m->vdisplay = 1;
	m->vsync_start = 1;
	m->vsync_end = 1;
	m->vtotal = 1;
	m->clock = m->htotal * 30 / 1000;
	m->flags |= DRM_MODE_FLAG_INTERLACE;
}

/* htotal * vtotal beyond 32 bits, at the clock of a 60 Hz mode */
static void mode_totals_overflow(drmModeModeInfo *m)
{
	m->htotal = 0xffff;
	m->vtotal = 0xffff;
}

/* A coherent 60 Hz mode, wider or taller than the 8192 a CRTC drives */
static void mode_too_wide(drmModeModeInfo *m)
{
	m->hdisplay = 8200;
	m->hsync_start = 8208;
	m->hsync_end = 8300;
	m->htotal = 8400;
	m->clock = m->htotal * m->vtotal * 60 / 1000;
}

static void mode_too_tall(drmModeModeInfo *m)
{
	m->vdisplay = 8200;
	m->vsync_start = 8204;
	m->vsync_end = 8208;
	m->vtotal = 8300;
	m->clock = m->htotal * m->vtotal * 60 / 1000;
}

static const struct bad_mode bad_modes[] = {
	{ "clock 0", mode_clock0 },
	{ "clock INT_MAX", mode_clock_max },
	{ "htotal below hdisplay", mode_htotal_short },
	{ "vtotal below vdisplay", mode_vtotal_short },
	{ "totals overflowing 32 bits", mode_totals_overflow },
	{ "1 Hz", mode_1hz },
	{ "300 Hz", mode_300hz },
	{ "double scan", mode_dblscan },
	{ "vscan 65535", mode_vscan },
	{ "interlaced", mode_interlace },
	{ "interlaced, one line", mode_interlace_one_line },
	{ "wider than 8192", mode_too_wide },
	{ "taller than 8192", mode_too_tall },
};

static int setcrtc_mode(struct primepair_kms *kms, struct primepair_output *o,
			uint32_t fb_id, drmModeModeInfo *mode)
{
	return drmModeSetCrtc(kms->fd, o->crtc_id, fb_id, 0, 0,
			      &o->connector_id, 1, mode) ? -errno : 0;
}

static int atomic_mode(struct primepair_kms *kms, struct primepair_output *o,
		       struct primepair_fb *fb, drmModeModeInfo *mode)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint32_t blob;
	int ret;

	igt_assert_eq(drmModeCreatePropertyBlob(kms->fd, mode, sizeof(*mode),
						&blob), 0);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", blob);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
	primepair_add(kms->fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		      "CRTC_ID", o->crtc_id);
	primepair_add_plane(kms->fd, req, o->primary, o->crtc_id, fb, 0, 0,
			    0, 0, fb->width, fb->height);
	ret = primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(kms->fd, blob);
	return ret;
}

static void test_mode_timings(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	struct primepair_fb fb;
	int failures = 0;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);

	/* The connector's own mode goes through both paths. */
	igt_assert_eq(setcrtc_mode(kms, o, fb.fb_id, &o->mode), 0);
	primepair_disable_all(kms);
	igt_assert_eq(atomic_mode(kms, o, &fb, &o->mode), 0);
	primepair_disable_all(kms);

	for (size_t i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]); i++) {
		drmModeModeInfo m = o->mode;
		int legacy, atomic;

		bad_modes[i].edit(&m);
		legacy = setcrtc_mode(kms, o, fb.fb_id, &m);
		atomic = atomic_mode(kms, o, &fb, &m);
		igt_info("%-28s SETCRTC %-6s atomic %-6s\n", bad_modes[i].what,
			 legacy == -EINVAL ? "EINVAL" : "WRONG",
			 atomic == -EINVAL ? "EINVAL" : "WRONG");
		if (legacy != -EINVAL || atomic != -EINVAL) {
			igt_warn("  %s: SETCRTC %d, atomic %d, want %d\n",
				 bad_modes[i].what, legacy, atomic, -EINVAL);
			failures++;
			primepair_disable_all(kms);
		}
	}
	igt_assert_eq(failures, 0);

	/* Nothing was switched on by the refused modes. */
	igt_assert_eq(primepair_prop_value(kms->fd, o->crtc_id,
					   DRM_MODE_OBJECT_CRTC, "ACTIVE"), 0);
	primepair_fb_destroy(kms->fd, &fb);
}

igt_main
{
	struct primepair_kms kms = {};

	igt_fixture
		primepair_kms_open(&kms);

	igt_subtest("addfb2")
		test_addfb(&kms);
	igt_describe("ADDFB2 takes framebuffers from 10x10 up, a 64x21 cursor among them");
	igt_subtest("addfb2-small")
		test_addfb_small(&kms);
	igt_subtest("atomic-properties")
		test_atomic(&kms);
	igt_subtest("flip-disabled-crtc")
		test_flip_disabled(&kms);
	igt_describe("Mode timings the vblank timer cannot run, or sizes beyond the connectors', are refused");
	igt_subtest("mode-timings")
		test_mode_timings(&kms);

	igt_fixture {
		primepair_kms_close(&kms);
		primepair_assert_summary_zero();
	}
}

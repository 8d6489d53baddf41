// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_planes - what vdisplay's planes put on screen
 *
 * Every picture is captured through the writeback connector and compared
 * with a CPU composition of the same planes (primepair_kms.c's reference):
 * exactly for opaque pixels, within 1 per channel where alpha blends,
 * because the reference keeps its image at 8 bits where the driver keeps
 * 16, and so may round differently where two blended layers overlap.
 * deep-color checks the 16 bits themselves, exactly.
 */

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay planes checked through writeback");

#define ALPHA_TOLERANCE	1

/*
 * Every format the planes scan out.  Random contents give the half-float
 * formats every kind of value (negative, NaN, infinite, subnormal, above
 * 1.0) many times over; half-float-values tries each one on its own.
 */
static const uint32_t formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888, DRM_FORMAT_RGB888, DRM_FORMAT_BGR888,
	DRM_FORMAT_RGB565, DRM_FORMAT_BGR565, DRM_FORMAT_XRGB1555,
	DRM_FORMAT_ARGB1555, DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_XRGB16161616, DRM_FORMAT_ARGB16161616,
	DRM_FORMAT_XRGB16161616F, DRM_FORMAT_ARGB16161616F,
};

static bool has_alpha(uint32_t f)
{
	switch (f) {
	case DRM_FORMAT_ARGB8888:
	case DRM_FORMAT_ABGR8888:
	case DRM_FORMAT_ARGB1555:
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_ARGB16161616F:
		return true;
	}
	return false;
}

struct ctx {
	struct primepair_kms kms;
	struct primepair_output *o;
	uint32_t w, h;
	struct primepair_fb bg, wb;
	uint32_t *ref;
};

static void ctx_init(struct ctx *c)
{
	primepair_kms_open(&c->kms);
	c->o = &c->kms.outputs[0];
	igt_require(c->o->wb_connector_id);
	c->w = c->o->mode.hdisplay;
	c->h = c->o->mode.vdisplay;
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->bg);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->wb);
	c->ref = calloc((size_t)c->w * c->h, 4);
	igt_assert(c->ref);
}

static void ctx_fini(struct ctx *c)
{
	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &c->wb);
	primepair_fb_destroy(c->kms.fd, &c->bg);
	close(c->kms.fd);
	free(c->ref);
}

/* Every subtest starts from all planes and CRTCs off. */
static void ctx_reset(struct ctx *c)
{
	primepair_disable_all(&c->kms);
}

static void ref_clear(struct ctx *c)
{
	size_t i;

	for (i = 0; i < (size_t)c->w * c->h; i++)
		c->ref[i] = 0xff000000u;
}

static void check(struct ctx *c, unsigned int tolerance)
{
	memset(c->wb.map, 0, c->wb.size);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, tolerance), 0);
}

static void test_primary_format(struct ctx *c, uint32_t format)
{
	struct primepair_fb fb;

	primepair_fb_create(c->kms.fd, c->w, c->h, format, &fb);
	primepair_fb_fill_random(&fb, format);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &fb), 0);

	/* The primary is the bottom plane: its alpha falls on black. */
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 0, 0, 0, 0, c->w, c->h,
		     0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, has_alpha(format) ? ALPHA_TOLERANCE : 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

static void set_overlay(struct ctx *c, uint32_t plane, struct primepair_fb *fb,
			int32_t x, int32_t y, uint32_t sx, uint32_t sy,
			uint32_t w, uint32_t h, uint16_t alpha, uint32_t blend)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	primepair_add_plane(c->kms.fd, req, plane, c->o->crtc_id, fb, x, y, sx, sy,
		     w, h);
	primepair_add(c->kms.fd, req, plane, DRM_MODE_OBJECT_PLANE, "alpha", alpha);
	primepair_add(c->kms.fd, req, plane, DRM_MODE_OBJECT_PLANE,
	       "pixel blend mode", blend);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
}

static void test_overlay_format(struct ctx *c, uint32_t format)
{
	static const struct { uint16_t alpha; uint32_t blend; } modes[] = {
		{ 0xffff, PRIMEPAIR_BLEND_PREMULTI },
		{ 0xffff, PRIMEPAIR_BLEND_COVERAGE },
		{ 0x8080, PRIMEPAIR_BLEND_NONE },
		{ 0x4040, PRIMEPAIR_BLEND_COVERAGE },
	};
	uint32_t ov = c->o->overlays[0];
	struct primepair_fb fb;
	unsigned int i;

	igt_require(c->o->noverlays > 0);
	primepair_fb_fill_random(&c->bg, 7);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	primepair_fb_create(c->kms.fd, 200, 150, format, &fb);
	primepair_fb_fill_random(&fb, format * 3);

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		bool blends = has_alpha(format) || modes[i].alpha != 0xffff;

		igt_debug("alpha %04x blend %u\n", modes[i].alpha,
			  modes[i].blend);
		set_overlay(c, ov, &fb, 37, 29, 10, 5, 180, 140,
			    modes[i].alpha, modes[i].blend);
		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w,
			     c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		primepair_ref_blend(c->ref, c->w, c->h, &fb, 37, 29, 10, 5, 180, 140,
			     modes[i].alpha, modes[i].blend);
		check(c, blends ? ALPHA_TOLERANCE : 0);
	}

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/* Pixel @i of a 256 x 256 framebuffer of 8-byte pixels */
static uint16_t *px64(struct primepair_fb *fb, uint32_t i)
{
	return (uint16_t *)((uint8_t *)fb->map + (size_t)(i / 256) * fb->pitch +
			    (size_t)(i % 256) * 8);
}

/*
 * Every one of the 65536 half floats, as a colour and as alpha.  In an
 * XRGB16161616F overlay, pixel i holds i in red and the same values in
 * two other orders in green and blue (x * 40503 is a permutation modulo
 * 2^16), and junk in X; what shows is each channel as read.  In an
 * ARGB16161616F one, pixel i is 1.0 white with alpha i, blended by
 * coverage over black: every channel comes out as the alpha read,
 * exactly (255 * a / 255 has nothing to round).  The reference itself is
 * checked first on values worked out by hand.
 */
static void test_half_float_values(struct ctx *c)
{
	static const struct { uint16_t h; uint8_t v; } known[] = {
		{ 0x0000, 0 }, { 0x8000, 0 },		/* +0, -0 */
		{ 0x3c00, 255 }, { 0x4000, 255 },	/* 1.0, 2.0 */
		{ 0x7bff, 255 }, { 0x7c00, 255 },	/* 65504, +inf */
		{ 0xfc00, 0 }, { 0xbc00, 0 },		/* -inf, -1.0 */
		{ 0x7c01, 0 }, { 0x7e00, 0 },		/* NaNs */
		{ 0xfe00, 0 }, { 0xffff, 0 },
		{ 0x3800, 128 },		/* 0.5: 127.5, rounded up */
		{ 0x37ff, 127 },		/* 0.49976: 127.44 */
		{ 0x3bff, 255 },		/* 0.99951: 254.88 */
		{ 0x3bf0, 253 },		/* 0.99219: 253.01 */
		{ 0x1c00, 1 },			/* 2^-8: 0.996 */
		{ 0x1800, 0 },			/* 2^-9: 0.498 */
		{ 0x1801, 0 },			/* 0.4985 */
		{ 0x1c04, 1 },			/* 0.99998 */
		{ 0x0001, 0 }, { 0x03ff, 0 },	/* subnormals */
	};
	uint32_t ov = c->o->overlays[0];
	struct primepair_fb fb;
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(known); i++) {
		uint16_t px[4] = { known[i].h, known[i].h, known[i].h, 0x3c00 };

		igt_assert_eq_u32(primepair_read_pixel(px,
						       DRM_FORMAT_ARGB16161616F),
				  0xff000000u | known[i].v * 0x010101u);
	}

	igt_require(c->o->noverlays > 0);
	primepair_fb_fill_color(&c->bg, 0xff000000u);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);

	primepair_fb_create(c->kms.fd, 256, 256, DRM_FORMAT_XRGB16161616F, &fb);
	for (i = 0; i < 65536; i++) {
		uint16_t *px = px64(&fb, i);

		px[0] = i * 40503u;
		px[1] = ~i;
		px[2] = i;
		px[3] = i * 7u;
	}
	set_overlay(c, ov, &fb, 0, 0, 0, 0, 256, 256, 0xffff,
		    PRIMEPAIR_BLEND_PREMULTI);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 0, 0, 0, 0, 256, 256,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);
	primepair_fb_destroy(c->kms.fd, &fb);

	primepair_fb_create(c->kms.fd, 256, 256, DRM_FORMAT_ARGB16161616F, &fb);
	for (i = 0; i < 65536; i++) {
		uint16_t *px = px64(&fb, i);

		px[0] = 0x3c00;
		px[1] = 0x3c00;
		px[2] = 0x3c00;
		px[3] = i;
	}
	set_overlay(c, ov, &fb, 0, 0, 0, 0, 256, 256, 0xffff,
		    PRIMEPAIR_BLEND_COVERAGE);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 0, 0, 0, 0, 256, 256,
			    0xffff, PRIMEPAIR_BLEND_COVERAGE);
	for (i = 0; i < 65536; i++) {
		uint32_t a = primepair_read_pixel(px64(&fb, i), fb.format) >> 24;

		igt_assert_eq_u32(c->ref[(i / 256) * c->w + i % 256],
				  0xff000000u | a * 0x010101u);
	}
	check(c, 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

static void px16(const struct primepair_fb *fb, uint32_t x, uint32_t y,
		 uint16_t ch[4])
{
	memcpy(ch, (const uint8_t *)fb->map + (size_t)y * fb->pitch +
	       (size_t)x * 8, 8);
}

/*
 * The composer keeps 16 bits per channel: an XRGB2101010 primary written
 * back as XRGB2101010 comes out bit for bit (the padding bits 0), an
 * XRGB16161616 one as XRGB16161616 likewise (X written 0xffff), and an
 * ARGB16161616 overlay of random colour and alpha, blended by coverage
 * over that primary, gives round((s * a + d * (0xffff - a)) / 0xffff) in
 * every channel, exactly.  An 8-bit blender fails each of the three.
 */
/* Show a random primary of @format and write it back in the same format. */
static void show_and_capture(struct ctx *c, uint32_t format,
			     struct primepair_fb *in, struct primepair_fb *out)
{
	primepair_fb_create(c->kms.fd, c->w, c->h, format, in);
	primepair_fb_fill_random(in, format);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, in), 0);
	primepair_fb_create(c->kms.fd, c->w, c->h, format, out);
	memset(out->map, 0x55, out->size);
	primepair_writeback_capture(&c->kms, c->o, out);
}

static void test_deep_color(struct ctx *c)
{
	struct primepair_fb in, out, ov;
	uint16_t s[4], d[4], o[4];
	uint32_t x, y, ch;

	igt_require(c->o->noverlays > 0);

	show_and_capture(c, DRM_FORMAT_XRGB2101010, &in, &out);
	for (y = 0; y < c->h; y++)
		for (x = 0; x < c->w; x++) {
			uint32_t want = ((uint32_t *)((uint8_t *)in.map +
					 (size_t)y * in.pitch))[x] & 0x3fffffff;
			uint32_t got = ((uint32_t *)((uint8_t *)out.map +
					(size_t)y * out.pitch))[x];

			if (got != want)
				igt_assert_f(0, "XR30 (%u,%u): got %08x want %08x\n",
					     x, y, got, want);
		}
	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &out);
	primepair_fb_destroy(c->kms.fd, &in);

	show_and_capture(c, DRM_FORMAT_XRGB16161616, &in, &out);
	for (y = 0; y < c->h; y++)
		for (x = 0; x < c->w; x++) {
			px16(&in, x, y, d);
			px16(&out, x, y, o);
			d[3] = 0xffff;
			if (memcmp(d, o, sizeof(o)))
				igt_assert_f(0, "16161616 (%u,%u): got %04x %04x %04x %04x want %04x %04x %04x %04x\n",
					     x, y, o[0], o[1], o[2], o[3],
					     d[0], d[1], d[2], d[3]);
		}

	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_ARGB16161616, &ov);
	primepair_fb_fill_random(&ov, 4242);
	set_overlay(c, c->o->overlays[0], &ov, 0, 0, 0, 0, c->w, c->h, 0xffff,
		    PRIMEPAIR_BLEND_COVERAGE);
	memset(out.map, 0x55, out.size);
	primepair_writeback_capture(&c->kms, c->o, &out);
	for (y = 0; y < c->h; y++)
		for (x = 0; x < c->w; x++) {
			px16(&in, x, y, d);
			px16(&ov, x, y, s);
			px16(&out, x, y, o);
			for (ch = 0; ch < 3; ch++) {
				uint64_t v = (uint64_t)s[ch] * s[3] +
					     (uint64_t)d[ch] * (0xffff - s[3]);
				uint32_t want = (v + 0x7fff) / 0xffff;

				if (o[ch] != want)
					igt_assert_f(0, "blend (%u,%u) channel %u: got %04x want %04x (s %04x a %04x d %04x)\n",
						     x, y, ch, o[ch], want,
						     s[ch], s[3], d[ch]);
			}
		}
	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &ov);
	primepair_fb_destroy(c->kms.fd, &out);
	primepair_fb_destroy(c->kms.fd, &in);
}

/* Planes partly or wholly outside the CRTC are clipped by the helpers. */
static void test_clipping(struct ctx *c)
{
	const int32_t pos[][2] = {
		{ -50, -40 }, { (int32_t)c->w - 60, -70 },
		{ -100, (int32_t)c->h - 30 },
		{ (int32_t)c->w - 1, (int32_t)c->h - 1 },
		{ (int32_t)c->w + 10, 20 }, { -120, -120 },
	};
	uint32_t ov = c->o->overlays[0];
	struct primepair_fb fb;
	unsigned int i;

	igt_require(c->o->noverlays > 0);
	primepair_fb_fill_random(&c->bg, 11);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	primepair_fb_create(c->kms.fd, 120, 100, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 12);

	for (i = 0; i < ARRAY_SIZE(pos); i++) {
		igt_debug("overlay at %d,%d\n", pos[i][0], pos[i][1]);
		set_overlay(c, ov, &fb, pos[i][0], pos[i][1], 0, 0, 120, 100,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w,
			     c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		primepair_ref_blend(c->ref, c->w, c->h, &fb, pos[i][0], pos[i][1],
			     0, 0, 120, 100, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		check(c, 0);
	}

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/* The cursor follows its moves, on top of everything, clipped at edges. */
static void test_cursor(struct ctx *c)
{
	const int32_t pos[][2] = {
		{ 0, 0 }, { 100, 50 }, { -20, -30 }, { (int32_t)c->w - 10, 200 },
		{ 300, (int32_t)c->h - 5 },
	};
	uint32_t cur = c->o->cursor;
	struct primepair_fb fb;
	unsigned int i;

	igt_require(cur);
	primepair_fb_fill_random(&c->bg, 21);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	primepair_fb_create(c->kms.fd, 64, 64, DRM_FORMAT_ARGB8888, &fb);
	primepair_fb_fill_color(&fb, 0xffff8000u);

	for (i = 0; i < ARRAY_SIZE(pos); i++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		if (i == 0) {
			primepair_add_plane(c->kms.fd, req, cur, c->o->crtc_id, &fb,
				     pos[i][0], pos[i][1], 0, 0, 64, 64);
		} else {
			primepair_add(c->kms.fd, req, cur, DRM_MODE_OBJECT_PLANE,
			       "CRTC_X", (uint64_t)(int64_t)pos[i][0]);
			primepair_add(c->kms.fd, req, cur, DRM_MODE_OBJECT_PLANE,
			       "CRTC_Y", (uint64_t)(int64_t)pos[i][1]);
		}
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);

		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w,
			     c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		primepair_ref_blend(c->ref, c->w, c->h, &fb, pos[i][0], pos[i][1],
			     0, 0, 64, 64, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		check(c, 0);
	}

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/*
 * The cursor sizes userspace is told of: DRM_CAP_CURSOR_WIDTH/HEIGHT of
 * 512 and, on kernels with the property (6.10 on), SIZE_HINTS listing the
 * four square sizes smallest first.  Each of them, half off the right
 * edge, is blended exactly.
 */
static void test_cursor_sizes(struct ctx *c)
{
	static const uint16_t sizes[] = { 64, 128, 256, 512 };
	uint32_t cur = c->o->cursor;
	uint64_t cap, blob_id;
	unsigned int i;

	igt_require(cur);
	igt_assert_eq(drmGetCap(c->kms.fd, DRM_CAP_CURSOR_WIDTH, &cap), 0);
	igt_assert_eq_u64(cap, 512);
	igt_assert_eq(drmGetCap(c->kms.fd, DRM_CAP_CURSOR_HEIGHT, &cap), 0);
	igt_assert_eq_u64(cap, 512);

	if (pp_prop_id(c->kms.fd, cur, DRM_MODE_OBJECT_PLANE, "SIZE_HINTS")) {
		drmModePropertyBlobPtr blob;
		const uint16_t *hint;

		blob_id = primepair_prop_value(c->kms.fd, cur, DRM_MODE_OBJECT_PLANE,
					       "SIZE_HINTS");
		blob = drmModeGetPropertyBlob(c->kms.fd, blob_id);
		igt_assert(blob);
		igt_assert_eq_u32(blob->length, sizeof(sizes) * 2);
		hint = blob->data;
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			igt_assert_eq(hint[2 * i], sizes[i]);
			igt_assert_eq(hint[2 * i + 1], sizes[i]);
		}
		drmModeFreePropertyBlob(blob);
	} else {
		igt_info("no SIZE_HINTS (kernel before 6.10)\n");
	}

	primepair_fb_fill_random(&c->bg, 64);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		int32_t x = (int32_t)c->w - sizes[i] / 2, y = 8;
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		struct primepair_fb fb;

		primepair_fb_create(c->kms.fd, sizes[i], sizes[i],
				    DRM_FORMAT_ARGB8888, &fb);
		primepair_fb_fill_random(&fb, sizes[i]);
		primepair_add_plane(c->kms.fd, req, cur, c->o->crtc_id, &fb,
				    x, y, 0, 0, sizes[i], sizes[i]);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);

		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w,
				    c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		primepair_ref_blend(c->ref, c->w, c->h, &fb, x, y, 0, 0,
				    sizes[i], sizes[i], 0xffff,
				    PRIMEPAIR_BLEND_PREMULTI);
		check(c, 0);

		req = drmModeAtomicAlloc();
		primepair_add_plane_off(c->kms.fd, req, cur);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);
		primepair_fb_destroy(c->kms.fd, &fb);
	}
	primepair_disable_all(&c->kms);
}

/* zpos decides the order: the overlay under the primary is hidden. */
/* Invert the pixels of @r (framebuffer coordinates) of the XRGB8888 @fb. */
static void invert_rect(struct primepair_fb *fb, const struct drm_mode_rect *r)
{
	int x, y;

	for (y = r->y1; y < r->y2; y++)
		for (x = r->x1; x < r->x2; x++)
			((uint32_t *)((char *)fb->map +
				      (size_t)y * fb->pitch))[x] ^= 0x00ffffffu;
}

/*
 * Put the pixels of @r of the XRGB8888 @fb into the reference, for a
 * plane shown unscaled with its pixel (x, y) at (x + @dx, y + @dy).
 */
static void ref_rect(struct ctx *c, const struct primepair_fb *fb,
		     const struct drm_mode_rect *r, int dx, int dy)
{
	int x, y;

	for (y = r->y1; y < r->y2; y++) {
		const uint32_t *row = (const uint32_t *)((const char *)fb->map +
							 (size_t)y * fb->pitch);

		for (x = r->x1; x < r->x2; x++) {
			if (x + dx < 0 || y + dy < 0 || x + dx >= (int)c->w ||
			    y + dy >= (int)c->h)
				continue;
			c->ref[(size_t)(y + dy) * c->w + x + dx] =
				row[x] | 0xff000000u;
		}
	}
}

/* Invert @r of @fb, shown as ref_rect() says, in the reference too. */
static void invert_shown(struct ctx *c, struct primepair_fb *fb,
			 const struct drm_mode_rect *r, int dx, int dy)
{
	invert_rect(fb, r);
	ref_rect(c, fb, r, dx, dy);
}

/*
 * Commit @n @clips as @plane's FB_DAMAGE_CLIPS (none: the plane without
 * damage clips) with a writeback job; returns 0 or -errno, and on success
 * compares the commit's frame with the reference.
 */
static int damage_commit(struct ctx *c, uint32_t plane,
			 const struct drm_mode_rect *clips, unsigned int n)
{
	drmModeAtomicReqPtr req;
	uint32_t blob = 0;
	int ret;

	if (n)
		igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, clips,
							n * sizeof(*clips),
							&blob), 0);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(c->kms.fd, req, plane, DRM_MODE_OBJECT_PLANE,
		      "FB_DAMAGE_CLIPS", blob);
	ret = primepair_commit(c->kms.fd, req, DRM_MODE_ATOMIC_TEST_ONLY);
	if (!ret) {
		memset(c->wb.map, 0, c->wb.size);
		primepair_writeback_capture_req(&c->kms, c->o, &c->wb, req);
		igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 0), 0);
	}
	drmModeAtomicFree(req);
	if (blob)
		drmModeDestroyPropertyBlob(c->kms.fd, blob);
	return ret;
}

/*
 * FB_DAMAGE_CLIPS say what changed at least.  After a commit that changes
 * nothing else, vdisplay composes only the CRTC rows its clips cover:
 * rows written outside them still show what they showed, which is what
 * makes the partial composition visible.  A commit without clips, or a
 * frame with no commit since the last one (front-buffer rendering), shows
 * the whole framebuffer.
 */
static void test_damage_clips(struct ctx *c)
{
	struct drm_mode_rect in = { 10, 20, 110, 70 };
	struct drm_mode_rect out = { 0, 200, (int32_t)c->w, 250 };
	/* overlay fb rows 50..59 show on CRTC rows 120..129 */
	struct drm_mode_rect ov_in = { 0, 50, 200, 60 };
	struct drm_mode_rect ov_out = { 0, 100, 200, 110 };
	struct drm_mode_rect two[] = { { 30, 5, 40, 8 }, { 5, 150, 9, 151 } };
	uint32_t ov = c->o->overlays[0];
	struct primepair_fb fb;

	primepair_fb_fill_random(&c->bg, 61);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	invert_shown(c, &c->bg, &in, 0, 0);
	invert_rect(&c->bg, &out);
	igt_assert_eq(damage_commit(c, c->o->primary, &in, 1), 0);
	/* The same framebuffer committed without clips is damaged whole. */
	ref_rect(c, &c->bg, &out, 0, 0);
	igt_assert_eq(damage_commit(c, c->o->primary, NULL, 0), 0);

	/* Two clips: their rows and those between may be composed. */
	invert_shown(c, &c->bg, &two[0], 0, 0);
	invert_shown(c, &c->bg, &two[1], 0, 0);
	invert_rect(&c->bg, &out);
	igt_assert_eq(damage_commit(c, c->o->primary, two, 2), 0);
	/* No commit since: the next frame is composed in full. */
	ref_rect(c, &c->bg, &out, 0, 0);
	check(c, 0);

	/* An overlay's clips are taken to the rows it is shown on. */
	igt_require(c->o->noverlays);
	primepair_fb_create(c->kms.fd, 200, 150, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 63);
	set_overlay(c, ov, &fb, 300, 100, 0, 30, 200, 120, 0xffff,
		    PRIMEPAIR_BLEND_PREMULTI);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 300, 100, 0, 30, 200, 120,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);
	invert_shown(c, &fb, &ov_in, 300, 70);
	invert_rect(&fb, &ov_out);
	igt_assert_eq(damage_commit(c, ov, &ov_in, 1), 0);
	ref_rect(c, &fb, &ov_out, 300, 70);
	igt_assert_eq(damage_commit(c, ov, NULL, 0), 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/*
 * What the core makes of bad damage: a blob whose size is not a whole
 * number of struct drm_mode_rect, or no such blob, is EINVAL when the
 * property is set; an empty or inverted clip, or one starting left of or
 * above the framebuffer, fails the atomic check with EINVAL.  The core
 * checks the far edges against the framebuffer's size in 16.16 fixed
 * point, so a clip past them in pixels (but not 65536 times as far)
 * passes, and the damage helpers cut it to the plane's source.
 */
static void test_damage_clips_bad(struct ctx *c)
{
	const struct drm_mode_rect rect = { 10, 20, 110, 70 };
	const struct drm_mode_rect bad_clips[] = {
		{ 50, 10, 40, 20 },	/* x1 > x2 */
		{ 10, 30, 20, 25 },	/* y1 > y2 */
		{ 10, 10, 10, 20 },	/* empty */
		{ -1, 0, 10, 10 },
		{ 0, -5, 10, 10 },
		{ 0, 0, (int32_t)c->w << 16 | 1, 10 },
	};
	struct drm_mode_rect past = {
		(int32_t)c->w - 20, (int32_t)c->h - 10,
		(int32_t)c->w + 100, (int32_t)c->h + 50,
	};
	const struct drm_mode_rect beyond = {
		(int32_t)c->w + 10, 0, (int32_t)c->w + 20, (int32_t)c->h,
	};
	struct drm_mode_rect inside = { past.x1, past.y1, c->w, c->h };
	uint32_t prop, bad;
	drmModeAtomicReqPtr req;
	unsigned int i;

	prop = primepair_prop_id(c->kms.fd, c->o->primary,
				 DRM_MODE_OBJECT_PLANE, "FB_DAMAGE_CLIPS");
	primepair_fb_fill_random(&c->bg, 64);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	/* 6 bytes: no whole rectangle (drm_property_replace_blob_from_id) */
	igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, &rect, 6, &bad), 0);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	igt_assert_lt(0, drmModeAtomicAddProperty(req, c->o->primary, prop,
						  bad));
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -EINVAL);
	drmModeAtomicFree(req);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	igt_assert_lt(0, drmModeAtomicAddProperty(req, c->o->primary, prop,
						  bad + 1000));
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -EINVAL);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(c->kms.fd, bad);

	for (i = 0; i < ARRAY_SIZE(bad_clips); i++) {
		igt_debug("clip %u\n", i);
		igt_assert_eq(damage_commit(c, c->o->primary, &bad_clips[i], 1),
			      -EINVAL);
	}

	/* Past the far edges: what lies within the framebuffer is damaged. */
	invert_shown(c, &c->bg, &inside, 0, 0);
	igt_assert_eq(damage_commit(c, c->o->primary, &past, 1), 0);
	/* Wholly right of it: nothing is, the frame stays as it was. */
	invert_rect(&c->bg, &inside);
	igt_assert_eq(damage_commit(c, c->o->primary, &beyond, 1), 0);

	primepair_disable_all(&c->kms);
}

static void test_zpos(struct ctx *c)
{
	uint32_t ov = c->o->overlays[0];
	drmModeAtomicReqPtr req;
	struct primepair_fb fb, top;

	igt_require(c->o->noverlays > 0);
	primepair_fb_create(c->kms.fd, c->w / 2, c->h / 2, DRM_FORMAT_ARGB8888, &top);
	primepair_fb_fill_color(&top, 0x80ff0000u);
	primepair_fb_create(c->kms.fd, 100, 100, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_color(&fb, 0xff00ff00u);
	primepair_fb_fill_color(&c->bg, 0xff0000ffu);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	set_overlay(c, ov, &fb, 10, 10, 0, 0, 100, 100, 0xffff,
		    PRIMEPAIR_BLEND_PREMULTI);

	/* Primary (half size, translucent) above the overlay */
	req = drmModeAtomicAlloc();
	primepair_add_plane(c->kms.fd, req, c->o->primary, c->o->crtc_id, &top, 0, 0,
		     0, 0, c->w / 2, c->h / 2);
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE, "zpos", 2);
	primepair_add(c->kms.fd, req, ov, DRM_MODE_OBJECT_PLANE, "zpos", 0);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);

	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 10, 10, 0, 0, 100, 100, 0xffff,
		     PRIMEPAIR_BLEND_PREMULTI);
	primepair_ref_blend(c->ref, c->w, c->h, &top, 0, 0, 0, 0, c->w / 2, c->h / 2,
		     0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, ALPHA_TOLERANCE);

	/* Back to the default order for the next subtests */
	req = drmModeAtomicAlloc();
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE, "zpos", 0);
	primepair_add(c->kms.fd, req, ov, DRM_MODE_OBJECT_PLANE, "zpos", 1);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &fb);
	primepair_fb_destroy(c->kms.fd, &top);
}

/*
 * Writeback into ARGB8888 (alpha written opaque) gives the same picture,
 * and so does XRGB2101010, each channel rounded to the nearest 10-bit
 * value and the padding bits 0 (IGT's kms_writeback creates XRGB2101010
 * framebuffers and checks that full scale stays full scale; kms_colorop
 * compares them byte for byte with its input); a writeback framebuffer
 * that is not the mode's size, or of a format the connector does not
 * list, fails the atomic check with -EINVAL.
 */
static void test_writeback_formats(struct ctx *c)
{
	drmModeAtomicReqPtr req;
	struct primepair_fb argb, small, rgb565, xr30, wide;
	uint32_t x, y, in, out, ch;

	primepair_fb_fill_random(&c->bg, 31);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
		     0xffff, PRIMEPAIR_BLEND_PREMULTI);

	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_ARGB8888, &argb);
	primepair_writeback_capture(&c->kms, c->o, &argb);
	igt_assert_eq_u32(primepair_compare(&argb, c->ref, 0), 0);
	for (y = 0; y < c->h; y += 7)
		for (x = 0; x < c->w; x += 5)
			igt_assert_eq_u32(((uint32_t *)((uint8_t *)argb.map +
					   y * argb.pitch))[x] >> 24, 0xff);

	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB2101010, &xr30);
	primepair_writeback_capture(&c->kms, c->o, &xr30);
	igt_assert_eq_u32(primepair_compare(&xr30, c->ref, 0), 0);
	for (y = 0; y < c->h; y += 7)
		for (x = 0; x < c->w; x += 5) {
			in = c->ref[y * c->w + x];
			out = ((uint32_t *)((uint8_t *)xr30.map +
					    y * xr30.pitch))[x];
			igt_assert_eq_u32(out >> 30, 0);
			for (ch = 0; ch < 3; ch++)
				igt_assert_eq_u32(out >> (ch * 10) & 1023,
						  ((in >> (ch * 8) & 255) * 1023 +
						   127) / 255);
		}

	/* 16 bits per channel: each 8-bit value repeated, alpha opaque */
	for (unsigned int f = 0; f < 2; f++) {
		primepair_fb_create(c->kms.fd, c->w, c->h,
				    f ? DRM_FORMAT_ARGB16161616 :
					DRM_FORMAT_XRGB16161616, &wide);
		primepair_writeback_capture(&c->kms, c->o, &wide);
		igt_assert_eq_u32(primepair_compare(&wide, c->ref, 0), 0);
		for (y = 0; y < c->h; y += 7)
			for (x = 0; x < c->w; x += 5) {
				const uint16_t *p16 = (const uint16_t *)
					((uint8_t *)wide.map + y * wide.pitch) +
					4 * x;

				in = c->ref[y * c->w + x];
				for (ch = 0; ch < 3; ch++)
					igt_assert_eq_u32(p16[ch],
							  (in >> (ch * 8) & 255) * 0x101);
				igt_assert_eq_u32(p16[3], 0xffff);
			}
		primepair_fb_destroy(c->kms.fd, &wide);
	}

	/* RGB565: the top bits of each channel */
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_RGB565, &rgb565);
	primepair_writeback_capture(&c->kms, c->o, &rgb565);
	for (y = 0; y < c->h; y++)
		for (x = 0; x < c->w; x++) {
			in = c->ref[y * c->w + x];
			out = ((uint16_t *)((uint8_t *)rgb565.map +
					    y * rgb565.pitch))[x];
			igt_assert_eq_u32(out, (in >> 19 & 31) << 11 |
					       (in >> 10 & 63) << 5 |
					       (in >> 3 & 31));
		}

	primepair_fb_create(c->kms.fd, c->w / 2, c->h, DRM_FORMAT_XRGB8888, &small);
	req = drmModeAtomicAlloc();
	primepair_add(c->kms.fd, req, c->o->wb_connector_id, DRM_MODE_OBJECT_CONNECTOR,
	       "CRTC_ID", c->o->crtc_id);
	primepair_add(c->kms.fd, req, c->o->wb_connector_id, DRM_MODE_OBJECT_CONNECTOR,
	       "WRITEBACK_FB_ID", small.fb_id);
	igt_assert_eq(primepair_commit(c->kms.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET),
		      -EINVAL);
	drmModeAtomicFree(req);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &rgb565);
	primepair_fb_destroy(c->kms.fd, &small);
	primepair_fb_destroy(c->kms.fd, &xr30);
	primepair_fb_destroy(c->kms.fd, &argb);
}

/*
 * A legacy cursor move while a page flip is pending is applied at once, as
 * cursor hardware does, not after the flip: the cursor ioctl returns with
 * the flip still pending (in at least some of the tries, as a slow guest
 * may cross the vblank), and the move shows on screen.  IGT's
 * kms_cursor_legacy flip-vs-cursor and basic-flip-before-cursor found the
 * cursor waiting for the flip.
 */
static void test_cursor_during_flip(struct ctx *c)
{
	struct primepair_fb fb, cursor;
	struct pollfd pfd = { .fd = c->kms.fd, .events = POLLIN };
	unsigned int i, pending = 0;
	char ev[1024];

	igt_require(c->o->cursor);
	primepair_fb_fill_random(&c->bg, 41);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 42);
	primepair_fb_create(c->kms.fd, 64, 64, DRM_FORMAT_ARGB8888, &cursor);
	primepair_fb_fill_color(&cursor, 0xff20c040u);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	igt_assert_eq(drmModeSetCursor(c->kms.fd, c->o->crtc_id, cursor.handle,
				       64, 64), 0);

	for (i = 0; i < 20; i++) {
		igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id,
					      i & 1 ? c->bg.fb_id : fb.fb_id,
					      DRM_MODE_PAGE_FLIP_EVENT, NULL), 0);
		igt_assert_eq(drmModeMoveCursor(c->kms.fd, c->o->crtc_id,
						10 + i, 20 + i), 0);
		if (poll(&pfd, 1, 0) == 0)
			pending++;
		igt_assert_eq(poll(&pfd, 1, 1000), 1);
		igt_assert_lt(0, read(c->kms.fd, ev, sizeof(ev)));
	}
	igt_info("cursor moved with the flip pending %u times of 20\n", pending);
	igt_assert_lt(0, pending);

	/* Last flip showed bg; the cursor at its last position */
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	primepair_ref_blend(c->ref, c->w, c->h, &cursor, 29, 39, 0, 0, 64, 64,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &cursor);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/*
 * Showing and hiding the cursor (legacy cursor ioctl with and without a
 * buffer) right after a page flip is applied at once too: the ioctl
 * returns with the flip still pending, which a commit waiting for the
 * flip's vblank cannot do, and the flip's frame shows the new cursor.
 * The plane's state follows (CRTC_ID and FB_ID 0 when hidden), and
 * atomic commits after it see the cursor where the ioctls left it.
 * IGT's kms_cursor_legacy flip-vs-cursor-crc-* and -toggle need this.
 */
static void test_cursor_toggle_during_flip(struct ctx *c)
{
	struct primepair_fb fb, cursor;
	struct pollfd pfd = { .fd = c->kms.fd, .events = POLLIN };
	unsigned int i, pending = 0;
	drmModePlanePtr p;
	char ev[1024];

	igt_require(c->o->cursor);
	primepair_fb_fill_random(&c->bg, 51);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 52);
	primepair_fb_create(c->kms.fd, 64, 64, DRM_FORMAT_ARGB8888, &cursor);
	primepair_fb_fill_color(&cursor, 0xffc04020u);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);

	for (i = 0; i < 20; i++) {
		igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id,
					      i & 1 ? c->bg.fb_id : fb.fb_id,
					      DRM_MODE_PAGE_FLIP_EVENT, NULL), 0);
		/* shown on even, hidden on odd flips */
		if (i & 1)
			igt_assert_eq(drmModeSetCursor(c->kms.fd, c->o->crtc_id,
						       0, 0, 0), 0);
		else
			igt_assert_eq(drmModeSetCursor(c->kms.fd, c->o->crtc_id,
						       cursor.handle, 64, 64), 0);
		if (poll(&pfd, 1, 0) == 0)
			pending++;
		igt_assert_eq(poll(&pfd, 1, 1000), 1);
		igt_assert_lt(0, read(c->kms.fd, ev, sizeof(ev)));
	}
	igt_info("cursor shown or hidden with the flip pending %u times of 20\n",
		 pending);
	igt_assert_lt(0, pending);

	/* Last flip showed bg, with the cursor hidden */
	p = drmModeGetPlane(c->kms.fd, c->o->cursor);
	igt_assert(p);
	igt_assert_eq(p->crtc_id, 0);
	igt_assert_eq(p->fb_id, 0);
	drmModeFreePlane(p);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	/* Shown again at a new place, with no flip: the ioctl's own frame */
	igt_assert_eq(drmModeSetCursor(c->kms.fd, c->o->crtc_id, cursor.handle,
				       64, 64), 0);
	igt_assert_eq(drmModeMoveCursor(c->kms.fd, c->o->crtc_id, 100, 50), 0);
	p = drmModeGetPlane(c->kms.fd, c->o->cursor);
	igt_assert(p);
	igt_assert_eq(p->crtc_id, c->o->crtc_id);
	igt_assert_neq(p->fb_id, 0);
	drmModeFreePlane(p);
	primepair_ref_blend(c->ref, c->w, c->h, &cursor, 100, 50, 0, 0, 64, 64,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	/* An atomic flip after the toggles keeps the cursor */
	igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id, fb.fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, NULL), 0);
	igt_assert_eq(poll(&pfd, 1, 1000), 1);
	igt_assert_lt(0, read(c->kms.fd, ev, sizeof(ev)));
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &fb, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	primepair_ref_blend(c->ref, c->w, c->h, &cursor, 100, 50, 0, 0, 64, 64,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &cursor);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/*
 * The CRTC shows black, and the planes left on it, without its primary
 * plane; removing the framebuffer the primary shows (RMFB) turns off just
 * that plane, not the CRTC.  IGT's kms_plane pixel-format found RMFB
 * switching the whole CRTC off.
 */
static void test_primary_off(struct ctx *c)
{
	drmModeAtomicReqPtr req;
	struct primepair_fb fb, ov_fb;
	uint32_t ov = c->o->overlays[0];

	igt_require(c->o->noverlays > 0);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 21);
	primepair_fb_create(c->kms.fd, 100, 80, DRM_FORMAT_XRGB8888, &ov_fb);
	primepair_fb_fill_random(&ov_fb, 22);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &fb), 0);
	set_overlay(c, ov, &ov_fb, 30, 20, 0, 0, 100, 80, 0xffff,
		    PRIMEPAIR_BLEND_PREMULTI);

	/* Primary off, CRTC on: the overlay over black */
	req = drmModeAtomicAlloc();
	primepair_add_plane_off(c->kms.fd, req, c->o->primary);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &ov_fb, 30, 20, 0, 0, 100, 80,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
	check(c, 0);

	/* RMFB of the primary's framebuffer keeps the CRTC on */
	req = drmModeAtomicAlloc();
	primepair_add_plane(c->kms.fd, req, c->o->primary, c->o->crtc_id, &fb,
			    0, 0, 0, 0, c->w, c->h);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	igt_assert_eq(drmModeRmFB(c->kms.fd, fb.fb_id), 0);
	fb.fb_id = 0;
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					       DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->primary,
					       DRM_MODE_OBJECT_PLANE, "FB_ID"), 0);
	check(c, 0);

	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &ov_fb);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/* The "rotation" property's bits (DRM_MODE_ROTATE_*, DRM_MODE_REFLECT_*) */
#define ROT_0		(1u << 0)
#define ROT_90		(1u << 1)
#define ROT_180		(1u << 2)
#define ROT_270		(1u << 3)
#define REFLECT_X	(1u << 4)
#define REFLECT_Y	(1u << 5)

/* The values property @name of @plane offers, as a mask of 1 << value */
static uint64_t prop_values(struct ctx *c, uint32_t plane, const char *name)
{
	uint32_t id = primepair_prop_id(c->kms.fd, plane, DRM_MODE_OBJECT_PLANE,
					name);
	drmModePropertyRes *pr = drmModeGetProperty(c->kms.fd, id);
	uint64_t values = 0;

	igt_assert(pr);
	for (int i = 0; i < pr->count_enums; i++)
		values |= 1ull << pr->enums[i].value;
	drmModeFreeProperty(pr);
	return values;
}

/*
 * Every plane of the output back to rotation 0 and the default scaling
 * filter, as the next subtests expect them, all planes and CRTCs off.
 */
static void planes_upright(struct ctx *c)
{
	drmModeAtomicReqPtr req;
	uint32_t planes[PRIMEPAIR_MAX_PLANES + 2];
	unsigned int n = 0;

	primepair_disable_all(&c->kms);
	planes[n++] = c->o->primary;
	for (unsigned int i = 0; i < c->o->noverlays; i++)
		planes[n++] = c->o->overlays[i];
	if (c->o->cursor)
		planes[n++] = c->o->cursor;
	req = drmModeAtomicAlloc();
	for (unsigned int i = 0; i < n; i++) {
		primepair_add(c->kms.fd, req, planes[i], DRM_MODE_OBJECT_PLANE,
			      "rotation", ROT_0);
		primepair_add(c->kms.fd, req, planes[i], DRM_MODE_OBJECT_PLANE,
			      "SCALING_FILTER", 0);
	}
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
}

/* Commit one property of @plane; returns 0 or -errno */
static int set_plane_prop(struct ctx *c, uint32_t plane, const char *name,
			  uint64_t value)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	primepair_add(c->kms.fd, req, plane, DRM_MODE_OBJECT_PLANE, name, value);
	ret = primepair_commit(c->kms.fd, req, 0);
	drmModeAtomicFree(req);
	return ret;
}

/*
 * Where pixel (x, y) of a @w x @h framebuffer lands in the plane's
 * rotated view: reflections first, then the counter-clockwise rotation,
 * as the "rotation" property is documented.
 */
static void rotate_point(uint32_t rot, int w, int h, int x, int y,
			 int *rx, int *ry)
{
	if (rot & REFLECT_X)
		x = w - 1 - x;
	if (rot & REFLECT_Y)
		y = h - 1 - y;
	if (rot & ROT_90) {
		*rx = y;
		*ry = w - 1 - x;
	} else if (rot & ROT_180) {
		*rx = w - 1 - x;
		*ry = h - 1 - y;
	} else if (rot & ROT_270) {
		*rx = h - 1 - y;
		*ry = x;
	} else {
		*rx = x;
		*ry = y;
	}
}

/*
 * The framebuffer pixel that pixel (@a, @b) of the plane's rotated view
 * shows: rotate_point() undone, the rotation first, then the reflections.
 */
static void unrotate_point(uint32_t rot, int w, int h, int a, int b,
			   int *x, int *y)
{
	if (rot & ROT_90) {
		*x = w - 1 - b;
		*y = a;
	} else if (rot & ROT_180) {
		*x = w - 1 - a;
		*y = h - 1 - b;
	} else if (rot & ROT_270) {
		*x = b;
		*y = h - 1 - a;
	} else {
		*x = a;
		*y = b;
	}
	if (rot & REFLECT_X)
		*x = w - 1 - *x;
	if (rot & REFLECT_Y)
		*y = h - 1 - *y;
}

/*
 * Pixel (@x, @y) of the framebuffer @arg, of a format without alpha, for
 * show_placed()
 */
static uint32_t fb_pixel(const void *arg, int x, int y)
{
	const struct primepair_fb *fb = arg;
	const uint8_t *p = (const uint8_t *)fb->map + (size_t)y * fb->pitch +
			   (size_t)x * fb->cpp;

	return primepair_read_pixel(p, fb->format) | 0xff000000u;
}

/* Where a plane shows what of its framebuffer */
struct placement {
	int32_t x, y;			/* on the CRTC */
	uint32_t w, h;
	uint32_t sx, sy, sw, sh;	/* of the framebuffer, in 16.16 */
	uint32_t rot;
};

/* The properties that put @fb on @plane as @p says */
static void add_placement(struct ctx *c, drmModeAtomicReqPtr req,
			  uint32_t plane, const struct primepair_fb *fb,
			  const struct placement *p)
{
	const uint32_t t = DRM_MODE_OBJECT_PLANE;

	/* The library's unscaled plane, then the source in 16.16 */
	primepair_add_plane(c->kms.fd, req, plane, c->o->crtc_id, fb, p->x, p->y,
			    0, 0, p->w, p->h);
	primepair_add(c->kms.fd, req, plane, t, "SRC_X", p->sx);
	primepair_add(c->kms.fd, req, plane, t, "SRC_Y", p->sy);
	primepair_add(c->kms.fd, req, plane, t, "SRC_W", p->sw);
	primepair_add(c->kms.fd, req, plane, t, "SRC_H", p->sh);
	primepair_add(c->kms.fd, req, plane, t, "rotation", p->rot);
}

/*
 * Show @fb on @plane as @p says, and draw into the reference what
 * Documentation/vdisplay.rst says of it: in the plane's rotated view of
 * the framebuffer, the source rectangle (its corners turned by
 * rotate_point() of a framebuffer one larger in 16.16, which moves
 * points rather than pixels) is stretched over the destination, and
 * destination pixel (i, j) shows the view pixel under its centre,
 * floor(view x + (i + 1/2) * view width / @p->w) and likewise down;
 * @pixel(@arg, ...) reads the framebuffer pixel behind it.  Only what
 * falls on the CRTC is drawn.
 */
static void show_placed(struct ctx *c, uint32_t plane, struct primepair_fb *fb,
			const struct placement *p,
			uint32_t (*pixel)(const void *arg, int x, int y),
			const void *arg)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int w16 = (int)(fb->width << 16) + 1, h16 = (int)(fb->height << 16) + 1;
	int x1, y1, x2, y2, fx, fy;
	int64_t vx, vy, vw, vh;

	add_placement(c, req, plane, fb, p);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);

	rotate_point(p->rot, w16, h16, p->sx, p->sy, &x1, &y1);
	rotate_point(p->rot, w16, h16, p->sx + p->sw, p->sy + p->sh, &x2, &y2);
	vx = x1 < x2 ? x1 : x2;
	vy = y1 < y2 ? y1 : y2;
	vw = abs(x2 - x1);
	vh = abs(y2 - y1);
	for (int64_t j = 0; j < p->h; j++) {
		int64_t y = p->y + j, b = (vy + (2 * j + 1) * vh / (2 * p->h)) >> 16;

		if (y < 0 || y >= c->h)
			continue;
		for (int64_t i = 0; i < p->w; i++) {
			int64_t x = p->x + i;
			int64_t a = (vx + (2 * i + 1) * vw / (2 * p->w)) >> 16;

			if (x < 0 || x >= c->w)
				continue;
			unrotate_point(p->rot, fb->width, fb->height, a, b,
				       &fx, &fy);
			c->ref[y * c->w + x] = pixel(arg, fx, fy);
		}
	}
}

/*
 * Show the @sw x @sh rectangle at (@sx, @sy) of @fb on @plane at (@x, @y),
 * rotated by @rot (its size on the CRTC swaps for 90 and 270), unscaled,
 * and draw the same into the reference.
 */
static void show_rotated(struct ctx *c, uint32_t plane, struct primepair_fb *fb,
			 int x, int y, int sx, int sy, int sw, int sh,
			 uint32_t rot,
			 uint32_t (*pixel)(const void *arg, int x, int y),
			 const void *arg)
{
	bool swap = rot & (ROT_90 | ROT_270);
	const struct placement p = {
		x, y, swap ? sh : sw, swap ? sw : sh,
		sx << 16, sy << 16, sw << 16, sh << 16, rot,
	};

	show_placed(c, plane, fb, &p, pixel, arg);
}

/*
 * Every rotation with every reflection on an overlay showing part of its
 * framebuffer, then a few on the cursor and on a full-screen primary.
 */
static void test_rotation(struct ctx *c)
{
	static const uint32_t rot_formats[] = {
		DRM_FORMAT_RGB565, DRM_FORMAT_BGR888, DRM_FORMAT_XRGB8888,
		DRM_FORMAT_XRGB16161616,
	};
	static const uint32_t rots[] = { ROT_0, ROT_90, ROT_180, ROT_270 };
	static const uint32_t refl[] = { 0, REFLECT_X, REFLECT_Y,
					 REFLECT_X | REFLECT_Y };
	struct primepair_fb fb, cur, tall;

	igt_require(c->o->noverlays > 0 && c->o->cursor);
	igt_assert_eq_u64(prop_values(c, c->o->overlays[0], "rotation"), 0x3f);

	primepair_fb_fill_random(&c->bg, 11);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	primepair_fb_create(c->kms.fd, 120, 80, DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 12);

	for (unsigned int r = 0; r < ARRAY_SIZE(rots); r++)
		for (unsigned int f = 0; f < ARRAY_SIZE(refl); f++) {
			igt_debug("overlay rotation 0x%x\n", rots[r] | refl[f]);
			ref_clear(c);
			primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0,
					    c->w, c->h, 0xffff,
					    PRIMEPAIR_BLEND_PREMULTI);
			show_rotated(c, c->o->overlays[0], &fb, 41, 23, 13, 7, 70,
				     50, rots[r] | refl[f], fb_pixel, &fb);
			check(c, 0);
		}

	/*
	 * Each size of pixel the rotated reader moves (2, 3, 4 and 8 bytes),
	 * in a framebuffer wider and taller than the run it reads at once,
	 * in each direction it reads one: along rows both ways, down and up
	 * columns.
	 */
	for (unsigned int i = 0; i < ARRAY_SIZE(rot_formats); i++) {
		struct primepair_fb big;

		primepair_fb_create(c->kms.fd, 200, 150, rot_formats[i], &big);
		primepair_fb_fill_random(&big, 15 + i);
		for (unsigned int r = 0; r < ARRAY_SIZE(rots); r++) {
			uint32_t rot = rots[r] | (r & 2 ? REFLECT_Y : REFLECT_X);

			igt_debug("%.4s rotation 0x%x\n",
				  (const char *)&rot_formats[i], rot);
			ref_clear(c);
			primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0,
					    0, c->w, c->h, 0xffff,
					    PRIMEPAIR_BLEND_PREMULTI);
			show_rotated(c, c->o->overlays[0], &big, 17, 9, 3, 5,
				     190, 140, rot, fb_pixel, &big);
			check(c, 0);
		}
		primepair_fb_destroy(c->kms.fd, &big);
	}

	/* The overlay off again, the cursor rotated over the background */
	primepair_fb_create(c->kms.fd, 64, 64, DRM_FORMAT_XRGB8888, &cur);
	primepair_fb_fill_random(&cur, 13);
	{
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		primepair_add_plane_off(c->kms.fd, req, c->o->overlays[0]);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);
	}
	for (unsigned int r = 0; r < ARRAY_SIZE(rots); r++) {
		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0,
				    c->w, c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		show_rotated(c, c->o->cursor, &cur, 100, 60, 0, 0, 64, 64,
			     rots[r] | (r & 1 ? REFLECT_X : 0), fb_pixel, &cur);
		check(c, 0);
	}

	/* A primary plane turned a quarter: its framebuffer is h x w */
	primepair_fb_create(c->kms.fd, c->h, c->w, DRM_FORMAT_XRGB8888, &tall);
	primepair_fb_fill_random(&tall, 14);
	{
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		primepair_add_plane_off(c->kms.fd, req, c->o->cursor);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);
	}
	ref_clear(c);
	show_rotated(c, c->o->primary, &tall, 0, 0, 0, 0, c->h, c->w,
		     ROT_270 | REFLECT_Y, fb_pixel, &tall);
	check(c, 0);

	planes_upright(c);
	primepair_fb_destroy(c->kms.fd, &tall);
	primepair_fb_destroy(c->kms.fd, &cur);
	primepair_fb_destroy(c->kms.fd, &fb);
}

/*
 * The YUV formats: chroma subsampling; two planes (luma, then Cb,Cr
 * pairs) or three (luma, Cb, Cr); Cr before Cb (in the pair, or as the
 * plane after luma); 16-bit little-endian samples with the 10 bits at
 * the top (P010), all 10 of which vdisplay reads.
 */
static const struct yuv_format {
	uint32_t format, hsub, vsub, planes;
	bool swap, wide;
} yuv_formats[] = {
	{ DRM_FORMAT_NV12, 2, 2, 2, false, false },
	{ DRM_FORMAT_NV21, 2, 2, 2, true, false },
	{ DRM_FORMAT_NV16, 2, 1, 2, false, false },
	{ DRM_FORMAT_NV61, 2, 1, 2, true, false },
	{ DRM_FORMAT_NV24, 1, 1, 2, false, false },
	{ DRM_FORMAT_NV42, 1, 1, 2, true, false },
	{ DRM_FORMAT_YUV420, 2, 2, 3, false, false },
	{ DRM_FORMAT_YVU420, 2, 2, 3, true, false },
	{ DRM_FORMAT_YUV422, 2, 1, 3, false, false },
	{ DRM_FORMAT_YUV444, 1, 1, 3, false, false },
	{ DRM_FORMAT_P010, 2, 2, 2, false, true },
};

/*
 * BT.601, BT.709 and BT.2020 YCbCr to RGB for values in 8-bit units
 * (P010's with two bits of fraction), in double precision from each
 * standard's Kr and Kb, rounded and clamped.
 */
static uint32_t yuv_to_rgb(double y, double cb, double cr, int encoding,
			   bool full)
{
	static const double k[3][2] = {
		{ 0.299, 0.114 }, { 0.2126, 0.0722 }, { 0.2627, 0.0593 },
	};
	double kr = k[encoding][0], kb = k[encoding][1], kg = 1 - kr - kb;
	double yy = full ? y : (y - 16) * 255.0 / 219;
	double u = (cb - 128) * (full ? 1 : 255.0 / 224);
	double v = (cr - 128) * (full ? 1 : 255.0 / 224);
	double rgb[3] = {
		yy + 2 * (1 - kr) * v,
		yy - 2 * kb * (1 - kb) / kg * u - 2 * kr * (1 - kr) / kg * v,
		yy + 2 * (1 - kb) * u,
	};
	uint32_t out = 0xff000000u;

	for (int i = 0; i < 3; i++)
		out |= (uint32_t)fmin(fmax(round(rgb[i]), 0), 255) << (16 - 8 * i);
	return out;
}

/* A YUV framebuffer as the reference reads it, in one encoding and range */
struct yuv_fb {
	const struct yuv_format *f;
	const uint8_t *map;
	uint32_t offsets[4], pitches[4];
	int encoding;
	bool full;
};

/*
 * Sample @i of the line at @p, in 8-bit units: a byte, or the top 10 bits
 * of a little-endian 16-bit word.
 */
static double yuv_sample(const uint8_t *p, size_t i, bool wide)
{
	return wide ? ((p[2 * i] | p[2 * i + 1] << 8) & 0xffc0) / 256.0 : p[i];
}

/* Line @y of plane @plane of @yf */
static const uint8_t *yuv_line(const struct yuv_fb *yf, unsigned int plane,
			       uint32_t y)
{
	return yf->map + yf->offsets[plane] + (size_t)y * yf->pitches[plane];
}

/*
 * Pixel (@x, @y) of the struct yuv_fb @arg, with the chroma of the sample
 * that covers it, for show_rotated()
 */
static uint32_t yuv_pixel(const void *arg, int x, int y)
{
	const struct yuv_fb *yf = arg;
	const struct yuv_format *f = yf->f;
	uint32_t cx = x / f->hsub, cy = y / f->vsub;
	double luma = yuv_sample(yuv_line(yf, 0, y), x, f->wide), cb, cr;

	if (f->planes == 2) {
		const uint8_t *c = yuv_line(yf, 1, cy);

		cb = yuv_sample(c, 2 * cx + f->swap, f->wide);
		cr = yuv_sample(c, 2 * cx + !f->swap, f->wide);
	} else {
		cb = yuv_sample(yuv_line(yf, 1 + f->swap, cy), cx, false);
		cr = yuv_sample(yuv_line(yf, 2 - f->swap, cy), cx, false);
	}
	return yuv_to_rgb(luma, cb, cr, yf->encoding, yf->full);
}

/*
 * A @w x @h framebuffer of YUV format @f in one dumb buffer holding all
 * planes, luma first; the third plane of a three-plane format has a
 * pitch of its own, and every byte, P010's unused low bits too, is
 * pseudo-random.  @yb->fb has only the size and the framebuffer id.
 */
struct yuv_buf {
	struct yuv_fb yf;
	struct primepair_fb fb;
	uint32_t handle;
	uint64_t size;
	uint8_t *map;
};

static void yuv_buf_create(struct ctx *c, const struct yuv_format *f,
			   uint32_t w, uint32_t h, struct yuv_buf *yb)
{
	struct yuv_fb *yf = &yb->yf;
	uint32_t pitch, handles[4] = {};
	uint64_t off;

	memset(yb, 0, sizeof(*yb));
	yf->f = f;
	yb->fb.width = w;
	yb->fb.height = h;
	/*
	 * 2w bytes a line, 3h lines: the widest lines (P010's luma and
	 * chroma, NV24's chroma) and three full planes (YUV444) fit.
	 */
	igt_assert_eq(drmModeCreateDumbBuffer(c->kms.fd, 2 * w, 3 * h, 8, 0,
					      &yb->handle, &pitch, &yb->size), 0);
	igt_assert_eq(drmModeMapDumbBuffer(c->kms.fd, yb->handle, &off), 0);
	yb->map = mmap(NULL, yb->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       c->kms.fd, off);
	igt_assert(yb->map != MAP_FAILED);
	for (uint64_t i = 0; i < yb->size; i++)
		yb->map[i] = (uint8_t)((i * 2654435761u) >> 13);
	yf->map = yb->map;
	for (unsigned int i = 0; i < f->planes; i++) {
		handles[i] = yb->handle;
		yf->pitches[i] = pitch;
	}
	yf->offsets[1] = pitch * h;
	if (f->planes == 3) {
		yf->offsets[2] = yf->offsets[1] +
				 pitch * ((h + f->vsub - 1) / f->vsub);
		yf->pitches[2] = pitch - 64;
	}
	igt_assert_eq(drmModeAddFB2(c->kms.fd, w, h, f->format, handles,
				    yf->pitches, yf->offsets, &yb->fb.fb_id, 0),
		      0);
}

static void yuv_buf_destroy(struct ctx *c, struct yuv_buf *yb)
{
	igt_assert_eq(drmModeRmFB(c->kms.fd, yb->fb.fb_id), 0);
	munmap(yb->map, yb->size);
	igt_assert_eq(drmModeDestroyDumbBuffer(c->kms.fd, yb->handle), 0);
}

/*
 * Every YUV format on an overlay, in each COLOR_ENCODING and COLOR_RANGE,
 * then turned a quarter and reflected (the composer reads YUV down a
 * column a pixel at a time), then half a turn and reflected alone from an
 * odd column (it reads a row's run from its left end, which then starts
 * halfway through a chroma pair, and reverses it), against the reference
 * within 1 per channel, from a yuv_buf_create() buffer.
 */
static void test_yuv(struct ctx *c)
{
	const uint32_t w = 200, h = 150, x0 = 37, y0 = 29, sx = 10, sy = 6;
	const uint32_t cw = 170, ch = 120, t = DRM_MODE_OBJECT_PLANE;
	uint32_t ov = c->o->overlays[0];

	igt_require(c->o->noverlays > 0);
	primepair_fb_fill_random(&c->bg, 21);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);

	for (unsigned int f = 0; f < ARRAY_SIZE(yuv_formats); f++) {
		struct yuv_buf yb;
		struct yuv_fb yf;
		struct primepair_fb fb;

		yuv_buf_create(c, &yuv_formats[f], w, h, &yb);
		yf = yb.yf;
		fb = yb.fb;

		for (yf.encoding = 0; yf.encoding < 3; yf.encoding++)
			for (int full = 0; full < 2; full++) {
				drmModeAtomicReqPtr req = drmModeAtomicAlloc();

				igt_debug("%.4s encoding %d full %d\n",
					  (const char *)&yf.f->format,
					  yf.encoding, full);
				yf.full = full;
				primepair_add(c->kms.fd, req, ov, t,
					      "COLOR_ENCODING", yf.encoding);
				primepair_add(c->kms.fd, req, ov, t,
					      "COLOR_RANGE", full);
				igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
				drmModeAtomicFree(req);

				ref_clear(c);
				primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0,
						    0, 0, c->w, c->h, 0xffff,
						    PRIMEPAIR_BLEND_PREMULTI);
				show_rotated(c, ov, &fb, x0, y0, sx, sy, cw, ch,
					     ROT_0, yuv_pixel, &yf);
				check(c, 1);
			}

		/* In BT.2020 full range, as the last commit left the plane */
		igt_debug("%.4s turned\n", (const char *)&yf.f->format);
		yf.encoding = 2;
		yf.full = true;
		ref_clear(c);
		primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0,
				    c->w, c->h, 0xffff, PRIMEPAIR_BLEND_PREMULTI);
		show_rotated(c, ov, &fb, x0, y0, sx, sy, cw, ch,
			     ROT_90 | REFLECT_X, yuv_pixel, &yf);
		check(c, 1);
		for (unsigned int r = 0; r < 2; r++) {
			igt_debug("%.4s %s from an odd column\n",
				  (const char *)&yf.f->format,
				  r ? "reflected" : "half a turn");
			ref_clear(c);
			primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0,
					    0, 0, c->w, c->h, 0xffff,
					    PRIMEPAIR_BLEND_PREMULTI);
			show_rotated(c, ov, &fb, x0, y0, sx + 1, sy, cw - 2,
				     ch, r ? ROT_0 | REFLECT_X : ROT_180,
				     yuv_pixel, &yf);
			check(c, 1);
		}

		primepair_disable_all(&c->kms);
		igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
		yuv_buf_destroy(c, &yb);
	}

	planes_upright(c);
}

/* DRM_SCALING_FILTER_* values of the "SCALING_FILTER" enum */
#define FILTER_DEFAULT	0
#define FILTER_NEAREST	1

/* @px and @quarters quarters of a pixel, in 16.16 */
#define Q16(px, quarters)	((uint32_t)(px) << 16 | (uint32_t)(quarters) << 14)

/*
 * Show @p on @plane after a commit that left the screen as @c->ref has
 * it, and check the picture: the reference keeps the rest of the screen.
 */
static void check_placed(struct ctx *c, uint32_t plane, struct primepair_fb *fb,
			 const struct placement *p,
			 uint32_t (*pixel)(const void *arg, int x, int y),
			 const void *arg, unsigned int tolerance)
{
	igt_debug("%ux%u from %.2fx%.2f at %.2f,%.2f, rotation 0x%x\n",
		  p->w, p->h, p->sw / 65536.0, p->sh / 65536.0,
		  p->sx / 65536.0, p->sy / 65536.0, p->rot);
	show_placed(c, plane, fb, p, pixel, arg);
	check(c, tolerance);
}

/* The background on the primary, in the reference too */
static void ref_background(struct ctx *c)
{
	ref_clear(c);
	primepair_ref_blend(c->ref, c->w, c->h, &c->bg, 0, 0, 0, 0, c->w, c->h,
			    0xffff, PRIMEPAIR_BLEND_PREMULTI);
}

/*
 * Overlay placements against their references (Documentation/vdisplay.rst,
 * nearest neighbour): up, down, both at once, sub-pixel sources (scaled
 * and not), turned, at the limits 8 and 1/8, partly off the CRTC; then
 * placements a little beyond the limits, also where only the rotated view
 * exceeds them, fail with ERANGE (drm_atomic_helper_check_plane_state())
 * and leave the screen as it was, as does a SCALING_FILTER of no known
 * value (EINVAL).  Then a framebuffer of three bytes a pixel scaled up
 * and down, a scaled primary of 16 bits per channel, a scaled
 * cursor turned half a turn, and scaled YUV of two and three planes and
 * P010, turned, reflected or upright, up and down.
 */
static void test_scaling(struct ctx *c)
{
	const int32_t h = c->h;
	const struct {
		bool big;
		uint32_t filter;
		struct placement p;
	} good[] = {
		/* 64x48 at 200x150, with either filter */
		{ false, FILTER_DEFAULT, { 37, 29, 200, 150, 0, 0,
			Q16(64, 0), Q16(48, 0), ROT_0 } },
		{ false, FILTER_NEAREST, { 37, 29, 200, 150, 0, 0,
			Q16(64, 0), Q16(48, 0), ROT_0 } },
		/* 400x300 at 100x75 */
		{ true, FILTER_DEFAULT, { 300, 200, 100, 75, 0, 0,
			Q16(400, 0), Q16(300, 0), ROT_0 } },
		/* down across, up down, from a sub-pixel source */
		{ true, FILTER_NEAREST, { 20, 40, 123, 301, Q16(10, 1), Q16(7, 2),
			Q16(300, 3), Q16(100, 2), ROT_0 } },
		/* turned: the 50x40 source's 40x50 view at 160x90 */
		{ false, FILTER_DEFAULT, { 50, 60, 160, 90, Q16(3, 2), Q16(2, 1),
			Q16(50, 0), Q16(40, 0), ROT_90 | REFLECT_X } },
		/* the limits: 8 times as large, an eighth of the size */
		{ false, FILTER_NEAREST, { 0, 0, 512, 384, 0, 0,
			Q16(64, 0), Q16(48, 0), ROT_0 } },
		{ true, FILTER_DEFAULT, { 10, 10, 50, 37, 0, 0,
			Q16(400, 0), Q16(296, 0), ROT_0 } },
		/* unscaled, but from 3.75, 2.5: the nearest pixels, 4, 3 */
		{ false, FILTER_DEFAULT, { 60, 70, 50, 40, Q16(3, 3), Q16(2, 2),
			Q16(50, 0), Q16(40, 0), ROT_0 } },
		/* partly off the CRTC, left and below, turned */
		{ false, FILTER_DEFAULT, { -70, h - 60, 200, 150, Q16(1, 2),
			Q16(0, 3), Q16(60, 0), Q16(45, 0), ROT_180 | REFLECT_Y } },
	};
	const struct {
		bool big;
		struct placement p;
	} bad[] = {
		/* 8.02 times as wide, as tall */
		{ false, { 0, 0, 513, 150, 0, 0, Q16(64, 0), Q16(48, 0),
			ROT_0 } },
		{ false, { 0, 0, 200, 385, 0, 0, Q16(64, 0), Q16(48, 0),
			ROT_0 } },
		/* 8 times a source 1/65536 of a pixel short of 64 */
		{ false, { 0, 0, 512, 384, 0, 0, Q16(64, 0) - 1, Q16(48, 0),
			ROT_0 } },
		/* 1/8.16 as wide, 1/8.11 as tall */
		{ true, { 0, 0, 49, 75, 0, 0, Q16(400, 0), Q16(300, 0),
			ROT_0 } },
		{ true, { 0, 0, 100, 37, 0, 0, Q16(400, 0), Q16(300, 0),
			ROT_0 } },
		/* 385 wide is 6 times 64, but 8.02 times the turned 48 */
		{ false, { 0, 0, 385, 150, 0, 0, Q16(64, 0), Q16(48, 0),
			ROT_270 } },
	};
	const struct {
		uint32_t format;
		struct placement p;
	} yuv[] = {
		{ DRM_FORMAT_NV12, { 30, 20, 301, 97, Q16(10, 2), Q16(6, 1),
			Q16(150, 0), Q16(120, 2), ROT_270 } },
		{ DRM_FORMAT_YUV420, { 400, 300, 77, 55, 0, 0,
			Q16(200, 0), Q16(150, 0), ROT_0 | REFLECT_Y } },
		{ DRM_FORMAT_P010, { 100, 50, 333, 222, Q16(0, 2), Q16(1, 1),
			Q16(199, 0), Q16(148, 2), ROT_90 | REFLECT_X } },
		/* up, half a turn, from an odd column: runs of a row */
		{ DRM_FORMAT_NV12, { 60, 40, 301, 225, Q16(11, 0), Q16(7, 0),
			Q16(150, 0), Q16(112, 2), ROT_180 } },
		{ DRM_FORMAT_P010, { 20, 30, 250, 180, Q16(13, 0), Q16(3, 0),
			Q16(125, 0), Q16(90, 0), ROT_0 } },
	};
	uint32_t ov = c->o->overlays[0];
	struct primepair_fb small, big, wide, cur, rgb;
	unsigned int i;

	igt_require(c->o->noverlays > 0 && c->o->cursor);
	igt_assert_eq_u64(prop_values(c, c->o->primary, "SCALING_FILTER"), 3);
	for (i = 0; i < c->o->noverlays; i++)
		igt_assert_eq_u64(prop_values(c, c->o->overlays[i],
					      "SCALING_FILTER"), 3);
	igt_assert_eq_u64(prop_values(c, c->o->cursor, "SCALING_FILTER"), 3);

	primepair_fb_fill_random(&c->bg, 71);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	primepair_fb_create(c->kms.fd, 64, 48, DRM_FORMAT_XRGB8888, &small);
	primepair_fb_fill_random(&small, 72);
	primepair_fb_create(c->kms.fd, 400, 300, DRM_FORMAT_XRGB8888, &big);
	primepair_fb_fill_random(&big, 73);

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct primepair_fb *fb = good[i].big ? &big : &small;

		igt_assert_eq(set_plane_prop(c, ov, "SCALING_FILTER",
					     good[i].filter), 0);
		igt_assert_eq_u64(primepair_prop_value(c->kms.fd, ov,
						       DRM_MODE_OBJECT_PLANE,
						       "SCALING_FILTER"),
				  good[i].filter);
		ref_background(c);
		check_placed(c, ov, fb, &good[i].p, fb_pixel, fb, 0);
	}

	/* The last picture stays through every refused commit. */
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		igt_debug("refused: %ux%u, rotation 0x%x\n", bad[i].p.w,
			  bad[i].p.h, bad[i].p.rot);
		add_placement(c, req, ov, bad[i].big ? &big : &small,
			      &bad[i].p);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -ERANGE);
		drmModeAtomicFree(req);
		check(c, 0);
	}
	igt_assert_eq(set_plane_prop(c, ov, "SCALING_FILTER", 2), -EINVAL);
	igt_assert_eq(set_plane_prop(c, ov, "SCALING_FILTER", ~0ull), -EINVAL);
	check(c, 0);

	/*
	 * Three bytes a pixel: up by 3/2 reflected (the composer reads a
	 * row's run once and repeats its pixels), down by 4/3 and turned
	 * half a turn (it gathers them one by one).
	 */
	{
		const struct placement up = {
			40, 30, 96, 72, 0, 0, Q16(64, 0), Q16(48, 0),
			ROT_0 | REFLECT_X,
		};
		const struct placement down = {
			300, 200, 45, 33, Q16(1, 0), Q16(2, 0), Q16(60, 0),
			Q16(44, 0), ROT_180,
		};

		primepair_fb_create(c->kms.fd, 64, 48, DRM_FORMAT_BGR888, &rgb);
		primepair_fb_fill_random(&rgb, 76);
		ref_background(c);
		check_placed(c, ov, &rgb, &up, fb_pixel, &rgb, 0);
		ref_background(c);
		check_placed(c, ov, &rgb, &down, fb_pixel, &rgb, 0);
	}

	/* The overlay off; the primary, 16 bits per channel, twice as large */
	{
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		const struct placement p = {
			0, 0, c->w, c->h, 0, 0, Q16(c->w / 2, 0),
			Q16(c->h / 2, 0), ROT_0,
		};

		primepair_add_plane_off(c->kms.fd, req, ov);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);
		primepair_fb_create(c->kms.fd, c->w / 2, c->h / 2,
				    DRM_FORMAT_XRGB16161616, &wide);
		primepair_fb_fill_random(&wide, 74);
		ref_clear(c);
		check_placed(c, c->o->primary, &wide, &p, fb_pixel, &wide, 0);
	}

	/* A 64x64 RGB565 cursor at 32x24, turned half a turn, over it */
	{
		const struct placement p = {
			100, 60, 32, 24, 0, 0, Q16(64, 0), Q16(64, 0), ROT_180,
		};

		primepair_fb_create(c->kms.fd, 64, 64, DRM_FORMAT_RGB565, &cur);
		primepair_fb_fill_random(&cur, 75);
		check_placed(c, c->o->cursor, &cur, &p, fb_pixel, &cur, 0);
	}

	/* YUV on the overlay in BT.709, limited range, over the background */
	primepair_disable_all(&c->kms);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
	igt_assert_eq(set_plane_prop(c, ov, "COLOR_ENCODING", 1), 0);
	igt_assert_eq(set_plane_prop(c, ov, "COLOR_RANGE", 0), 0);
	for (i = 0; i < ARRAY_SIZE(yuv); i++) {
		const struct yuv_format *f = yuv_formats;
		struct yuv_buf yb;

		while (f->format != yuv[i].format)
			f++;
		yuv_buf_create(c, f, 200, 150, &yb);
		yb.yf.encoding = 1;
		ref_background(c);
		check_placed(c, ov, &yb.fb, &yuv[i].p, yuv_pixel, &yb.yf, 1);
		primepair_disable_all(&c->kms);
		igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->bg), 0);
		yuv_buf_destroy(c, &yb);
	}

	planes_upright(c);
	primepair_fb_destroy(c->kms.fd, &rgb);
	primepair_fb_destroy(c->kms.fd, &cur);
	primepair_fb_destroy(c->kms.fd, &wide);
	primepair_fb_destroy(c->kms.fd, &big);
	primepair_fb_destroy(c->kms.fd, &small);
}

igt_main
{
	struct ctx c = {};
	unsigned int i;

	igt_fixture
		ctx_init(&c);

	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		igt_subtest_f("primary-%.4s", (const char *)&formats[i]) {
			ctx_reset(&c);
			test_primary_format(&c, formats[i]);
		}
	}
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		igt_subtest_f("overlay-%.4s", (const char *)&formats[i]) {
			ctx_reset(&c);
			test_overlay_format(&c, formats[i]);
		}
	}
	igt_describe("Every half float, as colour and as alpha, reads as the reference says");
	igt_subtest("half-float-values") {
		ctx_reset(&c);
		test_half_float_values(&c);
	}
	igt_describe("10- and 16-bit framebuffers keep every bit through the composer to a writeback of their depth; 16-bit alpha blends exactly");
	igt_subtest("deep-color") {
		ctx_reset(&c);
		test_deep_color(&c);
	}
	igt_subtest("clipping") {
		ctx_reset(&c);
		test_clipping(&c);
	}
	igt_subtest("cursor-move") {
		ctx_reset(&c);
		test_cursor(&c);
	}
	igt_describe("The cursor sizes userspace is told of, from the caps and SIZE_HINTS, all blend exactly");
	igt_subtest("cursor-sizes") {
		ctx_reset(&c);
		test_cursor_sizes(&c);
	}
	igt_subtest("writeback-formats") {
		ctx_reset(&c);
		test_writeback_formats(&c);
	}
	igt_subtest("cursor-during-flip") {
		ctx_reset(&c);
		test_cursor_during_flip(&c);
	}
	igt_subtest("cursor-toggle-during-flip") {
		ctx_reset(&c);
		test_cursor_toggle_during_flip(&c);
	}
	igt_subtest("primary-off") {
		ctx_reset(&c);
		test_primary_off(&c);
	}
	igt_describe("After a commit with FB_DAMAGE_CLIPS only the damaged rows are composed again; without clips, or without a commit, the whole frame is");
	igt_subtest("damage-clips") {
		ctx_reset(&c);
		test_damage_clips(&c);
	}
	igt_describe("Malformed damage blobs and bad clips fail as the core says; clips past the framebuffer are cut to it");
	igt_subtest("damage-clips-bad") {
		ctx_reset(&c);
		test_damage_clips_bad(&c);
	}
	igt_describe("NV12, NV21, NV16, NV61, NV24, NV42, YUV420, YVU420, YUV422, YUV444 and P010 in BT.601, BT.709 and BT.2020, limited and full range, upright and turned");
	igt_subtest("yuv") {
		ctx_reset(&c);
		test_yuv(&c);
	}
	igt_describe("Planes rotate by 0, 90, 180 and 270 degrees and reflect in x and y, as the rotation property documents");
	igt_subtest("rotation") {
		ctx_reset(&c);
		test_rotation(&c);
	}
	igt_describe("Planes scale by 1/8 to 8 in each direction, sampled by nearest neighbour, with any rotation and format; beyond is ERANGE, a bad SCALING_FILTER EINVAL");
	igt_subtest("scaling") {
		ctx_reset(&c);
		test_scaling(&c);
	}
	igt_subtest("zpos") {
		ctx_reset(&c);
		test_zpos(&c);
	}

	igt_fixture {
		ctx_fini(&c);
		primepair_assert_summary_zero();
	}
}

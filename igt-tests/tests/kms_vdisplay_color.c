// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_color - the CRTC's colour pipeline: DEGAMMA_LUT, CTM and
 * GAMMA_LUT
 *
 * vdisplay applies GAMMA_LUT (256 entries) to the blended picture, so the
 * CRC and the writeback output show the corrected picture.  An identity
 * LUT changes nothing, other LUTs are checked pixel by pixel against a CPU
 * reference, LUTs of another size are refused with EINVAL, and the legacy
 * gamma ioctls work on top of GAMMA_LUT.  Before it come DEGAMMA_LUT (256
 * entries, 8 bits in, 16 out) and the CTM (S31.32 sign-magnitude), checked
 * against a reference in double precision, each channel within 1.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay CRTC colour: DEGAMMA_LUT, CTM, GAMMA_LUT and legacy gamma");

#define GAMMA_SIZE	256

struct ctx {
	struct primepair_kms kms;
	struct primepair_output *o;
	uint32_t w, h;
	struct primepair_fb fb, wb;
	uint32_t *ref;
	struct drm_color_lut lut[GAMMA_SIZE + 1];
};

/* Entry @i of a ramp from @from to @to (16-bit values) over GAMMA_SIZE */
static uint16_t ramp(unsigned int i, uint32_t from, uint32_t to)
{
	return (from * (GAMMA_SIZE - 1 - i) + to * i) / (GAMMA_SIZE - 1);
}

/* The linear ramp 0 to 0xffff, or the core's legacy default i << 8 */
static void lut_identity(struct drm_color_lut *lut, bool shifted)
{
	unsigned int i;

	for (i = 0; i < GAMMA_SIZE; i++)
		lut[i].red = lut[i].green = lut[i].blue =
			shifted ? i << 8 : ramp(i, 0, 0xffff);
}

static void lut_invert(struct drm_color_lut *lut)
{
	unsigned int i;

	for (i = 0; i < GAMMA_SIZE; i++)
		lut[i].red = lut[i].green = lut[i].blue = ramp(i, 0xffff, 0);
}

/* Each channel its own curve, to catch channels swapped or mixed. */
static void lut_channels(struct drm_color_lut *lut)
{
	unsigned int i;

	for (i = 0; i < GAMMA_SIZE; i++) {
		lut[i].red = ramp(i, 0xffff, 0);
		lut[i].green = ramp(i, 0, 0xffff);
		lut[i].blue = ramp(i, 0x2000, 0x9000) + 0x7f;
	}
}

/* A 16-bit LUT entry as vdisplay's 8-bit pipe uses it: its top 8 bits */
static uint32_t lut8(uint16_t v)
{
	return v >> 8;
}

/* The reference: the framebuffer's picture through @lut (NULL: none) */
static void ref_picture(struct ctx *c, const struct drm_color_lut *lut)
{
	uint32_t x, y;

	for (y = 0; y < c->h; y++)
		for (x = 0; x < c->w; x++) {
			const uint8_t *p = (const uint8_t *)c->fb.map +
				(size_t)y * c->fb.pitch + (size_t)x * 4;
			uint32_t px = primepair_read_pixel(p, c->fb.format);

			if (lut)
				px = 0xff000000u |
					lut8(lut[px >> 16 & 255].red) << 16 |
					lut8(lut[px >> 8 & 255].green) << 8 |
					lut8(lut[px & 255].blue);
			c->ref[y * c->w + x] = px;
		}
}

static void check_writeback(struct ctx *c, const struct drm_color_lut *lut)
{
	ref_picture(c, lut);
	memset(c->wb.map, 0, c->wb.size);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 0), 0);
}

/* The CRC of the first frame composed wholly after the call */
static uint32_t crc_now(struct ctx *c, struct primepair_crc *crc)
{
	uint64_t after = primepair_wait_vblank(&c->kms, c->o), frame;
	uint32_t value;

	do
		primepair_crc_get(crc, &frame, &value);
	while (frame <= after);
	return value;
}

static void ctx_init(struct ctx *c)
{
	primepair_kms_open(&c->kms);
	c->o = &c->kms.outputs[0];
	c->w = c->o->mode.hdisplay;
	c->h = c->o->mode.vdisplay;
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->fb);
	primepair_fb_fill_random(&c->fb, 4242);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->wb);
	c->ref = calloc((size_t)c->w * c->h, 4);
	igt_assert(c->ref);
}

/* Set the CRTC's blob property @name to @size bytes of @data (NULL: none) */
static int set_blob(struct ctx *c, const char *name, const void *data,
		    size_t size, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint32_t blob = 0;
	int ret;

	igt_assert(req);
	if (data)
		igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, data, size,
							&blob), 0);
	primepair_add(c->kms.fd, req, c->o->crtc_id, DRM_MODE_OBJECT_CRTC, name,
		      blob);
	ret = primepair_commit(c->kms.fd, req, flags);
	drmModeAtomicFree(req);
	if (blob)
		drmModeDestroyPropertyBlob(c->kms.fd, blob);
	return ret;
}

/* Each subtest starts lit, without a LUT; the card is left that way too. */
static void ctx_reset(struct ctx *c)
{
	igt_assert_eq(set_blob(c, "DEGAMMA_LUT", NULL, 0, 0), 0);
	igt_assert_eq(set_blob(c, "CTM", NULL, 0, 0), 0);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, NULL, 0, 0), 0);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
}

static void ctx_fini(struct ctx *c)
{
	set_blob(c, "DEGAMMA_LUT", NULL, 0, 0);
	set_blob(c, "CTM", NULL, 0, 0);
	primepair_set_gamma_lut(&c->kms, c->o, NULL, 0, 0);
	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &c->wb);
	primepair_fb_destroy(c->kms.fd, &c->fb);
	primepair_kms_close(&c->kms);
	free(c->ref);
}

static void test_properties(struct ctx *c)
{
	drmModeCrtcPtr crtc;

	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					       DRM_MODE_OBJECT_CRTC,
					       "GAMMA_LUT_SIZE"), GAMMA_SIZE);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					       DRM_MODE_OBJECT_CRTC,
					       "GAMMA_LUT"), 0);
	crtc = drmModeGetCrtc(c->kms.fd, c->o->crtc_id);
	igt_assert(crtc);
	igt_assert_eq(crtc->gamma_size, GAMMA_SIZE);
	drmModeFreeCrtc(crtc);
}

static void test_identity_crc(struct ctx *c)
{
	struct primepair_crc crc;
	uint32_t base;

	primepair_crc_start(&c->kms, c->o, &crc);
	base = crc_now(c, &crc);

	lut_identity(c->lut, false);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	igt_assert_eq_u32(crc_now(c, &crc), base);
	lut_identity(c->lut, true);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	igt_assert_eq_u32(crc_now(c, &crc), base);

	/* The LUT is in use: another one changes the CRC, and back again. */
	lut_invert(c->lut);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	igt_assert_neq_u32(crc_now(c, &crc), base);

	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, NULL, 0, 0), 0);
	igt_assert_eq_u32(crc_now(c, &crc), base);
	primepair_crc_stop(&crc);
}

static void test_invert_writeback(struct ctx *c)
{
	igt_require(c->o->wb_connector_id);

	check_writeback(c, NULL);

	lut_invert(c->lut);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	check_writeback(c, c->lut);

	lut_channels(c->lut);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	check_writeback(c, c->lut);

	/* A LUT set while the CRTC is off applies when it comes on. */
	primepair_disable_all(&c->kms);
	lut_invert(c->lut);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
	check_writeback(c, c->lut);
}

static void test_wrong_size(struct ctx *c)
{
	static const unsigned int sizes[] = { 1, GAMMA_SIZE - 1, GAMMA_SIZE + 1 };
	drmModeAtomicReqPtr req;
	uint32_t blob;
	unsigned int i;

	lut_identity(c->lut, false);
	c->lut[GAMMA_SIZE] = c->lut[GAMMA_SIZE - 1];
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
						      sizes[i],
						      DRM_MODE_ATOMIC_TEST_ONLY),
			      -EINVAL);
		igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
						      sizes[i], 0), -EINVAL);
	}

	/* Not a whole number of entries: refused by the core */
	igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, c->lut,
						GAMMA_SIZE * sizeof(c->lut[0]) + 4,
						&blob), 0);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(c->kms.fd, req, c->o->crtc_id, DRM_MODE_OBJECT_CRTC,
		      "GAMMA_LUT", blob);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -EINVAL);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(c->kms.fd, blob);

	/* Nothing of it stuck */
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					       DRM_MODE_OBJECT_CRTC,
					       "GAMMA_LUT"), 0);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, c->lut,
					      GAMMA_SIZE, 0), 0);
}

/*
 * Channel @ch of @gamma at the 16-bit value @v: the entries' top 8 bits
 * times 0x101, linearly interpolated between entries and rounded.
 */
static uint32_t gamma_at(const struct drm_color_lut *gamma, int ch, uint32_t v)
{
	uint32_t pos = v * (GAMMA_SIZE - 1), i = pos / 0xffff;
	uint32_t frac = pos % 0xffff;
	uint32_t lo = lut8((&gamma[i].red)[ch]) * 0x101, hi;

	if (!frac)
		return lo;
	hi = lut8((&gamma[i + 1].red)[ch]) * 0x101;
	return (lo * (0xffff - frac) + hi * frac + 0x7fff) / 0xffff;
}

/*
 * The reference of the whole pipeline: each 8-bit channel through
 * @degamma to 16 bits (without one, v * 0x101), the @ctm (row by row) in
 * double precision, rounded and clamped to [0, 0xffff], through @gamma
 * (gamma_at()), then rounded to 8 bits.  NULL: that stage is off.
 */
static void ref_pipeline(struct ctx *c, const struct drm_color_lut *degamma,
			 const double *ctm, const struct drm_color_lut *gamma)
{
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			const uint8_t *p = (const uint8_t *)c->fb.map +
				(size_t)y * c->fb.pitch + (size_t)x * 4;
			uint32_t px = primepair_read_pixel(p, c->fb.format);
			double in[3], v;
			uint32_t out = 0xff000000u, o8;

			for (int ch = 0; ch < 3; ch++) {
				uint32_t v8 = px >> (16 - 8 * ch) & 255;
				const uint16_t *e = degamma ?
					&degamma[v8].red + ch : NULL;

				in[ch] = e ? *e : v8 * 0x101;
			}
			for (int ch = 0; ch < 3; ch++) {
				v = ctm ? ctm[3 * ch] * in[0] +
					  ctm[3 * ch + 1] * in[1] +
					  ctm[3 * ch + 2] * in[2] : in[ch];
				v = fmin(fmax(round(v), 0), 65535);
				if (gamma)
					v = gamma_at(gamma, ch, (uint32_t)v);
				o8 = ((uint32_t)v * 255 + 0x7fff) / 0xffff;
				out |= o8 << (16 - 8 * ch);
			}
			c->ref[y * c->w + x] = out;
		}
}

static void check_pipeline(struct ctx *c, const struct drm_color_lut *degamma,
			   const double *ctm, const struct drm_color_lut *gamma)
{
	struct drm_color_ctm blob;

	if (ctm) {
		for (int i = 0; i < 9; i++)
			blob.matrix[i] = pp_s31_32(ctm[i]);
	}
	igt_assert_eq(set_blob(c, "DEGAMMA_LUT", degamma,
			       GAMMA_SIZE * sizeof(*degamma), 0), 0);
	igt_assert_eq(set_blob(c, "CTM", ctm ? &blob : NULL, sizeof(blob), 0),
		      0);
	igt_assert_eq(primepair_set_gamma_lut(&c->kms, c->o, gamma,
					      gamma ? GAMMA_SIZE : 0, 0), 0);
	ref_pipeline(c, degamma, ctm, gamma);
	memset(c->wb.map, 0, c->wb.size);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 1), 0);
}

static void test_ctm(struct ctx *c)
{
	static const double ctms[][9] = {
		{ 1, 0, 0,  0, 1, 0,  0, 0, 1 },		/* identity */
		{ 0, 0, 1,  1, 0, 0,  0, 1, 0 },		/* rotate channels */
		{ 0.5, 0, 0,  0, 0.25, 0,  0, 0, 0.75 },
		{ 0.299, 0.587, 0.114,  0.299, 0.587, 0.114,
		  0.299, 0.587, 0.114 },			/* grey */
		{ 2, 0, 0,  0, 1, -0.5,  -1, 0, 1.5 },		/* clamps */
	};
	uint64_t size;

	igt_require(c->o->wb_connector_id);
	igt_assert_eq(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					   DRM_MODE_OBJECT_CRTC, "CTM"), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(ctms); i++) {
		igt_debug("CTM %u\n", i);
		check_pipeline(c, NULL, ctms[i], NULL);
	}
	/* The identity matrix changes nothing, exactly. */
	check_pipeline(c, NULL, ctms[0], NULL);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 0), 0);
	ref_picture(c, NULL);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 0), 0);

	/* A blob of another size is no CTM. */
	size = sizeof(struct drm_color_ctm) - 8;
	igt_assert_eq(set_blob(c, "CTM", ctms[0], size, 0), -EINVAL);
}

static void test_degamma(struct ctx *c)
{
	struct drm_color_lut degamma[GAMMA_SIZE + 1], gamma[GAMMA_SIZE];
	static const double swap_rg[9] = { 0, 1, 0,  1, 0, 0,  0, 0, 1 };

	igt_require(c->o->wb_connector_id);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					       DRM_MODE_OBJECT_CRTC,
					       "DEGAMMA_LUT_SIZE"), GAMMA_SIZE);
	/* squares, a different curve per channel, and its inverse after */
	for (unsigned int i = 0; i < GAMMA_SIZE; i++) {
		degamma[i].red = i * i * 0xffff / (255 * 255);
		degamma[i].green = ramp(i, 0xffff, 0);
		degamma[i].blue = ramp(i, 0x1000, 0xf000);
		gamma[i].red = gamma[i].green = gamma[i].blue =
			(uint16_t)llround(sqrt(i / 255.0) * 0xffff);
	}
	degamma[GAMMA_SIZE] = degamma[GAMMA_SIZE - 1];
	check_pipeline(c, degamma, NULL, NULL);
	check_pipeline(c, degamma, NULL, gamma);
	check_pipeline(c, degamma, swap_rg, gamma);

	/* Another size is refused, the pipeline stays as it was. */
	igt_assert_eq(set_blob(c, "DEGAMMA_LUT", degamma,
			       (GAMMA_SIZE - 1) * sizeof(degamma[0]), 0), -EINVAL);
	igt_assert_eq(set_blob(c, "DEGAMMA_LUT", degamma,
			       (GAMMA_SIZE + 1) * sizeof(degamma[0]), 0), -EINVAL);
	memset(c->wb.map, 0, c->wb.size);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	igt_assert_eq_u32(primepair_compare(&c->wb, c->ref, 1), 0);
}

static void test_legacy(struct ctx *c)
{
	uint16_t r[GAMMA_SIZE], g[GAMMA_SIZE], b[GAMMA_SIZE];
	uint16_t rr[GAMMA_SIZE], gg[GAMMA_SIZE], bb[GAMMA_SIZE];
	struct primepair_crc crc;
	uint32_t base;
	unsigned int i;

	igt_require(c->o->wb_connector_id);
	primepair_crc_start(&c->kms, c->o, &crc);
	base = crc_now(c, &crc);

	lut_channels(c->lut);
	for (i = 0; i < GAMMA_SIZE; i++) {
		r[i] = c->lut[i].red;
		g[i] = c->lut[i].green;
		b[i] = c->lut[i].blue;
	}
	igt_assert_eq(drmModeCrtcSetGamma(c->kms.fd, c->o->crtc_id,
					  GAMMA_SIZE, r, g, b), 0);
	check_writeback(c, c->lut);

	/* It reads back, and it is the GAMMA_LUT of the CRTC now. */
	igt_assert_eq(drmModeCrtcGetGamma(c->kms.fd, c->o->crtc_id,
					  GAMMA_SIZE, rr, gg, bb), 0);
	igt_assert(!memcmp(r, rr, sizeof(r)) && !memcmp(g, gg, sizeof(g)) &&
		   !memcmp(b, bb, sizeof(b)));
	igt_assert_neq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
						DRM_MODE_OBJECT_CRTC,
						"GAMMA_LUT"), 0);

	/* Another size is refused, and the LUT stays. */
	igt_assert_eq(drmModeCrtcSetGamma(c->kms.fd, c->o->crtc_id,
					  GAMMA_SIZE - 1, r, g, b), -EINVAL);
	check_writeback(c, c->lut);

	/* A linear ramp gives the picture without LUT. */
	lut_identity(c->lut, false);
	for (i = 0; i < GAMMA_SIZE; i++)
		r[i] = g[i] = b[i] = c->lut[i].red;
	igt_assert_eq(drmModeCrtcSetGamma(c->kms.fd, c->o->crtc_id,
					  GAMMA_SIZE, r, g, b), 0);
	igt_assert_eq_u32(crc_now(c, &crc), base);
	primepair_crc_stop(&crc);
	check_writeback(c, NULL);
}

igt_main
{
	struct ctx c = {};

	igt_fixture
		ctx_init(&c);

	igt_subtest("gamma-properties") {
		ctx_reset(&c);
		test_properties(&c);
	}
	igt_subtest("gamma-identity-crc") {
		ctx_reset(&c);
		test_identity_crc(&c);
	}
	igt_subtest("gamma-invert-writeback") {
		ctx_reset(&c);
		test_invert_writeback(&c);
	}
	igt_subtest("gamma-wrong-size") {
		ctx_reset(&c);
		test_wrong_size(&c);
	}
	igt_describe("CTM: identity, channels rotated, scaled, mixed into grey, and clamped, each against a reference");
	igt_subtest("ctm-writeback") {
		ctx_reset(&c);
		test_ctm(&c);
	}
	igt_describe("DEGAMMA_LUT alone, with GAMMA_LUT after it, and with a CTM between; other sizes refused");
	igt_subtest("degamma-writeback") {
		ctx_reset(&c);
		test_degamma(&c);
	}
	igt_subtest("legacy-gamma") {
		ctx_reset(&c);
		test_legacy(&c);
	}

	igt_fixture {
		ctx_fini(&c);
		primepair_assert_summary_zero();
	}
}

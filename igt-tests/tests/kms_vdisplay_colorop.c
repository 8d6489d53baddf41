// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_colorop - the planes' colour pipeline (DRM colorops)
 *
 * Where the DRM core has colorops (7.x here), each vdisplay plane offers
 * one pipeline in COLOR_PIPELINE to a client that sets
 * DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE: a 1D curve, a multiplier, two 3x4
 * matrices, a shaper curve, a 1D LUT of 4096 entries, a 3D LUT of 17 points
 * a side, a third 1D curve and a second 1D LUT, each of which can be
 * bypassed.  The tests check what a compositor relies on: the pipeline's
 * shape as libdrm shows it, its output through the writeback connector
 * against a reference in double precision (each channel within 1; an
 * XRGB2101010 picture through a curve, to the code), that
 * bypass gives the picture back, that only the plane's own pixels change,
 * the errno of each kind of bad input, and what the core does with the
 * legacy COLOR_ENCODING and COLOR_RANGE for a client with the cap.  On
 * kernels without colorops every subtest skips.
 */

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay plane colour pipeline: 1D curve, multiplier, two 3x4 matrices, shaper curve, 1D LUT, 3D LUT, 1D curve, 1D LUT");


/* Values of the TYPE enum (enum drm_colorop_type) */
#define TYPE_1D_CURVE	0
#define TYPE_1D_LUT	1
#define TYPE_CTM_3X4	2
#define TYPE_MULTIPLIER	3
#define TYPE_3D_LUT	4

/* Values of the CURVE_1D_TYPE enum (enum drm_colorop_curve_1d_type) */
enum curve {
	SRGB_EOTF, SRGB_INV_EOTF, PQ_125_EOTF, PQ_125_INV_EOTF,
	BT2020_INV_OETF, BT2020_OETF, GAMMA22, GAMMA22_INV, NCURVES,
	NO_CURVE = -1,
};

static const char *const curve_names[NCURVES] = {
	"sRGB EOTF", "sRGB Inverse EOTF", "PQ 125 EOTF", "PQ 125 Inverse EOTF",
	"BT.2020 Inverse OETF", "BT.2020 OETF", "Gamma 2.2", "Gamma 2.2 Inverse",
};

/* The pipeline's operations, in order */
enum {
	OP_CURVE1, OP_DECODE, OP_MULT, OP_CTM, OP_CTM2, OP_SHAPER, OP_LUT,
	OP_LUT3D, OP_CURVE2, OP_LUT2, NOPS
};

/* The three 1D LUTs, in order */
static const int lut_ops[] = { OP_DECODE, OP_LUT, OP_LUT2 };
#define LUT_SIZE	4096
#define LUT3D_SIZE	17
#define LUT3D_ENTRIES	(LUT3D_SIZE * LUT3D_SIZE * LUT3D_SIZE)

/* struct drm_color_lut32 */
struct lut32 {
	uint32_t red, green, blue, reserved;
};

/* A plane's pipeline: its COLOR_PIPELINE value and its colorops in order */
struct pipe {
	uint32_t id;
	uint32_t ops[NOPS];
};

/*
 * What a test sets: NO_CURVE, NULL, 0, false: that operation bypassed.
 * The order of the fields is not the pipeline's, which enum OP_* gives.
 */
struct cfg {
	enum curve curve1;
	const double *matrix;		/* 12: three rows of r, g, b, offset */
	const struct lut32 *lut;	/* LUT_SIZE entries */
	enum curve curve2;
	double mult;			/* between curve1 and matrix */
	const double *matrix2;		/* after matrix */
	bool shaping;			/* the shaper curve on, as @shaper */
	enum curve shaper;		/* after matrix2, before lut */
	const struct lut32 *lut3d;	/* LUT3D_ENTRIES, after lut */
	const struct lut32 *lut2;	/* LUT_SIZE entries, after curve2 */
	const struct lut32 *decode;	/* LUT_SIZE entries, after curve1 */
};

struct ctx {
	struct primepair_kms kms;
	struct primepair_output *o;
	uint32_t w, h;
	struct primepair_fb fb, wb;
	uint32_t *ref;
	bool have;
	struct pipe primary, overlay;
};

/* ------------------------------------------------------------------
 * The curves, in double precision, from their standards
 */

static double curve_top(enum curve c)
{
	return c == PQ_125_INV_EOTF ? 125 : 1;
}

static double curve(enum curve c, double x)
{
	const double a = 1.09929682680944, b = 0.018053968510807;
	const double m1 = 2610 / 16384.0, m2 = 2523 / 32.0;
	const double c1 = 3424 / 4096.0, c2 = 2413 / 128.0, c3 = 2392 / 128.0;
	double p;

	x = fmin(fmax(x, 0), curve_top(c));
	switch (c) {
	case SRGB_EOTF:
		return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4);
	case SRGB_INV_EOTF:
		return x <= 0.0031308 ? x * 12.92 : 1.055 * pow(x, 1 / 2.4) - 0.055;
	case PQ_125_EOTF:
		p = pow(x, 1 / m2);
		return 125 * pow(fmax(p - c1, 0) / (c2 - c3 * p), 1 / m1);
	case PQ_125_INV_EOTF:
		p = pow(x / 125, m1);
		return pow((c1 + c2 * p) / (1 + c3 * p), m2);
	case BT2020_INV_OETF:
		return x < 4.5 * b ? x / 4.5 : pow((x + a - 1) / a, 1 / 0.45);
	case BT2020_OETF:
		return x < b ? 4.5 * x : a * pow(x, 0.45) - (a - 1);
	case GAMMA22:
		return pow(x, 2.2);
	case GAMMA22_INV:
		return pow(x, 1 / 2.2);
	default:
		return x;
	}
}

static double lut_channel(const struct lut32 *e, int ch)
{
	return (ch == 0 ? e->red : ch == 1 ? e->green : e->blue) / 4294967295.0;
}

static double lut_at(const struct lut32 *lut, int ch, double x)
{
	double pos = fmin(fmax(x, 0), 1) * (LUT_SIZE - 1), f;
	unsigned int i = (unsigned int)pos;
	double lo, hi;

	if (i >= LUT_SIZE - 1)
		i = LUT_SIZE - 2;
	f = pos - i;
	lo = lut_channel(&lut[i], ch);
	hi = lut_channel(&lut[i + 1], ch);
	return lo + (hi - lo) * f;
}

/*
 * @v through the 3D LUT, in the tetrahedron of the lattice's cube around
 * it that the order of its fractions picks (red the fastest axis)
 */
static void lut3d_at(const struct lut32 *lut, double *v)
{
	const int stride[3] = { 1, LUT3D_SIZE, LUT3D_SIZE * LUT3D_SIZE };
	int axis[3] = { 0, 1, 2 }, base = 0, t;
	double f[3], w[4], out[3] = {};

	for (int ch = 0; ch < 3; ch++) {
		double pos = fmin(fmax(v[ch], 0), 1) * (LUT3D_SIZE - 1);
		int i = (int)pos;

		if (i > LUT3D_SIZE - 2)
			i = LUT3D_SIZE - 2;
		f[ch] = pos - i;
		base += i * stride[ch];
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2 - i; j++)
			if (f[axis[j]] < f[axis[j + 1]]) {
				t = axis[j];
				axis[j] = axis[j + 1];
				axis[j + 1] = t;
			}
	w[0] = 1 - f[axis[0]];
	w[1] = f[axis[0]] - f[axis[1]];
	w[2] = f[axis[1]] - f[axis[2]];
	w[3] = f[axis[2]];
	for (int k = 0; k < 4; k++) {
		for (int ch = 0; ch < 3; ch++)
			out[ch] += w[k] * lut_channel(&lut[base], ch);
		if (k < 3)
			base += stride[axis[k]];
	}
	memcpy(v, out, sizeof(out));
}

/* @v through a 3x4 matrix */
static void ref_matrix(const double *matrix, double *v)
{
	double m[3];

	for (int ch = 0; ch < 3; ch++) {
		const double *row = &matrix[4 * ch];

		m[ch] = row[0] * v[0] + row[1] * v[1] + row[2] * v[2] + row[3];
	}
	memcpy(v, m, sizeof(m));
}

/* The reference of the pipeline for one XRGB pixel */
static uint32_t ref_pixel(const struct cfg *cfg, uint32_t px)
{
	uint32_t out = 0xff000000u;
	double v[3];
	int ch;

	for (ch = 0; ch < 3; ch++) {
		v[ch] = (px >> (16 - 8 * ch) & 255) / 255.0;
		if (cfg->curve1 != NO_CURVE)
			v[ch] = curve(cfg->curve1, v[ch]);
		if (cfg->decode)
			v[ch] = lut_at(cfg->decode, ch, v[ch]);
		if (cfg->mult)
			v[ch] *= cfg->mult;
	}
	if (cfg->matrix)
		ref_matrix(cfg->matrix, v);
	if (cfg->matrix2)
		ref_matrix(cfg->matrix2, v);
	for (ch = 0; ch < 3; ch++) {
		if (cfg->shaping)
			v[ch] = curve(cfg->shaper, v[ch]);
		if (cfg->lut)
			v[ch] = lut_at(cfg->lut, ch, v[ch]);
	}
	if (cfg->lut3d)
		lut3d_at(cfg->lut3d, v);
	for (ch = 0; ch < 3; ch++) {
		if (cfg->curve2 != NO_CURVE)
			v[ch] = curve(cfg->curve2, v[ch]);
		if (cfg->lut2)
			v[ch] = lut_at(cfg->lut2, ch, v[ch]);
		out |= (uint32_t)lround(fmin(fmax(v[ch], 0), 1) * 255) << (16 - 8 * ch);
	}
	return out;
}

/* ------------------------------------------------------------------
 * Finding and setting the pipeline
 */

static uint64_t op_value(struct ctx *c, uint32_t op, const char *name)
{
	return primepair_prop_value(c->kms.fd, op, DRM_MODE_OBJECT_COLOROP, name);
}

/* Whether object @id of @type lists property @name to this client */
static bool has_prop(int fd, uint32_t id, uint32_t type, const char *name)
{
	drmModeObjectPropertiesPtr props = drmModeObjectGetProperties(fd, id, type);
	bool found = false;

	igt_assert(props);
	for (uint32_t i = 0; i < props->count_props && !found; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		igt_assert(p);
		found = !strcmp(p->name, name);
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return found;
}

/* The pipeline COLOR_PIPELINE of @plane offers besides Bypass, walked */
static void find_pipeline(struct ctx *c, uint32_t plane, struct pipe *p)
{
	uint32_t prop = primepair_prop_id(c->kms.fd, plane, DRM_MODE_OBJECT_PLANE,
					  "COLOR_PIPELINE");
	drmModePropertyPtr info = drmModeGetProperty(c->kms.fd, prop);
	uint32_t op;
	int i;

	igt_assert(info && (info->flags & DRM_MODE_PROP_ENUM));
	igt_assert_eq(info->count_enums, 2);
	igt_assert_eq_u64(info->enums[0].value, 0);
	igt_assert(!strcmp(info->enums[0].name, "Bypass"));
	p->id = info->enums[1].value;
	igt_assert_neq_u32(p->id, 0);
	drmModeFreeProperty(info);

	for (i = 0, op = p->id; op; i++) {
		igt_assert_lt(i, NOPS);
		p->ops[i] = op;
		op = op_value(c, op, "NEXT");
	}
	igt_assert_eq(i, NOPS);
}

static void set_cap(struct ctx *c, int on)
{
	igt_assert_eq(drmSetClientCap(c->kms.fd, DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE,
				      on), 0);
}

static void add_op(struct ctx *c, drmModeAtomicReqPtr req, uint32_t op,
		   const char *name, uint64_t value)
{
	primepair_add(c->kms.fd, req, op, DRM_MODE_OBJECT_COLOROP, name, value);
}

static uint32_t blob_of(struct ctx *c, const void *data, size_t size)
{
	uint32_t blob;

	igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, data, size, &blob), 0);
	return blob;
}

/*
 * Select @p (NULL: Bypass) on @plane with @cfg's operations, committed
 * with @flags; returns 0 or -errno.
 */
static int set_pipeline(struct ctx *c, uint32_t plane, const struct pipe *p,
			const struct cfg *cfg, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint32_t ctm[2] = {}, decode = 0, lut = 0, lut3d = 0, lut2 = 0;
	int ret;

	igt_assert(req);
	primepair_add(c->kms.fd, req, plane, DRM_MODE_OBJECT_PLANE,
		      "COLOR_PIPELINE", p ? p->id : 0);
	p = p ?: plane == c->o->primary ? &c->primary : &c->overlay;
	add_op(c, req, p->ops[OP_CURVE1], "BYPASS", cfg->curve1 == NO_CURVE);
	if (cfg->curve1 != NO_CURVE)
		add_op(c, req, p->ops[OP_CURVE1], "CURVE_1D_TYPE", cfg->curve1);
	add_op(c, req, p->ops[OP_DECODE], "BYPASS", !cfg->decode);
	if (cfg->decode)
		decode = blob_of(c, cfg->decode, LUT_SIZE * sizeof(*cfg->decode));
	add_op(c, req, p->ops[OP_DECODE], "DATA", decode);
	add_op(c, req, p->ops[OP_MULT], "BYPASS", !cfg->mult);
	if (cfg->mult)
		add_op(c, req, p->ops[OP_MULT], "MULTIPLIER",
		       pp_s31_32(cfg->mult));
	for (int k = 0; k < 2; k++) {
		const double *matrix = k ? cfg->matrix2 : cfg->matrix;
		uint64_t m[12];

		if (matrix) {
			for (int i = 0; i < 12; i++)
				m[i] = pp_s31_32(matrix[i]);
			ctm[k] = blob_of(c, m, sizeof(m));
		}
		add_op(c, req, p->ops[OP_CTM + k], "BYPASS", !matrix);
		add_op(c, req, p->ops[OP_CTM + k], "DATA", ctm[k]);
	}
	add_op(c, req, p->ops[OP_SHAPER], "BYPASS", !cfg->shaping);
	if (cfg->shaping)
		add_op(c, req, p->ops[OP_SHAPER], "CURVE_1D_TYPE", cfg->shaper);
	add_op(c, req, p->ops[OP_LUT], "BYPASS", !cfg->lut);
	if (cfg->lut)
		lut = blob_of(c, cfg->lut, LUT_SIZE * sizeof(*cfg->lut));
	add_op(c, req, p->ops[OP_LUT], "DATA", lut);
	add_op(c, req, p->ops[OP_LUT3D], "BYPASS", !cfg->lut3d);
	if (cfg->lut3d)
		lut3d = blob_of(c, cfg->lut3d, LUT3D_ENTRIES * sizeof(*cfg->lut3d));
	add_op(c, req, p->ops[OP_LUT3D], "DATA", lut3d);
	add_op(c, req, p->ops[OP_CURVE2], "BYPASS", cfg->curve2 == NO_CURVE);
	if (cfg->curve2 != NO_CURVE)
		add_op(c, req, p->ops[OP_CURVE2], "CURVE_1D_TYPE", cfg->curve2);
	add_op(c, req, p->ops[OP_LUT2], "BYPASS", !cfg->lut2);
	if (cfg->lut2)
		lut2 = blob_of(c, cfg->lut2, LUT_SIZE * sizeof(*cfg->lut2));
	add_op(c, req, p->ops[OP_LUT2], "DATA", lut2);
	ret = primepair_commit(c->kms.fd, req, flags);
	drmModeAtomicFree(req);
	for (int k = 0; k < 2; k++)
		if (ctm[k])
			drmModeDestroyPropertyBlob(c->kms.fd, ctm[k]);
	if (decode)
		drmModeDestroyPropertyBlob(c->kms.fd, decode);
	if (lut)
		drmModeDestroyPropertyBlob(c->kms.fd, lut);
	if (lut3d)
		drmModeDestroyPropertyBlob(c->kms.fd, lut3d);
	if (lut2)
		drmModeDestroyPropertyBlob(c->kms.fd, lut2);
	return ret;
}

static const struct cfg bypass_all = { NO_CURVE, NULL, NULL, NO_CURVE };

/* Set one property of one object; returns 0 or -errno. */
static int set_one(struct ctx *c, uint32_t id, uint32_t type, const char *name,
		   uint64_t value, uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	primepair_add(c->kms.fd, req, id, type, name, value);
	ret = primepair_commit(c->kms.fd, req, flags);
	drmModeAtomicFree(req);
	return ret;
}

/* The same by property id, for properties this client is not shown */
static int set_by_id(struct ctx *c, uint32_t id, uint32_t prop, uint64_t value)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	igt_assert(drmModeAtomicAddProperty(req, id, prop, value) > 0);
	ret = primepair_commit(c->kms.fd, req, 0);
	drmModeAtomicFree(req);
	return ret;
}

/* ------------------------------------------------------------------
 * Set-up and checks
 */

static void ctx_init(struct ctx *c)
{
	primepair_kms_open(&c->kms);
	c->o = &c->kms.outputs[0];
	c->w = c->o->mode.hdisplay;
	c->h = c->o->mode.vdisplay;
	/* A kernel without colorops refuses the cap as unknown: EINVAL. */
	drmSetClientCap(c->kms.fd, DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE, 1);
	c->have = has_prop(c->kms.fd, c->o->primary, DRM_MODE_OBJECT_PLANE,
			   "COLOR_PIPELINE");
	if (!c->have)
		return;
	find_pipeline(c, c->o->primary, &c->primary);
	if (c->o->noverlays)
		find_pipeline(c, c->o->overlays[0], &c->overlay);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->fb);
	primepair_fb_fill_random(&c->fb, 1917);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &c->wb);
	c->ref = calloc((size_t)c->w * c->h, 4);
	igt_assert(c->ref);
}

/* Each subtest starts lit, the cap set, every pipeline off. */
static void ctx_reset(struct ctx *c)
{
	igt_require_f(c->have, "no COLOR_PIPELINE plane property with DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE set: the kernel has no colorops (6.19+)\n");
	igt_require(c->o->wb_connector_id);
	set_cap(c, 1);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
	igt_assert_eq(set_pipeline(c, c->o->primary, NULL, &bypass_all, 0), 0);
	if (c->o->noverlays) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		igt_assert(req);
		primepair_add_plane_off(c->kms.fd, req, c->o->overlays[0]);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
		drmModeAtomicFree(req);
		igt_assert_eq(set_pipeline(c, c->o->overlays[0], NULL,
					   &bypass_all, 0), 0);
	}
}

static void ctx_fini(struct ctx *c)
{
	if (c->have) {
		set_cap(c, 1);
		set_pipeline(c, c->o->primary, NULL, &bypass_all, 0);
		if (c->o->noverlays)
			set_pipeline(c, c->o->overlays[0], NULL, &bypass_all, 0);
		primepair_disable_all(&c->kms);
		primepair_fb_destroy(c->kms.fd, &c->wb);
		primepair_fb_destroy(c->kms.fd, &c->fb);
		free(c->ref);
	}
	primepair_kms_close(&c->kms);
}

static uint32_t fb_pixel(const struct primepair_fb *fb, uint32_t x, uint32_t y)
{
	const uint8_t *p = (const uint8_t *)fb->map + (size_t)y * fb->pitch +
			   (size_t)x * fb->cpp;

	return primepair_read_pixel(p, fb->format);
}

/* The full-screen framebuffer through @cfg (NULL: as it is) */
static void ref_fullscreen(struct ctx *c, const struct cfg *cfg)
{
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			uint32_t px = fb_pixel(&c->fb, x, y) | 0xff000000u;

			c->ref[y * c->w + x] = cfg ? ref_pixel(cfg, px) : px;
		}
}

/* Differing pixels (beyond @tolerance) between the next frame and c->ref */
static unsigned int capture_diff(struct ctx *c, unsigned int tolerance)
{
	memset(c->wb.map, 0, c->wb.size);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	return primepair_compare(&c->wb, c->ref, tolerance);
}

/* Put @cfg on the primary and compare the picture with the reference. */
static void check_primary(struct ctx *c, const struct cfg *cfg)
{
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, cfg, 0), 0);
	ref_fullscreen(c, cfg);
	igt_assert_eq_u32(capture_diff(c, 1), 0);
}

/* ------------------------------------------------------------------
 * The subtests
 */

/* A LUT's SIZE is immutable, its interpolation enum has just @interp. */
static void check_lut_props(struct ctx *c, uint32_t op, const char *prop,
			    const char *interp)
{
	drmModePropertyPtr info;

	info = drmModeGetProperty(c->kms.fd,
				  primepair_prop_id(c->kms.fd, op,
						    DRM_MODE_OBJECT_COLOROP, "SIZE"));
	igt_assert(info && (info->flags & DRM_MODE_PROP_IMMUTABLE));
	drmModeFreeProperty(info);
	info = drmModeGetProperty(c->kms.fd,
				  primepair_prop_id(c->kms.fd, op,
						    DRM_MODE_OBJECT_COLOROP, prop));
	igt_assert(info && info->count_enums == 1 &&
		   !strcmp(info->enums[0].name, interp));
	drmModeFreeProperty(info);
}

static void test_shape(struct ctx *c)
{
	static const uint64_t types[NOPS] = {
		TYPE_1D_CURVE, TYPE_1D_LUT, TYPE_MULTIPLIER, TYPE_CTM_3X4,
		TYPE_CTM_3X4, TYPE_1D_CURVE, TYPE_1D_LUT, TYPE_3D_LUT,
		TYPE_1D_CURVE, TYPE_1D_LUT,
	};
	static const int curves[] = { OP_CURVE1, OP_SHAPER, OP_CURVE2 };
	uint32_t planes[PRIMEPAIR_MAX_PLANES + 2], n = 0;
	drmModePropertyPtr info;

	planes[n++] = c->o->primary;
	for (unsigned int i = 0; i < c->o->noverlays; i++)
		planes[n++] = c->o->overlays[i];
	if (c->o->cursor)
		planes[n++] = c->o->cursor;

	for (uint32_t i = 0; i < n; i++) {
		struct pipe p;

		find_pipeline(c, planes[i], &p);
		igt_assert_eq_u64(primepair_prop_value(c->kms.fd, planes[i],
						       DRM_MODE_OBJECT_PLANE,
						       "COLOR_PIPELINE"), 0);
		/* The pipeline is this plane's: no colorop of the primary's */
		if (i)
			for (int k = 0; k < NOPS; k++)
				for (int j = 0; j < NOPS; j++)
					igt_assert_neq_u32(p.ops[k], c->primary.ops[j]);
		for (int k = 0; k < NOPS; k++) {
			igt_assert_eq_u64(op_value(c, p.ops[k], "TYPE"), types[k]);
			igt_assert_eq_u64(op_value(c, p.ops[k], "BYPASS"), 1);
		}
		igt_assert_eq_u32(p.ops[0], p.id);
		igt_assert_eq_u64(op_value(c, p.ops[NOPS - 1], "NEXT"), 0);
		igt_assert_eq_u64(op_value(c, p.ops[OP_MULT], "MULTIPLIER"), 0);
		igt_assert_eq_u64(op_value(c, p.ops[OP_CTM], "DATA"), 0);
		igt_assert_eq_u64(op_value(c, p.ops[OP_CTM2], "DATA"), 0);
		for (unsigned int l = 0; l < ARRAY_SIZE(lut_ops); l++) {
			int k = lut_ops[l];

			igt_assert_eq_u64(op_value(c, p.ops[k], "DATA"), 0);
			igt_assert_eq_u64(op_value(c, p.ops[k], "SIZE"), LUT_SIZE);
			igt_assert_eq_u64(op_value(c, p.ops[k], "LUT1D_INTERPOLATION"), 0);
		}
		igt_assert_eq_u64(op_value(c, p.ops[OP_LUT3D], "DATA"), 0);
		igt_assert_eq_u64(op_value(c, p.ops[OP_LUT3D], "SIZE"), LUT3D_SIZE);
		igt_assert_eq_u64(op_value(c, p.ops[OP_LUT3D], "LUT3D_INTERPOLATION"), 0);
	}

	/* The three curves offer the eight of the core, by their values. */
	for (unsigned int i = 0; i < ARRAY_SIZE(curves); i++) {
		uint32_t prop = primepair_prop_id(c->kms.fd, c->primary.ops[curves[i]],
						  DRM_MODE_OBJECT_COLOROP,
						  "CURVE_1D_TYPE");

		info = drmModeGetProperty(c->kms.fd, prop);
		igt_assert(info && (info->flags & DRM_MODE_PROP_ENUM));
		igt_assert_eq(info->count_enums, NCURVES);
		for (int e = 0; e < NCURVES; e++) {
			igt_assert_eq_u64(info->enums[e].value, e);
			igt_assert_f(!strcmp(info->enums[e].name, curve_names[e]),
				     "curve %d is %s\n", e, info->enums[e].name);
		}
		drmModeFreeProperty(info);
	}

	/* SIZE, TYPE and NEXT are immutable; each LUT has one interpolation. */
	for (unsigned int l = 0; l < ARRAY_SIZE(lut_ops); l++)
		check_lut_props(c, c->primary.ops[lut_ops[l]],
				"LUT1D_INTERPOLATION", "Linear");
	check_lut_props(c, c->primary.ops[OP_LUT3D], "LUT3D_INTERPOLATION",
			"Tetrahedral");
}

/*
 * Without the cap, COLOR_PIPELINE is hidden and COLOR_ENCODING and
 * COLOR_RANGE shown; with it, the other way round.  The 7.3 core refuses
 * neither a colorop property nor COLOR_PIPELINE set by id without the cap:
 * it only hides the plane property.
 */
static void test_cap(struct ctx *c)
{
	uint32_t pipe_prop = primepair_prop_id(c->kms.fd, c->o->primary,
					       DRM_MODE_OBJECT_PLANE,
					       "COLOR_PIPELINE");
	uint32_t bypass_prop = primepair_prop_id(c->kms.fd, c->primary.ops[0],
						 DRM_MODE_OBJECT_COLOROP,
						 "BYPASS");
	uint32_t p = c->o->primary;

	igt_assert(!has_prop(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING"));
	igt_assert(!has_prop(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_RANGE"));

	set_cap(c, 0);
	igt_assert(!has_prop(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_PIPELINE"));
	igt_assert(has_prop(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING"));
	igt_assert(has_prop(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_RANGE"));
	/* The colorop objects still answer. */
	igt_assert(has_prop(c->kms.fd, c->primary.ops[0], DRM_MODE_OBJECT_COLOROP,
			    "BYPASS"));

	igt_assert_eq(set_by_id(c, c->primary.ops[0], bypass_prop, 0), 0);
	igt_assert_eq(set_by_id(c, p, pipe_prop, c->primary.id), 0);
	set_cap(c, 1);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, p, DRM_MODE_OBJECT_PLANE,
					       "COLOR_PIPELINE"), c->primary.id);
	igt_assert_eq_u64(op_value(c, c->primary.ops[0], "BYPASS"), 0);

	/* The cap takes only 0 and 1. */
	igt_assert_eq(drmSetClientCap(c->kms.fd,
				      DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE, 2), -1);
	igt_assert_eq(errno, EINVAL);
}

/* Each curve followed by its inverse gives the picture back. */
static void test_roundtrip(struct ctx *c)
{
	static const enum curve pairs[][2] = {
		{ SRGB_EOTF, SRGB_INV_EOTF },
		{ PQ_125_EOTF, PQ_125_INV_EOTF },
		{ BT2020_INV_OETF, BT2020_OETF },
		{ GAMMA22, GAMMA22_INV },
	};

	ref_fullscreen(c, NULL);
	for (unsigned int i = 0; i < ARRAY_SIZE(pairs); i++) {
		struct cfg cfg = { pairs[i][0], NULL, NULL, pairs[i][1] };

		igt_debug("%s then %s\n", curve_names[pairs[i][0]],
			  curve_names[pairs[i][1]]);
		igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary,
					   &cfg, 0), 0);
		igt_assert_eq_u32(capture_diff(c, 1), 0);
	}
}

/*
 * Each curve alone against the reference; PQ's 0 to 125 is scaled back
 * by the matrix, which checks that values above 1 reach it.
 */
static void test_curves(struct ctx *c)
{
	static const double down[12] = {
		1 / 125.0, 0, 0, 0,  0, 1 / 125.0, 0, 0,  0, 0, 1 / 125.0, 0,
	};
	static const double up[12] = {
		125, 0, 0, 0,  0, 125, 0, 0,  0, 0, 125, 0,
	};

	for (int k = 0; k < NCURVES; k++) {
		struct cfg cfg = { k, NULL, NULL, NO_CURVE };

		if (k == PQ_125_EOTF)
			cfg.matrix = down;
		igt_info("%s first\n", curve_names[k]);
		check_primary(c, &cfg);
		/* and as the last operation */
		cfg = (struct cfg){ NO_CURVE, NULL, NULL, k };
		if (k == PQ_125_INV_EOTF)
			cfg.matrix = up;
		igt_info("%s last\n", curve_names[k]);
		if (k != PQ_125_EOTF)
			check_primary(c, &cfg);
	}
}

/* The 10-bit code of channel @ch (0 red) at pixel @i of the test picture */
static uint32_t ten_bit_code(size_t i, int ch)
{
	static const uint32_t mul[3] = { 1, 5, 3 }, add[3] = { 0, 341, 682 };

	return (uint32_t)(i * mul[ch] + add[ch]) & 1023;
}

/*
 * Differing channels between the XRGB2101010 capture @out and @fn applied
 * to the test picture's codes; a code within @margin of a tie may round
 * either way, and *@either counts those.
 */
static unsigned int ten_bit_diff(struct ctx *c, const struct primepair_fb *out,
				 double (*fn)(int k, double x), int k,
				 double margin, unsigned int *either)
{
	unsigned int bad = 0;

	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			size_t i = (size_t)y * c->w + x;
			uint32_t got = *(const uint32_t *)((const uint8_t *)out->map +
							   (size_t)y * out->pitch +
							   (size_t)x * 4);

			for (int ch = 0; ch < 3; ch++) {
				uint32_t v = ten_bit_code(i, ch);
				uint32_t g = got >> (20 - 10 * ch) & 1023;
				double e = fmin(fmax(fn(k, v / 1023.0), 0), 1) * 1023;
				double f = e - floor(e);

				if (fabs(f - 0.5) < margin) {
					*either += i < 1024;
					bad += g != (uint32_t)floor(e) &&
					       g != (uint32_t)ceil(e);
				} else {
					bad += g != (uint32_t)floor(e + 0.5);
				}
			}
			bad += got >> 30 != 0;
		}
	return bad;
}

static double ten_bit_curve(int k, double x)
{
	if (k == PQ_125_EOTF)
		return curve(k, x) / 125;
	if (k == PQ_125_INV_EOTF)
		return curve(k, x * 125);
	return curve(k, x);
}

static double ten_bit_same(int k, double x)
{
	return x;
}

/*
 * An XRGB2101010 primary holding every 10-bit code in each channel,
 * written back as XRGB2101010.  Through each curve each code comes out
 * as the exact curve of code / 1023 rounded once to 10 bits, and through
 * a curve and its inverse as it went in; PQ's 0 to 125 is scaled by a
 * matrix as in test_curves().  Rounded to the blender's 16 bits and then
 * to 10, about one code in a hundred came out one off.  A code whose
 * exact result lies within a thousandth of a tie may go either way: the
 * curves are held to about a twentieth of a 16-bit step, and the input
 * to 2^-24 (BT.2020's 4.5 x 15 / 1023 is a tie, 67.5 codes, exactly).
 */
static void test_ten_bit(struct ctx *c)
{
	static const double down[12] = {
		1 / 125.0, 0, 0, 0,  0, 1 / 125.0, 0, 0,  0, 0, 1 / 125.0, 0,
	};
	static const double up[12] = {
		125, 0, 0, 0,  0, 125, 0, 0,  0, 0, 125, 0,
	};
	static const enum curve inverse[NCURVES] = {
		SRGB_INV_EOTF, SRGB_EOTF, PQ_125_INV_EOTF, PQ_125_EOTF,
		BT2020_OETF, BT2020_INV_OETF, GAMMA22_INV, GAMMA22,
	};
	struct primepair_fb in, out;
	unsigned int bad[2 * NCURVES] = {}, either = 0, total = 0;

	igt_require(c->w * c->h >= 1024);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB2101010, &in);
	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB2101010, &out);
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			size_t i = (size_t)y * c->w + x;

			*(uint32_t *)((uint8_t *)in.map + (size_t)y * in.pitch +
				      (size_t)x * 4) = ten_bit_code(i, 0) << 20 |
						       ten_bit_code(i, 1) << 10 |
						       ten_bit_code(i, 2);
		}
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &in), 0);

	for (int k = 0; k < NCURVES; k++) {
		struct cfg cfg = { k, NULL, NULL, NO_CURVE };

		if (k == PQ_125_EOTF)
			cfg.matrix = down;
		if (k == PQ_125_INV_EOTF)
			cfg = (struct cfg){ NO_CURVE, up, NULL, k };
		igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary,
					   &cfg, 0), 0);
		memset(out.map, 0x55, out.size);
		primepair_writeback_capture(&c->kms, c->o, &out);
		bad[2 * k] = ten_bit_diff(c, &out, ten_bit_curve, k, 1e-3,
					  &either);

		cfg = (struct cfg){ k, NULL, NULL, inverse[k] };
		igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary,
					   &cfg, 0), 0);
		memset(out.map, 0x55, out.size);
		primepair_writeback_capture(&c->kms, c->o, &out);
		bad[2 * k + 1] = ten_bit_diff(c, &out, ten_bit_same, k, 0,
					      &either);
		igt_info("%s: %u channels differ; then %s: %u\n",
			 curve_names[k], bad[2 * k], curve_names[inverse[k]],
			 bad[2 * k + 1]);
		total += bad[2 * k] + bad[2 * k + 1];
	}
	igt_info("%u of the 8 x 3 x 1024 codes within a thousandth of a tie\n",
		 either);
	igt_assert_eq(set_pipeline(c, c->o->primary, NULL, &bypass_all, 0), 0);
	primepair_disable_all(&c->kms);
	primepair_fb_destroy(c->kms.fd, &out);
	primepair_fb_destroy(c->kms.fd, &in);
	igt_assert_eq_u32(total, 0);
}

/*
 * Coefficients that binary fixed point holds exactly (1/4, 1/2, 3/2) put
 * many results halfway between two 8-bit codes: 3/2 of an odd code, or a
 * quarter-weighted sum of codes that comes to n + 1/2.  Exact arithmetic
 * rounds them up, and so does IGT's model; vdisplay must too, to the bit.
 * The reference is integer arithmetic in quarters of a code.
 */
static void check_ctm_ties(struct ctx *c)
{
	static const int quarters[][9] = {
		{ 2, 1, 1,  1, 2, 1,  1, 1, 2 },	/* 50% desaturation */
		{ 6, 0, 0,  0, 6, 0,  0, 0, 6 },	/* everything by 3/2 */
		{ 6, -1, -1,  -1, 6, -1,  -1, -1, 6 },	/* oversaturation */
	};
	unsigned int ties = 0;

	for (unsigned int m = 0; m < ARRAY_SIZE(quarters); m++) {
		const int *q = quarters[m];
		double mat[12] = {};
		struct cfg cfg = { NO_CURVE, mat, NULL, NO_CURVE };

		for (unsigned int row = 0; row < 3; row++)
			for (unsigned int k = 0; k < 3; k++)
				mat[4 * row + k] = q[3 * row + k] / 4.0;
		for (uint32_t y = 0; y < c->h; y++)
			for (uint32_t x = 0; x < c->w; x++) {
				uint32_t px = fb_pixel(&c->fb, x, y);
				int in[3] = { px >> 16 & 0xff, px >> 8 & 0xff,
					      px & 0xff };
				uint32_t out = 0xff000000u;

				for (unsigned int row = 0; row < 3; row++) {
					int sum = q[3 * row] * in[0] +
						  q[3 * row + 1] * in[1] +
						  q[3 * row + 2] * in[2];
					int code = sum < 0 ? 0 : (sum + 2) / 4;

					ties += sum > 0 && sum < 4 * 255 &&
						sum % 4 == 2;
					out |= (uint32_t)(code > 255 ? 255 : code)
					       << (16 - 8 * row);
				}
				c->ref[y * c->w + x] = out;
			}
		igt_debug("tie matrix %u\n", m);
		igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary,
					   &cfg, 0), 0);
		igt_assert_eq_u32(capture_diff(c, 0), 0);
	}
	/* The picture has ties to round, or this proved nothing. */
	igt_assert_lt(1000, ties);
}

static void test_ctm(struct ctx *c)
{
	static const double mats[][12] = {
		/* identity */
		{ 1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0 },
		/* red from green, green from blue, blue from red */
		{ 0, 1, 0, 0,  0, 0, 1, 0,  1, 0, 0, 0 },
		/* offsets, one clamping at 1, one at 0 */
		{ 1, 0, 0, 0.25,  0, 1, 0, 0,  0, 0, 1, -0.1 },
		/* grey, scaled up then down again: above 1 in between */
		{ 0.299, 0.587, 0.114, 0,  0.299, 0.587, 0.114, 0,
		  -0.5, 0, 1.5, 0 },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(mats); i++) {
		struct cfg cfg = { NO_CURVE, mats[i], NULL, NO_CURVE };

		igt_debug("matrix %u\n", i);
		check_primary(c, &cfg);
	}
	/* The identity is exact, and a swap of channels too. */
	ref_fullscreen(c, NULL);
	{
		struct cfg cfg = { NO_CURVE, mats[0], NULL, NO_CURVE };

		igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary,
					   &cfg, 0), 0);
		igt_assert_eq_u32(capture_diff(c, 0), 0);
	}
	check_ctm_ties(c);
}

/*
 * The multiplier: PQ's 0 to 125 brought back to 0 to 1 (what it is for),
 * a gain that saturates, a negative one, and one past the range that
 * saturates at -128; then the two matrices: an encoding to YCbCr and its
 * decoding give the picture back (negative values pass between them), and
 * the matrices and the multiplier apply in the pipeline's order.
 */
static void test_mult_matrices(struct ctx *c)
{
	/* BT.709 R'G'B' to Y'CbCr, without offsets, and back */
	static const double enc[12] = {
		0.2126, 0.7152, 0.0722, 0,
		-0.2126 / 1.8556, -0.7152 / 1.8556, 0.5, 0,
		0.5, -0.7152 / 1.5748, -0.0722 / 1.5748, 0,
	};
	static const double dec[12] = {
		1, 0, 1.5748, 0,
		1, -0.0722 * 1.8556 / 0.7152, -0.2126 * 1.5748 / 0.7152, 0,
		1, 1.8556, 0, 0,
	};
	static const double darken[12] = {
		1, 0, 0, -0.5,  0, 1, 0, -0.5,  0, 0, 1, -0.5,
	};
	static const double twice[12] = {
		2, 0, 0, 0,  0, 2, 0, 0,  0, 0, 2, 0,
	};
	struct cfg cfg = { PQ_125_EOTF, NULL, NULL, NO_CURVE, 1 / 125.0 };
	const double gains[] = { 0.5, 125, -1 };

	check_primary(c, &cfg);
	for (unsigned int i = 0; i < ARRAY_SIZE(gains); i++) {
		cfg = (struct cfg){ NO_CURVE, NULL, NULL, NO_CURVE, gains[i] };
		igt_debug("gain %g\n", gains[i]);
		check_primary(c, &cfg);
	}
	/* S31.32 sign-magnitude at its most negative: black */
	igt_assert_eq(set_one(c, c->primary.ops[OP_MULT], DRM_MODE_OBJECT_COLOROP,
			      "MULTIPLIER", UINT64_MAX, 0), 0);
	for (size_t i = 0; i < (size_t)c->w * c->h; i++)
		c->ref[i] = 0xff000000u;
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_MULT], "MULTIPLIER"),
			  UINT64_MAX);

	/* Both matrices: to Y'CbCr and back, within 1 */
	cfg = (struct cfg){ NO_CURVE, enc, NULL, NO_CURVE, 0, dec };
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	ref_fullscreen(c, NULL);
	igt_assert_eq_u32(capture_diff(c, 1), 0);
	/* The first matrix applies first: 2(x - 0.5), not 2x - 0.5 */
	cfg = (struct cfg){ NO_CURVE, darken, NULL, NO_CURVE, 0, twice };
	check_primary(c, &cfg);
	cfg = (struct cfg){ NO_CURVE, twice, NULL, NO_CURVE, 0, darken };
	ref_fullscreen(c, &cfg);
	igt_assert_lt(c->w * c->h / 4, primepair_compare(&c->wb, c->ref, 1));

	/* The gain comes before the matrices: 2x - 0.5, not 2(x - 0.5) */
	cfg = (struct cfg){ NO_CURVE, darken, NULL, NO_CURVE, 2 };
	check_primary(c, &cfg);
}

static struct lut32 *lut_alloc(void)
{
	struct lut32 *lut = calloc(LUT_SIZE, sizeof(*lut));

	igt_assert(lut);
	return lut;
}

static uint32_t ramp(unsigned int i, double from, double to)
{
	return (uint32_t)llround((from + (to - from) * i / (LUT_SIZE - 1)) *
				 4294967295.0);
}

static void test_lut(struct ctx *c)
{
	/* red takes blue's value, green red's, blue green's */
	static const double rotate[12] = { 0, 0, 1, 0,  1, 0, 0, 0,  0, 1, 0, 0 };
	struct lut32 *lut = lut_alloc();
	struct cfg cfg = { NO_CURVE, NULL, lut, NO_CURVE };

	/* Inverted: 255 - x, exactly */
	for (unsigned int i = 0; i < LUT_SIZE; i++)
		lut[i].red = lut[i].green = lut[i].blue = ramp(i, 1, 0);
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++)
			c->ref[y * c->w + x] = ~fb_pixel(&c->fb, x, y) | 0xff000000u;
	igt_assert_eq_u32(capture_diff(c, 0), 0);

	/* A curve of its own per channel */
	for (unsigned int i = 0; i < LUT_SIZE; i++) {
		double x = (double)i / (LUT_SIZE - 1);

		lut[i].red = ramp(i, 0.2, 0.9);
		lut[i].green = (uint32_t)llround(x * x * 4294967295.0);
		lut[i].blue = (uint32_t)llround(sqrt(x) * 4294967295.0);
	}
	check_primary(c, &cfg);

	/*
	 * The same LUT as the decode, before a matrix that rotates the
	 * channels, which tells the order; then after the matrix as well,
	 * a LUT, a matrix and a LUT, the pipeline of Intel's planes.
	 */
	cfg = (struct cfg){ NO_CURVE, rotate, NULL, NO_CURVE, .decode = lut };
	check_primary(c, &cfg);
	cfg.lut2 = lut;
	check_primary(c, &cfg);
	free(lut);
}

static struct lut32 *lut3d_alloc(void)
{
	struct lut32 *lut = calloc(LUT3D_ENTRIES, sizeof(*lut));

	igt_assert(lut);
	return lut;
}

static uint32_t unorm32(double v)
{
	return (uint32_t)llround(fmin(fmax(v, 0), 1) * 4294967295.0);
}

/* Fill the 3D LUT with @fn at each lattice point, red the fastest axis */
static void lut3d_fill(struct lut32 *lut, void (*fn)(const double *in, double *out))
{
	for (int b = 0; b < LUT3D_SIZE; b++)
		for (int g = 0; g < LUT3D_SIZE; g++)
			for (int r = 0; r < LUT3D_SIZE; r++) {
				const double in[3] = {
					r / (LUT3D_SIZE - 1.0), g / (LUT3D_SIZE - 1.0),
					b / (LUT3D_SIZE - 1.0),
				};
				struct lut32 *e = &lut[r + LUT3D_SIZE * (g + LUT3D_SIZE * b)];
				double out[3];

				fn(in, out);
				e->red = unorm32(out[0]);
				e->green = unorm32(out[1]);
				e->blue = unorm32(out[2]);
			}
}

static void lattice_identity(const double *in, double *out)
{
	memcpy(out, in, 3 * sizeof(*in));
}

/* red takes blue's value, green red's, blue green's */
static void lattice_rotate(const double *in, double *out)
{
	out[0] = in[2];
	out[1] = in[0];
	out[2] = in[1];
}

/* Channels mixed and bent: what no 1D LUT or matrix can do */
static void lattice_grade(const double *in, double *out)
{
	double luma = 0.2126 * in[0] + 0.7152 * in[1] + 0.0722 * in[2];

	out[0] = in[0] * in[0] * (1 - 0.5 * in[1]) + 0.25 * in[2];
	out[1] = sqrt(in[1]) * (0.6 + 0.4 * in[0]);
	out[2] = luma + 0.5 * (in[2] - luma) * (1 - in[0]);
}

/*
 * 3D LUT: the identity and a rotation of the channels, which the
 * interpolation reproduces exactly; a LUT mixing the channels against the
 * double-precision reference; and the same LUT again read with each
 * channel's ramp through the 1D LUT before it, which tells the order.
 */
static void test_lut3d(struct ctx *c)
{
	struct lut32 *lut3d = lut3d_alloc(), *lut = lut_alloc();
	struct cfg cfg = { NO_CURVE, NULL, NULL, NO_CURVE, .lut3d = lut3d };

	lut3d_fill(lut3d, lattice_identity);
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	ref_fullscreen(c, NULL);
	igt_assert_eq_u32(capture_diff(c, 0), 0);

	lut3d_fill(lut3d, lattice_rotate);
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	for (uint32_t y = 0; y < c->h; y++)
		for (uint32_t x = 0; x < c->w; x++) {
			uint32_t px = fb_pixel(&c->fb, x, y);

			c->ref[y * c->w + x] = 0xff000000u |
					       (px & 0xff) << 16 | (px >> 8 & 0xffff);
		}
	igt_assert_eq_u32(capture_diff(c, 0), 0);

	lut3d_fill(lut3d, lattice_grade);
	check_primary(c, &cfg);

	for (unsigned int i = 0; i < LUT_SIZE; i++) {
		double x = (double)i / (LUT_SIZE - 1);

		lut[i].red = unorm32(1 - x);
		lut[i].green = unorm32(x * x);
		lut[i].blue = unorm32(0.1 + 0.8 * x);
	}
	cfg.lut = lut;
	check_primary(c, &cfg);
	free(lut3d);
	free(lut);
}

/*
 * The same pipeline on a picture of runs of one colour (which the driver
 * transforms once a run), runs crossing row ends, and within a run
 * pixels that differ only in the X byte, which the plane ignores
 */
static void check_runs(struct ctx *c, const struct cfg *cfg)
{
	struct primepair_fb random = c->fb, runs;

	primepair_fb_create(c->kms.fd, c->w, c->h, DRM_FORMAT_XRGB8888, &runs);
	for (uint32_t y = 0; y < c->h; y++) {
		uint32_t *row = (uint32_t *)((char *)runs.map + (size_t)y * runs.pitch);

		for (uint32_t x = 0; x < c->w; x++) {
			uint32_t run = (y * c->w + x) / 37;

			row[x] = (run * 2654435761u) >> 8 | (x & 1) << 24;
		}
	}
	c->fb = runs;
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
	ref_fullscreen(c, cfg);
	igt_assert_eq_u32(capture_diff(c, 1), 0);
	c->fb = random;
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
	primepair_fb_destroy(c->kms.fd, &runs);
}

/*
 * Every operation on at once, as an HDR compositor maps its transform:
 * decode curve and LUT, gain, convert, shape, shaper LUT, 3D LUT, encode,
 * blend LUT; then three curves in a row, which give the first alone.
 */
static void test_all_ops(struct ctx *c)
{
	static const double to2020[12] = {
		0.6274, 0.3293, 0.0433, 0,
		0.0691, 0.9195, 0.0114, 0,
		0.0164, 0.0880, 0.8956, 0,
	};
	static const double lift[12] = {
		0.9, 0, 0, 0.05,  0, 0.9, 0, 0.05,  0, 0, 0.9, 0.05,
	};
	struct lut32 *lut3d = lut3d_alloc(), *lut = lut_alloc(), *lut2 = lut_alloc();
	struct lut32 *decode = lut_alloc();
	struct cfg cfg = {
		SRGB_EOTF, to2020, lut, SRGB_INV_EOTF, 0.8, lift,
		.shaping = true, .shaper = GAMMA22_INV, .lut3d = lut3d, .lut2 = lut2,
		.decode = decode,
	};

	for (unsigned int i = 0; i < LUT_SIZE; i++) {
		double x = (double)i / (LUT_SIZE - 1);

		decode[i].red = decode[i].green = decode[i].blue =
			unorm32(0.02 + 0.96 * x);
		lut[i].red = lut[i].green = lut[i].blue = unorm32(x * (2 - x));
		lut2[i].red = unorm32(0.05 + 0.9 * x);
		lut2[i].green = unorm32(x);
		lut2[i].blue = unorm32(x * x);
	}
	lut3d_fill(lut3d, lattice_grade);
	check_primary(c, &cfg);
	check_runs(c, &cfg);

	cfg = (struct cfg){ SRGB_EOTF, NULL, NULL, SRGB_EOTF,
			    .shaping = true, .shaper = SRGB_INV_EOTF };
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	cfg = (struct cfg){ SRGB_EOTF, NULL, NULL, NO_CURVE };
	ref_fullscreen(c, &cfg);
	igt_assert_eq_u32(capture_diff(c, 1), 0);
	free(lut3d);
	free(lut);
	free(lut2);
	free(decode);
}

/* An HDR compositor's decode, convert, shape, encode */
static void test_full(struct ctx *c)
{
	/* BT.709 to BT.2020 primaries, and a little gain */
	static const double to2020[12] = {
		0.6274 * 1.1, 0.3293 * 1.1, 0.0433 * 1.1, 0,
		0.0691 * 1.1, 0.9195 * 1.1, 0.0114 * 1.1, 0,
		0.0164 * 1.1, 0.0880 * 1.1, 0.8956 * 1.1, 0,
	};
	struct lut32 *lut = lut_alloc();
	struct cfg cfg = { SRGB_EOTF, to2020, lut, SRGB_INV_EOTF };

	for (unsigned int i = 0; i < LUT_SIZE; i++) {
		double x = (double)i / (LUT_SIZE - 1);

		/* a soft knee toward 1 */
		lut[i].red = lut[i].green = lut[i].blue =
			(uint32_t)llround(x * (2 - x) * 4294967295.0);
	}
	check_primary(c, &cfg);

	/* PQ instead: decode to nits, scale back, encode */
	cfg = (struct cfg){ PQ_125_EOTF, NULL, NULL, PQ_125_INV_EOTF };
	check_primary(c, &cfg);
	free(lut);
}

/* BYPASS on every operation, or the Bypass pipeline, shows the picture. */
static void test_bypass(struct ctx *c)
{
	static const double swap[12] = { 0, 0, 1, 0,  1, 0, 0, 0,  0, 1, 0, 0 };
	struct lut32 *lut = lut_alloc();
	struct cfg on = { GAMMA22, swap, lut, SRGB_INV_EOTF };
	uint32_t base, piped;
	drmModeAtomicReqPtr req;

	for (unsigned int i = 0; i < LUT_SIZE; i++)
		lut[i].red = lut[i].green = lut[i].blue = ramp(i, 1, 0.1);

	base = primepair_crc_still(&c->kms, c->o, 10);
	check_primary(c, &on);
	piped = primepair_crc_still(&c->kms, c->o, 10);
	igt_assert_neq_u32(piped, base);

	/* Every operation bypassed, the pipeline still selected */
	req = drmModeAtomicAlloc();
	igt_assert(req);
	for (int k = 0; k < NOPS; k++)
		add_op(c, req, c->primary.ops[k], "BYPASS", 1);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->primary,
					       DRM_MODE_OBJECT_PLANE,
					       "COLOR_PIPELINE"), c->primary.id);
	ref_fullscreen(c, NULL);
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	igt_assert_eq_u32(primepair_crc_still(&c->kms, c->o, 10), base);

	/* The operations on again, then the Bypass pipeline */
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &on, 0), 0);
	igt_assert_eq_u32(primepair_crc_still(&c->kms, c->o, 10), piped);
	igt_assert_eq(set_one(c, c->o->primary, DRM_MODE_OBJECT_PLANE,
			      "COLOR_PIPELINE", 0, 0), 0);
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	igt_assert_eq_u32(primepair_crc_still(&c->kms, c->o, 10), base);
	/* and back: the colorops kept their state */
	igt_assert_eq(set_one(c, c->o->primary, DRM_MODE_OBJECT_PLANE,
			      "COLOR_PIPELINE", c->primary.id, 0), 0);
	igt_assert_eq_u32(primepair_crc_still(&c->kms, c->o, 10), piped);
	free(lut);
}

/* A pipeline on the overlay changes its pixels, not the primary's. */
static void test_overlay(struct ctx *c)
{
	const uint32_t ox = 100, oy = 60, ow = 320, oh = 200;
	struct lut32 *lut = lut_alloc();
	struct cfg cfg = { SRGB_EOTF, NULL, lut, NO_CURVE };
	struct primepair_fb ov;
	drmModeAtomicReqPtr req;

	igt_require(c->o->noverlays > 0);
	for (unsigned int i = 0; i < LUT_SIZE; i++)
		lut[i].red = lut[i].green = lut[i].blue = ramp(i, 1, 0);
	primepair_fb_create(c->kms.fd, ow, oh, DRM_FORMAT_XRGB8888, &ov);
	primepair_fb_fill_random(&ov, 2025);

	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add_plane(c->kms.fd, req, c->o->overlays[0], c->o->crtc_id,
			    &ov, ox, oy, 0, 0, ow, oh);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	igt_assert_eq(set_pipeline(c, c->o->overlays[0], &c->overlay, &cfg, 0), 0);

	ref_fullscreen(c, NULL);
	for (uint32_t y = 0; y < oh; y++)
		for (uint32_t x = 0; x < ow; x++)
			c->ref[(oy + y) * c->w + ox + x] =
				ref_pixel(&cfg, fb_pixel(&ov, x, y));
	igt_assert_eq_u32(capture_diff(c, 1), 0);

	/* The primary's own pipeline is its alone too. */
	cfg = (struct cfg){ NO_CURVE, NULL, lut, NO_CURVE };
	igt_assert_eq(set_pipeline(c, c->o->overlays[0], NULL, &bypass_all, 0), 0);
	igt_assert_eq(set_pipeline(c, c->o->primary, &c->primary, &cfg, 0), 0);
	ref_fullscreen(c, &cfg);
	for (uint32_t y = 0; y < oh; y++)
		for (uint32_t x = 0; x < ow; x++)
			c->ref[(oy + y) * c->w + ox + x] =
				fb_pixel(&ov, x, y) | 0xff000000u;
	igt_assert_eq_u32(capture_diff(c, 1), 0);

	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add_plane_off(c->kms.fd, req, c->o->overlays[0]);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	primepair_fb_destroy(c->kms.fd, &ov);
	free(lut);
}

/* Set DATA of @op to a blob of @size bytes; returns 0 or -errno. */
static int set_data(struct ctx *c, uint32_t op, size_t size, uint32_t flags)
{
	void *data = calloc(1, size);
	uint32_t blob = blob_of(c, data, size);
	int ret = set_one(c, op, DRM_MODE_OBJECT_COLOROP, "DATA", blob, flags);

	drmModeDestroyPropertyBlob(c->kms.fd, blob);
	free(data);
	return ret;
}

static void test_bad(struct ctx *c)
{
	static const double swap[12] = { 0, 1, 0, 0,  1, 0, 0, 0,  0, 0, 1, 0 };
	static const size_t ctm_sizes[] = { 8, 72, 96 - 8, 96 + 8, 2 * 96 };
	static const size_t lut_sizes[] = {
		16, 1024 * 16, (LUT_SIZE - 1) * 16, LUT_SIZE * 16 + 8,
		(LUT_SIZE + 1) * 16, 256 * 8,
	};
	static const size_t lut3d_sizes[] = {
		16, LUT3D_ENTRIES * 8, (LUT3D_ENTRIES - 1) * 16,
		(LUT3D_ENTRIES + 1) * 16, 16 * 16 * 16 * 16, 18 * 18 * 18 * 16,
		LUT_SIZE * 16,
	};
	const uint32_t flags[] = { DRM_MODE_ATOMIC_TEST_ONLY, 0 };
	struct cfg cfg = { SRGB_EOTF, swap, NULL, SRGB_INV_EOTF };
	uint32_t p = c->o->primary;
	unsigned int i, f;

	/* A pipeline in use, to see that nothing bad sticks */
	check_primary(c, &cfg);

	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		/* A 3x4 matrix is 96 bytes; a 3x3 CTM's 72 are no matrix here. */
		for (i = 0; i < ARRAY_SIZE(ctm_sizes); i++)
			for (int k = OP_CTM; k <= OP_CTM2; k++)
				igt_assert_eq(set_data(c, c->primary.ops[k],
						       ctm_sizes[i], flags[f]),
					      -EINVAL);
		/* The 1D LUTs are 4096 struct drm_color_lut32, of 16 bytes. */
		for (i = 0; i < ARRAY_SIZE(lut_sizes); i++)
			for (unsigned int l = 0; l < ARRAY_SIZE(lut_ops); l++)
				igt_assert_eq(set_data(c, c->primary.ops[lut_ops[l]],
						       lut_sizes[i], flags[f]),
					      -EINVAL);
		/* The 3D LUT is 17 cubed of them. */
		for (i = 0; i < ARRAY_SIZE(lut3d_sizes); i++)
			igt_assert_eq(set_data(c, c->primary.ops[OP_LUT3D],
					       lut3d_sizes[i], flags[f]), -EINVAL);
		/* Tetrahedral is the only interpolation; SIZE is immutable. */
		igt_assert_eq(set_one(c, c->primary.ops[OP_LUT3D],
				      DRM_MODE_OBJECT_COLOROP,
				      "LUT3D_INTERPOLATION", 1, flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, c->primary.ops[OP_LUT3D],
				      DRM_MODE_OBJECT_COLOROP, "SIZE", LUT3D_SIZE,
				      flags[f]), -EINVAL);
		/* A blob id that is no blob */
		igt_assert_eq(set_one(c, c->primary.ops[OP_LUT], DRM_MODE_OBJECT_COLOROP,
				      "DATA", c->primary.id, flags[f]), -EINVAL);
		/* COLOR_PIPELINE: another plane's, not a pipeline's head, no object */
		if (c->o->noverlays)
			igt_assert_eq(set_one(c, p, DRM_MODE_OBJECT_PLANE,
					      "COLOR_PIPELINE", c->overlay.id,
					      flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, p, DRM_MODE_OBJECT_PLANE, "COLOR_PIPELINE",
				      c->primary.ops[OP_CTM], flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, p, DRM_MODE_OBJECT_PLANE, "COLOR_PIPELINE",
				      c->o->crtc_id, flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, p, DRM_MODE_OBJECT_PLANE, "COLOR_PIPELINE",
				      0xfffff, flags[f]), -EINVAL);
		/* A curve the enum does not have */
		igt_assert_eq(set_one(c, c->primary.ops[0], DRM_MODE_OBJECT_COLOROP,
				      "CURVE_1D_TYPE", NCURVES, flags[f]), -EINVAL);
		/* BYPASS is a bool */
		igt_assert_eq(set_one(c, c->primary.ops[0], DRM_MODE_OBJECT_COLOROP,
				      "BYPASS", 2, flags[f]), -EINVAL);
		/* Immutable properties */
		igt_assert_eq(set_one(c, c->primary.ops[OP_LUT], DRM_MODE_OBJECT_COLOROP,
				      "SIZE", LUT_SIZE, flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, c->primary.ops[0], DRM_MODE_OBJECT_COLOROP,
				      "TYPE", TYPE_1D_CURVE, flags[f]), -EINVAL);
		igt_assert_eq(set_one(c, c->primary.ops[0], DRM_MODE_OBJECT_COLOROP,
				      "NEXT", c->primary.ops[OP_CTM], flags[f]), -EINVAL);
	}
	/* The overlay's colorop on the primary's property list: not there */
	if (c->o->noverlays) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		uint32_t prop = primepair_prop_id(c->kms.fd, c->overlay.ops[0],
						  DRM_MODE_OBJECT_COLOROP,
						  "BYPASS");

		igt_assert(req);
		igt_assert(drmModeAtomicAddProperty(req, p, prop, 0) > 0);
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -ENOENT);
		drmModeAtomicFree(req);
	}
	/* A colorop id that is no object: the commit's object lookup */
	igt_assert_eq(set_by_id(c, 0xfffff, primepair_prop_id(c->kms.fd,
							      c->primary.ops[0],
							      DRM_MODE_OBJECT_COLOROP,
							      "BYPASS"), 0),
		      -ENOENT);

	/* Nothing of it stuck: the same picture, the same blobs. */
	igt_assert_neq_u64(op_value(c, c->primary.ops[OP_CTM], "DATA"), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_CTM2], "DATA"), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_DECODE], "DATA"), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_LUT], "DATA"), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_LUT3D], "DATA"), 0);
	igt_assert_eq_u64(op_value(c, c->primary.ops[OP_LUT2], "DATA"), 0);
	igt_assert_eq_u64(primepair_prop_value(c->kms.fd, p, DRM_MODE_OBJECT_PLANE,
					       "COLOR_PIPELINE"), c->primary.id);
	igt_assert_eq_u32(capture_diff(c, 1), 0);
}

/* A pseudo-random NV12 framebuffer of the mode's size: its fb id */
static uint32_t nv12_create(struct ctx *c, uint32_t *handle)
{
	uint32_t pitch, fb, handles[4] = {}, pitches[4] = {}, offsets[4] = {};
	uint64_t size, off;
	uint8_t *map;

	igt_assert_eq(drmModeCreateDumbBuffer(c->kms.fd, c->w, c->h * 3 / 2, 8,
					      0, handle, &pitch, &size), 0);
	igt_assert_eq(drmModeMapDumbBuffer(c->kms.fd, *handle, &off), 0);
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->kms.fd, off);
	igt_assert(map != MAP_FAILED);
	for (uint64_t i = 0; i < size; i++)
		map[i] = (uint8_t)((i * 2654435761u) >> 13);
	munmap(map, size);
	handles[0] = handles[1] = *handle;
	pitches[0] = pitches[1] = pitch;
	offsets[1] = pitch * c->h;
	igt_assert_eq(drmModeAddFB2(c->kms.fd, c->w, c->h, DRM_FORMAT_NV12,
				    handles, pitches, offsets, &fb, 0), 0);
	return fb;
}

/*
 * With the cap, COLOR_ENCODING and COLOR_RANGE are hidden; the 7.3 core
 * still takes them by id, and vdisplay ignores them, as the core asks:
 * an NV12 plane reads as BT.601 limited range, their defaults.
 */
static void test_legacy(struct ctx *c)
{
	uint32_t p = c->o->primary, enc, range, handle;
	struct primepair_fb yuv = {};
	uint32_t *dflt, *other;
	size_t n = (size_t)c->w * c->h;
	drmModeAtomicReqPtr req;

	set_cap(c, 0);
	enc = primepair_prop_id(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_ENCODING");
	range = primepair_prop_id(c->kms.fd, p, DRM_MODE_OBJECT_PLANE, "COLOR_RANGE");
	yuv.fb_id = nv12_create(c, &handle);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &yuv), 0);
	dflt = malloc(n * 4);
	other = malloc(n * 4);
	igt_assert(dflt && other);

	/* Without the cap: the defaults, then BT.709 full range differ */
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	for (size_t i = 0; i < n; i++)
		dflt[i] = fb_pixel(&c->wb, i % c->w, i / c->w);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	igt_assert(drmModeAtomicAddProperty(req, p, enc, 1) > 0);	/* BT.709 */
	igt_assert(drmModeAtomicAddProperty(req, p, range, 1) > 0);	/* full */
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	primepair_writeback_capture(&c->kms, c->o, &c->wb);
	for (size_t i = 0; i < n; i++)
		other[i] = fb_pixel(&c->wb, i % c->w, i / c->w);
	igt_assert(memcmp(dflt, other, n * 4));

	/* With the cap: taken (0), but the plane reads as by default */
	set_cap(c, 1);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	memcpy(c->ref, dflt, n * 4);
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	/* also with the pipeline on: it runs on the default conversion */
	igt_assert_eq(set_pipeline(c, p, &c->primary, &bypass_all, 0), 0);
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	drmModeAtomicFree(req);

	/* A commit without the cap honours them again; then restore them. */
	set_cap(c, 0);
	igt_assert_eq(set_by_id(c, p, enc, 1), 0);
	memcpy(c->ref, other, n * 4);
	igt_assert_eq_u32(capture_diff(c, 0), 0);
	req = drmModeAtomicAlloc();
	igt_assert(req);
	igt_assert(drmModeAtomicAddProperty(req, p, enc, 0) > 0);
	igt_assert(drmModeAtomicAddProperty(req, p, range, 0) > 0);
	igt_assert_eq(primepair_commit(c->kms.fd, req, 0), 0);
	drmModeAtomicFree(req);
	set_cap(c, 1);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb), 0);
	drmModeRmFB(c->kms.fd, yuv.fb_id);
	drmModeDestroyDumbBuffer(c->kms.fd, handle);
	free(dflt);
	free(other);
}

igt_main
{
	struct ctx c = {};

	igt_fixture
		ctx_init(&c);

	igt_describe("Every plane has one pipeline: 1D curve, 1D LUT of 4096, multiplier, two 3x4 matrices, 1D curve, 1D LUT of 4096, 3D LUT of 17, 1D curve, 1D LUT of 4096, all bypassed at first, the eight curves of the core");
	igt_subtest("pipeline-shape") {
		ctx_reset(&c);
		test_shape(&c);
	}
	igt_describe("The cap hides COLOR_PIPELINE or COLOR_ENCODING/COLOR_RANGE; what the core takes without it");
	igt_subtest("client-cap") {
		ctx_reset(&c);
		test_cap(&c);
	}
	igt_describe("sRGB, PQ 125, BT.2020 and gamma 2.2 curves then their inverses give the picture back within 1");
	igt_subtest("curve-roundtrip") {
		ctx_reset(&c);
		test_roundtrip(&c);
	}
	igt_describe("Each curve as first and as last operation against a double-precision reference");
	igt_subtest("curve-reference") {
		ctx_reset(&c);
		test_curves(&c);
	}
	igt_describe("XRGB2101010 in and written back: each curve rounds every 10-bit code once, as the exact curve does; a curve and its inverse give each code back");
	igt_subtest("curve-ten-bit") {
		ctx_reset(&c);
		test_ten_bit(&c);
	}
	igt_describe("3x4 matrices: identity, channel swap, offsets, values above 1 in between; with coefficients of 1/4, 1/2 and 3/2, results halfway between two codes round up, to the bit");
	igt_subtest("ctm-3x4") {
		ctx_reset(&c);
		test_ctm(&c);
	}
	igt_describe("The multiplier scales PQ back to 0-1 and saturates; two matrices encode and decode in order");
	igt_subtest("multiplier-two-matrices") {
		ctx_reset(&c);
		test_mult_matrices(&c);
	}
	igt_describe("1D LUT: an inverting LUT gives 255 - x, per-channel curves against a reference; the first LUT before a matrix, and LUT, matrix, LUT");
	igt_subtest("lut-1d") {
		ctx_reset(&c);
		test_lut(&c);
	}
	igt_describe("3D LUT: identity and channel rotation exact, a grading LUT against a tetrahedral reference, after a 1D LUT");
	igt_subtest("lut-3d") {
		ctx_reset(&c);
		test_lut3d(&c);
	}
	igt_describe("All ten operations at once against the reference, and three curves in a row");
	igt_subtest("all-operations") {
		ctx_reset(&c);
		test_all_ops(&c);
	}
	igt_describe("Decode, matrix, LUT, encode, as an HDR compositor does");
	igt_subtest("decode-matrix-encode") {
		ctx_reset(&c);
		test_full(&c);
	}
	igt_describe("BYPASS on every operation, or the Bypass pipeline, restore the picture and its CRC");
	igt_subtest("bypass") {
		ctx_reset(&c);
		test_bypass(&c);
	}
	igt_describe("A pipeline on the overlay changes only its pixels, one on the primary only the primary's");
	igt_subtest("overlay-only") {
		ctx_reset(&c);
		test_overlay(&c);
	}
	igt_describe("Blobs of the wrong size, a foreign or bad COLOR_PIPELINE, bad enum and immutable properties: EINVAL or ENOENT, nothing kept");
	igt_subtest("bad-input") {
		ctx_reset(&c);
		test_bad(&c);
	}
	igt_describe("COLOR_ENCODING and COLOR_RANGE from a client with the cap are taken by the core and ignored by vdisplay");
	igt_subtest("legacy-color-props") {
		ctx_reset(&c);
		test_legacy(&c);
	}

	igt_fixture {
		ctx_fini(&c);
		primepair_assert_summary_zero();
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - the planes' colour pipeline
 *
 * Built only where the DRM core has colour operations (6.19 on, see
 * include/primepair/compat.h); vdisplay_drv.h gives the other kernels
 * stubs that do nothing.
 */

/**
 * DOC: vdisplay plane colour pipeline
 *
 * Each plane offers one colour pipeline besides "Bypass" in its
 * COLOR_PIPELINE property, which a client sees once it sets
 * DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE.  Its ten operations, each with a
 * BYPASS property that is true at first, apply in this order, which is
 * that of the HDR pipelines compositors map their transforms to (a
 * decode, a conversion, a shaper and 3D LUT, a blend curve and LUT), and
 * holds the shorter one of a LUT, a matrix and a LUT that other display
 * engines offer (Intel's pre- and post-CSC LUTs around its CSC):
 *
 * 1. a 1D curve, any of the eight named ones of the core (sRGB, PQ 125,
 *    BT.2020 and gamma 2.2, each way);
 * 2. a 1D LUT of VDISPLAY_LUT1D_SIZE entries, linearly interpolated: a
 *    decode that no named curve gives, before the matrices;
 * 3. a multiplier, in S31.32 sign-magnitude, which brings PQ's 0 to 125
 *    back to 0 to 1 or sets an SDR picture's brightness among HDR ones;
 * 4. a 3x4 matrix: three rows of red, green and blue coefficients and an
 *    offset, in S31.32 sign-magnitude;
 * 5. a second 3x4 matrix, as vkms has two (a colour space conversion and
 *    a colour effect, or an encoding and its decoding);
 * 6. a second 1D curve, the shaper that takes linear light to the 3D
 *    LUT's domain;
 * 7. a second 1D LUT, as the first: the shaper LUT;
 * 8. a 3D LUT of VDISPLAY_LUT3D_SIZE points on each axis, interpolated
 *    in the tetrahedron of its cube the pixel falls in;
 * 9. a third 1D curve, to encode again what the first decoded;
 * 10. a third 1D LUT.
 *
 * The composer runs them on each pixel of the plane as it reads it,
 * before blending, on red, green and blue in signed fixed point with 24
 * fractional bits: values from -128 to 128 pass from one operation to the
 * next, so a matrix may leave [0, 1] and PQ's 0 to 125 fits.  A curve or
 * a LUT takes its input clamped to its domain ([0, 1], [0, 125] for the
 * PQ 125 inverse EOTF; [0, 1] on each axis of the 3D LUT); the multiplier
 * and the matrices take any, their factors, coefficients and offsets cut
 * to +-128, and saturate.  The result is clamped to [0, 1] and rounded to
 * the blender's 16 bits, halfway cases up (VD_TIE_BIAS, VD_TIE_BIAS_10).
 * Alpha goes through unchanged, and premultiplied pixels are transformed
 * as they are.  A matrix or LUT not bypassed but without DATA passes its
 * input through.
 *
 * The curves are tables computed at module load in integer arithmetic
 * (fixed-point log2 and exp2), with nodes spaced as a float with 7 bits
 * of mantissa: 128 per octave from 2^-17 to 128, so that steep curves near
 * black (gamma 2.2 inverse, PQ) are as exact as the rest.  Between two
 * nodes a curve is the parabola through them and through its value
 * halfway, within about a hundredth of a 16-bit step of the curve, a
 * twentieth near the kinks of the sRGB curves and at PQ's ends (204 KiB
 * for the eight).  An 8-bit value through a curve and its inverse comes
 * back unchanged, and through one sRGB, BT.2020 or gamma 2.2 curve
 * rounds to 8 bits as the exact curve does, but at exact ties.
 *
 * Pixels of a 10-bit format enter the pipeline as the fractions of 1023
 * they are, not as their 16-bit widening, and a result leaves it as the
 * 16-bit value nearest to it that rounds to the same 10-bit code as the
 * result itself (and to the same 8-bit one, which wins where the two
 * disagree, at three values of Q24).  So an XRGB2101010 picture written
 * back as XRGB2101010 gets its codes rounded once, from the pipeline's
 * result, and not twice through the blender's 16 bits.
 *
 * The atomic check takes what the composer needs from the colorop states
 * of the plane's pipeline into the plane's state: the active operations,
 * the matrices converted, and a reference on each LUT's blob.  The scene
 * the composer draws copies it at the CRTC's flush; the worker never
 * reads a colorop state.
 *
 * A commit from a client that set the cap has the plane's COLOR_ENCODING
 * and COLOR_RANGE ignored, as the core asks of drivers (it hides them from
 * such a client, but does not refuse them): YUV framebuffers are then
 * read as BT.601 limited range, the properties' defaults.
 */

#include <linux/bits.h>
#include <linux/cache.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_atomic.h>
#include <drm/drm_managed.h>
#include <drm/drm_plane.h>
#include <drm/drm_property.h>

#include "vdisplay_drv.h"

#ifdef PRIMEPAIR_HAVE_COLOR_PIPELINE

#include <linux/sprintf.h>

#include <drm/drm_colorop.h>

/* ----------------------------------------------------------------------
 * Fixed point: pixels in Q24 (s32), curves computed in Q32 (u64)
 */

#define VD_Q24_ONE	BIT(24)
#define VD_Q32_ONE	BIT_ULL(32)

/*
 * Results halfway between two output codes.  Q24 cannot hold k / 255: a
 * pixel read from 8 bits comes in up to half a unit off, and a matrix's
 * products and rounding add up to a unit and a half more.  Coefficients
 * such as 1/4, 1/2 and 3/2 put many results exactly halfway between two
 * 8-bit codes (3/2 of an odd code), and some of those landed a unit or
 * two below the tie and rounded down.  Exact arithmetic rounds a tie up,
 * and so does IGT's model: a result within two units below a 16-bit tie
 * is taken as the tie.  A 16-bit tie is where an 8-bit one falls (65535
 * is 255 x 257), and two units of Q24 are 1/128 of a 16-bit step; a value
 * that close to a tie but off it is within what this fixed point cannot
 * tell from one on it.  The bias is in units of the product of a Q24
 * value and 0xffff.
 */
#define VD_TIE_BIAS	(2 * 0xffff)
/*
 * The same for the 10-bit code a result rounds to, in units of the
 * product of a Q24 value and 1023, but one unit: 10-bit ties are not
 * 16-bit ones, and the sRGB curve, its inverse and the curve again take
 * 151/1023 to 1.3 units below a 10-bit tie that it is not (19.49992).
 */
#define VD_TIE_BIAS_10	1023
/*
 * More than a 16-bit step, 1023 * 2^24 / 0xffff in units of 2^-24 of a
 * 10-bit code: a result farther than that from a 10-bit boundary rounds
 * to the same code from its nearest 16-bit value.
 */
#define VD_NEAR_10	(1023 * 257)

/* A constant num / den in Q32, rounded */
#define VD_Q32(num, den)	DIV_ROUND_CLOSEST_ULL((num) * VD_Q32_ONE, den)
/* ln 2 in Q62 */
#define VD_LN2_Q62	0x2c5c85fdf473de6bULL

/* log2 of @x > 0, both in Q32; exact to about 2^-32 */
static s64 vd_log2(u64 x)
{
	int n = fls64(x) - 1;
	u64 m = x << (62 - n), frac = 0;
	int i;

	/* m in [1, 2) in Q62; each squaring yields one bit of the fraction */
	for (i = 31; i >= 0; i--) {
		m = mul_u64_u64_shr(m, m, 62);
		if (m >> 63) {
			m >>= 1;
			frac |= BIT_ULL(i);
		}
	}
	return ((s64)(n - 32) << 32) + (s64)frac;
}

/* 2^@y, @y in Q32 below 30, the result in Q32 */
static u64 vd_exp2(s64 y)
{
	s64 k = y >> 32;
	u64 z = mul_u64_u64_shr((u64)y & U32_MAX, VD_LN2_Q62, 32);
	u64 sum = BIT_ULL(62), term = BIT_ULL(62);
	unsigned int i, shift;

	if (k < -32)
		return 0;
	/* 2^f = e^(f ln 2) for the fraction f, by its series, in Q62 */
	for (i = 1; term; i++) {
		term = div_u64(mul_u64_u64_shr(term, z, 62), i);
		sum += term;
	}
	shift = 30 - k;
	return (sum + BIT_ULL(shift - 1)) >> shift;
}

/* @x^(@num / @den), @x in Q32 */
static u64 vd_pow(u64 x, u32 num, u32 den)
{
	if (!x)
		return 0;
	return vd_exp2(div_s64(vd_log2(x) * num, den));
}

/* ----------------------------------------------------------------------
 * The curves, from their standards
 */

/* sRGB, IEC 61966-2-1 */
#define VD_SRGB_OFFSET		VD_Q32(55, 1000)
/* BT.2020 (and BT.709) alpha 1.09929682680944 and beta 0.018053968510807 */
#define VD_BT2020_ALPHA		4721443920ULL
#define VD_BT2020_BETA		77541204ULL
/* SMPTE ST 2084 c1, c2, c3 (m1 = 2610 / 16384, m2 = 2523 / 32) */
#define VD_PQ_C1		(3424ULL << 20)
#define VD_PQ_C2		(2413ULL << 25)
#define VD_PQ_C3		(2392ULL << 25)

static u64 vd_srgb_eotf(u64 x)
{
	if (x <= VD_Q32(4045, 100000))
		return div_u64(x * 25, 323);
	return vd_pow(div_u64((x + VD_SRGB_OFFSET) * 200, 211), 12, 5);
}

static u64 vd_srgb_inv_eotf(u64 x)
{
	u64 p;

	if (x <= VD_Q32(31308, 10000000))
		return div_u64(x * 323, 25);
	p = div_u64(vd_pow(x, 5, 12) * 211, 200);
	return p > VD_SRGB_OFFSET ? p - VD_SRGB_OFFSET : 0;
}

static u64 vd_gamma22(u64 x)
{
	return vd_pow(x, 11, 5);
}

static u64 vd_gamma22_inv(u64 x)
{
	return vd_pow(x, 5, 11);
}

static u64 vd_bt2020_oetf(u64 x)
{
	if (x < VD_BT2020_BETA)
		return div_u64(x * 9, 2);
	return mul_u64_u64_shr(VD_BT2020_ALPHA, vd_pow(x, 9, 20), 32) -
	       (VD_BT2020_ALPHA - VD_Q32_ONE);
}

static u64 vd_bt2020_inv_oetf(u64 x)
{
	if (x < div_u64(VD_BT2020_BETA * 9, 2))
		return div_u64(x * 2, 9);
	return vd_pow(mul_u64_u64_div_u64(x + VD_BT2020_ALPHA - VD_Q32_ONE,
					  VD_Q32_ONE, VD_BT2020_ALPHA), 20, 9);
}

/* PQ, 0 to 1 in, 0 to 125 out (125 is 10000 cd/m^2) */
static u64 vd_pq_eotf(u64 x)
{
	u64 p = vd_pow(x, 32, 2523), num, den;

	if (p <= VD_PQ_C1)
		return 0;
	num = p - VD_PQ_C1;
	den = VD_PQ_C2 - ((p * 2392) >> 7);
	return 125 * vd_pow(mul_u64_u64_div_u64(num, VD_Q32_ONE, den),
			    16384, 2610);
}

static u64 vd_pq_inv_eotf(u64 x)
{
	u64 p = vd_pow(div_u64(x, 125), 2610, 16384);
	u64 num = VD_PQ_C1 + ((p * 2413) >> 7);
	u64 den = VD_Q32_ONE + ((p * 2392) >> 7);

	return vd_pow(mul_u64_u64_div_u64(num, VD_Q32_ONE, den), 2523, 32);
}

/**
 * struct vd_curve - a named 1D curve
 * @fn: the curve on its domain, in Q32
 * @top: the end of its domain, in Q24
 */
struct vd_curve {
	u64 (*fn)(u64 x);
	u32 top;
};

static const struct vd_curve vd_curves[DRM_COLOROP_1D_CURVE_COUNT] = {
	[DRM_COLOROP_1D_CURVE_SRGB_EOTF] = { vd_srgb_eotf, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_SRGB_INV_EOTF] = { vd_srgb_inv_eotf, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_PQ_125_EOTF] = { vd_pq_eotf, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_PQ_125_INV_EOTF] = { vd_pq_inv_eotf, 125 * VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_BT2020_INV_OETF] = { vd_bt2020_inv_oetf, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_BT2020_OETF] = { vd_bt2020_oetf, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_GAMMA22] = { vd_gamma22, VD_Q24_ONE },
	[DRM_COLOROP_1D_CURVE_GAMMA22_INV] = { vd_gamma22_inv, VD_Q24_ONE },
};

/*
 * Table nodes: the first VD_MANT_STEPS at each Q24 step, then
 * VD_MANT_STEPS per octave up to 2^31 (128.0), the last node alone.
 */
#define VD_MANT_BITS	7
#define VD_MANT_STEPS	BIT(VD_MANT_BITS)
#define VD_NODES	(VD_MANT_STEPS * (32 - VD_MANT_BITS) + 1)

/**
 * struct vd_node - a node of a curve's table
 * @y: the curve at the node, in Q24
 * @bow: how far below the chord from this node to the next the curve
 *	passes halfway between them, in Q24 (negative where it passes
 *	above); 0 where the nodes are one Q24 step apart and nothing lies
 *	between them
 */
struct vd_node {
	u32 y;
	s32 bow;
};

static struct vd_node vd_curve_tables[DRM_COLOROP_1D_CURVE_COUNT][VD_NODES] __ro_after_init;

static u32 vd_node_x(unsigned int i)
{
	if (i < VD_MANT_STEPS)
		return i;
	i -= VD_MANT_STEPS;
	return (VD_MANT_STEPS + (i % VD_MANT_STEPS)) << (i / VD_MANT_STEPS);
}

/*
 * The chord's midpoint from node @i to node @i + 1 of curve @type, less
 * the curve there, both in Q32, rounded to Q24; @top is the end of the
 * curve's domain in Q32.  The table holds the nodes already.
 */
static s32 vd_curve_bow(unsigned int type, unsigned int i, u64 top)
{
	u64 x0 = min_t(u64, (u64)vd_node_x(i) << 8, top);
	u64 x1 = min_t(u64, (u64)vd_node_x(i + 1) << 8, top);
	s64 chord, bow;

	if (x1 - x0 <= BIT(8))
		return 0;
	chord = ((s64)vd_curve_tables[type][i].y +
		 vd_curve_tables[type][i + 1].y) << 7;
	bow = chord - (s64)min_t(u64, vd_curves[type].fn((x0 + x1) / 2),
				 (u64)S32_MAX << 8);
	return (bow + 128) >> 8;
}

/**
 * vdisplay_colorop_tables_init() - compute the curves' tables
 *
 * Context: module init, before any device exists.
 */
void vdisplay_colorop_tables_init(void)
{
	unsigned int type, i;

	for (type = 0; type < DRM_COLOROP_1D_CURVE_COUNT; type++) {
		u64 top = (u64)vd_curves[type].top << 8;

		for (i = 0; i < VD_NODES; i++) {
			u64 x = min_t(u64, (u64)vd_node_x(i) << 8, top);
			u64 y = (vd_curves[type].fn(x) + 128) >> 8;

			vd_curve_tables[type][i].y = min_t(u64, y, S32_MAX);
		}
		for (i = 0; i + 1 < VD_NODES; i++)
			vd_curve_tables[type][i].bow =
				vd_curve_bow(type, i, top);
	}
}

/* ----------------------------------------------------------------------
 * Applying the pipeline, in the composer's worker
 */

/*
 * Below 2 * VD_MANT_STEPS the nodes are a Q24 step apart and the shift
 * is 0, so the first values need no case of their own; above, each
 * octave has VD_MANT_STEPS of them.  The domain ends below 128, so the
 * last node is never the left one of a pair: t[1] always exists.
 * At the fraction f of the way from node i to node i + 1 the parabola is
 * the chord less 4 f (1 - f) times the bow, which is the bow halfway.
 */
static s32 vd_apply_curve(unsigned int type, s32 v)
{
	u32 u = clamp_t(s32, v, 0, vd_curves[type].top);
	unsigned int sh = max(fls(u) - 1 - VD_MANT_BITS, 0);
	unsigned int i = (sh << VD_MANT_BITS) + (u >> sh);
	const struct vd_node *t = &vd_curve_tables[type][i];
	u32 frac = u & (BIT(sh) - 1);
	/* f (1 - f) in units of 2^-sh, below 2^21 */
	s64 w = ((u64)frac * (BIT(sh) - frac)) >> sh;
	s64 chord = t[0].y + ((((s64)t[1].y - t[0].y) * frac) >> sh);

	return chord - ((4 * t[0].bow * w) >> sh);
}

static u32 vd_lut_channel(const struct drm_color_lut32 *e, unsigned int c)
{
	return c == 0 ? e->red : c == 1 ? e->green : e->blue;
}

/* A LUT entry's channel, 0 to 0xffffffff (1.0), widened to Q24 */
static s32 vd_lut32_to_q24(u64 v)
{
	return (v >> 8) + (v >> 31);
}

/* Channel @c (0 red, 1 green, 2 blue) of the 1D LUT at @v, in Q24 */
static s32 vd_apply_lut(const struct drm_color_lut32 *lut, unsigned int c,
			s32 v)
{
	u64 pos = (u64)clamp_t(s32, v, 0, VD_Q24_ONE) *
		  (VDISPLAY_LUT1D_SIZE - 1);
	/* 1.0 is the far end of the last interval */
	unsigned int i = min_t(unsigned int, pos >> 24, VDISPLAY_LUT1D_SIZE - 2);
	s64 a = vd_lut_channel(&lut[i], c);
	s64 b = vd_lut_channel(&lut[i + 1], c);
	s64 frac = pos - ((u64)i << 24);

	return vd_lut32_to_q24(a + (((b - a) * frac) >> 24));
}

/*
 * The 3D LUT at @rgb.  The cube of the lattice around the pixel splits
 * into six tetrahedra along its diagonal, one for each order of the
 * three fractions; the pixel's one has the corners reached from the
 * cube's origin by a step along the axis of the largest fraction, then
 * the middle one, then the smallest, and the pixel is their weighted sum
 * with the differences of the sorted fractions as weights.
 */
static void vd_apply_lut3d(const struct drm_color_lut32 *lut, s32 *rgb)
{
	const unsigned int n = VDISPLAY_LUT3D_SIZE;
	const unsigned int stride[3] = { 1, n, n * n };
	unsigned int axis[3] = { 0, 1, 2 }, corner = 0, i, c;
	u32 f[3], w[4];
	u64 acc[3] = { 0, 0, 0 };

	for (c = 0; c < 3; c++) {
		u64 pos = (u64)clamp_t(s32, rgb[c], 0, VD_Q24_ONE) * (n - 1);
		/* 1.0 is the far end of the last cube */
		unsigned int idx = min_t(unsigned int, pos >> 24, n - 2);

		f[c] = pos - ((u64)idx << 24);
		corner += idx * stride[c];
	}
	/* the axes by their fractions, largest first */
	if (f[axis[0]] < f[axis[1]])
		swap(axis[0], axis[1]);
	if (f[axis[1]] < f[axis[2]])
		swap(axis[1], axis[2]);
	if (f[axis[0]] < f[axis[1]])
		swap(axis[0], axis[1]);
	w[0] = VD_Q24_ONE - f[axis[0]];
	w[1] = f[axis[0]] - f[axis[1]];
	w[2] = f[axis[1]] - f[axis[2]];
	w[3] = f[axis[2]];

	/* weights sum to 2^24: each sum below 2^56 */
	for (i = 0; i < 4; i++) {
		const struct drm_color_lut32 *e = &lut[corner];

		acc[0] += (u64)e->red * w[i];
		acc[1] += (u64)e->green * w[i];
		acc[2] += (u64)e->blue * w[i];
		if (i < 3)
			corner += stride[axis[i]];
	}
	for (c = 0; c < 3; c++)
		rgb[c] = vd_lut32_to_q24((acc[c] + BIT_ULL(23)) >> 24);
}

static void vd_apply_matrix(const s64 *m, s32 *rgb)
{
	s64 out[3];
	unsigned int c;

	for (c = 0; c < 3; c++) {
		const s64 *row = &m[4 * c];
		/* each product below 2^62: add them at 2^-40 */
		s64 sum = (row[0] * rgb[0] >> 8) + (row[1] * rgb[1] >> 8) +
			  (row[2] * rgb[2] >> 8);

		out[c] = ((sum + (1LL << 15)) >> 16) + row[3];
	}
	for (c = 0; c < 3; c++)
		rgb[c] = clamp_t(s64, out[c], S32_MIN, S32_MAX);
}

static void vd_apply_step(const struct vdisplay_step *s, s32 *rgb)
{
	unsigned int c;

	switch (s->kind) {
	case VDISPLAY_STEP_CURVE:
		for (c = 0; c < 3; c++)
			rgb[c] = vd_apply_curve(s->curve, rgb[c]);
		break;
	case VDISPLAY_STEP_MULTIPLY:
		for (c = 0; c < 3; c++)
			rgb[c] = clamp_t(s64, (rgb[c] * s->gain + (1LL << 23)) >> 24,
					 S32_MIN, S32_MAX);
		break;
	case VDISPLAY_STEP_MATRIX:
		vd_apply_matrix(s->matrix, rgb);
		break;
	case VDISPLAY_STEP_LUT:
		for (c = 0; c < 3; c++)
			rgb[c] = vd_apply_lut(s->lut, c, rgb[c]);
		break;
	case VDISPLAY_STEP_LUT3D:
		vd_apply_lut3d(s->lut, rgb);
		break;
	}
}

/*
 * 0xffff is 1.0: to Q24, v * 2^24 / 0xffff being v * 2^8 + v * 2^-8 +
 * v * 2^-24 ..., rounded
 */
static s32 vd_px_to_q24(u32 v)
{
	return (v << 8) + ((v + 128) >> 8);
}

static bool vd_step_per_channel(const struct vdisplay_step *s)
{
	return s->kind == VDISPLAY_STEP_CURVE ||
	       s->kind == VDISPLAY_STEP_MULTIPLY ||
	       s->kind == VDISPLAY_STEP_LUT;
}

/*
 * Fold the steps that come first and work on each channel alone into
 * @p->lead, for pixels read from 8-bit channels: 256 values a channel,
 * run through the same steps as any pixel, so the table's results are
 * those of the steps to the bit.  Without memory for the table the
 * composer runs every step on every pixel, as before.
 */
static void vd_fold_leading(struct vdisplay_pipeline *p)
{
	unsigned int n, v, c, s;

	for (n = 0; n < p->nsteps && vd_step_per_channel(&p->steps[n]); n++)
		;
	if (!n)
		return;
	p->lead = kmalloc_array(3, sizeof(*p->lead), GFP_KERNEL);
	if (!p->lead)
		return;
	for (v = 0; v < 256; v++) {
		s32 rgb[3];

		for (c = 0; c < 3; c++)
			rgb[c] = vd_px_to_q24(v * 0x101);
		for (s = 0; s < n; s++)
			vd_apply_step(&p->steps[s], rgb);
		for (c = 0; c < 3; c++)
			p->lead[c][v] = rgb[c];
	}
	p->nlead = n;
}

/* A 10-bit code, the top ten bits of its 16-bit widening, to Q24 */
static s32 vd_10_to_q24(u32 v)
{
	return div_u64(((u64)v << 24) + 511, 1023);
}

/*
 * A result in Q24 to the blender's 16 bits: the nearest 16-bit value, or
 * the next one towards the result where that rounds to the 10-bit code
 * the result rounds to and the nearest does not (so that a 10-bit
 * picture gets its codes rounded once), unless the 8-bit code would
 * change with it.
 */
static u32 vd_q24_to_px(s32 q)
{
	u64 v = clamp_t(s32, q, 0, VD_Q24_ONE);
	u32 y = (v * 0xffff + BIT(23) + VD_TIE_BIAS) >> 24;
	/* the 10-bit code above 24 bits, how far past its boundary below */
	u64 t = v * 1023 + BIT(23) + VD_TIE_BIAS_10;
	u32 past = t & (VD_Q24_ONE - 1), code = t >> 24, next;

	if (past > VD_NEAR_10 && past < VD_Q24_ONE - VD_NEAR_10)
		return y;
	if (vdisplay_16_to_10(y) == code)
		return y;
	next = vdisplay_16_to_10(y) < code ? y + 1 : y - 1;
	return vdisplay_16_to_8(next) == vdisplay_16_to_8(y) ? next : y;
}

/**
 * vdisplay_pipeline_apply() - run a plane's colour pipeline on pixels
 * @p: the plane's active operations, at least one
 * @px: @n pixels of the composer's (see vdisplay_px()), transformed in
 *	place
 * @n: number of pixels
 * @ten_bit: the pixels were read from a format of 10 bits a channel
 *	(&vdisplay_format.ten_bit)
 *
 * Context: the composer, under the output's compose_lock.
 */
void vdisplay_pipeline_apply(const struct vdisplay_pipeline *p, u64 *px,
			     unsigned int n, bool ten_bit)
{
	u64 last_in = 0, last_out = 0;
	unsigned int i, s, c;

	for (i = 0; i < n; i++) {
		u64 in = px[i], out = in & VDISPLAY_PX_OPAQUE;
		u32 v[3];
		s32 rgb[3];

		/* Runs of one colour, common in what compositors draw */
		if (i && in == last_in) {
			px[i] = last_out;
			continue;
		}

		for (c = 0; c < 3; c++)
			v[c] = vdisplay_px_chan(in, 32 - 16 * c);
		if (ten_bit) {
			/* the codes themselves, not their 16-bit widening */
			for (c = 0; c < 3; c++)
				rgb[c] = vd_10_to_q24(v[c] >> 6);
			s = 0;
		} else if (p->nlead && (v[0] >> 8) == (v[0] & 0xff) &&
			   (v[1] >> 8) == (v[1] & 0xff) &&
			   (v[2] >> 8) == (v[2] & 0xff)) {
			/* Read from 8 bits a channel: the first steps are a lookup */
			for (c = 0; c < 3; c++)
				rgb[c] = p->lead[c][v[c] & 0xff];
			s = p->nlead;
		} else {
			for (c = 0; c < 3; c++)
				rgb[c] = vd_px_to_q24(v[c]);
			s = 0;
		}
		for (; s < p->nsteps; s++)
			vd_apply_step(&p->steps[s], rgb);
		for (c = 0; c < 3; c++)
			out |= (u64)vd_q24_to_px(rgb[c]) << (32 - 16 * c);
		px[i] = out;
		last_in = in;
		last_out = out;
	}
}

/* ----------------------------------------------------------------------
 * The atomic check: the plane state takes what the composer needs
 */

/* S31.32 sign-magnitude to Q24 two's complement, within +-128 */
static s64 vd_s31_32_to_q24(u64 v)
{
	s64 q = min_t(u64, ((v & ~BIT_ULL(63)) + 128) >> 8, S32_MAX);

	return v & BIT_ULL(63) ? -q : q;
}

/**
 * vdisplay_plane_pipeline_release() - drop a plane state's pipeline
 * @vs: the plane state
 *
 * Context: any; puts the references on the LUT blobs.
 */
void vdisplay_plane_pipeline_release(struct vdisplay_plane_state *vs)
{
	unsigned int i;

	for (i = 0; i < VDISPLAY_PIPELINE_MAX_OPS; i++) {
		drm_property_blob_put(vs->pipeline_blobs[i]);
		vs->pipeline_blobs[i] = NULL;
	}
	kfree(vs->pipeline.lead);
	memset(&vs->pipeline, 0, sizeof(vs->pipeline));
}

/**
 * vdisplay_plane_pipeline_copy() - give a duplicated plane state the
 * pipeline of the one it copies
 * @dst: the new state, whose pipeline is empty
 * @src: the state it duplicates
 *
 * Context: the plane's atomic_duplicate_state.
 */
void vdisplay_plane_pipeline_copy(struct vdisplay_plane_state *dst,
				  const struct vdisplay_plane_state *src)
{
	unsigned int i;

	dst->pipeline = src->pipeline;
	if (src->pipeline.lead) {
		/* The copy is the new state's own; without it, no lookup */
		dst->pipeline.lead = kmemdup(src->pipeline.lead,
					     3 * sizeof(*src->pipeline.lead),
					     GFP_KERNEL);
		if (!dst->pipeline.lead)
			dst->pipeline.nlead = 0;
	}
	dst->legacy_color_ignored = src->legacy_color_ignored;
	for (i = 0; i < VDISPLAY_PIPELINE_MAX_OPS; i++) {
		dst->pipeline_blobs[i] = src->pipeline_blobs[i];
		if (dst->pipeline_blobs[i])
			drm_property_blob_get(dst->pipeline_blobs[i]);
	}
}

/* Add the operation @op in @cs to @vs's pipeline, unless it changes nothing. */
static int vd_add_step(struct vdisplay_plane_state *vs, struct drm_colorop *op,
		       const struct drm_colorop_state *cs)
{
	struct vdisplay_pipeline *p = &vs->pipeline;
	struct vdisplay_step *s = &p->steps[p->nsteps];
	const struct drm_color_ctm_3x4 *ctm;
	unsigned int i;

	if (p->nsteps >= VDISPLAY_PIPELINE_MAX_OPS)
		return -EINVAL;
	switch (op->type) {
	case DRM_COLOROP_1D_CURVE:
		if (cs->curve_1d_type >= DRM_COLOROP_1D_CURVE_COUNT)
			return -EINVAL;
		s->kind = VDISPLAY_STEP_CURVE;
		s->curve = cs->curve_1d_type;
		break;
	case DRM_COLOROP_MULTIPLIER:
		s->kind = VDISPLAY_STEP_MULTIPLY;
		s->gain = vd_s31_32_to_q24(cs->multiplier);
		break;
	case DRM_COLOROP_CTM_3X4:
		if (!cs->data)
			return 0;
		/* The core let through only blobs of the matrix's size. */
		ctm = cs->data->data;
		s->kind = VDISPLAY_STEP_MATRIX;
		for (i = 0; i < ARRAY_SIZE(s->matrix); i++)
			s->matrix[i] = vd_s31_32_to_q24(ctm->matrix[i]);
		break;
	case DRM_COLOROP_1D_LUT:
		if (!cs->data)
			return 0;
		if (cs->data->length != VDISPLAY_LUT1D_SIZE * sizeof(*s->lut))
			return -EINVAL;
		s->kind = VDISPLAY_STEP_LUT;
		s->lut = cs->data->data;
		vs->pipeline_blobs[p->nsteps] = drm_property_blob_get(cs->data);
		break;
	case DRM_COLOROP_3D_LUT:
		if (!cs->data)
			return 0;
		if (cs->data->length != VDISPLAY_LUT3D_SIZE * VDISPLAY_LUT3D_SIZE *
					VDISPLAY_LUT3D_SIZE * sizeof(*s->lut))
			return -EINVAL;
		s->kind = VDISPLAY_STEP_LUT3D;
		s->lut = cs->data->data;
		vs->pipeline_blobs[p->nsteps] = drm_property_blob_get(cs->data);
		break;
	default:
		return -EINVAL;
	}
	p->nsteps++;
	return 0;
}

/**
 * vdisplay_plane_pipeline_check() - take the plane's colour pipeline into
 * its new state
 * @state: the commit being checked
 * @plane: a plane of @state
 *
 * Walks the pipeline COLOR_PIPELINE selects, reading each colorop's state
 * in @state, or its current one when @state does not change it, and
 * keeps the operations not bypassed.  Notes whether @state comes from a
 * client with DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE, for which the plane's
 * COLOR_ENCODING and COLOR_RANGE are ignored.
 *
 * Context: the plane's atomic_check, with the plane's lock held.
 * Return: 0, or -EINVAL for a pipeline the composer cannot run.
 */
int vdisplay_plane_pipeline_check(struct drm_atomic_commit *state,
				  struct drm_plane *plane)
{
	struct drm_plane_state *ps = drm_atomic_get_new_plane_state(state, plane);
	struct vdisplay_plane_state *vs = to_vdisplay_plane_state(ps);
	const struct drm_colorop_state *cs;
	struct drm_colorop *op;
	int ret;

	vdisplay_plane_pipeline_release(vs);
	vs->legacy_color_ignored = state->plane_color_pipeline;

	for (op = ps->color_pipeline; op; op = op->next) {
		if (op->plane != plane)
			return -EINVAL;
		cs = drm_atomic_get_new_colorop_state(state, op) ?: op->state;
		if (cs->bypass)
			continue;
		ret = vd_add_step(vs, op, cs);
		if (ret)
			return ret;
	}
	vd_fold_leading(&vs->pipeline);
	return 0;
}

/**
 * vdisplay_plane_pipeline_changed() - does a commit change what the
 * plane's colour pipeline does?
 * @old_state: the plane's state before the commit
 * @new_state: its state in the commit
 *
 * Return: true if the commit selects another pipeline or sets a property
 * of one of the plane's colorops.
 */
bool vdisplay_plane_pipeline_changed(const struct drm_plane_state *old_state,
				     const struct drm_plane_state *new_state)
{
	return old_state->color_pipeline != new_state->color_pipeline ||
	       new_state->color_mgmt_changed;
}

/* ----------------------------------------------------------------------
 * The colorop objects
 */

/**
 * struct vd_colorops - the colorops of one plane, in pipeline order
 * @ops: the operations
 */
struct vd_colorops {
	struct drm_colorop ops[VDISPLAY_PIPELINE_MAX_OPS];
};

/* Undo an initialised colorop; the memory is the device's (drmm). */
static void vd_colorop_cleanup(struct drm_colorop *op)
{
	if (!op->dev)
		return;
	drm_colorop_cleanup(op);
	op->dev = NULL;
}

/*
 * Released before the core's mode config cleanup, which would otherwise
 * destroy the colorops from its list after their memory is gone.
 */
static void vd_colorops_release(struct drm_device *drm, void *data)
{
	struct vd_colorops *c = data;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->ops); i++)
		vd_colorop_cleanup(&c->ops[i]);
}

static const struct drm_colorop_funcs vd_colorop_funcs = {
	.destroy = vd_colorop_cleanup,
};

/* The pipeline, in order (see the DOC section above) */
static const enum drm_colorop_type vd_pipeline_ops[VDISPLAY_PIPELINE_MAX_OPS] = {
	DRM_COLOROP_1D_CURVE, DRM_COLOROP_1D_LUT, DRM_COLOROP_MULTIPLIER,
	DRM_COLOROP_CTM_3X4, DRM_COLOROP_CTM_3X4,
	DRM_COLOROP_1D_CURVE, DRM_COLOROP_1D_LUT, DRM_COLOROP_3D_LUT,
	DRM_COLOROP_1D_CURVE, DRM_COLOROP_1D_LUT,
};

static int vd_colorop_init(struct drm_device *drm, struct drm_colorop *op,
			   struct drm_plane *plane, enum drm_colorop_type type)
{
	const u64 curves = GENMASK_ULL(DRM_COLOROP_1D_CURVE_COUNT - 1, 0);
	const u32 flags = DRM_COLOROP_FLAG_ALLOW_BYPASS;
	const struct drm_colorop_funcs *funcs = &vd_colorop_funcs;

	switch (type) {
	case DRM_COLOROP_1D_CURVE:
		return drm_plane_colorop_curve_1d_init(drm, op, plane, funcs,
						       curves, flags);
	case DRM_COLOROP_MULTIPLIER:
		return drm_plane_colorop_mult_init(drm, op, plane, funcs, flags);
	case DRM_COLOROP_CTM_3X4:
		return drm_plane_colorop_ctm_3x4_init(drm, op, plane, funcs,
						      flags);
	case DRM_COLOROP_1D_LUT:
		return drm_plane_colorop_curve_1d_lut_init(drm, op, plane, funcs,
							   VDISPLAY_LUT1D_SIZE,
							   DRM_COLOROP_LUT1D_INTERPOLATION_LINEAR,
							   flags);
	case DRM_COLOROP_3D_LUT:
		return drm_plane_colorop_3dlut_init(drm, op, plane, funcs,
						    VDISPLAY_LUT3D_SIZE,
						    DRM_COLOROP_LUT3D_INTERPOLATION_TETRAHEDRAL,
						    flags);
	default:
		return -EINVAL;
	}
}

/**
 * vdisplay_plane_colorops_init() - give a plane its colour pipeline
 * @vd: the device
 * @plane: the plane, initialised
 *
 * Context: device probe, before drm_mode_config_reset().
 * Return: 0 or a negative errno.
 */
int vdisplay_plane_colorops_init(struct vdisplay_device *vd,
				 struct drm_plane *plane)
{
	struct drm_prop_enum_list pipeline;
	struct drm_device *drm = &vd->drm;
	struct drm_colorop *ops;
	struct vd_colorops *c;
	char name[DRM_PROP_NAME_LEN];
	unsigned int i;
	int ret;

	c = drmm_kzalloc(drm, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(drm, vd_colorops_release, c);
	if (ret)
		return ret;
	ops = c->ops;

	for (i = 0; i < VDISPLAY_PIPELINE_MAX_OPS; i++) {
		ret = vd_colorop_init(drm, &ops[i], plane, vd_pipeline_ops[i]);
		if (ret)
			return ret;
	}
	for (i = 0; i + 1 < VDISPLAY_PIPELINE_MAX_OPS; i++)
		drm_colorop_set_next_property(&ops[i], &ops[i + 1]);

	/* An enum entry is named by its first operation's object id. */
	snprintf(name, sizeof(name), "Color Pipeline %u", ops[0].base.id);
	pipeline.type = ops[0].base.id;
	pipeline.name = name;
	return drm_plane_create_color_pipeline_property(plane, &pipeline, 1);
}

#endif /* PRIMEPAIR_HAVE_COLOR_PIPELINE */

// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - composer, CRC and writeback output
 *
 * The composer does what a display engine does while it scans out: it
 * reads the visible planes, bottom to top, and blends them into one image
 * of the CRTC's size.  The commit hands it a new scene at the CRTC's flush
 * (vdisplay_composer_update()); the vblank timer queues the worker, which
 * composes only when someone looks at the result: the CRC source is on or
 * a writeback job waits for a frame.
 *
 * The scene points into framebuffers vmapped by the plane states of the
 * CRTC's current state.  A following commit replaces the scene at its
 * flush, under @scene_lock, without waiting for a frame being composed;
 * the worker takes the newest scene when it starts a frame, and holds
 * @compose_lock while it composes.  The commit's cleanup_planes takes
 * @compose_lock before it vunmaps the old framebuffers, so the worker
 * never reads a mapping that is gone, and a slow frame delays only the
 * release of the old buffers, never the new frame's flush or its event.
 *
 * The composed image is kept.  A commit that changes nothing but what is
 * in its planes' framebuffers, and says where with FB_DAMAGE_CLIPS, has
 * the next frame compose only the CRTC rows those clips cover (see
 * vdisplay_compose() for when a frame is composed in full).  The planes'
 * updates report the damage, the CRTC's flush hands it on with the scene.
 *
 * Pixels are blended at 16 bits per channel, over a black background:
 * 10- and 16-bit framebuffers keep their precision up to the writeback,
 * and the planes' colour pipelines run on it.  Plane alpha is used at 8
 * bits, as most display engines have it.  The CRC is taken of the image
 * rounded to XRGB8888, so that a picture's CRC does not depend on the
 * depth of the framebuffers that make it; the writeback rounds it to
 * the depth of its own format.
 *
 * A scaled plane is sampled by nearest neighbour, whatever its
 * SCALING_FILTER (DEFAULT means nearest neighbour here): each destination
 * pixel shows the source pixel under its centre.  Its position comes from
 * the plane's whole rectangles as userspace set them, the source in 16.16,
 * in exact integer arithmetic; clipping to the CRTC only says which
 * destination pixels are drawn, so a plane partly off screen shows the
 * same pixels where it is visible as it would whole.  An unscaled plane
 * at a whole source position is read a row at a time as before.
 *
 * The CRTC's gamma LUT comes last, on the blended image, where a display
 * engine applies it on the way to the connector: the CRC and writeback
 * see the corrected picture.  It has one entry per 8-bit value, of which
 * the composer keeps the top 8 bits, as an 8-bit pipe wired to a 16-bit
 * table would, and interpolates between entries for the values between
 * them.  Both linear ramps userspace sets, i << 8 (the core's legacy
 * default) and i * 0x101, then give the picture unchanged; rounding
 * (drm_color_lut_extract()) would raise the upper half of the second one
 * by one.
 */

#include <linux/completion.h>
#include <linux/crc32.h>
#include <linux/math64.h>
#include <linux/dma-fence.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <drm/drm_atomic.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_damage_helper.h>
#include <drm/drm_debugfs_crc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_modeset_lock.h>
#include <drm/drm_print.h>
#include <drm/drm_rect.h>
#include <drm/drm_vblank.h>

#include "vdisplay_drv.h"

/* @v / 0xffff, rounded, for sums of products of 16-bit values */
static inline u32 vdisplay_div65535(u64 v)
{
	return div_u64(v + 0x7fff, 0xffff);
}

/*
 * Blend @src over @dst, 16 bits per channel.  @pa is the plane alpha,
 * 0 to 0xffff:
 * none: src * pa + dst * (1 - pa), the pixel's alpha ignored;
 * pre-multiplied: src * pa + dst * (1 - a * pa);
 * coverage: src * a * pa + dst * (1 - a * pa).
 * Each channel is rounded once, from the exact sum of its two terms.
 */
static u64 vdisplay_blend_pixel(u64 dst, u64 src, u32 pa, u16 mode)
{
	u32 a = vdisplay_px_chan(src, 48), sa, da;
	u64 out = VDISPLAY_PX_OPAQUE;
	unsigned int shift;

	if (mode == DRM_MODE_BLEND_PIXEL_NONE)
		a = 0xffff;
	sa = vdisplay_div65535((u64)a * pa);
	da = 0xffff - sa;
	if (mode != DRM_MODE_BLEND_COVERAGE)
		sa = pa;

	for (shift = 0; shift < 48; shift += 16) {
		u64 c = (u64)vdisplay_px_chan(src, shift) * sa +
			(u64)vdisplay_px_chan(dst, shift) * da;

		out |= (u64)min_t(u32, vdisplay_div65535(c), 0xffff) << shift;
	}
	return out;
}

/*
 * The plane alpha the blender uses: the property's top 8 bits, widened
 * again, so that 0xff00 and up are opaque.
 */
static u32 vdisplay_layer_alpha(const struct vdisplay_layer *l)
{
	return (l->alpha >> 8) * 0x101;
}

/*
 * A plane of a format without alpha, at full plane alpha, replaces what
 * is below it: its reader's opaque pixels go straight into the image.
 */
static bool vdisplay_layer_is_copy(const struct vdisplay_layer *l)
{
	return vdisplay_layer_alpha(l) == 0xffff && !l->fmt->has_alpha;
}

/*
 * The sample whose top byte is at @top, in 8.8 fixed point of 8-bit
 * units: an 8-bit sample exactly, a 16-bit one (P010) with its 10
 * significant bits and without the 6 unused ones below them.
 */
static inline s64 vdisplay_yuv_sample(const u8 *top, bool wide)
{
	return wide ? ((u32)top[0] << 8 | top[-1]) & 0xffc0 : (u32)top[0] << 8;
}

/* A channel in Q24 of 8-bit units to 16 bits, rounded and clamped */
static inline u32 vdisplay_yuv_channel(s64 v)
{
	return clamp_t(s64, (v * 257 + (1 << 23)) >> 24, 0, 0xffff);
}

/*
 * Pixel (@x, @y) of a YUV framebuffer.  Every YUV format is read alike,
 * where its entry says the top byte of each sample lies; @l->cb and
 * @l->cr point at those of the first chroma samples.  The samples are
 * taken in 8.8 fixed point, the coefficients are Q16, and the result is
 * rounded once, to the blender's 16 bits.
 */
static u64 vdisplay_yuv_pixel(const struct vdisplay_layer *l, int x, int y)
{
	const struct vdisplay_format *fmt = l->fmt;
	size_t cx = (size_t)(x / fmt->hsub) * fmt->chroma_cpp;
	size_t cy = y / fmt->vsub;
	const u8 *p = (const u8 *)l->vaddr + (size_t)y * l->pitch +
		      (size_t)x * fmt->cpp;
	bool wide = fmt->cpp == 2;
	s64 luma = vdisplay_yuv_sample(p + fmt->cpp - 1, wide);
	s64 cb = vdisplay_yuv_sample(&l->cb[cy * l->cb_pitch + cx], wide) -
		 (128 << 8);
	s64 cr = vdisplay_yuv_sample(&l->cr[cy * l->cr_pitch + cx], wide) -
		 (128 << 8);
	s64 yy = (luma - (l->yuv.y0 << 8)) * l->yuv.y;

	return vdisplay_px(0xffff, vdisplay_yuv_channel(yy + cr * l->yuv.rv),
			   vdisplay_yuv_channel(yy + cb * l->yuv.gu +
						cr * l->yuv.gv),
			   vdisplay_yuv_channel(yy + cb * l->yuv.bu));
}

/*
 * @n pixels of row @y of a YUV framebuffer from column @x, left to right:
 * vdisplay_yuv_pixel()'s arithmetic, with the luma walked a sample at a
 * time and each chroma pair's terms worked out once for the pixels that
 * share it.
 */
static void vdisplay_read_yuv_run(u64 *dst, const struct vdisplay_layer *l,
				  int x, int y, unsigned int n)
{
	const struct vdisplay_format *fmt = l->fmt;
	bool wide = fmt->cpp == 2;
	const u8 *luma = (const u8 *)l->vaddr + (size_t)y * l->pitch +
			 (size_t)x * fmt->cpp + fmt->cpp - 1;
	const u8 *cb = &l->cb[(size_t)(y / fmt->vsub) * l->cb_pitch];
	const u8 *cr = &l->cr[(size_t)(y / fmt->vsub) * l->cr_pitch];
	unsigned int cx = x / fmt->hsub, phase = x % fmt->hsub, i;
	s64 u, v, rc = 0, gc = 0, bc = 0, yy;

	for (i = 0; i < n; i++, luma += fmt->cpp) {
		if (i == 0 || phase == 0) {
			u = vdisplay_yuv_sample(&cb[cx * fmt->chroma_cpp],
						wide) - (128 << 8);
			v = vdisplay_yuv_sample(&cr[cx * fmt->chroma_cpp],
						wide) - (128 << 8);
			rc = v * l->yuv.rv;
			gc = u * l->yuv.gu + v * l->yuv.gv;
			bc = u * l->yuv.bu;
		}
		yy = (vdisplay_yuv_sample(luma, wide) - (l->yuv.y0 << 8)) *
		     l->yuv.y;
		dst[i] = vdisplay_px(0xffff, vdisplay_yuv_channel(yy + rc),
				     vdisplay_yuv_channel(yy + gc),
				     vdisplay_yuv_channel(yy + bc));
		if (++phase == fmt->hsub) {
			phase = 0;
			cx++;
		}
	}
}

/* A run read left to right, for a line that runs right to left */
static void vdisplay_reverse(u64 *px, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n / 2; i++)
		swap(px[i], px[n - 1 - i]);
}

/*
 * Row @j of a YUV layer, rotated or not.  Along a framebuffer row (not
 * turned, or half a turn) it is read as a run, reversed when the line
 * runs right to left; down a column, a pixel at a time.
 */
static void vdisplay_read_yuv(u64 *dst, const struct vdisplay_layer *l,
			      int j, unsigned int n)
{
	int x, y;
	unsigned int i;

	if (!l->rotated) {
		vdisplay_read_yuv_run(dst, l, l->src.x1, l->src.y1 + j, n);
		return;
	}
	x = l->ox + j * l->jx;
	y = l->oy + j * l->jy;
	if (!l->iy) {
		if (l->ix > 0) {
			vdisplay_read_yuv_run(dst, l, x, y, n);
			return;
		}
		vdisplay_read_yuv_run(dst, l, x + 1 - (int)n, y, n);
		vdisplay_reverse(dst, n);
		return;
	}
	for (i = 0; i < n; i++, x += l->ix, y += l->iy)
		dst[i] = vdisplay_yuv_pixel(l, x, y);
}

/* Pixels gathered from a column at a time for one call of the reader */
#define VDISPLAY_GATHER	64

/* One pixel of @cpp bytes; the common sizes as single moves */
static inline void vdisplay_copy_pixel(u8 *dst, const u8 *src,
				       unsigned int cpp)
{
	switch (cpp) {
	case 2:
		memcpy(dst, src, 2);
		break;
	case 4:
		memcpy(dst, src, 4);
		break;
	case 8:
		memcpy(dst, src, 8);
		break;
	default:
		memcpy(dst, src, cpp);
		break;
	}
}

/*
 * Copy @n pixels of @cpp bytes, each @stride bytes after the one before,
 * to @raw, one after the other: a column of the framebuffer as a row.
 */
static void vdisplay_gather(u8 *raw, const u8 *src, ptrdiff_t stride,
			    unsigned int cpp, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++, raw += cpp)
		vdisplay_copy_pixel(raw, src + (ptrdiff_t)i * stride, cpp);
}

/*
 * Row @j of a rotated or reflected layer: its pixels are a line across
 * the framebuffer in one of four directions.  Along a framebuffer row
 * (0 or 180 degrees, reflected or not) they are read as a run, in
 * reverse order when the line runs right to left.  Down or up a column
 * (90 or 270 degrees) they are gathered a few dozen at a time, so that
 * the format's reader is still called on runs and not on each pixel.
 */
static void vdisplay_read_rotated(u64 *dst, const struct vdisplay_layer *l,
				  int j, unsigned int n)
{
	const struct vdisplay_format *fmt = l->fmt;
	int x = l->ox + j * l->jx, y = l->oy + j * l->jy;
	const u8 *p = (const u8 *)l->vaddr + (size_t)y * l->pitch;
	ptrdiff_t stride = (ptrdiff_t)l->iy * l->pitch;
	u64 raw[VDISPLAY_GATHER];
	unsigned int i, k;

	if (!l->iy) {
		if (l->ix > 0) {
			fmt->read_row(dst, p + (size_t)x * fmt->cpp, n);
			return;
		}
		fmt->read_row(dst, p + (size_t)(x + 1 - (int)n) * fmt->cpp, n);
		vdisplay_reverse(dst, n);
		return;
	}
	p += (size_t)x * fmt->cpp;
	for (i = 0; i < n; i += k) {
		k = min_t(unsigned int, n - i, VDISPLAY_GATHER);
		vdisplay_gather((u8 *)raw, p + (ptrdiff_t)i * stride, stride,
				fmt->cpp, k);
		fmt->read_row(&dst[i], raw, k);
	}
}

/* Pixel @k of the destination along axis @a (see struct vdisplay_axis) */
static u32 vdisplay_axis_at(const struct vdisplay_axis *a, u32 k)
{
	return a->first + k * a->step + div64_u64(a->frac + k * a->rem, a->den);
}

/*
 * Row @j of a scaled layer, rotated or not, of any format: the row's view
 * pixels are stepped through without a division and taken back to the
 * framebuffer, a few dozen at a time.  Where they lie along a framebuffer
 * row within a run no longer than the batch (up to 1:1 and a little
 * below, unturned or half a turn), the run is read once, by the format's
 * reader or as YUV, and its pixels repeated; otherwise a YUV pixel is
 * converted alone, and RGB ones are gathered for one call of the
 * format's reader, as for a turned layer.
 */
static void vdisplay_read_scaled(u64 *dst, const struct vdisplay_layer *l,
				 int j, unsigned int n)
{
	const struct vdisplay_format *fmt = l->fmt;
	const struct vdisplay_axis *h = &l->h;
	int b = vdisplay_axis_at(&l->v, j), a = h->first;
	int x0 = l->ox + b * l->jx, y0 = l->oy + b * l->jy;
	const u8 *base = l->vaddr;
	u32 at[VDISPLAY_GATHER], span;
	u64 raw[VDISPLAY_GATHER];
	u64 frac = h->frac;
	unsigned int i, m, k;
	int x, y;

	for (i = 0; i < n; i += k) {
		k = min_t(unsigned int, n - i, VDISPLAY_GATHER);
		for (m = 0; m < k; m++) {
			at[m] = a;
			a += h->step;
			frac += h->rem;
			if (frac >= h->den) {
				frac -= h->den;
				a++;
			}
		}
		span = at[k - 1] - at[0] + 1;
		if (!l->iy && span <= VDISPLAY_GATHER) {
			/* the leftmost framebuffer pixel of the run */
			x = x0 + (int)(l->ix > 0 ? at[0] : at[k - 1]) * l->ix;
			if (fmt->yuv)
				vdisplay_read_yuv_run(raw, l, x, y0, span);
			else
				fmt->read_row(raw, base + (size_t)y0 * l->pitch +
					      (size_t)x * fmt->cpp, span);
			for (m = 0; m < k; m++)
				dst[i + m] = raw[l->ix > 0 ? at[m] - at[0] :
						 at[k - 1] - at[m]];
			continue;
		}
		for (m = 0; m < k; m++) {
			x = x0 + (int)at[m] * l->ix;
			y = y0 + (int)at[m] * l->iy;
			if (fmt->yuv)
				dst[i + m] = vdisplay_yuv_pixel(l, x, y);
			else
				vdisplay_copy_pixel((u8 *)raw + m * fmt->cpp,
						    base + (size_t)y * l->pitch +
						    (size_t)x * fmt->cpp,
						    fmt->cpp);
		}
		if (!fmt->yuv)
			fmt->read_row(&dst[i], raw, k);
	}
}

/* Row @j of the layer, converted to the blender's pixels at @dst */
static void vdisplay_read_layer_row(u64 *dst, const struct vdisplay_layer *l,
				    int j, unsigned int n)
{
	if (l->scaled) {
		vdisplay_read_scaled(dst, l, j, n);
		return;
	}
	if (l->fmt->yuv) {
		vdisplay_read_yuv(dst, l, j, n);
		return;
	}
	if (l->rotated) {
		vdisplay_read_rotated(dst, l, j, n);
		return;
	}
	l->fmt->read_row(dst, (const u8 *)l->vaddr +
			 (size_t)(l->src.y1 + j) * l->pitch +
			 (size_t)l->src.x1 * l->fmt->cpp, n);
}

/*
 * Each row of the layer from @y1 to @y2 is converted by its format's
 * reader into @line, then blended; an opaque layer's reader writes
 * straight into the image.
 */
static void vdisplay_blend_layer(u64 *image, u32 width, u64 *line,
				 const struct vdisplay_layer *l, int y1, int y2)
{
	unsigned int n = drm_rect_width(&l->dst);
	bool copy = vdisplay_layer_is_copy(l);
	u32 pa = vdisplay_layer_alpha(l);
	int y, end = min(l->dst.y2, y2);
	unsigned int i;

	for (y = max(l->dst.y1, y1); y < end; y++) {
		u64 *row = image + (size_t)y * width + l->dst.x1;

		if (copy) {
			vdisplay_read_layer_row(row, l, y - l->dst.y1, n);
			if (l->pipeline.nsteps)
				vdisplay_pipeline_apply(&l->pipeline, row, n,
							l->fmt->ten_bit);
			continue;
		}
		vdisplay_read_layer_row(line, l, y - l->dst.y1, n);
		if (l->pipeline.nsteps)
			vdisplay_pipeline_apply(&l->pipeline, line, n,
						l->fmt->ten_bit);
		for (i = 0; i < n; i++) {
			u64 px = line[i];

			if (pa == 0xffff &&
			    (l->blend == DRM_MODE_BLEND_PIXEL_NONE ||
			     vdisplay_px_chan(px, 48) == 0xffff))
				row[i] = px | VDISPLAY_PX_OPAQUE;
			else
				row[i] = vdisplay_blend_pixel(row[i], px, pa,
							      l->blend);
		}
	}
}

/*
 * Entry @v of a table of VDISPLAY_GAMMA_SIZE 16-bit entries, @v being 0
 * to 0xffff over the whole table: between entries, linearly interpolated
 * and rounded, so that a value from an 8-bit one (a multiple of 0x101)
 * lands on its entry exactly.
 */
static u32 vdisplay_lut_at(const u16 *t, u32 v)
{
	u32 pos = v * (VDISPLAY_GAMMA_SIZE - 1);
	u32 i = pos / 0xffff, frac = pos % 0xffff;

	if (!frac)
		return t[i];
	return (t[i] * (0xffff - frac) + t[i + 1] * frac + 0x7fff) / 0xffff;
}

static void vdisplay_apply_gamma(u64 *image, size_t npixels,
				 const struct vdisplay_frame *f)
{
	size_t i;

	for (i = 0; i < npixels; i++) {
		u64 px = image[i], out = VDISPLAY_PX_OPAQUE;
		unsigned int c;

		for (c = 0; c < 3; c++) {
			unsigned int shift = 32 - 16 * c;
			u32 v = vdisplay_px_chan(px, shift);

			out |= (u64)vdisplay_lut_at(f->gamma[c], v) << shift;
		}
		image[i] = out;
	}
}

/*
 * The CRTC's colour pipeline before its gamma LUT: the DEGAMMA_LUT takes
 * each channel to 16 bits (without one, it stays as it is), the CTM
 * mixes the three at 16 bits, rounded and clamped to [0, 1].  What an
 * 8-bit framebuffer gives is rounded to 8 bits by the CRC and writeback
 * as the rest of the image, as though the pipe were 8 bits wide.
 */
static void vdisplay_apply_degamma_ctm(u64 *image, size_t npixels,
				       const struct vdisplay_frame *f)
{
	size_t i;

	for (i = 0; i < npixels; i++) {
		u64 px = image[i], out = VDISPLAY_PX_OPAQUE;
		u32 in[3];
		unsigned int c;

		for (c = 0; c < 3; c++) {
			u32 v = vdisplay_px_chan(px, 32 - 16 * c);

			if (f->degamma_on)
				v = vdisplay_lut_at(f->degamma[c], v);
			in[c] = v;
		}
		for (c = 0; c < 3; c++) {
			s64 sum;
			u32 v = in[c];

			if (f->ctm_on) {
				sum = f->ctm[3 * c] * in[0] +
				      f->ctm[3 * c + 1] * in[1] +
				      f->ctm[3 * c + 2] * in[2];
				sum = (sum + (1LL << 31)) >> 32;
				v = clamp_t(s64, sum, 0, 0xffff);
			}
			out |= (u64)v << (32 - 16 * c);
		}
		image[i] = out;
	}
}

/*
 * The image's allocation: @frame.height rows of @frame.width pixels, two
 * lines of scratch (the row readers' and the CRC's), a line of XRGB8888
 * for the CRC, then the CRC of each row.
 */
static size_t vdisplay_image_bytes(u32 width, u32 height)
{
	return (size_t)width * (height + 2) * sizeof(u64) +
	       ((size_t)width + height) * sizeof(u32);
}

/* The image for the frame the composer has now */
static size_t vdisplay_frame_image_bytes(struct vdisplay_output *out)
{
	lockdep_assert_held(&out->compose_lock);
	return vdisplay_image_bytes(out->frame.width, out->frame.height);
}

static u64 *vdisplay_row(struct vdisplay_output *out, int y)
{
	return out->image + (size_t)y * out->frame.width;
}

static u64 *vdisplay_scratch_line(struct vdisplay_output *out, int n)
{
	return vdisplay_row(out, out->frame.height + n);
}

static u32 *vdisplay_crc_line(struct vdisplay_output *out)
{
	return (u32 *)vdisplay_scratch_line(out, 2);
}

static u32 *vdisplay_row_crcs(struct vdisplay_output *out)
{
	return vdisplay_crc_line(out) + out->frame.width;
}

/* crc32_le() from 0 of row @y of the image, rounded to XRGB8888 */
static u32 vdisplay_row_crc(struct vdisplay_output *out, int y)
{
	const u64 *row = vdisplay_row(out, y);
	u32 *line = vdisplay_crc_line(out), x;

	for (x = 0; x < out->frame.width; x++)
		line[x] = vdisplay_px_to_x888(row[x]);
	return crc32_le(0, (const u8 *)line, out->frame.width * sizeof(u32));
}

/*
 * Rows @y1 to @y2 of the image: black below, unless the bottom plane
 * covers them opaquely, then every layer that crosses them, bottom first,
 * then the CRTC's colour pipeline on them alone.
 */
static void vdisplay_compose_rows(struct vdisplay_output *out, int y1, int y2)
{
	const struct vdisplay_frame *f = &out->frame;
	const struct vdisplay_layer *bottom = &f->layers[0];
	size_t i, npixels = (size_t)(y2 - y1) * f->width;
	u64 *rows = vdisplay_row(out, y1);
	u64 *line = vdisplay_scratch_line(out, 0);

	if (!f->nlayers || !vdisplay_layer_is_copy(bottom) ||
	    bottom->dst.x1 > 0 || bottom->dst.y1 > y1 ||
	    bottom->dst.x2 < (int)f->width || bottom->dst.y2 < y2)
		for (i = 0; i < npixels; i++)
			rows[i] = VDISPLAY_PX_OPAQUE;
	for (i = 0; i < f->nlayers; i++)
		vdisplay_blend_layer(out->image, f->width, line, &f->layers[i],
				     y1, y2);
	if (f->degamma_on || f->ctm_on)
		vdisplay_apply_degamma_ctm(rows, npixels, f);
	if (f->gamma_on)
		vdisplay_apply_gamma(rows, npixels, f);
}

/*
 * What the commits since the last composition changed, as the worker
 * takes it from the scene's side: @full, something the damage does not
 * describe; @committed, that there were any; @y1 to @y2, the rows their
 * FB_DAMAGE_CLIPS cover.
 */
struct vdisplay_damage {
	bool full;
	bool committed;
	int y1;
	int y2;
};

/* Add rows @y1 to @y2 to the range *@r1 to *@r2 (empty if not r1 < r2). */
static void vdisplay_rows_add(int *r1, int *r2, int y1, int y2)
{
	if (y1 >= y2)
		return;
	if (*r1 >= *r2) {
		*r1 = y1;
		*r2 = y2;
		return;
	}
	*r1 = min(*r1, y1);
	*r2 = max(*r2, y2);
}

/*
 * The image is kept from one composition to the next, and only the rows
 * that FB_DAMAGE_CLIPS say changed are composed again, when it is known
 * what else changed: nothing.  That takes commits.  A display engine
 * shows what is in a framebuffer while it scans it out, including what
 * clients (and vrender) write into one on screen without a commit; a
 * frame composed with no commit since the last one may show such writes
 * anywhere, so it is composed in full.  So is the first frame after a
 * commit that changes anything but framebuffer contents or that has no
 * plane with damage clips, and after the image was reallocated.  Only
 * after commits that all carried damage does the composer trust it: the
 * damage is the least that must be updated, and rows outside it may show
 * what the previous frame showed there until a frame is composed in full.
 * The writeback and the CRC read the whole image all the same.
 *
 * The worker takes the damage from the scene's side (struct
 * vdisplay_damage) when it takes the scene: @d says whether commits came
 * since the last composition and what rows they damaged.
 *
 * With @crc, the CRC of every row is kept up to date too (see
 * vdisplay_frame_crc()): a row composed again is compared with what it
 * held, and only a row that changed is read for its CRC once more.
 */
static void vdisplay_compose(struct vdisplay_output *out, bool crc,
			     const struct vdisplay_damage *d)
{
	const struct vdisplay_frame *f = &out->frame;
	size_t row_bytes = (size_t)f->width * sizeof(u64);
	u32 *row_crc = vdisplay_row_crcs(out);
	u64 *old = vdisplay_scratch_line(out, 1);
	int y, y1 = 0, y2 = f->height;

	lockdep_assert_held(&out->compose_lock);

	if (d->full)
		out->image_valid = false;
	if (out->image_valid && d->committed) {
		y1 = max(d->y1, 0);
		y2 = min_t(int, d->y2, f->height);
	}
	if (out->row_crc_width != f->width || out->row_crc_height != f->height)
		out->row_crc_valid = false;

	if (!crc || !out->row_crc_valid) {
		if (y1 < y2)
			vdisplay_compose_rows(out, y1, y2);
		out->row_crc_valid = crc;
		for (y = 0; crc && y < (int)f->height; y++)
			row_crc[y] = vdisplay_row_crc(out, y);
	} else {
		for (y = y1; y < y2; y++) {
			memcpy(old, vdisplay_row(out, y), row_bytes);
			vdisplay_compose_rows(out, y, y + 1);
			if (memcmp(old, vdisplay_row(out, y), row_bytes))
				row_crc[y] = vdisplay_row_crc(out, y);
		}
	}
	out->row_crc_width = f->width;
	out->row_crc_height = f->height;
	out->image_valid = true;
}

static void vdisplay_write_back(struct vdisplay_output *out,
				const struct vdisplay_wb_target *t)
{
	const struct vdisplay_frame *f = &out->frame;
	u32 y;

	lockdep_assert_held(&out->compose_lock);

	for (y = 0; y < f->height; y++) {
		void *dst = (u8 *)t->vaddr + (size_t)y * t->pitch;
		const u64 *src = out->image + (size_t)y * f->width;

		t->fmt->write_row(dst, src, f->width);
	}
}

/*
 * The image only grows, so a size reserved from a commit or a CRC reader
 * in process context stays reserved for the worker.  Up to 512 MiB for a
 * made-up 8192x8192 mode: fail quietly rather than wake the OOM killer,
 * and charge the caller's memory cgroup (the worker's own allocations,
 * in a kernel thread, are charged to none).
 */
static bool vdisplay_image_reserve(struct vdisplay_output *out, size_t size)
{
	lockdep_assert_held(&out->compose_lock);

	if (size <= out->image_size)
		return true;
	kvfree(out->image);
	out->image_size = 0;
	out->image_valid = false;
	out->row_crc_valid = false;
	out->image = kvmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				    __GFP_RETRY_MAYFAIL);
	if (!out->image)
		return false;
	out->image_size = size;
	return true;
}

/**
 * vdisplay_composer_reserve() - make room to compose frames of a size
 * @out: the output
 * @width: frame width in pixels
 * @height: frame height in pixels
 *
 * A writeback job or a CRC reader needs the composed image.  Reserving it
 * where the request is made lets the request fail with -ENOMEM, charged
 * to the requester, instead of leaving the worker without memory for a
 * job that has to complete.
 *
 * Context: process context; takes the output's compose lock.
 * Return: 0, or -ENOMEM.
 */
int vdisplay_composer_reserve(struct vdisplay_output *out, u32 width,
			      u32 height)
{
	bool ok;

	mutex_lock(&out->compose_lock);
	ok = vdisplay_image_reserve(out, vdisplay_image_bytes(width, height));
	mutex_unlock(&out->compose_lock);
	return ok ? 0 : -ENOMEM;
}

static void vdisplay_signal_writeback(struct vdisplay_output *out, int status)
{
	bool fence_cookie = dma_fence_begin_signalling();

	drm_writeback_signal_completion(&out->wb, status);
	dma_fence_end_signalling(fence_cookie);
}

/* Move the targets at the head of the queue that have failed to @done. */
static void vdisplay_wb_take_cancelled(struct vdisplay_output *out,
				       struct list_head *done)
{
	struct vdisplay_wb_target *t, *tmp;

	lockdep_assert_held(&out->scene_lock);

	list_for_each_entry_safe(t, tmp, &out->wb_pending, node) {
		if (!t->error)
			break;
		list_move_tail(&t->node, done);
	}
}

/*
 * Signal the targets on @done, oldest first: DRM core completes the
 * oldest job of the connector each time.  A target is freed with its job
 * once signalled, so nothing of it is read after.
 */
static void vdisplay_wb_signal_done(struct vdisplay_output *out,
				    struct list_head *done)
{
	struct vdisplay_wb_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, done, node) {
		bool armed = t->armed;
		int status = t->error;

		list_del(&t->node);
		vdisplay_signal_writeback(out, status);
		if (armed)
			drm_crtc_vblank_put(&out->crtc);
	}
}

/*
 * The CRC register is linear: running it over row A then row B gives the
 * register run over A alone, advanced over as many zero bytes as B has
 * (what the zeros do to it depends on the register alone), xor B's CRC
 * from 0.  Advancing over one row of zeros is a linear map of 32 bits,
 * kept as four tables of 256 entries, one per byte of the register; they
 * are built from the 32 single-bit registers, each run over a zero row.
 */
static void vdisplay_crc_build_shift(struct vdisplay_output *out)
{
	size_t row_bytes = (size_t)out->frame.width * sizeof(u32);
	u8 *zeros = (u8 *)vdisplay_crc_line(out);
	u32 bit[32];
	unsigned int i, k, v;

	memset(zeros, 0, row_bytes);
	for (i = 0; i < 32; i++)
		bit[i] = crc32_le(BIT(i), zeros, row_bytes);
	for (k = 0; k < 4; k++) {
		out->crc_shift[k][0] = 0;
		for (v = 1; v < 256; v++)
			out->crc_shift[k][v] = out->crc_shift[k][v & (v - 1)] ^
					       bit[8 * k + __ffs(v)];
	}
	out->crc_shift_width = out->frame.width;
}

/*
 * The CRC of the whole image, from the CRCs of its rows, top row first:
 * what crc32_le() from ~0 over its width * height * 4 bytes, in
 * XRGB8888, gives.
 */
static u32 vdisplay_frame_crc(struct vdisplay_output *out)
{
	const u32 *row_crc = vdisplay_row_crcs(out);
	u32 crc = ~0U;
	unsigned int y;

	lockdep_assert_held(&out->compose_lock);

	if (out->crc_shift_width != out->frame.width)
		vdisplay_crc_build_shift(out);
	for (y = 0; y < out->frame.height; y++)
		crc = out->crc_shift[0][crc & 0xff] ^
		      out->crc_shift[1][(crc >> 8) & 0xff] ^
		      out->crc_shift[2][(crc >> 16) & 0xff] ^
		      out->crc_shift[3][crc >> 24] ^ row_crc[y];
	return crc;
}

/*
 * A display engine computes a CRC for every frame it scans out.  The worker
 * runs late when the machine is busy, and vblanks pass meanwhile; their
 * frames are reported with the CRC of the image composed now, the closest
 * the composer can tell of what they showed.  A gap longer than the core's
 * CRC queue would only overflow it, so then only @seq is reported.
 */
static void vdisplay_crc_report(struct vdisplay_output *out, u64 seq, u32 crc,
				u32 gen)
{
	u64 frame = seq;

	spin_lock_irq(&out->frame_lock);
	/*
	 * Composed for a reader who has gone since: the source was switched
	 * off and on while this frame was blended.
	 */
	if (gen != out->crc_gen || !out->crc_enabled ||
	    (out->crc_seq_valid && seq <= out->crc_seq)) {
		spin_unlock_irq(&out->frame_lock);
		return;
	}
	if (out->crc_seq_valid && seq - out->crc_seq <= DRM_CRC_ENTRIES_NR)
		frame = out->crc_seq + 1;
	out->crc_seq = seq;
	out->crc_seq_valid = true;
	spin_unlock_irq(&out->frame_lock);

	for (; frame <= seq; frame++)
		drm_crtc_add_crc_entry(&out->crtc, true, frame, &crc);
}

/*
 * Take the last committed scene into @out->frame, and the first waiting
 * writeback target.  When the frame is to be composed, also take the
 * damage the commits since the last composition left, into @d.
 */
static struct vdisplay_wb_target *
vdisplay_take_scene(struct vdisplay_output *out, bool crc_enabled,
		    struct list_head *done, struct vdisplay_damage *d,
		    bool *compose)
{
	struct vdisplay_wb_target *wb;

	lockdep_assert_held(&out->compose_lock);

	mutex_lock(&out->scene_lock);
	if (out->scene_new) {
		out->frame = out->scene;
		out->scene_new = false;
	}
	vdisplay_wb_take_cancelled(out, done);
	wb = list_first_entry_or_null(&out->wb_pending,
				      struct vdisplay_wb_target, node);
	*compose = out->frame.active && (crc_enabled || wb);
	if (*compose) {
		d->full = out->scene_full;
		d->committed = out->committed;
		d->y1 = out->damage_y1;
		d->y2 = out->damage_y2;
		out->scene_full = false;
		out->committed = false;
		out->damage_y1 = 0;
		out->damage_y2 = 0;
	}
	mutex_unlock(&out->scene_lock);
	return wb;
}

/* @wb was served, or failed with @error: move it to @done. */
static void vdisplay_wb_done(struct vdisplay_output *out,
			     struct vdisplay_wb_target *wb, int error,
			     struct list_head *done)
{
	mutex_lock(&out->scene_lock);
	if (error)
		wb->error = error;
	list_move_tail(&wb->node, done);
	vdisplay_wb_take_cancelled(out, done);
	mutex_unlock(&out->scene_lock);
}

/*
 * The worker holds @compose_lock for the whole composition, and the
 * scene's lock only while it takes the scene: a commit's flush hands a
 * new scene over meanwhile without waiting for the frame to finish.
 */
void vdisplay_compose_work(struct work_struct *work)
{
	struct vdisplay_output *out = container_of(work, struct vdisplay_output,
						   compose_work);
	struct vdisplay_damage damage;
	struct vdisplay_wb_target *wb;
	LIST_HEAD(done);
	bool crc_enabled, compose;
	u32 crc = 0, gen;
	u64 seq;

	spin_lock_irq(&out->frame_lock);
	seq = out->frame_seq;
	crc_enabled = out->crc_enabled;
	gen = out->crc_gen;
	spin_unlock_irq(&out->frame_lock);

	mutex_lock(&out->compose_lock);
	wb = vdisplay_take_scene(out, crc_enabled, &done, &damage, &compose);
	if (!compose) {
		mutex_unlock(&out->compose_lock);
		vdisplay_wb_signal_done(out, &done);
		return;
	}
	/*
	 * A job's commit reserved its frame's size, but a modeset since
	 * (with a CRC reader) may want more.  No frame, no CRC: the job
	 * this frame was for fails rather than waits for memory forever.
	 * The image is composed in full the next time.
	 */
	if (!vdisplay_image_reserve(out, vdisplay_frame_image_bytes(out))) {
		drm_dbg_kms(out->crtc.dev, "[CRTC:%d] no memory to compose %ux%u\n",
			    out->crtc.base.id, out->frame.width,
			    out->frame.height);
		if (wb)
			vdisplay_wb_done(out, wb, -ENOMEM, &done);
		mutex_unlock(&out->compose_lock);
		vdisplay_wb_signal_done(out, &done);
		return;
	}

	vdisplay_compose(out, crc_enabled, &damage);
	if (crc_enabled)
		crc = vdisplay_frame_crc(out);
	if (wb) {
		int error = 0;

		/*
		 * The atomic check matched the framebuffer to the mode of its
		 * commit; a later modeset cancels the waiting targets.  Never
		 * write a frame of another size all the same.
		 */
		if (wb->width == out->frame.width &&
		    wb->height == out->frame.height)
			vdisplay_write_back(out, wb);
		else
			error = -EIO;
		vdisplay_wb_done(out, wb, error, &done);
	}
	mutex_unlock(&out->compose_lock);

	vdisplay_wb_signal_done(out, &done);
	if (crc_enabled)
		vdisplay_crc_report(out, seq, crc, gen);
}

/*
 * The atomic check clipped the source in the plane's rotated view of the
 * framebuffer (drm_rect_rotate()); step through that view and take each
 * pixel back to the framebuffer with the core's own inverse, so that the
 * composer means by each rotation and reflection what the core does.  The
 * map is affine: three points give it, view pixel (@vx, @vy) and its two
 * neighbours.
 */
static void vdisplay_layer_map(struct vdisplay_layer *l,
			       const struct drm_plane_state *state,
			       int vx, int vy)
{
	unsigned int rotation = state->rotation;
	int w = state->fb->width, h = state->fb->height;
	struct drm_rect p;

	p = DRM_RECT_INIT(vx, vy, 1, 1);
	drm_rect_rotate_inv(&p, w, h, rotation);
	l->ox = p.x1;
	l->oy = p.y1;
	p = DRM_RECT_INIT(vx + 1, vy, 1, 1);
	drm_rect_rotate_inv(&p, w, h, rotation);
	l->ix = p.x1 - l->ox;
	l->iy = p.y1 - l->oy;
	p = DRM_RECT_INIT(vx, vy + 1, 1, 1);
	drm_rect_rotate_inv(&p, w, h, rotation);
	l->jx = p.x1 - l->ox;
	l->jy = p.y1 - l->oy;
}

/* An unscaled layer's map starts at its clipped source. */
static void vdisplay_layer_rotation(struct vdisplay_layer *l,
				    const struct drm_plane_state *state)
{
	struct drm_rect view = l->src;

	if (!l->rotated)
		return;
	drm_rect_rotate(&view, state->fb->width, state->fb->height,
			state->rotation);
	vdisplay_layer_map(l, state, view.x1, view.y1);
}

/*
 * Along one axis of the view: destination pixel k of @dst_len, counted
 * from the plane's unclipped edge, shows the view pixel under its centre,
 * (@src_pos + (k + 1/2) * @src_len / @dst_len) >> 16 for a source at
 * @src_pos, @src_len long in 16.16.  Multiplied out by 2 * @dst_len, the
 * position is an integer, stepped from @skip, the first pixel the clip
 * leaves, in whole pixels and a remainder.  The atomic check bounds the
 * terms: a source within an 8192-pixel framebuffer (2^29 in 16.16), a
 * destination about eight times as long at most (below 2^17), so no
 * product reaches 2^48, nor k * @rem in vdisplay_axis_at() 2^52.
 */
static void vdisplay_axis_init(struct vdisplay_axis *a, u32 src_pos,
			       u32 src_len, u32 dst_len, u32 skip)
{
	u64 pos = (u64)src_pos * 2 * dst_len + (2ULL * skip + 1) * src_len;

	a->den = (u64)dst_len << 17;
	a->first = div64_u64_rem(pos, a->den, &a->frac);
	a->step = div64_u64_rem(2ULL * src_len, a->den, &a->rem);
}

/* @len, in 16.16, is @pixels whole pixels */
static bool vdisplay_same_length(int len, int pixels)
{
	return (s64)len == (s64)pixels << 16;
}

/*
 * A plane is sampled as scaled when its source, in the rotated view, is
 * not the size of its destination or does not start on a pixel boundary.
 * @src and @dst are set to the plane's whole rectangles, the source in
 * that view.
 */
static bool vdisplay_plane_scaled(const struct drm_plane_state *state,
				  struct drm_rect *src, struct drm_rect *dst)
{
	*src = drm_plane_state_src(state);
	*dst = drm_plane_state_dest(state);
	drm_rect_rotate(src, state->fb->width << 16, state->fb->height << 16,
			state->rotation);
	return !vdisplay_same_length(drm_rect_width(src), drm_rect_width(dst)) ||
	       !vdisplay_same_length(drm_rect_height(src), drm_rect_height(dst)) ||
	       (src->x1 | src->y1) & 0xffff;
}

/*
 * The whole rectangles of a scaled plane give the samples, the clipped
 * destination the pixels drawn.  Any other plane is read as before, its
 * source as the atomic check clipped it.
 */
static bool vdisplay_layer_scale(struct vdisplay_layer *l,
				 const struct drm_plane_state *state)
{
	struct drm_rect src, dst;

	if (!vdisplay_plane_scaled(state, &src, &dst))
		return false;

	vdisplay_layer_map(l, state, 0, 0);
	vdisplay_axis_init(&l->h, src.x1, drm_rect_width(&src),
			   drm_rect_width(&dst), l->dst.x1 - dst.x1);
	vdisplay_axis_init(&l->v, src.y1, drm_rect_height(&src),
			   drm_rect_height(&dst), l->dst.y1 - dst.y1);
	return true;
}

/*
 * Q16 coefficients of the YCbCr to RGB matrix of @encoding, from its Kr
 * and Kb (in 1/10000), for 8-bit values: full range takes Y as it is and
 * Cb, Cr around 128; limited range stretches Y from 16..235 and the
 * chroma from 16..240 to the full scale.
 */
static void vdisplay_layer_yuv(struct vdisplay_layer *l,
			       enum drm_color_encoding encoding,
			       enum drm_color_range range)
{
	static const struct { s64 kr, kb; } k[] = {
		[DRM_COLOR_YCBCR_BT601] = { 2990, 1140 },
		[DRM_COLOR_YCBCR_BT709] = { 2126, 722 },
		[DRM_COLOR_YCBCR_BT2020] = { 2627, 593 },
	};
	bool limited = range == DRM_COLOR_YCBCR_LIMITED_RANGE;
	s64 kr = k[encoding].kr, kb = k[encoding].kb;
	s64 kg = 10000 - kr - kb;
	/* chroma scale, Q16 */
	s64 cs = limited ? div_s64(255LL << 16, 224) : 1LL << 16;

	l->yuv.y0 = limited ? 16 : 0;
	l->yuv.y = limited ? div_s64(255LL << 16, 219) : 1 << 16;
	l->yuv.rv = div_s64(2 * (10000 - kr) * cs, 10000);
	l->yuv.bu = div_s64(2 * (10000 - kb) * cs, 10000);
	l->yuv.gu = -div_s64(2 * kb * (10000 - kb) * cs, 10000 * kg);
	l->yuv.gv = -div_s64(2 * kr * (10000 - kr) * cs, 10000 * kg);
}

static void vdisplay_layer_from_state(struct vdisplay_layer *l,
				      struct drm_plane_state *state)
{
	struct vdisplay_plane_state *vs = to_vdisplay_plane_state(state);

	l->vaddr = vs->data[0].vaddr;
	l->fmt = vdisplay_format_find(state->fb->format->format);
	l->pitch = state->fb->pitches[0];
	l->src.x1 = state->src.x1 >> 16;
	l->src.y1 = state->src.y1 >> 16;
	l->src.x2 = state->src.x2 >> 16;
	l->src.y2 = state->src.y2 >> 16;
	l->dst = state->dst;
	l->alpha = state->alpha;
	l->blend = state->pixel_blend_mode;
	l->rotated = state->rotation != DRM_MODE_ROTATE_0;
	l->scaled = vdisplay_layer_scale(l, state);
	if (!l->scaled)
		vdisplay_layer_rotation(l, state);
	if (l->fmt->yuv) {
		l->cb = (const u8 *)vs->data[l->fmt->cb_plane].vaddr +
			l->fmt->cb_byte;
		l->cr = (const u8 *)vs->data[l->fmt->cr_plane].vaddr +
			l->fmt->cr_byte;
		l->cb_pitch = state->fb->pitches[l->fmt->cb_plane];
		l->cr_pitch = state->fb->pitches[l->fmt->cr_plane];
		if (vs->legacy_color_ignored)
			vdisplay_layer_yuv(l, VDISPLAY_DEFAULT_ENCODING,
					   VDISPLAY_DEFAULT_RANGE);
		else
			vdisplay_layer_yuv(l, state->color_encoding,
					   state->color_range);
	}
	l->pipeline = vs->pipeline;
}

/* S31.32 sign-magnitude, as the uapi has it, to Q32.32 within +-256 */
static s64 vdisplay_ctm_coeff(u64 v)
{
	s64 mag = min_t(u64, v & ~BIT_ULL(63), 256ULL << 32);

	return v & BIT_ULL(63) ? -mag : mag;
}

/* The atomic check let through only LUTs of VDISPLAY_GAMMA_SIZE entries. */
static void vdisplay_degamma_ctm_from_state(struct vdisplay_frame *f,
					    const struct drm_crtc_state *crtc_state)
{
	const struct drm_color_lut *lut;
	const struct drm_color_ctm *ctm;
	unsigned int i;

	f->degamma_on = crtc_state->degamma_lut;
	if (f->degamma_on) {
		lut = crtc_state->degamma_lut->data;
		for (i = 0; i < VDISPLAY_GAMMA_SIZE; i++) {
			f->degamma[0][i] = lut[i].red;
			f->degamma[1][i] = lut[i].green;
			f->degamma[2][i] = lut[i].blue;
		}
	}
	f->ctm_on = crtc_state->ctm;
	if (f->ctm_on) {
		ctm = crtc_state->ctm->data;
		for (i = 0; i < 9; i++)
			f->ctm[i] = vdisplay_ctm_coeff(ctm->matrix[i]);
	}
}

static void vdisplay_gamma_from_state(struct vdisplay_frame *f,
				      const struct drm_crtc_state *crtc_state)
{
	const struct drm_property_blob *blob = crtc_state->gamma_lut;
	const struct drm_color_lut *lut;
	unsigned int i;

	f->gamma_on = blob;
	if (!f->gamma_on)
		return;

	lut = blob->data;
	for (i = 0; i < VDISPLAY_GAMMA_SIZE; i++) {
		f->gamma[0][i] = (lut[i].red >> 8) * 0x101;
		f->gamma[1][i] = (lut[i].green >> 8) * 0x101;
		f->gamma[2][i] = (lut[i].blue >> 8) * 0x101;
	}
}

/*
 * Build the scene from the planes of the CRTC's current state, sorted by
 * normalized zpos, and take the state's colour pipeline.  Both callers
 * run before the old framebuffers' mappings are cleaned up, and the
 * cleanup waits for a composition still reading an older scene
 * (vdisplay_composer_release()), so no scene is read after its mappings
 * are released.
 */
static void vdisplay_composer_build(struct vdisplay_output *out)
{
	struct drm_crtc_state *crtc_state = out->crtc.state;
	struct vdisplay_layer *layers[VDISPLAY_MAX_LAYERS] = {};
	struct vdisplay_frame *f = &out->scene;
	struct drm_plane *plane;
	unsigned int i, n;

	lockdep_assert_held(&out->scene_lock);
	f->active = crtc_state->active;
	f->width = crtc_state->mode.hdisplay;
	f->height = crtc_state->mode.vdisplay;
	f->nlayers = 0;

	drm_for_each_plane_mask(plane, out->crtc.dev, crtc_state->plane_mask) {
		struct drm_plane_state *ps = plane->state;
		unsigned int z = ps->normalized_zpos;

		if (!ps->visible || !ps->fb || z >= VDISPLAY_MAX_LAYERS ||
		    layers[z] || !to_vdisplay_plane_state(ps)->data[0].vaddr)
			continue;
		vdisplay_layer_from_state(&f->layers[z], ps);
		layers[z] = &f->layers[z];
	}
	/* Pack the layers bottom first. */
	for (i = 0, n = 0; i < VDISPLAY_MAX_LAYERS; i++)
		if (layers[i])
			f->layers[n++] = *layers[i];
	f->nlayers = n;

	vdisplay_degamma_ctm_from_state(f, crtc_state);
	vdisplay_gamma_from_state(f, crtc_state);
	out->scene_new = true;
}

/**
 * vdisplay_composer_update_locked() - hand the CRTC's current state to the
 * composer after an asynchronous cursor update
 * @out: the output whose cursor changed
 *
 * The update carries no damage: the next frame is composed in full.
 *
 * Context: @out->scene_lock held, by the asynchronous cursor update
 * under the modeset locks; it orders the update, the commits' flushes and
 * the worker taking the scene.
 */
void vdisplay_composer_update_locked(struct vdisplay_output *out)
{
	lockdep_assert_held(&out->scene_lock);
	out->scene_full = true;
	vdisplay_composer_build(out);
}

/**
 * vdisplay_composer_update() - hand the CRTC's new state to the composer
 * @out: the output whose CRTC is being flushed
 *
 * Adds the damage the commit's planes reported to the rows the next frame
 * composes, unless the commit changed more than framebuffer contents (a
 * plane said so, or the CRTC's size, activity or colour pipeline changed)
 * or no plane of it had damage clips: then the next frame is composed in
 * full.
 *
 * The scene is handed over without waiting for a frame being composed:
 * the worker takes it when it starts the next one.
 *
 * Context: the commit's tail, from the CRTC's atomic_flush (which holds
 * no modeset lock in a nonblocking commit), after the planes' updates.
 * Takes @out->scene_lock.
 */
void vdisplay_composer_update(struct vdisplay_output *out)
{
	const struct drm_crtc_state *crtc_state = out->crtc.state;
	const struct vdisplay_frame *f = &out->scene;

	mutex_lock(&out->scene_lock);
	if (out->commit_full || !out->commit_clips ||
	    crtc_state->active != f->active ||
	    crtc_state->mode.hdisplay != f->width ||
	    crtc_state->mode.vdisplay != f->height ||
	    crtc_state->color_mgmt_changed)
		out->scene_full = true;
	vdisplay_rows_add(&out->damage_y1, &out->damage_y2, out->commit_y1,
			  out->commit_y2);
	out->committed = true;
	out->commit_full = false;
	out->commit_clips = false;
	out->commit_y1 = 0;
	out->commit_y2 = 0;
	vdisplay_composer_build(out);
	mutex_unlock(&out->scene_lock);
}

/**
 * vdisplay_composer_release() - wait until no composition reads a scene
 * older than the last one handed over
 * @out: the output a plane state leaving it showed on
 *
 * A flush hands the composer a new scene without waiting for the frame
 * being composed, which may still read the framebuffers of the states
 * the commit replaced.  Their cleanup calls this before it releases
 * their mappings: a composition started after the flush reads the new
 * scene, and one started before holds @out->compose_lock until it ends.
 *
 * Context: process context, from cleanup_fb.  Takes @out->compose_lock.
 */
void vdisplay_composer_release(struct vdisplay_output *out)
{
	mutex_lock(&out->compose_lock);
	mutex_unlock(&out->compose_lock);
}

/**
 * vdisplay_composer_damage_plane() - note the rows a plane's new contents
 * damage
 * @out: the output the plane shows on in @new_state
 * @old_state: the plane's state before the commit
 * @new_state: its state in the commit, which changes nothing but the
 *	framebuffer (or its contents) since @old_state
 *
 * Takes the damage helpers' clips, in framebuffer coordinates (the whole
 * plane when the commit has no FB_DAMAGE_CLIPS for it), to CRTC rows for
 * the CRTC's flush: an upright unscaled plane's clip covers the rows it
 * is shown on, any other plane's its whole destination.
 *
 * Context: the commit's tail, from the plane's atomic_update, before the
 * CRTC's flush.  Takes @out->scene_lock.
 */
void vdisplay_composer_damage_plane(struct vdisplay_output *out,
				    const struct drm_plane_state *old_state,
				    const struct drm_plane_state *new_state)
{
	const struct drm_rect *dst = &new_state->dst;
	int top = new_state->src.y1 >> 16;
	struct drm_atomic_helper_damage_iter iter;
	struct drm_rect clip, src, whole_dst;
	bool whole;

	whole = new_state->fb &&
		(new_state->rotation != DRM_MODE_ROTATE_0 ||
		 vdisplay_plane_scaled(new_state, &src, &whole_dst));

	mutex_lock(&out->scene_lock);
	if (drm_plane_get_damage_clips_count(new_state))
		out->commit_clips = true;
	drm_atomic_helper_damage_iter_init(&iter, old_state, new_state);
	drm_atomic_for_each_plane_damage(&iter, &clip) {
		int y1 = dst->y1, y2 = dst->y2;

		if (!whole) {
			y1 = max(y1, dst->y1 + clip.y1 - top);
			y2 = min(y2, dst->y1 + clip.y2 - top);
		}
		vdisplay_rows_add(&out->commit_y1, &out->commit_y2, y1, y2);
	}
	mutex_unlock(&out->scene_lock);
}

/**
 * vdisplay_composer_damage_all() - the commit changes more than contents
 * @out: an output a plane of the commit leaves, joins or changes on
 *
 * The next frame after the CRTC's flush is composed in full.
 *
 * Context: the commit's tail, from a plane's atomic_update, before the
 * CRTC's flush.  Takes @out->scene_lock.
 */
void vdisplay_composer_damage_all(struct vdisplay_output *out)
{
	mutex_lock(&out->scene_lock);
	out->commit_full = true;
	mutex_unlock(&out->scene_lock);
}

/**
 * vdisplay_composer_arm_writeback() - write a coming frame into @target
 * @out: the output whose writeback connector got a job
 * @target: the job's framebuffer mapping, format, pitch and size
 *
 * The job must be queued already.  Targets are served in the order their
 * jobs were queued, one per composed frame.  An armed target holds a
 * vblank reference, so that the timer runs until its frame is written; a
 * job that cannot complete (CRTC off, vblank refused) fails with -EIO
 * when its turn comes, which the worker is kicked to take at once.  The
 * worker signals every job, so the jobs complete in the order DRM core
 * queued them whatever happens meanwhile.
 *
 * Context: the commit's tail, after the CRTC's flush.
 */
void vdisplay_composer_arm_writeback(struct vdisplay_output *out,
				     struct vdisplay_wb_target *target)
{
	bool cancelled;

	mutex_lock(&out->scene_lock);
	target->armed = out->scene.active && !drm_crtc_vblank_get(&out->crtc);
	target->error = target->armed ? 0 : -EIO;
	cancelled = !target->armed;
	list_add_tail(&target->node, &out->wb_pending);
	mutex_unlock(&out->scene_lock);

	/* Once queued, the worker may complete and free @target at once. */
	if (cancelled)
		queue_work(out->vd->composer_wq, &out->compose_work);
}

/**
 * vdisplay_composer_cancel_writebacks() - fail every waiting writeback
 * @out: the output whose CRTC is switched off
 *
 * Waits for a running composition, then has the worker signal each
 * waiting job with -EIO, in order.
 *
 * Context: the CRTC's atomic_disable, after vblank is off.
 */
void vdisplay_composer_cancel_writebacks(struct vdisplay_output *out)
{
	struct vdisplay_wb_target *t;

	flush_work(&out->compose_work);

	mutex_lock(&out->scene_lock);
	list_for_each_entry(t, &out->wb_pending, node)
		t->error = -EIO;
	mutex_unlock(&out->scene_lock);

	queue_work(out->vd->composer_wq, &out->compose_work);
	flush_work(&out->compose_work);
}

/**
 * vdisplay_composer_fini() - free what the composer allocated
 * @out: an output, initialised or not, or NULL for a CRTC the device
 *	does not have
 *
 * Context: module unload, after the composer's workqueue is destroyed.
 */
void vdisplay_composer_fini(struct vdisplay_output *out)
{
	if (!out)
		return;
	kvfree(out->image);
	out->image = NULL;
	out->image_size = 0;
}

/* CRC: the debugfs interface IGT reads, one value per frame */

static const char *const vdisplay_crc_source_names[] = { "auto" };

const char *const *vdisplay_crc_sources(struct drm_crtc *crtc, size_t *count)
{
	*count = ARRAY_SIZE(vdisplay_crc_source_names);
	return vdisplay_crc_source_names;
}

static int vdisplay_crc_parse_source(const char *source, bool *enabled)
{
	if (!source) {
		*enabled = false;
		return 0;
	}
	if (!strcmp(source, "auto")) {
		*enabled = true;
		return 0;
	}
	return -EINVAL;
}

int vdisplay_crc_verify_source(struct drm_crtc *crtc, const char *source,
			       size_t *values_cnt)
{
	bool enabled;

	if (vdisplay_crc_parse_source(source, &enabled))
		return -EINVAL;
	*values_cnt = 1;
	return 0;
}

/*
 * The CRC file opens once the CRTC's state is active.  After a nonblocking
 * modeset that is true before the commit's atomic_enable has turned the
 * vblanks on, and drm_crtc_vblank_get() would fail, and before the
 * composer has the new mode's size: wait for the last commit on this
 * CRTC to reach the hardware first, as amdgpu does there.
 */
static int vdisplay_crc_wait_commit(struct drm_crtc *crtc)
{
	struct drm_crtc_commit *commit = NULL;
	long timeout;
	int ret;

	ret = drm_modeset_lock_single_interruptible(&crtc->mutex);
	if (ret)
		return ret;
	if (crtc->state->commit)
		commit = drm_crtc_commit_get(crtc->state->commit);
	drm_modeset_unlock(&crtc->mutex);

	if (!commit)
		return 0;
	/* a reader stuck behind a stuck commit can still be interrupted */
	timeout = wait_for_completion_interruptible_timeout(&commit->hw_done,
							    10 * HZ);
	drm_crtc_commit_put(commit);
	if (timeout < 0)
		return timeout;
	return timeout ? 0 : -ETIMEDOUT;
}

int vdisplay_crc_set_source(struct drm_crtc *crtc, const char *source)
{
	struct vdisplay_output *out = crtc_to_output(crtc);
	bool enabled, was_enabled, reserved;
	size_t bytes;
	int ret;

	ret = vdisplay_crc_parse_source(source, &enabled);
	if (ret)
		return ret;

	spin_lock_irq(&out->frame_lock);
	was_enabled = out->crc_enabled;
	spin_unlock_irq(&out->frame_lock);
	if (enabled == was_enabled)
		return 0;

	/*
	 * CRCs come with vblanks: keep them running while the source is on.
	 * The reader pays for the image of the current mode.
	 */
	if (enabled) {
		/* then the scene is the one the state says is on */
		ret = vdisplay_crc_wait_commit(crtc);
		if (ret)
			return ret;
		mutex_lock(&out->scene_lock);
		bytes = vdisplay_image_bytes(out->scene.width,
					     out->scene.height);
		mutex_unlock(&out->scene_lock);
		mutex_lock(&out->compose_lock);
		reserved = vdisplay_image_reserve(out, bytes);
		mutex_unlock(&out->compose_lock);
		if (!reserved)
			return -ENOMEM;
		/* fails only if a later commit switched the CRTC off */
		if (drm_crtc_vblank_get(crtc))
			return -EIO;
	}

	spin_lock_irq(&out->frame_lock);
	out->crc_enabled = enabled;
	out->crc_seq_valid = false;
	if (enabled) {
		out->crc_gen++;
		out->frame_seq = max(out->frame_seq, drm_crtc_vblank_count(crtc));
		/*
		 * The first CRC is the current frame's, even if the worker
		 * composes it only after the next vblank: the report then
		 * covers both frames.
		 */
		if (out->frame_seq) {
			out->crc_seq = out->frame_seq - 1;
			out->crc_seq_valid = true;
		}
	}
	spin_unlock_irq(&out->frame_lock);

	if (!enabled) {
		drm_crtc_vblank_put(crtc);
		return 0;
	}
	/*
	 * The frame on screen has a CRC too, which a display engine delivers
	 * at the next vblank: compose it now, so that a reader who waits for
	 * N vblanks after opening finds N CRCs, not N - 1 and one on its way.
	 */
	queue_work(out->vd->composer_wq, &out->compose_work);
	return 0;
}

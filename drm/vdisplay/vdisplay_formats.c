// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - pixel formats
 *
 * Every format the planes scan out has one row reader, which turns a run
 * of its pixels into the composer's 16-bit ARGB (see vdisplay_px()), and
 * every writeback format one row writer, which turns the composed image
 * back.  Both are looked up once per plane or writeback job when a commit
 * hands its state to the composer, never per pixel, so a new format is a
 * reader (or a writer) and a line in a table here.
 *
 * The blender is 16 bits per channel.  An 8-bit channel comes in times
 * 0x101, exactly.  Narrower channels (1, 5, 6 and 10 bits) are widened by
 * repeating their bits below until all 16 are filled, so that 0 stays 0
 * and full scale becomes 0xffff.  16-bit channels are taken whole.  Half
 * floats are cut to [0, 1] and scaled to 16 bits with rounding.  Formats
 * without alpha read opaque.  Writers round each channel to their depth,
 * so that a picture of that depth comes back as it went in; RGB565 keeps
 * the top bits instead, which for 8-bit content is the same thing.
 *
 * The YUV formats have no row reader: their pixels depend on the plane's
 * COLOR_ENCODING and COLOR_RANGE, which the composer applies a pixel at a
 * time, and their entries say instead where the samples lie, so that one
 * reader takes them all.
 */

#include <linux/kernel.h>

#include <drm/drm_fourcc.h>

#include "vdisplay_drv.h"

/*
 * A channel of @bits bits (1 to 16) widened to 16 by repeating its bits
 * below it until all 16 are filled: 0 stays 0, full scale becomes 0xffff,
 * and every value lands within one of c * 0xffff / (2^@bits - 1).  Each
 * pass doubles the bits already filled; @bits is a constant at every
 * call, so the loop unrolls to a few shifts.
 */
static inline u32 vdisplay_widen(u32 c, unsigned int bits)
{
	u32 v = c << (16 - bits);
	unsigned int filled;

	for (filled = bits; filled < 16; filled *= 2)
		v |= v >> filled;
	return v;
}

/* ----------------------------------------------------------------------
 * Row readers
 */

static void vdisplay_read_xrgb8888(u64 *dst, const void *src, unsigned int n)
{
	const u32 *s = src;

	while (n--)
		*dst++ = vdisplay_px_from_8888(*s++ | 0xff000000);
}

static void vdisplay_read_argb8888(u64 *dst, const void *src, unsigned int n)
{
	const u32 *s = src;

	while (n--)
		*dst++ = vdisplay_px_from_8888(*s++);
}

/* Red and blue swapped, alpha and green in place */
static inline u32 vdisplay_swap_rb(u32 v)
{
	return (v & 0xff00ff00) | ((v & 0xff) << 16) | ((v >> 16) & 0xff);
}

static void vdisplay_read_xbgr8888(u64 *dst, const void *src, unsigned int n)
{
	const u32 *s = src;

	while (n--)
		*dst++ = vdisplay_px_from_8888(vdisplay_swap_rb(*s++) |
					       0xff000000);
}

static void vdisplay_read_abgr8888(u64 *dst, const void *src, unsigned int n)
{
	const u32 *s = src;

	while (n--)
		*dst++ = vdisplay_px_from_8888(vdisplay_swap_rb(*s++));
}

static void vdisplay_read_xrgb2101010(u64 *dst, const void *src,
				      unsigned int n)
{
	const u32 *s = src;

	while (n--) {
		u32 v = *s++;

		*dst++ = vdisplay_px(0xffff,
				     vdisplay_widen((v >> 20) & 0x3ff, 10),
				     vdisplay_widen((v >> 10) & 0x3ff, 10),
				     vdisplay_widen(v & 0x3ff, 10));
	}
}

static void vdisplay_read_rgb565(u64 *dst, const void *src, unsigned int n)
{
	const u16 *s = src;

	while (n--) {
		u32 v = *s++;

		*dst++ = vdisplay_px(0xffff,
				     vdisplay_widen((v >> 11) & 0x1f, 5),
				     vdisplay_widen((v >> 5) & 0x3f, 6),
				     vdisplay_widen(v & 0x1f, 5));
	}
}

/*
 * The formats below are read a byte at a time: a pixel of 3 bytes, or a
 * framebuffer whose pitch or offset is not a multiple of 8, puts them at
 * any alignment, and the byte order is the format's own (little endian).
 */

/* The little-endian 16-bit word at @p */
static inline u32 vdisplay_le16(const u8 *p)
{
	return p[0] | (u32)p[1] << 8;
}

static void vdisplay_read_rgb888(u64 *dst, const void *src, unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 3)
		*dst++ = vdisplay_px(0xffff, s[2] * 0x101, s[1] * 0x101,
				     s[0] * 0x101);
}

static void vdisplay_read_bgr888(u64 *dst, const void *src, unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 3)
		*dst++ = vdisplay_px(0xffff, s[0] * 0x101, s[1] * 0x101,
				     s[2] * 0x101);
}

static void vdisplay_read_bgr565(u64 *dst, const void *src, unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 2) {
		u32 v = vdisplay_le16(s);

		*dst++ = vdisplay_px(0xffff, vdisplay_widen(v & 0x1f, 5),
				     vdisplay_widen((v >> 5) & 0x3f, 6),
				     vdisplay_widen((v >> 11) & 0x1f, 5));
	}
}

/* An x:R:G:B or A:R:G:B 1:5:5:5 pixel with the alpha @a */
static inline u64 vdisplay_px_555(u32 a, u32 v)
{
	return vdisplay_px(a, vdisplay_widen((v >> 10) & 0x1f, 5),
			   vdisplay_widen((v >> 5) & 0x1f, 5),
			   vdisplay_widen(v & 0x1f, 5));
}

static void vdisplay_read_xrgb1555(u64 *dst, const void *src, unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 2)
		*dst++ = vdisplay_px_555(0xffff, vdisplay_le16(s));
}

/* A one-bit alpha is all or nothing: 0 or 0xffff. */
static void vdisplay_read_argb1555(u64 *dst, const void *src, unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 2) {
		u32 v = vdisplay_le16(s);

		*dst++ = vdisplay_px_555(v & 0x8000 ? 0xffff : 0, v);
	}
}

/* 16 bits per channel, B, G, R and X or A from the lowest address */
static void vdisplay_read_xrgb16161616(u64 *dst, const void *src,
				       unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 8)
		*dst++ = vdisplay_px(0xffff, vdisplay_le16(s + 4),
				     vdisplay_le16(s + 2), vdisplay_le16(s));
}

static void vdisplay_read_argb16161616(u64 *dst, const void *src,
				       unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 8)
		*dst++ = vdisplay_px(vdisplay_le16(s + 6), vdisplay_le16(s + 4),
				     vdisplay_le16(s + 2), vdisplay_le16(s));
}

/*
 * A half float (IEEE 754 binary16: sign, 5 bits of exponent e, 10 of
 * mantissa m) to 16 bits, without the FPU: 0 for negative values and
 * NaN, 0xffff from 1.0 up and for infinity, round(v * 65535) in between,
 * halfway cases up.  Below 1.0, v is (1024 + m) / 2^(25 - e) for a normal
 * number (e from 1 to 14) and m / 2^24 for a subnormal one (e = 0),
 * exactly; so v * 65535 is 65535 times a significand below 2^11 (below
 * 2^27), shifted right by 11 to 24 bits, which rounds correctly in
 * 32-bit integers.
 */
static u32 vdisplay_half_to_16(u32 h)
{
	u32 e = (h >> 10) & 0x1f, m = h & 0x3ff;
	unsigned int shift = 24;

	if (h & 0x8000)
		return 0;
	if (e == 0x1f)
		return m ? 0 : 0xffff;
	if (e >= 15)
		return 0xffff;
	if (e) {
		m |= 0x400;
		shift = 25 - e;
	}
	return (0xffff * m + (1u << (shift - 1))) >> shift;
}

static void vdisplay_read_xrgb16161616f(u64 *dst, const void *src,
					unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 8)
		*dst++ = vdisplay_px(0xffff,
				     vdisplay_half_to_16(vdisplay_le16(s + 4)),
				     vdisplay_half_to_16(vdisplay_le16(s + 2)),
				     vdisplay_half_to_16(vdisplay_le16(s)));
}

static void vdisplay_read_argb16161616f(u64 *dst, const void *src,
					unsigned int n)
{
	const u8 *s = src;

	for (; n; n--, s += 8)
		*dst++ = vdisplay_px(vdisplay_half_to_16(vdisplay_le16(s + 6)),
				     vdisplay_half_to_16(vdisplay_le16(s + 4)),
				     vdisplay_half_to_16(vdisplay_le16(s + 2)),
				     vdisplay_half_to_16(vdisplay_le16(s)));
}

/*
 * YUV with 8-bit samples, chroma subsampled @h x @v: luma, then pairs of
 * Cb and Cr in one plane, Cb the byte @cb of each pair and Cr the byte @cr
 */
#define VDISPLAY_YUV_2PLANE(f, h, v, cb, cr)				\
	{ .fourcc = (f), .cpp = 1, .yuv = true, .hsub = (h), .vsub = (v),	\
	  .chroma_cpp = 2, .cb_plane = 1, .cb_byte = (cb),		\
	  .cr_plane = 1, .cr_byte = (cr) }

/*
 * YUV with 8-bit samples, chroma subsampled @h x @v: luma, then Cb and Cr
 * in a plane each, Cb in plane @cb and Cr in plane @cr (1 and 2, or 2 and 1)
 */
#define VDISPLAY_YUV_3PLANE(f, h, v, cb, cr)				\
	{ .fourcc = (f), .cpp = 1, .yuv = true, .hsub = (h), .vsub = (v),	\
	  .chroma_cpp = 1, .cb_plane = (cb), .cr_plane = (cr) }

static const struct vdisplay_format vdisplay_plane_formats[] = {
	{ DRM_FORMAT_XRGB8888, 4, false, vdisplay_read_xrgb8888 },
	{ DRM_FORMAT_ARGB8888, 4, true, vdisplay_read_argb8888 },
	{ DRM_FORMAT_XBGR8888, 4, false, vdisplay_read_xbgr8888 },
	{ DRM_FORMAT_ABGR8888, 4, true, vdisplay_read_abgr8888 },
	{ DRM_FORMAT_RGB565, 2, false, vdisplay_read_rgb565 },
	{ DRM_FORMAT_XRGB2101010, 4, false, vdisplay_read_xrgb2101010,
	  .ten_bit = true },
	{ DRM_FORMAT_RGB888, 3, false, vdisplay_read_rgb888 },
	{ DRM_FORMAT_BGR888, 3, false, vdisplay_read_bgr888 },
	{ DRM_FORMAT_BGR565, 2, false, vdisplay_read_bgr565 },
	{ DRM_FORMAT_XRGB1555, 2, false, vdisplay_read_xrgb1555 },
	{ DRM_FORMAT_ARGB1555, 2, true, vdisplay_read_argb1555 },
	{ DRM_FORMAT_XRGB16161616, 8, false, vdisplay_read_xrgb16161616 },
	{ DRM_FORMAT_ARGB16161616, 8, true, vdisplay_read_argb16161616 },
	{ DRM_FORMAT_XRGB16161616F, 8, false, vdisplay_read_xrgb16161616f },
	{ DRM_FORMAT_ARGB16161616F, 8, true, vdisplay_read_argb16161616f },
	/* YUV: read pixel by pixel by the composer, by plane's colour state */
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV12, 2, 2, 0, 1),
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV21, 2, 2, 1, 0),
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV16, 2, 1, 0, 1),
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV61, 2, 1, 1, 0),
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV24, 1, 1, 0, 1),
	VDISPLAY_YUV_2PLANE(DRM_FORMAT_NV42, 1, 1, 1, 0),
	VDISPLAY_YUV_3PLANE(DRM_FORMAT_YUV420, 2, 2, 1, 2),
	VDISPLAY_YUV_3PLANE(DRM_FORMAT_YVU420, 2, 2, 2, 1),
	VDISPLAY_YUV_3PLANE(DRM_FORMAT_YUV422, 2, 1, 1, 2),
	VDISPLAY_YUV_3PLANE(DRM_FORMAT_YUV444, 1, 1, 1, 2),
	/*
	 * 16-bit little-endian luma, then Cb,Cr pairs of the same, the 10
	 * bits in the top of each: the second byte of every sample is read.
	 */
	{ .fourcc = DRM_FORMAT_P010, .cpp = 2, .yuv = true, .hsub = 2,
	  .vsub = 2, .chroma_cpp = 4, .cb_plane = 1, .cb_byte = 1,
	  .cr_plane = 1, .cr_byte = 3 },
};

/**
 * vdisplay_format_find() - the reader of a plane format
 * @fourcc: DRM fourcc
 *
 * Return: the format's entry, or NULL if no plane scans it out.
 */
const struct vdisplay_format *vdisplay_format_find(u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vdisplay_plane_formats); i++)
		if (vdisplay_plane_formats[i].fourcc == fourcc)
			return &vdisplay_plane_formats[i];
	return NULL;
}

/**
 * vdisplay_format_list() - the fourccs every plane offers
 * @list: an array of at least VDISPLAY_MAX_FORMATS entries to fill
 *
 * Return: the number of entries filled.
 */
unsigned int vdisplay_format_list(u32 *list)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(vdisplay_plane_formats) > VDISPLAY_MAX_FORMATS);
	for (i = 0; i < ARRAY_SIZE(vdisplay_plane_formats); i++)
		list[i] = vdisplay_plane_formats[i].fourcc;
	return i;
}

/* ----------------------------------------------------------------------
 * Row writers, for writeback
 */

static void vdisplay_write_8888(void *dst, const u64 *src, unsigned int n)
{
	u32 *d = dst;

	/* The unused byte 0xff: opaque for ARGB8888. */
	while (n--)
		*d++ = vdisplay_px_to_x888(*src++);
}

/*
 * The two padding bits are 0, as producers of XRGB2101010 (IGT among
 * them) leave them, so that a picture written back unchanged compares
 * equal with its source byte for byte.
 */
static void vdisplay_write_2101010(void *dst, const u64 *src, unsigned int n)
{
	u32 *d = dst;

	while (n--) {
		u64 px = *src++;

		*d++ = vdisplay_16_to_10(vdisplay_px_chan(px, 32)) << 20 |
		       vdisplay_16_to_10(vdisplay_px_chan(px, 16)) << 10 |
		       vdisplay_16_to_10(vdisplay_px_chan(px, 0));
	}
}

/* 16 bits per channel, little endian B, G, R, then an opaque A or X */
static void vdisplay_write_16161616(void *dst, const u64 *src,
				    unsigned int n)
{
	__le16 *d = dst;

	while (n--) {
		u64 px = *src++;

		*d++ = cpu_to_le16(vdisplay_px_chan(px, 0));
		*d++ = cpu_to_le16(vdisplay_px_chan(px, 16));
		*d++ = cpu_to_le16(vdisplay_px_chan(px, 32));
		*d++ = cpu_to_le16(0xffff);
	}
}

/* The top 5, 6 and 5 bits of red, green and blue */
static void vdisplay_write_565(void *dst, const u64 *src, unsigned int n)
{
	__le16 *d = dst;

	while (n--) {
		u64 px = *src++;

		*d++ = cpu_to_le16((vdisplay_px_chan(px, 32) >> 11) << 11 |
				   (vdisplay_px_chan(px, 16) >> 10) << 5 |
				   (vdisplay_px_chan(px, 0) >> 11));
	}
}

static const struct vdisplay_wb_format vdisplay_wb_formats[] = {
	{ DRM_FORMAT_XRGB8888, vdisplay_write_8888 },
	{ DRM_FORMAT_ARGB8888, vdisplay_write_8888 },
	{ DRM_FORMAT_XRGB2101010, vdisplay_write_2101010 },
	{ DRM_FORMAT_XRGB16161616, vdisplay_write_16161616 },
	{ DRM_FORMAT_ARGB16161616, vdisplay_write_16161616 },
	{ DRM_FORMAT_RGB565, vdisplay_write_565 },
};

/**
 * vdisplay_wb_format_find() - the writer of a writeback format
 * @fourcc: DRM fourcc
 *
 * Return: the format's entry, or NULL if writeback does not write it.
 */
const struct vdisplay_wb_format *vdisplay_wb_format_find(u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vdisplay_wb_formats); i++)
		if (vdisplay_wb_formats[i].fourcc == fourcc)
			return &vdisplay_wb_formats[i];
	return NULL;
}

/**
 * vdisplay_wb_format_list() - the fourccs the writeback connector writes
 * @list: an array of at least VDISPLAY_MAX_FORMATS entries to fill
 *
 * Return: the number of entries filled.
 */
unsigned int vdisplay_wb_format_list(u32 *list)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(vdisplay_wb_formats) > VDISPLAY_MAX_FORMATS);
	for (i = 0; i < ARRAY_SIZE(vdisplay_wb_formats); i++)
		list[i] = vdisplay_wb_formats[i].fourcc;
	return i;
}

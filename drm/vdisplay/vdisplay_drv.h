/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdisplay - a display-only KMS driver without hardware
 */
#ifndef _VDISPLAY_DRV_H_
#define _VDISPLAY_DRV_H_

#include <linux/hrtimer.h>
#include <linux/iosys-map.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_client.h>
#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_plane.h>
#include <drm/drm_rect.h>
#include <drm/drm_writeback.h>

#include <primepair/compat.h>

#define VDISPLAY_DRIVER_NAME	"vdisplay"

/*
 * Smallest framebuffer, and the least max_width and max_height: as small
 * as vkms's, so that cursors such as IGT's 64x21 ones can be added
 */
#define VDISPLAY_MIN_SIZE	10
/*
 * Largest framebuffer and largest mode a CRTC drives.  The connectors list
 * modes up to max_width x max_height only, as a monitor's EDID would, but
 * a mode userspace makes up may be as large as this, as on a display
 * engine driving any timings within its limits.
 */
#define VDISPLAY_MAX_SIZE	8192
/* Largest cursor userspace is told of (DRM_CAP_CURSOR_WIDTH/HEIGHT) */
#define VDISPLAY_MAX_CURSOR	512
/* The preferred mode */
#define VDISPLAY_PREF_WIDTH	1024
#define VDISPLAY_PREF_HEIGHT	768

/* Limits of the module parameters */
#define VDISPLAY_MAX_DEVICES	4
#define VDISPLAY_MAX_OUTPUTS	4
#define VDISPLAY_MAX_OVERLAYS	4
/* How long a disabling CRTC waits for the end of its frame, at most */
#define VDISPLAY_FRAME_END_TIMEOUT_MS	200

/* Limits of a device's topology, from the module parameters or configfs */
#define VDISPLAY_MAX_CRTCS	8
#define VDISPLAY_MAX_PLANES	32
#define VDISPLAY_MAX_ENCODERS	8
#define VDISPLAY_MAX_CONNECTORS	8
/* Planes one CRTC may show: a primary, six overlays and a cursor */
#define VDISPLAY_MAX_LAYERS	8
/* Largest EDID a connector takes: eight 128-byte blocks */
#define VDISPLAY_MAX_EDID	1024

/* Bounds on mode timings: the vblank timer runs at the mode's refresh. */
#define VDISPLAY_MAX_TOTAL	16384
#define VDISPLAY_MIN_REFRESH	10
#define VDISPLAY_MAX_REFRESH	240
/*
 * Variable refresh: the lowest refresh rate of a connector whose EDID has
 * no monitor range (a frame lasts at most 1/30 s); the highest is the
 * mode's.  An EDID's minimum is raised to VDISPLAY_MIN_REFRESH.
 */
#define VDISPLAY_VRR_MIN_HZ	30

/*
 * The "max bpc" range of a connector.  The signal it sends has the
 * smaller of that and its EDID's bits per colour (8 without one).
 */
#define VDISPLAY_MIN_BPC	8
#define VDISPLAY_MAX_BPC	16

/* Entries of the CRTC's gamma LUT: one per value of an 8-bit channel */
#define VDISPLAY_GAMMA_SIZE	256

/*
 * Plane scale factors, source size over destination size in 16.16 as
 * drm_atomic_helper_check_plane_state() takes them (DRM_PLANE_NO_SCALING
 * is 1.0), in each direction apart: from 1/8 (0x2000, a source shown
 * eight times as large) to 8 (0x80000, shown at an eighth of its size).
 */
#define VDISPLAY_MIN_SCALE	(DRM_PLANE_NO_SCALING / 8)
#define VDISPLAY_MAX_SCALE	(DRM_PLANE_NO_SCALING * 8)

/**
 * struct vdisplay_config - what a device is made of, checked before it is
 * created
 * @ncrtcs: number of CRTCs
 * @nplanes: number of planes
 * @nencoders: number of encoders, the writeback ones not counted
 * @nconnectors: number of connectors, the writeback ones not counted
 * @crtcs: per CRTC: @crtcs.writeback gives it a writeback connector
 * @planes: per plane: its DRM_PLANE_TYPE_* and the CRTCs it can feed
 * @encoders: per encoder: the CRTCs it can be driven by
 * @connectors: per connector: the encoders it can be driven by, whether
 *	it starts connected, and its EDID (@connectors.edid_len bytes, none
 *	when 0: the standard modes up to @max_width x @max_height)
 * @max_width: widest mode on the connectors' mode lists without an EDID
 * @max_height: tallest mode on the connectors' mode lists without an EDID
 * @contiguous: scan out only buffers in one contiguous DMA segment
 *
 * Masks count objects of each kind in the order of the arrays, which is
 * the order of their DRM objects.  The struct is copied in full as the
 * platform device's data.
 */
struct vdisplay_config {
	unsigned int ncrtcs;
	unsigned int nplanes;
	unsigned int nencoders;
	unsigned int nconnectors;
	struct {
		bool writeback;
	} crtcs[VDISPLAY_MAX_CRTCS];
	struct {
		enum drm_plane_type type;
		u32 possible_crtcs;
	} planes[VDISPLAY_MAX_PLANES];
	struct {
		u32 possible_crtcs;
	} encoders[VDISPLAY_MAX_ENCODERS];
	struct {
		u32 possible_encoders;
		bool connected;
		u32 edid_len;
		u8 edid[VDISPLAY_MAX_EDID];
	} connectors[VDISPLAY_MAX_CONNECTORS];
	unsigned int max_width;
	unsigned int max_height;
	bool contiguous;
};

/*
 * The YCbCr encoding and range planes read YUV framebuffers with by
 * default, and whenever COLOR_ENCODING and COLOR_RANGE are ignored
 */
#define VDISPLAY_DEFAULT_ENCODING	DRM_COLOR_YCBCR_BT601
#define VDISPLAY_DEFAULT_RANGE		DRM_COLOR_YCBCR_LIMITED_RANGE

/* The operations of a plane's colour pipeline (see vdisplay_colorop.c) */
#define VDISPLAY_PIPELINE_MAX_OPS	10
/* Entries of the pipeline's 1D LUTs */
#define VDISPLAY_LUT1D_SIZE		4096
/* Points on each axis of the pipeline's 3D LUT */
#define VDISPLAY_LUT3D_SIZE		17

/* What one operation of a plane's colour pipeline does */
enum vdisplay_step_kind {
	VDISPLAY_STEP_CURVE,
	VDISPLAY_STEP_MULTIPLY,
	VDISPLAY_STEP_MATRIX,
	VDISPLAY_STEP_LUT,
	VDISPLAY_STEP_LUT3D,
};

/**
 * struct vdisplay_step - an operation of a plane's colour pipeline that is
 * not bypassed
 * @kind: curve, multiplier, matrix, 1D or 3D LUT
 * @curve: a curve's DRM_COLOROP_1D_CURVE_* type
 * @gain: a multiplier's factor, in two's complement Q24 (clamped to +-128)
 * @lut: a 1D LUT's VDISPLAY_LUT1D_SIZE entries, or a 3D LUT's
 *	VDISPLAY_LUT3D_SIZE cubed (red the fastest axis, blue the slowest),
 *	in a blob the plane state holds a reference on
 * @matrix: a matrix's three rows of red, green and blue coefficients and
 *	an offset, in two's complement Q24 (clamped to +-128)
 */
struct vdisplay_step {
	enum vdisplay_step_kind kind;
	unsigned int curve;
	s64 gain;
	const struct drm_color_lut32 *lut;
	s64 matrix[12];
};

/**
 * struct vdisplay_pipeline - what the composer runs on a plane's pixels
 * @nsteps: operations in @steps, in order; none: the pixels as they are
 * @steps: the operations
 * @nlead: how many of the first @steps @lead holds the result of
 * @lead: for each channel and each 8-bit value (a 16-bit one of v *
 *	0x101), what the first @nlead steps make of it, in Q24; the steps
 *	that work on each channel alone (curves, multipliers, 1D LUTs) and
 *	come before any matrix or 3D LUT.  NULL when @nlead is 0.  Owned by
 *	the plane state.
 */
struct vdisplay_pipeline {
	unsigned int nsteps;
	struct vdisplay_step steps[VDISPLAY_PIPELINE_MAX_OPS];
	unsigned int nlead;
	s32 (*lead)[256];
};

/**
 * struct vdisplay_plane_state - plane state with its framebuffer's mappings
 * @base: the core state, embedded
 * @sgt: DMA mapping of each GEM object for scanout, held from prepare_fb
 *	to cleanup_fb as a display engine holds it while it scans out
 * @map: kernel mapping of each GEM object of the framebuffer, held from
 *	prepare_fb to cleanup_fb
 * @data: @map plus the framebuffer's offsets
 * @pipeline: the plane's colour pipeline, taken from its colorops by the
 *	atomic check
 * @pipeline_blobs: the blobs @pipeline reads, a reference held on each
 * @legacy_color_ignored: the state was checked in a commit of a client
 *	with DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE, so YUV is read with
 *	VDISPLAY_DEFAULT_ENCODING and VDISPLAY_DEFAULT_RANGE, whatever
 *	COLOR_ENCODING and COLOR_RANGE say
 */
struct vdisplay_plane_state {
	struct drm_plane_state base;
	struct sg_table *sgt[DRM_FORMAT_MAX_PLANES];
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	struct vdisplay_pipeline pipeline;
	struct drm_property_blob *pipeline_blobs[VDISPLAY_PIPELINE_MAX_OPS];
	bool legacy_color_ignored;
};

/* Most formats a plane or the writeback connector offers */
#define VDISPLAY_MAX_FORMATS	32

/*
 * The composer's pixels: 16 bits each of alpha, red, green and blue, from
 * the top, 0xffff being full scale.
 */
#define VDISPLAY_PX_OPAQUE	(0xffffULL << 48)

/* A pixel of four 16-bit channels */
static inline u64 vdisplay_px(u32 a, u32 r, u32 g, u32 b)
{
	return (u64)a << 48 | (u64)r << 32 | (u64)g << 16 | b;
}

/* Channel @shift (48 alpha, 32 red, 16 green, 0 blue) of @px */
static inline u32 vdisplay_px_chan(u64 px, unsigned int shift)
{
	return (px >> shift) & 0xffff;
}

/* An ARGB8888 value as a pixel: each channel times 0x101, exactly */
static inline u64 vdisplay_px_from_8888(u32 v)
{
	u64 px = (u64)(v >> 24) << 48 | (u64)((v >> 16) & 0xff) << 32 |
		 (u64)((v >> 8) & 0xff) << 16 | (v & 0xff);

	return px * 0x101;
}

/* A 16-bit channel to 8 bits, rounded: exact for multiples of 0x101 */
static inline u32 vdisplay_16_to_8(u32 v)
{
	return (v * 255 + 0x7fff) / 0xffff;
}

/* A 16-bit channel to 10 bits, rounded: exact for 10-bit values widened */
static inline u32 vdisplay_16_to_10(u32 v)
{
	return (v * 1023 + 0x7fff) / 0xffff;
}

/* A pixel as XRGB8888, the unused byte 0xff, each channel rounded */
static inline u32 vdisplay_px_to_x888(u64 px)
{
	return 0xff000000 | vdisplay_16_to_8(vdisplay_px_chan(px, 32)) << 16 |
	       vdisplay_16_to_8(vdisplay_px_chan(px, 16)) << 8 |
	       vdisplay_16_to_8(vdisplay_px_chan(px, 0));
}

/**
 * struct vdisplay_format - a format planes scan out
 * @fourcc: DRM fourcc
 * @cpp: bytes per pixel; of a YUV format, bytes per luma sample
 * @has_alpha: pixels carry an alpha channel
 * @read_row: convert @n pixels at @src to the composer's 16-bit ARGB at
 *	@dst (opaque for formats without alpha); NULL for YUV
 * @yuv: a YUV format: luma in the first plane, little endian (of a
 *	16-bit sample, the top 10 bits), then Cb and Cr in one plane,
 *	interleaved, or in one plane each
 * @hsub: horizontal chroma subsampling of a YUV format
 * @vsub: vertical chroma subsampling of a YUV format
 * @chroma_cpp: bytes from one chroma sample to the next along a line of
 *	its plane: 2 for interleaved 8-bit Cb and Cr, 1 for a plane of its
 *	own, 4 for interleaved 16-bit ones
 * @cb_plane: framebuffer plane holding Cb
 * @cb_byte: byte of the top 8 bits of Cb within its chroma sample
 * @cr_plane: framebuffer plane holding Cr
 * @cr_byte: byte of the top 8 bits of Cr within its chroma sample
 * @ten_bit: red, green and blue of 10 bits each, which the planes' colour
 *	pipeline takes as the fractions of 1023 they are
 */
struct vdisplay_format {
	u32 fourcc;
	u8 cpp;
	bool has_alpha;
	void (*read_row)(u64 *dst, const void *src, unsigned int n);
	bool yuv;
	u8 hsub;
	u8 vsub;
	u8 chroma_cpp;
	u8 cb_plane;
	u8 cb_byte;
	u8 cr_plane;
	u8 cr_byte;
	bool ten_bit;
};

/**
 * struct vdisplay_wb_format - a format the writeback connector writes
 * @fourcc: DRM fourcc
 * @write_row: convert @n of the composer's opaque 16-bit pixels at @src
 *	to the format at @dst
 */
struct vdisplay_wb_format {
	u32 fourcc;
	void (*write_row)(void *dst, const u64 *src, unsigned int n);
};

/**
 * struct vdisplay_axis - nearest-neighbour sampling along one axis of a
 * scaled layer
 * @first: pixel of the plane's view of the framebuffer that the first
 *	visible destination pixel shows
 * @frac: the rest of that pixel's sample position, in 1/@den of a pixel
 * @step: whole pixels of the view from one destination pixel to the next
 * @rem: the rest of that step, in 1/@den of a pixel
 * @den: denominator of @frac and @rem, above both
 *
 * Destination pixel k, counted from the first visible one, shows view
 * pixel @first + k * @step + (@frac + k * @rem) / @den, rounded down.
 */
struct vdisplay_axis {
	u32 first;
	u32 step;
	u64 frac;
	u64 rem;
	u64 den;
};

/**
 * struct vdisplay_layer - what the composer needs of one visible plane
 * @vaddr: first byte of the framebuffer's pixel data
 * @fmt: the framebuffer's format
 * @pitch: bytes per framebuffer line
 * @src: source rectangle in framebuffer pixels, clipped; the same size as
 *	@dst unless @scaled
 * @dst: destination rectangle on the CRTC, clipped to it
 * @alpha: plane alpha, 0 (transparent) to 0xffff (opaque)
 * @blend: DRM_MODE_BLEND_* of the plane
 * @cb: the byte holding the top 8 bits of a YUV framebuffer's first Cb
 *	sample
 * @cr: the byte holding the top 8 bits of its first Cr sample
 * @cb_pitch: bytes per line of the plane holding Cb
 * @cr_pitch: bytes per line of the plane holding Cr
 * @yuv: Q16 YCbCr to RGB for the plane's COLOR_ENCODING and COLOR_RANGE:
 *	R = (Y - y0) * y + Cr * rv, G = (Y - y0) * y + Cb * gu + Cr * gv,
 *	B = (Y - y0) * y + Cb * bu, with Cb and Cr centred on 0
 * @rotated: the plane is rotated or reflected; then, unless @scaled, the
 *	framebuffer pixel shown at (@dst.x1 + i, @dst.y1 + j) is
 *	(@ox + i * @ix + j * @jx, @oy + i * @iy + j * @jy)
 * @scaled: the source is not the size of the destination, or starts
 *	within a pixel; then the pixel shown at (@dst.x1 + i, @dst.y1 + j)
 *	is (@ox + a * @ix + b * @jx, @oy + a * @iy + b * @jy), where a and
 *	b are the pixels of the plane's rotated view of the framebuffer that
 *	@h samples for i and @v for j (the identity map when not @rotated)
 * @ox: see @rotated and @scaled
 * @oy: see @rotated and @scaled
 * @ix: see @rotated and @scaled
 * @iy: see @rotated and @scaled
 * @jx: see @rotated and @scaled
 * @jy: see @rotated and @scaled
 * @h: horizontal sampling of a @scaled layer
 * @v: vertical sampling of a @scaled layer
 * @pipeline: the plane's colour pipeline, run on its pixels before they
 *	are blended
 */
struct vdisplay_layer {
	const void *vaddr;
	const struct vdisplay_format *fmt;
	u32 pitch;
	struct drm_rect src;
	struct drm_rect dst;
	u16 alpha;
	u16 blend;
	const u8 *cb;
	const u8 *cr;
	u32 cb_pitch;
	u32 cr_pitch;
	struct {
		s32 y0, y, rv, gu, gv, bu;
	} yuv;
	bool rotated;
	bool scaled;
	int ox, oy, ix, iy, jx, jy;
	struct vdisplay_axis h;
	struct vdisplay_axis v;
	struct vdisplay_pipeline pipeline;
};

/**
 * struct vdisplay_deferred_fb - the scanout mappings of a framebuffer an
 * asynchronous cursor update took off screen, while a frame being
 * composed may still read them
 * @node: entry in &vdisplay_output.release_list
 * @fb: the framebuffer, a reference held
 * @sgt: DMA mapping of each of its GEM objects, or NULL
 * @map: kernel mapping of each of its GEM objects
 */
struct vdisplay_deferred_fb {
	struct list_head node;
	struct drm_framebuffer *fb;
	struct sg_table *sgt[DRM_FORMAT_MAX_PLANES];
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
};

/**
 * struct vdisplay_wb_target - a writeback job's framebuffer, waiting for
 * a frame
 * @node: entry in &vdisplay_output.wb_pending
 * @vaddr: its mapping (kept by the writeback job until cleanup)
 * @fmt: its format, one of the writeback connector's
 * @pitch: bytes per line
 * @width: framebuffer width in pixels
 * @height: framebuffer height in pixels
 * @armed: holds a vblank reference, dropped when the job completes
 * @error: once set, the job completes with it, without a frame, when its
 *	turn comes: -EIO when it cannot be served (CRTC off, modeset), or
 *	-ENOMEM when its frame could not be composed
 *
 * It lives in the job's private data, so it is valid until the job is
 * signalled; it leaves @node before.
 */
struct vdisplay_wb_target {
	struct list_head node;
	void *vaddr;
	const struct vdisplay_wb_format *fmt;
	u32 pitch;
	u32 width;
	u32 height;
	bool armed;
	int error;
};

/**
 * struct vdisplay_frame - the scene the composer draws at each vblank
 * @active: the CRTC is on
 * @width: CRTC width in pixels
 * @height: CRTC height in pixels
 * @nlayers: number of entries in @layers
 * @layers: visible planes, bottom first
 * @degamma_on: the CRTC has a DEGAMMA_LUT, @degamma applies first
 * @degamma: the 16-bit output of red, green and blue for each 8-bit value,
 *	interpolated between
 * @ctm_on: the CRTC has a CTM, @ctm applies after the degamma LUT
 * @ctm: the matrix, row by row, in two's complement Q32.32 (clamped to
 *	+-256, far beyond any use)
 * @gamma_on: the CRTC has a GAMMA_LUT, @gamma applies to the blended image
 * @gamma: the LUT's entries cut to 8 bits and widened again (times
 *	0x101): the output of red, green and blue for each 8-bit input
 *	value, interpolated between
 */
struct vdisplay_frame {
	bool active;
	u32 width;
	u32 height;
	unsigned int nlayers;
	struct vdisplay_layer layers[VDISPLAY_MAX_LAYERS];
	bool degamma_on;
	u16 degamma[3][VDISPLAY_GAMMA_SIZE];
	bool ctm_on;
	s64 ctm[9];
	bool gamma_on;
	u16 gamma[3][VDISPLAY_GAMMA_SIZE];
};

/**
 * struct vdisplay_output - one CRTC with its encoder, connector and planes
 * @vd: the device
 * @index: CRTC index
 * @crtc: the CRTC; vblank comes from @vblank_timer
 * @wb: writeback connector, when the configuration asks for one
 * @primary: the CRTC's primary plane
 * @cursor: its cursor plane or NULL
 * @vblank_timer: fires once per frame while vblank is enabled
 * @period: frame time of the current mode, the shortest frame
 * @vblank_on: vblank is enabled; the timer stops at its next expiry once
 *	this is false (written under DRM core's vblank_time_lock and
 *	@vblank_lock)
 * @vblank_lock: protects @vrr_max_period, @vrr_last and @vrr_flip, and
 *	serializes every change of @vblank_timer's expiry: the timer's
 *	callback choosing the next frame, the flush re-arming it, enable and
 *	disable; taken with interrupts off, inside DRM core's vblank_time_lock
 * @vrr_max_period: 0 while the timer runs on a fixed grid of @period;
 *	while variable refresh is on, the longest frame (1 / the connector's
 *	lowest refresh rate)
 * @vrr_last: while variable refresh is on, the time of the last vblank
 * @vrr_flip: a flip was committed since @vrr_last: the next vblank comes
 *	one @period after @vrr_last, or at once when that is past
 * @compose_work: composes one frame, queued by the timer
 * @release_work: releases the framebuffers on @release_list once no frame
 *	being composed reads them
 * @release_list: struct vdisplay_deferred_fb entries; under @scene_lock
 * @frame_lock: protects @frame_seq, @crc_enabled, @crc_gen, @crc_seq and
 *	@crc_seq_valid, written by the timer, by debugfs and by the worker
 * @frame_seq: vblank sequence of the last vblank
 * @crc_enabled: CRC source "auto" is selected
 * @crc_gen: counts the times the CRC source was switched on; a frame
 *	composed before the latest switch is not reported
 * @crc_seq: vblank sequence of the last CRC reported
 * @crc_seq_valid: @crc_seq is set, since the CRC source was last switched
 * @scene_lock: protects @scene, @scene_new, @scene_full, @wb_pending and
 *	the damage fields below; taken by the commit (plane update, flush,
 *	writeback, asynchronous cursor update) and, briefly, by the worker,
 *	which takes it inside @compose_lock; never held while composing
 * @scene: the scene of the last committed state, built at each flush
 * @scene_new: @scene changed since the worker last took it into @frame
 * @scene_full: a change the damage does not describe was committed since
 *	the worker last took the damage: compose the next frame in full
 * @wb_pending: writeback targets in the order their jobs were queued on
 *	@wb (DRM core signals the oldest job first); only the worker
 *	completes them, so the two queues stay in step
 * @committed: a commit was flushed since the worker last took the damage
 * @damage_y1: first CRTC row that changed since the worker last took the
 *	damage
 * @damage_y2: the row after the last one; no row changed if not above
 *	@damage_y1
 * @commit_full: the commit being applied changes more than the contents
 *	of its framebuffers, or does not say where it changes them
 * @commit_clips: a plane of the commit being applied has FB_DAMAGE_CLIPS
 * @commit_y1: first CRTC row the commit being applied damages
 * @commit_y2: the row after its last one
 * @compose_lock: protects @frame, @image, @image_size, @image_valid and
 *	the CRC fields below; held by the worker for a whole composition.
 *	A commit's flush does not take it, so a slow frame never holds a
 *	commit back; cleanup_fb takes it before it releases a mapping an
 *	older scene may point at (vdisplay_composer_release())
 * @frame: the scene the worker composes, taken from @scene
 * @image: the composed frame, 16 bits per channel (see vdisplay_px()),
 *	@frame.width x @frame.height, followed by two lines of scratch (the
 *	row readers' and the CRC's), a line of XRGB8888 for the CRC, and
 *	the CRC of each row
 * @image_size: bytes allocated at @image
 * @image_valid: @image is the composition of @frame, except in the rows
 *	the damage names, as far as the damage clients declared tells
 * @row_crc_valid: the row CRCs at the end of @image's allocation hold
 *	crc32_le() from 0 of each row, as XRGB8888, of a @row_crc_width x
 *	@row_crc_height image
 * @row_crc_width: width of the image the row CRCs were taken of
 * @row_crc_height: its height
 * @crc_shift_width: row width, in pixels, @crc_shift was built for
 * @crc_shift: what one row of zero bytes does to the CRC register, one
 *	table per byte of the register
 */
struct vdisplay_output {
	struct vdisplay_device *vd;
	unsigned int index;
	struct drm_crtc crtc;
	struct drm_writeback_connector wb;
	struct drm_plane *primary;
	struct drm_plane *cursor;
	struct hrtimer vblank_timer;
	ktime_t period;
	bool vblank_on;
	spinlock_t vblank_lock;	/* see the kernel-doc above */
	ktime_t vrr_max_period;
	ktime_t vrr_last;
	bool vrr_flip;
	struct work_struct compose_work;
	struct work_struct release_work;
	struct list_head release_list;

	spinlock_t frame_lock;	/* see the kernel-doc above */
	u64 frame_seq;
	bool crc_enabled;
	u32 crc_gen;
	u64 crc_seq;
	bool crc_seq_valid;

	struct mutex scene_lock;	/* see the kernel-doc above */
	struct vdisplay_frame scene;
	bool scene_new;
	bool scene_full;
	struct list_head wb_pending;
	bool committed;
	int damage_y1;
	int damage_y2;
	bool commit_full;
	bool commit_clips;
	int commit_y1;
	int commit_y2;

	struct mutex compose_lock;	/* see the kernel-doc above */
	struct vdisplay_frame frame;
	u64 *image;
	size_t image_size;
	bool image_valid;
	bool row_crc_valid;
	u32 row_crc_width;
	u32 row_crc_height;
	u32 crc_shift_width;
	u32 crc_shift[4][256];
};

/**
 * struct vdisplay_connector - a connector and what it reports
 * @base: the DRM connector, embedded
 * @connected: state it reports, set through debugfs or configfs
 * @edid_lock: protects @edid and @edid_len
 * @edid: the EDID its modes come from, or NULL for the standard modes
 * @edid_len: bytes at @edid
 * @vrr_min_hz: lowest refresh rate of its variable refresh range, from
 *	its EDID's monitor range or VDISPLAY_VRR_MIN_HZ; written when it is
 *	probed, read by commits
 */
struct vdisplay_connector {
	struct drm_connector base;
	bool connected;
	struct mutex edid_lock;	/* see the kernel-doc above */
	u8 *edid;
	size_t edid_len;
	unsigned int vrr_min_hz;
};

/**
 * struct vdisplay_device - the vdisplay instance
 * @drm: the DRM device, embedded
 * @pdev: the virtual platform device it is bound to
 * @config: the configuration it was created with
 * @composer_wq: runs every output's composer, outside of hard irq
 * @outputs: the CRTCs with their planes, @config.ncrtcs of them, each its
 *	own allocation, freed with the DRM device after its mode config
 * @encoders: the encoders, @config.nencoders of them in use
 * @connectors: the connectors, @config.nconnectors of them in use
 * @client: in-kernel client that tidies up after the last file closes
 *	(see vdisplay_client_restore()); unused where the kernel has no
 *	in-kernel clients
 */
struct vdisplay_device {
	struct drm_device drm;
	struct drm_client_dev client;
	struct platform_device *pdev;
	struct vdisplay_config config;
	struct workqueue_struct *composer_wq;
	struct vdisplay_output *outputs[VDISPLAY_MAX_CRTCS];
	struct drm_encoder encoders[VDISPLAY_MAX_ENCODERS];
	struct vdisplay_connector connectors[VDISPLAY_MAX_CONNECTORS];
};

static inline struct vdisplay_device *to_vdisplay(struct drm_device *drm)
{
	return container_of(drm, struct vdisplay_device, drm);
}

static inline struct vdisplay_output *crtc_to_output(struct drm_crtc *crtc)
{
	return container_of(crtc, struct vdisplay_output, crtc);
}

static inline struct vdisplay_connector *
to_vdisplay_connector(struct drm_connector *connector)
{
	return container_of(connector, struct vdisplay_connector, base);
}

static inline struct vdisplay_output *
wb_to_output(struct drm_writeback_connector *wb)
{
	return container_of(wb, struct vdisplay_output, wb);
}

static inline struct vdisplay_plane_state *
to_vdisplay_plane_state(struct drm_plane_state *state)
{
	return container_of(state, struct vdisplay_plane_state, base);
}

/* CRTC */
int vdisplay_crtc_init(struct vdisplay_device *vd, struct vdisplay_output *out);

/* Planes */
struct drm_plane *vdisplay_plane_create(struct vdisplay_device *vd,
					u32 possible_crtcs,
					enum drm_plane_type type,
					unsigned int zpos,
					unsigned int max_zpos);

/* Plane colour pipeline, where the core has colorops */
#ifdef PRIMEPAIR_HAVE_COLOR_PIPELINE
void vdisplay_colorop_tables_init(void);
int vdisplay_plane_colorops_init(struct vdisplay_device *vd,
				 struct drm_plane *plane);
int vdisplay_plane_pipeline_check(struct drm_atomic_commit *state,
				  struct drm_plane *plane);
bool vdisplay_plane_pipeline_changed(const struct drm_plane_state *old_state,
				     const struct drm_plane_state *new_state);
void vdisplay_plane_pipeline_copy(struct vdisplay_plane_state *dst,
				  const struct vdisplay_plane_state *src);
void vdisplay_plane_pipeline_release(struct vdisplay_plane_state *vs);
void vdisplay_pipeline_apply(const struct vdisplay_pipeline *p, u64 *px,
			     unsigned int n, bool ten_bit);
#else
static inline void vdisplay_colorop_tables_init(void)
{
}

static inline int vdisplay_plane_colorops_init(struct vdisplay_device *vd,
					       struct drm_plane *plane)
{
	return 0;
}

static inline int vdisplay_plane_pipeline_check(struct drm_atomic_commit *state,
						struct drm_plane *plane)
{
	return 0;
}

static inline bool
vdisplay_plane_pipeline_changed(const struct drm_plane_state *old_state,
				const struct drm_plane_state *new_state)
{
	return false;
}

static inline void
vdisplay_plane_pipeline_copy(struct vdisplay_plane_state *dst,
			     const struct vdisplay_plane_state *src)
{
}

static inline void
vdisplay_plane_pipeline_release(struct vdisplay_plane_state *vs)
{
}

static inline void vdisplay_pipeline_apply(const struct vdisplay_pipeline *p,
					   u64 *px, unsigned int n,
					   bool ten_bit)
{
}
#endif

/* Pixel formats */
const struct vdisplay_format *vdisplay_format_find(u32 fourcc);
unsigned int vdisplay_format_list(u32 *list);
const struct vdisplay_wb_format *vdisplay_wb_format_find(u32 fourcc);
unsigned int vdisplay_wb_format_list(u32 *list);
bool vdisplay_cursor_toggle_async(struct drm_atomic_commit *state);

/* Encoders, connectors and hotplug */
int vdisplay_encoders_init(struct vdisplay_device *vd);
int vdisplay_connectors_init(struct vdisplay_device *vd);
void vdisplay_connectors_fini(struct vdisplay_device *vd);
void vdisplay_connector_set_status(struct vdisplay_device *vd,
				   unsigned int index, bool connected);
int vdisplay_connector_set_edid(struct vdisplay_device *vd,
				unsigned int index, const void *edid,
				size_t len);
bool vdisplay_edid_valid(const void *edid, size_t len);
unsigned int vdisplay_vrr_min_hz(struct vdisplay_device *vd, u32 connector_mask);

/* Devices, created by the module and through configfs */
void vdisplay_config_defaults(struct vdisplay_config *config);
int vdisplay_config_check(const struct vdisplay_config *config);
struct platform_device *vdisplay_device_create(int id,
					       const struct vdisplay_config *config);
void vdisplay_device_destroy(struct platform_device *pdev);

/* configfs */
int vdisplay_configfs_register(void);
void vdisplay_configfs_unregister(void);

/* Writeback */
int vdisplay_writeback_init(struct vdisplay_device *vd,
			    struct vdisplay_output *out);

/* Composer and CRC */
void vdisplay_composer_update(struct vdisplay_output *out);
void vdisplay_composer_release(struct vdisplay_output *out);
void vdisplay_composer_update_locked(struct vdisplay_output *out);
void vdisplay_composer_damage_plane(struct vdisplay_output *out,
				    const struct drm_plane_state *old_state,
				    const struct drm_plane_state *new_state);
void vdisplay_composer_damage_all(struct vdisplay_output *out);
void vdisplay_compose_work(struct work_struct *work);
void vdisplay_release_work(struct work_struct *work);
void vdisplay_composer_arm_writeback(struct vdisplay_output *out,
				     struct vdisplay_wb_target *target);
void vdisplay_composer_cancel_writebacks(struct vdisplay_output *out);
int vdisplay_composer_reserve(struct vdisplay_output *out, u32 width,
			      u32 height);
const char *const *vdisplay_crc_sources(struct drm_crtc *crtc, size_t *count);
int vdisplay_crc_verify_source(struct drm_crtc *crtc, const char *source,
			       size_t *values_cnt);
int vdisplay_crc_set_source(struct drm_crtc *crtc, const char *source);
void vdisplay_composer_fini(struct vdisplay_output *out);

#endif /* _VDISPLAY_DRV_H_ */

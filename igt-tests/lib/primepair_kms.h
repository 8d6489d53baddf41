/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair_kms.h - KMS helpers for the vdisplay tests, on libdrm.
 *
 * One struct primepair_kms describes the card: for each CRTC its connector,
 * writeback connector and planes, and the property ids the tests set in
 * atomic commits.  Framebuffers are dumb buffers, mapped for the CPU.
 */
#ifndef PRIMEPAIR_KMS_H
#define PRIMEPAIR_KMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#define PRIMEPAIR_MAX_OUTPUTS	4
#define PRIMEPAIR_MAX_PLANES	8

struct pp_capture;	/* libprimepair.h, for primepair_capture() */

struct primepair_output {
	uint32_t crtc_id;
	unsigned int crtc_index;
	uint32_t connector_id;
	uint32_t wb_connector_id;	/* 0 if none */
	uint32_t primary;
	uint32_t cursor;		/* 0 if none */
	unsigned int noverlays;
	uint32_t overlays[PRIMEPAIR_MAX_PLANES];
	drmModeModeInfo mode;		/* the test mode (640x480 if listed) */
};

struct primepair_kms {
	int fd;
	unsigned int noutputs;
	struct primepair_output outputs[PRIMEPAIR_MAX_OUTPUTS];
};

struct primepair_fb {
	uint32_t handle;
	uint32_t fb_id;
	uint32_t width, height, format, pitch, cpp;
	uint64_t size;
	void *map;
};

/* Open vdisplay with atomic and writeback caps and fill @kms. */
void primepair_kms_open(struct primepair_kms *kms);
/* The same for vdisplay device @n (module parameter devices) */
void primepair_kms_open_nth(struct primepair_kms *kms, unsigned int n);
void primepair_kms_close(struct primepair_kms *kms);
/*
 * Switch every output of @kms off with a blocking commit, which waits for
 * the commits still in flight, and drop the events they sent unread: the
 * next subtest starts from dark, idle outputs and an empty event queue,
 * however the last one ended.  For primepair_subtest_cleanup_push().
 */
void primepair_kms_quiesce(void *kms);

/* Property id of @name on object @id of @type; asserts that it exists. */
uint32_t primepair_prop_id(int fd, uint32_t id, uint32_t type, const char *name);
/* Current value of property @name on @id */
uint64_t primepair_prop_value(int fd, uint32_t id, uint32_t type, const char *name);


/* Add "name = value" for object @id to @req; asserts success. */
void primepair_add(int fd, drmModeAtomicReqPtr req, uint32_t id, uint32_t type,
	    const char *name, uint64_t value);

/* A dumb buffer of @format mapped for the CPU, with an fb id (0 if !addfb) */
void primepair_fb_create(int fd, uint32_t w, uint32_t h, uint32_t format,
		  struct primepair_fb *fb);
void primepair_fb_destroy(int fd, struct primepair_fb *fb);
/*
 * What a failed subtest leaves behind, released without asserting
 * anything, for its cleanups: @fb's mapping (which would keep the file
 * open), framebuffer and buffer, if it has them; then @kms's file.
 */
void primepair_fb_release(int fd, struct primepair_fb *fb);
void primepair_kms_release(struct primepair_kms *kms);
/*
 * An XRGB8888 framebuffer of @o's mode, exported (read-write) to *@dmabuf
 * and imported into the device @render as *@imported.
 */
void primepair_fb_create_shared(struct primepair_kms *kms,
				const struct primepair_output *o, int render,
				struct primepair_fb *fb, int *dmabuf,
				uint32_t *imported);
/* The KMS device of @kms is unplugged: its calls fail with ENODEV. */
void primepair_kms_assert_unplugged(struct primepair_kms *kms,
				    const struct primepair_fb *fb);

/* Plane properties for an unscaled @w x @h at (@x,@y), from fb (sx,sy). */
void primepair_add_plane(int fd, drmModeAtomicReqPtr req, uint32_t plane,
		  uint32_t crtc, const struct primepair_fb *fb, int32_t x, int32_t y,
		  uint32_t sx, uint32_t sy, uint32_t w, uint32_t h);
void primepair_add_plane_off(int fd, drmModeAtomicReqPtr req, uint32_t plane);

/* Mode set @o with @fb full screen on its primary; returns 0 or -errno. */
int primepair_modeset(struct primepair_kms *kms, struct primepair_output *o,
		      const struct primepair_fb *fb);
/* The same with the part of @fb from (@sx, @sy) on, the mode's size */
int primepair_modeset_src(struct primepair_kms *kms, struct primepair_output *o,
			  const struct primepair_fb *fb, uint32_t sx, uint32_t sy);
/*
 * primepair_modeset(), nonblocking: returns once the commit is queued,
 * with the CRTC active in its state, maybe before the commit has run
 */
int primepair_modeset_nonblock(struct primepair_kms *kms,
			       struct primepair_output *o,
			       const struct primepair_fb *fb);
/* Turn every CRTC and plane off */
void primepair_disable_all(struct primepair_kms *kms);

/* Commit @req (with @flags), returning 0 or -errno */
int primepair_commit(int fd, drmModeAtomicReqPtr req, uint32_t flags);

/*
 * Commit GAMMA_LUT of @o as a blob of @n entries of @lut (NULL, 0: no LUT)
 * with @flags; returns 0 or -errno.
 */
int primepair_set_gamma_lut(struct primepair_kms *kms, struct primepair_output *o,
			    const struct drm_color_lut *lut, unsigned int n,
			    uint32_t flags);

/*
 * Capture the next frame of @o through its writeback connector into @wb
 * (XRGB8888 or ARGB8888 of the mode's size), waiting for the out-fence.
 */
void primepair_writeback_capture(struct primepair_kms *kms, struct primepair_output *o,
			  struct primepair_fb *wb);
/*
 * The same, with the writeback job added to @req, whose other properties
 * are committed with it: the frame captured is the first of that commit.
 */
void primepair_writeback_capture_req(struct primepair_kms *kms,
				     struct primepair_output *o,
				     struct primepair_fb *wb,
				     drmModeAtomicReqPtr req);

/* CRC through debugfs: open crtc-N/crc for "auto" and read entries. */
struct primepair_crc {
	int ctl_fd;
	int data_fd;
};
void primepair_crc_start(struct primepair_kms *kms, struct primepair_output *o,
			 struct primepair_crc *c);
/* Next entry after skipping entries for frames before now; -> frame, crc */
void primepair_crc_get(struct primepair_crc *c, uint64_t *frame, uint32_t *crc);
void primepair_crc_stop(struct primepair_crc *c);

/*
 * A page-flip event as the tests count them: pass its address as the
 * commit's user data, and primepair_read_flip_event() fills it in.
 */
struct primepair_flip_event {
	unsigned int count;		/* events delivered so far */
	unsigned int sequence;		/* of the last one */
	uint32_t crtc_id;
	int64_t ts_ns;			/* CLOCK_MONOTONIC */
};

/*
 * Wait up to @ms for events on @fd and read them into the
 * struct primepair_flip_event each carries; false if none came.
 */
bool primepair_read_flip_event(int fd, int ms);

/*
 * The path of @file in the debugfs directory of @kms's connector
 * @connector_id (a vdisplay connector: Virtual-N), into @path.
 */
void primepair_connector_debugfs(struct primepair_kms *kms,
				 uint32_t connector_id, const char *file,
				 char *path, size_t len);

/*
 * An EDID 1.4 base block with one detailed timing, 1280x720 at 60 Hz
 * (CEA-861's 74.25 MHz timing), no other modes, 52 x 29 cm, and the
 * name "primepair".
 */
void primepair_make_edid(uint8_t edid[128]);

/*
 * Connector @id is connected with exactly the mode of primepair_make_edid()
 * and its EDID property holds the 128 bytes at @edid.
 */
void primepair_assert_edid_modes(int fd, uint32_t id, const uint8_t *edid);

/* Wait for the next vblank of @o; returns its sequence */
uint64_t primepair_wait_vblank(struct primepair_kms *kms, struct primepair_output *o);

/*
 * Wait up to @ms for CRTC @crtc_id to be lit by some client (a mode set);
 * returns the mode's width, or 0 on timeout.
 */
uint32_t primepair_wait_crtc_on(int fd, uint32_t crtc_id, int ms);

/*
 * The CRC of a still picture: read CRCs until two consecutive frames
 * agree, asserting that happens within @max_frames.
 */
uint32_t primepair_crc_still(struct primepair_kms *kms,
			     struct primepair_output *o, unsigned int max_frames);

/*
 * A picture of what @pid, a DRM master of @kms's device, shows on @o,
 * from vdisplay's writeback (pp_capture_process()).  Asserts that it is
 * the frame on screen to the bit, comparing its CRC-32 with the screen's
 * CRC while @pid is paused, and lets @pid go on.  The caller frees @cap
 * with pp_capture_free().
 */
void primepair_capture(struct primepair_kms *kms, struct primepair_output *o,
		       pid_t pid, struct pp_capture *cap);

/*
 * Pictures reaching the screen: the number of distinct CRCs other than
 * @old seen in at most @max_frames frames, stopping at @want (at most 16).
 */
unsigned int primepair_crc_count_new(struct primepair_kms *kms,
				     struct primepair_output *o, uint32_t old,
				     unsigned int want, unsigned int max_frames);


/*
 * CPU reference of vdisplay's composer.  It reads formats at 16 bits per
 * channel (8-bit channels times 0x101, 1-, 5-, 6- and 10-bit ones
 * widened to 16 by bit replication, 16-bit ones whole, half
 * floats cut to [0, 1], NaN to 0, and rounded to 16 bits, halfway up),
 * blends at 16 bits with one rounding per channel, over black, and keeps
 * the image rounded to 8 bits, as the CRC and an XRGB8888 writeback see
 * it.  primepair_read_pixel() is a pixel read so and rounded to 8 bits.
 */
uint32_t primepair_read_pixel(const void *p, uint32_t format);
/* Fill @fb with pseudo-random bytes from @seed (every byte varies). */
void primepair_fb_fill_random(struct primepair_fb *fb, uint32_t seed);
/* Fill @fb with one ARGB8888 colour (as near as its format gets) */
void primepair_fb_fill_color(struct primepair_fb *fb, uint32_t argb);
/* Blend an unscaled plane into @img (@iw x @ih XRGB8888, alpha 0xff) */
void primepair_ref_blend(uint32_t *img, uint32_t iw, uint32_t ih,
		  const struct primepair_fb *fb, int32_t x, int32_t y,
		  uint32_t sx, uint32_t sy, uint32_t w, uint32_t h,
		  uint16_t alpha, uint32_t blend);
/*
 * Compare a captured frame (any format primepair_read_pixel() reads) with
 * @img, each channel within @tolerance; returns the number of differing
 * pixels and logs the first few.
 */
unsigned int primepair_compare(const struct primepair_fb *wb, const uint32_t *img,
			unsigned int tolerance);

/* DRM_MODE_BLEND_* values of the "pixel blend mode" enum */
#define PRIMEPAIR_BLEND_PREMULTI	0
#define PRIMEPAIR_BLEND_COVERAGE	1
#define PRIMEPAIR_BLEND_NONE		2

#endif /* PRIMEPAIR_KMS_H */

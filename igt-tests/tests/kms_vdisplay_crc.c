// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_crc - CRCs of the composed frame through debugfs
 *
 * The interface IGT's CRC library reads: crtc-N/crc/control takes the
 * source "auto", crtc-N/crc/data yields one "frame crc" line per vblank.
 * An unchanged picture keeps its CRC, one changed pixel changes it, and
 * restoring the pixel restores it.  The value is the CRC-32 register over
 * the picture, computed here from the framebuffer's pixels.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("vdisplay CRC: stable frames, one-pixel changes");

/* The first CRC of a frame that started after vblank @after */
static uint32_t crc_after(struct primepair_crc *crc, uint64_t after)
{
	uint64_t frame;
	uint32_t value;

	do
		primepair_crc_get(crc, &frame, &value);
	while (frame <= after);
	return value;
}

/*
 * What vdisplay reports for a full-screen XRGB8888 framebuffer: the CRC-32
 * register, preset to ~0 and not inverted at the end (so the complement
 * of zlib's crc32()), over the picture's rows, each pixel's unused byte
 * 0xff.
 */
static uint32_t picture_crc(const struct primepair_fb *fb)
{
	uint32_t *row = malloc(fb->width * 4), crc = 0;
	unsigned int x, y;

	igt_assert(row);
	for (y = 0; y < fb->height; y++) {
		const uint32_t *src = (const uint32_t *)
			((const uint8_t *)fb->map + (size_t)y * fb->pitch);

		for (x = 0; x < fb->width; x++)
			row[x] = src[x] | 0xff000000;
		crc = primepair_crc32(crc, row, fb->width * 4);
	}
	free(row);
	return ~crc;
}

static void test_crc(struct primepair_kms *kms, struct primepair_output *o)
{
	uint64_t frame, prev_frame, seq;
	uint32_t value, base, *px;
	struct primepair_crc crc;
	struct primepair_fb fb;
	int i;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
		     DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 99);
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);

	primepair_crc_start(kms, o, &crc);
	primepair_crc_get(&crc, &prev_frame, &base);
	igt_assert_eq_u32(base, picture_crc(&fb));

	/* Stable: the same CRC for each following frame, frames rising */
	for (i = 0; i < 5; i++) {
		primepair_crc_get(&crc, &frame, &value);
		igt_assert_lt_u64(prev_frame, frame);
		igt_assert_eq_u32(value, base);
		prev_frame = frame;
	}

	/* One pixel in the middle of the screen, one bit of it */
	px = (uint32_t *)((uint8_t *)fb.map + (o->mode.vdisplay / 2) * fb.pitch) +
		o->mode.hdisplay / 2;
	*px ^= 0x00000100;
	seq = primepair_wait_vblank(kms, o);
	value = crc_after(&crc, seq);
	igt_assert_neq_u32(value, base);
	igt_assert_eq_u32(value, picture_crc(&fb));

	*px ^= 0x00000100;
	seq = primepair_wait_vblank(kms, o);
	igt_assert_eq_u32(crc_after(&crc, seq), base);

	/* The unused X byte is not part of the picture. */
	*px ^= 0xff000000;
	seq = primepair_wait_vblank(kms, o);
	igt_assert_eq_u32(crc_after(&crc, seq), base);

	primepair_crc_stop(&crc);
	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

/*
 * One CRC for every frame, as IGT's kms_pipe_crc_basic *-frame-sequence
 * expects: frame numbers follow each other without a gap even when the
 * composer runs late.  The largest mode makes the composer slowest (late
 * for sure in an emulated guest).
 */
static void test_crc_every_frame(struct primepair_kms *kms,
				 struct primepair_output *o)
{
	drmModeModeInfo test_mode = o->mode;
	drmModeConnectorPtr conn;
	uint64_t frame, prev_frame;
	struct primepair_crc crc;
	struct primepair_fb fb;
	uint32_t value, base;
	int i;

	conn = drmModeGetConnector(kms->fd, o->connector_id);
	igt_assert(conn && conn->count_modes > 0);
	o->mode = conn->modes[0];
	for (i = 1; i < conn->count_modes; i++)
		if (conn->modes[i].hdisplay * conn->modes[i].vdisplay >
		    o->mode.hdisplay * o->mode.vdisplay)
			o->mode = conn->modes[i];
	drmModeFreeConnector(conn);
	igt_info("mode %ux%u\n", o->mode.hdisplay, o->mode.vdisplay);

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 5);
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);

	primepair_crc_start(kms, o, &crc);
	primepair_crc_get(&crc, &prev_frame, &base);
	igt_assert_eq_u32(base, picture_crc(&fb));
	for (i = 0; i < 120; i++) {
		primepair_crc_get(&crc, &frame, &value);
		igt_assert_eq_u64(frame, prev_frame + 1);
		igt_assert_eq_u32(value, base);
		prev_frame = frame;
	}

	primepair_crc_stop(&crc);
	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
	o->mode = test_mode;
}

/*
 * The frame on screen when the CRC file is opened has a CRC too, which a
 * display engine delivers at the next vblank: the first entry is the
 * frame current at the open, with the picture's CRC, and the next frame
 * follows it.  IGT's kms_pipe_crc_basic nonblocking-crc waits N vblanks
 * after opening and wants N CRCs by then.
 */
static void test_crc_on_open(struct primepair_kms *kms,
			     struct primepair_output *o)
{
	uint64_t before, after, frame, next;
	struct primepair_crc crc;
	struct primepair_fb fb;
	uint32_t first, second;
	int i;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 6);
	igt_assert_eq(primepair_modeset(kms, o, &fb), 0);

	for (i = 0; i < 20; i++) {
		primepair_wait_vblank(kms, o);
		igt_assert_eq(drmCrtcGetSequence(kms->fd, o->crtc_id, &before,
						 NULL), 0);
		primepair_crc_start(kms, o, &crc);
		igt_assert_eq(drmCrtcGetSequence(kms->fd, o->crtc_id, &after,
						 NULL), 0);
		primepair_crc_get(&crc, &frame, &first);
		primepair_crc_get(&crc, &next, &second);
		primepair_crc_stop(&crc);
		igt_info("opened between frames %llu and %llu: first CRC of frame %llu\n",
			 (unsigned long long)before, (unsigned long long)after,
			 (unsigned long long)frame);
		/* the CRC file shows the low 32 bits of the frame counter */
		igt_assert_lte_u64(before & 0xffffffffu, frame);
		igt_assert_lte_u64(frame, after & 0xffffffffu);
		igt_assert_eq_u64(next, frame + 1);
		igt_assert_eq_u32(first, second);
	}

	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

/*
 * A nonblocking modeset returns with the CRTC active in its state, which
 * is what the CRC file checks, while the commit that turns its vblanks on
 * may still be queued.  A CRC reader racing a compositor's first modeset
 * is that: the open must wait for the commit, not fail (it gave EINVAL).
 */
static void test_crc_open_during_enable(struct primepair_kms *kms,
					struct primepair_output *o)
{
	struct primepair_crc crc;
	struct primepair_fb fb;
	uint64_t frame;
	uint32_t value;
	int i;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_random(&fb, 7);

	for (i = 0; i < 20; i++) {
		primepair_disable_all(kms);
		igt_assert_eq(primepair_modeset_nonblock(kms, o, &fb), 0);
		primepair_crc_start(kms, o, &crc);	/* asserts the open */
		primepair_crc_get(&crc, &frame, &value);
		primepair_crc_stop(&crc);
		igt_assert_eq_u32(value, picture_crc(&fb));
	}

	primepair_disable_all(kms);
	primepair_fb_destroy(kms->fd, &fb);
}

static void test_bad_source(struct primepair_kms *kms, struct primepair_output *o)
{
	char path[128];
	struct stat st;
	int fd;

	igt_assert_eq(fstat(kms->fd, &st), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/crtc-%u/crc/control",
		 minor(st.st_rdev), o->crtc_index);
	fd = open(path, O_WRONLY);
	igt_require(fd >= 0);
	/* drm_crtc_crc_control_write: an unknown source is -EINVAL */
	igt_assert_eq(write(fd, "pipe-z", 6), -1);
	igt_assert_eq(errno, EINVAL);
	close(fd);
}

igt_main
{
	struct primepair_kms kms = {};

	igt_fixture
		primepair_kms_open(&kms);

	igt_subtest("crc-stable-and-pixel")
		test_crc(&kms, &kms.outputs[0]);
	igt_subtest("crc-every-frame")
		test_crc_every_frame(&kms, &kms.outputs[0]);
	igt_describe("The frame on screen when the CRC file is opened gets the first CRC");
	igt_subtest("crc-on-open")
		test_crc_on_open(&kms, &kms.outputs[0]);
	igt_describe("The CRC file opens while a nonblocking modeset is under way");
	igt_subtest("crc-open-during-enable")
		test_crc_open_during_enable(&kms, &kms.outputs[0]);
	igt_subtest("crc-bad-source")
		test_bad_source(&kms, &kms.outputs[0]);

	igt_fixture {
		primepair_kms_close(&kms);
		primepair_assert_summary_zero();
	}
}

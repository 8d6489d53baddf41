// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_kms.c - KMS helpers for the vdisplay tests, on libdrm and
 * libprimepair.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
#include "primepair.h"
#include "primepair_kms.h"

uint32_t primepair_prop_id(int fd, uint32_t id, uint32_t type, const char *name)
{
	uint32_t prop_id = pp_prop_id(fd, id, type, name);

	igt_assert_f(prop_id, "object %u has no property %s\n", id, name);
	return prop_id;
}

uint64_t primepair_prop_value(int fd, uint32_t id, uint32_t type, const char *name)
{
	uint64_t value = 0;

	primepair_prop_id(fd, id, type, name);
	igt_assert_eq(pp_prop_value(fd, id, type, name, &value), 0);
	return value;
}

void primepair_add(int fd, drmModeAtomicReqPtr req, uint32_t id, uint32_t type,
	    const char *name, uint64_t value)
{
	primepair_prop_id(fd, id, type, name);
	igt_assert_eq(pp_atomic_add(fd, req, id, type, name, value), 0);
}

static void primepair_pick_mode(drmModeConnectorPtr c, drmModeModeInfo *mode)
{
	int i;

	igt_assert_lt(0, c->count_modes);
	*mode = c->modes[0];
	for (i = 0; i < c->count_modes; i++)
		if (c->modes[i].hdisplay == 640 && c->modes[i].vdisplay == 480 &&
		    c->modes[i].vrefresh == 60) {
			*mode = c->modes[i];
			return;
		}
}

static void primepair_find_planes(struct primepair_kms *kms)
{
	drmModePlaneResPtr res = drmModeGetPlaneResources(kms->fd);
	uint32_t i;
	unsigned int o;

	igt_assert(res);
	for (i = 0; i < res->count_planes; i++) {
		drmModePlanePtr p = drmModeGetPlane(kms->fd, res->planes[i]);
		uint64_t type;

		igt_assert(p);
		type = primepair_prop_value(kms->fd, p->plane_id, DRM_MODE_OBJECT_PLANE,
				     "type");
		for (o = 0; o < kms->noutputs; o++) {
			struct primepair_output *out = &kms->outputs[o];

			if (!(p->possible_crtcs & (1u << out->crtc_index)))
				continue;
			if (type == DRM_PLANE_TYPE_PRIMARY)
				out->primary = p->plane_id;
			else if (type == DRM_PLANE_TYPE_CURSOR)
				out->cursor = p->plane_id;
			else if (out->noverlays < PRIMEPAIR_MAX_PLANES)
				out->overlays[out->noverlays++] = p->plane_id;
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(res);
}

void primepair_kms_open(struct primepair_kms *kms)
{
	primepair_kms_open_nth(kms, 0);
}

void primepair_kms_open_nth(struct primepair_kms *kms, unsigned int n)
{
	drmModeResPtr res;
	int i, j;

	memset(kms, 0, sizeof(*kms));
	kms->fd = primepair_open_driver_nth(PRIMEPAIR_DISPLAY_DRIVER, n);
	igt_assert_eq(drmSetClientCap(kms->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1), 0);
	igt_assert_eq(drmSetClientCap(kms->fd, DRM_CLIENT_CAP_ATOMIC, 1), 0);
	igt_assert_eq(drmSetClientCap(kms->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1), 0);

	res = drmModeGetResources(kms->fd);
	igt_assert(res);
	igt_assert_lte(res->count_crtcs, PRIMEPAIR_MAX_OUTPUTS);
	kms->noutputs = res->count_crtcs;
	for (i = 0; i < res->count_crtcs; i++) {
		kms->outputs[i].crtc_id = res->crtcs[i];
		kms->outputs[i].crtc_index = i;
	}

	for (i = 0; i < res->count_connectors; i++) {
		drmModeConnectorPtr c = drmModeGetConnector(kms->fd,
							    res->connectors[i]);
		drmModeEncoderPtr e;

		igt_assert(c && c->count_encoders > 0);
		e = drmModeGetEncoder(kms->fd, c->encoders[0]);
		igt_assert(e);
		for (j = 0; j < res->count_crtcs; j++) {
			struct primepair_output *o = &kms->outputs[j];

			if (!(e->possible_crtcs & (1u << j)))
				continue;
			if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
				o->wb_connector_id = c->connector_id;
			} else {
				o->connector_id = c->connector_id;
				if (c->connection == DRM_MODE_CONNECTED)
					primepair_pick_mode(c, &o->mode);
			}
		}
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	primepair_find_planes(kms);
}

void primepair_kms_close(struct primepair_kms *kms)
{
	if (kms->fd >= 0) {
		primepair_disable_all(kms);
		close(kms->fd);
	}
	kms->fd = -1;
}

void primepair_kms_quiesce(void *data)
{
	struct primepair_kms *kms = data;
	/* no handlers: drmHandleEvent() reads the events and drops them */
	drmEventContext drop = { .version = 3 };
	struct pollfd pfd = { .fd = kms->fd, .events = POLLIN };

	primepair_disable_all(kms);
	while (poll(&pfd, 1, 0) == 1)
		igt_assert_eq(drmHandleEvent(kms->fd, &drop), 0);
}

void primepair_kms_release(struct primepair_kms *kms)
{
	if (kms->fd >= 0)
		close(kms->fd);
	kms->fd = -1;
}

/* The test's view of a libprimepair framebuffer, and back */
static void fb_from_pp(struct primepair_fb *fb, const struct pp_fb *pp)
{
	fb->handle = pp->handle;
	fb->fb_id = pp->fb_id;
	fb->width = pp->width;
	fb->height = pp->height;
	fb->format = pp->format;
	fb->pitch = pp->pitch;
	fb->cpp = pp->cpp;
	fb->size = pp->size;
	fb->map = pp->map;
}

static void fb_to_pp(struct pp_fb *pp, const struct primepair_fb *fb)
{
	pp->handle = fb->handle;
	pp->fb_id = fb->fb_id;
	pp->width = fb->width;
	pp->height = fb->height;
	pp->format = fb->format;
	pp->pitch = fb->pitch;
	pp->cpp = fb->cpp;
	pp->size = fb->size;
	pp->map = fb->map;
}

void primepair_fb_create(int fd, uint32_t w, uint32_t h, uint32_t format,
		  struct primepair_fb *fb)
{
	struct pp_fb pp;

	igt_assert_eq(pp_fb_create(fd, w, h, format, &pp), 0);
	fb_from_pp(fb, &pp);
	igt_assert_eq(pp_fb_map(fd, &pp), 0);
	fb->map = pp.map;
	memset(fb->map, 0, fb->size);
	igt_assert_eq(pp_fb_add(fd, &pp), 0);
	fb->fb_id = pp.fb_id;
	errno = 0;
}

void primepair_fb_destroy(int fd, struct primepair_fb *fb)
{
	struct pp_fb pp;

	fb_to_pp(&pp, fb);
	memset(fb, 0, sizeof(*fb));
	/* a test may have removed the framebuffer itself */
	if (pp.fb_id)
		drmModeRmFB(fd, pp.fb_id);
	pp.fb_id = 0;
	igt_assert_eq(pp_fb_destroy(fd, &pp), 0);
}

void primepair_fb_release(int fd, struct primepair_fb *fb)
{
	struct pp_fb pp;

	fb_to_pp(&pp, fb);
	memset(fb, 0, sizeof(*fb));
	pp_fb_destroy(fd, &pp);
}

void primepair_add_plane(int fd, drmModeAtomicReqPtr req, uint32_t plane,
		  uint32_t crtc, const struct primepair_fb *fb, int32_t x, int32_t y,
		  uint32_t sx, uint32_t sy, uint32_t w, uint32_t h)
{
	const uint32_t t = DRM_MODE_OBJECT_PLANE;

	primepair_add(fd, req, plane, t, "FB_ID", fb->fb_id);
	primepair_add(fd, req, plane, t, "CRTC_ID", crtc);
	primepair_add(fd, req, plane, t, "SRC_X", (uint64_t)sx << 16);
	primepair_add(fd, req, plane, t, "SRC_Y", (uint64_t)sy << 16);
	primepair_add(fd, req, plane, t, "SRC_W", (uint64_t)w << 16);
	primepair_add(fd, req, plane, t, "SRC_H", (uint64_t)h << 16);
	primepair_add(fd, req, plane, t, "CRTC_X", (uint64_t)(int64_t)x);
	primepair_add(fd, req, plane, t, "CRTC_Y", (uint64_t)(int64_t)y);
	primepair_add(fd, req, plane, t, "CRTC_W", w);
	primepair_add(fd, req, plane, t, "CRTC_H", h);
}

void primepair_add_plane_off(int fd, drmModeAtomicReqPtr req, uint32_t plane)
{
	primepair_add(fd, req, plane, DRM_MODE_OBJECT_PLANE, "FB_ID", 0);
	primepair_add(fd, req, plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", 0);
}

int primepair_commit(int fd, drmModeAtomicReqPtr req, uint32_t flags)
{
	int ret = drmModeAtomicCommit(fd, req, flags, NULL);

	return ret ? -errno : 0;
}

int primepair_set_gamma_lut(struct primepair_kms *kms, struct primepair_output *o,
			    const struct drm_color_lut *lut, unsigned int n,
			    uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint32_t blob = 0;
	int ret;

	igt_assert(req);
	if (n)
		igt_assert_eq(drmModeCreatePropertyBlob(kms->fd, lut,
							n * sizeof(*lut), &blob), 0);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "GAMMA_LUT",
		      blob);
	ret = primepair_commit(kms->fd, req, flags);
	drmModeAtomicFree(req);
	if (blob)
		drmModeDestroyPropertyBlob(kms->fd, blob);
	return ret;
}

int primepair_modeset(struct primepair_kms *kms, struct primepair_output *o,
		      const struct primepair_fb *fb)
{
	return primepair_modeset_src(kms, o, fb, 0, 0);
}

static int modeset_commit(struct primepair_kms *kms, struct primepair_output *o,
			  const struct primepair_fb *fb, uint32_t sx, uint32_t sy,
			  uint32_t flags)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint32_t blob;
	int ret;

	igt_assert(req);
	igt_assert_eq(drmModeCreatePropertyBlob(kms->fd, &o->mode,
						sizeof(o->mode), &blob), 0);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", blob);
	primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
	primepair_add(kms->fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
	       "CRTC_ID", o->crtc_id);
	primepair_add_plane(kms->fd, req, o->primary, o->crtc_id, fb, 0, 0, sx, sy,
			    o->mode.hdisplay, o->mode.vdisplay);
	ret = primepair_commit(kms->fd, req, flags);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(kms->fd, blob);
	return ret;
}

int primepair_modeset_src(struct primepair_kms *kms, struct primepair_output *o,
			  const struct primepair_fb *fb, uint32_t sx, uint32_t sy)
{
	return modeset_commit(kms, o, fb, sx, sy, DRM_MODE_ATOMIC_ALLOW_MODESET);
}

int primepair_modeset_nonblock(struct primepair_kms *kms,
			       struct primepair_output *o,
			       const struct primepair_fb *fb)
{
	return modeset_commit(kms, o, fb, 0, 0, DRM_MODE_ATOMIC_ALLOW_MODESET |
			      DRM_MODE_ATOMIC_NONBLOCK);
}

void primepair_disable_all(struct primepair_kms *kms)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	unsigned int i, j;

	igt_assert(req);
	for (i = 0; i < kms->noutputs; i++) {
		struct primepair_output *o = &kms->outputs[i];

		primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "ACTIVE", 0);
		primepair_add(kms->fd, req, o->crtc_id, DRM_MODE_OBJECT_CRTC, "MODE_ID", 0);
		primepair_add(kms->fd, req, o->connector_id, DRM_MODE_OBJECT_CONNECTOR,
		       "CRTC_ID", 0);
		if (o->wb_connector_id)
			primepair_add(kms->fd, req, o->wb_connector_id,
			       DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", 0);
		primepair_add_plane_off(kms->fd, req, o->primary);
		if (o->cursor)
			primepair_add_plane_off(kms->fd, req, o->cursor);
		for (j = 0; j < o->noverlays; j++)
			primepair_add_plane_off(kms->fd, req, o->overlays[j]);
	}
	igt_assert_eq(primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET), 0);
	drmModeAtomicFree(req);
}

void primepair_writeback_capture(struct primepair_kms *kms, struct primepair_output *o,
			  struct primepair_fb *wb)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	igt_assert(req);
	primepair_writeback_capture_req(kms, o, wb, req);
	drmModeAtomicFree(req);
}

void primepair_writeback_capture_req(struct primepair_kms *kms,
				     struct primepair_output *o,
				     struct primepair_fb *wb,
				     drmModeAtomicReqPtr req)
{
	const uint32_t t = DRM_MODE_OBJECT_CONNECTOR;
	struct pollfd pfd = {};
	int32_t fence = -1;

	igt_require_f(o->wb_connector_id, "no writeback connector\n");
	primepair_add(kms->fd, req, o->wb_connector_id, t, "CRTC_ID", o->crtc_id);
	primepair_add(kms->fd, req, o->wb_connector_id, t, "WRITEBACK_FB_ID", wb->fb_id);
	primepair_add(kms->fd, req, o->wb_connector_id, t, "WRITEBACK_OUT_FENCE_PTR",
	       (uint64_t)(uintptr_t)&fence);
	igt_assert_eq(primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET), 0);

	igt_assert_lte(0, fence);
	pfd.fd = fence;
	pfd.events = POLLIN;
	igt_assert_f(poll(&pfd, 1, 5000) == 1, "writeback fence not signalled\n");
	close(fence);
}

void primepair_crc_start(struct primepair_kms *kms, struct primepair_output *o,
			 struct primepair_crc *c)
{
	char name[32], path[128];

	snprintf(name, sizeof(name), "crtc-%u/crc/control", o->crtc_index);
	igt_assert_eq(pp_dri_debugfs_path(kms->fd, name, path, sizeof(path)), 0);
	c->ctl_fd = open(path, O_WRONLY);
	igt_require_f(c->ctl_fd >= 0, "no %s\n", path);
	igt_assert_eq(write(c->ctl_fd, "auto", 4), 4);
	snprintf(name, sizeof(name), "crtc-%u/crc/data", o->crtc_index);
	igt_assert_eq(pp_dri_debugfs_path(kms->fd, name, path, sizeof(path)), 0);
	c->data_fd = open(path, O_RDONLY);
	igt_assert_f(c->data_fd >= 0, "open %s: %m\n", path);
}

void primepair_crc_get(struct primepair_crc *c, uint64_t *frame, uint32_t *crc)
{
	char line[64];
	ssize_t n;
	unsigned long long f;
	unsigned int v;

	/*
	 * One "0xFFFFFFFF 0xCCCCCCCC\n" line per read, copied with its NUL;
	 * a buffer shorter than that makes the read -EINVAL.
	 */
	n = read(c->data_fd, line, sizeof(line) - 1);
	igt_assert_eq(n, 23);	/* LINE_LEN(1) of drm_debugfs_crc.c, NUL included */
	line[n] = 0;
	igt_assert_eq(sscanf(line, "%llx %x", &f, &v), 2);
	*frame = f;
	*crc = v;
}

void primepair_crc_stop(struct primepair_crc *c)
{
	close(c->data_fd);
	close(c->ctl_fd);
}

static void primepair_on_flip(int fd, unsigned int sequence, unsigned int sec,
			      unsigned int usec, unsigned int crtc_id, void *data)
{
	struct primepair_flip_event *ev = data;

	ev->count++;
	ev->sequence = sequence;
	ev->crtc_id = crtc_id;
	ev->ts_ns = (int64_t)sec * 1000000000ll + (int64_t)usec * 1000;
}

bool primepair_read_flip_event(int fd, int ms)
{
	drmEventContext ctx = {
		.version = 3,
		.page_flip_handler2 = primepair_on_flip,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return false;
	igt_assert_eq(drmHandleEvent(fd, &ctx), 0);
	return true;
}

void primepair_connector_debugfs(struct primepair_kms *kms,
				 uint32_t connector_id, const char *file,
				 char *path, size_t len)
{
	drmModeConnectorPtr c = drmModeGetConnector(kms->fd, connector_id);
	struct stat st;

	igt_assert(c);
	igt_assert_eq(fstat(kms->fd, &st), 0);
	snprintf(path, len, "/sys/kernel/debug/dri/%u/Virtual-%u/%s",
		 minor(st.st_rdev), c->connector_type_id, file);
	drmModeFreeConnector(c);
}

void primepair_make_edid(uint8_t edid[128])
{
	static const uint8_t head[] = {
		0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00,
		0x42, 0x12,		/* manufacturer "PPR" */
		0x01, 0x00,		/* product */
		0x01, 0x00, 0x00, 0x00,	/* serial */
		1, 36,			/* week 1 of 2026 */
		1, 4,			/* EDID 1.4 */
		0xa5,			/* digital, 8 bpc, DisplayPort */
		52, 29,			/* 52 x 29 cm */
		120,			/* gamma 2.2 */
		0x06,			/* RGB 4:4:4, sRGB, preferred timing */
	};
	static const uint8_t dtd[18] = {
		0x01, 0x1d,		/* 74.25 MHz */
		0x00, 0x72, 0x51,	/* 1280 active, 370 blank */
		0xd0, 0x1e, 0x20,	/* 720 active, 30 blank */
		110, 40, 0x55, 0x00,	/* sync offsets and widths */
		0x0f, 0x28, 0x21,	/* 527 x 296 mm */
		0, 0,			/* no border */
		0x1e,			/* digital separate sync, +h +v */
	};
	static const uint8_t name[18] = {
		0, 0, 0, 0xfc, 0,
		'p', 'r', 'i', 'm', 'e', 'p', 'a', 'i', 'r', '\n', ' ', ' ', ' ',
	};
	uint8_t sum = 0;

	memset(edid, 0, 128);
	memcpy(edid, head, sizeof(head));
	/* chromaticity (bytes 25-34): sRGB's, roughly */
	memcpy(edid + 25, "\xee\x91\xa3\x54\x4c\x99\x26\x0f\x50\x54", 10);
	/* no established timings (35-37); standard timings unused */
	memset(edid + 38, 0x01, 16);
	memcpy(edid + 54, dtd, sizeof(dtd));
	memcpy(edid + 72, name, sizeof(name));
	/* two dummy descriptors (tag 0x10) */
	edid[90 + 3] = 0x10;
	edid[108 + 3] = 0x10;
	edid[126] = 0;		/* no extension blocks */
	for (int i = 0; i < 127; i++)
		sum += edid[i];
	edid[127] = (uint8_t)-sum;
}

void primepair_assert_edid_modes(int fd, uint32_t id, const uint8_t *edid)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, id);
	drmModePropertyBlobPtr blob;
	uint64_t blob_id;

	igt_assert(c);
	igt_assert_eq(c->connection, DRM_MODE_CONNECTED);
	igt_assert_eq(c->count_modes, 1);
	igt_assert_eq(c->modes[0].hdisplay, 1280);
	igt_assert_eq(c->modes[0].vdisplay, 720);
	igt_assert_eq(c->modes[0].clock, 74250);
	igt_assert_eq(c->modes[0].vrefresh, 60);
	igt_assert(c->modes[0].type & DRM_MODE_TYPE_PREFERRED);
	/* The base block's size in cm, not the timing's in mm */
	igt_assert_eq(c->mmWidth, 520);
	drmModeFreeConnector(c);

	/* The EDID property carries the very bytes written. */
	blob_id = primepair_prop_value(fd, id, DRM_MODE_OBJECT_CONNECTOR, "EDID");
	igt_assert(blob_id);
	blob = drmModeGetPropertyBlob(fd, blob_id);
	igt_assert(blob);
	igt_assert_eq(blob->length, 128);
	igt_assert(!memcmp(blob->data, edid, 128));
	drmModeFreePropertyBlob(blob);
}

uint64_t primepair_wait_vblank(struct primepair_kms *kms, struct primepair_output *o)
{
	drmVBlank vbl = {};

	vbl.request.type = DRM_VBLANK_RELATIVE |
		(o->crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT);
	vbl.request.sequence = 1;
	igt_assert_eq(drmWaitVBlank(kms->fd, &vbl), 0);
	return vbl.reply.sequence;
}

/* A channel of @bits bits widened to 16 by repeating it below itself */
static uint32_t widen(uint32_t c, unsigned int bits)
{
	uint32_t v = 0;
	int sh;

	for (sh = 16 - (int)bits; sh > -(int)bits; sh -= (int)bits)
		v |= sh >= 0 ? c << sh : c >> -sh;
	return v & 0xffff;
}

/* 2^@n, exactly */
static double pow2(int n)
{
	double p = 1;

	for (; n > 0; n--)
		p *= 2;
	for (; n < 0; n++)
		p /= 2;
	return p;
}

/*
 * A half float channel as vdisplay reads it: the value (in double, which
 * holds every half float and its product with 65535 exactly) cut to
 * [0, 1], NaN to 0, then scaled to 16 bits and rounded, halfway cases up.
 */
static uint32_t half_to_16(uint16_t h)
{
	int e = h >> 10 & 31, m = h & 1023;
	double v;

	if (e == 31)
		v = m ? NAN : INFINITY;
	else if (e)
		v = (1024 + m) * pow2(e - 25);
	else
		v = m * pow2(-24);
	if (h & 0x8000)
		v = -v;
	if (!(v > 0))
		return 0;
	if (v >= 1)
		return 65535;
	return (uint32_t)(v * 65535 + 0.5);
}

/* A 16-bit channel rounded to 8 bits, as vdisplay's CRC and writeback do */
static uint32_t to8(uint32_t v)
{
	return (v * 255 + 0x7fff) / 0xffff;
}

static uint32_t pack_argb(uint32_t a, uint32_t r, uint32_t g, uint32_t b)
{
	return a << 24 | r << 16 | g << 8 | b;
}

static uint64_t pack16(uint32_t a, uint32_t r, uint32_t g, uint32_t b)
{
	return (uint64_t)a << 48 | (uint64_t)r << 32 | (uint64_t)g << 16 | b;
}

/* An ARGB8888 value with each channel times 0x101 */
static uint64_t from8888(uint32_t v)
{
	return pack16(v >> 24, v >> 16 & 255, v >> 8 & 255, v & 255) * 0x101;
}

static uint32_t px16_to8888(uint64_t v)
{
	return pack_argb(to8(v >> 48), to8(v >> 32 & 0xffff),
			 to8(v >> 16 & 0xffff), to8(v & 0xffff));
}

/*
 * A pixel as vdisplay's blender reads it, 16 bits per channel: 8-bit
 * channels times 0x101, narrower and 10-bit ones widened to 16 (see
 * widen()), 16-bit ones whole, half floats cut to [0, 1].
 */
static uint64_t read_pixel16(const void *p, uint32_t format)
{
	const uint8_t *c = p;	/* little endian: lowest byte first */
	uint16_t ch[4];		/* 16-bit channels: B, G, R, X/A */
	uint32_t v;

	switch (format) {
	case DRM_FORMAT_XRGB2101010:
		v = *(const uint32_t *)p;
		return pack16(0xffff, widen(v >> 20 & 1023, 10),
			      widen(v >> 10 & 1023, 10), widen(v & 1023, 10));
	case DRM_FORMAT_RGB565:
		v = c[0] | c[1] << 8;
		return pack16(0xffff, widen(v >> 11, 5), widen(v >> 5 & 63, 6),
			      widen(v & 31, 5));
	case DRM_FORMAT_BGR565:
		v = c[0] | c[1] << 8;
		return pack16(0xffff, widen(v & 31, 5), widen(v >> 5 & 63, 6),
			      widen(v >> 11, 5));
	case DRM_FORMAT_XRGB1555:
	case DRM_FORMAT_ARGB1555:
		v = c[0] | c[1] << 8;
		return pack16(format == DRM_FORMAT_ARGB1555 ?
			      widen(v >> 15, 1) : 0xffff,
			      widen(v >> 10 & 31, 5), widen(v >> 5 & 31, 5),
			      widen(v & 31, 5));
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		memcpy(ch, p, sizeof(ch));
		return pack16(format == DRM_FORMAT_ARGB16161616 ? ch[3] : 0xffff,
			      ch[2], ch[1], ch[0]);
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		memcpy(ch, p, sizeof(ch));
		return pack16(format == DRM_FORMAT_ARGB16161616F ?
			      half_to_16(ch[3]) : 0xffff,
			      half_to_16(ch[2]), half_to_16(ch[1]),
			      half_to_16(ch[0]));
	}
	return from8888(primepair_read_pixel(p, format));
}

uint32_t primepair_read_pixel(const void *p, uint32_t format)
{
	const uint8_t *c = p;	/* little endian: lowest byte first */

	switch (format) {
	case DRM_FORMAT_XRGB8888:
		return *(const uint32_t *)p | 0xff000000u;
	case DRM_FORMAT_ARGB8888:
		return *(const uint32_t *)p;
	case DRM_FORMAT_XBGR8888:
		return pack_argb(255, c[0], c[1], c[2]);
	case DRM_FORMAT_ABGR8888:
		return pack_argb(c[3], c[0], c[1], c[2]);
	case DRM_FORMAT_RGB888:
		return pack_argb(255, c[2], c[1], c[0]);
	case DRM_FORMAT_BGR888:
		return pack_argb(255, c[0], c[1], c[2]);
	case DRM_FORMAT_XRGB2101010:
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_BGR565:
	case DRM_FORMAT_XRGB1555:
	case DRM_FORMAT_ARGB1555:
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		/* What the CRC and an 8-bit writeback see of it */
		return px16_to8888(read_pixel16(p, format));
	}
	igt_assert_f(0, "unknown format %08x\n", format);
	return 0;
}

void primepair_fb_fill_random(struct primepair_fb *fb, uint32_t seed)
{
	uint32_t *p = fb->map;
	uint64_t i;

	for (i = 0; i < fb->size / 4; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = seed ^ (seed >> 16) * 0x9e3779b9u;
	}
}

/* The least non-negative half float that vdisplay reads as @c */
static uint16_t half_of_8(uint32_t c)
{
	uint16_t lo = 0, hi = 0x3c00;	/* 1.0 */

	/* Half floats from 0 to 1.0 grow with their bit patterns. */
	while (lo < hi) {
		uint16_t mid = lo + (hi - lo) / 2;

		if (to8(half_to_16(mid)) < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v & 255;
	p[1] = v >> 8 & 255;
}

/* One pixel of @format at @p, as near to @argb as the format gets */
static void write_pixel(uint8_t *p, uint32_t format, uint32_t argb)
{
	uint32_t a = argb >> 24, r = argb >> 16 & 255, g = argb >> 8 & 255,
		 b = argb & 255, v;
	uint16_t ch[4];

	switch (format) {
	case DRM_FORMAT_RGB565:
		v = (r >> 3) << 11 | (g >> 2) << 5 | b >> 3;
		put16(p, v);
		return;
	case DRM_FORMAT_BGR565:
		v = (b >> 3) << 11 | (g >> 2) << 5 | r >> 3;
		put16(p, v);
		return;
	case DRM_FORMAT_XRGB1555:
	case DRM_FORMAT_ARGB1555:
		v = (a >> 7) << 15 | (r >> 3) << 10 | (g >> 3) << 5 | b >> 3;
		put16(p, v);
		return;
	case DRM_FORMAT_RGB888:
		p[0] = b;
		p[1] = g;
		p[2] = r;
		return;
	case DRM_FORMAT_BGR888:
		p[0] = r;
		p[1] = g;
		p[2] = b;
		return;
	case DRM_FORMAT_XBGR8888:
	case DRM_FORMAT_ABGR8888:
		v = (argb & 0xff00ff00u) | b << 16 | r;
		memcpy(p, &v, 4);
		return;
	case DRM_FORMAT_XRGB2101010:
		/* the nearest 10-bit value */
		v = (r * 1023 + 127) / 255 << 20 | (g * 1023 + 127) / 255 << 10 |
			(b * 1023 + 127) / 255;
		memcpy(p, &v, 4);
		return;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
		ch[0] = b * 0x101;
		ch[1] = g * 0x101;
		ch[2] = r * 0x101;
		ch[3] = a * 0x101;
		memcpy(p, ch, 8);
		return;
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		ch[0] = half_of_8(b);
		ch[1] = half_of_8(g);
		ch[2] = half_of_8(r);
		ch[3] = half_of_8(a);
		memcpy(p, ch, 8);
		return;
	}
	memcpy(p, &argb, 4);
}

void primepair_fb_fill_color(struct primepair_fb *fb, uint32_t argb)
{
	uint8_t px[8];
	uint32_t x, y;

	write_pixel(px, fb->format, argb);
	for (y = 0; y < fb->height; y++) {
		uint8_t *row = (uint8_t *)fb->map + (size_t)y * fb->pitch;

		for (x = 0; x < fb->width; x++)
			memcpy(row + (size_t)x * fb->cpp, px, fb->cpp);
	}
}


/* @v / 0xffff, rounded */
static uint32_t div65535(uint64_t v)
{
	return (v + 0x7fff) / 0xffff;
}

/*
 * @src over @dst at 16 bits per channel, @pa the plane alpha (its top 8
 * bits times 0x101), each channel rounded once; @dst comes from the
 * 8-bit reference image, which is exact below a single blended layer.
 */
static uint32_t primepair_blend(uint32_t dst, uint64_t src, uint32_t pa,
				uint32_t mode)
{
	uint64_t d = from8888(dst);
	uint32_t a = mode == PRIMEPAIR_BLEND_NONE ? 0xffff : src >> 48;
	uint32_t cov = div65535((uint64_t)a * pa);
	uint32_t sa = mode == PRIMEPAIR_BLEND_COVERAGE ? cov : pa;
	uint32_t out = 0xff000000u;
	int sh;

	for (sh = 0; sh < 48; sh += 16) {
		uint64_t c = (src >> sh & 0xffff) * sa +
			     (d >> sh & 0xffff) * (0xffff - cov);
		uint32_t v = div65535(c);

		out |= to8(v > 0xffff ? 0xffff : v) << sh / 2;
	}
	return out;
}

void primepair_ref_blend(uint32_t *img, uint32_t iw, uint32_t ih,
		  const struct primepair_fb *fb, int32_t x, int32_t y,
		  uint32_t sx, uint32_t sy, uint32_t w, uint32_t h,
		  uint16_t alpha, uint32_t blend)
{
	int32_t i, j;

	for (j = 0; j < (int32_t)h; j++) {
		int32_t dy = y + j;

		if (dy < 0 || dy >= (int32_t)ih)
			continue;
		for (i = 0; i < (int32_t)w; i++) {
			int32_t dx = x + i;
			const uint8_t *p;

			if (dx < 0 || dx >= (int32_t)iw)
				continue;
			p = (const uint8_t *)fb->map +
				(size_t)(sy + j) * fb->pitch +
				(size_t)(sx + i) * fb->cpp;
			img[dy * iw + dx] = primepair_blend(img[dy * iw + dx],
						     read_pixel16(p, fb->format),
						     (alpha >> 8) * 0x101, blend);
		}
	}
}

unsigned int primepair_compare(const struct primepair_fb *wb, const uint32_t *img,
			unsigned int tolerance)
{
	unsigned int bad = 0, x, y;
	int sh;

	for (y = 0; y < wb->height; y++) {
		const uint8_t *row = (const uint8_t *)wb->map +
			(size_t)y * wb->pitch;

		for (x = 0; x < wb->width; x++) {
			uint32_t got = primepair_read_pixel(row + (size_t)x * wb->cpp,
							    wb->format);
			uint32_t want = img[y * wb->width + x];
			bool differs = false;

			for (sh = 0; sh < 24; sh += 8) {
				int d = (int)(got >> sh & 255) -
					(int)(want >> sh & 255);

				if (d > (int)tolerance || -d > (int)tolerance)
					differs = true;
			}
			if (differs && bad++ < 5)
				igt_info("pixel (%u,%u): got %08x want %08x\n",
					 x, y, got, want);
		}
	}
	return bad;
}

uint32_t primepair_wait_crtc_on(int fd, uint32_t crtc_id, int ms)
{
	for (; ms > 0; ms -= 50) {
		drmModeCrtcPtr crtc = drmModeGetCrtc(fd, crtc_id);
		uint32_t w = crtc && crtc->mode_valid ? crtc->mode.hdisplay : 0;

		drmModeFreeCrtc(crtc);
		if (w)
			return w;
		usleep(50000);
	}
	return 0;
}

uint32_t primepair_crc_still(struct primepair_kms *kms,
			     struct primepair_output *o, unsigned int max_frames)
{
	struct primepair_crc crc;
	uint32_t a, b;
	uint64_t frame;
	unsigned int n;

	primepair_crc_start(kms, o, &crc);
	primepair_crc_get(&crc, &frame, &a);
	b = ~a;
	for (n = 0; n < max_frames; n++) {
		primepair_crc_get(&crc, &frame, &b);
		if (a == b)
			break;
		a = b;
	}
	primepair_crc_stop(&crc);
	igt_assert_f(a == b, "the picture did not settle in %u frames\n",
		     max_frames);
	return a;
}

void primepair_capture(struct primepair_kms *kms, struct primepair_output *o,
		       pid_t pid, struct pp_capture *cap)
{
	struct stat st;
	uint32_t screen;
	int ret;

	igt_assert_eq(fstat(kms->fd, &st), 0);
	memset(cap, 0, sizeof(*cap));
	cap->crtc_id = o->crtc_id;
	ret = pp_capture_process(pid, st.st_rdev, PP_CAPTURE_KEEP_STOPPED, cap);
	igt_assert_f(ret == 0, "no picture from writeback: %s\n", cap->error);
	/* paused, the program leaves the screen still */
	screen = primepair_crc_still(kms, o, 30);
	kill(pid, SIGCONT);
	/* the writeback connector was routed off again after the frame */
	igt_assert_eq_u64(primepair_prop_value(kms->fd, o->wb_connector_id,
					       DRM_MODE_OBJECT_CONNECTOR,
					       "CRTC_ID"), 0);
	igt_info("picture of pid %d from writeback: %ux%u, CRC-32 0x%08x\n",
		 (int)pid, cap->width, cap->height, cap->crc);
	igt_assert_eq_u32(cap->crtc_id, o->crtc_id);
	/* vdisplay's CRC is the CRC-32 register, without the final inversion */
	igt_assert_f(screen == ~cap->crc,
		     "screen CRC 0x%08x, picture 0x%08x (inverted)\n", screen,
		     ~cap->crc);
}

unsigned int primepair_crc_count_new(struct primepair_kms *kms,
				     struct primepair_output *o, uint32_t old,
				     unsigned int want, unsigned int max_frames)
{
	struct primepair_crc crc;
	uint32_t seen[16];
	unsigned int n, i, distinct = 0;
	uint64_t frame;

	igt_assert_lte(want, ARRAY_SIZE(seen));
	primepair_crc_start(kms, o, &crc);
	for (n = 0; n < max_frames && distinct < want; n++) {
		uint32_t v;

		primepair_crc_get(&crc, &frame, &v);
		if (v == old)
			continue;
		for (i = 0; i < distinct && seen[i] != v; i++)
			;
		if (i == distinct)
			seen[distinct++] = v;
	}
	primepair_crc_stop(&crc);
	igt_info("%u new pictures in %u frames\n", distinct, n);
	return distinct;
}

void primepair_fb_create_shared(struct primepair_kms *kms,
				const struct primepair_output *o, int render,
				struct primepair_fb *fb, int *dmabuf,
				uint32_t *imported)
{
	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, fb);
	igt_assert_eq(drmPrimeHandleToFD(kms->fd, fb->handle,
					 DRM_CLOEXEC | DRM_RDWR, dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(render, *dmabuf, imported), 0);
}

void primepair_kms_assert_unplugged(struct primepair_kms *kms,
				    const struct primepair_fb *fb)
{
	igt_assert(!drmModeGetResources(kms->fd));
	igt_assert_eq(errno, ENODEV);
	igt_assert_eq(drmModePageFlip(kms->fd, kms->outputs[0].crtc_id,
				      fb->fb_id, 0, NULL), -ENODEV);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * bench-compose - guest CPU time a KMS driver's composer spends per frame
 *
 * Not a test: run it in the guest and read the figures.  It drives the
 * first CRTC of a virtual KMS device at 1920x1080 in these scenes:
 *
 *   primary    one XRGB8888 plane covering the screen
 *   planes     the same, an ARGB8888 overlay of 960x540 at half alpha and
 *              a 64x64 ARGB8888 cursor
 *   yuv        the primary plane and an NV12 overlay of 960x540 on it
 *   rotated    the primary plane turned by 180 degrees, and by 90 (from a
 *              1080x1920 framebuffer), where the plane has a rotation
 *              property
 *   writeback  the primary plane, and a writeback job every frame
 *   damage     the primary plane committed every frame after new contents
 *              in 64 of its rows, which FB_DAMAGE_CLIPS name; and the same
 *              commits without the clips, for which the whole frame is
 *              composed again
 *   colorops   the primary plane through its colour pipeline, where the
 *              kernel has plane colour pipelines (6.19 on): an sRGB
 *              decode, a 3x4 matrix and an sRGB encode; and the same
 *              with a 17-point 3D LUT before the encode
 *
 * The mode is 1920x1080 at HZ frames per second (15 by default): at 60 a
 * composer slower than 16.7 ms under emulation would drop frames, and its
 * time per frame would read as the frame time.  A figure within a tenth
 * of the frame time is marked as such: run again at a lower HZ (vdisplay
 * takes 10 and more; vkms any).  vdisplay and vkms compose only when
 * someone looks: the CRC source is on or a writeback job waits.  The
 * writeback scene commits N writeback jobs; the others turn the CRC
 * source on and read N CRCs, the damage scenes one after each commit.
 * The guest's CPU time (/proc/stat, every CPU, not idle) over those
 * frames, less that of the same span without composition (CRC source
 * off; the same commits without writeback or CRC), divided by N, is the
 * composer's time per frame.
 *
 *   bench-compose [--device SPEC] [--frames N] [--hz HZ]
 *
 * SPEC names the KMS device as for the other tools ("vdisplay", "vkms",
 * "/dev/dri/card1"); by default the first vdisplay.  No Debian kernel
 * ships vkms: for the comparison in Documentation/benchmarks.rst it was
 * built from Debian's linux-source-6.12 outside this repository.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libprimepair.h"
#include "bench.h"

#define WIDTH	1920
#define HEIGHT	1080

/* enum drm_colorop_type, enum drm_colorop_curve_1d_type */
#define COLOROP_1D_CURVE	0
#define COLOROP_CTM_3X4		2
#define COLOROP_3D_LUT		4
#define CURVE_SRGB_EOTF		0
#define CURVE_SRGB_INV_EOTF	1

static const char *device;
static unsigned int frames = 60;
static unsigned int hz = 15;
/* The primary plane's rotation in the scenes that follow, when not 0 */
static uint64_t primary_rotation;
/* Scenes with the primary scaled up from k.small (two thirds the size) */
static bool primary_scaled;

/* Busy CPU time of the whole guest so far, in ns */
static int64_t busy_ns(void)
{
	unsigned long long v[8] = {};
	FILE *f = fopen("/proc/stat", "r");
	int64_t busy;

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			 &v[7]) != 8)
		die("cannot read /proc/stat");
	fclose(f);
	/* user nice system [idle iowait] irq softirq steal */
	busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	return busy * (1000000000 / sysconf(_SC_CLK_TCK));
}

struct kms {
	int fd;
	unsigned int crtc_index;
	uint32_t crtc, conn, wb_conn;
	uint32_t primary, overlay, cursor;
	uint32_t mode_blob;
	struct pp_fb fb[2], over, curs, wb, nv12, tall, small;
};

static void add(struct kms *k, drmModeAtomicReqPtr req, uint32_t id,
		uint32_t type, const char *name, uint64_t value)
{
	check(pp_atomic_add(k->fd, req, id, type, name, value), name);
}

static void add_plane(struct kms *k, drmModeAtomicReqPtr req, uint32_t plane,
		      const struct pp_fb *fb, uint32_t x, uint32_t y)
{
	uint32_t t = DRM_MODE_OBJECT_PLANE;

	add(k, req, plane, t, "FB_ID", fb ? fb->fb_id : 0);
	add(k, req, plane, t, "CRTC_ID", fb ? k->crtc : 0);
	if (!fb)
		return;
	add(k, req, plane, t, "SRC_X", 0);
	add(k, req, plane, t, "SRC_Y", 0);
	add(k, req, plane, t, "SRC_W", (uint64_t)fb->width << 16);
	add(k, req, plane, t, "SRC_H", (uint64_t)fb->height << 16);
	add(k, req, plane, t, "CRTC_X", x);
	add(k, req, plane, t, "CRTC_Y", y);
	add(k, req, plane, t, "CRTC_W", fb->width);
	add(k, req, plane, t, "CRTC_H", fb->height);
}

static void find_planes(struct kms *k)
{
	drmModePlaneRes *res = drmModeGetPlaneResources(k->fd);

	if (!res)
		die("plane resources: %s", strerror(errno));
	for (uint32_t i = 0; i < res->count_planes; i++) {
		drmModePlane *p = drmModeGetPlane(k->fd, res->planes[i]);
		uint64_t type;

		if (!p)
			continue;
		if ((p->possible_crtcs & (1u << k->crtc_index)) &&
		    !pp_prop_value(k->fd, p->plane_id, DRM_MODE_OBJECT_PLANE,
				   "type", &type)) {
			if (type == DRM_PLANE_TYPE_PRIMARY && !k->primary)
				k->primary = p->plane_id;
			else if (type == DRM_PLANE_TYPE_OVERLAY && !k->overlay)
				k->overlay = p->plane_id;
			else if (type == DRM_PLANE_TYPE_CURSOR && !k->cursor)
				k->cursor = p->plane_id;
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(res);
	if (!k->primary)
		die("no primary plane on the first CRTC");
}

static void fill(struct kms *k, struct pp_fb *fb, uint32_t alpha, uint32_t seed)
{
	check(pp_fb_map(k->fd, fb), "mmap");
	for (uint32_t y = 0; y < fb->height; y++) {
		uint32_t *row = (uint32_t *)((char *)fb->map + (size_t)y * fb->pitch);

		for (uint32_t x = 0; x < fb->width; x++)
			row[x] = alpha << 24 | ((x * seed) & 0xff) << 16 |
				 ((y + seed) & 0xff) << 8 | ((x ^ y) & 0xff);
	}
}

static void new_fb(struct kms *k, struct pp_fb *fb, uint32_t w, uint32_t h,
		   uint32_t format, uint32_t alpha, uint32_t seed)
{
	check(pp_fb_create(k->fd, w, h, format, fb), "dumb buffer");
	fill(k, fb, alpha, seed);
	check(pp_fb_add(k->fd, fb), "AddFB2");
}

/*
 * An NV12 framebuffer of @w x @h (both even) in one dumb buffer: the luma
 * plane, then the interleaved chroma at the same pitch.  A device that
 * takes no NV12 framebuffers (6.12.118's vkms refuses them at AddFB2)
 * leaves @fb without an fb_id, and the scene is not run.
 */
static void new_nv12(struct kms *k, struct pp_fb *fb, uint32_t w, uint32_t h)
{
	uint32_t handles[4], pitches[4], offsets[4] = { 0 };

	memset(fb, 0, sizeof(*fb));
	if (drmModeCreateDumbBuffer(k->fd, w, h * 3 / 2, 8, 0, &fb->handle,
				    &fb->pitch, &fb->size))
		die("dumb buffer: %s", strerror(errno));
	fb->width = w;
	fb->height = h;
	fb->format = DRM_FORMAT_NV12;
	fb->cpp = 1;
	check(pp_fb_map(k->fd, fb), "mmap");
	for (uint64_t i = 0; i < fb->size; i++)
		((uint8_t *)fb->map)[i] = (uint8_t)(i * 7 + i / fb->pitch);
	handles[0] = fb->handle;
	handles[1] = fb->handle;
	pitches[0] = fb->pitch;
	pitches[1] = fb->pitch;
	offsets[1] = fb->pitch * h;
	if (drmModeAddFB2(k->fd, w, h, DRM_FORMAT_NV12, handles, pitches,
			  offsets, &fb->fb_id, 0)) {
		if (errno != EINVAL)
			die("AddFB2 NV12: %s", strerror(errno));
		fb->fb_id = 0;
	}
}

static void kms_open(struct kms *k)
{
	drmModeRes *res;
	drmModeModeInfo *mode = NULL;

	k->fd = pp_open_device(device, "vdisplay", false);
	if (k->fd < 0)
		die("no device '%s': %s", device ? device : "vdisplay",
		    strerror(errno));
	check(drmSetClientCap(k->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1),
	      "universal planes");
	check(drmSetClientCap(k->fd, DRM_CLIENT_CAP_ATOMIC, 1), "atomic");
	check(drmSetClientCap(k->fd, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1),
	      "writeback connectors");
	res = drmModeGetResources(k->fd);
	if (!res || !res->count_crtcs)
		die("no CRTC");
	k->crtc_index = 0;
	k->crtc = res->crtcs[0];
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(k->fd,
							  res->connectors[i]);

		if (!c)
			continue;
		if (c->connector_type == DRM_MODE_CONNECTOR_WRITEBACK) {
			if (!k->wb_conn)
				k->wb_conn = c->connector_id;
		} else if (!k->conn && c->connection == DRM_MODE_CONNECTED) {
			for (int m = 0; m < c->count_modes && !mode; m++)
				if (c->modes[m].hdisplay == WIDTH &&
				    c->modes[m].vdisplay == HEIGHT) {
					mode = malloc(sizeof(*mode));
					if (!mode)
						die("out of memory");
					*mode = c->modes[m];
					k->conn = c->connector_id;
					/* the same timings, slower clock */
					mode->clock = (uint32_t)((uint64_t)mode->htotal *
						mode->vtotal * hz / 1000);
					mode->vrefresh = hz;
					mode->type = DRM_MODE_TYPE_USERDEF;
					snprintf(mode->name, sizeof(mode->name),
						 "%ux%u@%u", WIDTH, HEIGHT, hz);
				}
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	if (!mode)
		die("no connected connector with a %ux%u mode", WIDTH, HEIGHT);
	check(drmModeCreatePropertyBlob(k->fd, mode, sizeof(*mode),
					&k->mode_blob), "mode blob");
	free(mode);
	find_planes(k);

	new_fb(k, &k->fb[0], WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0xff, 3);
	new_fb(k, &k->fb[1], WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0xff, 5);
	if (k->overlay) {
		new_fb(k, &k->over, WIDTH / 2, HEIGHT / 2, DRM_FORMAT_ARGB8888,
		       0x80, 7);
		new_nv12(k, &k->nv12, WIDTH / 2, HEIGHT / 2);
	}
	if (k->cursor)
		new_fb(k, &k->curs, 64, 64, DRM_FORMAT_ARGB8888, 0xc0, 11);
	if (k->wb_conn)
		new_fb(k, &k->wb, WIDTH, HEIGHT, DRM_FORMAT_XRGB8888, 0xff, 1);
}

/* Show @fb on the primary plane, @over on the overlay, and the cursor */
static void commit_scene(struct kms *k, const struct pp_fb *fb,
			 const struct pp_fb *over, bool cursor)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	if (!req)
		die("out of memory");
	add(k, req, k->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", k->crtc);
	add(k, req, k->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", k->mode_blob);
	add(k, req, k->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", 1);
	if (primary_scaled) {
		add_plane(k, req, k->primary, &k->small, 0, 0);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "CRTC_W", WIDTH);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "CRTC_H", HEIGHT);
	} else if (primary_rotation & DRM_MODE_ROTATE_90) {
		/* The tall framebuffer, turned to cover the screen */
		add_plane(k, req, k->primary, &k->tall, 0, 0);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "CRTC_W", WIDTH);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "CRTC_H", HEIGHT);
	} else {
		add_plane(k, req, k->primary, fb, 0, 0);
	}
	if (primary_rotation)
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "rotation",
		    primary_rotation);
	if (k->overlay)
		add_plane(k, req, k->overlay, over, WIDTH / 4, HEIGHT / 4);
	if (k->cursor)
		add_plane(k, req, k->cursor, cursor ? &k->curs : NULL, 100, 100);
	check(drmModeAtomicCommit(k->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET,
				  NULL), "modeset");
	drmModeAtomicFree(req);
}

/* Turn the CRC source on; its data file, past the first few frames */
static FILE *crc_open(struct kms *k)
{
	char path[256], line[128];
	FILE *data;
	int fd;

	check(pp_dri_debugfs_path(k->fd, "crtc-0/crc/control", path,
				  sizeof(path)), "debugfs path");
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, "auto", 4) != 4)
		die("%s: %s", path, strerror(errno));
	close(fd);
	check(pp_dri_debugfs_path(k->fd, "crtc-0/crc/data", path,
				  sizeof(path)), "debugfs path");
	data = fopen(path, "r");
	if (!data)
		die("%s: %s", path, strerror(errno));
	/* The first few frames start the pipeline up */
	for (int i = 0; i < 5; i++)
		if (!fgets(line, sizeof(line), data))
			die("reading CRCs: %s", strerror(errno));
	return data;
}

/*
 * Busy ns while @frames CRCs are read; *@composed counts the frames
 * composed.  A composer slower than the frame time reports the frames it
 * missed all at once when it is done (a read returns one CRC): a CRC that
 * comes within 2 ms of the one before is such a repeat.
 */
static double crc_busy(struct kms *k, double *seconds, unsigned int *composed)
{
	FILE *data = crc_open(k);
	char line[128];
	int64_t t0, b0, last;

	*composed = 0;
	t0 = pp_now_ns();
	b0 = busy_ns();
	last = t0;
	for (unsigned int i = 0; i < frames; i++) {
		int64_t now;

		if (!fgets(line, sizeof(line), data))
			die("reading CRCs: %s", strerror(errno));
		now = pp_now_ns();
		if (now - last > 2000000)
			(*composed)++;
		last = now;
	}
	*seconds = (pp_now_ns() - t0) / 1e9;
	b0 = busy_ns() - b0;
	fclose(data);
	if (!*composed)
		*composed = 1;
	return (double)b0;
}

/* Busy ns per second of the guest with nothing composed */
static double idle_busy_per_second(double seconds)
{
	int64_t t0 = pp_now_ns(), b0 = busy_ns();

	usleep((useconds_t)(seconds * 1e6));
	return (busy_ns() - b0) / ((pp_now_ns() - t0) / 1e9);
}

/*
 * Busy ns per composed frame of a scene: per frame if the composer kept
 * up, and per composition if it did not; *@composed says which.
 */
static double scene_crc(struct kms *k, const struct pp_fb *over, bool cursor,
			unsigned int *composed)
{
	double secs, busy, idle;

	commit_scene(k, &k->fb[0], over, cursor);
	busy = crc_busy(k, &secs, composed);
	/* a composition slower than the frames may still be running */
	if (*composed < frames - 1)
		sleep(1);
	idle = idle_busy_per_second(secs);
	/* the first frame read may have been composed before the count */
	if (*composed >= frames - 1)
		*composed = frames;
	return (busy - idle * secs) / *composed;
}

/* A scene's time; @composed below @frames if the composer fell behind */
static void print_scene(const char *what, double ns, unsigned int composed)
{
	bool saturated = ns > 0.9e9 / hz;

	printf("  %-18s %7.2f ms", what, ns / 1e6);
	if (composed < frames)
		printf("  (a composition; %u of %u frames composed)",
		       composed, frames);
	else if (saturated)
		printf("  (near the frame time: the composer is the limit)");
	putchar('\n');
}

static void show_crc_scene(struct kms *k, const char *what,
			   const struct pp_fb *over, bool cursor)
{
	unsigned int composed;
	double ns = scene_crc(k, over, cursor, &composed);

	print_scene(what, ns, composed);
}

/*
 * Busy ns per frame of @frames blocking commits, with writeback or not;
 * a negative errno if the driver refuses the commit.
 */
static double commits_busy_per_frame(struct kms *k, bool writeback)
{
	int64_t b0 = busy_ns();

	for (unsigned int i = 0; i < frames; i++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		int fence = -1;

		if (!req)
			die("out of memory");
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "FB_ID",
		    k->fb[i & 1].fb_id);
		if (writeback) {
			add(k, req, k->wb_conn, DRM_MODE_OBJECT_CONNECTOR,
			    "CRTC_ID", k->crtc);
			add(k, req, k->wb_conn, DRM_MODE_OBJECT_CONNECTOR,
			    "WRITEBACK_FB_ID", k->wb.fb_id);
			add(k, req, k->wb_conn, DRM_MODE_OBJECT_CONNECTOR,
			    "WRITEBACK_OUT_FENCE_PTR",
			    (uint64_t)(uintptr_t)&fence);
		}
		/* the first writeback job also adds the connector */
		if (drmModeAtomicCommit(k->fd, req,
					DRM_MODE_ATOMIC_ALLOW_MODESET, NULL)) {
			int err = -errno;

			drmModeAtomicFree(req);
			return err;
		}
		drmModeAtomicFree(req);
		if (writeback) {
			check(pp_sync_file_wait(fence, 1000), "writeback fence");
			close(fence);
		}
	}
	return (double)(busy_ns() - b0) / frames;
}

static double scene_writeback(struct kms *k)
{
	double with, without;

	commit_scene(k, &k->fb[0], NULL, false);
	without = commits_busy_per_frame(k, false);
	with = commits_busy_per_frame(k, true);
	return without < 0 ? without : with < 0 ? with : with - without;
}

/* New contents in rows @y1 to @y2 of @fb */
static void scribble(struct pp_fb *fb, uint32_t y1, uint32_t y2, uint32_t seed)
{
	for (uint32_t y = y1; y < y2; y++) {
		uint32_t *row = (uint32_t *)((char *)fb->map + (size_t)y * fb->pitch);

		for (uint32_t x = 0; x < fb->width; x++)
			row[x] = 0xff000000u | (x * seed) << 8 | (y ^ seed);
	}
}

/*
 * Wait for the next CRC on @fd (opened non-blocking), then read every one
 * that is there, so that none overflows the core's queue; returns the
 * frame number of the last.
 */
static uint64_t crc_drain(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t frame = 0;
	char line[64];
	ssize_t n;

	if (poll(&pfd, 1, 5000) != 1)
		die("no CRC within 5 s");
	while ((n = read(fd, line, sizeof(line) - 1)) > 0) {
		line[n] = 0;
		frame = strtoull(line, NULL, 16);
	}
	if (n < 0 && errno != EAGAIN)
		die("reading CRCs: %s", strerror(errno));
	return frame;
}

/* Wait for the next vblank of the first CRTC */
static void wait_vblank(struct kms *k)
{
	drmVBlank vbl = { .request = { .type = DRM_VBLANK_RELATIVE,
				       .sequence = 1 } };

	check(drmWaitVBlank(k->fd, &vbl), "wait for vblank");
}

/*
 * Busy ns per frame of @frames frames, each with a nonblocking commit of
 * the primary's framebuffer after new contents in @band of it, named by
 * FB_DAMAGE_CLIPS @blob (0: none).  With a CRC file @crc (-1: none), each
 * commit follows the CRC of the frame before, so that the next frame is
 * composed after it; *@vblanks counts the frames the CRCs cover.
 * Without, the commits follow vblanks.
 */
static double damage_busy_per_frame(struct kms *k,
				    const struct drm_mode_rect *band,
				    uint32_t blob, int crc, uint64_t *vblanks)
{
	int64_t b0 = busy_ns();
	uint64_t first = 0, last = 0;

	for (unsigned int i = 0; i < frames; i++) {
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();
		int ret;

		if (!req)
			die("out of memory");
		if (crc >= 0) {
			last = crc_drain(crc);
			if (!i)
				first = last;
		} else {
			wait_vblank(k);
		}
		scribble(&k->fb[0], band->y1, band->y2, i + 1);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "FB_ID",
		    k->fb[0].fb_id);
		add(k, req, k->primary, DRM_MODE_OBJECT_PLANE,
		    "FB_DAMAGE_CLIPS", blob);
		/* The last commit may still be waiting for its vblank. */
		do {
			ret = drmModeAtomicCommit(k->fd, req,
						  DRM_MODE_ATOMIC_NONBLOCK, NULL);
		} while (ret && errno == EBUSY && !usleep(1000));
		check(ret, "commit");
		drmModeAtomicFree(req);
	}
	*vblanks = last - first;
	return (double)(busy_ns() - b0) / frames;
}

/*
 * The composer's time per frame when every frame follows a commit with
 * new contents in 64 rows of the primary plane, which FB_DAMAGE_CLIPS
 * name if @clips: the commits with the CRC source on less the same
 * commits with it off.  A frame with no commit since the last is
 * composed in full: *@per_commit tells how many frames a commit took.
 */
static double scene_damage(struct kms *k, bool clips, double *per_commit)
{
	const struct drm_mode_rect band = { 0, 508, WIDTH, 572 };
	double with, without;
	uint64_t vblanks;
	uint32_t blob = 0;
	FILE *crc;

	commit_scene(k, &k->fb[0], NULL, false);
	if (clips)
		check(drmModeCreatePropertyBlob(k->fd, &band, sizeof(band),
						&blob), "damage blob");
	without = damage_busy_per_frame(k, &band, blob, -1, &vblanks);
	crc = crc_open(k);
	if (fcntl(fileno(crc), F_SETFL, O_NONBLOCK))
		die("O_NONBLOCK: %s", strerror(errno));
	with = damage_busy_per_frame(k, &band, blob, fileno(crc), &vblanks);
	*per_commit = (double)vblanks / (frames - 1);
	fclose(crc);
	if (blob)
		drmModeDestroyPropertyBlob(k->fd, blob);
	return with - without;
}

/*
 * The primary plane's colour pipeline, for the colorops scenes: its
 * COLOR_PIPELINE value and, in pipeline order, a 1D curve, a 3x4 matrix,
 * a 3D LUT and a 1D curve after it.  False if it has none such.
 */
struct pipeline {
	uint32_t id, decode, matrix, lut3d, encode;
	uint64_t lut3d_size;
};

static uint64_t op_prop(struct kms *k, uint32_t op, const char *name)
{
	uint64_t v;

	check(pp_prop_value(k->fd, op, DRM_MODE_OBJECT_COLOROP, name, &v), name);
	return v;
}

static bool find_pipeline(struct kms *k, struct pipeline *p)
{
	uint32_t prop, *next[] = { &p->decode, &p->matrix, &p->lut3d, &p->encode };
	const uint64_t types[] = {
		COLOROP_1D_CURVE, COLOROP_CTM_3X4, COLOROP_3D_LUT, COLOROP_1D_CURVE,
	};
	drmModePropertyPtr info;
	unsigned int want = 0;

	memset(p, 0, sizeof(*p));
	if (drmSetClientCap(k->fd, DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE, 1))
		return false;
	prop = pp_prop_id(k->fd, k->primary, DRM_MODE_OBJECT_PLANE,
			  "COLOR_PIPELINE");
	info = prop ? drmModeGetProperty(k->fd, prop) : NULL;
	for (int i = 0; info && i < info->count_enums && !p->id; i++)
		p->id = info->enums[i].value;
	drmModeFreeProperty(info);
	for (uint32_t op = p->id; op && want < 4; op = op_prop(k, op, "NEXT"))
		if (op_prop(k, op, "TYPE") == types[want])
			*next[want++] = op;
	if (want < 4)
		return false;
	p->lut3d_size = op_prop(k, p->lut3d, "SIZE");
	return true;
}

/* A 3D LUT of @n points a side that warms the picture and lifts shadows */
static uint32_t lut3d_blob(struct kms *k, unsigned int n)
{
	struct { uint32_t r, g, b, pad; } *lut = calloc((size_t)n * n * n,
							  sizeof(*lut));
	uint32_t blob;
	size_t i = 0;

	if (!lut)
		die("out of memory");
	for (unsigned int b = 0; b < n; b++)
		for (unsigned int g = 0; g < n; g++)
			for (unsigned int r = 0; r < n; r++, i++) {
				double x[3] = { r / (n - 1.0), g / (n - 1.0),
						b / (n - 1.0) };

				lut[i].r = (uint32_t)((0.1 + 0.9 * x[0]) * 4294967295.0);
				lut[i].g = (uint32_t)((0.05 + 0.9 * x[1]) * 4294967295.0);
				lut[i].b = (uint32_t)(0.85 * x[2] * x[2] * 4294967295.0);
			}
	check(drmModeCreatePropertyBlob(k->fd, lut, (size_t)n * n * n *
					sizeof(*lut), &blob), "3D LUT blob");
	free(lut);
	return blob;
}

/* The primary plane through @p, with its 3D LUT if @lut3d; off if !@on */
static void set_pipeline(struct kms *k, const struct pipeline *p, bool on,
			 bool lut3d)
{
	/* BT.709 to BT.2020 primaries */
	static const double to2020[12] = {
		0.6274, 0.3293, 0.0433, 0,  0.0691, 0.9195, 0.0114, 0,
		0.0164, 0.0880, 0.8956, 0,
	};
	uint32_t t = DRM_MODE_OBJECT_COLOROP, ctm = 0, lut = 0;
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	uint64_t m[12];

	if (!req)
		die("out of memory");
	if (on) {
		for (int i = 0; i < 12; i++)
			m[i] = pp_s31_32(to2020[i]);
		check(drmModeCreatePropertyBlob(k->fd, m, sizeof(m), &ctm),
		      "matrix blob");
		if (lut3d)
			lut = lut3d_blob(k, (unsigned int)p->lut3d_size);
		add(k, req, p->decode, t, "CURVE_1D_TYPE", CURVE_SRGB_EOTF);
		add(k, req, p->encode, t, "CURVE_1D_TYPE", CURVE_SRGB_INV_EOTF);
	}
	add(k, req, k->primary, DRM_MODE_OBJECT_PLANE, "COLOR_PIPELINE",
	    on ? p->id : 0);
	add(k, req, p->decode, t, "BYPASS", !on);
	add(k, req, p->matrix, t, "BYPASS", !on);
	add(k, req, p->matrix, t, "DATA", ctm);
	add(k, req, p->lut3d, t, "BYPASS", !lut);
	add(k, req, p->lut3d, t, "DATA", lut);
	add(k, req, p->encode, t, "BYPASS", !on);
	check(drmModeAtomicCommit(k->fd, req, 0, NULL), "colour pipeline");
	drmModeAtomicFree(req);
	if (ctm)
		drmModeDestroyPropertyBlob(k->fd, ctm);
	if (lut)
		drmModeDestroyPropertyBlob(k->fd, lut);
}

/* The primary through the colour pipeline @p, with its 3D LUT if @lut3d */
static void show_pipeline_scene(struct kms *k, const char *what,
				const struct pipeline *p, bool lut3d)
{
	commit_scene(k, &k->fb[0], NULL, false);
	set_pipeline(k, p, true, lut3d);
	show_crc_scene(k, what, NULL, false);
	set_pipeline(k, p, false, false);
}

/* The primary plane alone, turned by @rotation */
static void show_rotated_scene(struct kms *k, const char *what,
			       uint64_t rotation)
{
	primary_rotation = rotation;
	show_crc_scene(k, what, NULL, false);
	primary_rotation = DRM_MODE_ROTATE_0;
	commit_scene(k, &k->fb[0], NULL, false);
	primary_rotation = 0;
}

/* The primary plane alone, scaled up by 3/2 to cover the screen */
static void show_scaled_scene(struct kms *k, const char *what)
{
	primary_scaled = true;
	show_crc_scene(k, what, NULL, false);
	primary_scaled = false;
	commit_scene(k, &k->fb[0], NULL, false);
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "frames", required_argument, NULL, 'f' },
		{ "hz", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			device = optarg;
			break;
		case 'f':
			frames = strtoul(optarg, NULL, 0);
			if (frames < 10 || frames > 10000)
				die("--frames takes 10 to 10000");
			break;
		case 'z':
			hz = strtoul(optarg, NULL, 0);
			if (hz < 1 || hz > 120)
				die("--hz takes 1 to 120");
			break;
		case 'h':
			puts("usage: bench-compose [--device SPEC] [--frames N] [--hz HZ]");
			exit(0);
		default:
			die("usage: bench-compose [--device SPEC] [--frames N] [--hz HZ]");
		}
	}
}

int main(int argc, char **argv)
{
	struct kms k = {};
	struct pipeline pipe;
	char name[64] = "?";
	drmVersionPtr v;

	parse_args(argc, argv);
	kms_open(&k);
	v = drmGetVersion(k.fd);
	if (v) {
		snprintf(name, sizeof(name), "%s", v->name);
		drmFreeVersion(v);
	}

	printf("%s: composer time per %ux%u frame, %u frames at %u Hz per scene\n",
	       name, WIDTH, HEIGHT, frames, hz);
	show_crc_scene(&k, "primary", NULL, false);
	if (k.overlay && k.cursor)
		show_crc_scene(&k, "+ overlay, cursor", &k.over, true);
	else
		printf("  + overlay, cursor  (no overlay or cursor plane)\n");
	if (k.overlay && k.nv12.fb_id)
		show_crc_scene(&k, "+ NV12 overlay", &k.nv12, false);
	else if (k.overlay)
		printf("  + NV12 overlay     (no NV12 framebuffers)\n");
	else
		printf("  + NV12 overlay     (no overlay plane)\n");
	if (pp_prop_id(k.fd, k.primary, DRM_MODE_OBJECT_PLANE, "rotation")) {
		new_fb(&k, &k.tall, HEIGHT, WIDTH, DRM_FORMAT_XRGB8888, 0xff, 9);
		show_rotated_scene(&k, "primary, 180", DRM_MODE_ROTATE_180);
		show_rotated_scene(&k, "primary, 90", DRM_MODE_ROTATE_90);
	} else {
		printf("  rotated            (no rotation property)\n");
	}
	if (pp_prop_id(k.fd, k.primary, DRM_MODE_OBJECT_PLANE,
		       "SCALING_FILTER")) {
		new_fb(&k, &k.small, WIDTH * 2 / 3, HEIGHT * 2 / 3,
		       DRM_FORMAT_XRGB8888, 0xff, 13);
		show_scaled_scene(&k, "primary, scaled");
	} else {
		printf("  primary, scaled    (no SCALING_FILTER: planes do not scale)\n");
	}
	if (k.wb_conn) {
		double wb = scene_writeback(&k);

		if (wb < 0)
			printf("  writeback          (commit refused: %s)\n",
			       strerror((int)-wb));
		else
			print_scene("writeback", wb, frames);
	} else {
		printf("  writeback          (no writeback connector)\n");
	}

	if (pp_prop_id(k.fd, k.primary, DRM_MODE_OBJECT_PLANE,
		       "FB_DAMAGE_CLIPS")) {
		double per_commit;

		print_scene("64 rows, damage",
			    scene_damage(&k, true, &per_commit), frames);
		printf("  %-18s %7.2f frames a commit\n", "", per_commit);
		print_scene("64 rows, no clips",
			    scene_damage(&k, false, &per_commit), frames);
		printf("  %-18s %7.2f frames a commit\n", "", per_commit);
	} else {
		printf("  64 rows, damage    (no FB_DAMAGE_CLIPS)\n");
	}

	if (find_pipeline(&k, &pipe)) {
		show_pipeline_scene(&k, "colorops", &pipe, false);
		show_pipeline_scene(&k, "colorops, 3D LUT", &pipe, true);
	} else {
		printf("  colorops           (no curve, matrix, 3D LUT, curve pipeline)\n");
	}

	for (int i = 0; i < 2; i++)
		pp_fb_destroy(k.fd, &k.fb[i]);
	pp_fb_destroy(k.fd, &k.nv12);
	pp_fb_destroy(k.fd, &k.tall);
	pp_fb_destroy(k.fd, &k.small);
	pp_fb_destroy(k.fd, &k.over);
	pp_fb_destroy(k.fd, &k.curs);
	pp_fb_destroy(k.fd, &k.wb);
	close(k.fd);
	return 0;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libprimepair.h - what primepair's tools, benchmarks and tests share.
 *
 * A small static library on libdrm, in the way libdrm is one: every
 * function returns an error and leaves the policy to its caller.  Unless
 * a function says otherwise it returns 0 or a negative errno; functions
 * that return an fd or a pointer return -1 or NULL with errno set.
 * Nothing here asserts, exits or prints.
 *
 * The tests' asserting wrappers (igt-tests/lib, prefix primepair_) are
 * built on this library; tools and benchmarks link this library and
 * libdrm only.  vrender's uapi calls themselves are in libvrender
 * (vrender.h), the installable header-only helper this library builds on.
 */
#ifndef LIBPRIMEPAIR_H
#define LIBPRIMEPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "live_counters.h"
#include "vrender_drm.h"

struct v4l2_pix_format;	/* <linux/videodev2.h>, for pp_vivid_open() */

/*
 * Plane colour pipelines, uapi of 6.19, which Debian 12's libdrm headers
 * predate (a kernel without them refuses the cap with EINVAL)
 */
#ifndef DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE
#define DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE	7
#endif
#ifndef DRM_MODE_OBJECT_COLOROP
#define DRM_MODE_OBJECT_COLOROP	0xfafafafa
#endif

/* ---- devices ------------------------------------------------------------ */

/* DRM driver names (drmVersion.name) */
#define PP_DISPLAY_DRIVER	"vdisplay"
#define PP_RENDER_DRIVER	"vrender"

/* Is @fd a DRM device driven by @driver? */
bool pp_driver_is(int fd, const char *driver);

/*
 * Open the @n-th (0-based, in minor order) device of @driver: its render
 * node (/dev/dri/renderD*) if @render, else its primary node
 * (/dev/dri/card*), O_RDWR | O_CLOEXEC.  Returns the fd, or -1 with errno
 * ENODEV when there is no such device.
 */
int pp_open_nth(const char *driver, unsigned int n, bool render);

/*
 * Open the device a SPEC names: a path ("/dev/dri/renderD129"), a driver
 * name ("vrender") or a driver name and index ("vrender:1"); NULL means
 * @default_driver.  The render node if @render, else the primary node.
 * Returns the fd, or -1 with errno set: EINVAL for a malformed SPEC,
 * ENODEV when no such device exists, open()'s errno for a path.
 */
int pp_open_device(const char *spec, const char *default_driver,
		   bool render);

/* @name in the DRM debugfs directory of @fd's device (dri/<minor>/@name) */
int pp_dri_debugfs_path(int fd, const char *name, char *buf, size_t len);

/* CLOCK_MONOTONIC now, in ns */
int64_t pp_now_ns(void);

/* ---- dumb buffers and framebuffers (KMS) ---------------------------------- */

struct pp_fb {
	uint32_t handle;	/* GEM handle on the KMS device */
	uint32_t fb_id;		/* 0 until pp_fb_add() */
	uint32_t width, height, format, pitch, cpp;
	uint64_t size;
	void *map;		/* NULL until pp_fb_map() */
};

/* Bytes per pixel of a format vdisplay scans out: 2, 3, 4 or 8 */
uint32_t pp_format_cpp(uint32_t format);

/* A dumb buffer of @width x @height @format (DRM_FORMAT_*) on @fd */
int pp_fb_create(int fd, uint32_t width, uint32_t height, uint32_t format,
		 struct pp_fb *fb);
/* Map @fb read-write for the CPU (fb->map) */
int pp_fb_map(int fd, struct pp_fb *fb);
/* Add @fb as a framebuffer (fb->fb_id), one plane at offset 0 */
int pp_fb_add(int fd, struct pp_fb *fb);
/* Undo what is set of fb_id, map and handle; returns the first error */
int pp_fb_destroy(int fd, struct pp_fb *fb);

/* ---- KMS properties -------------------------------------------------------- */

/* The id of property @name of object @id of @type; 0 with errno ENOENT */
uint32_t pp_prop_id(int fd, uint32_t id, uint32_t type, const char *name);
/* The current value of property @name of object @id */
int pp_prop_value(int fd, uint32_t id, uint32_t type, const char *name,
		  uint64_t *value);
/* Add "@name = @value" of object @id to an atomic request */
int pp_atomic_add(int fd, drmModeAtomicReqPtr req, uint32_t id,
		  uint32_t type, const char *name, uint64_t value);
/* @v in S31.32 sign-magnitude, as CTM and colorop properties take it */
uint64_t pp_s31_32(double v);

/* ---- a running DRM master's picture, from writeback -------------------------- */

/* What pp_capture_process() took */
struct pp_capture {
	uint32_t crtc_id;	/* in: the CRTC, 0 for the first lit one */
	uint32_t width, height, stride;
	void *pixels;		/* XRGB8888, X = 0xff; pp_capture_free() */
	uint32_t crc;		/* pp_crc32() of the rows */
	char error[160];	/* on failure, what failed */
};

/* Leave the process stopped after the picture (the caller sends SIGCONT) */
#define PP_CAPTURE_KEEP_STOPPED	0x1u

/*
 * One frame of what process @pid shows on its CRTC, from the device's
 * writeback connector: the process is paused (SIGSTOP) while its master
 * fd leases the CRTC and the connector to us for the frame, and goes on
 * (SIGCONT) after, unless @flags has PP_CAPTURE_KEEP_STOPPED.  @rdev
 * picks the device among the process's master fds (0: the first).  Needs
 * ptrace rights over @pid and a device with writeback (vdisplay's
 * default).  On failure, cap->error says what failed.
 */
int pp_capture_process(pid_t pid, dev_t rdev, unsigned int flags,
		       struct pp_capture *cap);
void pp_capture_free(struct pp_capture *cap);

/* ---- PRIME ------------------------------------------------------------------ */

/*
 * Export @handle of @exporter as a dma-buf and import it into @importer
 * (*@imported, its handle there).  The dma-buf fd goes to *@dmabuf if
 * @dmabuf is not NULL (the caller closes it), else it is closed.
 */
int pp_prime_share(int exporter, uint32_t handle, int importer,
		   uint32_t *imported, int *dmabuf);

/* ---- vrender jobs (the uapi calls are libvrender's) ------------------------ */

struct drm_vrender_cmd pp_vrender_fill(uint32_t dst, uint64_t offset,
				       uint32_t pitch, uint32_t x, uint32_t y,
				       uint32_t w, uint32_t h, uint32_t value);
struct drm_vrender_cmd pp_vrender_pattern(uint32_t dst, uint32_t pitch,
					  uint32_t w, uint32_t h,
					  uint32_t frame);
struct drm_vrender_cmd pp_vrender_checksum(uint32_t src, uint64_t src_offset,
					   uint32_t src_pitch, uint32_t w,
					   uint32_t h, uint32_t result,
					   uint64_t result_offset);

/*
 * Submit @count commands as one job.  With VRENDER_SUBMIT_OUT_FENCE_FD in
 * @flags *@out_fence gets the job's sync_file (the caller closes it).
 */
int pp_vrender_submit(int fd, const struct drm_vrender_cmd *cmds,
		      unsigned int count, uint32_t flags, int *out_fence);

/* Wait up to @timeout_ns from now for BO @handle to go idle */
int pp_vrender_wait(int fd, uint32_t handle, int64_t timeout_ns);

/*
 * CRC-32 of the first @size bytes (a multiple of 4) of BO @handle,
 * computed by a vrender CHECKSUM job; waits up to 10 s for it.
 */
int pp_vrender_crc32(int fd, uint32_t handle, uint64_t size, uint32_t *crc);

/* ---- explicit sync ------------------------------------------------------- */

/*
 * The state of a sync_file: *@status 1 signalled, 0 active, a negative
 * errno when it signalled with an error; *@timestamp_ns (may be NULL) when
 * its fence signalled, CLOCK_MONOTONIC, for a file of one fence (-EINVAL
 * for a merged one).
 */
int pp_sync_file_info(int fence_fd, int *status, int64_t *timestamp_ns);
/* Wait up to @timeout_ms for a sync_file to signal; -ETIME if it did not */
int pp_sync_file_wait(int fence_fd, int timeout_ms);

/* A new syncobj of @fd holding the fence of @sync_file */
int pp_syncobj_from_sync_file(int fd, int sync_file, uint32_t *syncobj);
/* Wait up to @timeout_ns from now for @syncobj's fence (-ETIME if not) */
int pp_syncobj_wait(int fd, uint32_t syncobj, int64_t timeout_ns);

/* ---- primebuf's counters --------------------------------------------------- */

/* primebuf's accounting file: one "name: value" line per counter */
#define PP_SUMMARY_PATH		"/sys/kernel/debug/primebuf/summary"

/* The counters of live objects (live_counters.h), NULL-terminated */
extern const char *const pp_live_counters[];

/*
 * Read the value of @key from a file of "name: value" lines.  The value
 * is decimal or 0x-prefixed hex and may be followed by blanks and free
 * text.  -ENOENT if the file has no such numeric line.
 */
int pp_counter_read(const char *file, const char *key, uint64_t *val);

/*
 * Find the first numeric line of @file whose value is not 0, or with
 * @only (NULL-terminated, may be NULL) the first such of those names.
 * Returns 1 and its name (in @key, @len bytes) and value, 0 if every
 * value is 0, or a negative errno.
 */
int pp_counter_first_nonzero(const char *file, const char *const *only,
			     char *key, size_t len, uint64_t *val);

/* ---- pixels ------------------------------------------------------------------ */

/*
 * CRC-32 as in IEEE 802.3 and zlib's crc32(): reflected polynomial
 * 0xEDB88320, register preset to ~0 and inverted at the end.  Start with
 * @crc = 0 and feed the previous result back to continue over more data.
 */
uint32_t pp_crc32(uint32_t crc, const void *buf, size_t len);

/* The XRGB8888 pixel of vrender's PATTERN command, for CPU references */
uint32_t pp_pattern_pixel(uint32_t x, uint32_t y, uint32_t frame);

/*
 * Write @width x @height XRGB8888 pixels (rows @pitch bytes apart) to
 * @path as an 8-bit RGB PNG.  -EIO if libpng fails.  Needs -lpng.
 */
int pp_png_write_xrgb(const char *path, const void *pixels, uint32_t width,
		      uint32_t height, uint32_t pitch);

/* ---- a foreign fence (vgem) ------------------------------------------------ */

/* A vgem fence and a sync_file of it, made by pp_vgem_fence_create() */
struct pp_vgem_fence {
	int vgem;		/* the vgem fd it was made on (not owned) */
	uint32_t handle;	/* vgem buffer the fence is attached to */
	uint32_t fence;		/* vgem's fence id */
	int sync_file;		/* the fence as a sync_file, owned */
};

/*
 * A write fence on a new vgem buffer of @vgem that signals only through
 * pp_vgem_fence_signal() (or vgem's own 10 s timeout), as a sync_file.
 * 0 or -errno.
 */
int pp_vgem_fence_create(int vgem, struct pp_vgem_fence *f);
/* Signal it; -ETIMEDOUT if vgem timed it out already */
int pp_vgem_fence_signal(struct pp_vgem_fence *f);
/* Close the sync_file and the buffer (signal first, or vgem will) */
void pp_vgem_fence_destroy(struct pp_vgem_fence *f);

/* ---- V4L2 (vivid, the kernel's virtual camera) ------------------------------ */

/* ioctl() on a V4L2 node, retried on EINTR */
int pp_v4l2_ioctl(int fd, unsigned long req, void *arg);

/*
 * Open vivid's first single-planar streaming capture node and set it to
 * @width x @height XBGR32 (DRM's XRGB8888), progressive; @pix gets the
 * format as set.  Returns the fd, or -1 with errno: ENODEV if vivid is
 * not loaded, EOPNOTSUPP if it does not capture that format.
 */
int pp_vivid_open(uint32_t width, uint32_t height,
		  struct v4l2_pix_format *pix);

#endif /* LIBPRIMEPAIR_H */

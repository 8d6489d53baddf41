/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair_v4l2.h - vivid, the kernel's virtual camera, for the tests and
 * tools that capture into (or from) primepair's buffers.
 */
#ifndef PRIMEPAIR_V4L2_H
#define PRIMEPAIR_V4L2_H

#include <stdint.h>

#include <linux/videodev2.h>

/* ioctl() on a V4L2 node, retried on EINTR; returns 0 or -errno */
int primepair_v4l2_ioctl(int fd, unsigned long req, void *arg);

/*
 * Open vivid's first single-planar streaming capture node and set it to
 * @width x @height XBGR32 (B, G, R, X in memory: DRM's XRGB8888),
 * progressive; @pix gets the format as set.  Skips (igt_require_f) when
 * vivid is not loaded or does not capture that format.  Returns the fd.
 */
int primepair_vivid_open(uint32_t width, uint32_t height,
			 struct v4l2_pix_format *pix);

#endif /* PRIMEPAIR_V4L2_H */

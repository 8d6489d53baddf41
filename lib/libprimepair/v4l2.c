// SPDX-License-Identifier: GPL-2.0
/*
 * v4l2.c - finding and setting up vivid's capture node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "libprimepair.h"

int pp_v4l2_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

static bool is_vivid_capture(int fd)
{
	struct v4l2_capability cap;

	memset(&cap, 0, sizeof(cap));
	return !pp_v4l2_ioctl(fd, VIDIOC_QUERYCAP, &cap) &&
	       !strcmp((char *)cap.driver, "vivid") &&
	       (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE) &&
	       (cap.device_caps & V4L2_CAP_STREAMING);
}

/* The first /dev/videoN of vivid that captures and streams, or -1 */
static int find_vivid(void)
{
	char path[32];
	int i, fd;

	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof(path), "/dev/video%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (is_vivid_capture(fd))
			return fd;
		close(fd);
	}
	return -1;
}

int pp_vivid_open(uint32_t width, uint32_t height,
		  struct v4l2_pix_format *pix)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int fd = find_vivid(), ret;

	if (fd < 0) {
		errno = ENODEV;
		return -1;
	}
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_XBGR32;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ret = pp_v4l2_ioctl(fd, VIDIOC_S_FMT, &fmt);
	if (!ret && (fmt.fmt.pix.pixelformat != V4L2_PIX_FMT_XBGR32 ||
		     fmt.fmt.pix.width != width ||
		     fmt.fmt.pix.height != height))
		ret = -EOPNOTSUPP;
	if (ret) {
		close(fd);
		errno = -ret;
		return -1;
	}
	*pix = fmt.fmt.pix;
	return fd;
}

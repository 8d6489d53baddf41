// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_v4l2.c - finding and setting up vivid's capture node.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "igt_core.h"
#include "primepair_v4l2.h"

int primepair_v4l2_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret == -1 && errno == EINTR);
	return ret ? -errno : 0;
}

/* The first /dev/videoN of vivid that captures and streams, or -1 */
static int find_vivid(void)
{
	for (int i = 0; i < 64; i++) {
		struct v4l2_capability cap = { 0 };
		char path[32];
		int fd;

		snprintf(path, sizeof(path), "/dev/video%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!primepair_v4l2_ioctl(fd, VIDIOC_QUERYCAP, &cap) &&
		    !strcmp((char *)cap.driver, "vivid") &&
		    (cap.device_caps & V4L2_CAP_VIDEO_CAPTURE) &&
		    (cap.device_caps & V4L2_CAP_STREAMING))
			return fd;
		close(fd);
	}
	return -1;
}

int primepair_vivid_open(uint32_t width, uint32_t height,
			 struct v4l2_pix_format *pix)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int fd = find_vivid();

	igt_require_f(fd >= 0, "no vivid capture node (modprobe vivid)\n");
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_XBGR32;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	igt_assert_eq(primepair_v4l2_ioctl(fd, VIDIOC_S_FMT, &fmt), 0);
	igt_require_f(fmt.fmt.pix.pixelformat == V4L2_PIX_FMT_XBGR32 &&
		      fmt.fmt.pix.width == width &&
		      fmt.fmt.pix.height == height,
		      "vivid does not capture %ux%u XBGR32\n", width, height);
	*pix = fmt.fmt.pix;
	return fd;
}

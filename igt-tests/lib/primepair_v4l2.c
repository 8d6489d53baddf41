// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_v4l2.c - vivid's capture node for tests: libprimepair's
 * pp_vivid_open() with a skip when there is none.
 */
#include <errno.h>

#include "igt_core.h"
#include "libprimepair.h"
#include "primepair_v4l2.h"

int primepair_v4l2_ioctl(int fd, unsigned long req, void *arg)
{
	return pp_v4l2_ioctl(fd, req, arg);
}

int primepair_vivid_open(uint32_t width, uint32_t height,
			 struct v4l2_pix_format *pix)
{
	int fd = pp_vivid_open(width, height, pix);

	igt_require_f(fd >= 0 || errno != ENODEV,
		      "no vivid capture node (modprobe vivid)\n");
	igt_require_f(fd >= 0 || errno != EOPNOTSUPP,
		      "vivid does not capture %ux%u XBGR32\n", width, height);
	igt_assert_f(fd >= 0, "setting vivid's format: %m\n");
	errno = 0;
	return fd;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * drmtest.c - definitions behind drmtest.h and ioctl_wrappers.h.
 */
#include <xf86drm.h>

#include "drmtest.h"
#include "ioctl_wrappers.h"

__thread int (*igt_ioctl)(int fd, unsigned long request, void *arg) = drmIoctl;

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvrender - header-only helpers for vrender's uapi, in the manner of
 * libdrm's driver libraries.  Every call returns 0 or -errno; nothing
 * aborts, nothing allocates.  Build with `pkg-config --cflags vrender`.
 */
#ifndef LIBVRENDER_VRENDER_H
#define LIBVRENDER_VRENDER_H

#include <errno.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>

#include <xf86drm.h>

#include "vrender_drm.h"

static inline int vrender_ioctl(int fd, unsigned long request, void *arg)
{
	return drmIoctl(fd, request, arg) ? -errno : 0;
}

/* Is @fd a vrender node? */
static inline int vrender_is_vrender(int fd)
{
	drmVersionPtr v = drmGetVersion(fd);
	int yes = v && v->name && !strcmp(v->name, "vrender");

	drmFreeVersion(v);
	return yes;
}

static inline int vrender_get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_vrender_get_param gp = { .param = param };
	int ret = vrender_ioctl(fd, DRM_IOCTL_VRENDER_GET_PARAM, &gp);

	if (!ret)
		*value = gp.value;
	return ret;
}

static inline int vrender_bo_create(int fd, uint64_t size, uint32_t flags,
				    uint32_t *handle)
{
	struct drm_vrender_bo_create create = { .size = size, .flags = flags };
	int ret = vrender_ioctl(fd, DRM_IOCTL_VRENDER_BO_CREATE, &create);

	if (!ret)
		*handle = create.handle;
	return ret;
}

/* Map @size bytes of BO @handle; *@ptr is MAP_FAILED on error */
static inline int vrender_bo_mmap(int fd, uint32_t handle, size_t size,
				  int prot, void **ptr)
{
	struct drm_vrender_bo_mmap_offset arg = { .handle = handle };
	int ret = vrender_ioctl(fd, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &arg);

	*ptr = MAP_FAILED;
	if (ret)
		return ret;
	*ptr = mmap(NULL, size, prot, MAP_SHARED, fd, arg.offset);
	return *ptr == MAP_FAILED ? -errno : 0;
}

static inline int vrender_bo_info(int fd, struct drm_vrender_bo_info *info)
{
	return vrender_ioctl(fd, DRM_IOCTL_VRENDER_BO_INFO, info);
}

static inline int vrender_submit(int fd, struct drm_vrender_submit *submit)
{
	return vrender_ioctl(fd, DRM_IOCTL_VRENDER_SUBMIT, submit);
}

/* Wait until @handle is idle or CLOCK_MONOTONIC reaches @abs_ns */
static inline int vrender_bo_wait(int fd, uint32_t handle, int64_t abs_ns)
{
	struct drm_vrender_bo_wait wait = {
		.handle = handle,
		.timeout_ns = abs_ns,
	};

	return vrender_ioctl(fd, DRM_IOCTL_VRENDER_BO_WAIT, &wait);
}

static inline int64_t vrender_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* LIBVRENDER_VRENDER_H */

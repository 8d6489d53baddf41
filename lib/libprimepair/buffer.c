// SPDX-License-Identifier: GPL-2.0
/*
 * buffer.c - dumb buffers and framebuffers on the KMS device, sharing
 * buffers through PRIME, and vrender jobs on buffers.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "libprimepair.h"
#include "vrender.h"

/* ---- dumb buffers and framebuffers --------------------------------------- */

uint32_t pp_format_cpp(uint32_t format)
{
	switch (format) {
	case DRM_FORMAT_RGB565:
	case DRM_FORMAT_BGR565:
	case DRM_FORMAT_XRGB1555:
	case DRM_FORMAT_ARGB1555:
		return 2;
	case DRM_FORMAT_RGB888:
	case DRM_FORMAT_BGR888:
		return 3;
	case DRM_FORMAT_XRGB16161616:
	case DRM_FORMAT_ARGB16161616:
	case DRM_FORMAT_XRGB16161616F:
	case DRM_FORMAT_ARGB16161616F:
		return 8;
	}
	return 4;
}

int pp_fb_create(int fd, uint32_t width, uint32_t height, uint32_t format,
		 struct pp_fb *fb)
{
	memset(fb, 0, sizeof(*fb));
	fb->cpp = pp_format_cpp(format);
	if (drmModeCreateDumbBuffer(fd, width, height, fb->cpp * 8, 0,
				    &fb->handle, &fb->pitch, &fb->size))
		return -errno;
	fb->width = width;
	fb->height = height;
	fb->format = format;
	return 0;
}

int pp_fb_map(int fd, struct pp_fb *fb)
{
	uint64_t offset;
	void *map;

	if (drmModeMapDumbBuffer(fd, fb->handle, &offset))
		return -errno;
	map = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   offset);
	if (map == MAP_FAILED)
		return -errno;
	fb->map = map;
	return 0;
}

int pp_fb_add(int fd, struct pp_fb *fb)
{
	uint32_t handles[4] = { fb->handle };
	uint32_t pitches[4] = { fb->pitch };
	uint32_t offsets[4] = { 0 };

	if (drmModeAddFB2(fd, fb->width, fb->height, fb->format, handles,
			  pitches, offsets, &fb->fb_id, 0))
		return -errno;
	return 0;
}

int pp_fb_destroy(int fd, struct pp_fb *fb)
{
	int ret = 0;

	if (fb->fb_id && drmModeRmFB(fd, fb->fb_id))
		ret = -errno;
	if (fb->map && munmap(fb->map, fb->size) && !ret)
		ret = -errno;
	if (fb->handle && drmModeDestroyDumbBuffer(fd, fb->handle) && !ret)
		ret = -errno;
	memset(fb, 0, sizeof(*fb));
	return ret;
}

/* ---- PRIME --------------------------------------------------------------- */

int pp_prime_share(int exporter, uint32_t handle, int importer,
		   uint32_t *imported, int *dmabuf)
{
	int fd, ret = 0;

	if (drmPrimeHandleToFD(exporter, handle, DRM_CLOEXEC | DRM_RDWR, &fd))
		return -errno;
	if (drmPrimeFDToHandle(importer, fd, imported))
		ret = -errno;
	if (dmabuf && !ret)
		*dmabuf = fd;
	else
		close(fd);
	return ret;
}

/* ---- vrender jobs -------------------------------------------------------- */

struct drm_vrender_cmd pp_vrender_fill(uint32_t dst, uint64_t offset,
				       uint32_t pitch, uint32_t x, uint32_t y,
				       uint32_t w, uint32_t h, uint32_t value)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_FILL,
		.dst_handle = dst,
		.dst_offset = offset,
		.dst_pitch = pitch,
		.dst_x = x,
		.dst_y = y,
		.width = w,
		.height = h,
		.value = value,
	};

	return c;
}

struct drm_vrender_cmd pp_vrender_pattern(uint32_t dst, uint32_t pitch,
					  uint32_t w, uint32_t h,
					  uint32_t frame)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_PATTERN,
		.dst_handle = dst,
		.dst_pitch = pitch,
		.width = w,
		.height = h,
		.value = frame,
	};

	return c;
}

struct drm_vrender_cmd pp_vrender_checksum(uint32_t src, uint64_t src_offset,
					   uint32_t src_pitch, uint32_t w,
					   uint32_t h, uint32_t result,
					   uint64_t result_offset)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_CHECKSUM,
		.dst_handle = result,
		.dst_offset = result_offset,
		.src_handle = src,
		.src_offset = src_offset,
		.src_pitch = src_pitch,
		.width = w,
		.height = h,
	};

	return c;
}

int pp_vrender_submit(int fd, const struct drm_vrender_cmd *cmds,
		      unsigned int count, uint32_t flags, int *out_fence)
{
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)cmds,
		.cmd_count = count,
		.flags = flags,
	};
	int ret = vrender_submit(fd, &submit);

	if (!ret && (flags & VRENDER_SUBMIT_OUT_FENCE_FD))
		*out_fence = submit.out_fence_fd;
	return ret;
}

int pp_vrender_wait(int fd, uint32_t handle, int64_t timeout_ns)
{
	return vrender_bo_wait(fd, handle, pp_now_ns() + timeout_ns);
}

int pp_vrender_crc32(int fd, uint32_t handle, uint64_t size, uint32_t *crc)
{
	struct drm_vrender_cmd c;
	uint32_t result;
	void *map;
	int ret;

	if (size % 4 || size / 4 > UINT32_MAX)
		return -EINVAL;
	ret = vrender_bo_create(fd, 4096, 0, &result);
	if (ret)
		return ret;
	c = pp_vrender_checksum(handle, 0, size, size / 4, 1, result, 0);
	ret = pp_vrender_submit(fd, &c, 1, 0, NULL);
	if (!ret)
		ret = pp_vrender_wait(fd, result, 10ll * 1000000000);
	if (!ret)
		ret = vrender_bo_mmap(fd, result, 4096, PROT_READ, &map);
	if (!ret) {
		*crc = *(const uint32_t *)map;
		munmap(map, 4096);
	}
	if (drmCloseBufferHandle(fd, result) && !ret)
		ret = -errno;
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_vrender.c - wrappers of vrender's uapi for tests: libvrender's
 * and libprimepair's calls, with assertions.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>

#include "igt.h"
#include "libprimepair.h"
#include "primepair_vrender.h"
#include "vrender.h"

int __primepair_vrender_get_param(int fd, uint32_t param, uint64_t *value)
{
	return vrender_get_param(fd, param, value);
}

uint64_t primepair_vrender_get_param(int fd, uint32_t param)
{
	uint64_t value = 0;

	igt_assert_eq(__primepair_vrender_get_param(fd, param, &value), 0);
	return value;
}

int __primepair_vrender_bo_create(int fd, uint64_t size, uint32_t flags,
				  uint32_t *handle)
{
	return vrender_bo_create(fd, size, flags, handle);
}

uint32_t primepair_vrender_bo_create(int fd, uint64_t size)
{
	uint32_t handle = 0;

	igt_assert_eq(__primepair_vrender_bo_create(fd, size, 0, &handle), 0);
	igt_assert_neq(handle, 0);
	return handle;
}

void *primepair_vrender_bo_mmap(int fd, uint32_t handle, size_t size,
				int prot)
{
	void *ptr;

	igt_assert_eq(vrender_bo_mmap(fd, handle, size, prot, &ptr), 0);
	return ptr;
}

int __primepair_vrender_bo_info(int fd, struct drm_vrender_bo_info *info)
{
	return vrender_bo_info(fd, info);
}

int __primepair_vrender_submit(int fd, struct drm_vrender_submit *submit)
{
	return vrender_submit(fd, submit);
}

uint64_t primepair_vrender_submit(int fd, const struct drm_vrender_cmd *cmds,
				  unsigned int count)
{
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)cmds,
		.cmd_count = count,
	};

	igt_assert_eq(__primepair_vrender_submit(fd, &submit), 0);
	return submit.seqno;
}

int64_t primepair_now_ns(void)
{
	return pp_now_ns();
}

int __primepair_vrender_bo_wait(int fd, uint32_t handle, int64_t abs_ns)
{
	return vrender_bo_wait(fd, handle, abs_ns);
}

void primepair_vrender_bo_wait(int fd, uint32_t handle, int64_t timeout_ns)
{
	igt_assert_eq(__primepair_vrender_bo_wait(fd, handle,
						  primepair_now_ns() +
						  timeout_ns), 0);
}

struct drm_vrender_cmd primepair_vrender_fill(uint32_t dst, uint64_t offset,
					      uint32_t pitch, uint32_t x,
					      uint32_t y, uint32_t w,
					      uint32_t h, uint32_t value)
{
	return pp_vrender_fill(dst, offset, pitch, x, y, w, h, value);
}

struct drm_vrender_cmd primepair_vrender_checksum(uint32_t src,
						  uint64_t src_offset,
						  uint32_t src_pitch,
						  uint32_t w, uint32_t h,
						  uint32_t result,
						  uint64_t result_offset)
{
	return pp_vrender_checksum(src, src_offset, src_pitch, w, h, result,
				   result_offset);
}

uint32_t primepair_vrender_crc32(int fd, uint32_t handle, uint64_t size)
{
	uint32_t crc = 0;

	igt_assert(size % 4 == 0 && size / 4 <= UINT32_MAX);
	igt_assert_eq(pp_vrender_crc32(fd, handle, size, &crc), 0);
	return crc;
}

uint32_t primepair_vrender_pattern_pixel(uint32_t x, uint32_t y,
					 uint32_t frame)
{
	return pp_pattern_pixel(x, y, frame);
}

static void write_number(const char *path, long long value)
{
	char buf[32];
	int fd, len;

	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "cannot open %s: %s\n", path, strerror(errno));
	len = snprintf(buf, sizeof(buf), "%lld\n", value);
	igt_assert_eq(write(fd, buf, len), len);
	close(fd);
}

void primepair_inject_hang(long long count)
{
	write_number("/sys/kernel/debug/primebuf_selftest/hang_jobs", count);
}

unsigned long long primepair_vrender_param(const char *name)
{
	unsigned long long value = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/vrender/parameters/%s", name);
	f = fopen(path, "r");
	igt_assert_f(f, "cannot open %s: %s\n", path, strerror(errno));
	igt_assert_eq(fscanf(f, "%llu", &value), 1);
	fclose(f);
	return value;
}

void primepair_vrender_set_param(const char *name, unsigned long long value)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/vrender/parameters/%s", name);
	write_number(path, value);
}

int primepair_sync_file_status(int fence_fd)
{
	int status = 0;

	igt_assert_eq(pp_sync_file_info(fence_fd, &status, NULL), 0);
	return status;
}

bool primepair_sync_file_wait(int fence_fd, int timeout_ms)
{
	return pp_sync_file_wait(fence_fd, timeout_ms) == 0;
}

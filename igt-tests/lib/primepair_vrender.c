// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_vrender.c - wrappers of vrender's uapi for tests and tools.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include <xf86drm.h>

#include "igt.h"
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
	return vrender_now_ns();
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

struct drm_vrender_cmd primepair_vrender_checksum(uint32_t src,
						  uint64_t src_offset,
						  uint32_t src_pitch,
						  uint32_t w, uint32_t h,
						  uint32_t result,
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

uint32_t primepair_vrender_crc32(int fd, uint32_t handle, uint64_t size)
{
	struct drm_vrender_cmd c;
	uint32_t result, crc;
	uint32_t *map;

	igt_assert(size % 4 == 0 && size / 4 <= UINT32_MAX);
	result = primepair_vrender_bo_create(fd, 4096);
	c = primepair_vrender_checksum(handle, 0, size, size / 4, 1, result, 0);
	primepair_vrender_submit(fd, &c, 1);
	primepair_vrender_bo_wait(fd, result, 10ll * 1000000000);

	map = primepair_vrender_bo_mmap(fd, result, 4096, PROT_READ);
	crc = map[0];
	munmap(map, 4096);
	igt_assert_eq(drmCloseBufferHandle(fd, result), 0);
	return crc;
}

uint32_t primepair_vrender_pattern_pixel(uint32_t x, uint32_t y,
					 uint32_t frame)
{
	uint32_t check = (((x + frame * 4) / 32) ^ (y / 32)) & 1;
	uint32_t r = (x + frame) & 0xff;
	uint32_t g = (y + 2 * frame) & 0xff;

	return 0xff000000u | r << 16 | g << 8 | (check ? 0xff : 0);
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

void primepair_vrender_debugfs_write(int fd, const char *name,
				     long long value)
{
	char path[128];
	struct stat st;

	igt_assert_eq(fstat(fd, &st), 0);
	snprintf(path, sizeof(path), "/sys/kernel/debug/dri/%u/%s",
		 minor(st.st_rdev), name);
	write_number(path, value);
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
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	igt_assert_eq(ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info), 0);
	return info.status;
}

bool primepair_sync_file_wait(int fence_fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fence_fd, .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) == 1;
}

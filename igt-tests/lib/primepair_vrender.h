/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair_vrender.h - wrappers of vrender's uapi for tests.
 *
 * Functions named __primepair_vrender_*() return 0 or -errno; the ones
 * without underscores assert success.
 */
#ifndef PRIMEPAIR_VRENDER_H
#define PRIMEPAIR_VRENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vrender_drm.h"

int __primepair_vrender_get_param(int fd, uint32_t param, uint64_t *value);
uint64_t primepair_vrender_get_param(int fd, uint32_t param);

int __primepair_vrender_bo_create(int fd, uint64_t size, uint32_t flags,
				  uint32_t *handle);
uint32_t primepair_vrender_bo_create(int fd, uint64_t size);

/* mmap a vrender BO through BO_MMAP_OFFSET on the render node */
void *primepair_vrender_bo_mmap(int fd, uint32_t handle, size_t size,
				int prot);

int __primepair_vrender_bo_info(int fd, struct drm_vrender_bo_info *info);

int __primepair_vrender_submit(int fd, struct drm_vrender_submit *submit);
/* Submit @count commands without explicit fences; returns the seqno. */
uint64_t primepair_vrender_submit(int fd, const struct drm_vrender_cmd *cmds,
				  unsigned int count);

int __primepair_vrender_bo_wait(int fd, uint32_t handle, int64_t abs_ns);
/* Wait up to @timeout_ns from now for the BO to go idle; asserts success. */
void primepair_vrender_bo_wait(int fd, uint32_t handle, int64_t timeout_ns);

/* CLOCK_MONOTONIC now, in ns */
int64_t primepair_now_ns(void);

/* Commands */
struct drm_vrender_cmd primepair_vrender_fill(uint32_t dst, uint64_t offset,
					      uint32_t pitch, uint32_t x,
					      uint32_t y, uint32_t w,
					      uint32_t h, uint32_t value);
struct drm_vrender_cmd primepair_vrender_checksum(uint32_t src,
						  uint64_t src_offset,
						  uint32_t src_pitch,
						  uint32_t w, uint32_t h,
						  uint32_t result,
						  uint64_t result_offset);

/*
 * CRC-32 of a buffer by vrender: checksums @size bytes (a multiple of 4)
 * of @handle, waits, and returns the result.
 */
uint32_t primepair_vrender_crc32(int fd, uint32_t handle, uint64_t size);

/* The PATTERN command's pixel, for CPU references */
uint32_t primepair_vrender_pattern_pixel(uint32_t x, uint32_t y,
					 uint32_t frame);

/*
 * The next @count jobs submitted, on any vrender device, hang until their
 * timeout (primebuf_selftest's hang_jobs knob); skips without the knob.
 */
void primepair_inject_hang(long long count);

/*
 * Read and set a vrender module parameter (/sys/module/vrender/parameters/
 * @name); setting skips when not permitted.
 */
unsigned long long primepair_vrender_param(const char *name);
void primepair_vrender_set_param(const char *name, unsigned long long value);

/* sync_file status: 1 signalled, 0 active, -errno signalled with an error */
int primepair_sync_file_status(int fence_fd);
/* poll() a sync_file for up to @timeout_ms; true if it signalled */
bool primepair_sync_file_wait(int fence_fd, int timeout_ms);

#endif /* PRIMEPAIR_VRENDER_H */

/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vrender - uapi of the virtual render-only driver
 */
#ifndef _UAPI_VRENDER_DRM_H_
#define _UAPI_VRENDER_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: vrender uapi
 *
 * vrender is a render node with a simulated engine.  Buffers are created
 * with BO_CREATE or imported with DRM_IOCTL_PRIME_FD_TO_HANDLE; work is a
 * list of commands sent with SUBMIT and completes asynchronously, fenced:
 * each job waits for the fences already in its buffers' reservation
 * objects (and for explicit in-fences), and adds its own fence to them,
 * so other devices and the CPU wait for it in turn.
 *
 * Every struct is made of fixed-width fields with explicit padding; every
 * flags and pad field must be zero, or the ioctl fails with -EINVAL.
 * Structs only ever grow at the end.
 *
 * Errors common to every ioctl: -EINVAL for a bad value in a field (as
 * each struct documents), -ENOENT for a GEM handle or syncobj that this
 * fd does not hold (handles are per open file; another process's handles
 * are unknown here), -EFAULT when the ioctl argument or a user pointer
 * inside it cannot be read or written.
 */

#define DRM_VRENDER_GET_PARAM		0x00
#define DRM_VRENDER_BO_CREATE		0x01
#define DRM_VRENDER_BO_MMAP_OFFSET	0x02
#define DRM_VRENDER_BO_INFO		0x03
#define DRM_VRENDER_SUBMIT		0x04
#define DRM_VRENDER_BO_WAIT		0x05

/* Parameters for &drm_vrender_get_param.param */
#define VRENDER_PARAM_COMMANDS		1	/* bitmask of 1 << VRENDER_CMD_* */
#define VRENDER_PARAM_MAX_BO_SIZE	2	/* bytes */
#define VRENDER_PARAM_MAX_COMMANDS	3	/* per SUBMIT */
#define VRENDER_PARAM_INSTANCE		4	/* index of this device */
#define VRENDER_PARAM_DMA_MASK_BITS	5
#define VRENDER_PARAM_MAX_SEGMENT	6	/* bytes */
#define VRENDER_PARAM_SEGMENT_BOUNDARY	7	/* mask */
#define VRENDER_PARAM_CONTIGUOUS	8	/* 1: one segment per mapping */
#define VRENDER_PARAM_MAX_SYNCOBJS	9	/* in-syncobjs per SUBMIT */
#define VRENDER_PARAM_JOB_TIMEOUT_MS	10	/* a job's limit to wait, and to run */
#define VRENDER_PARAM_TIMELINES		11	/* 1: SUBMIT takes timeline points */
#define VRENDER_PARAM_CMD_FORMATS	12	/* bitmask of 1 << VRENDER_CMD_FORMAT_* */

/**
 * struct drm_vrender_get_param - query a device property
 * @param: one of VRENDER_PARAM_*; unknown values fail with -EINVAL
 * @pad: must be zero
 * @value: returned value
 */
struct drm_vrender_get_param {
	__u32 param;
	__u32 pad;
	__u64 value;
};

/**
 * struct drm_vrender_bo_create - create a buffer object
 * @size: size in bytes, non-zero (-EINVAL), at most
 *	VRENDER_PARAM_MAX_BO_SIZE (-E2BIG); rounded up to whole pages
 * @flags: must be zero
 * @handle: returned GEM handle
 *
 * No memory is allocated until the buffer is first used.
 */
struct drm_vrender_bo_create {
	__u64 size;
	__u32 flags;
	__u32 handle;
};

/**
 * struct drm_vrender_bo_mmap_offset - get the offset to mmap a buffer
 * @handle: GEM handle (own or imported)
 * @pad: must be zero
 * @offset: returned offset for mmap() on the render node fd
 */
struct drm_vrender_bo_mmap_offset {
	__u32 handle;
	__u32 pad;
	__u64 offset;
};

/* Values of &drm_vrender_bo_info.placement */
#define VRENDER_PLACEMENT_NONE		0	/* no memory yet */
#define VRENDER_PLACEMENT_PAGES		1	/* scattered pages */
#define VRENDER_PLACEMENT_CONTIG	2	/* one contiguous block */
#define VRENDER_PLACEMENT_IMPORTED	3	/* memory of another exporter */

/**
 * struct drm_vrender_segment - one segment of a device mapping
 * @addr: DMA address as seen by this device; 0 unless the caller has
 *	CAP_SYS_ADMIN, since without an IOMMU it is a physical address
 * @len: length in bytes
 */
struct drm_vrender_segment {
	__u64 addr;
	__u64 len;
};

/**
 * struct drm_vrender_bo_info - describe a buffer object
 * @handle: GEM handle
 * @flags: must be zero
 * @size: returned size in bytes
 * @placement: returned VRENDER_PLACEMENT_*
 * @nsegs: returned number of segments of this device's current (or
 *	cached) mapping; 0 if there is none (never mapped, or dropped when
 *	the buffer moved), or if the exporter does not tell
 * @segs_ptr: user pointer to an array of &struct drm_vrender_segment, or 0
 * @segs_count: capacity of @segs_ptr; min(@nsegs, @segs_count) entries
 *	are written; non-zero with a zero @segs_ptr fails with -EINVAL
 * @pad: must be zero
 */
struct drm_vrender_bo_info {
	__u32 handle;
	__u32 flags;
	__u64 size;
	__u32 placement;
	__u32 nsegs;
	__u64 segs_ptr;
	__u32 segs_count;
	__u32 pad;
};

/* Commands, &drm_vrender_cmd.op */
#define VRENDER_CMD_FILL	1	/* dst rectangle = value */
#define VRENDER_CMD_COPY	2	/* dst rectangle = src rectangle */
#define VRENDER_CMD_PATTERN	3	/* dst rectangle = test image of frame value */
#define VRENDER_CMD_CHECKSUM	4	/* u32 at dst_offset = CRC-32 of src rectangle */

/*
 * Surface formats of FILL and PATTERN, in the low byte of
 * &drm_vrender_cmd.flags (VRENDER_CMD_FORMAT_MASK); COPY and CHECKSUM
 * take 32-bit pixels only.
 */
#define VRENDER_CMD_FORMAT_MASK		0xff
#define VRENDER_CMD_FORMAT_XRGB8888	0	/* 32-bit pixels, the default */
#define VRENDER_CMD_FORMAT_NV12		1	/* 8-bit Y, 2x2-subsampled CbCr */
#define VRENDER_CMD_FORMAT_XRGB16161616	2	/* 64-bit pixels, 16-bit channels */

/**
 * struct drm_vrender_cmd - one command of a job
 * @op: VRENDER_CMD_*
 * @flags: for FILL and PATTERN, the destination's VRENDER_CMD_FORMAT_*;
 *	every other bit, and any format for COPY and CHECKSUM, must be zero
 * @dst_handle: destination buffer (FILL, COPY, PATTERN) or the buffer
 *	that receives the checksum (CHECKSUM)
 * @src_handle: source buffer (COPY, CHECKSUM); must be zero otherwise
 * @dst_offset: byte offset of the destination surface in @dst_handle (of
 *	its Y plane for NV12); for CHECKSUM where the 32-bit result is
 *	written; a multiple of 4
 * @src_offset: byte offset of the source surface; for NV12, of the
 *	destination's CbCr plane in @dst_handle; a multiple of 4
 * @dst_pitch: bytes per destination row, a multiple of 4
 * @src_pitch: bytes per source row; for NV12, per CbCr row; a multiple
 *	of 4
 * @dst_x: destination rectangle left, in pixels
 * @dst_y: destination rectangle top
 * @src_x: source rectangle left, in 32-bit pixels
 * @src_y: source rectangle top
 * @width: rectangle width in pixels, non-zero
 * @height: rectangle height in rows, non-zero
 * @value: FILL colour, as ARGB8888; PATTERN frame number
 * @pad: must be zero
 *
 * Surfaces are 32 bits per pixel (XRGB8888) unless @flags names another
 * format.  An XRGB16161616 pixel is four little-endian 16-bit channels,
 * each the 8-bit one times 257.  NV12 is BT.601 limited range, its Y
 * plane one byte per pixel and its CbCr plane one Cb, Cr byte pair per
 * 2x2 pixels, that of the block's top-left pixel; @dst_x, @dst_y,
 * @width and @height must be even, and @src_x and @src_y zero.  Every
 * rectangle (each plane's, for NV12) must lie inside its buffer, or
 * SUBMIT fails with -EINVAL before anything runs.  COPY within one buffer
 * handles overlapping rectangles like memmove().  CHECKSUM computes the
 * CRC-32 (IEEE 802.3, as zlib's crc32()) of the source rows, width * 4
 * bytes each, top to bottom.
 */
struct drm_vrender_cmd {
	__u32 op;
	__u32 flags;
	__u32 dst_handle;
	__u32 src_handle;
	__u64 dst_offset;
	__u64 src_offset;
	__u32 dst_pitch;
	__u32 src_pitch;
	__u32 dst_x;
	__u32 dst_y;
	__u32 src_x;
	__u32 src_y;
	__u32 width;
	__u32 height;
	__u32 value;
	__u32 pad;
};

/* Flags of &drm_vrender_submit.flags */
#define VRENDER_SUBMIT_IN_FENCE_FD	(1 << 0)	/* wait for @in_fence_fd */
#define VRENDER_SUBMIT_OUT_FENCE_FD	(1 << 1)	/* return @out_fence_fd */
#define VRENDER_SUBMIT_FLAGS		(VRENDER_SUBMIT_IN_FENCE_FD | \
					 VRENDER_SUBMIT_OUT_FENCE_FD)

/**
 * struct drm_vrender_submit - queue a job
 * @cmds: user pointer to an array of &struct drm_vrender_cmd
 * @in_syncobjs: user pointer to an array of __u32 syncobj handles whose
 *	fences the job waits for, or 0
 * @cmd_count: number of commands, 1 to VRENDER_PARAM_MAX_COMMANDS
 * @in_syncobj_count: number of entries at @in_syncobjs, at most
 *	VRENDER_PARAM_MAX_SYNCOBJS
 * @out_syncobj: syncobj that receives the job's fence, or 0
 * @flags: VRENDER_SUBMIT_*
 * @in_fence_fd: sync_file to wait for, with VRENDER_SUBMIT_IN_FENCE_FD;
 *	without it, 0 or -1 (anything else fails with -EINVAL)
 * @out_fence_fd: returned sync_file of the job, with
 *	VRENDER_SUBMIT_OUT_FENCE_FD (set to -1 otherwise)
 * @seqno: returned sequence number of the job's fence
 * @in_points: user pointer to an array of __u64 timeline points, one per
 *	@in_syncobjs entry (0 for a binary syncobj), or 0 if all are binary
 *	(non-zero with no @in_syncobjs fails with -EINVAL);
 *	a point that has no fence yet, or a point on a binary syncobj, fails
 *	with -EINVAL
 * @out_point: timeline point of @out_syncobj that receives the job's
 *	fence, or 0 to replace its fence (binary syncobj); non-zero without
 *	@out_syncobj fails with -EINVAL
 *
 * The job also waits, implicitly, for the fences in the reservation
 * objects of its buffers: for buffers it writes, all of them; for buffers
 * it only reads, the writers.  Its own fence is added as a writer of the
 * destinations and a reader of the sources.
 *
 * Errors of the ioctl: -EINVAL for unknown @flags bits, a @cmd_count of 0
 * or above the limit, too many in-syncobjs, a bad command (see
 * &struct drm_vrender_cmd) or an @in_fence_fd that is not a sync_file;
 * -ENOENT for an unknown buffer or syncobj handle; -EFAULT when @cmds or
 * @in_syncobjs cannot be read; -ENOMEM when a buffer's memory cannot be
 * allocated (the memory cgroup of the buffer's creator or primebuf's pool
 * is full) or mapped, as SUBMIT backs and maps every buffer of the job;
 * -EBUSY when the file already has 64 jobs queued or running and none of
 * them finishes within job_timeout_ms, or when a buffer must move for
 * this device and another device's jobs keep it busy.
 *
 * Errors of the job, reported by its fence (sync_file status, or
 * drmSyncobjExportSyncFile then SYNC_IOC_FILE_INFO): -ETIMEDOUT when its
 * dependencies did not signal within the module's job_timeout_ms
 * (VRENDER_PARAM_JOB_TIMEOUT_MS), or when it would run longer than that (a
 * hang injected through debugfs vrender_hang, or a simulated engine too
 * slow for it); -ECANCELED when the device went away; the error of an
 * explicit in-fence (@in_syncobjs, @in_fence_fd) that failed.  A job that
 * fails leaves its destinations as they were.  An implicit dependency
 * that failed does not fail the job: it runs on the contents the failed
 * job left.
 */
struct drm_vrender_submit {
	__u64 cmds;
	__u64 in_syncobjs;
	__u32 cmd_count;
	__u32 in_syncobj_count;
	__u32 out_syncobj;
	__u32 flags;
	__s32 in_fence_fd;
	__s32 out_fence_fd;
	__u64 seqno;
	__u64 in_points;
	__u64 out_point;
};

/**
 * struct drm_vrender_bo_wait - wait until a buffer is idle
 * @handle: GEM handle
 * @flags: must be zero
 * @timeout_ns: absolute CLOCK_MONOTONIC time to give up at; 0 polls
 *
 * Waits for every fence of the buffer, then (unless polling) until this
 * file's finished jobs have released their device mappings, so that
 * another device may move the buffer at once.  Fails with -ETIME if the
 * fences have not all signalled by @timeout_ns; restartable after a
 * signal.
 */
struct drm_vrender_bo_wait {
	__u32 handle;
	__u32 flags;
	__s64 timeout_ns;
};

#define DRM_IOCTL_VRENDER_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VRENDER_GET_PARAM, struct drm_vrender_get_param)
#define DRM_IOCTL_VRENDER_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VRENDER_BO_CREATE, struct drm_vrender_bo_create)
#define DRM_IOCTL_VRENDER_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VRENDER_BO_MMAP_OFFSET, struct drm_vrender_bo_mmap_offset)
#define DRM_IOCTL_VRENDER_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VRENDER_BO_INFO, struct drm_vrender_bo_info)
#define DRM_IOCTL_VRENDER_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_VRENDER_SUBMIT, struct drm_vrender_submit)
#define DRM_IOCTL_VRENDER_BO_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_VRENDER_BO_WAIT, struct drm_vrender_bo_wait)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VRENDER_DRM_H_ */

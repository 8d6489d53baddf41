/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layout of vrender's uapi, checked at compile time by tools/lint for
 * 64-bit and 32-bit userspace: the same sizes and offsets on both, so a
 * 32-bit process can use the 64-bit kernel's ioctls without compat code.
 * Built as C90 against the header as headers_install leaves it.
 */
#include <stddef.h>
#include <drm/vrender_drm.h>

#define CHECK(cond) typedef char check_##__LINE__[(cond) ? 1 : -1]
#define SIZE(type, n) CHECK(sizeof(struct type) == (n) && sizeof(struct type) % 8 == 0)
#define OFF(type, field, n) CHECK(offsetof(struct type, field) == (n))

/* Token pasting needs one more level to expand __LINE__. */
#undef CHECK
#define CHECK_(cond, line) typedef char check_##line[(cond) ? 1 : -1]
#define CHECK__(cond, line) CHECK_(cond, line)
#define CHECK(cond) CHECK__(cond, __LINE__)

SIZE(drm_vrender_get_param, 16);
OFF(drm_vrender_get_param, value, 8);
SIZE(drm_vrender_bo_create, 16);
OFF(drm_vrender_bo_create, handle, 12);
SIZE(drm_vrender_bo_mmap_offset, 16);
OFF(drm_vrender_bo_mmap_offset, offset, 8);
SIZE(drm_vrender_segment, 16);
SIZE(drm_vrender_bo_info, 40);
OFF(drm_vrender_bo_info, size, 8);
OFF(drm_vrender_bo_info, segs_ptr, 24);
OFF(drm_vrender_bo_info, pad, 36);
SIZE(drm_vrender_cmd, 72);
OFF(drm_vrender_cmd, dst_offset, 16);
OFF(drm_vrender_cmd, src_offset, 24);
OFF(drm_vrender_cmd, dst_pitch, 32);
OFF(drm_vrender_cmd, value, 64);
SIZE(drm_vrender_submit, 64);
OFF(drm_vrender_submit, in_syncobjs, 8);
OFF(drm_vrender_submit, cmd_count, 16);
OFF(drm_vrender_submit, in_fence_fd, 32);
OFF(drm_vrender_submit, seqno, 40);
OFF(drm_vrender_submit, in_points, 48);
OFF(drm_vrender_submit, out_point, 56);
SIZE(drm_vrender_bo_wait, 16);
OFF(drm_vrender_bo_wait, timeout_ns, 8);

int main(void)
{
	return 0;
}

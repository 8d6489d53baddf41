// SPDX-License-Identifier: GPL-2.0
/*
 * libprimepair - a fence of another driver that signals only when told:
 * vgem's fence ioctls, which libdrm does not wrap
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "libprimepair.h"

/* vgem's fence uapi, include/uapi/drm/vgem_drm.h of the kernel */
struct pp_vgem_fence_attach {
	uint32_t handle;
	uint32_t flags;
	uint32_t out_fence;
	uint32_t pad;
};

struct pp_vgem_fence_signal {
	uint32_t fence;
	uint32_t flags;
};

#define PP_VGEM_FENCE_WRITE	0x1
#define PP_IOCTL_VGEM_FENCE_ATTACH \
	DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct pp_vgem_fence_attach)
#define PP_IOCTL_VGEM_FENCE_SIGNAL \
	DRM_IOW(DRM_COMMAND_BASE + 0x2, struct pp_vgem_fence_signal)

int pp_vgem_fence_create(int vgem, struct pp_vgem_fence *f)
{
	struct pp_vgem_fence_attach attach = { .flags = PP_VGEM_FENCE_WRITE };
	struct dma_buf_export_sync_file exp = { .flags = DMA_BUF_SYNC_READ };
	uint32_t pitch;
	uint64_t size;
	int dmabuf, ret;

	f->vgem = vgem;
	f->sync_file = -1;
	ret = drmModeCreateDumbBuffer(vgem, 64, 64, 32, 0, &f->handle, &pitch,
				      &size);
	if (ret)
		return ret;
	attach.handle = f->handle;
	if (drmIoctl(vgem, PP_IOCTL_VGEM_FENCE_ATTACH, &attach)) {
		ret = -errno;
		goto err;
	}
	f->fence = attach.out_fence;
	if (drmPrimeHandleToFD(vgem, f->handle, DRM_CLOEXEC, &dmabuf)) {
		ret = -errno;
		goto err_signal;
	}
	ret = ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp) ? -errno : 0;
	close(dmabuf);
	if (ret)
		goto err_signal;
	f->sync_file = exp.fd;
	return 0;

err_signal:
	pp_vgem_fence_signal(f);
err:
	drmModeDestroyDumbBuffer(vgem, f->handle);
	return ret;
}

int pp_vgem_fence_signal(struct pp_vgem_fence *f)
{
	struct pp_vgem_fence_signal sig = { .fence = f->fence };

	return drmIoctl(f->vgem, PP_IOCTL_VGEM_FENCE_SIGNAL, &sig) ? -errno : 0;
}

void pp_vgem_fence_destroy(struct pp_vgem_fence *f)
{
	if (f->sync_file >= 0)
		close(f->sync_file);
	f->sync_file = -1;
	drmModeDestroyDumbBuffer(f->vgem, f->handle);
}

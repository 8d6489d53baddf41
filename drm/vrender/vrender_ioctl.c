// SPDX-License-Identifier: GPL-2.0
/*
 * vrender - buffer and query ioctls
 */

#include <linux/capability.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_utils.h>
#include <drm/drm_vma_manager.h>

#include <uapi/drm/vrender_drm.h>

#include "vrender_drv.h"

int vrender_ioctl_get_param(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct vrender_device *vr = to_vrender(dev);
	struct drm_vrender_get_param *args = data;

	if (args->pad)
		return -EINVAL;

	switch (args->param) {
	case VRENDER_PARAM_COMMANDS:
		args->value = BIT(VRENDER_CMD_FILL) | BIT(VRENDER_CMD_COPY) |
			      BIT(VRENDER_CMD_PATTERN) |
			      BIT(VRENDER_CMD_CHECKSUM);
		break;
	case VRENDER_PARAM_MAX_BO_SIZE:
		args->value = primebuf_max_size();
		break;
	case VRENDER_PARAM_MAX_COMMANDS:
		args->value = VRENDER_MAX_COMMANDS;
		break;
	case VRENDER_PARAM_INSTANCE:
		args->value = vr->index;
		break;
	case VRENDER_PARAM_DMA_MASK_BITS:
		args->value = fls64(vr->constraints.dma_mask);
		break;
	case VRENDER_PARAM_MAX_SEGMENT:
		args->value = vr->constraints.max_segment_size;
		break;
	case VRENDER_PARAM_SEGMENT_BOUNDARY:
		args->value = vr->constraints.segment_boundary_mask;
		break;
	case VRENDER_PARAM_CONTIGUOUS:
		args->value = vr->constraints.contiguous;
		break;
	case VRENDER_PARAM_MAX_SYNCOBJS:
		args->value = VRENDER_MAX_SYNCOBJS;
		break;
	case VRENDER_PARAM_JOB_TIMEOUT_MS:
		args->value = max(1U, READ_ONCE(vrender_job_timeout_ms));
		break;
	case VRENDER_PARAM_TIMELINES:
		args->value = 1;
		break;
	case VRENDER_PARAM_CMD_FORMATS:
		args->value = BIT(VRENDER_CMD_FORMAT_XRGB8888) |
			      BIT(VRENDER_CMD_FORMAT_NV12) |
			      BIT(VRENDER_CMD_FORMAT_XRGB16161616);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int vrender_ioctl_bo_create(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct drm_vrender_bo_create *args = data;

	if (args->flags)
		return -EINVAL;
	if (!args->size)
		return -EINVAL;
	if (args->size > primebuf_max_size())
		return -E2BIG;

	return primebuf_bo_create_with_handle(file, dev, args->size,
					      &args->handle);
}

int vrender_ioctl_bo_mmap_offset(struct drm_device *dev, void *data,
				 struct drm_file *file)
{
	struct drm_vrender_bo_mmap_offset *args = data;

	if (args->pad)
		return -EINVAL;
	return primebuf_dumb_map_offset(file, dev, args->handle,
					&args->offset);
}

static u32 vrender_placement(struct drm_gem_object *obj)
{
	if (obj->import_attach)
		return VRENDER_PLACEMENT_IMPORTED;

	switch (primebuf_bo_placement(to_primebuf_bo(obj))) {
	case PRIMEBUF_PLACEMENT_PAGES:
		return VRENDER_PLACEMENT_PAGES;
	case PRIMEBUF_PLACEMENT_CONTIG:
		return VRENDER_PLACEMENT_CONTIG;
	default:
		return VRENDER_PLACEMENT_NONE;
	}
}

int vrender_ioctl_bo_info(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_vrender_bo_info *args = data;
	struct primebuf_segment *segs = NULL;
	struct drm_gem_object *obj;
	unsigned int max, n, i;
	int ret = 0;

	if (args->flags || args->pad)
		return -EINVAL;
	if (args->segs_count && !args->segs_ptr)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	if (!primebuf_is_primebuf_object(obj)) {
		ret = -EINVAL;
		goto out_put;
	}

	max = min_t(u32, args->segs_count, 65536);
	if (max) {
		segs = kvmalloc_array(max, sizeof(*segs), GFP_KERNEL);
		if (!segs) {
			ret = -ENOMEM;
			goto out_put;
		}
	}

	n = primebuf_bo_get_segments(to_primebuf_bo(obj), segs, max);
	/*
	 * Without an IOMMU a DMA address is a physical address, which an
	 * unprivileged process must not learn (/proc/pid/pagemap hides PFNs
	 * from it for the same reason).  It still gets the layout: how many
	 * segments and how long each is.
	 */
	if (!capable(CAP_SYS_ADMIN))
		for (i = 0; i < min(n, max); i++)
			segs[i].addr = 0;
	args->size = obj->size;
	args->placement = vrender_placement(obj);
	args->nsegs = n;
	BUILD_BUG_ON(sizeof(*segs) != sizeof(struct drm_vrender_segment));
	if (max && copy_to_user(u64_to_user_ptr(args->segs_ptr), segs,
				min(n, max) * sizeof(*segs)))
		ret = -EFAULT;

	kvfree(segs);
out_put:
	drm_gem_object_put(obj);
	return ret;
}

int vrender_ioctl_bo_wait(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_vrender_bo_wait *args = data;
	struct vrender_file *vf = file->driver_priv;
	struct drm_gem_object *obj;
	long timeout;
	long ret;

	if (args->flags)
		return -EINVAL;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;

	timeout = args->timeout_ns ?
		  drm_timeout_abs_to_jiffies(args->timeout_ns) : 0;
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_READ, true,
				    timeout);
	drm_gem_object_put(obj);

	if (ret == 0)
		return -ETIME;
	if (ret < 0)
		return ret;
	/*
	 * Idle means the device is done with the buffer: the jobs of this
	 * file that have run also let go of their mappings, which follows
	 * their fences by a moment (they are released in a worker).
	 */
	if (!timeout)
		return 0;
	ret = wait_event_interruptible_timeout(vf->room,
					       !atomic_read(&vf->ran_unreleased),
					       ret);
	return ret < 0 ? ret : 0;
}

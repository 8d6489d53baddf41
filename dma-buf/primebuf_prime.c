// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf - the dma-buf exporter of primebuf buffers and the importer of
 * everybody else's
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/module.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>

#include <primepair/compat.h>

#include "primebuf_internal.h"
#include "primebuf_trace.h"

/**
 * DOC: exporter
 *
 * Which callbacks run under the buffer's reservation lock: since Linux 6.2
 * the dma-buf core holds it around map_dma_buf, unmap_dma_buf, vmap and
 * vunmap; on 6.1 it holds it for none of them.  primebuf therefore guards
 * its state with &primebuf_bo.lock, a mutex that always nests inside the
 * reservation lock and never takes it, so the same code is correct under
 * both rules.  attach, detach, mmap, begin_cpu_access, end_cpu_access and
 * release run without the reservation lock on both kernels.
 *
 * The core's own sg table cache (cache_sgt_mapping) is not used: it would
 * keep a mapping for the whole life of an attachment and hide every unmap
 * from the exporter.  primebuf caches each device's table itself and
 * drops it when the backing moves.
 */

static struct primebuf_bo *dmabuf_to_bo(struct dma_buf *dmabuf)
{
	return to_primebuf_bo(dmabuf->priv);
}

static int primebuf_dmabuf_attach(struct dma_buf *dmabuf,
				  struct dma_buf_attachment *attach)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);
	struct primebuf_attachment *pa;
	bool waited = false;
	int ret;

	if (primebuf_inject_failure(PRIMEBUF_FAIL_ATTACH))
		return -ENOMEM;

	pa = kzalloc(sizeof(*pa), GFP_KERNEL);
	if (!pa)
		return -ENOMEM;
	pa->dev = attach->dev;
	primebuf_device_constraints(attach->dev, &pa->constraints);

	for (;;) {
		bool busy;

		mutex_lock(&bo->lock);
		ret = primebuf_check_attach(bo, &pa->constraints);
		if (!ret)
			list_add_tail(&pa->node, &bo->attachments);
		/* Only device jobs end by themselves; a vmap stays. */
		busy = ret == -EBUSY && !bo->vmap_count;
		mutex_unlock(&bo->lock);
		if (!busy || waited)
			break;
		ret = primebuf_wait_idle(bo);
		if (ret)
			break;
		waited = true;
	}
	if (ret) {
		kfree(pa);
		return ret;
	}

	attach->priv = pa;
	atomic_long_inc(&primebuf_stats.attachments);
	trace_primebuf_attach(bo, pa);
	return 0;
}

static void primebuf_dmabuf_detach(struct dma_buf *dmabuf,
				   struct dma_buf_attachment *attach)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);
	struct primebuf_attachment *pa = attach->priv;

	trace_primebuf_detach(bo, pa);
	mutex_lock(&bo->lock);
	WARN_ON_ONCE(pa->map_count);
	primebuf_attachment_drop_sgt(pa);
	list_del(&pa->node);
	mutex_unlock(&bo->lock);

	kfree(pa);
	atomic_long_dec(&primebuf_stats.attachments);
}

static struct sg_table *primebuf_map_dma_buf(struct dma_buf_attachment *attach,
					     enum dma_data_direction dir)
{
	struct primebuf_bo *bo = dmabuf_to_bo(attach->dmabuf);
	struct sg_table *sgt;

	primepair_assert_resv_held_by_core(attach->dmabuf);

	mutex_lock(&bo->lock);
	sgt = primebuf_attachment_map(bo, attach->priv, dir);
	mutex_unlock(&bo->lock);
	return sgt;
}

static void primebuf_unmap_dma_buf(struct dma_buf_attachment *attach,
				   struct sg_table *sgt,
				   enum dma_data_direction dir)
{
	struct primebuf_bo *bo = dmabuf_to_bo(attach->dmabuf);

	primepair_assert_resv_held_by_core(attach->dmabuf);

	mutex_lock(&bo->lock);
	primebuf_attachment_unmap(bo, attach->priv);
	mutex_unlock(&bo->lock);
}

static void primebuf_dmabuf_release(struct dma_buf *dmabuf)
{
	atomic_long_dec(&primebuf_stats.exports);
	/* Drops the GEM object and the device the export held. */
	drm_gem_dmabuf_release(dmabuf);
}

static int primebuf_dmabuf_mmap(struct dma_buf *dmabuf,
				struct vm_area_struct *vma)
{
	/*
	 * Map through the GEM object's fake offset: the dma-buf file shares
	 * the DRM device's address space, so migration zaps these mappings
	 * together with those made through the DRM fd.
	 */
	return drm_gem_prime_mmap(dmabuf->priv, vma);
}

static int primebuf_dmabuf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);
	int ret;

	primepair_assert_resv_held_by_core(dmabuf);

	mutex_lock(&bo->lock);
	ret = primebuf_bo_vmap_locked(bo, map);
	mutex_unlock(&bo->lock);
	return ret;
}

static void primebuf_dmabuf_vunmap(struct dma_buf *dmabuf,
				   struct iosys_map *map)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);

	primepair_assert_resv_held_by_core(dmabuf);

	mutex_lock(&bo->lock);
	primebuf_bo_vunmap_locked(bo);
	mutex_unlock(&bo->lock);
}

static int primebuf_begin_cpu_access(struct dma_buf *dmabuf,
				     enum dma_data_direction dir)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);
	long wait;
	int ret;

	/*
	 * The core waits for the fences only after this returns, and the
	 * mappings synced below are those a device may still be writing
	 * through: wait first, for writers (and for readers too before a
	 * CPU write).
	 */
	wait = dma_resv_wait_timeout(dmabuf->resv,
				     dma_resv_usage_rw(dir != DMA_FROM_DEVICE),
				     true, MAX_SCHEDULE_TIMEOUT);
	if (wait < 0)
		return wait;

	mutex_lock(&bo->lock);
	/* CPU access is a first use too: allocate for everyone attached. */
	ret = primebuf_prepare_backing(bo);
	if (!ret)
		primebuf_bo_sync(bo, true);
	mutex_unlock(&bo->lock);
	return ret;
}

static int primebuf_end_cpu_access(struct dma_buf *dmabuf,
				   enum dma_data_direction dir)
{
	struct primebuf_bo *bo = dmabuf_to_bo(dmabuf);

	mutex_lock(&bo->lock);
	primebuf_bo_sync(bo, false);
	mutex_unlock(&bo->lock);
	return 0;
}

const struct dma_buf_ops primebuf_dmabuf_ops = {
	.attach = primebuf_dmabuf_attach,
	.detach = primebuf_dmabuf_detach,
	.map_dma_buf = primebuf_map_dma_buf,
	.unmap_dma_buf = primebuf_unmap_dma_buf,
	.release = primebuf_dmabuf_release,
	.mmap = primebuf_dmabuf_mmap,
	.vmap = primebuf_dmabuf_vmap,
	.vunmap = primebuf_dmabuf_vunmap,
	.begin_cpu_access = primebuf_begin_cpu_access,
	.end_cpu_access = primebuf_end_cpu_access,
};

/**
 * primebuf_gem_export - &drm_gem_object_funcs.export of primebuf buffers
 * @obj: the buffer (never an import: DRM re-exports imports itself)
 * @flags: file flags for the dma-buf (O_CLOEXEC, O_RDWR)
 *
 * Return: the new dma-buf, or an ERR_PTR.
 */
struct dma_buf *primebuf_gem_export(struct drm_gem_object *obj, int flags)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dmabuf;
	int ret;

	/* dma-buf mmap goes through the GEM object's fake offset. */
	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		return ERR_PTR(ret);

	exp_info.exp_name = obj->dev->driver->name;
	/*
	 * The dma-buf pins the module whose device owns the buffer (and so
	 * primebuf, which it depends on): the device's release code must
	 * stay loaded for as long as the buffer can outlive its fds.
	 */
	exp_info.owner = obj->dev->driver->fops->owner;
	exp_info.ops = &primebuf_dmabuf_ops;
	exp_info.size = obj->size;
	exp_info.flags = flags;
	exp_info.priv = obj;
	exp_info.resv = obj->resv;

	dmabuf = drm_gem_dmabuf_export(obj->dev, &exp_info);
	if (!IS_ERR(dmabuf)) {
		atomic_long_inc(&primebuf_stats.exports);
		trace_primebuf_export(to_primebuf_bo(obj));
	}
	return dmabuf;
}

/**
 * primebuf_gem_prime_import() - &drm_driver.gem_prime_import for primebuf
 * @dev: the importing device
 * @dma_buf: the buffer to import
 *
 * A buffer this device exported comes back as the same GEM object (so
 * DRM's PRIME lookup returns the same handle).  Anything else, including
 * buffers of another primepair device, is attached for @dev and wrapped
 * in a new GEM object; nothing is mapped until the device uses it.
 *
 * Context: process context.
 * Return: a GEM object with one reference, -EINVAL for a buffer whose size
 * is not a whole number of pages, or an ERR_PTR from attach (e.g. -EBUSY
 * or -E2BIG from primebuf exporters, see "placement").
 */
struct drm_gem_object *primebuf_gem_prime_import(struct drm_device *dev,
						 struct dma_buf *dma_buf)
{
	struct dma_buf_attachment *attach;
	struct primebuf_bo *bo;

	if (dma_buf->ops == &primebuf_dmabuf_ops) {
		struct drm_gem_object *obj = dma_buf->priv;

		if (obj->dev == dev) {
			drm_gem_object_get(obj);
			return obj;
		}
	}

	/*
	 * GEM objects, mmap offsets and the engine's walks are in whole
	 * pages; a foreign exporter may hand out any size.
	 */
	if (!PAGE_ALIGNED(dma_buf->size))
		return ERR_PTR(-EINVAL);

	attach = dma_buf_attach(dma_buf, dev->dev);
	if (IS_ERR(attach))
		return ERR_CAST(attach);

	bo = primebuf_bo_alloc(dev, dma_buf->size, dma_buf->resv);
	if (IS_ERR(bo)) {
		dma_buf_detach(dma_buf, attach);
		return ERR_CAST(bo);
	}
	/* Only primebuf_bo_map() maps it: the device syncs at each use. */
	if (dma_buf->ops == &primebuf_dmabuf_ops) {
		struct primebuf_bo *owner = dmabuf_to_bo(dma_buf);
		struct primebuf_attachment *pa = attach->priv;

		mutex_lock(&owner->lock);
		pa->per_use_sync = true;
		mutex_unlock(&owner->lock);
	}
	/* From here the GEM object owns the attachment and a reference. */
	get_dma_buf(dma_buf);
	bo->base.import_attach = attach;
	atomic_long_inc(&primebuf_stats.imports);
	trace_primebuf_import(bo);
	return &bo->base;
}
EXPORT_SYMBOL_NS_GPL(primebuf_gem_prime_import, "PRIMEBUF");

void primebuf_import_release(struct primebuf_bo *bo)
{
	struct dma_buf_attachment *attach = bo->base.import_attach;
	struct dma_buf *dma_buf = attach->dmabuf;

	dma_buf_detach(dma_buf, attach);
	dma_buf_put(dma_buf);
	atomic_long_dec(&primebuf_stats.imports);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf - module set-up, device constraints, accounting and debugfs
 */

#include <linux/debugfs.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>

#include "primebuf_internal.h"

#define CREATE_TRACE_POINTS
#include "primebuf_trace.h"

/**
 * DOC: overview
 *
 * primebuf owns the memory of every buffer that vdisplay and vrender
 * create, and it is the exporter whenever one of those buffers leaves its
 * device as a dma-buf.  It is also the importer-side helper both drivers
 * use for buffers that come from elsewhere.
 *
 * Who holds a reference to whom:
 *
 * - a GEM handle holds the &struct primebuf_bo (the GEM object);
 * - an exported dma-buf holds the GEM object and the exporting
 *   &struct drm_device, and its file pins the exporting driver module;
 * - the GEM object caches its dma-buf in &drm_gem_object.dma_buf while it
 *   has handles, so that a second export returns the same file;
 * - an importing device's GEM object holds a reference to the dma-buf and
 *   one attachment to it; it maps the attachment only around each use.
 *
 * So vdisplay's object outlives its handles for as long as the dma-buf
 * lives, and the dma-buf outlives its fds for as long as vrender's import
 * lives.  The backing storage goes with the last of them: release runs
 * exactly once, in whatever order the references are dropped.
 */

struct primebuf_stats primebuf_stats;

/* Protects primebuf_buffers and primebuf_next_id. */
static DEFINE_MUTEX(primebuf_list_lock);
static LIST_HEAD(primebuf_buffers);
static u64 primebuf_next_id;

/* Protects primebuf_devices. */
static DEFINE_MUTEX(primebuf_devices_lock);
static LIST_HEAD(primebuf_devices);

struct primebuf_device {
	struct list_head node;
	struct device *dev;
	struct primebuf_constraints constraints;
};

static struct dentry *primebuf_debugfs;

void primebuf_track(struct primebuf_bo *bo)
{
	mutex_lock(&primebuf_list_lock);
	bo->id = ++primebuf_next_id;
	list_add_tail(&bo->node, &primebuf_buffers);
	mutex_unlock(&primebuf_list_lock);
}

void primebuf_untrack(struct primebuf_bo *bo)
{
	mutex_lock(&primebuf_list_lock);
	list_del(&bo->node);
	mutex_unlock(&primebuf_list_lock);
}

/* ----------------------------------------------------------------------
 * Device constraints
 */

/**
 * primebuf_register_device() - declare the DMA constraints of a device
 * @dev: the device that will attach to or own primebuf buffers
 * @c: its constraints; @c->contiguous is what dma_parms cannot express
 *
 * Buffers allocated, or migrated, after this call satisfy @c whenever
 * @dev owns them or is attached to them.
 *
 * Context: process context; takes a mutex.
 * Return: 0, -EEXIST if @dev is registered already, or -ENOMEM.
 */
int primebuf_register_device(struct device *dev,
			     const struct primebuf_constraints *c)
{
	struct primebuf_device *pd, *it;

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	pd->dev = dev;
	pd->constraints = *c;

	mutex_lock(&primebuf_devices_lock);
	list_for_each_entry(it, &primebuf_devices, node) {
		if (it->dev == dev) {
			mutex_unlock(&primebuf_devices_lock);
			kfree(pd);
			return -EEXIST;
		}
	}
	list_add(&pd->node, &primebuf_devices);
	mutex_unlock(&primebuf_devices_lock);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(primebuf_register_device, "PRIMEBUF");

/**
 * primebuf_fence_release() - release a &struct primebuf_fence
 * @fence: its base fence, whose last reference went
 *
 * Frees the fence, drops the fence it follows, and only then the owner
 * module's reference: after that no code of the owner runs for this
 * fence, as this function is primebuf's.
 *
 * Context: any context (&dma_fence_ops.release).
 */
void primebuf_fence_release(struct dma_fence *fence)
{
	struct primebuf_fence *pf = container_of(fence, struct primebuf_fence,
						 base);
	struct module *owner = pf->owner;

	dma_fence_put(pf->inner);
	dma_fence_free(fence);
	module_put(owner);
}
EXPORT_SYMBOL_NS_GPL(primebuf_fence_release, "PRIMEBUF");

/**
 * primebuf_unregister_device() - forget a device's declared constraints
 * @dev: a device passed to primebuf_register_device() before
 *
 * Context: process context; takes a mutex.
 */
void primebuf_unregister_device(struct device *dev)
{
	struct primebuf_device *pd, *tmp;

	mutex_lock(&primebuf_devices_lock);
	list_for_each_entry_safe(pd, tmp, &primebuf_devices, node) {
		if (pd->dev == dev) {
			list_del(&pd->node);
			kfree(pd);
		}
	}
	mutex_unlock(&primebuf_devices_lock);
}
EXPORT_SYMBOL_NS_GPL(primebuf_unregister_device, "PRIMEBUF");

/**
 * primebuf_device_unmap_all() - drop the mappings kept for a device
 * @dev: a device whose driver is letting go of it, its last use over
 *
 * primebuf keeps a device's DMA mapping of a buffer from one use to the
 * next (primebuf_attachment_map()).  A device without a driver may keep
 * none (an IOMMU domain may go with the driver), so unbinding drops them;
 * the buffers, and mappings for other devices, stay.  A mapping still in
 * use is left to its user.
 *
 * Context: process context; takes the buffer list's and each buffer's
 * lock.
 */
void primebuf_device_unmap_all(struct device *dev)
{
	struct primebuf_attachment *pa;
	struct primebuf_bo *bo;

	mutex_lock(&primebuf_list_lock);
	list_for_each_entry(bo, &primebuf_buffers, node) {
		mutex_lock(&bo->lock);
		list_for_each_entry(pa, &bo->attachments, node)
			if (pa->dev == dev && !pa->map_count)
				primebuf_attachment_drop_sgt(pa);
		mutex_unlock(&bo->lock);
	}
	mutex_unlock(&primebuf_list_lock);
}
EXPORT_SYMBOL_NS_GPL(primebuf_device_unmap_all, "PRIMEBUF");

void primebuf_device_constraints(struct device *dev,
				 struct primebuf_constraints *c)
{
	struct primebuf_device *pd;
	size_t max_map;

	mutex_lock(&primebuf_devices_lock);
	list_for_each_entry(pd, &primebuf_devices, node) {
		if (pd->dev == dev) {
			*c = pd->constraints;
			mutex_unlock(&primebuf_devices_lock);
			goto out;
		}
	}
	mutex_unlock(&primebuf_devices_lock);

	c->dma_mask = dev->dma_mask ? *dev->dma_mask : dev->coherent_dma_mask;
	if (!c->dma_mask)
		c->dma_mask = DMA_BIT_MASK(32);
	c->max_segment_size = dma_get_max_seg_size(dev);
	c->segment_boundary_mask = dma_get_seg_boundary(dev);
	c->contiguous = false;
out:
	/*
	 * Through bounce buffers (swiotlb=force, confidential guests, a
	 * device that cannot reach all memory) one segment maps at most
	 * dma_max_mapping_size(): cut segments to that, whatever the device
	 * declared, or mapping a large buffer fails.
	 */
	max_map = dma_max_mapping_size(dev) & PAGE_MASK;
	if (max_map && max_map < c->max_segment_size)
		c->max_segment_size = max_map;
}

/* ----------------------------------------------------------------------
 * debugfs
 */

static int primebuf_summary_show(struct seq_file *m, void *unused)
{
	struct primebuf_stats *s = &primebuf_stats;

	seq_printf(m, "buffers: %ld\n", atomic_long_read(&s->buffers));
	seq_printf(m, "imports: %ld\n", atomic_long_read(&s->imports));
	seq_printf(m, "exports: %ld\n", atomic_long_read(&s->exports));
	seq_printf(m, "attachments: %ld\n", atomic_long_read(&s->attachments));
	seq_printf(m, "mappings: %ld\n", atomic_long_read(&s->mappings));
	seq_printf(m, "vmaps: %ld\n", atomic_long_read(&s->vmaps));
	seq_printf(m, "bytes: %ld\n", atomic_long_read(&s->bytes));
	seq_printf(m, "migrations: %ld\n", atomic_long_read(&s->migrations));
	seq_printf(m, "map_calls: %ld\n", atomic_long_read(&s->map_calls));
	seq_printf(m, "map_cache_hits: %ld\n",
		   atomic_long_read(&s->map_cache_hits));
	seq_printf(m, "vmap_cache_hits: %ld\n",
		   atomic_long_read(&s->vmap_cache_hits));
	seq_printf(m, "vmap_created: %ld\n",
		   atomic_long_read(&s->vmap_created));
	seq_printf(m, "created: %ld\n", atomic_long_read(&s->created));
	seq_printf(m, "released: %ld\n", atomic_long_read(&s->released));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(primebuf_summary);

static void primebuf_show_one(struct seq_file *m, struct primebuf_bo *bo)
{
	struct primebuf_attachment *pa;
	unsigned int nattach = 0;
	phys_addr_t phys = 0;
	bool first = true;

	mutex_lock(&bo->lock);
	if (bo->backing.pages)
		phys = page_to_phys(bo->backing.pages[0]);
	list_for_each_entry(pa, &bo->attachments, node)
		nattach += !pa->internal;
	seq_printf(m, "%llu %zu %s %s %u %u %u %u %pa ", bo->id, bo->base.size,
		   bo->base.import_attach ? "import" :
		   primebuf_placement_name(bo->backing.placement),
		   bo->base.dev->driver->name, nattach, bo->map_count,
		   bo->vmap_count, bo->migrations, &phys);
	list_for_each_entry(pa, &bo->attachments, node) {
		seq_printf(m, "%s%s%s=%u", first ? "" : ",",
			   pa->internal ? "*" : "", dev_name(pa->dev),
			   pa->nsegs);
		first = false;
	}
	seq_puts(m, first ? "-\n" : "\n");
	mutex_unlock(&bo->lock);
}

static int primebuf_buffers_show(struct seq_file *m, void *unused)
{
	struct primebuf_bo *bo;

	seq_puts(m, "# id size placement driver attachments maps vmaps migrations first-page segments\n");
	mutex_lock(&primebuf_list_lock);
	list_for_each_entry(bo, &primebuf_buffers, node)
		primebuf_show_one(m, bo);
	mutex_unlock(&primebuf_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(primebuf_buffers);

/*
 * Fault injection points.  primebuf has no knob for them: the self-test
 * module, which is never installed, arms them for the test suite.  Each
 * counter is the number of operations of its kind still to fail.
 */
static atomic_t primebuf_fail[PRIMEBUF_FAIL_COUNT];

bool primebuf_inject_failure(enum primebuf_fail what)
{
	return atomic_dec_if_positive(&primebuf_fail[what]) >= 0;
}

/**
 * primebuf_inject_job_hang() - should this job of a device hang?
 *
 * A fault injection point for drivers with an engine (vrender): the
 * self-test module sets how many of the next jobs, on any device, hang
 * until their timeout.  Without it loaded and armed, never.
 *
 * Context: any.
 * Return: true if the caller's job is one of them.
 */
bool primebuf_inject_job_hang(void)
{
	return primebuf_inject_failure(PRIMEBUF_FAIL_JOB_HANG);
}
EXPORT_SYMBOL_NS_GPL(primebuf_inject_job_hang, "PRIMEBUF");

/**
 * primebuf_fail_counter() - the counter of a fault injection point
 * @what: which kind of operation
 *
 * For primebuf_selftest only.
 *
 * Context: any.
 * Return: the number of @what operations still to fail, to be set.
 */
atomic_t *primebuf_fail_counter(enum primebuf_fail what)
{
	return &primebuf_fail[what];
}
EXPORT_SYMBOL_NS_GPL(primebuf_fail_counter, "PRIMEBUF");

static int __init primebuf_init(void)
{
	primebuf_debugfs = debugfs_create_dir("primebuf", NULL);
	debugfs_create_file("summary", 0444, primebuf_debugfs, NULL,
			    &primebuf_summary_fops);
	/* It lists physical addresses: for root only. */
	debugfs_create_file("buffers", 0400, primebuf_debugfs, NULL,
			    &primebuf_buffers_fops);
	return 0;
}

static void __exit primebuf_exit(void)
{
	debugfs_remove_recursive(primebuf_debugfs);
}

module_init(primebuf_init);
module_exit(primebuf_exit);

MODULE_DESCRIPTION("primepair buffer objects and dma-buf exporter/importer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("DMA_BUF");

// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf - buffer objects: late allocation, placement, scatterlists,
 * migration and CPU access
 */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_device.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_vma_manager.h>

#include <primepair/compat.h>

#include "primebuf_internal.h"
#include "primebuf_trace.h"

/**
 * DOC: placement
 *
 * A buffer has no memory when it is created.  Memory is allocated when a
 * device first maps the buffer or the CPU first touches it (mmap fault,
 * vmap, DMA_BUF_IOCTL_SYNC), because only then does primebuf know every
 * device that will use it.  The constraints of the owning device and of
 * every attachment present at that moment decide the placement:
 *
 * - if any of them takes only one segment, the buffer is one physically
 *   contiguous block (at most MAX_PAGE_ORDER pages of order;
 *   larger buffers can never satisfy such a device and attaching one
 *   fails with -E2BIG);
 * - otherwise it is scattered pages, allocated in runs of up to 1 MiB
 *   where the page allocator has them, so that devices with large
 *   segments get few of them;
 * - if any DMA mask is narrower than 64 bits, the pages come from below
 *   4 GiB; masks narrower than 32 bits are refused at attach (-ERANGE).
 *
 * A device that attaches later and is not satisfied by the current
 * placement makes the next map move the buffer (migration): new memory
 * is allocated, CPU mappings are zapped (they re-fault, into the new
 * memory, once the move is over), the contents are copied, and every
 * device's cached scatterlist is dropped.  That can
 * only happen while nothing is mapped or vmapped; attaching such a
 * device to a buffer that is in use fails with -EBUSY.
 */

/* Largest run the scattered placement asks the page allocator for. */
#define PRIMEBUF_SCATTER_ORDER	8

static unsigned int max_size_mb = 1024;
module_param(max_size_mb, uint, 0444);
MODULE_PARM_DESC(max_size_mb, "Largest buffer primebuf creates, in MiB (default 1024)");

static unsigned int max_total_mb;
module_param(max_total_mb, uint, 0644);
MODULE_PARM_DESC(max_total_mb, "Most backing memory all buffers together may hold, in MiB (default 0: half of RAM)");

/*
 * Reserve @bytes of backing against max_total_mb: unprivileged clients of
 * a render node decide how much memory their buffers take, and must not
 * be able to take it all.
 */
static bool primebuf_reserve_bytes(unsigned long bytes)
{
	unsigned long limit = max_total_mb ? (unsigned long)max_total_mb << 20 :
			      (totalram_pages() << PAGE_SHIFT) / 2;

	if (atomic_long_add_return(bytes, &primebuf_stats.bytes) <= limit)
		return true;
	atomic_long_sub(bytes, &primebuf_stats.bytes);
	return false;
}

/* ----------------------------------------------------------------------
 * Backing storage
 */

static void primebuf_backing_free(struct primebuf_backing *b,
				  unsigned long npages)
{
	unsigned long i;

	if (b->placement == PRIMEBUF_PLACEMENT_CONTIG) {
		free_pages_exact(b->contig_vaddr, npages << PAGE_SHIFT);
	} else if (b->placement == PRIMEBUF_PLACEMENT_PAGES) {
		for (i = 0; i < npages; i++)
			__free_page(b->pages[i]);
	}
	if (b->placement != PRIMEBUF_PLACEMENT_NONE)
		atomic_long_sub(npages << PAGE_SHIFT, &primebuf_stats.bytes);
	kvfree(b->pages);
	memset(b, 0, sizeof(*b));
}

static int primebuf_alloc_scattered(struct primebuf_backing *b,
				    unsigned long npages, gfp_t gfp)
{
	unsigned int order = min_t(unsigned int, PRIMEBUF_SCATTER_ORDER,
				   ilog2(npages));
	unsigned long i = 0, j;
	struct page *page;

	while (i < npages) {
		if (fatal_signal_pending(current))
			goto out_free;
		while ((1UL << order) > npages - i)
			order--;
		page = alloc_pages(order ? gfp | __GFP_NORETRY | __GFP_NOWARN :
				   gfp, order);
		if (!page) {
			if (!order)
				goto out_free;
			order--;
			continue;
		}
		if (order)
			split_page(page, order);
		for (j = 0; j < (1UL << order); j++)
			b->pages[i++] = page + j;
	}
	return 0;

out_free:
	while (i--)
		__free_page(b->pages[i]);
	return fatal_signal_pending(current) ? -EINTR : -ENOMEM;
}

static int primebuf_alloc_contig(struct primebuf_backing *b,
				 unsigned long npages, gfp_t gfp)
{
	unsigned long i;

	if (get_order(npages << PAGE_SHIFT) > MAX_PAGE_ORDER)
		return -E2BIG;
	b->contig_vaddr = alloc_pages_exact(npages << PAGE_SHIFT,
					    gfp | __GFP_NOWARN);
	if (!b->contig_vaddr)
		return -ENOMEM;
	for (i = 0; i < npages; i++)
		b->pages[i] = virt_to_page(b->contig_vaddr + i * PAGE_SIZE);
	return 0;
}

static int primebuf_backing_alloc(struct primebuf_backing *b,
				  unsigned long npages,
				  const struct primebuf_constraints *req)
{
	/*
	 * Userspace decides how much memory its buffers take: when there is
	 * not enough, the first use fails with -ENOMEM rather than waking
	 * the OOM killer to make room.  The pages are charged to the active
	 * memory cgroup (the creator's, see primebuf_charged_alloc()).
	 */
	gfp_t gfp = GFP_KERNEL | __GFP_ZERO | __GFP_RETRY_MAYFAIL |
		    __GFP_NOWARN | __GFP_ACCOUNT;
	unsigned long i;
	int ret;

	if (req->dma_mask < DMA_BIT_MASK(64))
		gfp |= __GFP_DMA32;

	if (primebuf_inject_failure(PRIMEBUF_FAIL_ALLOC))
		return -ENOMEM;
	if (!primebuf_reserve_bytes(npages << PAGE_SHIFT))
		return -ENOMEM;

	b->pages = kvmalloc_array(npages, sizeof(*b->pages),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!b->pages) {
		ret = -ENOMEM;
		goto out_unreserve;
	}

	if (req->contiguous)
		ret = primebuf_alloc_contig(b, npages, gfp);
	else
		ret = primebuf_alloc_scattered(b, npages, gfp);
	if (ret)
		goto out_free_array;

	b->placement = req->contiguous ? PRIMEBUF_PLACEMENT_CONTIG :
					 PRIMEBUF_PLACEMENT_PAGES;

	b->max_addr = 0;
	for (i = 0; i < npages; i++)
		b->max_addr = max(b->max_addr,
				  page_to_phys(b->pages[i]) + PAGE_SIZE - 1);
	if (b->max_addr > req->dma_mask) {
		primebuf_backing_free(b, npages);
		return -ENOMEM;
	}
	return 0;

out_free_array:
	kvfree(b->pages);
	b->pages = NULL;
out_unreserve:
	atomic_long_sub(npages << PAGE_SHIFT, &primebuf_stats.bytes);
	return ret;
}

/*
 * Backing is allocated at first use, which may be a job of the device in
 * a scheduler thread: charge it to the creator's memory cgroup, not to
 * whoever's thread happens to allocate.
 */
static int primebuf_charged_alloc(struct primebuf_bo *bo,
				  struct primebuf_backing *b,
				  const struct primebuf_constraints *req)
{
	struct mem_cgroup *old = set_active_memcg(bo->memcg);
	int ret;

	ret = primebuf_backing_alloc(b, bo->npages, req);
	set_active_memcg(old);
	return ret;
}

/* ----------------------------------------------------------------------
 * Constraints and placement
 */

static void primebuf_requirements(struct primebuf_bo *bo,
				  struct primebuf_constraints *req)
{
	struct primebuf_constraints own;
	struct primebuf_attachment *pa;

	lockdep_assert_held(&bo->lock);

	primebuf_device_constraints(bo->base.dev->dev, &own);
	*req = own;
	list_for_each_entry(pa, &bo->attachments, node) {
		req->dma_mask = min(req->dma_mask, pa->constraints.dma_mask);
		req->contiguous |= pa->constraints.contiguous;
	}
}

static bool primebuf_backing_fits(struct primebuf_bo *bo,
				  const struct primebuf_constraints *c)
{
	if (bo->backing.placement == PRIMEBUF_PLACEMENT_NONE)
		return true;
	if (bo->backing.max_addr > c->dma_mask)
		return false;
	if (c->contiguous &&
	    bo->backing.placement != PRIMEBUF_PLACEMENT_CONTIG)
		return false;
	return true;
}

/*
 * Refuse what no placement can ever satisfy.  A contiguous block of order
 * n is aligned to its own size, so it never crosses a boundary that is at
 * least as large as the block.
 */
static int primebuf_check_possible(struct primebuf_bo *bo,
				   const struct primebuf_constraints *c)
{
	size_t size = bo->base.size;

	if (c->dma_mask < DMA_BIT_MASK(32))
		return -ERANGE;
	if (!c->contiguous)
		return 0;
	if (get_order(size) > MAX_PAGE_ORDER)
		return -E2BIG;
	if (size > c->max_segment_size)
		return -E2BIG;
	if (c->segment_boundary_mask != ULONG_MAX &&
	    (PAGE_SIZE << get_order(size)) - 1 > c->segment_boundary_mask)
		return -E2BIG;
	return 0;
}

/* How long a use that needs a busy buffer to move waits for it */
#define PRIMEBUF_BUSY_WAIT_FENCES	(10 * HZ)
#define PRIMEBUF_BUSY_WAIT_UNMAP	HZ

/**
 * primebuf_wait_idle - wait until the devices' jobs let go of a buffer
 * @bo: a buffer owned by primebuf, which must move for a new user
 *
 * Waits, as a move of a busy buffer does, for the fences of @bo (every
 * device job that uses it has one there), then for those jobs to drop
 * their mappings, which follows their fences.  Call without @bo's lock.
 *
 * Context: process context, interruptible.
 * Return: 0 when the wait ended (the caller checks again); -EBUSY if
 * the fences did not signal within 10 s; -ERESTARTSYS on a signal.
 */
int primebuf_wait_idle(struct primebuf_bo *bo)
{
	long t;

	t = dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP, true,
				  PRIMEBUF_BUSY_WAIT_FENCES);
	if (t <= 0)
		return t ?: -EBUSY;
	t = wait_event_interruptible_timeout(bo->unmapped,
					     !READ_ONCE(bo->map_count),
					     PRIMEBUF_BUSY_WAIT_UNMAP);
	return t < 0 ? t : 0;
}

/**
 * primebuf_check_attach - may a device with constraints @c attach now?
 * @bo: the buffer
 * @c: the new device's constraints
 *
 * Return: 0; -E2BIG or -ERANGE if no placement can ever satisfy @c;
 * -EBUSY if the current backing does not satisfy @c and cannot move
 * because it is mapped or vmapped.
 */
int primebuf_check_attach(struct primebuf_bo *bo,
			  const struct primebuf_constraints *c)
{
	int ret;

	lockdep_assert_held(&bo->lock);

	ret = primebuf_check_possible(bo, c);
	if (ret)
		return ret;
	if (!primebuf_backing_fits(bo, c) &&
	    (bo->map_count || bo->vmap_count))
		return -EBUSY;
	return 0;
}

static void primebuf_zap_cpu_mappings(struct primebuf_bo *bo)
{
	drm_vma_node_unmap(&bo->base.vma_node,
			   bo->base.dev->anon_inode->i_mapping);
}

static void primebuf_drop_vaddr(struct primebuf_bo *bo);

static int primebuf_migrate(struct primebuf_bo *bo,
			    const struct primebuf_constraints *req)
{
	struct primebuf_backing old = bo->backing, new = {};
	struct primebuf_attachment *pa;
	unsigned long i;
	int ret;

	ret = primebuf_charged_alloc(bo, &new, req);
	if (ret)
		return ret;

	/*
	 * CPU mappings go first: a thread still writing through one would
	 * otherwise write pages that were already copied, and lose those
	 * writes with the old backing.  Its next fault waits for bo->lock
	 * and maps the new pages.
	 */
	primebuf_zap_cpu_mappings(bo);
	for (i = 0; i < bo->npages; i++)
		copy_highpage(new.pages[i], old.pages[i]);

	list_for_each_entry(pa, &bo->attachments, node)
		primebuf_attachment_drop_sgt(pa);

	primebuf_drop_vaddr(bo);
	bo->backing = new;
	primebuf_backing_free(&old, bo->npages);
	bo->migrations++;
	atomic_long_inc(&primebuf_stats.migrations);
	trace_primebuf_migrate(bo);
	return 0;
}

/**
 * primebuf_prepare_backing - make sure the backing satisfies everyone
 * @bo: a buffer owned by primebuf (not an import)
 *
 * Allocates the backing at first use, or moves it when an attachment made
 * since the allocation needs a stricter placement.
 *
 * Return: 0 or a negative errno from allocation.
 */
int primebuf_prepare_backing(struct primebuf_bo *bo)
{
	struct primebuf_constraints req;

	lockdep_assert_held(&bo->lock);

	primebuf_requirements(bo, &req);
	if (bo->backing.placement == PRIMEBUF_PLACEMENT_NONE) {
		int ret = primebuf_charged_alloc(bo, &bo->backing, &req);

		if (!ret)
			trace_primebuf_alloc(bo);
		return ret;
	}
	if (primebuf_backing_fits(bo, &req))
		return 0;
	if (bo->map_count || bo->vmap_count)
		return -EBUSY;
	return primebuf_migrate(bo, &req);
}

/* ----------------------------------------------------------------------
 * Scatterlists
 */

/*
 * Walk the backing as the segments a device with constraints @c accepts:
 * physically adjacent pages are merged while the segment stays within
 * max_segment_size and does not cross the segment boundary.  Fills @sg
 * when given; returns the number of segments.
 */
static unsigned int primebuf_segments(struct primebuf_bo *bo,
				      const struct primebuf_constraints *c,
				      struct scatterlist *sg)
{
	unsigned long max_seg = max_t(unsigned long, PAGE_SIZE,
				      c->max_segment_size & PAGE_MASK);
	unsigned long mask = c->segment_boundary_mask;
	struct page **pages = bo->backing.pages;
	unsigned long i = 0, first, len;
	unsigned int nsegs = 0;
	phys_addr_t start;

	while (i < bo->npages) {
		first = i;
		start = page_to_phys(pages[i]);
		len = PAGE_SIZE;
		for (i++; i < bo->npages; i++) {
			phys_addr_t end = start + len + PAGE_SIZE - 1;

			if (page_to_phys(pages[i]) != start + len ||
			    len + PAGE_SIZE > max_seg ||
			    (start & ~mask) != (end & ~mask))
				break;
			len += PAGE_SIZE;
		}
		if (sg) {
			sg_set_page(sg, pages[first], len, 0);
			sg = sg_next(sg);
		}
		nsegs++;
	}
	return nsegs;
}

/*
 * The DMA API's syncs walk the whole table, a call per segment, even
 * where they have nothing to do: before 6.11 the core had no per-device
 * shortcut, and under emulation a cached map and unmap of a 256 MiB
 * buffer took some 200 us on 6.1 against 1 us on 6.12.  Whether any
 * segment needs them (a device that is not cache-coherent, or a bounce
 * buffer) is fixed when the table is mapped: ask once then, and skip
 * them on every later use when none does.
 */
static bool primebuf_sgt_need_sync(struct device *dev, struct sg_table *sgt)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i)
		if (dma_need_sync(dev, sg_dma_address(sg)))
			return true;
	return false;
}

static void primebuf_pa_sync_for_device(struct primebuf_attachment *pa)
{
	if (pa->need_sync)
		dma_sync_sgtable_for_device(pa->dev, &pa->sgt, pa->dir);
}

static void primebuf_pa_sync_for_cpu(struct primebuf_attachment *pa)
{
	if (pa->need_sync)
		dma_sync_sgtable_for_cpu(pa->dev, &pa->sgt, pa->dir);
}

/**
 * primebuf_attachment_drop_sgt - forget a device's cached mapping
 * @pa: the attachment
 *
 * The last use already gave the pages back to the CPU, which may have
 * written them since: the unmap must not sync (nor, under swiotlb, copy
 * a stale bounce buffer over those writes).
 */
void primebuf_attachment_drop_sgt(struct primebuf_attachment *pa)
{
	if (!pa->sgt_mapped)
		return;
	dma_unmap_sgtable(pa->dev, &pa->sgt, pa->dir, DMA_ATTR_SKIP_CPU_SYNC);
	sg_free_table(&pa->sgt);
	pa->sgt_mapped = false;
	pa->nsegs = 0;		/* no table, no segments to describe */
}

/**
 * primebuf_attachment_map - hand a device its mapping of the buffer
 * @bo: the buffer, locked
 * @pa: the device's attachment
 * @dir: direction of the DMA that follows
 *
 * The table is built for @pa's constraints and DMA-mapped for its device
 * once; later maps in a compatible direction return the cached table
 * without rebuilding or remapping it, so their cost does not depend on
 * the size of the buffer.
 *
 * A dma-buf may have several attachments with writable mappings of the
 * same pages at once: two importers, or one device that imported the
 * buffer again while a job still holds the first import.  The mapping is
 * made without CPU sync; the pages go to the device when the first of
 * its overlapping maps begins, and come back to the CPU in
 * primebuf_attachment_unmap() when the last one ends.  A map that comes
 * while the device still holds the pages leaves them alone: syncing them
 * for the device again would copy the CPU's stale view over what the
 * device has written since (bounce buffers under swiotlb).  CPU writes
 * made meanwhile reach the device through DMA_BUF_IOCTL_SYNC.  Writers
 * are ordered by the buffer's reservation fences.
 *
 * An attachment with @per_use_sync moves the pages at each use instead,
 * through primebuf_bo_device_begin() and primebuf_bo_device_end().
 *
 * Return: the table, or an ERR_PTR.
 */
struct sg_table *primebuf_attachment_map(struct primebuf_bo *bo,
					 struct primebuf_attachment *pa,
					 enum dma_data_direction dir)
{
	unsigned int nsegs;
	int ret;

	lockdep_assert_held(&bo->lock);

	if (primebuf_inject_failure(PRIMEBUF_FAIL_MAP))
		return ERR_PTR(-ENOMEM);

	ret = primebuf_prepare_backing(bo);
	if (ret)
		return ERR_PTR(ret);

	atomic_long_inc(&primebuf_stats.map_calls);
	if (pa->sgt_mapped) {
		if (pa->dir == dir || pa->dir == DMA_BIDIRECTIONAL) {
			/*
			 * A streaming mapping kept from an earlier use: what
			 * the CPU wrote since must reach the device (bounce
			 * buffers under swiotlb), unless the device still
			 * holds the pages for another use.
			 */
			if (!pa->map_count && !pa->per_use_sync)
				primebuf_pa_sync_for_device(pa);
			atomic_long_inc(&primebuf_stats.map_cache_hits);
			goto out_hit;
		}
		if (pa->map_count)
			return ERR_PTR(-EBUSY);
		primebuf_attachment_drop_sgt(pa);
	}

	nsegs = primebuf_segments(bo, &pa->constraints, NULL);
	ret = sg_alloc_table(&pa->sgt, nsegs, GFP_KERNEL);
	if (ret)
		return ERR_PTR(ret);
	primebuf_segments(bo, &pa->constraints, pa->sgt.sgl);

	ret = dma_map_sgtable(pa->dev, &pa->sgt, dir, DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(&pa->sgt);
		return ERR_PTR(ret);
	}
	pa->sgt_mapped = true;
	pa->dir = dir;
	pa->nsegs = nsegs;
	pa->need_sync = primebuf_sgt_need_sync(pa->dev, &pa->sgt);
	if (!pa->per_use_sync)
		primebuf_pa_sync_for_device(pa);

out_hit:
	pa->map_count++;
	bo->map_count++;
	atomic_long_inc(&primebuf_stats.mappings);
	trace_primebuf_map(bo, pa);
	return &pa->sgt;
}

/**
 * primebuf_attachment_unmap - end one use of a device's mapping
 * @bo: the buffer, locked
 * @pa: the attachment that was mapped
 *
 * The DMA mapping stays cached until the backing moves or the device
 * detaches.  The last of overlapping uses gives the pages back to the
 * CPU.
 */
void primebuf_attachment_unmap(struct primebuf_bo *bo,
			       struct primebuf_attachment *pa)
{
	lockdep_assert_held(&bo->lock);

	if (WARN_ON_ONCE(!pa->map_count))
		return;
	/* The mapping stays; what the device wrote goes back to the CPU. */
	if (pa->map_count == 1 && pa->dir != DMA_TO_DEVICE &&
	    !pa->per_use_sync)
		primebuf_pa_sync_for_cpu(pa);
	pa->map_count--;
	if (!--bo->map_count)
		wake_up_all(&bo->unmapped);
	atomic_long_dec(&primebuf_stats.mappings);
	trace_primebuf_unmap(bo, pa);
}

static unsigned int primebuf_pa_segments(struct primebuf_attachment *pa,
					 struct primebuf_segment *segs,
					 unsigned int max)
{
	struct scatterlist *sg;
	unsigned int i;

	if (!pa->sgt_mapped)
		return 0;
	for_each_sgtable_dma_sg(&pa->sgt, sg, i) {
		if (i >= max)
			break;
		segs[i].addr = sg_dma_address(sg);
		segs[i].len = sg_dma_len(sg);
	}
	return pa->sgt.nents;
}

/**
 * primebuf_bo_get_segments() - the device's view of a buffer
 * @bo: an own buffer or an import
 * @segs: array to fill with up to @max segments, may be NULL if @max is 0
 * @max: capacity of @segs
 *
 * Describes the current (or cached) DMA mapping of the device that owns
 * @bo: for own buffers the device's own mapping, for imports of a
 * primebuf exporter the mapping of the import's attachment.
 *
 * Context: process context; takes the buffer's lock.
 * Return: the number of segments of that mapping; 0 if there is none (never
 * mapped, or dropped when the buffer moved) or the exporter is not
 * primebuf.
 */
unsigned int primebuf_bo_get_segments(struct primebuf_bo *bo,
				      struct primebuf_segment *segs,
				      unsigned int max)
{
	struct dma_buf_attachment *attach = bo->base.import_attach;
	struct primebuf_bo *owner = bo;
	struct primebuf_attachment *pa;
	unsigned int n = 0;

	if (attach) {
		if (attach->dmabuf->ops != &primebuf_dmabuf_ops)
			return 0;
		owner = to_primebuf_bo(attach->dmabuf->priv);
	}

	mutex_lock(&owner->lock);
	pa = attach ? attach->priv : bo->self;
	if (pa)
		n = primebuf_pa_segments(pa, segs, max);
	mutex_unlock(&owner->lock);
	return n;
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_get_segments, "PRIMEBUF");

/**
 * primebuf_bo_placement() - where a buffer's storage currently is
 * @bo: the buffer
 *
 * Context: process context; takes the buffer's lock.
 * Return: the placement; %PRIMEBUF_PLACEMENT_NONE for imports.
 */
enum primebuf_placement primebuf_bo_placement(struct primebuf_bo *bo)
{
	enum primebuf_placement p;

	mutex_lock(&bo->lock);
	p = bo->backing.placement;
	mutex_unlock(&bo->lock);
	return p;
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_placement, "PRIMEBUF");

/* ----------------------------------------------------------------------
 * Device access by the owning or importing driver
 */

static struct primebuf_attachment *primebuf_self_attachment(struct primebuf_bo *bo)
{
	struct primebuf_attachment *pa;

	lockdep_assert_held(&bo->lock);

	if (bo->self)
		return bo->self;
	pa = kzalloc(sizeof(*pa), GFP_KERNEL);
	if (!pa)
		return NULL;
	pa->dev = bo->base.dev->dev;
	pa->internal = true;
	pa->per_use_sync = true;
	primebuf_device_constraints(pa->dev, &pa->constraints);
	list_add_tail(&pa->node, &bo->attachments);
	bo->self = pa;
	return pa;
}

static struct sg_table *primebuf_bo_map_once(struct primebuf_bo *bo,
					     enum dma_data_direction dir)
{
	struct primebuf_attachment *pa;
	struct sg_table *sgt;

	if (bo->base.import_attach)
		return dma_buf_map_attachment_unlocked(bo->base.import_attach,
						       dir);

	mutex_lock(&bo->lock);
	pa = primebuf_self_attachment(bo);
	sgt = pa ? primebuf_attachment_map(bo, pa, dir) : ERR_PTR(-ENOMEM);
	mutex_unlock(&bo->lock);
	return sgt;
}

/*
 * The primebuf buffer that holds @bo's memory: @bo, or the exporter's
 * buffer for an import of a primebuf dma-buf; NULL for another exporter.
 */
static struct primebuf_bo *primebuf_backing_owner(struct primebuf_bo *bo)
{
	struct dma_buf *dmabuf;

	if (!bo->base.import_attach)
		return bo;
	dmabuf = bo->base.import_attach->dmabuf;
	return dmabuf->ops == &primebuf_dmabuf_ops ?
	       to_primebuf_bo(dmabuf->priv) : NULL;
}

/**
 * primebuf_bo_map() - map a buffer for the device that holds the handle
 * @bo: an own buffer, or an import of a foreign dma-buf
 * @dir: direction of the DMA that follows
 *
 * Own buffers are mapped for their device directly; imports are mapped
 * through their dma-buf attachment, so the exporter sees every use.  Call
 * it before the device's use, and primebuf_bo_unmap() after it.  Between
 * the two, a device that reaches the buffer through the DMA addresses
 * calls primebuf_bo_device_begin() when the use starts and
 * primebuf_bo_device_end() when it ends.  If the buffer must move for
 * this device while other devices' jobs have it mapped, waits for those
 * jobs (primebuf_wait_idle()).
 *
 * Context: process context, may sleep (interruptibly, bounded); must not
 * hold @bo's reservation lock.
 * Return: the scatterlist for the device, or an ERR_PTR: -EBUSY if the
 * buffer stayed busy.
 */
struct sg_table *primebuf_bo_map(struct primebuf_bo *bo,
				 enum dma_data_direction dir)
{
	struct primebuf_bo *owner;
	struct sg_table *sgt;
	int ret;

	might_sleep();

	sgt = primebuf_bo_map_once(bo, dir);
	if (!IS_ERR(sgt) || PTR_ERR(sgt) != -EBUSY)
		return sgt;
	/*
	 * The buffer must move for this device while another device's jobs
	 * have it mapped: wait for them once, as attach does.
	 */
	owner = primebuf_backing_owner(bo);
	if (!owner)
		return sgt;
	ret = primebuf_wait_idle(owner);
	if (ret)
		return ERR_PTR(ret);
	return primebuf_bo_map_once(bo, dir);
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_map, "PRIMEBUF");

/**
 * primebuf_bo_unmap() - end a use started with primebuf_bo_map()
 * @bo: the buffer
 * @sgt: the table primebuf_bo_map() returned
 * @dir: the direction it was mapped with
 *
 * Context: process context, may sleep.
 */
void primebuf_bo_unmap(struct primebuf_bo *bo, struct sg_table *sgt,
		       enum dma_data_direction dir)
{
	if (bo->base.import_attach) {
		dma_buf_unmap_attachment_unlocked(bo->base.import_attach, sgt,
						  dir);
		return;
	}

	mutex_lock(&bo->lock);
	primebuf_attachment_unmap(bo, bo->self);
	mutex_unlock(&bo->lock);
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_unmap, "PRIMEBUF");

/*
 * The primebuf attachment that primebuf_bo_map() maps @bo through: the
 * device's own for its own buffer, the dma-buf one for an import of a
 * primebuf buffer; NULL for another exporter's buffer, which its exporter
 * syncs at map and unmap.
 */
static struct primebuf_attachment *primebuf_use_attachment(struct primebuf_bo *bo)
{
	struct dma_buf_attachment *attach = bo->base.import_attach;

	if (!attach)
		return bo->self;
	return attach->dmabuf->ops == &primebuf_dmabuf_ops ? attach->priv : NULL;
}

/**
 * primebuf_bo_device_begin() - give the pages to the device for one use
 * @bo: a buffer that primebuf_bo_map() mapped for this use
 *
 * A mapping from primebuf_bo_map() is held from before the use's
 * dependencies signal until after its fence has, and queued uses share
 * it, so the pages cannot move between CPU and device at map and unmap
 * time: a map while an earlier use's results are still on the device's
 * side would overwrite them, and an unmap after the fence would publish
 * them too late.  They move here instead, when the use starts, and in
 * primebuf_bo_device_end() before its fence signals.  Under swiotlb this
 * copies the buffer to the device's bounce buffers.  A device that only
 * reaches the buffer through the CPU (a kernel mapping) calls neither.
 *
 * Context: any; takes no lock and does not allocate, so it may run on
 * the way to a fence's signal.
 */
void primebuf_bo_device_begin(struct primebuf_bo *bo)
{
	struct primebuf_attachment *pa = primebuf_use_attachment(bo);

	if (pa)
		primebuf_pa_sync_for_device(pa);
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_device_begin, "PRIMEBUF");

/**
 * primebuf_bo_device_end() - give the pages back to the CPU after a use
 * @bo: the buffer of a primebuf_bo_device_begin()
 * @written: the device may have written the buffer
 *
 * Context: any; takes no lock and does not allocate.
 */
void primebuf_bo_device_end(struct primebuf_bo *bo, bool written)
{
	struct primebuf_attachment *pa = primebuf_use_attachment(bo);

	if (pa && written && pa->dir != DMA_TO_DEVICE)
		primebuf_pa_sync_for_cpu(pa);
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_device_end, "PRIMEBUF");

/* ----------------------------------------------------------------------
 * CPU access
 */

int primebuf_bo_vmap_locked(struct primebuf_bo *bo, struct iosys_map *map)
{
	void *vaddr;
	int ret;

	lockdep_assert_held(&bo->lock);

	if (bo->vmap_count) {
		bo->vmap_count++;
		iosys_map_set_vaddr(map, bo->vaddr);
		return 0;
	}

	/* A move of the backing drops a kept mapping first. */
	ret = primebuf_prepare_backing(bo);
	if (ret)
		return ret;

	if (bo->vaddr) {
		atomic_long_inc(&primebuf_stats.vmap_cache_hits);
		vaddr = bo->vaddr;
	} else if (bo->backing.placement == PRIMEBUF_PLACEMENT_CONTIG) {
		vaddr = bo->backing.contig_vaddr;
	} else {
		vaddr = vmap(bo->backing.pages, bo->npages, VM_MAP,
			     PAGE_KERNEL);
		if (vaddr)
			atomic_long_inc(&primebuf_stats.vmap_created);
	}
	if (!vaddr)
		return -ENOMEM;

	bo->vaddr = vaddr;
	bo->vmap_count = 1;
	atomic_long_inc(&primebuf_stats.vmaps);
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

/*
 * The kernel mapping stays after its last user, so that a framebuffer
 * flipped to again and again is mapped once; it goes when the backing
 * moves or is freed.
 */
void primebuf_bo_vunmap_locked(struct primebuf_bo *bo)
{
	lockdep_assert_held(&bo->lock);

	if (WARN_ON_ONCE(!bo->vmap_count))
		return;
	if (--bo->vmap_count)
		return;
	atomic_long_dec(&primebuf_stats.vmaps);
}

/* Drop the kernel mapping kept with no user, before the backing goes. */
static void primebuf_drop_vaddr(struct primebuf_bo *bo)
{
	if (!bo->vaddr || WARN_ON_ONCE(bo->vmap_count))
		return;
	if (bo->backing.placement != PRIMEBUF_PLACEMENT_CONTIG)
		vunmap(bo->vaddr);
	bo->vaddr = NULL;
}

/*
 * Cache maintenance around CPU access: every device that holds the pages
 * through a mapping in use gets its view synced, in the direction it was
 * mapped with, as the DMA API requires whatever the CPU is about to do (a
 * device that only reads the buffer has nothing to give back, and needs
 * the CPU's writes flushed all the same).  An idle cached mapping gave the
 * pages back at its last unmap and takes them again at its next map:
 * syncing it here for the CPU would copy a stale device view over what
 * the CPU wrote since.  Mappings synced per use hold the pages only while
 * a use runs, which the reservation fences tell the CPU to wait for.
 */
void primebuf_bo_sync(struct primebuf_bo *bo, bool for_cpu)
{
	struct primebuf_attachment *pa;

	lockdep_assert_held(&bo->lock);

	list_for_each_entry(pa, &bo->attachments, node) {
		if (!pa->sgt_mapped || !pa->map_count || pa->per_use_sync)
			continue;
		if (for_cpu)
			primebuf_pa_sync_for_cpu(pa);
		else
			primebuf_pa_sync_for_device(pa);
	}
	if (bo->vaddr) {
		if (for_cpu)
			invalidate_kernel_vmap_range(bo->vaddr, bo->base.size);
		else
			flush_kernel_vmap_range(bo->vaddr, bo->base.size);
	}
}

static vm_fault_t primebuf_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct primebuf_bo *bo = to_primebuf_bo(obj);
	unsigned long pgoff;
	vm_fault_t ret;
	int err;

	pgoff = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	if (pgoff >= bo->npages)
		return VM_FAULT_SIGBUS;

	mutex_lock(&bo->lock);
	err = primebuf_prepare_backing(bo);
	/*
	 * No VM_FAULT_OOM: a buffer over max_total_mb is not a reason to
	 * kill anyone, and the OOM path would just retry the fault forever.
	 * The task that touches memory it cannot have gets SIGBUS; a fatal
	 * signal during allocation ends the fault to let it die.
	 */
	if (err == -EINTR)
		ret = VM_FAULT_NOPAGE;
	else if (err)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn(vma, vmf->address,
				     page_to_pfn(bo->backing.pages[pgoff]));
	mutex_unlock(&bo->lock);
	return ret;
}

static const struct vm_operations_struct primebuf_vm_ops = {
	.fault = primebuf_vm_fault,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

int primebuf_bo_setup_mmap(struct primebuf_bo *bo, struct vm_area_struct *vma)
{
	/*
	 * The pages are inserted as raw PFNs, which a copy-on-write mapping
	 * cannot hold: the first write would have to copy a page the core
	 * knows nothing about (vm_normal_page() has no struct page to copy
	 * from).  A private mapping of shared device memory is meaningless
	 * anyway, so refuse it here, on every path that leads to it: the DRM
	 * fd of either driver and the dma-buf fd.
	 */
	if (vma_is_cow_mapping(vma))
		return -EINVAL;

	/*
	 * Pages are inserted one by one as they fault, so a mapping pins
	 * nothing and never forces the backing to exist; migration zaps the
	 * entries and the next access faults in the new pages.
	 */
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	vma->vm_ops = &primebuf_vm_ops;
	return 0;
}

/* ----------------------------------------------------------------------
 * GEM object functions
 */

static void primebuf_gem_free(struct drm_gem_object *obj)
{
	struct primebuf_bo *bo = to_primebuf_bo(obj);
	struct primebuf_attachment *pa, *tmp;

	trace_primebuf_release(bo);
	primebuf_untrack(bo);

	if (obj->import_attach) {
		primebuf_import_release(bo);
	} else {
		list_for_each_entry_safe(pa, tmp, &bo->attachments, node) {
			/* Only the internal one can be left: dma-buf
			 * attachments hold a reference to the object.
			 */
			WARN_ON_ONCE(!pa->internal || pa->map_count);
			primebuf_attachment_drop_sgt(pa);
			list_del(&pa->node);
			kfree(pa);
		}
		primebuf_drop_vaddr(bo);
		primebuf_backing_free(&bo->backing, bo->npages);
		atomic_long_dec(&primebuf_stats.buffers);
	}
	atomic_long_inc(&primebuf_stats.released);

	drm_gem_object_release(obj);
	mem_cgroup_put(bo->memcg);
	mutex_destroy(&bo->lock);
	kfree(bo);
}

static int primebuf_gem_mmap(struct drm_gem_object *obj,
			     struct vm_area_struct *vma)
{
	int ret;

	if (obj->import_attach) {
		/*
		 * The exporter maps its own memory.  Its vm_ops replace ours,
		 * so the reference drm_gem_mmap_obj() took for them is
		 * dropped here; the dma-buf file now holds the memory.
		 */
		vma->vm_private_data = NULL;
		vma->vm_ops = NULL;
		ret = dma_buf_mmap(obj->import_attach->dmabuf, vma, 0);
		if (ret)
			return ret;
		drm_gem_object_put(obj);
		/*
		 * DRM mappings never grow past their object; not every
		 * exporter says so (6.1's udmabuf does not), and the GEM core
		 * warns about a mapping that could.
		 */
		vm_flags_set(vma, VM_DONTEXPAND);
		return 0;
	}
	return primebuf_bo_setup_mmap(to_primebuf_bo(obj), vma);
}

static int primebuf_gem_vmap(struct drm_gem_object *obj,
			     struct iosys_map *map)
{
	struct primebuf_bo *bo = to_primebuf_bo(obj);
	int ret;

	/*
	 * Injected failures belong here, where the caller handles an errno,
	 * and not in the exporter's vmap: dma_buf_vmap() WARNs on any error
	 * of an exporter's vmap, so a failure injected there would put a
	 * warning in the log for every import it hit.
	 */
	if (primebuf_inject_failure(PRIMEBUF_FAIL_VMAP))
		return -ENOMEM;

	if (obj->import_attach)
		return dma_buf_vmap(obj->import_attach->dmabuf, map);

	mutex_lock(&bo->lock);
	ret = primebuf_bo_vmap_locked(bo, map);
	mutex_unlock(&bo->lock);
	return ret;
}

static void primebuf_gem_vunmap(struct drm_gem_object *obj,
				struct iosys_map *map)
{
	struct primebuf_bo *bo = to_primebuf_bo(obj);

	if (obj->import_attach) {
		dma_buf_vunmap(obj->import_attach->dmabuf, map);
		return;
	}

	mutex_lock(&bo->lock);
	primebuf_bo_vunmap_locked(bo);
	mutex_unlock(&bo->lock);
}

const struct drm_gem_object_funcs primebuf_gem_funcs = {
	.free = primebuf_gem_free,
	.export = primebuf_gem_export,
	.vmap = primebuf_gem_vmap,
	.vunmap = primebuf_gem_vunmap,
	.mmap = primebuf_gem_mmap,
	.vm_ops = &primebuf_vm_ops,
};

/**
 * primebuf_is_primebuf_object() - was this GEM object made by primebuf?
 * @obj: any GEM object
 *
 * Return: true for buffers and imports created by primebuf.
 */
bool primebuf_is_primebuf_object(struct drm_gem_object *obj)
{
	return obj->funcs == &primebuf_gem_funcs;
}
EXPORT_SYMBOL_NS_GPL(primebuf_is_primebuf_object, "PRIMEBUF");

struct primebuf_bo *primebuf_bo_alloc(struct drm_device *dev, size_t size,
				      struct dma_resv *resv)
{
	struct primebuf_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);

	bo->base.funcs = &primebuf_gem_funcs;
	bo->base.resv = resv;
	drm_gem_private_object_init(dev, &bo->base, size);
	bo->npages = size >> PAGE_SHIFT;
	mutex_init(&bo->lock);
	init_waitqueue_head(&bo->unmapped);
	INIT_LIST_HEAD(&bo->attachments);
	primebuf_track(bo);
	atomic_long_inc(&primebuf_stats.created);
	return bo;
}

/**
 * primebuf_bo_create() - create a buffer with no memory behind it yet
 * @dev: the owning DRM device
 * @size: size in bytes, rounded up to whole pages
 *
 * Context: process context.
 * Return: the new buffer with one reference, ERR_PTR(-EINVAL) for size 0,
 * ERR_PTR(-E2BIG) above the max_size_mb limit, or ERR_PTR(-ENOMEM).
 */
struct primebuf_bo *primebuf_bo_create(struct drm_device *dev, size_t size)
{
	struct primebuf_bo *bo;

	if (!size)
		return ERR_PTR(-EINVAL);
	if (size > (size_t)max_size_mb << 20)
		return ERR_PTR(-E2BIG);
	size = PAGE_ALIGN(size);

	bo = primebuf_bo_alloc(dev, size, NULL);
	if (IS_ERR(bo))
		return bo;
	if (current->mm)
		bo->memcg = get_mem_cgroup_from_mm(current->mm);
	atomic_long_inc(&primebuf_stats.buffers);
	return bo;
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_create, "PRIMEBUF");

/**
 * primebuf_bo_create_with_handle() - create a buffer and a handle to it
 * @file: the DRM file that gets the handle
 * @dev: the owning DRM device
 * @size: size in bytes
 * @handle: returns the new handle
 *
 * Context: process context.
 * Return: 0 or a negative errno (see primebuf_bo_create()).
 */
int primebuf_bo_create_with_handle(struct drm_file *file,
				   struct drm_device *dev, size_t size,
				   u32 *handle)
{
	struct primebuf_bo *bo;
	int ret;

	bo = primebuf_bo_create(dev, size);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	ret = drm_gem_handle_create(file, &bo->base, handle);
	/* The handle holds the object now, or creating it failed. */
	drm_gem_object_put(&bo->base);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(primebuf_bo_create_with_handle, "PRIMEBUF");

/**
 * primebuf_dumb_create() - &drm_driver.dumb_create for primebuf drivers
 * @file: the DRM file
 * @dev: the DRM device
 * @args: the request; pitch and size are filled in
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int primebuf_dumb_create(struct drm_file *file, struct drm_device *dev,
			 struct drm_mode_create_dumb *args)
{
	u64 pitch, size;

	/* No flag is defined; DRM core leaves checking them to drivers. */
	if (args->flags)
		return -EINVAL;
	/*
	 * drm_mode_create_dumb() has refused zero sizes and any pitch or
	 * size beyond 32 bits; the limit of primebuf is ours to check.
	 */
	pitch = (u64)args->width * DIV_ROUND_UP(args->bpp, 8);
	size = pitch * args->height;
	if (size > (u64)max_size_mb << 20)
		return -EINVAL;

	args->pitch = pitch;
	args->size = PAGE_ALIGN(size);
	return primebuf_bo_create_with_handle(file, dev, args->size,
					      &args->handle);
}
EXPORT_SYMBOL_NS_GPL(primebuf_dumb_create, "PRIMEBUF");

/**
 * primebuf_dumb_map_offset() - &drm_driver.dumb_map_offset for primebuf
 * @file: the DRM file
 * @dev: the DRM device
 * @handle: a handle of @file
 * @offset: returns the fake offset to mmap on the DRM fd
 *
 * Unlike the generic helper this also serves imported buffers: mmap of
 * such an offset is forwarded to the exporter's dma-buf mmap, which is
 * how Mesa's kms_swrast reads buffers it imported.
 *
 * Context: process context.
 * Return: 0, -ENOENT for an unknown handle, or -ENOMEM.
 */
int primebuf_dumb_map_offset(struct drm_file *file, struct drm_device *dev,
			     u32 handle, u64 *offset)
{
	struct drm_gem_object *obj;
	int ret;

	obj = drm_gem_object_lookup(file, handle);
	if (!obj)
		return -ENOENT;

	ret = drm_gem_create_mmap_offset(obj);
	if (!ret)
		*offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(primebuf_dumb_map_offset, "PRIMEBUF");

/**
 * primebuf_max_size() - largest buffer primebuf creates
 *
 * Return: the limit in bytes, set by the max_size_mb module parameter.
 */
u64 primebuf_max_size(void)
{
	return (u64)max_size_mb << 20;
}
EXPORT_SYMBOL_NS_GPL(primebuf_max_size, "PRIMEBUF");

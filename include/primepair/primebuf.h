/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primebuf - the buffer object and dma-buf layer shared by vdisplay and
 * vrender.
 */
#ifndef _PRIMEPAIR_PRIMEBUF_H_
#define _PRIMEPAIR_PRIMEBUF_H_

#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <drm/drm_gem.h>

struct drm_device;
struct drm_file;
struct drm_mode_create_dumb;
struct mem_cgroup;
struct sg_table;

/**
 * struct primebuf_constraints - what a device can take from a buffer
 * @dma_mask: highest bus address the device can reach
 * @max_segment_size: largest single scatterlist segment, in bytes
 * @segment_boundary_mask: a segment may not cross an address where
 *	(addr & ~mask) changes
 * @contiguous: the device takes exactly one segment per mapping
 *
 * A device that never registered constraints with primebuf is described by
 * its &struct device DMA mask and &struct device_dma_parameters.
 */
struct primebuf_constraints {
	u64 dma_mask;
	unsigned int max_segment_size;
	unsigned long segment_boundary_mask;
	bool contiguous;
};

/**
 * enum primebuf_placement - where the backing storage of a buffer lives
 * @PRIMEBUF_PLACEMENT_NONE: nothing allocated yet
 * @PRIMEBUF_PLACEMENT_PAGES: scattered pages (contiguous runs are used
 *	where the allocator happened to provide them)
 * @PRIMEBUF_PLACEMENT_CONTIG: one physically contiguous block
 */
enum primebuf_placement {
	PRIMEBUF_PLACEMENT_NONE,
	PRIMEBUF_PLACEMENT_PAGES,
	PRIMEBUF_PLACEMENT_CONTIG,
};

/**
 * struct primebuf_backing - the memory behind a buffer
 * @placement: how it was allocated
 * @pages: one entry per page, or NULL without backing
 * @contig_vaddr: kernel address of a contiguous block
 * @max_addr: highest physical address of any byte of the backing
 */
struct primebuf_backing {
	enum primebuf_placement placement;
	struct page **pages;
	void *contig_vaddr;
	phys_addr_t max_addr;
};

/**
 * struct primebuf_bo - a GEM object whose storage primebuf manages
 * @base: the GEM object; its resv is the buffer's reservation object
 * @id: unique number, shown in debugfs and tracepoints
 * @npages: size of the buffer in pages
 * @lock: protects every field below; nests inside the reservation lock
 * @backing: current backing storage
 * @attachments: &struct primebuf_attachment of every device attached
 * @self: the owning device's own attachment, created on its first map
 * @map_count: DMA mappings currently handed out (map without unmap yet)
 * @unmapped: woken when @map_count drops to zero
 * @vaddr: kernel mapping of the backing; kept after its last user until
 *	the backing moves or is freed
 * @vmap_count: users of @vaddr
 * @migrations: number of times the backing moved
 * @memcg: memory cgroup of the process that created the buffer, which
 *	its backing is charged to, whoever's action allocates it; NULL
 *	for imports and buffers created outside a process
 * @node: entry in primebuf's list of live buffers
 *
 * An imported foreign buffer is a primebuf_bo too: then @base.import_attach
 * is set, no backing is ever allocated here and every access goes through
 * the exporter.
 */
struct primebuf_bo {
	struct drm_gem_object base;
	u64 id;
	unsigned long npages;
	struct mutex lock;	/* the fields below; inside dma_resv */
	struct primebuf_backing backing;
	struct list_head attachments;
	struct primebuf_attachment *self;
	unsigned int map_count;
	wait_queue_head_t unmapped;
	void *vaddr;
	unsigned int vmap_count;
	unsigned int migrations;
	struct mem_cgroup *memcg;
	struct list_head node;
};

/**
 * struct primebuf_attachment - one device's view of a primebuf buffer
 * @node: entry in &primebuf_bo.attachments
 * @dev: the attached device
 * @constraints: that device's DMA constraints, read at attach time
 * @sgt: the device's scatterlist, DMA-mapped while @sgt_mapped is true
 * @sgt_mapped: @sgt holds a live DMA mapping (cached between maps)
 * @dir: direction @sgt was mapped with
 * @map_count: maps of this attachment not yet unmapped
 * @nsegs: segments of @sgt while it is mapped, 0 without a mapping
 * @need_sync: some segment of the mapped @sgt needs the DMA API's syncs;
 *	without, they are skipped
 * @internal: the owning device's own attachment, not a dma-buf one
 * @per_use_sync: mapped only through primebuf_bo_map(), whose caller moves
 *	the pages between CPU and device at each use with
 *	primebuf_bo_device_begin() and primebuf_bo_device_end(); map, unmap
 *	and CPU access then leave the mapping alone
 */
struct primebuf_attachment {
	struct list_head node;
	struct device *dev;
	struct primebuf_constraints constraints;
	struct sg_table sgt;
	bool sgt_mapped;
	enum dma_data_direction dir;
	unsigned int map_count;
	unsigned int nsegs;
	bool need_sync;
	bool internal;
	bool per_use_sync;
};

/**
 * struct primebuf_segment - one segment of a device's mapping
 * @addr: DMA address for that device
 * @len: length in bytes
 */
struct primebuf_segment {
	u64 addr;
	u64 len;
};

/**
 * struct primebuf_fence - a driver's fence that keeps its module loaded
 * @base: the fence; first member, as it is freed with dma_fence_free()
 * @owner: the module whose &dma_fence_ops @base uses; referenced
 * @inner: a fence that @base follows, referenced, or NULL
 *
 * A driver whose fences may outlive its module sets its ops' release to
 * primebuf_fence_release(), which drops @inner and then the module
 * reference from primebuf's code, never from the driver's.
 */
struct primebuf_fence {
	struct dma_fence base;
	struct module *owner;
	struct dma_fence *inner;
};

void primebuf_fence_release(struct dma_fence *fence);

static inline struct primebuf_bo *to_primebuf_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct primebuf_bo, base);
}

/* Buffer objects */
struct primebuf_bo *primebuf_bo_create(struct drm_device *dev, size_t size);
int primebuf_bo_create_with_handle(struct drm_file *file,
				   struct drm_device *dev, size_t size,
				   u32 *handle);
int primebuf_dumb_create(struct drm_file *file, struct drm_device *dev,
			 struct drm_mode_create_dumb *args);
int primebuf_dumb_map_offset(struct drm_file *file, struct drm_device *dev,
			     u32 handle, u64 *offset);
u64 primebuf_max_size(void);
bool primebuf_is_primebuf_object(struct drm_gem_object *obj);
bool primebuf_inject_job_hang(void);
unsigned int primebuf_bo_get_segments(struct primebuf_bo *bo,
				      struct primebuf_segment *segs,
				      unsigned int max);
enum primebuf_placement primebuf_bo_placement(struct primebuf_bo *bo);

/* Device access: maps right before each use, unmaps right after */
struct sg_table *primebuf_bo_map(struct primebuf_bo *bo,
				 enum dma_data_direction dir);
void primebuf_bo_unmap(struct primebuf_bo *bo, struct sg_table *sgt,
		       enum dma_data_direction dir);
void primebuf_bo_device_begin(struct primebuf_bo *bo);
void primebuf_bo_device_end(struct primebuf_bo *bo, bool written);

/* PRIME */
struct drm_gem_object *primebuf_gem_prime_import(struct drm_device *dev,
						 struct dma_buf *dma_buf);

/* Devices that declare constraints beyond their dma_parms */
int primebuf_register_device(struct device *dev,
			     const struct primebuf_constraints *c);
void primebuf_unregister_device(struct device *dev);
void primebuf_device_unmap_all(struct device *dev);

#endif /* _PRIMEPAIR_PRIMEBUF_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primebuf - declarations shared between the files of the module
 */
#ifndef _PRIMEBUF_INTERNAL_H_
#define _PRIMEBUF_INTERNAL_H_

#include <linux/atomic.h>
#include <linux/dcache.h>
#include <primepair/compat.h>
#include <primepair/primebuf.h>

/* Statistics, shown in debugfs */

/**
 * struct primebuf_stats - live objects and event totals of the module
 * @buffers: live buffers with storage managed here (not imports)
 * @imports: live GEM objects that import a foreign dma-buf
 * @exports: live dma-bufs exported by primebuf
 * @attachments: live attachments to primebuf buffers
 * @mappings: DMA mappings handed out and not yet unmapped
 * @vmaps: buffers whose kernel mapping has a user (a mapping kept after
 *	its last user is not counted)
 * @bytes: bytes of allocated backing storage
 * @migrations: backing moves since load
 * @map_calls: device maps since load
 * @map_cache_hits: maps served from a cached table since load
 * @vmap_cache_hits: vmaps served from a kept kernel mapping since load
 * @vmap_created: kernel mappings made with vmap() since load
 * @created: buffers created since load
 * @released: buffers released since load
 */
struct primebuf_stats {
	atomic_long_t buffers;
	atomic_long_t imports;
	atomic_long_t exports;
	atomic_long_t attachments;
	atomic_long_t mappings;
	atomic_long_t vmaps;
	atomic_long_t bytes;
	atomic_long_t migrations;
	atomic_long_t map_calls;
	atomic_long_t map_cache_hits;
	atomic_long_t vmap_cache_hits;
	atomic_long_t vmap_created;
	atomic_long_t created;
	atomic_long_t released;
};

extern struct primebuf_stats primebuf_stats;
extern const struct dma_buf_ops primebuf_dmabuf_ops;
extern const struct drm_gem_object_funcs primebuf_gem_funcs;

/* primebuf_main.c */
void primebuf_track(struct primebuf_bo *bo);
void primebuf_untrack(struct primebuf_bo *bo);
void primebuf_device_constraints(struct device *dev,
				 struct primebuf_constraints *c);

/* primebuf_bo.c */
struct primebuf_bo *primebuf_bo_alloc(struct drm_device *dev, size_t size,
				      struct dma_resv *resv);
int primebuf_wait_idle(struct primebuf_bo *bo);
int primebuf_check_attach(struct primebuf_bo *bo,
			  const struct primebuf_constraints *c);
struct sg_table *primebuf_attachment_map(struct primebuf_bo *bo,
					 struct primebuf_attachment *pa,
					 enum dma_data_direction dir);
void primebuf_attachment_unmap(struct primebuf_bo *bo,
			       struct primebuf_attachment *pa);
void primebuf_attachment_drop_sgt(struct primebuf_attachment *pa);
int primebuf_prepare_backing(struct primebuf_bo *bo);
int primebuf_bo_vmap_locked(struct primebuf_bo *bo, struct iosys_map *map);
void primebuf_bo_vunmap_locked(struct primebuf_bo *bo);
void primebuf_bo_sync(struct primebuf_bo *bo, bool for_cpu);
int primebuf_bo_setup_mmap(struct primebuf_bo *bo,
			   struct vm_area_struct *vma);

/* primebuf_main.c: fault injection points, armed by primebuf_selftest */
enum primebuf_fail {
	PRIMEBUF_FAIL_ALLOC,
	PRIMEBUF_FAIL_ATTACH,
	PRIMEBUF_FAIL_MAP,
	PRIMEBUF_FAIL_VMAP,
	PRIMEBUF_FAIL_JOB_HANG,
	PRIMEBUF_FAIL_COUNT
};

bool primebuf_inject_failure(enum primebuf_fail what);
atomic_t *primebuf_fail_counter(enum primebuf_fail what);

/* primebuf_prime.c */
struct dma_buf *primebuf_gem_export(struct drm_gem_object *obj, int flags);
void primebuf_import_release(struct primebuf_bo *bo);

static inline const char *primebuf_placement_name(enum primebuf_placement p)
{
	switch (p) {
	case PRIMEBUF_PLACEMENT_PAGES:
		return "pages";
	case PRIMEBUF_PLACEMENT_CONTIG:
		return "contig";
	default:
		return "none";
	}
}

#endif /* _PRIMEBUF_INTERNAL_H_ */

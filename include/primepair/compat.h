/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair - kernel API differences between the supported kernels
 *
 * Every version test of the project lives here, so that the driver code
 * reads the same on Debian 12's Linux 6.1 and on its 6.12 backport.
 */
#ifndef _PRIMEPAIR_COMPAT_H_
#define _PRIMEPAIR_COMPAT_H_

#include <linux/dma-buf.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/version.h>

/* The only place that reads the kernel version. */
#define PRIMEPAIR_KERNEL_AT_LEAST(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

/*
 * Highest page order the buddy allocator hands out; 6.8 renamed MAX_ORDER
 * and made it inclusive.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 8)
#define PRIMEPAIR_MAX_PAGE_ORDER	MAX_PAGE_ORDER
#else
#define PRIMEPAIR_MAX_PAGE_ORDER	(MAX_ORDER - 1)
#endif

/* vm_flags became read-only behind accessors in 6.3. */
static inline void primepair_vm_flags_set(struct vm_area_struct *vma,
					  unsigned long flags)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 3)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * Since 6.2 dma_buf_vmap() must be called with the reservation lock held
 * and importers that do not hold it use the _unlocked variant; 6.1 takes
 * the dma-buf's own mutex inside dma_buf_vmap().
 */
static inline int primepair_dma_buf_vmap_unlocked(struct dma_buf *dmabuf,
						  struct iosys_map *map)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 2)
	return dma_buf_vmap_unlocked(dmabuf, map);
#else
	return dma_buf_vmap(dmabuf, map);
#endif
}

static inline void primepair_dma_buf_vunmap_unlocked(struct dma_buf *dmabuf,
						     struct iosys_map *map)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 2)
	dma_buf_vunmap_unlocked(dmabuf, map);
#else
	dma_buf_vunmap(dmabuf, map);
#endif
}

/*
 * Since 6.2 the dma-buf core calls map_dma_buf, unmap_dma_buf, vmap and
 * vunmap with the buffer's reservation lock held; 6.1 calls them without
 * it for static attachments.  Exporter callbacks assert what their kernel
 * promises through this helper.
 */
static inline void primepair_assert_resv_held_by_core(struct dma_buf *dmabuf)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 2)
	dma_resv_assert_held(dmabuf->resv);
#endif
}

/*
 * 6.11 made platform_driver.remove return void; before, the callback that
 * returns void was .remove_new.  Drivers name the member through this.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 11)
#define primepair_platform_remove	remove
#else
#define primepair_platform_remove	remove_new
#endif

#endif /* _PRIMEPAIR_COMPAT_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair - kernel API differences between the supported kernels
 *
 * Every version test of the project lives here.  The drivers are written
 * against the newest kernel's API (7.x); each shim below gives an older
 * kernel what changed, with the version that changed it.  Include this
 * header after the kernel's own.
 */
#ifndef _PRIMEPAIR_COMPAT_H_
#define _PRIMEPAIR_COMPAT_H_

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/export.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/version.h>

#include <drm/drm_atomic.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_framebuffer_helper.h>

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

/*
 * 6.13 made symbol namespaces string literals ("DMA_BUF"); the macros
 * stringified a bare token before.  Give older kernels the new form.
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 13)
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#undef EXPORT_SYMBOL_NS_GPL
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 5)
/* 6.5 rewrote the export machinery; its license tag became "GPL". */
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "GPL", ns)
#else
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "_gpl", ns)
#endif
#endif

/* 6.13 added hrtimer_setup(), which sets the callback too (7.x: the only way). */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 13)
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * 6.14 dropped &drm_driver.date; older kernels copy it to userspace in
 * DRM_IOCTL_VERSION and need one.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 14)
#define PRIMEPAIR_DRIVER_DATE(yyyymmdd)
#else
#define PRIMEPAIR_DRIVER_DATE(yyyymmdd)	.date = yyyymmdd,
#endif

/*
 * 6.15 gave &drm_plane_helper_funcs.atomic_async_check a @flip argument
 * (true for an asynchronous page flip).  Drivers write the new callback,
 * define the old kernels' wrapper with PRIMEPAIR_DEFINE_ASYNC_CHECK(), and
 * name it with PRIMEPAIR_ASYNC_CHECK().
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 15)
#define PRIMEPAIR_DEFINE_ASYNC_CHECK(fn)
#define PRIMEPAIR_ASYNC_CHECK(fn)	fn
#else
#define PRIMEPAIR_DEFINE_ASYNC_CHECK(fn)				\
static int fn##_noflip(struct drm_plane *plane,				\
		       struct drm_atomic_state *state)			\
{									\
	return fn(plane, state, false);					\
}

#define PRIMEPAIR_ASYNC_CHECK(fn)	fn##_noflip
#endif

/*
 * 6.17 passes the format info to &drm_mode_config_funcs.fb_create and to
 * drm_gem_fb_create().  Drivers write the new callback, define the old
 * kernels' wrapper with PRIMEPAIR_DEFINE_FB_CREATE(), name it with
 * PRIMEPAIR_FB_CREATE(), and call primepair_gem_fb_create().
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 17)
#define PRIMEPAIR_DEFINE_FB_CREATE(fn)
#define PRIMEPAIR_FB_CREATE(fn)		fn
#define primepair_gem_fb_create		drm_gem_fb_create
#else
#define PRIMEPAIR_DEFINE_FB_CREATE(fn)					\
static struct drm_framebuffer *						\
fn##_noinfo(struct drm_device *dev, struct drm_file *file,		\
	    const struct drm_mode_fb_cmd2 *cmd)				\
{									\
	return fn(dev, file, drm_get_format_info(dev, cmd), cmd);	\
}

#define PRIMEPAIR_FB_CREATE(fn)		fn##_noinfo

static inline struct drm_framebuffer *
primepair_gem_fb_create(struct drm_device *dev, struct drm_file *file,
			const struct drm_format_info *info,
			const struct drm_mode_fb_cmd2 *cmd)
{
	return drm_gem_fb_create(dev, file, cmd);
}
#endif

/*
 * The atomic state is struct drm_atomic_commit in the 7.x kernels (the
 * rename is after 6.12; 7.3 is the first we build for): every atomic
 * callback and helper takes one.  Older kernels call it drm_atomic_state.
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
#define drm_atomic_commit	drm_atomic_state
#endif

/*
 * 7.x replaced is_cow_mapping(vm_flags) by vma_is_cow_mapping(vma), as
 * VMA flags became a bitmap type (after 6.12; first seen here in 7.3).
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
static inline bool vma_is_cow_mapping(const struct vm_area_struct *vma)
{
	return is_cow_mapping(vma->vm_flags);
}
#endif

#endif /* _PRIMEPAIR_COMPAT_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair - kernel API differences between the supported kernels
 *
 * Every version test of the project lives here.  The drivers are written
 * against the newest kernel's API (7.x); each shim below gives the older
 * kernels (6.1, 6.12) what changed, one shim per change, its comment
 * naming the version that changed and what changed.  Include this header
 * after the kernel's own.  Documentation/compat.rst has the rules.
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
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/gpu_scheduler.h>

/* The only place that reads the kernel version. */
#define PRIMEPAIR_KERNEL_AT_LEAST(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

/* ---------------------------------------------------------------------
 * Modules, timers, the driver model
 */

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.13: symbol namespaces are string literals ("DMA_BUF"), not bare tokens. */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 13)
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#undef EXPORT_SYMBOL_NS_GPL
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 5)
/* 6.5: __EXPORT_SYMBOL() takes the license as "GPL", not "_gpl". */
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "GPL", ns)
#else
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	__EXPORT_SYMBOL(sym, "_gpl", ns)
#endif
#endif

/* 6.13: hrtimer_setup() initialises a timer with its callback (7.x: the only way). */
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
 * After 6.12 (first built here: 7.3): &config_item_type points at const
 * item and group operations.  Drivers declare them
 * "static primepair_configfs_ops_const struct configfs_..._operations".
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
#define primepair_configfs_ops_const	const
#else
#define primepair_configfs_ops_const
#endif

/* 6.11: platform_driver.remove returns void; before, that one was .remove_new. */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 11)
#define primepair_platform_remove	remove
#else
#define primepair_platform_remove	remove_new
#endif

/* ---------------------------------------------------------------------
 * Memory management
 */

/* 6.3: vm_flags are read-only, changed through vm_flags_set(). */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/* 6.4: MAX_ORDER became the highest order, not one past it. */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 4)
#define MAX_PAGE_ORDER	(MAX_ORDER - 1)
/* 6.8: MAX_ORDER was renamed MAX_PAGE_ORDER. */
#elif !PRIMEPAIR_KERNEL_AT_LEAST(6, 8)
#define MAX_PAGE_ORDER	MAX_ORDER
#endif

/* After 6.12 (first built here: 7.3): vma_is_cow_mapping() replaced is_cow_mapping(). */
#if !PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
static inline bool vma_is_cow_mapping(const struct vm_area_struct *vma)
{
	return is_cow_mapping(vma->vm_flags);
}
#endif

/* ---------------------------------------------------------------------
 * dma-buf
 */

/*
 * 6.2: the core calls map_dma_buf, unmap_dma_buf, vmap and vunmap with the
 * reservation lock held; 6.1 did not for static attachments.  Exporter
 * callbacks assert what their kernel promises.
 */
static inline void primepair_assert_resv_held_by_core(struct dma_buf *dmabuf)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 2)
	dma_resv_assert_held(dmabuf->resv);
#endif
}

/* ---------------------------------------------------------------------
 * DRM
 */

/* 6.14: &drm_driver.date is gone; older kernels copy it out in DRM_IOCTL_VERSION. */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 14)
#define PRIMEPAIR_DRIVER_DATE(yyyymmdd)
#else
#define PRIMEPAIR_DRIVER_DATE(yyyymmdd)	.date = yyyymmdd,
#endif

/*
 * 6.15: &drm_plane_helper_funcs.atomic_async_check gained @flip.  Drivers
 * write the new callback, define the old kernels' wrapper with
 * PRIMEPAIR_DEFINE_ASYNC_CHECK() and name it with PRIMEPAIR_ASYNC_CHECK().
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
 * 6.17: &drm_mode_config_funcs.fb_create and drm_gem_fb_create() take the
 * format info.  Drivers write the new callback, define the old kernels'
 * wrapper with PRIMEPAIR_DEFINE_FB_CREATE() and name it with
 * PRIMEPAIR_FB_CREATE(); drm_gem_fb_create() takes the new arguments on
 * every kernel.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 17)
#define PRIMEPAIR_DEFINE_FB_CREATE(fn)
#define PRIMEPAIR_FB_CREATE(fn)		fn
#else
#define PRIMEPAIR_DEFINE_FB_CREATE(fn)					\
static struct drm_framebuffer *						\
fn##_noinfo(struct drm_device *dev, struct drm_file *file,		\
	    const struct drm_mode_fb_cmd2 *cmd)				\
{									\
	return fn(dev, file, drm_get_format_info(dev, cmd), cmd);	\
}

#define PRIMEPAIR_FB_CREATE(fn)		fn##_noinfo
/* Not expanded again inside its own expansion: calls the real function. */
#define drm_gem_fb_create(dev, file, info, cmd) \
	drm_gem_fb_create(dev, file, cmd)
#endif

/*
 * 6.3: drm_edid_connector_update() stopped adding the EDID's modes, which
 * drm_edid_connector_add_modes() does since.  Returns the modes added.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 3)
#define primepair_edid_connector_modes(connector, drm_edid) ({	\
	struct drm_connector *__c = (connector);			\
									\
	drm_edid_connector_update(__c, drm_edid);			\
	drm_edid_connector_add_modes(__c);				\
})
#else
#define primepair_edid_connector_modes(connector, drm_edid)		\
	max(drm_edid_connector_update(connector, drm_edid), 0)
#endif

/*
 * 6.3: an EDID forced through debugfs (edid_override) became a
 * &drm_connector.edid_override of its own, which the core frees only
 * when debugfs resets it (still so in 7.3), not when the connector goes:
 * a driver removed with one in place drops it itself.  Before, the
 * override lived in the connector's EDID property, freed with it.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 3)
#define primepair_edid_override_drop(connector) ({		\
	struct drm_connector *__c = (connector);		\
								\
	drm_edid_free(__c->edid_override);			\
	__c->edid_override = NULL;				\
})
#else
#define primepair_edid_override_drop(connector)	((void)(connector))
#endif

/*
 * 6.5: drm_mode_create_dp_colorspace_property() takes the colorimetries
 * the connector supports.  Before, the property offers the whole DP
 * list, and the driver's atomic check refuses the ones it does not take.
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 5)
/* Not expanded again inside its own expansion: calls the real function. */
#define drm_mode_create_dp_colorspace_property(connector, supported) \
	({ (void)(supported); drm_mode_create_dp_colorspace_property(connector); })
#endif

/*
 * After 6.12 (first built here: 7.3): the HDR static metadata a sink's
 * EDID lists moved from &drm_connector.hdr_sink_metadata to
 * &drm_display_info.hdr_sink_metadata.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
#define primepair_hdr_sink_metadata(connector) \
	(&(connector)->display_info.hdr_sink_metadata)
#else
#define primepair_hdr_sink_metadata(connector) \
	(&(connector)->hdr_sink_metadata)
#endif

/*
 * 6.16: &drm_plane_funcs.format_mod_supported_async says which formats
 * and modifiers asynchronous flips take (the IN_FORMATS_ASYNC property).
 * Drivers name their callback, __maybe_unused, in the funcs table with
 * PRIMEPAIR_FORMAT_MOD_SUPPORTED_ASYNC(fn).
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 16)
#define PRIMEPAIR_FORMAT_MOD_SUPPORTED_ASYNC(fn) .format_mod_supported_async = fn,
#else
#define PRIMEPAIR_FORMAT_MOD_SUPPORTED_ASYNC(fn)
#endif

/*
 * 6.10: the SIZE_HINTS plane property lists the cursor sizes a plane
 * prefers (struct drm_plane_size_hint is uapi from then on).  Before,
 * userspace has DRM_CAP_CURSOR_WIDTH/HEIGHT only, and planes go without.
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 10)
struct drm_plane_size_hint {
	__u16 width;
	__u16 height;
};

#define drm_plane_add_size_hints_property(plane, hints, num) \
	({ (void)(plane); (void)(hints); (void)(num); 0; })
#endif

/*
 * 6.19: plane colour pipelines (struct drm_colorop, the COLOR_PIPELINE
 * plane property, DRM_CLIENT_CAP_PLANE_COLOR_PIPELINE).  Drivers build
 * theirs only where the core has them; elsewhere planes keep only the
 * legacy COLOR_ENCODING and COLOR_RANGE.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 19)
#define PRIMEPAIR_HAVE_COLOR_PIPELINE	1
#endif

/*
 * The same rename reached the state's functions: drm_atomic_state_alloc(),
 * _clear() and _put() became drm_atomic_commit_alloc(), _clear() and
 * _put().  drm_atomic_commit() kept its name, which the struct's macro
 * below would turn into the struct's on older kernels: drivers commit a
 * state of their own through primepair_atomic_commit(), defined first.
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
#define primepair_atomic_commit		drm_atomic_commit
#else
static inline int primepair_atomic_commit(struct drm_atomic_state *state)
{
	return drm_atomic_commit(state);
}

#define drm_atomic_commit_alloc		drm_atomic_state_alloc
#define drm_atomic_commit_clear		drm_atomic_state_clear
#define drm_atomic_commit_put		drm_atomic_state_put
#endif

/* After 6.12 (first built here: 7.3): struct drm_atomic_state became drm_atomic_commit. */
#if !PRIMEPAIR_KERNEL_AT_LEAST(7, 0)
#define drm_atomic_commit	drm_atomic_state
#endif

/*
 * 6.13 builds the DRM core's in-kernel clients only when CONFIG_DRM_CLIENT
 * is selected (fbdev emulation selects it, on Debian's kernels; a kernel
 * without it has no drm_client_init() and calls no client at last close).
 * Before, they were always part of drm.ko.
 */
#if !PRIMEPAIR_KERNEL_AT_LEAST(6, 13) || IS_ENABLED(CONFIG_DRM_CLIENT)
#define PRIMEPAIR_HAVE_DRM_CLIENT	1
#endif

/*
 * 6.19: &drm_client_funcs.restore takes @force, set to restore over a DRM
 * master (Debian's 6.12 has it from stable).  Drivers write the new
 * callback, define the old kernels' wrapper with
 * PRIMEPAIR_DEFINE_CLIENT_RESTORE() and name it with
 * PRIMEPAIR_CLIENT_RESTORE().
 */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 12)
#define PRIMEPAIR_DEFINE_CLIENT_RESTORE(fn)
#define PRIMEPAIR_CLIENT_RESTORE(fn)	fn
#else
#define PRIMEPAIR_DEFINE_CLIENT_RESTORE(fn)				\
static int fn##_noforce(struct drm_client_dev *client)			\
{									\
	return fn(client, false);					\
}

#define PRIMEPAIR_CLIENT_RESTORE(fn)	fn##_noforce
#endif

/*
 * The GPU scheduler.  Debian's 6.1 and 6.12 carry struct
 * drm_sched_init_args from stable (mainline: 6.15); the members that only
 * newer kernels have are named through the macros below.
 */

/* 6.7 made the number of run queues a scheduler argument. */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 7)
#define PRIMEPAIR_SCHED_NUM_RQS		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#else
#define PRIMEPAIR_SCHED_NUM_RQS
#endif

/* 6.2 renamed &drm_sched_backend_ops.dependency to .prepare_job. */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 2)
#define primepair_sched_prepare_job	prepare_job
#else
#define primepair_sched_prepare_job	dependency
#endif

/*
 * drm_sched_job_init() took credits in 6.7 and a client id in 6.16
 * (Debian's 6.12 has both from stable); 6.1 takes neither.
 */
static inline int primepair_sched_job_init(struct drm_sched_job *job,
					   struct drm_sched_entity *entity,
					   void *owner, u64 client_id)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 12)
	return drm_sched_job_init(job, entity, 1, owner, client_id);
#else
	return drm_sched_job_init(job, entity, owner);
#endif
}

/*
 * A timeout handler whose engine stops the job by itself: 6.17 added the
 * "no hang" answer, with which the scheduler keeps the job; before, the
 * handler stops and restarts the scheduler to hand the job back.
 * drm_sched_start() lost its full_recovery flag after 6.1 (Debian's 6.12
 * takes only the scheduler).
 */
static inline enum drm_gpu_sched_stat
primepair_sched_job_still_running(struct drm_sched_job *job)
{
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 17)
	return DRM_GPU_SCHED_STAT_NO_HANG;
#else
	drm_sched_stop(job->sched, job);
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 12)
	drm_sched_start(job->sched);
#else
	drm_sched_start(job->sched, true);
#endif
	return DRM_GPU_SCHED_STAT_NOMINAL;
#endif
}

/* &drm_file.client_id came with fdinfo ids in 6.12 (0 before). */
#if PRIMEPAIR_KERNEL_AT_LEAST(6, 12)
#define primepair_file_client_id(file)	((file)->client_id)
#else
#define primepair_file_client_id(file)	0
#endif

#endif /* _PRIMEPAIR_COMPAT_H_ */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrender - a render-only DRM driver with a simulated engine
 */
#ifndef _VRENDER_DRV_H_
#define _VRENDER_DRV_H_

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>

#include <primepair/compat.h>
#include <primepair/primebuf.h>

#define VRENDER_DRIVER_NAME	"vrender"
#define VRENDER_MAX_INSTANCES	4
#define VRENDER_MAX_COMMANDS	64
#define VRENDER_MAX_SYNCOBJS	64
/* Jobs queued or running per instance before SUBMIT waits for room */
#define VRENDER_MAX_INFLIGHT	64

struct drm_file;
struct drm_vrender_cmd;

/**
 * struct vrender_device - one vrender instance
 * @drm: the DRM device, embedded
 * @pdev: the virtual platform device it is bound to
 * @index: instance number, 0 to VRENDER_MAX_INSTANCES - 1
 * @dma_parms: backs @pdev's dma_parms (max segment, boundary)
 * @constraints: what this instance declared to primebuf
 * @wq: ordered queue the engine runs jobs on, one at a time
 * @fence_context: dma-fence context of the engine's timeline
 * @fence_lock: lock of every fence on that timeline
 * @submit_lock: serialises fence numbering with queueing, so that the
 *	timeline's order is the order jobs run in
 * @seqno: last fence number handed out; protected by @submit_lock
 * @inflight: jobs queued or running
 * @inflight_wait: SUBMIT waits here while @inflight is at the limit
 * @hang_jobs: number of jobs still to be submitted that will hang until
 *	their timeout; set through debugfs, taken by SUBMIT one at a time
 * @cancel_wq: where stalled and hung jobs sleep; woken at removal
 * @dying: set once at removal, so that stalled jobs give up at once
 */
struct vrender_device {
	struct drm_device drm;
	struct platform_device *pdev;
	unsigned int index;
	struct device_dma_parameters dma_parms;
	struct primebuf_constraints constraints;
	struct workqueue_struct *wq;
	u64 fence_context;
	spinlock_t fence_lock;		/* signalling of this timeline's fences */
	struct mutex submit_lock;	/* seqno, and queueing in seqno order */
	u64 seqno;
	atomic_t inflight;
	wait_queue_head_t inflight_wait;
	atomic_t hang_jobs;
	wait_queue_head_t cancel_wq;
	bool dying;
};

static inline struct vrender_device *to_vrender(struct drm_device *drm)
{
	return container_of(drm, struct vrender_device, drm);
}

/* vrender_ioctl.c */
int vrender_ioctl_get_param(struct drm_device *dev, void *data,
			    struct drm_file *file);
int vrender_ioctl_bo_create(struct drm_device *dev, void *data,
			    struct drm_file *file);
int vrender_ioctl_bo_mmap_offset(struct drm_device *dev, void *data,
				 struct drm_file *file);
int vrender_ioctl_bo_info(struct drm_device *dev, void *data,
			  struct drm_file *file);
int vrender_ioctl_bo_wait(struct drm_device *dev, void *data,
			  struct drm_file *file);

/* vrender_engine.c */
int vrender_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file);
void vrender_engine_cancel(struct vrender_device *vr);
extern unsigned int vrender_job_timeout_ms;
extern unsigned long long vrender_engine_speed;
extern unsigned int vrender_job_latency_us;

#endif /* _VRENDER_DRV_H_ */

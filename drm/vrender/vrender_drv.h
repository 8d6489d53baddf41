/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrender - a render-only DRM driver with a simulated engine
 */
#ifndef _VRENDER_DRV_H_
#define _VRENDER_DRV_H_

#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <drm/drm_device.h>
#include <drm/gpu_scheduler.h>

#include <primepair/compat.h>
#include <primepair/primebuf.h>

#define VRENDER_DRIVER_NAME	"vrender"
#define VRENDER_MAX_INSTANCES	4
#define VRENDER_MAX_COMMANDS	64
#define VRENDER_MAX_SYNCOBJS	64
/* Jobs one open file may have queued or running; more wait, then -EBUSY */
#define VRENDER_MAX_QUEUED	64
/* Engines of a device, each running one job at a time */
#define VRENDER_ENGINES		2

struct drm_file;
struct drm_vrender_cmd;
struct vrender_wait;

/**
 * struct vrender_device - one vrender instance
 * @drm: the DRM device, embedded
 * @pdev: the virtual platform device it is bound to
 * @index: instance number, 0 to VRENDER_MAX_INSTANCES - 1
 * @constraints: what this instance declared to primebuf
 * @engine: the scheduler of each engine: one job on an engine at a time,
 *	taken in turn from the entities of the open files bound to it
 * @engine_list: points at each of @engine, for the files' entities
 * @engine_name: the timeline name of each engine's fences
 * @jobs: jobs, and states of open or closed files, not yet freed
 * @live_jobs: jobs not yet freed, whose buffers may still be mapped
 * @idle: unbinding waits here for @live_jobs to reach zero, and the
 *	release of the DRM device for @jobs
 * @free_wq: where finished jobs are released, and the state of a closed
 *	file once its last job is
 * @pm_lock: makes checking @resume and counting a job in @busy one step
 *	against system suspend
 * @resume: from system suspend to resume, the fence that jobs about to
 *	start wait for; NULL while the engines run
 * @busy: jobs on the engines: their simulated time has started and they
 *	have not yet left run_job; system suspend waits on @idle for none
 * @pm_seq: odd from system suspend to resume, incremented at each;
 *	written under @pm_lock, read by the timers of dependency waits
 */
struct vrender_device {
	struct drm_device drm;
	struct platform_device *pdev;
	unsigned int index;
	struct primebuf_constraints constraints;
	struct drm_gpu_scheduler engine[VRENDER_ENGINES];
	struct drm_gpu_scheduler *engine_list[VRENDER_ENGINES];
	char engine_name[VRENDER_ENGINES][24];
	atomic_t jobs;
	atomic_t live_jobs;
	wait_queue_head_t idle;
	struct workqueue_struct *free_wq;
	spinlock_t pm_lock;	/* @resume, @pm_seq; with @busy's increment */
	struct vrender_wait *resume;
	atomic_t busy;
	unsigned int pm_seq;
};

/**
 * struct vrender_file - what an open file of a vrender device owns
 * @vr: the device
 * @ref: held by the file and by each of its jobs until freed
 * @free_work: destroys @entity and frees the state after the last put
 * @fence_context: the timeline of the file's out-fences
 * @seqno: the last number on it; protected by @push_lock
 * @entity: the file's queue of jobs on the device's scheduler
 * @queued: jobs submitted and not yet freed, at most VRENDER_MAX_QUEUED
 * @ran_unreleased: jobs that have run and are not yet released
 * @room: SUBMIT waits here while @queued is at the limit, BO_WAIT for
 *	@ran_unreleased to reach zero
 * @push_lock: makes arming and pushing a job one step, so that the
 *	entity's fences are queued in the order of their numbers
 */
struct vrender_file {
	struct vrender_device *vr;
	struct kref ref;
	struct work_struct free_work;
	u64 fence_context;
	u64 seqno;
	struct drm_sched_entity entity;
	atomic_t queued;
	atomic_t ran_unreleased;
	wait_queue_head_t room;
	struct mutex push_lock;		/* drm_sched_job_arm() to _push_job() */
};

/**
 * struct vrender_job_bo - one buffer of a job
 * @obj: the buffer, referenced by the job
 * @write: the job writes it
 * @sgt: the device's mapping while the job is prepared or runs
 * @addr: physical address of each DMA segment of @sgt
 * @start: offset in the buffer of each segment, and the end of the last
 * @nents: number of DMA segments
 * @stop: set when the engine must give up on the job at once
 */
struct vrender_job_bo {
	struct drm_gem_object *obj;
	bool write;
	struct sg_table *sgt;
	phys_addr_t *addr;
	u64 *start;
	unsigned int nents;
	const bool *stop;
};

struct vrender_out_fence;

/**
 * struct vrender_job - one SUBMIT
 * @base: the scheduler's job, embedded
 * @vr: the device
 * @vf: the file that submitted it, referenced
 * @cmds: the commands, copied from userspace
 * @ncmds: number of @cmds
 * @cmd_bo: for each command, the indices in @bos of destination and source
 * @bos: the buffers, each once
 * @nbos: number of @bos
 * @explicit: the in-fences userspace named; a failed one fails the job
 * @nexplicit: number of @explicit
 * @foreign: dependencies that are not this scheduler's, waited for
 *	through @gate
 * @nforeign: number of @foreign
 * @gate: signals once every @foreign fence has, or with -ETIMEDOUT at the
 *	job's timeout; NULL without foreign dependencies
 * @stall: the job's simulated time, or its injected hang
 * @out: the job's out-fence until SUBMIT starts it
 * @row: the engine's bounce row; NULL when no command needs one
 *	(vrender_cmd_needs_row())
 * @bytes: bytes of rectangles the commands touch
 * @hang: the job hangs (primebuf_selftest's hang_jobs)
 * @stalled: @stall has been started
 * @ran: run_job was called; counted in @vf's ran_unreleased
 * @error: what preparing the job found; the job runs only if it is 0
 * @cancel: set by the timeout handler; the engine stops at its next chunk
 * @busy: counted in the device's busy, from its start until it leaves
 *	run_job
 * @free_work: releases the job once the scheduler is done with it
 */
struct vrender_job {
	struct drm_sched_job base;
	struct vrender_device *vr;
	struct vrender_file *vf;
	struct drm_vrender_cmd *cmds;
	unsigned int ncmds;
	u8 (*cmd_bo)[2];
	struct vrender_job_bo bos[2 * VRENDER_MAX_COMMANDS];
	unsigned int nbos;
	struct dma_fence *explicit[VRENDER_MAX_SYNCOBJS + 1];
	unsigned int nexplicit;
	struct dma_fence **foreign;
	unsigned int nforeign;
	struct vrender_wait *gate;
	struct vrender_wait *stall;
	struct vrender_out_fence *out;
	u32 *row;
	u64 bytes;
	bool hang;
	bool stalled;
	bool ran;
	int error;
	bool cancel;
	bool busy;
	struct work_struct free_work;
};

static inline struct vrender_job *to_vrender_job(struct drm_sched_job *job)
{
	return container_of(job, struct vrender_job, base);
}

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

/* vrender_submit.c */
int vrender_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* vrender_engine.c */
#define VRENDER_CHUNK_PIXELS	4096	/* pixels per step of COPY, PATTERN */
struct vrender_wait *vrender_wait_alloc(struct vrender_device *vr,
					unsigned int ndeps);
struct dma_fence *vrender_wait_fence(struct vrender_wait *w);
void vrender_wait_start_gate(struct vrender_wait *w,
			     struct dma_fence **fences);
int vrender_job_map(struct vrender_job *job);
void vrender_job_release(struct vrender_job *job);
struct vrender_out_fence *vrender_out_fence_alloc(void);
struct dma_fence *vrender_out_fence_init(struct vrender_out_fence *out,
					 u64 context, u64 seqno);
void vrender_out_fence_follow(struct dma_fence *fence,
			      struct dma_fence *finished);
struct dma_fence *vrender_fence_own(struct vrender_device *vr,
				    struct dma_fence *f);
int vrender_engine_init(struct vrender_device *vr);
void vrender_engine_quiesce(struct vrender_device *vr);
int vrender_engine_suspend(struct vrender_device *vr);
void vrender_engine_resume(struct vrender_device *vr);
int vrender_file_open(struct vrender_device *vr, struct drm_file *file);
void vrender_file_close(struct drm_file *file);
void vrender_file_put(struct vrender_file *vf);
extern unsigned int vrender_job_timeout_ms;
extern unsigned long long vrender_engine_speed;
extern unsigned int vrender_job_latency_us;
extern unsigned int vrender_job_release_delay_us;

#endif /* _VRENDER_DRV_H_ */

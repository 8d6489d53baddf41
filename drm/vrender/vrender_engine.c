// SPDX-License-Identifier: GPL-2.0
/*
 * vrender - the scheduler's callbacks, the simulated engine, and the
 * driver's own wait fences
 */

#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/gpu_scheduler.h>

#include <uapi/drm/vrender_drm.h>

#include "vrender_drv.h"

/**
 * DOC: engine
 *
 * Each vrender device has VRENDER_ENGINES engines, each behind its own GPU
 * scheduler (&drm_gpu_scheduler), and each open file one entity
 * (&drm_sched_entity) that may run on any of them: a scheduler takes jobs
 * from the entities bound to it in turn, one job on its engine at a time,
 * and only jobs whose dependencies have all signalled.  An entity stays on
 * its engine while it has jobs queued or running, which keeps a file's
 * jobs in order; when it is idle, its next job moves it to the least busy
 * engine.  A client whose job waits for a fence that never signals blocks
 * its own entity, never another client's, and a client whose job runs
 * long holds one engine, never all of them.
 *
 * SUBMIT (vrender_submit.c) adds the job's dependencies to the scheduler
 * job: fences of these schedulers directly, every other fence (another
 * device's, a sync_file, a syncobj point) through one gate fence of the
 * driver that signals once they all have, or with -ETIMEDOUT when
 * job_timeout_ms has passed since SUBMIT.  No driver thread ever waits
 * for a fence.
 *
 * SUBMIT also allocates everything the job will use and maps each buffer
 * for the device (imports through their dma-buf attachment), before the
 * job's fence is published: from then on, nothing on the way to that
 * fence's signal allocates memory or takes a reservation lock, and
 * lockdep checks it (dma_fence_begin_signalling() covers prepare_job and
 * run_job).  A job holds its mappings from SUBMIT until it is freed: a
 * device that needs one of its buffers moved waits for the job first
 * (primebuf_wait_idle()).
 *
 * Once the dependencies are met, the scheduler asks the driver to prepare
 * the job (&drm_sched_backend_ops.prepare_job), which spends the job's
 * simulated time (job_latency_us plus its bytes at engine_speed, or an
 * injected hang) as one more fence, a timer.  A job whose simulated time
 * reaches job_timeout_ms, and every hung job, ends there with -ETIMEDOUT.
 *
 * run_job is the engine.  It walks the mapped scatterlists in chunks of
 * at most 64 KiB of a segment, yielding after every chunk, and gives the
 * commands a real time budget of job_timeout_ms: a job past it fails with
 * -ETIMEDOUT before its next command.  The scheduler's own timeout
 * (job_timeout_ms when the device was created) is the last resort: the
 * timeout handler makes the engine stop at its next chunk and fails the
 * job with -ETIMEDOUT.  The job completes inside run_job, so a job of
 * this scheduler that has been scheduled has also finished; the scheduler
 * signals its fence.
 *
 * free_job hands the job to a worker of the driver, which unmaps the
 * buffers and drops every reference the job holds (buffers, fences, the
 * file) outside the scheduler's context.  Nothing stays mapped between
 * jobs, so exporters may move buffers between them.
 *
 * System suspend stops the engines with a gate of the driver's own, the
 * same on every kernel: prepare_job gives a job whose turn comes the
 * fence that resume signals instead of starting it, and the scheduler
 * asks again once that has signalled; suspend waits for the jobs that
 * had started (simulated time, then run_job) to leave their engine.
 * drm_sched_wqueue_stop() (6.8 and later) would not do: it stops
 * run_job but not the simulated time, a fence, and it holds finished
 * jobs back from free_job, so the scheduler's timeout would fire on them
 * in the middle of the suspend.  With the gate, the scheduler's timeout
 * only ever covers run_job, which no job is in while suspended, and the
 * timer of a gate of foreign dependencies starts again after a suspend.
 *
 * A dependency that signalled with an error does not fail the job: the
 * fences of a buffer's reservation object would otherwise pass a single
 * failure on from job to job, and the buffer could never be used again.
 * A failed explicit in-fence does fail it.
 */

/* ----------------------------------------------------------------------
 * Wait fences: the gate of foreign dependencies, and the simulated time
 */

/**
 * struct vrender_wait_dep - one fence a gate waits for
 * @cb: on @fence, until it signals or the gate is released
 * @fence: the dependency, referenced
 * @wait: the gate
 */
struct vrender_wait_dep {
	struct dma_fence_cb cb;
	struct dma_fence *fence;
	struct vrender_wait *wait;
};

/**
 * struct vrender_wait - a fence of the driver that a job's scheduler
 *	waits for
 * @base: the fence; first, as dma_fence_free() frees the whole object
 * @lock: @base's lock
 * @timer: signals @base with @timeout_error when it expires
 * @timeout_error: 0 for the end of simulated time, -ETIMEDOUT otherwise
 * @vr: the device, for a gate's timer
 * @pm_seq: the device's pm_seq when a gate's timer was last armed
 * @pending: @deps not yet signalled, plus one while the gate starts
 * @ndeps: number of @deps
 * @deps: the fences of a gate
 *
 * Only the scheduler and the job hold references to it, so none outlives
 * the module.
 */
struct vrender_wait {
	struct dma_fence base;
	spinlock_t lock;	/* @base's */
	struct hrtimer timer;
	int timeout_error;
	struct vrender_device *vr;
	unsigned int pm_seq;
	atomic_t pending;
	unsigned int ndeps;
	struct vrender_wait_dep deps[];
};

static const char *vrender_wait_driver_name(struct dma_fence *fence)
{
	return VRENDER_DRIVER_NAME;
}

static const char *vrender_wait_timeline_name(struct dma_fence *fence)
{
	return "wait";
}

static const struct dma_fence_ops vrender_wait_ops = {
	.get_driver_name = vrender_wait_driver_name,
	.get_timeline_name = vrender_wait_timeline_name,
};

static void vrender_wait_signal(struct vrender_wait *w, int error)
{
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	if (!test_bit(DMA_FENCE_FLAG_SIGNALED_BIT, &w->base.flags)) {
		if (error)
			dma_fence_set_error(&w->base, error);
		dma_fence_signal_locked(&w->base);
	}
	spin_unlock_irqrestore(&w->lock, flags);
}

static u64 vrender_timeout_ns(void)
{
	return (u64)max(1U, READ_ONCE(vrender_job_timeout_ms)) * NSEC_PER_MSEC;
}

/*
 * A gate whose wait saw the device suspended, or sees it suspended now,
 * gets its whole timeout again: the fences it waits for may be late
 * because of the suspend, and the job must not fail for that.
 */
static bool vrender_wait_slept(struct vrender_wait *w)
{
	unsigned int seq;

	if (!w->vr)
		return false;
	seq = READ_ONCE(w->vr->pm_seq);
	if (seq == w->pm_seq && !(seq & 1))
		return false;
	w->pm_seq = seq;
	return true;
}

static enum hrtimer_restart vrender_wait_expired(struct hrtimer *timer)
{
	struct vrender_wait *w = container_of(timer, struct vrender_wait,
					      timer);

	if (vrender_wait_slept(w)) {
		hrtimer_forward_now(timer, ns_to_ktime(vrender_timeout_ns()));
		return HRTIMER_RESTART;
	}
	vrender_wait_signal(w, w->timeout_error);
	return HRTIMER_NORESTART;
}

static void vrender_wait_dep_done(struct dma_fence *fence,
				  struct dma_fence_cb *cb)
{
	struct vrender_wait_dep *dep = container_of(cb, struct vrender_wait_dep,
						    cb);

	if (atomic_dec_and_test(&dep->wait->pending))
		vrender_wait_signal(dep->wait, 0);
}

/**
 * vrender_wait_alloc - allocate a wait fence
 * @vr: the device
 * @ndeps: number of fences it will wait for (0 for simulated time)
 *
 * Context: process context, before the job is armed.
 * Return: the fence, initialised and not started, or NULL.
 */
struct vrender_wait *vrender_wait_alloc(struct vrender_device *vr,
					unsigned int ndeps)
{
	struct vrender_wait *w;

	w = kzalloc(struct_size(w, deps, ndeps), GFP_KERNEL_ACCOUNT);
	if (!w)
		return NULL;
	/* Only a gate's timer minds system suspend. */
	if (ndeps)
		w->vr = vr;
	w->ndeps = ndeps;
	spin_lock_init(&w->lock);
	hrtimer_setup(&w->timer, vrender_wait_expired, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	/* A timeline of its own: wait fences signal in no particular order. */
	dma_fence_init(&w->base, &vrender_wait_ops, &w->lock,
		       dma_fence_context_alloc(1), 1);
	return w;
}

/**
 * vrender_wait_fence - the fence of a wait
 * @w: the wait
 *
 * Return: @w's fence, not referenced.
 */
struct dma_fence *vrender_wait_fence(struct vrender_wait *w)
{
	return &w->base;
}

/**
 * vrender_wait_start_gate - start waiting for a job's foreign fences
 * @w: a gate from vrender_wait_alloc()
 * @fences: @w->ndeps fences; their references pass to @w
 *
 * @w signals when every fence has, or with -ETIMEDOUT after
 * job_timeout_ms, not counting a system suspend: a timeout that finds
 * the device suspended, or resumed since, starts again.  No allocation:
 * called between arming and pushing.
 */
void vrender_wait_start_gate(struct vrender_wait *w, struct dma_fence **fences)
{
	unsigned int i;

	atomic_set(&w->pending, w->ndeps + 1);
	w->timeout_error = -ETIMEDOUT;
	w->pm_seq = READ_ONCE(w->vr->pm_seq);
	for (i = 0; i < w->ndeps; i++) {
		struct vrender_wait_dep *dep = &w->deps[i];

		dep->fence = fences[i];
		dep->wait = w;
		if (dma_fence_add_callback(dep->fence, &dep->cb,
					   vrender_wait_dep_done))
			atomic_dec(&w->pending);
	}
	hrtimer_start(&w->timer, ns_to_ktime(vrender_timeout_ns()),
		      HRTIMER_MODE_REL);
	if (atomic_dec_and_test(&w->pending))
		vrender_wait_signal(w, 0);
}

/* Stop the timer and the callbacks, then drop the job's reference. */
static void vrender_wait_put(struct vrender_wait *w)
{
	unsigned int i;

	if (!w)
		return;
	hrtimer_cancel(&w->timer);
	for (i = 0; i < w->ndeps; i++) {
		if (!w->deps[i].fence)
			continue;
		dma_fence_remove_callback(w->deps[i].fence, &w->deps[i].cb);
		dma_fence_put(w->deps[i].fence);
	}
	/* A gate that never started never had a waiter: end it here. */
	vrender_wait_signal(w, -ECANCELED);
	dma_fence_put(&w->base);
}

/* ----------------------------------------------------------------------
 * Out-fences: what userspace and other drivers see of a job
 */

/**
 * struct vrender_out_fence - the fence a job publishes
 * @pf: the fence, its module reference, and the job's scheduler fence it
 *	follows (@pf.inner)
 * @lock: @pf.base's lock
 * @cb: on the scheduler fence, until it signals
 *
 * The scheduler's fences point into the device, so they never leave the
 * driver: buffers, syncobjs and sync_files get this fence, which keeps
 * the module (and so the device) in place as long as anyone holds it.
 */
struct vrender_out_fence {
	struct primebuf_fence pf;
	spinlock_t lock;	/* @pf.base's */
	struct dma_fence_cb cb;
};

static const char *vrender_out_timeline_name(struct dma_fence *fence)
{
	return "engine";
}

static const struct dma_fence_ops vrender_out_ops = {
	.get_driver_name = vrender_wait_driver_name,
	.get_timeline_name = vrender_out_timeline_name,
	.release = primebuf_fence_release,
};

static void vrender_out_done(struct dma_fence *finished,
			     struct dma_fence_cb *cb)
{
	struct vrender_out_fence *out = container_of(cb, struct vrender_out_fence,
						     cb);

	if (finished->error)
		dma_fence_set_error(&out->pf.base, finished->error);
	dma_fence_signal(&out->pf.base);
	dma_fence_put(&out->pf.base);
}

/**
 * vrender_out_fence_alloc - allocate a job's out-fence
 *
 * Context: process context, before the job is armed.
 * Return: the fence, to be set up with vrender_out_fence_init() or
 * freed with kfree(); NULL without memory.
 */
struct vrender_out_fence *vrender_out_fence_alloc(void)
{
	return kzalloc(sizeof(struct vrender_out_fence), GFP_KERNEL_ACCOUNT);
}

/**
 * vrender_out_fence_init - give an out-fence its place on the timeline
 * @out: from vrender_out_fence_alloc()
 * @context: the file's fence context
 * @seqno: the next number on it
 *
 * Until vrender_out_fence_follow(), the fence is nobody's and may be
 * dropped (signalled with an error first, then put).
 *
 * Return: @out's fence, with the caller's reference.
 */
struct dma_fence *vrender_out_fence_init(struct vrender_out_fence *out,
					 u64 context, u64 seqno)
{
	__module_get(THIS_MODULE);
	out->pf.owner = THIS_MODULE;
	spin_lock_init(&out->lock);
	dma_fence_init(&out->pf.base, &vrender_out_ops, &out->lock, context,
		       seqno);
	return &out->pf.base;
}

/**
 * vrender_out_fence_follow - make an out-fence signal with a job
 * @fence: from vrender_out_fence_init()
 * @finished: the armed job's scheduler fence
 *
 * No allocation: called between arming and pushing.
 */
void vrender_out_fence_follow(struct dma_fence *fence,
			      struct dma_fence *finished)
{
	struct vrender_out_fence *out = container_of(fence,
						     struct vrender_out_fence,
						     pf.base);

	out->pf.inner = dma_fence_get(finished);
	/* One reference for the callback, which it drops. */
	dma_fence_get(fence);
	if (dma_fence_add_callback(finished, &out->cb, vrender_out_done))
		vrender_out_done(finished, &out->cb);
}

/**
 * vrender_fence_own - the scheduler fence behind a fence of this device
 * @vr: the device
 * @f: a dependency
 *
 * Return: for a job of @vr (its out-fence or its scheduler fence), the
 * scheduler fence, which the scheduler orders by itself; NULL for every
 * other fence.  Not referenced.
 */
struct dma_fence *vrender_fence_own(struct vrender_device *vr,
				    struct dma_fence *f)
{
	struct drm_sched_fence *sf;
	unsigned int i;

	if (f->ops == &vrender_out_ops)
		f = container_of(f, struct primebuf_fence, base)->inner;
	sf = to_drm_sched_fence(f);
	if (!sf)
		return NULL;
	for (i = 0; i < VRENDER_ENGINES; i++)
		if (sf->sched == &vr->engine[i])
			return f;
	return NULL;
}

/* ----------------------------------------------------------------------
 * Walking a mapped buffer
 */

typedef void (*vrender_chunk_fn)(void *vaddr, size_t len, void *ctx);

/*
 * Index the DMA segments of the mapping.  The engine is a device: it
 * works at the DMA addresses it was given, never through the pages of the
 * table (the dma-buf contract forbids importers to touch those, and
 * CONFIG_DMABUF_DEBUG scrambles them).  Without an IOMMU, as on every
 * vrender instance, a DMA address is a bus view of physical memory, so
 * the simulated engine reaches it through dma_to_phys().
 */
static int vrender_bo_index(struct vrender_job_bo *jb, struct device *dev)
{
	struct scatterlist *sg;
	unsigned int i;
	u64 pos = 0;

	jb->nents = jb->sgt->nents;
	jb->addr = kvmalloc_array(jb->nents, sizeof(*jb->addr), GFP_KERNEL_ACCOUNT);
	/* one more start than segments: the end of the last one */
	jb->start = kvmalloc_array(jb->nents + 1, sizeof(*jb->start),
				   GFP_KERNEL_ACCOUNT);
	if (!jb->addr || !jb->start)
		return -ENOMEM;

	for_each_sgtable_dma_sg(jb->sgt, sg, i) {
		phys_addr_t first = dma_to_phys(dev, sg_dma_address(sg));
		unsigned int len = sg_dma_len(sg);

		/* only memory the kernel can map, as a bus master would */
		if (!len || !pfn_valid(PHYS_PFN(first)) ||
		    !pfn_valid(PHYS_PFN(first + len - 1)))
			return -EIO;
		jb->addr[i] = first;
		jb->start[i] = pos;
		pos += len;
	}
	jb->start[jb->nents] = pos;
	return pos < jb->obj->size ? -EIO : 0;
}

static unsigned int vrender_bo_find(struct vrender_job_bo *jb, u64 offset)
{
	unsigned int lo = 0, hi = jb->nents - 1;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo + 1) / 2;

		if (jb->start[mid] <= offset)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * The most of a segment handed to a chunk function at once: between two
 * chunks the engine lets the CPU go and looks for the timeout handler's
 * stop, so a job may cover a gigabyte.
 */
#define VRENDER_WALK_MAX	SZ_64K

/*
 * Hand @len bytes at @offset of the buffer to @fn, in chunks that never
 * cross a segment.  Without highmem every page has a permanent address in
 * the linear map, where a segment's pages follow one another as they do
 * in physical memory, so a chunk is up to VRENDER_WALK_MAX of it; with
 * highmem it is a page at most, through a temporary mapping.
 */
static void vrender_bo_walk(struct vrender_job_bo *jb, u64 offset, size_t len,
			    vrender_chunk_fn fn, void *ctx)
{
	unsigned int i = vrender_bo_find(jb, offset);
	u64 in = offset - jb->start[i];

	while (len && i < jb->nents && !READ_ONCE(*jb->stop)) {
		u64 seg_len = jb->start[i + 1] - jb->start[i];
		phys_addr_t phys = jb->addr[i] + in;
		struct page *page;
		size_t poff, n;
		void *vaddr;

		if (in >= seg_len) {
			i++;
			in = 0;
			continue;
		}
		page = pfn_to_page(PHYS_PFN(phys));
		poff = offset_in_page(phys);
		if (IS_ENABLED(CONFIG_HIGHMEM)) {
			n = min3(len, (size_t)(PAGE_SIZE - poff),
				 (size_t)(seg_len - in));
			vaddr = kmap_local_page(page);
			fn(vaddr + poff, n, ctx);
			kunmap_local(vaddr);
		} else {
			n = min3(len, (size_t)VRENDER_WALK_MAX,
				 (size_t)(seg_len - in));
			fn(page_address(page) + poff, n, ctx);
		}
		cond_resched();

		len -= n;
		in += n;
	}
}

/*
 * Stores the pixel value eight bytes at a time.  x86's memset32() is a
 * "rep stosl", four bytes per step, which emulators and some CPUs run far
 * slower than plain stores; memset() cannot store a 32-bit pattern.
 */
static void vrender_chunk_fill(void *vaddr, size_t len, void *ctx)
{
	u32 value = *(u32 *)ctx;
	u64 wide = (u64)value << 32 | value;
	u32 *p32 = vaddr;
	u64 *p;

	if (len >= 4 && !IS_ALIGNED((unsigned long)p32, 8)) {
		*p32++ = value;
		len -= 4;
	}
	p = (u64 *)p32;
	for (; len >= 64; len -= 64, p += 8) {
		p[0] = wide;
		p[1] = wide;
		p[2] = wide;
		p[3] = wide;
		p[4] = wide;
		p[5] = wide;
		p[6] = wide;
		p[7] = wide;
	}
	for (; len >= 8; len -= 8)
		*p++ = wide;
	if (len >= 4)
		*(u32 *)p = value;
}

/*
 * Moves @len bytes (a multiple of 4) in bursts of eight 8-byte words, as
 * the engine's bus would.  memcpy() is a "rep movsq" on x86 CPUs with
 * fast strings before 6.2, which emulators run one word per step.
 */
static void vrender_burst_copy(u8 *dst, const u8 *src, size_t len)
{
	for (; len >= 64; len -= 64, dst += 64, src += 64) {
		put_unaligned(get_unaligned((const u64 *)src), (u64 *)dst);
		put_unaligned(get_unaligned((const u64 *)(src + 8)), (u64 *)(dst + 8));
		put_unaligned(get_unaligned((const u64 *)(src + 16)), (u64 *)(dst + 16));
		put_unaligned(get_unaligned((const u64 *)(src + 24)), (u64 *)(dst + 24));
		put_unaligned(get_unaligned((const u64 *)(src + 32)), (u64 *)(dst + 32));
		put_unaligned(get_unaligned((const u64 *)(src + 40)), (u64 *)(dst + 40));
		put_unaligned(get_unaligned((const u64 *)(src + 48)), (u64 *)(dst + 48));
		put_unaligned(get_unaligned((const u64 *)(src + 56)), (u64 *)(dst + 56));
	}
	for (; len >= 8; len -= 8, dst += 8, src += 8)
		put_unaligned(get_unaligned((const u64 *)src), (u64 *)dst);
	if (len)
		memcpy(dst, src, len);
}

static void vrender_chunk_read(void *vaddr, size_t len, void *ctx)
{
	u8 **cursor = ctx;

	vrender_burst_copy(*cursor, vaddr, len);
	*cursor += len;
}

static void vrender_chunk_write(void *vaddr, size_t len, void *ctx)
{
	const u8 **cursor = ctx;

	vrender_burst_copy(vaddr, *cursor, len);
	*cursor += len;
}

static void vrender_chunk_crc(void *vaddr, size_t len, void *ctx)
{
	u32 *crc = ctx;

	*crc = crc32_le(*crc, vaddr, len);
}

static void vrender_bo_read(struct vrender_job_bo *jb, u64 offset,
			    void *buf, size_t len)
{
	u8 *cursor = buf;

	vrender_bo_walk(jb, offset, len, vrender_chunk_read, &cursor);
}

static void vrender_bo_write(struct vrender_job_bo *jb, u64 offset,
			     const void *buf, size_t len)
{
	const u8 *cursor = buf;

	vrender_bo_walk(jb, offset, len, vrender_chunk_write, &cursor);
}

/* ----------------------------------------------------------------------
 * Commands
 */

static u64 vrender_pixel_offset(u64 base, u32 pitch, u32 x, u32 y)
{
	return base + (u64)y * pitch + (u64)x * 4;
}

/*
 * The PATTERN image: a checkerboard of 32-pixel squares that scrolls right
 * by four pixels per frame, blue on black, over red and green ramps that
 * move with the frame number.  Coordinates are relative to the rectangle.
 */
static u32 vrender_pattern_pixel(u32 x, u32 y, u32 frame)
{
	u32 check = (((x + frame * 4) / 32) ^ (y / 32)) & 1;
	u32 r = (x + frame) & 0xff;
	u32 g = (y + 2 * frame) & 0xff;

	return 0xff000000 | r << 16 | g << 8 | (check ? 0xff : 0);
}

/* Rows of @width pixels @pitch bytes apart leave no gap: one run */
static bool vrender_rows_contiguous(u32 width, u32 pitch)
{
	return (u64)width * 4 == pitch;
}

static void vrender_cmd_fill(struct vrender_job_bo *dst,
			     const struct drm_vrender_cmd *c)
{
	u32 value = c->value;
	u32 y;

	if (vrender_rows_contiguous(c->width, c->dst_pitch)) {
		vrender_bo_walk(dst, vrender_pixel_offset(c->dst_offset,
							  c->dst_pitch, 0,
							  c->dst_y),
				(size_t)c->height * c->dst_pitch,
				vrender_chunk_fill, &value);
		return;
	}
	for (y = 0; y < c->height; y++)
		vrender_bo_walk(dst, vrender_pixel_offset(c->dst_offset,
							  c->dst_pitch,
							  c->dst_x,
							  c->dst_y + y),
				(size_t)c->width * 4, vrender_chunk_fill,
				&value);
}

static void vrender_cmd_pattern(struct vrender_job_bo *dst,
				const struct drm_vrender_cmd *c, u32 *row)
{
	u32 x, y, n, i;

	for (y = 0; y < c->height; y++) {
		for (x = 0; x < c->width; x += n) {
			n = min_t(u32, c->width - x, VRENDER_CHUNK_PIXELS);
			for (i = 0; i < n; i++)
				row[i] = vrender_pattern_pixel(x + i, y,
							       c->value);
			vrender_bo_write(dst,
					 vrender_pixel_offset(c->dst_offset,
							      c->dst_pitch,
							      c->dst_x + x,
							      c->dst_y + y),
					 row, (size_t)n * 4);
		}
	}
}

/* An ARGB8888 colour in XRGB16161616: each channel times 257 */
static u64 vrender_argb_to_rgb64(u32 argb)
{
	u64 a = argb >> 24, r = (argb >> 16) & 0xff;
	u64 g = (argb >> 8) & 0xff, b = argb & 0xff;

	return (a * 257) << 48 | (r * 257) << 32 | (g * 257) << 16 | b * 257;
}

/* An ARGB8888 colour in BT.601 limited-range Y, Cb and Cr */
static void vrender_argb_to_ycbcr(u32 argb, u8 *y, u8 *cb, u8 *cr)
{
	int r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;

	*y = ((66 * r + 129 * g + 25 * b + 128) >> 8) + 16;
	*cb = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
	*cr = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
}

/*
 * FILL and PATTERN into an XRGB16161616 surface, @n pixels of a row at a
 * time through @row (VRENDER_CHUNK_PIXELS 32-bit words: half as many
 * 64-bit pixels).
 */
static void vrender_cmd_rgb64(struct vrender_job_bo *dst,
			      const struct drm_vrender_cmd *c, u32 *row)
{
	__le64 *px = (__le64 *)row;
	u32 x, y, n, i, argb;

	for (y = 0; y < c->height; y++) {
		for (x = 0; x < c->width; x += n) {
			n = min_t(u32, c->width - x, VRENDER_CHUNK_PIXELS / 2);
			for (i = 0; i < n; i++) {
				argb = c->op == VRENDER_CMD_FILL ? c->value :
				       vrender_pattern_pixel(x + i, y, c->value);
				px[i] = cpu_to_le64(vrender_argb_to_rgb64(argb));
			}
			vrender_bo_write(dst, c->dst_offset +
					 (u64)(c->dst_y + y) * c->dst_pitch +
					 (u64)(c->dst_x + x) * 8,
					 row, (size_t)n * 8);
		}
	}
}

/*
 * FILL and PATTERN into an NV12 surface, two rows at a time: @row holds
 * the chunk's Y bytes of both rows, then its Cb, Cr pairs.  Each pair is
 * that of the 2x2 block's top-left pixel.
 */
static void vrender_cmd_nv12(struct vrender_job_bo *dst,
			     const struct drm_vrender_cmd *c, u32 *row)
{
	u8 *luma[2], *uv, cb, cr;
	u32 x, y, n, i, j, argb;

	for (y = 0; y < c->height; y += 2) {
		for (x = 0; x < c->width; x += n) {
			n = min_t(u32, c->width - x, VRENDER_CHUNK_PIXELS);
			luma[0] = (u8 *)row;
			luma[1] = luma[0] + n;
			uv = luma[1] + n;
			for (j = 0; j < 2; j++) {
				for (i = 0; i < n; i++) {
					argb = c->op == VRENDER_CMD_FILL ? c->value :
					       vrender_pattern_pixel(x + i, y + j,
								     c->value);
					vrender_argb_to_ycbcr(argb, &luma[j][i],
							      &cb, &cr);
					if (!j && !(i & 1)) {
						uv[i] = cb;
						uv[i + 1] = cr;
					}
				}
				vrender_bo_write(dst, c->dst_offset +
						 (u64)(c->dst_y + y + j) * c->dst_pitch +
						 c->dst_x + x, luma[j], n);
			}
			vrender_bo_write(dst, c->src_offset +
					 (u64)(c->dst_y + y) / 2 * c->src_pitch +
					 c->dst_x + x, uv, n);
		}
	}
}

/*
 * Rows and chunks are visited in the order that never overwrites source
 * pixels before they are read, like memmove(): backwards when the
 * destination starts after the source in the same buffer.
 */
static void vrender_cmd_copy(struct vrender_job_bo *dst,
			     struct vrender_job_bo *src,
			     const struct drm_vrender_cmd *c, u32 *row)
{
	u64 d0 = vrender_pixel_offset(c->dst_offset, c->dst_pitch, c->dst_x,
				      c->dst_y);
	u64 s0 = vrender_pixel_offset(c->src_offset, c->src_pitch, c->src_x,
				      c->src_y);
	bool backwards = dst == src && d0 > s0;
	u32 chunks = DIV_ROUND_UP(c->width, VRENDER_CHUNK_PIXELS);
	u32 r, k;

	for (r = 0; r < c->height; r++) {
		u32 y = backwards ? c->height - 1 - r : r;

		for (k = 0; k < chunks; k++) {
			u32 ck = backwards ? chunks - 1 - k : k;
			u32 x = ck * VRENDER_CHUNK_PIXELS;
			u32 n = min_t(u32, c->width - x, VRENDER_CHUNK_PIXELS);

			vrender_bo_read(src,
					vrender_pixel_offset(c->src_offset,
							     c->src_pitch,
							     c->src_x + x,
							     c->src_y + y),
					row, (size_t)n * 4);
			vrender_bo_write(dst,
					 vrender_pixel_offset(c->dst_offset,
							      c->dst_pitch,
							      c->dst_x + x,
							      c->dst_y + y),
					 row, (size_t)n * 4);
		}
	}
}

static void vrender_cmd_checksum(struct vrender_job_bo *dst,
				 struct vrender_job_bo *src,
				 const struct drm_vrender_cmd *c)
{
	u32 crc = ~0U;
	__le32 result;
	u32 y;

	for (y = 0; y < c->height; y++)
		vrender_bo_walk(src, vrender_pixel_offset(c->src_offset,
							  c->src_pitch,
							  c->src_x,
							  c->src_y + y),
				(size_t)c->width * 4, vrender_chunk_crc, &crc);

	result = cpu_to_le32(~crc);
	vrender_bo_write(dst, c->dst_offset, &result, sizeof(result));
}

static void vrender_job_run_cmd(struct vrender_job *job, unsigned int i)
{
	const struct drm_vrender_cmd *c = &job->cmds[i];
	struct vrender_job_bo *dst = &job->bos[job->cmd_bo[i][0]];
	struct vrender_job_bo *src = &job->bos[job->cmd_bo[i][1]];

	/* FILL and PATTERN into another format than XRGB8888 */
	switch (c->flags & VRENDER_CMD_FORMAT_MASK) {
	case VRENDER_CMD_FORMAT_NV12:
		vrender_cmd_nv12(dst, c, job->row);
		return;
	case VRENDER_CMD_FORMAT_XRGB16161616:
		vrender_cmd_rgb64(dst, c, job->row);
		return;
	}

	switch (c->op) {
	case VRENDER_CMD_FILL:
		vrender_cmd_fill(dst, c);
		break;
	case VRENDER_CMD_PATTERN:
		vrender_cmd_pattern(dst, c, job->row);
		break;
	case VRENDER_CMD_COPY:
		vrender_cmd_copy(dst, src, c, job->row);
		break;
	case VRENDER_CMD_CHECKSUM:
		vrender_cmd_checksum(dst, src, c);
		break;
	}
}

/*
 * Runs in the fence signalling critical section: no allocation, no lock.
 * The commands get the job's real time budget, job_timeout_ms from their
 * start: a job still running at that point fails with -ETIMEDOUT before
 * its next command, however little simulated time it was given.
 */
static int vrender_job_execute(struct vrender_job *job)
{
	unsigned long deadline = jiffies +
		msecs_to_jiffies(max(1U, READ_ONCE(vrender_job_timeout_ms)));
	unsigned int i;

	for (i = 0; i < job->ncmds; i++) {
		vrender_job_run_cmd(job, i);
		if (READ_ONCE(job->cancel))
			return -ETIMEDOUT;
		if (i + 1 < job->ncmds && time_after(jiffies, deadline))
			return -ETIMEDOUT;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Preparing a job: simulated time, then every mapping
 */

/*
 * Every buffer is mapped both ways, whatever this job does with it: a
 * mapping outlives the job and serves the next ones, and where the dma-buf
 * core caches an exporter's tables (cache_sgt_mapping: vgem's, udmabuf's
 * on 6.1 and 6.12) it refuses a writer a table first mapped for reading.
 * The cost, under bounce buffers only: another exporter that syncs at
 * unmap (the system heap) copies a reading job's bounce buffer back when
 * the job is released, after its fence.  primebuf's buffers are synced
 * per job instead (primebuf_bo_device_begin()).
 */
#define VRENDER_DMA_DIR	DMA_BIDIRECTIONAL

static void vrender_job_unmap(struct vrender_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nbos; i++) {
		struct vrender_job_bo *jb = &job->bos[i];

		kvfree(jb->addr);
		kvfree(jb->start);
		jb->addr = NULL;
		jb->start = NULL;
		if (jb->sgt)
			primebuf_bo_unmap(to_primebuf_bo(jb->obj), jb->sgt,
					  VRENDER_DMA_DIR);
		jb->sgt = NULL;
	}
}

/**
 * vrender_job_map - map every buffer of a job for the device
 * @job: a job that SUBMIT has not armed yet
 *
 * Backs, maps (through their dma-buf attachment for imports) and indexes
 * the buffers.  This allocates and takes reservation locks, so it runs
 * before the job's fence is published: from then on, nothing on the way
 * to that fence's signal may allocate or lock.  On failure the mappings
 * made so far stay in @job, for vrender_job_release().
 *
 * Context: process context; no reservation lock held.
 * Return: 0 or a negative errno.
 */
int vrender_job_map(struct vrender_job *job)
{
	unsigned int i;
	int ret;

	for (i = 0; i < job->nbos; i++) {
		struct vrender_job_bo *jb = &job->bos[i];
		struct sg_table *sgt;

		jb->stop = &job->cancel;
		sgt = primebuf_bo_map(to_primebuf_bo(jb->obj), VRENDER_DMA_DIR);
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		jb->sgt = sgt;
		ret = vrender_bo_index(jb, job->vr->drm.dev);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The job's simulated time: job_latency_us plus its bytes at
 * engine_speed, or a hang.  Returns the timer fence to wait for, or NULL
 * if there is no time to spend.
 */
static struct dma_fence *vrender_job_stall(struct vrender_job *job)
{
	u64 timeout_ns = vrender_timeout_ns();
	u64 speed = READ_ONCE(vrender_engine_speed);
	u64 ns = (u64)READ_ONCE(vrender_job_latency_us) * NSEC_PER_USEC;
	struct vrender_wait *w = job->stall;
	bool too_long;

	/*
	 * bytes / speed in ns, in whole seconds first: x86's divide traps on
	 * a quotient beyond 64 bits, which bytes * NSEC_PER_SEC / speed
	 * reaches at a few bytes per second.  Past the timeout the exact
	 * figure does not matter.
	 */
	too_long = job->hang || ns >= timeout_ns;
	if (speed && !too_long) {
		u64 rem, secs = div64_u64_rem(job->bytes, speed, &rem);

		if (secs > timeout_ns / NSEC_PER_SEC)
			too_long = true;
		else
			ns += secs * NSEC_PER_SEC +
			      mul_u64_u64_div_u64(rem, NSEC_PER_SEC, speed);
	}
	if (!too_long && !ns)
		return NULL;
	too_long = too_long || ns >= timeout_ns;

	w->timeout_error = too_long ? -ETIMEDOUT : 0;
	hrtimer_start(&w->timer, ns_to_ktime(too_long ? timeout_ns : ns),
		      HRTIMER_MODE_REL);
	return dma_fence_get(&w->base);
}

/* What the job's dependencies tell it, once they have all signalled. */
static int vrender_job_dep_error(struct vrender_job *job)
{
	unsigned int i;

	if (job->gate && job->gate->base.error)
		return job->gate->base.error;
	/*
	 * A failed explicit dependency fails the job: userspace asked to run
	 * after it.  A failed job found only through a buffer's reservation
	 * object does not: the buffer stays usable, the next writer simply
	 * overwrites what is there.
	 */
	for (i = 0; i < job->nexplicit; i++)
		if (job->explicit[i]->error)
			return job->explicit[i]->error;
	return 0;
}

/*
 * The job is about to start: it counts as on the engine until it leaves
 * run_job.  While the device is suspended it does not start, and waits
 * for the fence that resume signals instead.
 */
static struct dma_fence *vrender_job_enter(struct vrender_job *job)
{
	struct vrender_device *vr = job->vr;
	struct dma_fence *resume = NULL;

	spin_lock(&vr->pm_lock);
	if (vr->resume) {
		resume = dma_fence_get(&vr->resume->base);
	} else {
		atomic_inc(&vr->busy);
		job->busy = true;
	}
	spin_unlock(&vr->pm_lock);
	return resume;
}

/* The job is off the engine: wake up a suspend that waits for that. */
static void vrender_job_leave(struct vrender_job *job)
{
	struct vrender_device *vr = job->vr;

	if (!job->busy)
		return;
	job->busy = false;
	if (atomic_dec_and_test(&vr->busy))
		wake_up_all(&vr->idle);
}

static struct dma_fence *vrender_sched_prepare_job(struct drm_sched_job *sched_job,
						   struct drm_sched_entity *entity)
{
	struct vrender_job *job = to_vrender_job(sched_job);
	struct dma_fence *stall = NULL;
	bool cookie;

	/* Asked again once the stall has signalled: the job may run now. */
	if (job->stalled) {
		if (!job->error)
			job->error = job->stall->base.error;
		return NULL;
	}

	cookie = dma_fence_begin_signalling();
	/* Suspended: asked again once resumed, the job then starts. */
	stall = vrender_job_enter(job);
	if (stall) {
		dma_fence_end_signalling(cookie);
		return stall;
	}
	job->stalled = true;
	job->error = vrender_job_dep_error(job);
	if (!job->error)
		stall = vrender_job_stall(job);
	dma_fence_end_signalling(cookie);
	return stall;
}

/*
 * The buffers' pages go to the engine when the job starts and come back
 * when it ends: the mappings were made at SUBMIT and stay until the job
 * is freed, both too far from the work (see primebuf_bo_device_begin()).
 */
static void vrender_job_device_access(struct vrender_job *job, bool begin)
{
	unsigned int i;

	for (i = 0; i < job->nbos; i++) {
		struct primebuf_bo *bo = to_primebuf_bo(job->bos[i].obj);

		if (begin)
			primebuf_bo_device_begin(bo);
		else
			primebuf_bo_device_end(bo, job->bos[i].write);
	}
}

/* ----------------------------------------------------------------------
 * The scheduler's callbacks
 */

static struct dma_fence *vrender_sched_run_job(struct drm_sched_job *sched_job)
{
	struct vrender_job *job = to_vrender_job(sched_job);
	bool cookie = dma_fence_begin_signalling();
	int ret = job->error;

	job->ran = true;
	atomic_inc(&job->vf->ran_unreleased);

	if (!ret) {
		vrender_job_device_access(job, true);
		ret = vrender_job_execute(job);
		/* before the fence: whoever waits for it reads the pages */
		vrender_job_device_access(job, false);
	}
	vrender_job_leave(job);
	dma_fence_end_signalling(cookie);

	/* The engine is done: the scheduler signals the job's fence. */
	return ret ? ERR_PTR(ret) : dma_fence_get_stub();
}

static enum drm_gpu_sched_stat
vrender_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct vrender_job *job = to_vrender_job(sched_job);

	/*
	 * The engine is still at the job's commands: it stops at its next
	 * page and fails the job with -ETIMEDOUT.  The engine needs no
	 * reset; the scheduler takes the job back and goes on.
	 */
	WRITE_ONCE(job->cancel, true);
	return primepair_sched_job_still_running(sched_job);
}

/**
 * vrender_job_release - drop everything a job holds and free it
 * @job: a job that SUBMIT gave up on, or that the scheduler is done with
 *
 * Context: process context; the job's fence, if it was ever armed, has
 * signalled or will never be seen by anyone.
 */
void vrender_job_release(struct vrender_job *job)
{
	struct vrender_device *vr = job->vr;
	unsigned int i;

	/* Only if it started and never ran: no suspend waits for it then. */
	vrender_job_leave(job);
	vrender_job_unmap(job);
	kfree(job->out);
	vrender_wait_put(job->gate);
	vrender_wait_put(job->stall);
	for (i = 0; i < job->nforeign; i++)
		dma_fence_put(job->foreign[i]);
	kvfree(job->foreign);
	for (i = 0; i < job->nexplicit; i++)
		dma_fence_put(job->explicit[i]);
	for (i = 0; i < job->nbos; i++)
		drm_gem_object_put(job->bos[i].obj);
	if (job->vf) {
		atomic_dec(&job->vf->queued);
		if (job->ran)
			atomic_dec(&job->vf->ran_unreleased);
		wake_up_all(&job->vf->room);
		vrender_file_put(job->vf);
	}
	kfree(job->row);
	kfree(job->cmd_bo);
	kvfree(job->cmds);
	kfree(job);

	/*
	 * Unbinding waits for the first count, the device's release for the
	 * second; both only return after this work item (or the SUBMIT that
	 * gave up on the job, which holds the file) is done with @vr.
	 */
	atomic_dec(&vr->live_jobs);
	atomic_dec(&vr->jobs);
	wake_up_all(&vr->idle);
}

static void vrender_job_free_work(struct work_struct *work)
{
	unsigned int delay = READ_ONCE(vrender_job_release_delay_us);

	/* On a loaded system the release may come this late. */
	if (delay)
		fsleep(min_t(unsigned int, delay, USEC_PER_SEC));
	vrender_job_release(container_of(work, struct vrender_job, free_work));
}

static void vrender_sched_free_job(struct drm_sched_job *sched_job)
{
	struct vrender_job *job = to_vrender_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	/*
	 * Unmapping an import takes its reservation lock, and dropping the
	 * last reference to a buffer frees it: not in the scheduler's
	 * context, which the next job's fence waits for.
	 */
	INIT_WORK(&job->free_work, vrender_job_free_work);
	queue_work(job->vr->free_wq, &job->free_work);
}

static const struct drm_sched_backend_ops vrender_sched_ops = {
	.primepair_sched_prepare_job = vrender_sched_prepare_job,
	.run_job = vrender_sched_run_job,
	.timedout_job = vrender_sched_timedout_job,
	.free_job = vrender_sched_free_job,
};

/* ----------------------------------------------------------------------
 * The device's scheduler and the files' entities
 */

/*
 * Tear the engines down at the DRM device's release, once every file is
 * closed: waits for the entities of closed files to be freed first.
 */
static void vrender_engine_fini(struct drm_device *drm, void *data)
{
	struct vrender_device *vr = data;
	unsigned int i;

	wait_event(vr->idle, !atomic_read(&vr->jobs));
	/* The last free_work may still be returning. */
	destroy_workqueue(vr->free_wq);
	for (i = 0; i < VRENDER_ENGINES; i++)
		drm_sched_fini(&vr->engine[i]);
}

/**
 * vrender_engine_init - set up a device's engines and their schedulers
 * @vr: the device
 *
 * They are torn down with the DRM device, after its last file is closed.
 *
 * Context: process context, at probe.
 * Return: 0 or a negative errno.
 */
int vrender_engine_init(struct vrender_device *vr)
{
	struct drm_sched_init_args args = {
		.ops = &vrender_sched_ops,
		PRIMEPAIR_SCHED_NUM_RQS
		.credit_limit = 1,
		.timeout = msecs_to_jiffies(max(1U, vrender_job_timeout_ms)),
		.dev = vr->drm.dev,
	};
	unsigned int i;
	int ret;

	init_waitqueue_head(&vr->idle);
	spin_lock_init(&vr->pm_lock);
	vr->free_wq = alloc_workqueue("vrender-free.%u", WQ_UNBOUND, 0,
				      vr->index);
	if (!vr->free_wq)
		return -ENOMEM;
	for (i = 0; i < VRENDER_ENGINES; i++) {
		snprintf(vr->engine_name[i], sizeof(vr->engine_name[i]),
			 "%s.%u", dev_name(vr->drm.dev), i);
		args.name = vr->engine_name[i];
		ret = drm_sched_init(&vr->engine[i], &args);
		if (ret)
			goto err;
		vr->engine_list[i] = &vr->engine[i];
	}
	return drmm_add_action_or_reset(&vr->drm, vrender_engine_fini, vr);

err:
	while (i--)
		drm_sched_fini(&vr->engine[i]);
	destroy_workqueue(vr->free_wq);
	return ret;
}

/**
 * vrender_engine_quiesce - wait for every job of an unplugged device
 * @vr: the device, unplugged: no new job comes
 *
 * The jobs queued before the unplug still run, and are freed, which
 * releases their buffers' DMA mappings: the device has none left when
 * its driver lets go of it.  Open files, their entities and the
 * schedulers stay until the DRM device's release.
 *
 * Context: process context, at unbind.
 */
void vrender_engine_quiesce(struct vrender_device *vr)
{
	wait_event(vr->idle, !atomic_read(&vr->live_jobs));
	/* A job's release may still be returning from its wake-up. */
	flush_workqueue(vr->free_wq);
}

/**
 * vrender_engine_suspend - stop the engines for a system suspend
 * @vr: the device
 *
 * No job starts from here on: a job whose turn comes waits for the
 * fence that vrender_engine_resume() signals, and the jobs behind it in
 * its entity stay queued.  The jobs already on the engines (their
 * simulated time started) finish, and their fences signal; this waits
 * up to job_timeout_ms for them.  No job fails, and none runs twice.
 *
 * Context: process context, from the device's suspend callback.
 * Return: 0, -ENOMEM, or -EBUSY if a job was still on an engine after
 * job_timeout_ms: the engines then run again.
 */
int vrender_engine_suspend(struct vrender_device *vr)
{
	unsigned long timeout =
		msecs_to_jiffies(max(1U, READ_ONCE(vrender_job_timeout_ms)));
	struct vrender_wait *resume;

	resume = vrender_wait_alloc(vr, 0);
	if (!resume)
		return -ENOMEM;

	spin_lock(&vr->pm_lock);
	vr->resume = resume;
	WRITE_ONCE(vr->pm_seq, vr->pm_seq + 1);
	spin_unlock(&vr->pm_lock);

	if (!wait_event_timeout(vr->idle, !atomic_read(&vr->busy), timeout)) {
		drm_warn(&vr->drm, "engine busy for %u ms, not suspending\n",
			 jiffies_to_msecs(timeout));
		vrender_engine_resume(vr);
		return -EBUSY;
	}
	return 0;
}

/**
 * vrender_engine_resume - let the engines start jobs again
 * @vr: the device, after vrender_engine_suspend()
 *
 * The jobs that waited start, in the order of their entities.
 *
 * Context: process context, from the device's resume callback.
 */
void vrender_engine_resume(struct vrender_device *vr)
{
	struct vrender_wait *resume;
	bool cookie;

	spin_lock(&vr->pm_lock);
	resume = vr->resume;
	vr->resume = NULL;
	WRITE_ONCE(vr->pm_seq, vr->pm_seq + 1);
	spin_unlock(&vr->pm_lock);
	if (!resume)
		return;

	cookie = dma_fence_begin_signalling();
	vrender_wait_signal(resume, 0);
	dma_fence_end_signalling(cookie);
	dma_fence_put(&resume->base);
}

/* The file and all its jobs are gone: the entity is idle. */
static void vrender_file_free_work(struct work_struct *work)
{
	struct vrender_file *vf = container_of(work, struct vrender_file,
					       free_work);
	struct vrender_device *vr = vf->vr;

	drm_sched_entity_destroy(&vf->entity);
	mutex_destroy(&vf->push_lock);
	kfree(vf);
	if (atomic_dec_and_test(&vr->jobs))
		wake_up_all(&vr->idle);
}

/**
 * vrender_file_open - give an open file its entity
 * @vr: the device
 * @file: the new file
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int vrender_file_open(struct vrender_device *vr, struct drm_file *file)
{
	struct vrender_file *vf;
	int ret;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL_ACCOUNT);
	if (!vf)
		return -ENOMEM;
	/*
	 * The entity may run on any engine: the scheduler moves an idle
	 * entity to the least busy one when it gets its next job, so one
	 * client's long job leaves the other engines to the other clients.
	 */
	ret = drm_sched_entity_init(&vf->entity, DRM_SCHED_PRIORITY_NORMAL,
				    vr->engine_list, VRENDER_ENGINES, NULL);
	if (ret) {
		kfree(vf);
		return ret;
	}
	vf->vr = vr;
	vf->fence_context = dma_fence_context_alloc(1);
	kref_init(&vf->ref);
	init_waitqueue_head(&vf->room);
	mutex_init(&vf->push_lock);
	INIT_WORK(&vf->free_work, vrender_file_free_work);
	atomic_inc(&vr->jobs);
	file->driver_priv = vf;
	return 0;
}

static void vrender_file_release(struct kref *ref)
{
	struct vrender_file *vf = container_of(ref, struct vrender_file, ref);

	/* The last job may go in the scheduler's own context: not there. */
	queue_work(vf->vr->free_wq, &vf->free_work);
}

/**
 * vrender_file_put - drop a reference to a file's state
 * @vf: the state
 */
void vrender_file_put(struct vrender_file *vf)
{
	kref_put(&vf->ref, vrender_file_release);
}

/**
 * vrender_file_close - a file goes; its queued jobs still run
 * @file: the file
 *
 * The entity stays until the file's last job is freed, so that closing
 * never waits for a job and never drops one.
 *
 * Context: process context, at postclose.
 */
void vrender_file_close(struct drm_file *file)
{
	vrender_file_put(file->driver_priv);
}

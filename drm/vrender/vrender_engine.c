// SPDX-License-Identifier: GPL-2.0
/*
 * vrender - jobs, fences and the simulated engine
 */

#include <linux/crc32.h>
#include <linux/dma-fence-chain.h>
#include <linux/dma-direct.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include <uapi/drm/vrender_drm.h>

#include "vrender_drv.h"

/**
 * DOC: engine
 *
 * SUBMIT checks every command and takes a reference to every buffer, then
 * collects the job's dependencies under the buffers' reservation locks:
 * explicit in-fences, every fence of buffers the job writes, and the
 * write fences of buffers it only reads.  In the same locked section the
 * job's fence is added to each buffer (as writer of destinations, reader
 * of sources), so everyone who comes later waits for the job.
 *
 * Jobs run one at a time on an ordered workqueue, in fence order.  The
 * DRM GPU scheduler is not used: its interface changed in incompatible
 * ways between Linux 6.1 and 6.12 (scheduler and job initialisation,
 * credits, the run-queue model), and one ordered queue gives the same
 * guarantees a single-ring engine needs.
 *
 * A running job waits for its dependencies (at most job_timeout_ms in
 * all), maps each buffer for the device (imports through their
 * dma-buf attachment), walks the mapped scatterlists page by page with
 * kmap_local_page() to do the work, unmaps, and signals its fence.
 * Nothing stays mapped between jobs, so exporters may move buffers
 * between them.
 *
 * A dependency that signalled with an error does not fail the job: the
 * fences of a buffer's reservation object would otherwise pass a single
 * failure on from job to job, and the buffer could never be used again.
 * The job works on the contents as the failed job left them.
 *
 * The engine can be made slow (engine_speed, job_latency_us) and jobs can
 * be made to hang (debugfs vrender_hang).  The simulated time is spent
 * after the dependencies and before the buffers are mapped, sleeping with
 * no lock held: a slow or hung job never pins a buffer, so it never makes
 * an exporter refuse to migrate.  A job whose simulated time reaches
 * job_timeout_ms, and every hung job, is cancelled at that timeout: its
 * commands do not run and its fence signals with -ETIMEDOUT.  The next job
 * runs right after.  Removing the device cancels stalled jobs at once
 * (-ECANCELED), so unloading never waits for a timeout.
 */

/* Pixels handled per step of COPY and PATTERN rows. */
#define VRENDER_CHUNK_PIXELS	1024

struct vrender_job_bo {
	struct drm_gem_object *obj;
	bool write;
	struct sg_table *sgt;
	phys_addr_t *addr;
	u64 *start;
	unsigned int nents;
};

struct vrender_job {
	struct work_struct work;
	struct vrender_device *vr;
	struct dma_fence *fence;
	struct drm_vrender_cmd *cmds;
	unsigned int ncmds;
	u8 (*cmd_bo)[2];
	struct vrender_job_bo bos[2 * VRENDER_MAX_COMMANDS];
	unsigned int nbos;
	struct dma_fence **deps;
	unsigned int ndeps;
	unsigned int nexplicit;
	unsigned int deps_cap;
	u64 bytes;
	bool hang;
};

/* ----------------------------------------------------------------------
 * Fences
 */

static const char *vrender_fence_driver_name(struct dma_fence *fence)
{
	return VRENDER_DRIVER_NAME;
}

static const char *vrender_fence_timeline_name(struct dma_fence *fence)
{
	return "engine";
}

static void vrender_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	/* Taken when the fence was made: its ops live in this module. */
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops vrender_fence_ops = {
	.get_driver_name = vrender_fence_driver_name,
	.get_timeline_name = vrender_fence_timeline_name,
	.release = vrender_fence_release,
};

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
	jb->addr = kvmalloc_array(jb->nents, sizeof(*jb->addr), GFP_KERNEL);
	/* one more start than segments: the end of the last one */
	jb->start = kvmalloc_array(jb->nents + 1, sizeof(*jb->start),
				   GFP_KERNEL);
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

/* Hand @len bytes at @offset of the buffer to @fn, a page at most at once. */
static void vrender_bo_walk(struct vrender_job_bo *jb, u64 offset, size_t len,
			    vrender_chunk_fn fn, void *ctx)
{
	unsigned int i = vrender_bo_find(jb, offset);
	u64 in = offset - jb->start[i];

	while (len && i < jb->nents) {
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
		n = min3(len, (size_t)(PAGE_SIZE - poff),
			 (size_t)(seg_len - in));

		vaddr = kmap_local_page(page);
		fn(vaddr + poff, n, ctx);
		kunmap_local(vaddr);
		/* A job may cover a gigabyte: let the worker's CPU go. */
		cond_resched();

		len -= n;
		in += n;
	}
}

static void vrender_chunk_fill(void *vaddr, size_t len, void *ctx)
{
	memset32(vaddr, *(u32 *)ctx, len / 4);
}

static void vrender_chunk_read(void *vaddr, size_t len, void *ctx)
{
	u8 **cursor = ctx;

	memcpy(*cursor, vaddr, len);
	*cursor += len;
}

static void vrender_chunk_write(void *vaddr, size_t len, void *ctx)
{
	const u8 **cursor = ctx;

	memcpy(vaddr, *cursor, len);
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

static void vrender_cmd_fill(struct vrender_job_bo *dst,
			     const struct drm_vrender_cmd *c)
{
	u32 value = c->value;
	u32 y;

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

static unsigned long vrender_timeout_jiffies(void)
{
	return msecs_to_jiffies(max(1U, READ_ONCE(vrender_job_timeout_ms)));
}

/*
 * Runs in the fence signalling critical section: no allocation here.  The
 * commands get the job's real time budget, job_timeout_ms from their
 * start: a job still running at that point fails with -ETIMEDOUT before
 * its next command, however little simulated time it was given.
 */
static int vrender_job_execute(struct vrender_job *job, u32 *row)
{
	unsigned long deadline = jiffies + vrender_timeout_jiffies();
	unsigned int i;

	for (i = 0; i < job->ncmds; i++) {
		const struct drm_vrender_cmd *c = &job->cmds[i];
		struct vrender_job_bo *dst = &job->bos[job->cmd_bo[i][0]];
		struct vrender_job_bo *src = &job->bos[job->cmd_bo[i][1]];

		switch (c->op) {
		case VRENDER_CMD_FILL:
			vrender_cmd_fill(dst, c);
			break;
		case VRENDER_CMD_PATTERN:
			vrender_cmd_pattern(dst, c, row);
			break;
		case VRENDER_CMD_COPY:
			vrender_cmd_copy(dst, src, c, row);
			break;
		case VRENDER_CMD_CHECKSUM:
			vrender_cmd_checksum(dst, src, c);
			break;
		}
		if (i + 1 < job->ncmds && time_after(jiffies, deadline))
			return -ETIMEDOUT;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Running a job
 */

static enum dma_data_direction vrender_dir(struct vrender_job_bo *jb)
{
	return jb->write ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

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
					  vrender_dir(jb));
		jb->sgt = NULL;
	}
}

static int vrender_job_map(struct vrender_job *job)
{
	unsigned int i;
	int ret;

	for (i = 0; i < job->nbos; i++) {
		struct vrender_job_bo *jb = &job->bos[i];
		struct sg_table *sgt;

		sgt = primebuf_bo_map(to_primebuf_bo(jb->obj), vrender_dir(jb));
		if (IS_ERR(sgt))
			return PTR_ERR(sgt);
		jb->sgt = sgt;
		ret = vrender_bo_index(jb, job->vr->drm.dev);
		if (ret)
			return ret;
	}
	return 0;
}

static int vrender_job_wait_deps(struct vrender_job *job)
{
	unsigned long deadline = jiffies + vrender_timeout_jiffies();
	unsigned int i;

	for (i = 0; i < job->ndeps; i++) {
		struct dma_fence *dep = job->deps[i];
		long left = max_t(long, (long)(deadline - jiffies), 0);
		long ret;

		ret = dma_fence_wait_timeout(dep, false, left);
		if (ret == 0)
			return -ETIMEDOUT;
		if (ret < 0)
			return ret;
		/*
		 * A failed explicit dependency fails the job: userspace asked
		 * to run after it.  A failed job found only through a buffer's
		 * reservation object does not: the buffer stays usable, the
		 * next writer simply overwrites what is there.
		 */
		if (i < job->nexplicit && dep->error)
			return dep->error;
	}
	return 0;
}

/*
 * Spend the job's simulated time: job_latency_us plus its bytes at
 * engine_speed, or forever if it was chosen to hang.  Sleeps without any
 * lock held; gives up at the timeout, or at once when the device goes.
 */
static int vrender_job_stall(struct vrender_job *job)
{
	struct vrender_device *vr = job->vr;
	u64 timeout_ns = (u64)max(1U, READ_ONCE(vrender_job_timeout_ms)) *
			 NSEC_PER_MSEC;
	u64 speed = READ_ONCE(vrender_engine_speed);
	u64 ns = (u64)READ_ONCE(vrender_job_latency_us) * NSEC_PER_USEC;
	bool hang = job->hang;
	bool too_long;
	long ret;

	if (speed)
		ns += mul_u64_u64_div_u64(job->bytes, NSEC_PER_SEC, speed);
	if (!hang && !ns)
		return 0;
	too_long = hang || ns >= timeout_ns;

	ret = wait_event_hrtimeout(vr->cancel_wq, READ_ONCE(vr->dying),
				   ns_to_ktime(too_long ? timeout_ns : ns));
	if (!ret)
		return -ECANCELED;
	return too_long ? -ETIMEDOUT : 0;
}

/**
 * vrender_engine_cancel() - cancel stalled jobs for good
 * @vr: the device that goes away
 *
 * Jobs that sleep in their simulated time, now or later, give up with
 * -ECANCELED; jobs whose commands already run complete.
 *
 * Context: Process context, at removal, before the engine's queue is
 * destroyed.
 */
void vrender_engine_cancel(struct vrender_device *vr)
{
	WRITE_ONCE(vr->dying, true);
	wake_up_all(&vr->cancel_wq);
}

static void vrender_job_free(struct vrender_job *job)
{
	unsigned int i;

	for (i = 0; i < job->ndeps; i++)
		dma_fence_put(job->deps[i]);
	kvfree(job->deps);
	for (i = 0; i < job->nbos; i++)
		if (job->bos[i].obj)
			drm_gem_object_put(job->bos[i].obj);
	if (job->fence)
		dma_fence_put(job->fence);
	kfree(job->cmd_bo);
	kvfree(job->cmds);
	kfree(job);
}

/*
 * Drop the job's buffer references that are not the last ones, before its
 * fence signals: whoever waited for the fence and then closes the buffer
 * must see it go at once.  A last reference is dropped after signalling,
 * as freeing a buffer may take locks that fence waiters hold.
 */
static void vrender_job_release_bos(struct vrender_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nbos; i++) {
		struct drm_gem_object *obj = job->bos[i].obj;

		if (refcount_dec_not_one(&obj->refcount.refcount))
			job->bos[i].obj = NULL;
	}
}

static void vrender_job_run(struct work_struct *work)
{
	struct vrender_job *job = container_of(work, struct vrender_job, work);
	struct vrender_device *vr = job->vr;
	u32 *row = NULL;
	bool cookie;
	int ret;

	ret = vrender_job_wait_deps(job);
	if (!ret)
		ret = vrender_job_stall(job);
	if (!ret) {
		row = kmalloc_array(VRENDER_CHUNK_PIXELS, sizeof(*row),
				    GFP_KERNEL);
		if (!row)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = vrender_job_map(job);
	if (!ret) {
		cookie = dma_fence_begin_signalling();
		ret = vrender_job_execute(job, row);
		dma_fence_end_signalling(cookie);
	}
	vrender_job_unmap(job);
	kfree(row);
	vrender_job_release_bos(job);

	if (ret)
		dma_fence_set_error(job->fence, ret);
	dma_fence_signal(job->fence);
	vrender_job_free(job);

	atomic_dec(&vr->inflight);
	wake_up(&vr->inflight_wait);
}

/* ----------------------------------------------------------------------
 * SUBMIT
 */

static int vrender_add_dep(struct vrender_job *job, struct dma_fence *fence)
{
	struct dma_fence **deps;

	if (job->ndeps == job->deps_cap) {
		unsigned int cap = max(8U, job->deps_cap * 2);

		deps = kvmalloc_array(cap, sizeof(*deps), GFP_KERNEL);
		if (!deps) {
			dma_fence_put(fence);
			return -ENOMEM;
		}
		if (job->ndeps)
			memcpy(deps, job->deps, job->ndeps * sizeof(*deps));
		kvfree(job->deps);
		job->deps = deps;
		job->deps_cap = cap;
	}
	job->deps[job->ndeps++] = fence;
	return 0;
}

static int vrender_add_bo(struct vrender_job *job, struct drm_file *file,
			  u32 handle, bool write, u8 *index)
{
	struct drm_gem_object *obj;
	unsigned int i;

	obj = drm_gem_object_lookup(file, handle);
	if (!obj)
		return -ENOENT;

	for (i = 0; i < job->nbos; i++) {
		if (job->bos[i].obj == obj) {
			/* The job holds this buffer already. */
			drm_gem_object_put(obj);
			job->bos[i].write |= write;
			*index = i;
			return 0;
		}
	}

	if (!primebuf_is_primebuf_object(obj)) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	job->bos[job->nbos].obj = obj;
	job->bos[job->nbos].write = write;
	*index = job->nbos++;
	return 0;
}

/* Does a w x h rectangle of 32-bit pixels at (x, y) fit in the buffer? */
static bool vrender_rect_ok(struct drm_gem_object *obj, u64 offset, u32 pitch,
			    u32 x, u32 y, u32 w, u32 h)
{
	u64 row_end, last_row, end;

	if (!w || !h || offset % 4 || pitch % 4)
		return false;
	row_end = ((u64)x + w) * 4;
	if (row_end > pitch)
		return false;
	if (check_mul_overflow((u64)y + h - 1, (u64)pitch, &last_row) ||
	    check_add_overflow(last_row, row_end, &end) ||
	    check_add_overflow(end, offset, &end))
		return false;
	return end <= obj->size;
}

static int vrender_check_cmd(struct vrender_job *job, struct drm_file *file,
			     unsigned int i)
{
	const struct drm_vrender_cmd *c = &job->cmds[i];
	struct drm_gem_object *dst, *src;
	bool has_src = c->op == VRENDER_CMD_COPY ||
		       c->op == VRENDER_CMD_CHECKSUM;
	int ret;

	if (c->op < VRENDER_CMD_FILL || c->op > VRENDER_CMD_CHECKSUM)
		return -EINVAL;
	if (c->flags || c->pad)
		return -EINVAL;
	if (!has_src && (c->src_handle || c->src_offset || c->src_pitch ||
			 c->src_x || c->src_y))
		return -EINVAL;
	if (c->op == VRENDER_CMD_COPY && c->value)
		return -EINVAL;
	if (c->op == VRENDER_CMD_CHECKSUM &&
	    (c->dst_pitch || c->dst_x || c->dst_y || c->value))
		return -EINVAL;

	ret = vrender_add_bo(job, file, c->dst_handle, true,
			     &job->cmd_bo[i][0]);
	if (ret)
		return ret;
	job->cmd_bo[i][1] = job->cmd_bo[i][0];
	if (has_src) {
		ret = vrender_add_bo(job, file, c->src_handle, false,
				     &job->cmd_bo[i][1]);
		if (ret)
			return ret;
	}
	dst = job->bos[job->cmd_bo[i][0]].obj;
	src = job->bos[job->cmd_bo[i][1]].obj;

	if (c->op == VRENDER_CMD_CHECKSUM) {
		if (c->dst_offset % 4 || c->dst_offset > dst->size - 4)
			return -EINVAL;
	} else if (!vrender_rect_ok(dst, c->dst_offset, c->dst_pitch,
				    c->dst_x, c->dst_y, c->width, c->height)) {
		return -EINVAL;
	}
	if (has_src && !vrender_rect_ok(src, c->src_offset, c->src_pitch,
					c->src_x, c->src_y, c->width,
					c->height))
		return -EINVAL;
	job->bytes += (u64)c->width * c->height * 4;
	return 0;
}

static int vrender_get_in_fences(struct vrender_job *job,
				 struct drm_file *file,
				 struct drm_vrender_submit *args)
{
	u32 __user *handles = u64_to_user_ptr(args->in_syncobjs);
	u64 __user *points = u64_to_user_ptr(args->in_points);
	struct dma_fence *fence;
	unsigned int i;
	int ret;

	for (i = 0; i < args->in_syncobj_count; i++) {
		u64 point = 0;
		u32 handle;

		if (get_user(handle, handles + i))
			return -EFAULT;
		if (points && get_user(point, points + i))
			return -EFAULT;
		ret = drm_syncobj_find_fence(file, handle, point, 0, &fence);
		if (ret)
			return ret;
		ret = vrender_add_dep(job, fence);
		if (ret)
			return ret;
	}

	if (args->flags & VRENDER_SUBMIT_IN_FENCE_FD) {
		fence = sync_file_get_fence(args->in_fence_fd);
		if (!fence)
			return -EINVAL;
		return vrender_add_dep(job, fence);
	}
	return 0;
}

/* Implicit dependencies: writers wait for everyone, readers for writers. */
static int vrender_get_resv_fences(struct vrender_job *job)
{
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	unsigned int i;
	int ret;

	for (i = 0; i < job->nbos; i++) {
		struct vrender_job_bo *jb = &job->bos[i];

		ret = dma_resv_reserve_fences(jb->obj->resv, 1);
		if (ret)
			return ret;
		dma_resv_for_each_fence(&cursor, jb->obj->resv,
					jb->write ? DMA_RESV_USAGE_READ :
						    DMA_RESV_USAGE_WRITE,
					fence) {
			ret = vrender_add_dep(job, dma_fence_get(fence));
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int vrender_job_publish(struct vrender_job *job,
			       struct sync_file **sync_file, bool want_file)
{
	struct vrender_device *vr = job->vr;
	struct drm_gem_object *objs[2 * VRENDER_MAX_COMMANDS];
	struct ww_acquire_ctx ctx;
	unsigned int i;
	int ret;

	for (i = 0; i < job->nbos; i++)
		objs[i] = job->bos[i].obj;

	mutex_lock(&vr->submit_lock);
	ret = drm_gem_lock_reservations(objs, job->nbos, &ctx);
	if (ret)
		goto out_unlock;

	ret = vrender_get_resv_fences(job);
	if (ret)
		goto out_unlock_resv;

	/* The next jobs submitted after a write to vrender_hang hang. */
	job->hang = atomic_dec_if_positive(&vr->hang_jobs) >= 0;
	__module_get(THIS_MODULE);
	dma_fence_init(job->fence, &vrender_fence_ops, &vr->fence_lock,
		       vr->fence_context, ++vr->seqno);

	if (want_file) {
		*sync_file = sync_file_create(job->fence);
		if (!*sync_file) {
			ret = -ENOMEM;
			goto out_unlock_resv;
		}
	}

	/* From here the job is visible to everyone who uses its buffers. */
	for (i = 0; i < job->nbos; i++)
		dma_resv_add_fence(objs[i]->resv, job->fence,
				   job->bos[i].write ? DMA_RESV_USAGE_WRITE :
						       DMA_RESV_USAGE_READ);
	drm_gem_unlock_reservations(objs, job->nbos, &ctx);

	dma_fence_get(job->fence);
	atomic_inc(&vr->inflight);
	queue_work(vr->wq, &job->work);
	mutex_unlock(&vr->submit_lock);
	return 0;

out_unlock_resv:
	drm_gem_unlock_reservations(objs, job->nbos, &ctx);
out_unlock:
	mutex_unlock(&vr->submit_lock);
	return ret;
}

int vrender_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct vrender_device *vr = to_vrender(dev);
	struct drm_vrender_submit *args = data;
	struct sync_file *sync_file = NULL;
	struct drm_syncobj *out_syncobj = NULL;
	struct dma_fence_chain *chain = NULL;
	bool want_file = args->flags & VRENDER_SUBMIT_OUT_FENCE_FD;
	struct dma_fence *fence;
	struct vrender_job *job;
	int out_fd = -1;
	unsigned int i;
	int ret;

	if (args->flags & ~VRENDER_SUBMIT_FLAGS)
		return -EINVAL;
	if (!args->cmd_count || args->cmd_count > VRENDER_MAX_COMMANDS)
		return -EINVAL;
	if (args->in_syncobj_count > VRENDER_MAX_SYNCOBJS)
		return -EINVAL;
	if (args->out_point && !args->out_syncobj)
		return -EINVAL;
	/* Inputs that would be ignored are refused, never dropped silently. */
	if (args->in_points && !args->in_syncobj_count)
		return -EINVAL;
	if (!(args->flags & VRENDER_SUBMIT_IN_FENCE_FD) &&
	    args->in_fence_fd != 0 && args->in_fence_fd != -1)
		return -EINVAL;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	INIT_WORK(&job->work, vrender_job_run);
	job->vr = vr;
	job->ncmds = args->cmd_count;

	job->cmd_bo = kcalloc(job->ncmds, sizeof(*job->cmd_bo), GFP_KERNEL);
	job->fence = kzalloc(sizeof(*job->fence), GFP_KERNEL);
	if (!job->cmd_bo || !job->fence) {
		kfree(job->fence);
		job->fence = NULL;
		ret = -ENOMEM;
		goto out_free_job;
	}

	job->cmds = vmemdup_user(u64_to_user_ptr(args->cmds),
				 job->ncmds * sizeof(*job->cmds));
	if (IS_ERR(job->cmds)) {
		ret = PTR_ERR(job->cmds);
		job->cmds = NULL;
		goto out_free_unpublished;
	}

	for (i = 0; i < job->ncmds; i++) {
		ret = vrender_check_cmd(job, file, i);
		if (ret)
			goto out_free_unpublished;
	}

	ret = vrender_get_in_fences(job, file, args);
	if (ret)
		goto out_free_unpublished;
	job->nexplicit = job->ndeps;

	if (args->out_syncobj) {
		out_syncobj = drm_syncobj_find(file, args->out_syncobj);
		if (!out_syncobj) {
			ret = -ENOENT;
			goto out_free_unpublished;
		}
	}

	/* Everything that can fail happens before the job is published. */
	if (args->out_point) {
		chain = dma_fence_chain_alloc();
		if (!chain) {
			ret = -ENOMEM;
			goto out_put_syncobj;
		}
	}

	if (want_file) {
		out_fd = get_unused_fd_flags(O_CLOEXEC);
		if (out_fd < 0) {
			ret = out_fd;
			goto out_free_chain;
		}
	}

	/*
	 * Bound the queue, as a ring of fixed size would: a client cannot
	 * pin unlimited memory in jobs nobody has run yet.
	 */
	ret = wait_event_interruptible(vr->inflight_wait,
				       atomic_read(&vr->inflight) <
				       VRENDER_MAX_INFLIGHT);
	if (ret)
		goto out_put_fd_unpublished;

	fence = job->fence;
	ret = vrender_job_publish(job, &sync_file, want_file);
	if (ret) {
		if (fence->ops)
			goto out_put_fd;
		goto out_put_fd_unpublished;
	}

	/* The job runs now and frees itself; we hold one fence reference. */
	if (chain)
		drm_syncobj_add_point(out_syncobj, chain, fence,
				      args->out_point);
	else if (out_syncobj)
		drm_syncobj_replace_fence(out_syncobj, fence);
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
	args->seqno = fence->seqno;
	args->out_fence_fd = out_fd;
	if (sync_file)
		fd_install(out_fd, sync_file->file);
	dma_fence_put(fence);
	return 0;

out_put_fd:
	/* The fence was initialised but never published. */
	job->fence = NULL;
	dma_fence_put(fence);
out_put_fd_unpublished:
	if (out_fd >= 0)
		put_unused_fd(out_fd);
out_free_chain:
	dma_fence_chain_free(chain);
out_put_syncobj:
	if (out_syncobj)
		drm_syncobj_put(out_syncobj);
out_free_unpublished:
	kfree(job->fence);
	job->fence = NULL;
out_free_job:
	vrender_job_free(job);
	return ret;
}

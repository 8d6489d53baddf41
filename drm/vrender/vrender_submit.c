// SPDX-License-Identifier: GPL-2.0
/*
 * vrender - SUBMIT, in the stages a job goes through before the
 * scheduler takes it
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include <uapi/drm/vrender_drm.h>

#include "vrender_drv.h"

/**
 * struct vrender_submit - what one SUBMIT call holds while it runs
 * @vr: the device
 * @file: the caller's file
 * @args: the ioctl's argument, copied in and out by DRM core
 * @job: the job being built
 * @foreign_cap: capacity of @job->foreign
 * @out_syncobj: the syncobj that receives the job's fence, referenced
 * @chain: preallocated link for a timeline @out_syncobj
 * @fence: the job's out-fence, referenced, once the job is armed
 * @sync_file: a file of @fence, if userspace asked for one
 * @out_fd: descriptor reserved for @sync_file, or -1
 * @objs: the job's buffers, for locking their reservations, with a
 *	reference of their own: once pushed, the job (and its references)
 *	may be gone before SUBMIT unlocks them
 * @nobjs: number of @objs
 * @ctx: acquire context of those locks
 */
struct vrender_submit {
	struct vrender_device *vr;
	struct drm_file *file;
	struct drm_vrender_submit *args;
	struct vrender_job *job;
	unsigned int foreign_cap;
	struct drm_syncobj *out_syncobj;
	struct dma_fence_chain *chain;
	struct dma_fence *fence;
	struct sync_file *sync_file;
	int out_fd;
	struct drm_gem_object *objs[2 * VRENDER_MAX_COMMANDS];
	unsigned int nobjs;
	struct ww_acquire_ctx ctx;
};

/* ----------------------------------------------------------------------
 * Stage 1: copy and check the arguments
 */

static int vrender_submit_check_args(const struct drm_vrender_submit *args)
{
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
	return 0;
}

static int vrender_submit_copy_cmds(struct vrender_submit *s)
{
	struct vrender_job *job;
	int idx;

	/*
	 * What a job holds (this, its fences, its segment indices) is the
	 * caller's, up to 64 queued jobs per open file: charged to the
	 * caller's memory cgroup like the commands vmemdup_user() copies.
	 */
	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	/*
	 * drm_ioctl() checks for an unplugged device only on entry.  Counted
	 * inside drm_dev_enter(), a job is either seen by unbinding's wait
	 * for live jobs, or not made at all.
	 */
	if (!drm_dev_enter(&s->vr->drm, &idx)) {
		kfree(job);
		return -ENODEV;
	}
	atomic_inc(&s->vr->jobs);
	atomic_inc(&s->vr->live_jobs);
	drm_dev_exit(idx);
	job->vr = s->vr;
	s->job = job;

	job->ncmds = s->args->cmd_count;
	job->cmd_bo = kcalloc(job->ncmds, sizeof(*job->cmd_bo), GFP_KERNEL_ACCOUNT);
	if (!job->cmd_bo)
		return -ENOMEM;
	job->cmds = vmemdup_user(u64_to_user_ptr(s->args->cmds),
				 job->ncmds * sizeof(*job->cmds));
	if (IS_ERR(job->cmds)) {
		int ret = PTR_ERR(job->cmds);

		job->cmds = NULL;
		return ret;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Stage 2: look up and reference the buffers, check every command
 */

static int vrender_submit_add_bo(struct vrender_submit *s, u32 handle,
				 bool write, u8 *index)
{
	struct vrender_job *job = s->job;
	struct drm_gem_object *obj;
	unsigned int i;

	obj = drm_gem_object_lookup(s->file, handle);
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

/* Does a w x h rectangle of @cpp-byte pixels at (x, y) fit in the buffer? */
static bool vrender_rect_ok(struct drm_gem_object *obj, u64 offset, u32 pitch,
			    u32 x, u32 y, u32 w, u32 h, unsigned int cpp)
{
	u64 row_end, last_row, end;

	if (!w || !h || offset % 4 || pitch % 4)
		return false;
	row_end = ((u64)x + w) * cpp;
	if (row_end > pitch)
		return false;
	if (check_mul_overflow((u64)y + h - 1, (u64)pitch, &last_row) ||
	    check_add_overflow(last_row, row_end, &end) ||
	    check_add_overflow(end, offset, &end))
		return false;
	return end <= obj->size;
}

/*
 * An NV12 destination: its Y plane at dst_offset, its CbCr plane at
 * src_offset of the same buffer, each rectangle inside it, on even
 * coordinates.
 */
static int vrender_submit_check_nv12(struct vrender_submit *s, unsigned int i)
{
	struct vrender_job *job = s->job;
	const struct drm_vrender_cmd *c = &job->cmds[i];
	struct drm_gem_object *dst;
	int ret;

	if (c->src_handle || c->src_x || c->src_y ||
	    (c->dst_x | c->dst_y | c->width | c->height) & 1)
		return -EINVAL;
	ret = vrender_submit_add_bo(s, c->dst_handle, true, &job->cmd_bo[i][0]);
	if (ret)
		return ret;
	job->cmd_bo[i][1] = job->cmd_bo[i][0];
	dst = job->bos[job->cmd_bo[i][0]].obj;
	/* Y: a byte per pixel; CbCr: two bytes per two pixels, half the rows */
	if (!vrender_rect_ok(dst, c->dst_offset, c->dst_pitch, c->dst_x,
			     c->dst_y, c->width, c->height, 1) ||
	    !vrender_rect_ok(dst, c->src_offset, c->src_pitch, c->dst_x / 2,
			     c->dst_y / 2, c->width / 2, c->height / 2, 2))
		return -EINVAL;
	job->bytes += (u64)c->width * c->height * 3 / 2;
	return 0;
}

static int vrender_submit_check_cmd(struct vrender_submit *s, unsigned int i)
{
	struct vrender_job *job = s->job;
	const struct drm_vrender_cmd *c = &job->cmds[i];
	struct drm_gem_object *dst, *src;
	bool has_src = c->op == VRENDER_CMD_COPY ||
		       c->op == VRENDER_CMD_CHECKSUM;
	u32 format = c->flags & VRENDER_CMD_FORMAT_MASK;
	int ret;

	if (c->op < VRENDER_CMD_FILL || c->op > VRENDER_CMD_CHECKSUM)
		return -EINVAL;
	if ((c->flags & ~VRENDER_CMD_FORMAT_MASK) || c->pad)
		return -EINVAL;
	if (format > VRENDER_CMD_FORMAT_XRGB16161616 || (format && has_src))
		return -EINVAL;
	if (format == VRENDER_CMD_FORMAT_NV12)
		return vrender_submit_check_nv12(s, i);
	if (!has_src && (c->src_handle || c->src_offset || c->src_pitch ||
			 c->src_x || c->src_y))
		return -EINVAL;
	if (c->op == VRENDER_CMD_COPY && c->value)
		return -EINVAL;
	if (c->op == VRENDER_CMD_CHECKSUM &&
	    (c->dst_pitch || c->dst_x || c->dst_y || c->value))
		return -EINVAL;

	ret = vrender_submit_add_bo(s, c->dst_handle, true,
				    &job->cmd_bo[i][0]);
	if (ret)
		return ret;
	job->cmd_bo[i][1] = job->cmd_bo[i][0];
	if (has_src) {
		ret = vrender_submit_add_bo(s, c->src_handle, false,
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
				    c->dst_x, c->dst_y, c->width, c->height,
				    format ? 8 : 4)) {
		return -EINVAL;
	}
	if (has_src && !vrender_rect_ok(src, c->src_offset, c->src_pitch,
					c->src_x, c->src_y, c->width,
					c->height, 4))
		return -EINVAL;
	job->bytes += (u64)c->width * c->height * (format ? 8 : 4);
	return 0;
}

static int vrender_submit_lookup_bos(struct vrender_submit *s)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->job->ncmds; i++) {
		ret = vrender_submit_check_cmd(s, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->job->nbos; i++) {
		s->objs[i] = s->job->bos[i].obj;
		drm_gem_object_get(s->objs[i]);
	}
	s->nobjs = s->job->nbos;
	return 0;
}

/* ----------------------------------------------------------------------
 * Stage 3: explicit in-fences, and what the job's fence goes out through
 */

static int vrender_submit_get_in_fences(struct vrender_submit *s)
{
	struct drm_vrender_submit *args = s->args;
	u32 __user *handles = u64_to_user_ptr(args->in_syncobjs);
	u64 __user *points = u64_to_user_ptr(args->in_points);
	struct vrender_job *job = s->job;
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
		ret = drm_syncobj_find_fence(s->file, handle, point, 0, &fence);
		if (ret)
			return ret;
		job->explicit[job->nexplicit++] = fence;
	}

	if (args->flags & VRENDER_SUBMIT_IN_FENCE_FD) {
		fence = sync_file_get_fence(args->in_fence_fd);
		if (!fence)
			return -EINVAL;
		job->explicit[job->nexplicit++] = fence;
	}
	return 0;
}

static int vrender_submit_prepare_out(struct vrender_submit *s)
{
	struct drm_vrender_submit *args = s->args;

	if (args->out_syncobj) {
		s->out_syncobj = drm_syncobj_find(s->file, args->out_syncobj);
		if (!s->out_syncobj)
			return -ENOENT;
	}
	if (args->out_point) {
		s->chain = dma_fence_chain_alloc();
		if (!s->chain)
			return -ENOMEM;
	}
	if (args->flags & VRENDER_SUBMIT_OUT_FENCE_FD) {
		s->out_fd = get_unused_fd_flags(O_CLOEXEC);
		if (s->out_fd < 0)
			return s->out_fd;
	}
	return 0;
}

/* ----------------------------------------------------------------------
 * Stage 4: a place in the file's queue, the scheduler job, the mappings
 */

static bool vrender_submit_take_slot(struct vrender_file *vf)
{
	if (atomic_inc_return(&vf->queued) <= VRENDER_MAX_QUEUED)
		return true;
	atomic_dec(&vf->queued);
	return false;
}

/*
 * Bound each file's queue, as a ring of fixed size would: a client cannot
 * pin unlimited memory in jobs nobody has run yet.  A full queue makes
 * SUBMIT wait up to job_timeout_ms for one of the file's jobs to finish,
 * then fail with -EBUSY.
 */
static int vrender_submit_reserve(struct vrender_submit *s)
{
	struct vrender_file *vf = s->file->driver_priv;
	unsigned long timeout =
		msecs_to_jiffies(max(1U, READ_ONCE(vrender_job_timeout_ms)));
	long ret;

	ret = wait_event_interruptible_timeout(vf->room,
					       vrender_submit_take_slot(vf),
					       timeout);
	if (ret < 0)
		return ret;
	if (!ret)
		return -EBUSY;
	kref_get(&vf->ref);
	s->job->vf = vf;
	return 0;
}

static int vrender_submit_init_job(struct vrender_submit *s)
{
	struct vrender_file *vf = s->file->driver_priv;

	return primepair_sched_job_init(&s->job->base, &vf->entity, vf,
					primepair_file_client_id(s->file));
}

/*
 * The engine stages a row through the job's bounce buffer for COPY,
 * PATTERN, and FILL into any format but XRGB8888; an XRGB8888 FILL and
 * CHECKSUM work on the buffers directly.
 */
static bool vrender_cmd_needs_row(const struct drm_vrender_cmd *c)
{
	return c->op == VRENDER_CMD_COPY || c->op == VRENDER_CMD_PATTERN ||
	       (c->flags & VRENDER_CMD_FORMAT_MASK) != VRENDER_CMD_FORMAT_XRGB8888;
}

static int vrender_submit_alloc_run(struct vrender_submit *s)
{
	struct vrender_job *job = s->job;
	unsigned int i;

	/* Everything the job will use is allocated now, never later. */
	for (i = 0; i < job->ncmds; i++) {
		if (vrender_cmd_needs_row(&job->cmds[i])) {
			job->row = kmalloc_array(VRENDER_CHUNK_PIXELS,
						 sizeof(*job->row),
						 GFP_KERNEL_ACCOUNT);
			if (!job->row)
				return -ENOMEM;
			break;
		}
	}
	job->stall = vrender_wait_alloc(s->vr, 0);
	job->out = vrender_out_fence_alloc();
	if (!job->stall || !job->out)
		return -ENOMEM;
	/* Hang injection, armed by primebuf_selftest for the test suite */
	job->hang = primebuf_inject_job_hang();
	return 0;
}

/*
 * Back and map every buffer now, while nobody can wait for the job yet:
 * once its fence is out, the way to its signal neither allocates nor
 * takes a reservation lock (Documentation/driver-api/dma-buf.rst, "DMA
 * Fence Signalling Critical Path").  The mappings stay until the job is
 * freed.
 */
static int vrender_submit_map(struct vrender_submit *s)
{
	return vrender_job_map(s->job);
}

/* ----------------------------------------------------------------------
 * Stage 5: lock the reservations and add the dependencies
 */

static int vrender_submit_lock(struct vrender_submit *s)
{
	unsigned int i;
	int ret;

	ret = drm_gem_lock_reservations(s->objs, s->nobjs, &s->ctx);
	if (ret)
		return ret;
	for (i = 0; i < s->nobjs; i++) {
		ret = dma_resv_reserve_fences(s->objs[i]->resv, 1);
		if (ret) {
			drm_gem_unlock_reservations(s->objs, s->nobjs,
						    &s->ctx);
			return ret;
		}
	}
	return 0;
}

static void vrender_submit_unlock(struct vrender_submit *s)
{
	drm_gem_unlock_reservations(s->objs, s->nobjs, &s->ctx);
}

/*
 * This scheduler's fences go to the scheduler, which orders its own jobs;
 * every other fence waits in the job's gate, which has a timeout.
 * Takes a new reference to @fence.
 */
static int vrender_submit_add_dep(struct vrender_submit *s,
				  struct dma_fence *fence)
{
	struct vrender_job *job = s->job;
	struct dma_fence **foreign, *own;

	if (dma_fence_is_signaled(fence))
		return 0;
	own = vrender_fence_own(s->vr, fence);
	if (own)
		return drm_sched_job_add_dependency(&job->base,
						    dma_fence_get(own));

	if (job->nforeign == s->foreign_cap) {
		unsigned int cap = max(8U, s->foreign_cap * 2);

		foreign = kvmalloc_array(cap, sizeof(*foreign), GFP_KERNEL_ACCOUNT);
		if (!foreign)
			return -ENOMEM;
		if (job->nforeign)
			memcpy(foreign, job->foreign,
			       job->nforeign * sizeof(*foreign));
		kvfree(job->foreign);
		job->foreign = foreign;
		s->foreign_cap = cap;
	}
	job->foreign[job->nforeign++] = dma_fence_get(fence);
	return 0;
}

/* Implicit dependencies: writers wait for everyone, readers for writers. */
static int vrender_submit_add_deps(struct vrender_submit *s)
{
	struct vrender_job *job = s->job;
	struct dma_resv_iter cursor;
	struct dma_fence *fence;
	unsigned int i;
	int ret;

	for (i = 0; i < job->nexplicit; i++) {
		ret = vrender_submit_add_dep(s, job->explicit[i]);
		if (ret)
			return ret;
	}

	for (i = 0; i < job->nbos; i++) {
		struct vrender_job_bo *jb = &job->bos[i];

		dma_resv_for_each_fence(&cursor, jb->obj->resv,
					jb->write ? DMA_RESV_USAGE_READ :
						    DMA_RESV_USAGE_WRITE,
					fence) {
			ret = vrender_submit_add_dep(s, fence);
			if (ret)
				return ret;
		}
	}

	if (!job->nforeign)
		return 0;
	job->gate = vrender_wait_alloc(s->vr, job->nforeign);
	if (!job->gate)
		return -ENOMEM;
	return drm_sched_job_add_dependency(&job->base,
					    dma_fence_get(vrender_wait_fence(job->gate)));
}

/* ----------------------------------------------------------------------
 * Stage 6: arm, add the fence everywhere, push
 */

static int vrender_submit_arm(struct vrender_submit *s)
{
	struct vrender_file *vf = s->file->driver_priv;
	struct vrender_job *job = s->job;
	int ret;

	ret = mutex_lock_interruptible(&vf->push_lock);
	if (ret)
		return ret;
	s->fence = vrender_out_fence_init(job->out, vf->fence_context,
					  ++vf->seqno);
	job->out = NULL;
	if (s->out_fd >= 0) {
		s->sync_file = sync_file_create(s->fence);
		if (!s->sync_file) {
			/* Nobody saw the fence: end it, unarmed. */
			dma_fence_set_error(s->fence, -ECANCELED);
			dma_fence_signal(s->fence);
			mutex_unlock(&vf->push_lock);
			return -ENOMEM;
		}
	}

	drm_sched_job_arm(&job->base);
	vrender_out_fence_follow(s->fence, &job->base.s_fence->finished);
	return 0;
}

static void vrender_submit_add_fences(struct vrender_submit *s)
{
	struct vrender_job *job = s->job;
	struct dma_fence *fence = s->fence;
	unsigned int i;

	/* From here the job is visible to everyone who uses its buffers. */
	for (i = 0; i < job->nbos; i++)
		dma_resv_add_fence(s->objs[i]->resv, fence,
				   job->bos[i].write ? DMA_RESV_USAGE_WRITE :
						       DMA_RESV_USAGE_READ);
}

static void vrender_submit_push(struct vrender_submit *s)
{
	struct vrender_file *vf = s->file->driver_priv;
	struct vrender_job *job = s->job;

	if (job->gate) {
		/* The foreign fences' references pass to the gate. */
		vrender_wait_start_gate(job->gate, job->foreign);
		job->nforeign = 0;
	}
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&vf->push_lock);
}

/* Hand the out-fence to userspace; nothing here can fail. */
static void vrender_submit_install_out(struct vrender_submit *s)
{
	struct drm_vrender_submit *args = s->args;
	struct dma_fence *fence = s->fence;

	if (s->chain)
		drm_syncobj_add_point(s->out_syncobj, s->chain, fence,
				      args->out_point);
	else if (s->out_syncobj)
		drm_syncobj_replace_fence(s->out_syncobj, fence);
	s->chain = NULL;
	args->seqno = fence->seqno;
	args->out_fence_fd = -1;
	if (s->sync_file) {
		fd_install(s->out_fd, s->sync_file->file);
		args->out_fence_fd = s->out_fd;
		s->sync_file = NULL;
		s->out_fd = -1;
	}
}

static void vrender_submit_cleanup(struct vrender_submit *s)
{
	unsigned int i;

	for (i = 0; i < s->nobjs; i++)
		drm_gem_object_put(s->objs[i]);
	if (s->fence)
		dma_fence_put(s->fence);
	if (s->sync_file)
		fput(s->sync_file->file);
	if (s->out_fd >= 0)
		put_unused_fd(s->out_fd);
	dma_fence_chain_free(s->chain);
	if (s->out_syncobj)
		drm_syncobj_put(s->out_syncobj);
}

int vrender_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct vrender_submit s = {
		.vr = to_vrender(dev),
		.file = file,
		.args = data,
		.out_fd = -1,
	};
	bool sched_job = false;
	int ret;

	ret = vrender_submit_check_args(s.args);
	if (ret)
		return ret;
	ret = vrender_submit_copy_cmds(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_lookup_bos(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_get_in_fences(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_prepare_out(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_reserve(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_init_job(&s);
	if (ret)
		goto out_free_job;
	sched_job = true;
	ret = vrender_submit_alloc_run(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_map(&s);
	if (ret)
		goto out_free_job;

	ret = vrender_submit_lock(&s);
	if (ret)
		goto out_free_job;
	ret = vrender_submit_add_deps(&s);
	if (ret)
		goto out_unlock;
	ret = vrender_submit_arm(&s);
	if (ret)
		goto out_unlock;
	vrender_submit_add_fences(&s);

	vrender_submit_push(&s);
	/* The scheduler owns the job now. */
	vrender_submit_unlock(&s);
	vrender_submit_install_out(&s);
	vrender_submit_cleanup(&s);
	return 0;

out_unlock:
	vrender_submit_unlock(&s);
out_free_job:
	vrender_submit_cleanup(&s);
	if (s.job) {
		if (sched_job)
			drm_sched_job_cleanup(&s.job->base);
		vrender_job_release(s.job);
	}
	return ret;
}

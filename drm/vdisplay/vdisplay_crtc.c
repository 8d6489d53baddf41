// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - CRTC and its vblank timer
 */

#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/wait.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include "vdisplay_drv.h"

/*
 * The timer stands in for the display engine's vblank interrupt.  It is
 * forwarded before the vblank is reported, so while the handler runs its
 * expiry already names the next frame and the current vblank lies one
 * period earlier.
 *
 * DRM core switches vblank off with its vblank_time_lock held, the lock
 * drm_crtc_handle_vblank() takes here: disable_vblank therefore cannot
 * wait for a running handler (hrtimer_cancel() would deadlock against
 * it).  It clears @vblank_on and tries to cancel; a handler already
 * running sees the flag, or the refused vblank, and does not restart.
 *
 * With variable refresh on (@vrr_max_period set by the flush, see
 * vdisplay_crtc_update_vrr()) the timer leaves the grid: the handler
 * takes the time of the vblank it reports, and the next frame lasts
 * @vrr_max_period unless a flip comes first.  A flush on another CPU may
 * re-arm the timer between the handler's start and its choice of the
 * next expiry; the choice and every re-arm are made under @vblank_lock,
 * and the handler leaves an expiry alone once the timer is queued again.
 */
static enum hrtimer_restart vdisplay_vblank_fire(struct hrtimer *timer)
{
	struct vdisplay_output *out = container_of(timer, struct vdisplay_output,
						   vblank_timer);
	unsigned long flags;
	u64 overruns = 1;

	if (!READ_ONCE(out->vblank_on))
		return HRTIMER_NORESTART;

	spin_lock_irqsave(&out->vblank_lock, flags);
	if (out->vrr_max_period) {
		out->vrr_last = ktime_get();
		out->vrr_flip = false;
		if (!hrtimer_is_queued(timer))
			hrtimer_set_expires(timer, ktime_add(out->vrr_last,
							     out->vrr_max_period));
	} else if (!hrtimer_is_queued(timer)) {
		overruns = hrtimer_forward_now(timer, out->period);
	}
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	if (overruns != 1)
		drm_dbg_kms(out->crtc.dev, "vblank timer overran %llu frames\n",
			    overruns - 1);

	if (!drm_crtc_handle_vblank(&out->crtc))
		return HRTIMER_NORESTART;

	/* The blending itself is work for process context. */
	spin_lock(&out->frame_lock);
	out->frame_seq = drm_crtc_vblank_count(&out->crtc);
	spin_unlock(&out->frame_lock);
	queue_work(out->vd->composer_wq, &out->compose_work);

	return READ_ONCE(out->vblank_on) ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/*
 * Outputs of one device that run at the same refresh rate share their
 * vblank phase, as displays genlocked to one clock do.  A tiled monitor
 * (a TILE group in its connectors' EDIDs) is scanned out by several CRTCs
 * whose frames must start together; IGT's kms_tiled_display allows one
 * scanline between their page flips.  A timer starting while another
 * output of the same period runs on its grid joins that grid: the first
 * frame ends at that grid's next vblank after @now.  Otherwise it is a
 * whole frame from @now.
 *
 * Context: the core's vblank_time_lock is held, the lock taken before
 * any output's vblank_lock; this takes the other outputs' one at a time.
 */
static ktime_t vdisplay_first_vblank(struct vdisplay_output *out,
				     ktime_t now, ktime_t period)
{
	struct vdisplay_device *vd = out->vd;
	unsigned int i;

	for (i = 0; i < vd->config.ncrtcs; i++) {
		struct vdisplay_output *other = vd->outputs[i];
		unsigned long flags;
		ktime_t next = 0;
		s32 ahead;

		if (other == out)
			continue;
		spin_lock_irqsave(&other->vblank_lock, flags);
		if (READ_ONCE(other->vblank_on) && !other->vrr_max_period &&
		    other->period == period)
			next = hrtimer_get_expires(&other->vblank_timer);
		spin_unlock_irqrestore(&other->vblank_lock, flags);
		if (!next)
			continue;

		/*
		 * That grid's first vblank after @now, even when it runs
		 * late.  mode_valid keeps a frame shorter than 1 /
		 * VDISPLAY_MIN_REFRESH seconds, so the period fits an s32.
		 */
		div_s64_rem(ktime_to_ns(ktime_sub(next, now)),
			    (s32)ktime_to_ns(period), &ahead);
		if (ahead <= 0)
			ahead += (s32)ktime_to_ns(period);
		return ktime_add_ns(now, ahead);
	}
	return ktime_add(now, period);
}

static int vdisplay_enable_vblank(struct drm_crtc *crtc)
{
	struct drm_device *dev = crtc->dev;
	struct drm_vblank_crtc *vblank = &dev->vblank[drm_crtc_index(crtc)];
	struct vdisplay_output *out = crtc_to_output(crtc);
	ktime_t now, period, first;
	unsigned long flags;

	drm_calc_timestamping_constants(crtc, &crtc->mode);
	/* mode_valid keeps the frame time positive; never arm a 0 period. */
	if (vblank->framedur_ns <= 0)
		return -EINVAL;

	period = ns_to_ktime(vblank->framedur_ns);
	now = ktime_get();
	first = vdisplay_first_vblank(out, now, period);

	spin_lock_irqsave(&out->vblank_lock, flags);
	out->period = period;
	/* Under variable refresh too, the first frame is a short one. */
	out->vrr_last = ktime_sub(first, period);
	out->vrr_flip = true;
	WRITE_ONCE(out->vblank_on, true);
	hrtimer_start(&out->vblank_timer, first, HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	return 0;
}

static void vdisplay_disable_vblank(struct drm_crtc *crtc)
{
	struct vdisplay_output *out = crtc_to_output(crtc);
	unsigned long flags;

	spin_lock_irqsave(&out->vblank_lock, flags);
	WRITE_ONCE(out->vblank_on, false);
	hrtimer_try_to_cancel(&out->vblank_timer);
	spin_unlock_irqrestore(&out->vblank_lock, flags);
}

/*
 * The last vblank on the timer's grid that is not in the future.  The
 * handler forwards the timer before it reports a vblank, so the expiry
 * normally names the next frame and the last one lies a period earlier.
 * A handler that runs late (a busy or emulated machine) leaves the expiry
 * in the past for a while: that vblank has happened all the same, as it
 * would have on hardware, and a flip committed after it must wait for
 * the next one.  Counting it here, outside the handler, is what makes
 * the core arm such a flip's event for the following vblank; the late
 * handler then finds the vblank counted and only delivers the events.
 *
 * Under variable refresh there is no grid: the last vblank is the one the
 * handler took the time of.  A flip committed while the handler is late
 * is latched by that handler's vblank, as a flip during the stretched
 * front porch of a variable refresh display ends the frame.
 */
static ktime_t vdisplay_last_vblank(struct vdisplay_output *out, ktime_t now)
{
	ktime_t next = hrtimer_get_expires(&out->vblank_timer);
	s64 period = ktime_to_ns(out->period);

	lockdep_assert_held(&out->vblank_lock);
	if (out->vrr_max_period)
		return out->vrr_last;
	if (period <= 0)
		return now;
	if (ktime_before(now, next))
		return ktime_sub(next, out->period);
	return ktime_add_ns(next,
			    ktime_divns(ktime_sub(now, next), period) * period);
}

static bool vdisplay_get_vblank_timestamp(struct drm_crtc *crtc,
					  int *max_error, ktime_t *vblank_time,
					  bool in_vblank_irq)
{
	struct drm_device *dev = crtc->dev;
	struct drm_vblank_crtc *vblank = &dev->vblank[drm_crtc_index(crtc)];
	struct vdisplay_output *out = crtc_to_output(crtc);
	unsigned long flags;

	/*
	 * Not started yet (the core resets its timestamp when the CRTC is
	 * switched on, then starts the timer): the vblank the timer will
	 * report as the last one once started, on a running sibling's grid
	 * when it joins one.  A time later than that would make the core
	 * count the distance back to it as billions of frames.
	 */
	if (!READ_ONCE(vblank->enabled)) {
		ktime_t now = ktime_get();

		*vblank_time = now;
		if (vblank->framedur_ns > 0) {
			ktime_t period = ns_to_ktime(vblank->framedur_ns);

			*vblank_time = ktime_sub(vdisplay_first_vblank(out, now,
								       period),
						 period);
		}
		return true;
	}

	spin_lock_irqsave(&out->vblank_lock, flags);
	*vblank_time = vdisplay_last_vblank(out, ktime_get());
	spin_unlock_irqrestore(&out->vblank_lock, flags);
	*max_error = 0;
	return true;
}

static const struct drm_crtc_funcs vdisplay_crtc_funcs = {
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.reset = drm_atomic_helper_crtc_reset,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = vdisplay_enable_vblank,
	.disable_vblank = vdisplay_disable_vblank,
	.get_vblank_timestamp = vdisplay_get_vblank_timestamp,
	.get_crc_sources = vdisplay_crc_sources,
	.set_crc_source = vdisplay_crc_set_source,
	.verify_crc_source = vdisplay_crc_verify_source,
};

/*
 * No plane is required, the primary included: the composer blends the
 * visible planes over black, so a CRTC without any shows a black frame, as
 * display engines with a background colour do.  Requiring the primary
 * made RMFB of the primary's framebuffer switch the whole CRTC off (the
 * core's fallback when disabling just the plane fails the check).
 */
/*
 * Deliver a commit's event at the vblank that latches the commit, or at
 * once when the CRTC has no vblank (it was switched off).
 */
static void vdisplay_crtc_deliver_event(struct drm_crtc *crtc,
					struct drm_pending_vblank_event *event)
{
	spin_lock_irq(&crtc->dev->event_lock);
	if (drm_crtc_vblank_get(crtc) == 0)
		drm_crtc_arm_vblank_event(crtc, event);
	else
		drm_crtc_send_vblank_event(crtc, event);
	spin_unlock_irq(&crtc->dev->event_lock);
}

static void vdisplay_crtc_atomic_enable(struct drm_crtc *crtc,
					struct drm_atomic_commit *state)
{
	drm_crtc_vblank_on(crtc);

	/* The flush left the event of the commit switching us on. */
	if (crtc->state->event) {
		vdisplay_crtc_deliver_event(crtc, crtc->state->event);
		crtc->state->event = NULL;
	}
}

/*
 * Like a display engine, the CRTC stops at the end of the frame it is
 * scanning out, so the disabling commit completes (and sends its event)
 * at the next vblank, not at once.  The wait has no warning on timeout:
 * a guest stalled by its host may see a late vblank.
 */
static void vdisplay_crtc_wait_frame_end(struct drm_crtc *crtc)
{
	u64 seq;

	if (drm_crtc_vblank_get(crtc))
		return;
	seq = drm_crtc_vblank_count(crtc);
	wait_event_timeout(*drm_crtc_vblank_waitqueue(crtc),
			   drm_crtc_vblank_count(crtc) != seq,
			   msecs_to_jiffies(VDISPLAY_FRAME_END_TIMEOUT_MS));
	drm_crtc_vblank_put(crtc);
}

static void vdisplay_crtc_atomic_disable(struct drm_crtc *crtc,
					 struct drm_atomic_commit *state)
{
	vdisplay_crtc_wait_frame_end(crtc);
	drm_crtc_vblank_off(crtc);
	/*
	 * The timer is stopped: no frame will come for writebacks still
	 * waiting.  This lets a running composition finish, then fails them.
	 */
	vdisplay_composer_cancel_writebacks(crtc_to_output(crtc));
}

/*
 * Variable refresh: VRR_ENABLED on an active CRTC whose mode is faster
 * than the lowest refresh its connectors take.  Return: the longest
 * frame, or 0 for the fixed grid.
 */
static ktime_t vdisplay_vrr_max_period(struct drm_crtc *crtc,
				       const struct drm_crtc_state *crtc_state)
{
	unsigned int min_hz;

	if (!crtc_state->active || !crtc_state->vrr_enabled)
		return 0;
	min_hz = vdisplay_vrr_min_hz(crtc_to_output(crtc)->vd,
				     crtc_state->connector_mask);
	if (!min_hz || drm_mode_vrefresh(&crtc_state->adjusted_mode) <= min_hz)
		return 0;
	return ns_to_ktime(div_u64(NSEC_PER_SEC, min_hz));
}

/*
 * Move the timer to the vblank variable refresh wants next: one period
 * after the last when a flip is waiting (at once if that is past), one
 * longest frame after it otherwise.  An expiry not in the future belongs
 * to a handler that is about to run, or running before its choice under
 * @vblank_lock: that handler chooses, and latches the flip.
 */
static void vdisplay_vrr_rearm(struct vdisplay_output *out, ktime_t now)
{
	struct hrtimer *timer = &out->vblank_timer;
	ktime_t want;

	lockdep_assert_held(&out->vblank_lock);
	if (!out->vblank_on || !ktime_after(hrtimer_get_expires(timer), now))
		return;
	if (out->vrr_flip)
		want = ktime_add(out->vrr_last, out->period);
	else
		want = ktime_add(out->vrr_last, out->vrr_max_period);
	hrtimer_start(timer, ktime_after(want, now) ? want : now,
		      HRTIMER_MODE_ABS);
}

/* Back on the grid: its first point after now, counted from the last vblank */
static void vdisplay_vrr_regrid(struct vdisplay_output *out, ktime_t now)
{
	struct hrtimer *timer = &out->vblank_timer;
	s64 period = ktime_to_ns(out->period);
	ktime_t next;

	lockdep_assert_held(&out->vblank_lock);
	if (!out->vblank_on || !ktime_after(hrtimer_get_expires(timer), now) ||
	    period <= 0)
		return;
	next = ktime_add_ns(out->vrr_last,
			    (ktime_divns(ktime_sub(now, out->vrr_last), period) + 1) *
			    period);
	hrtimer_start(timer, next, HRTIMER_MODE_ABS);
}

/*
 * Called by the flush after the commit's event is armed: the event names
 * the vblank after the last one the core has counted, and the last
 * vblank read here is that one or a later one (@vblank_lock orders the
 * two reads against the handler), so a flip kicks the frame that
 * latches it.
 */
static void vdisplay_crtc_update_vrr(struct drm_crtc *crtc,
				     struct drm_crtc_state *crtc_state,
				     bool flipped)
{
	struct vdisplay_output *out = crtc_to_output(crtc);
	ktime_t max_period = vdisplay_vrr_max_period(crtc, crtc_state);
	unsigned long flags;
	ktime_t now;

	spin_lock_irqsave(&out->vblank_lock, flags);
	now = ktime_get();
	if (!out->vrr_max_period && max_period) {
		/* Off the grid, from its last vblank */
		out->vrr_last = out->vblank_on ? vdisplay_last_vblank(out, now) :
						 now;
		out->vrr_max_period = max_period;
		out->vrr_flip = flipped;
		vdisplay_vrr_rearm(out, now);
	} else if (out->vrr_max_period && !max_period) {
		out->vrr_max_period = 0;
		vdisplay_vrr_regrid(out, now);
	} else if (max_period) {
		out->vrr_max_period = max_period;
		if (flipped) {
			out->vrr_flip = true;
			vdisplay_vrr_rearm(out, now);
		}
	}
	spin_unlock_irqrestore(&out->vblank_lock, flags);
}

/* A new picture for the CRTC: the commit changes a framebuffer it shows */
static bool vdisplay_crtc_flipped(struct drm_crtc *crtc,
				  struct drm_atomic_commit *state)
{
	struct drm_plane_state *old_state, *new_state;
	struct drm_plane *plane;
	int i;

	for_each_oldnew_plane_in_state(state, plane, old_state, new_state, i)
		if ((new_state->crtc == crtc || old_state->crtc == crtc) &&
		    new_state->fb != old_state->fb)
			return true;
	return false;
}

/*
 * The new state is latched at the next vblank, so that is when the
 * commit's event is delivered, unless the commit is an asynchronous
 * (tearing) flip, which completes at once.  The tail flushes before it enables: the
 * event of a modeset that switches the CRTC on is left to atomic_enable,
 * which arms it for the CRTC's first vblank.  A CRTC switched off (at the
 * end of its frame) sends the event at once.  Under variable refresh, a
 * commit with an event or a new framebuffer is a flip that ends the
 * frame (the atomic helpers give every commit an event).
 */
static void vdisplay_crtc_atomic_flush(struct drm_crtc *crtc,
				       struct drm_atomic_commit *state)
{
	struct drm_crtc_state *crtc_state =
		drm_atomic_get_new_crtc_state(state, crtc);
	bool flipped = crtc_state->event ||
		       vdisplay_crtc_flipped(crtc, state);

	vdisplay_composer_update(crtc_to_output(crtc));

	if (crtc_state->event &&
	    !(crtc_state->active && drm_atomic_crtc_needs_modeset(crtc_state))) {
		if (crtc_state->async_flip) {
			/*
			 * A tearing flip does not wait for the vblank: the
			 * composer has the new framebuffers, and the next
			 * frame it starts reads them, so the flip is done.
			 */
			spin_lock_irq(&crtc->dev->event_lock);
			drm_crtc_send_vblank_event(crtc, crtc_state->event);
			spin_unlock_irq(&crtc->dev->event_lock);
		} else {
			vdisplay_crtc_deliver_event(crtc, crtc_state->event);
		}
		crtc_state->event = NULL;
	}
	vdisplay_crtc_update_vrr(crtc, crtc_state, flipped);
}

/*
 * The composer's degamma and gamma stages have one entry per 8-bit value.
 * The core checked already that each blob holds whole struct
 * drm_color_lut entries, and that a CTM blob is one struct drm_color_ctm.
 */
static int vdisplay_check_lut(struct drm_crtc *crtc,
			      const struct drm_property_blob *lut,
			      const char *name)
{
	if (lut && drm_color_lut_size(lut) != VDISPLAY_GAMMA_SIZE) {
		drm_dbg_kms(crtc->dev, "%s LUT of %d entries, want %d\n", name,
			    drm_color_lut_size(lut), VDISPLAY_GAMMA_SIZE);
		return -EINVAL;
	}
	return 0;
}

static int vdisplay_crtc_atomic_check(struct drm_crtc *crtc,
				      struct drm_atomic_commit *state)
{
	struct drm_crtc_state *crtc_state =
		drm_atomic_get_new_crtc_state(state, crtc);

	return vdisplay_check_lut(crtc, crtc_state->degamma_lut, "degamma") ?:
	       vdisplay_check_lut(crtc, crtc_state->gamma_lut, "gamma");
}

static const struct drm_crtc_helper_funcs vdisplay_crtc_helper_funcs = {
	.atomic_check = vdisplay_crtc_atomic_check,
	.atomic_flush = vdisplay_crtc_atomic_flush,
	.atomic_enable = vdisplay_crtc_atomic_enable,
	.atomic_disable = vdisplay_crtc_atomic_disable,
};

int vdisplay_crtc_init(struct vdisplay_device *vd, struct vdisplay_output *out)
{
	int ret;

	/*
	 * Naming the cursor plane is what routes the legacy cursor ioctls
	 * to it; without it DRM_IOCTL_MODE_CURSOR fails with -ENXIO.
	 */
	ret = drmm_crtc_init_with_planes(&vd->drm, &out->crtc, out->primary,
					 out->cursor, &vdisplay_crtc_funcs,
					 NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&out->crtc, &vdisplay_crtc_helper_funcs);

	/*
	 * GAMMA_LUT, and the legacy gamma ioctls on top of it: with no
	 * gamma_set callback the core turns them into an atomic commit of a
	 * GAMMA_LUT blob (on 6.1 and later), starting from a linear ramp.
	 */
	ret = drm_mode_crtc_set_gamma_size(&out->crtc, VDISPLAY_GAMMA_SIZE);
	if (ret)
		return ret;
	drm_crtc_enable_color_mgmt(&out->crtc, VDISPLAY_GAMMA_SIZE, true,
				   VDISPLAY_GAMMA_SIZE);

	hrtimer_setup(&out->vblank_timer, vdisplay_vblank_fire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	spin_lock_init(&out->vblank_lock);
	spin_lock_init(&out->frame_lock);
	mutex_init(&out->scene_lock);
	mutex_init(&out->compose_lock);
	INIT_LIST_HEAD(&out->wb_pending);
	INIT_WORK(&out->compose_work, vdisplay_compose_work);
	INIT_LIST_HEAD(&out->release_list);
	INIT_WORK(&out->release_work, vdisplay_release_work);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - planes
 *
 * Every CRTC has a primary plane, optional overlays and an optional cursor,
 * all alike: the same formats, positioning and clipping through the atomic
 * helpers, scaling from 1/8 to 8 in each direction (VDISPLAY_MIN_SCALE,
 * VDISPLAY_MAX_SCALE) with a SCALING_FILTER property, a zpos, and plane
 * alpha with the three blend modes.  The framebuffer of a plane is vmapped
 * from prepare_fb to cleanup_fb, so the composer can read it at any vblank
 * while the state is current.
 */

#include <linux/minmax.h>
#include <linux/slab.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_color_mgmt.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_plane.h>
#include <drm/drm_print.h>

#include <primepair/primebuf.h>

#include "vdisplay_drv.h"

/*
 * Scanout reads memory linearly.  The list ends at DRM_FORMAT_MOD_INVALID,
 * which the core takes as its terminator, not as a modifier.
 */
static const u64 vdisplay_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

static void vdisplay_plane_reset(struct drm_plane *plane)
{
	struct vdisplay_plane_state *vs;

	if (plane->state) {
		vdisplay_plane_pipeline_release(to_vdisplay_plane_state(plane->state));
		__drm_atomic_helper_plane_destroy_state(plane->state);
		kfree(to_vdisplay_plane_state(plane->state));
		plane->state = NULL;
	}

	vs = kzalloc(sizeof(*vs), GFP_KERNEL);
	if (!vs)
		return;
	__drm_atomic_helper_plane_reset(plane, &vs->base);
}

static struct drm_plane_state *
vdisplay_plane_duplicate_state(struct drm_plane *plane)
{
	struct vdisplay_plane_state *vs;

	if (!plane->state)
		return NULL;

	vs = kzalloc(sizeof(*vs), GFP_KERNEL);
	if (!vs)
		return NULL;
	/* The copy gets its own vmap in prepare_fb, @map stays zeroed. */
	__drm_atomic_helper_plane_duplicate_state(plane, &vs->base);
	vdisplay_plane_pipeline_copy(vs, to_vdisplay_plane_state(plane->state));
	return &vs->base;
}

static void vdisplay_plane_destroy_state(struct drm_plane *plane,
					 struct drm_plane_state *state)
{
	vdisplay_plane_pipeline_release(to_vdisplay_plane_state(state));
	__drm_atomic_helper_plane_destroy_state(state);
	kfree(to_vdisplay_plane_state(state));
}

/* Asynchronous flips take every format the plane has, linear as always. */
static bool __maybe_unused
vdisplay_plane_format_mod_supported_async(struct drm_plane *plane, u32 format,
					  u64 modifier)
{
	return modifier == DRM_FORMAT_MOD_LINEAR;
}

static const struct drm_plane_funcs vdisplay_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.reset = vdisplay_plane_reset,
	.atomic_duplicate_state = vdisplay_plane_duplicate_state,
	.atomic_destroy_state = vdisplay_plane_destroy_state,
	PRIMEPAIR_FORMAT_MOD_SUPPORTED_ASYNC(vdisplay_plane_format_mod_supported_async)
};

static int vdisplay_plane_atomic_check(struct drm_plane *plane,
				       struct drm_atomic_commit *state)
{
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *crtc_state;
	int ret;

	ret = vdisplay_plane_pipeline_check(state, plane);
	if (ret)
		return ret;

	/* The core refuses a framebuffer without a CRTC already. */
	if (!new_state->fb || !new_state->crtc)
		return 0;

	crtc_state = drm_atomic_get_crtc_state(state, new_state->crtc);
	if (IS_ERR(crtc_state))
		return PTR_ERR(crtc_state);

	/* A scale factor out of range is -ERANGE. */
	return drm_atomic_helper_check_plane_state(new_state, crtc_state,
						   VDISPLAY_MIN_SCALE,
						   VDISPLAY_MAX_SCALE,
						   true, true);
}

/* The same format and layout of memory, whatever the contents */
static bool vdisplay_fb_layout_same(const struct drm_framebuffer *a,
				    const struct drm_framebuffer *b)
{
	unsigned int i;

	if (a == b)
		return true;
	if (!a || !b || a->format != b->format || a->modifier != b->modifier ||
	    a->width != b->width || a->height != b->height)
		return false;
	for (i = 0; i < a->format->num_planes; i++)
		if (a->pitches[i] != b->pitches[i])
			return false;
	return true;
}

/*
 * Everything that places and blends the plane is the same in @a and @b:
 * only the framebuffer's contents (or another framebuffer alike) differ.
 */
static bool vdisplay_plane_layout_same(const struct drm_plane_state *a,
				       const struct drm_plane_state *b)
{
	return a->crtc == b->crtc && a->visible == b->visible &&
	       a->crtc_x == b->crtc_x && a->crtc_y == b->crtc_y &&
	       a->crtc_w == b->crtc_w && a->crtc_h == b->crtc_h &&
	       a->src_x == b->src_x && a->src_y == b->src_y &&
	       a->src_w == b->src_w && a->src_h == b->src_h &&
	       drm_rect_equals(&a->src, &b->src) &&
	       drm_rect_equals(&a->dst, &b->dst) &&
	       a->alpha == b->alpha &&
	       a->pixel_blend_mode == b->pixel_blend_mode &&
	       a->rotation == b->rotation && a->zpos == b->zpos &&
	       a->normalized_zpos == b->normalized_zpos &&
	       a->color_encoding == b->color_encoding &&
	       a->color_range == b->color_range &&
	       a->scaling_filter == b->scaling_filter &&
	       !vdisplay_plane_pipeline_changed(a, b) &&
	       vdisplay_fb_layout_same(a->fb, b->fb);
}

/*
 * Nothing to program: the CRTC's flush hands the new scene to the
 * composer, and the framebuffer's fences were waited for by the commit.
 * What the plane damages is told the composer here, before the flush: a
 * plane that only shows new contents damages the rows of its clips, any
 * other change of a plane the whole frame of each CRTC it leaves or joins.
 */
static void vdisplay_plane_atomic_update(struct drm_plane *plane,
					 struct drm_atomic_commit *state)
{
	struct drm_plane_state *old_state =
		drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);

	if (!vdisplay_plane_layout_same(old_state, new_state)) {
		if (old_state->crtc)
			vdisplay_composer_damage_all(crtc_to_output(old_state->crtc));
		if (new_state->crtc)
			vdisplay_composer_damage_all(crtc_to_output(new_state->crtc));
		return;
	}
	if (new_state->crtc)
		vdisplay_composer_damage_plane(crtc_to_output(new_state->crtc),
					       old_state, new_state);
}

static void vdisplay_fb_dma_unmap(struct drm_framebuffer *fb,
				  struct sg_table **sgt)
{
	unsigned int i;

	for (i = 0; i < DRM_FORMAT_MAX_PLANES; i++) {
		if (!sgt[i])
			continue;
		primebuf_bo_unmap(to_primebuf_bo(fb->obj[i]), sgt[i],
				  DMA_TO_DEVICE);
		sgt[i] = NULL;
	}
}

static void vdisplay_plane_dma_unmap(struct vdisplay_plane_state *vs)
{
	vdisplay_fb_dma_unmap(vs->base.fb, vs->sgt);
}

/*
 * Map each buffer for the display engine's DMA, as hardware scanout
 * would: primebuf places or migrates the backing storage to suit our
 * constraints here, and with contiguous=1 a buffer that still spans
 * several segments cannot be scanned out.  This comes before the vmap,
 * because primebuf migrates only buffers that nobody has mapped.
 */
static int vdisplay_plane_dma_map(struct vdisplay_device *vd,
				  struct vdisplay_plane_state *vs)
{
	struct drm_framebuffer *fb = vs->base.fb;
	struct sg_table *sgt;
	unsigned int i;

	for (i = 0; i < fb->format->num_planes; i++) {
		struct drm_gem_object *obj = fb->obj[i];

		if (!obj || !primebuf_is_primebuf_object(obj))
			continue;
		sgt = primebuf_bo_map(to_primebuf_bo(obj), DMA_TO_DEVICE);
		if (IS_ERR(sgt)) {
			vdisplay_plane_dma_unmap(vs);
			return PTR_ERR(sgt);
		}
		vs->sgt[i] = sgt;
		if (vd->config.contiguous && sgt->nents > 1) {
			drm_dbg_kms(&vd->drm, "buffer in %u segments, contiguous only\n",
				    sgt->nents);
			vdisplay_plane_dma_unmap(vs);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Wait for the writers (implicit sync), then map the buffer.  The planes
 * a cursor toggle carries along unchanged keep the current state's
 * mappings (the asynchronous update leaves them as they are), so theirs
 * is not mapped a second time.
 */
static int vdisplay_plane_prepare_fb(struct drm_plane *plane,
				     struct drm_plane_state *state)
{
	struct vdisplay_plane_state *vs = to_vdisplay_plane_state(state);
	int ret;

	if (!state->fb ||
	    (state->state->async_update && plane->type != DRM_PLANE_TYPE_CURSOR))
		return 0;

	ret = drm_gem_plane_helper_prepare_fb(plane, state);
	if (ret)
		return ret;

	ret = vdisplay_plane_dma_map(to_vdisplay(plane->dev), vs);
	if (ret)
		return ret;

	ret = drm_gem_fb_vmap(state->fb, vs->map, vs->data);
	if (ret)
		vdisplay_plane_dma_unmap(vs);
	return ret;
}

/**
 * vdisplay_release_work() - release framebuffers a cursor update left
 * @work: &vdisplay_output.release_work
 *
 * Once the output's compose lock has been free, no frame reads the
 * framebuffers on the list any more: unmap them and drop their
 * references.
 */
void vdisplay_release_work(struct work_struct *work)
{
	struct vdisplay_output *out = container_of(work, struct vdisplay_output,
						   release_work);
	struct vdisplay_deferred_fb *d, *tmp;
	LIST_HEAD(list);

	mutex_lock(&out->scene_lock);
	list_splice_init(&out->release_list, &list);
	mutex_unlock(&out->scene_lock);

	vdisplay_composer_release(out);
	list_for_each_entry_safe(d, tmp, &list, node) {
		list_del(&d->node);
		drm_gem_fb_vunmap(d->fb, d->map);
		vdisplay_fb_dma_unmap(d->fb, d->sgt);
		drm_framebuffer_put(d->fb);
		kfree(d);
	}
}

/*
 * An asynchronous cursor update runs in the caller's ioctl, which should
 * not wait for a frame: when one is being composed (it may read the old
 * cursor image), hand the mappings to the composer's queue, which
 * releases them after that frame.  Returns whether it did; without
 * memory for that, the caller waits after all.  The entry is charged to
 * the caller, and lives for one frame.
 */
static bool vdisplay_plane_defer_unmap(struct vdisplay_output *out,
				       struct vdisplay_plane_state *vs)
{
	struct vdisplay_deferred_fb *d;

	/* No frame now: the next one reads the new scene. */
	if (mutex_trylock(&out->compose_lock)) {
		mutex_unlock(&out->compose_lock);
		return false;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return false;
	d->fb = vs->base.fb;
	drm_framebuffer_get(d->fb);
	memcpy(d->sgt, vs->sgt, sizeof(d->sgt));
	memcpy(d->map, vs->map, sizeof(d->map));
	memset(vs->sgt, 0, sizeof(vs->sgt));
	memset(vs->map, 0, sizeof(vs->map));
	memset(vs->data, 0, sizeof(vs->data));

	mutex_lock(&out->scene_lock);
	list_add_tail(&d->node, &out->release_list);
	mutex_unlock(&out->scene_lock);
	queue_work(out->vd->composer_wq, &out->release_work);
	return true;
}

static void vdisplay_plane_cleanup_fb(struct drm_plane *plane,
				      struct drm_plane_state *state)
{
	struct vdisplay_plane_state *vs = to_vdisplay_plane_state(state);
	struct vdisplay_output *out;

	if (!state->fb || iosys_map_is_null(&vs->map[0]))
		return;

	/*
	 * A frame being composed may still read the scene it was in.  Of
	 * an asynchronous update, only the framebuffer's mappings were in
	 * a scene (the plane's current state keeps its pipeline).
	 */
	if (state->crtc) {
		out = crtc_to_output(state->crtc);
		if (state->state && state->state->async_update &&
		    vdisplay_plane_defer_unmap(out, vs))
			return;
		vdisplay_composer_release(out);
	}
	drm_gem_fb_vunmap(state->fb, vs->map);
	memset(vs->map, 0, sizeof(vs->map));
	memset(vs->data, 0, sizeof(vs->data));
	vdisplay_plane_dma_unmap(vs);
}

/*
 * Cursor updates (the legacy cursor ioctls) are applied at once, without
 * waiting for a page flip still pending on the CRTC, as cursor hardware
 * takes a new position or image at any time.  The helpers send a cursor
 * that stays shown this way (a move, a new image); showing or hiding it
 * is vdisplay_cursor_toggle_async()'s decision.  The atomic check has
 * clipped the new state already.
 *
 * With @flip, the core asks whether an asynchronous (tearing) page flip
 * may change this plane's framebuffer: on every plane, as the composer
 * takes each commit's framebuffers from its next frame on.
 */
static int vdisplay_plane_atomic_async_check(struct drm_plane *plane,
					     struct drm_atomic_commit *state,
					     bool flip)
{
	struct drm_plane_state *old_state =
		drm_atomic_get_old_plane_state(state, plane);
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);

	if (flip)
		return 0;
	/* The update keeps the current state's colour pipeline. */
	if (vdisplay_plane_pipeline_changed(old_state, new_state))
		return -EINVAL;
	if (plane->type != DRM_PLANE_TYPE_CURSOR || !old_state->fb ||
	    !new_state->fb || !old_state->visible || !new_state->visible)
		return -EINVAL;
	return 0;
}

PRIMEPAIR_DEFINE_ASYNC_CHECK(vdisplay_plane_atomic_async_check)

/* Nothing a commit would change differs between @a and @b. */
static bool vdisplay_plane_state_same(const struct drm_plane_state *a,
				      const struct drm_plane_state *b)
{
	return a->fb == b->fb && !b->fence &&
	       vdisplay_plane_layout_same(a, b);
}

/**
 * vdisplay_cursor_toggle_async() - may a legacy cursor update that shows
 * or hides the cursor be applied at once?
 * @state: a checked legacy cursor update the helpers do not apply
 *	asynchronously
 *
 * The helpers apply a cursor update asynchronously only while the cursor
 * stays on its CRTC; showing or hiding it changes the plane's CRTC, and
 * the legacy cursor ioctl then waits for the page flip pending on that
 * CRTC.  Cursor hardware takes its enable bit at any time like its
 * position, so vdisplay applies these at once too when nothing else
 * changes: one cursor plane goes on or off one active CRTC that is not
 * being modeset, nor completing a modeset, no connector is involved, and
 * every other plane in @state (zpos normalisation adds the CRTC's
 * planes) stays as it is.
 *
 * Return: true if vdisplay_plane_atomic_async_update() can apply @state.
 */
bool vdisplay_cursor_toggle_async(struct drm_atomic_commit *state)
{
	struct drm_plane_state *old_ps, *new_ps;
	struct drm_crtc_state *old_cs, *new_cs;
	struct drm_connector_state *conn_state;
	struct drm_connector *conn;
	struct drm_plane *plane;
	struct drm_crtc *crtc;
	unsigned int ncrtcs = 0, nconns = 0, ncursors = 0;
	int i;

	for_each_new_connector_in_state(state, conn, conn_state, i)
		nconns++;
	if (nconns)
		return false;

	for_each_oldnew_crtc_in_state(state, crtc, old_cs, new_cs, i) {
		if (++ncrtcs > 1 || !old_cs->active || !new_cs->active ||
		    drm_atomic_crtc_needs_modeset(new_cs) || new_cs->event ||
		    new_cs->color_mgmt_changed)
			return false;
		/* A cursor update after a modeset waits for it to complete. */
		if (drm_atomic_crtc_needs_modeset(old_cs) && old_cs->commit &&
		    !try_wait_for_completion(&old_cs->commit->flip_done))
			return false;
	}

	for_each_oldnew_plane_in_state(state, plane, old_ps, new_ps, i) {
		if (plane->type != DRM_PLANE_TYPE_CURSOR ||
		    !old_ps->fb == !new_ps->fb) {
			if (!vdisplay_plane_state_same(old_ps, new_ps))
				return false;
			continue;
		}
		/* As the helpers: no fence, no commit still programming it */
		if (new_ps->fence || vdisplay_plane_pipeline_changed(old_ps, new_ps) ||
		    (old_ps->commit &&
				      !try_wait_for_completion(&old_ps->commit->hw_done)))
			return false;
		ncursors++;
	}
	return ncrtcs == 1 && ncursors == 1;
}

/*
 * The current state takes the new position, framebuffer and CRTC; the new
 * state takes the old framebuffer and its mappings, which the helpers
 * clean up once the composer is done with the old scene.  The other
 * planes of a cursor toggle are unchanged and keep their state.  The swap
 * is made under the scene lock, so a page flip's flush, which builds the
 * scene from the current states, sees the cursor either before or after
 * it.
 */
static void vdisplay_plane_atomic_async_update(struct drm_plane *plane,
					       struct drm_atomic_commit *state)
{
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct drm_plane_state *cur_state = plane->state;
	struct vdisplay_plane_state *cur = to_vdisplay_plane_state(cur_state);
	struct vdisplay_plane_state *vnew = to_vdisplay_plane_state(new_state);
	struct vdisplay_output *out;
	unsigned int i;

	if (plane->type != DRM_PLANE_TYPE_CURSOR)
		return;

	out = crtc_to_output(new_state->crtc ?: cur_state->crtc);
	mutex_lock(&out->scene_lock);
	swap(cur_state->fb, new_state->fb);
	for (i = 0; i < DRM_FORMAT_MAX_PLANES; i++) {
		swap(cur->sgt[i], vnew->sgt[i]);
		swap(cur->map[i], vnew->map[i]);
		swap(cur->data[i], vnew->data[i]);
	}
	cur_state->crtc_x = new_state->crtc_x;
	cur_state->crtc_y = new_state->crtc_y;
	cur_state->crtc_w = new_state->crtc_w;
	cur_state->crtc_h = new_state->crtc_h;
	cur_state->src_x = new_state->src_x;
	cur_state->src_y = new_state->src_y;
	cur_state->src_w = new_state->src_w;
	cur_state->src_h = new_state->src_h;
	cur_state->src = new_state->src;
	cur_state->dst = new_state->dst;
	cur_state->rotation = new_state->rotation;
	cur_state->color_encoding = new_state->color_encoding;
	cur_state->color_range = new_state->color_range;
	cur_state->scaling_filter = new_state->scaling_filter;
	cur_state->visible = new_state->visible;
	cur_state->normalized_zpos = new_state->normalized_zpos;
	/* Shown or hidden: the current CRTC state lists its planes. */
	if (cur_state->crtc != new_state->crtc) {
		if (cur_state->crtc)
			cur_state->crtc->state->plane_mask &= ~drm_plane_mask(plane);
		if (new_state->crtc)
			new_state->crtc->state->plane_mask |= drm_plane_mask(plane);
		swap(cur_state->crtc, new_state->crtc);
	}
	vdisplay_composer_update_locked(out);
	mutex_unlock(&out->scene_lock);
}

static const struct drm_plane_helper_funcs vdisplay_plane_helper_funcs = {
	.prepare_fb = vdisplay_plane_prepare_fb,
	.cleanup_fb = vdisplay_plane_cleanup_fb,
	.atomic_check = vdisplay_plane_atomic_check,
	.atomic_update = vdisplay_plane_atomic_update,
	.atomic_async_check = PRIMEPAIR_ASYNC_CHECK(vdisplay_plane_atomic_async_check),
	.atomic_async_update = vdisplay_plane_atomic_async_update,
};

static int vdisplay_plane_add_properties(struct drm_plane *plane,
					 unsigned int zpos,
					 unsigned int max_zpos)
{
	int ret;

	ret = drm_plane_create_zpos_property(plane, zpos, 0, max_zpos);
	if (ret)
		return ret;

	ret = drm_plane_create_alpha_property(plane);
	if (ret)
		return ret;

	ret = drm_plane_create_color_properties(plane,
						BIT(DRM_COLOR_YCBCR_BT601) |
						BIT(DRM_COLOR_YCBCR_BT709) |
						BIT(DRM_COLOR_YCBCR_BT2020),
						BIT(DRM_COLOR_YCBCR_LIMITED_RANGE) |
						BIT(DRM_COLOR_YCBCR_FULL_RANGE),
						VDISPLAY_DEFAULT_ENCODING,
						VDISPLAY_DEFAULT_RANGE);
	if (ret)
		return ret;

	ret = drm_plane_create_rotation_property(plane, DRM_MODE_ROTATE_0,
						 DRM_MODE_ROTATE_MASK |
						 DRM_MODE_REFLECT_MASK);
	if (ret)
		return ret;

	/*
	 * Clients may say which part of a framebuffer changed: after commits
	 * that change nothing else, the composer blends only the CRTC rows
	 * the damage covers (see vdisplay_compose()).
	 */
	drm_plane_enable_fb_damage_clips(plane);

	/*
	 * The composer samples scaled planes by nearest neighbour: that is
	 * what DEFAULT means here too.
	 */
	ret = drm_plane_create_scaling_filter_property(plane,
						       BIT(DRM_SCALING_FILTER_DEFAULT) |
						       BIT(DRM_SCALING_FILTER_NEAREST_NEIGHBOR));
	if (ret)
		return ret;

	return drm_plane_create_blend_mode_property(plane,
						    BIT(DRM_MODE_BLEND_PIXEL_NONE) |
						    BIT(DRM_MODE_BLEND_PREMULTI) |
						    BIT(DRM_MODE_BLEND_COVERAGE));
}

/*
 * Any cursor size up to VDISPLAY_MAX_CURSOR works; these are the ones
 * userspace is told to prefer, smallest first, as the cursor image is
 * blended every frame that is composed.
 */
static const struct drm_plane_size_hint vdisplay_cursor_sizes[] = {
	{ 64, 64 }, { 128, 128 }, { 256, 256 },
	{ VDISPLAY_MAX_CURSOR, VDISPLAY_MAX_CURSOR },
};

struct drm_plane *vdisplay_plane_create(struct vdisplay_device *vd,
					u32 possible_crtcs,
					enum drm_plane_type type,
					unsigned int zpos,
					unsigned int max_zpos)
{
	u32 formats[VDISPLAY_MAX_FORMATS];
	struct drm_plane *plane;
	unsigned int nformats;
	int ret;

	/* The core copies the list. */
	nformats = vdisplay_format_list(formats);
	plane = __drmm_universal_plane_alloc(&vd->drm, sizeof(*plane), 0,
					     possible_crtcs, &vdisplay_plane_funcs,
					     formats, nformats,
					     vdisplay_modifiers, type, NULL);
	if (IS_ERR(plane))
		return plane;

	drm_plane_helper_add(plane, &vdisplay_plane_helper_funcs);

	ret = vdisplay_plane_add_properties(plane, zpos, max_zpos);
	if (ret)
		return ERR_PTR(ret);
	if (type == DRM_PLANE_TYPE_CURSOR) {
		ret = drm_plane_add_size_hints_property(plane, vdisplay_cursor_sizes,
							ARRAY_SIZE(vdisplay_cursor_sizes));
		if (ret)
			return ERR_PTR(ret);
	}
	ret = vdisplay_plane_colorops_init(vd, plane);
	if (ret)
		return ERR_PTR(ret);
	return plane;
}

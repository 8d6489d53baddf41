// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - planes
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_gem_atomic_helper.h>
#include <drm/drm_plane.h>

#include "vdisplay_drv.h"

static const u32 vdisplay_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,
	DRM_FORMAT_XBGR8888,
	DRM_FORMAT_ABGR8888,
	DRM_FORMAT_RGB565,
};

/* Scanout reads memory linearly; nothing else is accepted at ADDFB2. */
static const u64 vdisplay_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

static const struct drm_plane_funcs vdisplay_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

static int vdisplay_plane_atomic_check(struct drm_plane *plane,
				       struct drm_atomic_state *state)
{
	struct drm_plane_state *new_state =
		drm_atomic_get_new_plane_state(state, plane);
	struct drm_crtc_state *crtc_state;

	if (!new_state->fb || WARN_ON(!new_state->crtc))
		return 0;

	crtc_state = drm_atomic_get_crtc_state(state, new_state->crtc);
	if (IS_ERR(crtc_state))
		return PTR_ERR(crtc_state);

	return drm_atomic_helper_check_plane_state(new_state, crtc_state,
						   DRM_PLANE_NO_SCALING,
						   DRM_PLANE_NO_SCALING,
						   true, true);
}

static void vdisplay_plane_atomic_update(struct drm_plane *plane,
					 struct drm_atomic_state *state)
{
	/*
	 * Nothing to program: the composer reads the plane state at each
	 * vblank.  The framebuffer's fences were waited for by the commit.
	 */
}

static const struct drm_plane_helper_funcs vdisplay_plane_helper_funcs = {
	.prepare_fb = drm_gem_plane_helper_prepare_fb,
	.atomic_check = vdisplay_plane_atomic_check,
	.atomic_update = vdisplay_plane_atomic_update,
};

struct drm_plane *vdisplay_plane_create(struct vdisplay_device *vd,
					enum drm_plane_type type)
{
	struct drm_plane *plane;

	plane = __drmm_universal_plane_alloc(&vd->drm, sizeof(*plane), 0, 1,
					     &vdisplay_plane_funcs,
					     vdisplay_formats,
					     ARRAY_SIZE(vdisplay_formats),
					     vdisplay_modifiers, type, NULL);
	if (IS_ERR(plane))
		return plane;

	drm_plane_helper_add(plane, &vdisplay_plane_helper_funcs);
	return plane;
}

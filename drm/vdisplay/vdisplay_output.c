// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - encoder and connector
 */

#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_probe_helper.h>

#include "vdisplay_drv.h"

static int vdisplay_connector_get_modes(struct drm_connector *connector)
{
	int count;

	count = drm_add_modes_noedid(connector, VDISPLAY_MAX_WIDTH,
				     VDISPLAY_MAX_HEIGHT);
	drm_set_preferred_mode(connector, VDISPLAY_PREF_WIDTH,
			       VDISPLAY_PREF_HEIGHT);
	return count;
}

static const struct drm_connector_helper_funcs vdisplay_connector_helper_funcs = {
	.get_modes = vdisplay_connector_get_modes,
};

static const struct drm_connector_funcs vdisplay_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

int vdisplay_output_init(struct vdisplay_device *vd,
			 struct vdisplay_output *out)
{
	int ret;

	ret = drmm_encoder_init(&vd->drm, &out->encoder, NULL,
				DRM_MODE_ENCODER_VIRTUAL, NULL);
	if (ret)
		return ret;
	out->encoder.possible_crtcs = drm_crtc_mask(&out->crtc);

	ret = drmm_connector_init(&vd->drm, &out->connector,
				  &vdisplay_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&out->connector,
				 &vdisplay_connector_helper_funcs);

	return drm_connector_attach_encoder(&out->connector, &out->encoder);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdisplay - a display-only KMS driver without hardware
 */
#ifndef _VDISPLAY_DRV_H_
#define _VDISPLAY_DRV_H_

#include <linux/hrtimer.h>
#include <linux/platform_device.h>

#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_plane.h>

#define VDISPLAY_DRIVER_NAME	"vdisplay"

/* Smallest and default largest mode, and the preferred one */
#define VDISPLAY_MIN_SIZE	32
#define VDISPLAY_MAX_WIDTH	1920
#define VDISPLAY_MAX_HEIGHT	1080
#define VDISPLAY_PREF_WIDTH	1024
#define VDISPLAY_PREF_HEIGHT	768

/**
 * struct vdisplay_output - one CRTC with its encoder and connector
 * @crtc: the CRTC; vblank comes from @vblank_timer
 * @encoder: virtual encoder feeding @connector
 * @connector: virtual connector with the standard mode list
 * @primary: the CRTC's primary plane
 * @vblank_timer: fires once per frame while vblank is enabled
 * @period: frame time of the current mode
 */
struct vdisplay_output {
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;
	struct drm_plane *primary;
	struct hrtimer vblank_timer;
	ktime_t period;
};

/**
 * struct vdisplay_device - the vdisplay instance
 * @drm: the DRM device, embedded
 * @pdev: the virtual platform device it is bound to
 * @output: its (single, for now) output
 */
struct vdisplay_device {
	struct drm_device drm;
	struct platform_device *pdev;
	struct vdisplay_output output;
};

static inline struct vdisplay_device *to_vdisplay(struct drm_device *drm)
{
	return container_of(drm, struct vdisplay_device, drm);
}

static inline struct vdisplay_output *crtc_to_output(struct drm_crtc *crtc)
{
	return container_of(crtc, struct vdisplay_output, crtc);
}

/* CRTC */
int vdisplay_crtc_init(struct vdisplay_device *vd, struct vdisplay_output *out);

/* Planes */
struct drm_plane *vdisplay_plane_create(struct vdisplay_device *vd,
					enum drm_plane_type type);

/* Encoder and connector */
int vdisplay_output_init(struct vdisplay_device *vd,
			 struct vdisplay_output *out);

#endif /* _VDISPLAY_DRV_H_ */

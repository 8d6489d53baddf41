// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - writeback connector
 *
 * Userspace attaches a framebuffer of the CRTC's size to the writeback
 * connector in a commit; the composer writes the first frame composed from
 * that commit's state into it and signals the job's out-fence.  The
 * framebuffer is vmapped from prepare_writeback_job until the core cleans
 * the job up after completion.
 */

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_print.h>
#include <drm/drm_probe_helper.h>
#include <drm/drm_writeback.h>

#include "vdisplay_drv.h"

/**
 * struct vdisplay_wb_map - mapping of a writeback job's framebuffer
 * @map: the GEM objects' mappings
 * @data: @map plus the framebuffer's offsets
 * @target: what the composer needs of it, queued while the job waits
 */
struct vdisplay_wb_map {
	struct iosys_map map[DRM_FORMAT_MAX_PLANES];
	struct iosys_map data[DRM_FORMAT_MAX_PLANES];
	struct vdisplay_wb_target target;
};

static int vdisplay_wb_encoder_atomic_check(struct drm_encoder *encoder,
					    struct drm_crtc_state *crtc_state,
					    struct drm_connector_state *conn_state)
{
	struct drm_framebuffer *fb;

	if (!conn_state->writeback_job || !conn_state->writeback_job->fb)
		return 0;
	fb = conn_state->writeback_job->fb;

	if (fb->width != crtc_state->mode.hdisplay ||
	    fb->height != crtc_state->mode.vdisplay) {
		drm_dbg_kms(encoder->dev, "writeback fb %ux%u, mode %ux%u\n",
			    fb->width, fb->height, crtc_state->mode.hdisplay,
			    crtc_state->mode.vdisplay);
		return -EINVAL;
	}

	if (vdisplay_wb_format_find(fb->format->format))
		return 0;
	drm_dbg_kms(encoder->dev, "writeback fb format %p4cc not supported\n",
		    &fb->format->format);
	return -EINVAL;
}

static const struct drm_encoder_helper_funcs vdisplay_wb_encoder_helper_funcs = {
	.atomic_check = vdisplay_wb_encoder_atomic_check,
};

static int vdisplay_wb_get_modes(struct drm_connector *connector)
{
	struct vdisplay_device *vd = to_vdisplay(connector->dev);

	return drm_add_modes_noedid(connector, vd->config.max_width,
				    vd->config.max_height);
}

static int vdisplay_wb_prepare_job(struct drm_writeback_connector *wb,
				   struct drm_writeback_job *job)
{
	struct vdisplay_wb_map *m;
	int ret;

	if (!job->fb)
		return 0;

	/* The frame this job waits for is composed into the image first. */
	ret = vdisplay_composer_reserve(wb_to_output(wb), job->fb->width,
					job->fb->height);
	if (ret)
		return ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;

	ret = drm_gem_fb_vmap(job->fb, m->map, m->data);
	if (ret) {
		kfree(m);
		return ret;
	}
	job->priv = m;
	return 0;
}

static void vdisplay_wb_cleanup_job(struct drm_writeback_connector *wb,
				    struct drm_writeback_job *job)
{
	struct vdisplay_wb_map *m = job->priv;

	if (!m)
		return;
	drm_gem_fb_vunmap(job->fb, m->map);
	kfree(m);
	job->priv = NULL;
}

static void vdisplay_wb_atomic_commit(struct drm_connector *connector,
				      struct drm_atomic_commit *state)
{
	struct drm_connector_state *conn_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct drm_writeback_connector *wb = drm_connector_to_writeback(connector);
	struct vdisplay_output *out = wb_to_output(wb);
	struct drm_writeback_job *job = conn_state->writeback_job;
	struct vdisplay_wb_target *target;
	struct vdisplay_wb_map *m;

	if (!job || !job->fb || !job->priv)
		return;
	m = job->priv;
	target = &m->target;
	target->vaddr = m->data[0].vaddr;
	target->fmt = vdisplay_wb_format_find(job->fb->format->format);
	target->pitch = job->fb->pitches[0];
	target->width = job->fb->width;
	target->height = job->fb->height;

	/*
	 * Writebacks are committed after the planes: the CRTC's flush has
	 * handed this commit's scene to the composer already.
	 */
	drm_writeback_queue_job(wb, conn_state);
	vdisplay_composer_arm_writeback(out, target);
}

static const struct drm_connector_helper_funcs vdisplay_wb_connector_helper_funcs = {
	.get_modes = vdisplay_wb_get_modes,
	.prepare_writeback_job = vdisplay_wb_prepare_job,
	.cleanup_writeback_job = vdisplay_wb_cleanup_job,
	.atomic_commit = vdisplay_wb_atomic_commit,
};

static const struct drm_connector_funcs vdisplay_wb_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.destroy = drm_connector_cleanup,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
};

int vdisplay_writeback_init(struct vdisplay_device *vd,
			    struct vdisplay_output *out)
{
	u32 formats[VDISPLAY_MAX_FORMATS];
	unsigned int nformats = vdisplay_wb_format_list(formats);

	drm_connector_helper_add(&out->wb.base,
				 &vdisplay_wb_connector_helper_funcs);

	/* The core keeps the list in a property blob: a copy. */
	return drm_writeback_connector_init(&vd->drm, &out->wb,
					    &vdisplay_wb_connector_funcs,
					    &vdisplay_wb_encoder_helper_funcs,
					    formats, nformats,
					    drm_crtc_mask(&out->crtc));
}

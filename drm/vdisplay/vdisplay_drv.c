// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - driver and device
 *
 * A display controller that exists only in software: atomic modesetting
 * on a virtual platform device, vblank from a timer, and scanout buffers
 * that are primebuf objects shared with other devices through PRIME.
 */

/**
 * DOC: vdisplay buffers and who holds them
 *
 * A dumb buffer is a primebuf object; its GEM handle holds a reference.
 * Exporting it creates one dma-buf, which holds a reference on the object
 * for as long as the dma-buf file lives; vrender's import of that fd
 * holds the dma-buf (and its attachment), so the object outlives the
 * handle as long as vrender renders into it.  A framebuffer holds its GEM
 * objects; a plane state holds its framebuffer; and from prepare_fb to
 * cleanup_fb the plane state holds a DMA mapping and a vmap of each
 * object, released when the state stops being current.  A buffer imported
 * from vrender is the reverse: vdisplay's GEM object holds the dma-buf and
 * its attachment, and the scanout's DMA mapping of that attachment is what
 * makes primebuf move the pages to contiguous memory when vdisplay has
 * contiguous=1.  The composer never holds a reference: it reads through
 * the plane states' vmaps under the output's compose_lock, and a commit
 * replaces its scene, then waits for that lock before it releases the
 * old states' mappings.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/slab.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_atomic_uapi.h>
#include <drm/drm_client.h>
#include <drm/drm_drv.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_modeset_helper.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include <primepair/compat.h>
#include <primepair/primebuf.h>

#include "vdisplay_drv.h"

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of vdisplay devices, each with the outputs below, 1 to 4 (default 1)");

static bool contiguous;
module_param(contiguous, bool, 0444);
MODULE_PARM_DESC(contiguous,
		 "Scan out only physically contiguous buffers, like a display controller without IOMMU (default false)");

static unsigned int outputs = 1;
module_param(outputs, uint, 0444);
MODULE_PARM_DESC(outputs, "Number of CRTCs, each with its connector, 1 to 4 (default 1)");

static bool cursor = true;
module_param(cursor, bool, 0444);
MODULE_PARM_DESC(cursor, "A cursor plane on each CRTC (default true)");

static unsigned int overlays = 1;
module_param(overlays, uint, 0444);
MODULE_PARM_DESC(overlays, "Overlay planes per CRTC, 0 to 4 (default 1)");

static bool writeback = true;
module_param(writeback, bool, 0444);
MODULE_PARM_DESC(writeback, "A writeback connector on each CRTC (default true)");

static unsigned int max_width = 1920;
module_param(max_width, uint, 0444);
MODULE_PARM_DESC(max_width, "Widest mode the connectors offer (default 1920)");

static unsigned int max_height = 1080;
module_param(max_height, uint, 0444);
MODULE_PARM_DESC(max_height, "Tallest mode the connectors offer (default 1080)");

static struct platform_device *vdisplay_devices[VDISPLAY_MAX_DEVICES];

DEFINE_DRM_GEM_FOPS(vdisplay_fops);

static const struct drm_driver vdisplay_driver = {
	.driver_features = DRIVER_MODESET | DRIVER_ATOMIC | DRIVER_GEM,
	.fops = &vdisplay_fops,
	.dumb_create = primebuf_dumb_create,
	.dumb_map_offset = primebuf_dumb_map_offset,
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import = primebuf_gem_prime_import,
	.name = VDISPLAY_DRIVER_NAME,
	.desc = "Virtual display-only KMS driver",
	PRIMEPAIR_DRIVER_DATE("20261203")
	.major = 1,
	.minor = 0,
};

/*
 * Every plane scans out the same formats, linear only.  Newer cores refuse
 * other modifiers at ADDFB2 on their own; 6.1 does not, and a framebuffer
 * accepted here would only fail at the modeset, too late for clients
 * (kmscube) that try modifiers first and fall back on -EINVAL.
 */
static struct drm_framebuffer *
vdisplay_fb_create(struct drm_device *dev, struct drm_file *file,
		   const struct drm_format_info *info,
		   const struct drm_mode_fb_cmd2 *cmd)
{
	if (!vdisplay_format_find(cmd->pixel_format))
		return ERR_PTR(-EINVAL);
	if ((cmd->flags & DRM_MODE_FB_MODIFIERS) &&
	    cmd->modifier[0] != DRM_FORMAT_MOD_LINEAR)
		return ERR_PTR(-EINVAL);
	return drm_gem_fb_create(dev, file, info, cmd);
}

PRIMEPAIR_DEFINE_FB_CREATE(vdisplay_fb_create)

/*
 * The helpers' default tail waits for a vblank with a 100 ms timeout that
 * WARNs, which a guest stalled by its host (TCG on a busy machine) runs
 * into.  Waiting for the commit's flip_done instead is what the commit
 * needs: the event goes out at the vblank that latches the new state, and
 * the composer already reads the new scene from the flush on, so the old
 * framebuffers can be released then.
 */
static void vdisplay_atomic_commit_tail(struct drm_atomic_commit *state)
{
	struct drm_device *dev = state->dev;

	drm_atomic_helper_commit_modeset_disables(dev, state);
	drm_atomic_helper_commit_planes(dev, state, 0);
	drm_atomic_helper_commit_modeset_enables(dev, state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(dev, state);
	drm_atomic_helper_cleanup_planes(dev, state);
}

static const struct drm_mode_config_helper_funcs vdisplay_mode_config_helpers = {
	.atomic_commit_tail = vdisplay_atomic_commit_tail,
};

/*
 * A CRTC that @state switches off takes its writeback connector off with
 * it, unless @state names that connector: then what the client asked for
 * stands, and the core judges it.
 *
 * The core refuses to switch off a CRTC that still has a connector, and
 * a client without DRM_CLIENT_CAP_WRITEBACK_CONNECTORS can neither see a
 * writeback connector nor detach it.  So a capture tool or a lessee that
 * dies with the writeback connector routed (SIGKILL), while the
 * compositor that is master lives on, would leave that compositor unable
 * to switch the output off; the restore at last close comes too late for
 * it.  A writeback connector has nothing to write from a CRTC that is
 * off, and only commits the core refused so far change: a commit that
 * switches a CRTC off without naming its writeback connector got EINVAL
 * and now succeeds with the connector off; one that names it is judged
 * as before.
 */
static int vdisplay_writeback_follow_crtc(struct drm_atomic_commit *state)
{
	struct drm_connector_state *conn_state;
	struct drm_crtc_state *crtc_state;
	struct drm_connector *connector;
	struct vdisplay_output *out;
	struct drm_crtc *crtc;
	int i, ret;

	for_each_new_crtc_in_state(state, crtc, crtc_state, i) {
		out = crtc_to_output(crtc);
		if (crtc_state->enable ||
		    !out->vd->config.crtcs[out->index].writeback)
			continue;
		connector = &out->wb.base;
		/*
		 * Not named by @state, the connector stays where it is, which
		 * the CRTC state's connector_mask tells under the CRTC's
		 * lock: add it to @state only when it is on this CRTC.
		 */
		if (drm_atomic_get_new_connector_state(state, connector) ||
		    !(crtc_state->connector_mask & drm_connector_mask(connector)))
			continue;
		conn_state = drm_atomic_get_connector_state(state, connector);
		if (IS_ERR(conn_state))
			return PTR_ERR(conn_state);
		ret = drm_atomic_set_crtc_for_connector(conn_state, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The helpers' check, after a CRTC switched off took its writeback
 * connector with it (vdisplay_writeback_follow_crtc()), and a legacy
 * cursor update that only shows or hides the cursor applied at once like
 * a cursor move (see vdisplay_cursor_toggle_async()).
 */
static int vdisplay_atomic_check(struct drm_device *dev,
				 struct drm_atomic_commit *state)
{
	int ret = vdisplay_writeback_follow_crtc(state);

	if (!ret)
		ret = drm_atomic_helper_check(dev, state);
	if (ret)
		return ret;
	if (state->legacy_cursor_update && !state->async_update)
		state->async_update = vdisplay_cursor_toggle_async(state);
	return 0;
}

/*
 * Every mode userspace hands in (legacy SETCRTC, an atomic MODE_ID blob)
 * and every probed one passes here after the core's own ordering checks.
 * The vblank timer is derived from the timings, so they must give a frame
 * time the timer can run: totals small enough that htotal * vtotal cannot
 * overflow on the way to the frame duration, and a refresh rate within
 * what a display offers.  The active area may be larger than the modes
 * the connectors list (userspace may make up a mode, such as 2560x1440
 * on a connector listing up to 1920x1080), up to the framebuffer limit.
 */
static enum drm_mode_status vdisplay_mode_valid(struct drm_device *dev,
						const struct drm_display_mode *mode)
{
	int refresh;

	if (mode->hdisplay > VDISPLAY_MAX_SIZE)
		return MODE_VIRTUAL_X;
	if (mode->vdisplay > VDISPLAY_MAX_SIZE)
		return MODE_VIRTUAL_Y;
	if (mode->htotal > VDISPLAY_MAX_TOTAL || mode->htotal < mode->hdisplay)
		return MODE_H_ILLEGAL;
	if (mode->vtotal > VDISPLAY_MAX_TOTAL || mode->vtotal < mode->vdisplay)
		return MODE_V_ILLEGAL;
	if (mode->clock <= 0)
		return MODE_CLOCK_LOW;
	/* Line repetition multiplies the totals behind the core's back. */
	if (mode->flags & DRM_MODE_FLAG_DBLSCAN)
		return MODE_NO_DBLESCAN;
	/*
	 * The composer makes whole frames.  Fields would also halve the
	 * timings the vblank timer runs on, after this check: a one-line
	 * interlaced mode leaves it a frame time of 0.
	 */
	if (mode->flags & DRM_MODE_FLAG_INTERLACE)
		return MODE_NO_INTERLACE;
	if (mode->vscan > 1)
		return MODE_NO_VSCAN;

	refresh = drm_mode_vrefresh(mode);
	if (refresh < VDISPLAY_MIN_REFRESH)
		return MODE_CLOCK_LOW;
	if (refresh > VDISPLAY_MAX_REFRESH)
		return MODE_CLOCK_HIGH;
	return MODE_OK;
}

static const struct drm_mode_config_funcs vdisplay_mode_config_funcs = {
	.fb_create = PRIMEPAIR_FB_CREATE(vdisplay_fb_create),
	.mode_valid = vdisplay_mode_valid,
	.atomic_check = vdisplay_atomic_check,
	.atomic_commit = drm_atomic_helper_commit,
};

/* The planes a CRTC can show */
static unsigned int vdisplay_crtc_planes(const struct vdisplay_config *config,
					 unsigned int crtc)
{
	unsigned int i, n = 0;

	for (i = 0; i < config->nplanes; i++)
		n += !!(config->planes[i].possible_crtcs & BIT(crtc));
	return n;
}

/**
 * vdisplay_config_check() - whether a device can be made of @config
 * @config: the configuration, from the module parameters or configfs
 *
 * Every CRTC needs exactly one primary plane and may have one cursor
 * plane, each of them feeding that CRTC alone; every plane, encoder and
 * connector must be able to reach something that exists.  What passes
 * here passes the DRM core's own topology checks, which WARN.
 *
 * Return: 0, or -EINVAL naming nothing: configfs reports it as is.
 */
int vdisplay_config_check(const struct vdisplay_config *config)
{
	u32 crtcs, encoders, primaries = 0, cursors = 0;
	unsigned int i;

	if (config->ncrtcs < 1 || config->ncrtcs > VDISPLAY_MAX_CRTCS ||
	    config->nplanes > VDISPLAY_MAX_PLANES ||
	    config->nencoders > VDISPLAY_MAX_ENCODERS ||
	    config->nconnectors > VDISPLAY_MAX_CONNECTORS ||
	    config->max_width < VDISPLAY_MIN_SIZE || config->max_width > VDISPLAY_MAX_SIZE ||
	    config->max_height < VDISPLAY_MIN_SIZE || config->max_height > VDISPLAY_MAX_SIZE)
		return -EINVAL;
	crtcs = GENMASK(config->ncrtcs - 1, 0);
	encoders = config->nencoders ? GENMASK(config->nencoders - 1, 0) : 0;

	for (i = 0; i < config->nplanes; i++) {
		u32 mask = config->planes[i].possible_crtcs;

		if (!mask || (mask & ~crtcs))
			return -EINVAL;
		switch (config->planes[i].type) {
		case DRM_PLANE_TYPE_OVERLAY:
			break;
		case DRM_PLANE_TYPE_PRIMARY:
			if (hweight32(mask) != 1 || (primaries & mask))
				return -EINVAL;
			primaries |= mask;
			break;
		case DRM_PLANE_TYPE_CURSOR:
			if (hweight32(mask) != 1 || (cursors & mask))
				return -EINVAL;
			cursors |= mask;
			break;
		default:
			return -EINVAL;
		}
	}
	if (primaries != crtcs)
		return -EINVAL;
	for (i = 0; i < config->ncrtcs; i++)
		if (vdisplay_crtc_planes(config, i) > VDISPLAY_MAX_LAYERS)
			return -EINVAL;

	for (i = 0; i < config->nencoders; i++) {
		u32 mask = config->encoders[i].possible_crtcs;

		if (!mask || (mask & ~crtcs))
			return -EINVAL;
	}
	for (i = 0; i < config->nconnectors; i++) {
		u32 mask = config->connectors[i].possible_encoders;

		if (!mask || (mask & ~encoders))
			return -EINVAL;
		if (config->connectors[i].edid_len &&
		    !vdisplay_edid_valid(config->connectors[i].edid,
					 config->connectors[i].edid_len))
			return -EINVAL;
	}
	return 0;
}

/*
 * Planes in configuration order.  zpos starts at 0 for a primary plane,
 * at the top of the range for a cursor, and in between, in order, for the
 * overlays that can share a CRTC.
 */
static int vdisplay_planes_init(struct vdisplay_device *vd)
{
	const struct vdisplay_config *config = &vd->config;
	unsigned int i, j, zpos, max_zpos = 0;
	struct drm_plane *plane;

	for (i = 0; i < config->ncrtcs; i++)
		max_zpos = max(max_zpos, vdisplay_crtc_planes(config, i) - 1);

	for (i = 0; i < config->nplanes; i++) {
		u32 mask = config->planes[i].possible_crtcs;
		enum drm_plane_type type = config->planes[i].type;

		if (type == DRM_PLANE_TYPE_PRIMARY) {
			zpos = 0;
		} else if (type == DRM_PLANE_TYPE_CURSOR) {
			zpos = max_zpos;
		} else {
			zpos = 1;
			for (j = 0; j < i; j++)
				if (config->planes[j].type == DRM_PLANE_TYPE_OVERLAY &&
				    (config->planes[j].possible_crtcs & mask))
					zpos++;
			zpos = min(zpos, max_zpos);
		}

		plane = vdisplay_plane_create(vd, mask, type, zpos, max_zpos);
		if (IS_ERR(plane))
			return PTR_ERR(plane);
		if (type == DRM_PLANE_TYPE_PRIMARY)
			vd->outputs[__ffs(mask)]->primary = plane;
		else if (type == DRM_PLANE_TYPE_CURSOR)
			vd->outputs[__ffs(mask)]->cursor = plane;
	}
	return 0;
}

static void vdisplay_output_free(struct drm_device *drm, void *ptr)
{
	kvfree(ptr);
}

/*
 * One allocation per CRTC the configuration asks for, rather than room
 * for the most CRTCs inside struct vdisplay_device: an output keeps two
 * copies of a frame with its LUTs, some 37 KB, and eight of them made the
 * device an order-7 allocation.
 *
 * An output embeds its CRTC and writeback connector, which the mode
 * config's own cleanup still reaches, so the outputs must be freed after
 * it.  Managed actions run in the reverse order of their registration:
 * register these before drmm_mode_config_init().
 */
static int vdisplay_outputs_alloc(struct vdisplay_device *vd)
{
	struct vdisplay_output *out;
	unsigned int i;
	int ret;

	for (i = 0; i < vd->config.ncrtcs; i++) {
		out = kvzalloc(sizeof(*out), GFP_KERNEL);
		if (!out)
			return -ENOMEM;
		ret = drmm_add_action_or_reset(&vd->drm, vdisplay_output_free,
					       out);
		if (ret)
			return ret;
		out->vd = vd;
		out->index = i;
		vd->outputs[i] = out;
	}
	return 0;
}

static int vdisplay_modeset_init(struct vdisplay_device *vd)
{
	struct drm_device *drm = &vd->drm;
	struct drm_encoder *encoder;
	u32 all_encoders = 0;
	unsigned int i;
	int ret;

	ret = vdisplay_outputs_alloc(vd);
	if (ret)
		return ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.funcs = &vdisplay_mode_config_funcs;
	drm->mode_config.helper_private = &vdisplay_mode_config_helpers;
	drm->mode_config.min_width = VDISPLAY_MIN_SIZE;
	drm->mode_config.min_height = VDISPLAY_MIN_SIZE;
	drm->mode_config.max_width = VDISPLAY_MAX_SIZE;
	drm->mode_config.max_height = VDISPLAY_MAX_SIZE;
	drm->mode_config.cursor_width = VDISPLAY_MAX_CURSOR;
	drm->mode_config.cursor_height = VDISPLAY_MAX_CURSOR;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.normalize_zpos = true;
	/* DRM_MODE_PAGE_FLIP_ASYNC, legacy and (6.8 on) atomic */
	drm->mode_config.async_page_flip = true;

	ret = vdisplay_planes_init(vd);
	if (ret)
		return ret;

	for (i = 0; i < vd->config.ncrtcs; i++) {
		ret = vdisplay_crtc_init(vd, vd->outputs[i]);
		if (ret)
			return ret;
	}

	ret = vdisplay_encoders_init(vd);
	if (ret)
		return ret;
	ret = vdisplay_connectors_init(vd);
	if (ret)
		return ret;

	for (i = 0; i < vd->config.ncrtcs; i++) {
		if (!vd->config.crtcs[i].writeback)
			continue;
		ret = vdisplay_writeback_init(vd, vd->outputs[i]);
		if (ret)
			return ret;
	}

	/*
	 * Any encoders may share a CRTC: the composer makes one image per
	 * CRTC, which every connector on it (a writeback one included) gets.
	 */
	drm_for_each_encoder(encoder, drm)
		all_encoders |= drm_encoder_mask(encoder);
	drm_for_each_encoder(encoder, drm)
		encoder->possible_clones = all_encoders;

	drm_mode_config_reset(drm);
	return 0;
}

/**
 * vdisplay_config_defaults() - what every device takes from the module
 * @config: the configuration to complete
 *
 * The largest mode without an EDID and the contiguity of scanout buffers
 * come from the module parameters, for configfs devices too.
 */
void vdisplay_config_defaults(struct vdisplay_config *config)
{
	config->max_width = max_width;
	config->max_height = max_height;
	config->contiguous = contiguous;
}

/* The device the module parameters describe: each output a CRTC with its
 * primary, overlays and cursor, one encoder and one connector.
 */
static int vdisplay_config_from_params(struct vdisplay_config *config)
{
	unsigned int i, j;

	if (devices < 1 || devices > VDISPLAY_MAX_DEVICES ||
	    outputs < 1 || outputs > VDISPLAY_MAX_OUTPUTS ||
	    overlays > VDISPLAY_MAX_OVERLAYS)
		return -EINVAL;

	for (i = 0; i < outputs; i++) {
		config->crtcs[config->ncrtcs++].writeback = writeback;
		config->planes[config->nplanes].type = DRM_PLANE_TYPE_PRIMARY;
		config->planes[config->nplanes++].possible_crtcs = BIT(i);
		for (j = 0; j < overlays; j++) {
			config->planes[config->nplanes].type = DRM_PLANE_TYPE_OVERLAY;
			config->planes[config->nplanes++].possible_crtcs = BIT(i);
		}
		if (cursor) {
			config->planes[config->nplanes].type = DRM_PLANE_TYPE_CURSOR;
			config->planes[config->nplanes++].possible_crtcs = BIT(i);
		}
		config->encoders[config->nencoders++].possible_crtcs = BIT(i);
		config->connectors[config->nconnectors].connected = true;
		config->connectors[config->nconnectors++].possible_encoders = BIT(i);
	}
	vdisplay_config_defaults(config);
	return vdisplay_config_check(config);
}

static int vdisplay_constraints_init(struct device *dev, bool contiguous)
{
	struct primebuf_constraints c = {
		.dma_mask = DMA_BIT_MASK(64),
		.max_segment_size = UINT_MAX,
		.segment_boundary_mask = ULONG_MAX,
		.contiguous = contiguous,
	};
	int ret;

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	/*
	 * The DMA API checks every mapping against these: say what the
	 * constraints say, not the 64 KiB segments of a device that sets
	 * nothing.
	 */
	dma_set_max_seg_size(dev, c.max_segment_size);
	dma_set_seg_boundary(dev, c.segment_boundary_mask);
	return primebuf_register_device(dev, &c);
}

/* ----------------------------------------------------------------------
 * The platform driver
 *
 * The module creates platform device "vdisplay.<index>" for each device,
 * with the module parameters as its platform data, and binds them through
 * a real driver: a device can be unbound and bound again in sysfs
 * (/sys/bus/platform/drivers/vdisplay/), and it takes part in system
 * suspend.  All devices share the parameters; each has its own DRM
 * device, composer queue and DMA constraints, so buffers pass between
 * them only through PRIME, as between two display controllers.
 */

static void vdisplay_teardown(struct vdisplay_device *vd)
{
	unsigned int i;

	/*
	 * Vblank is off everywhere; wait for a timer handler that may still
	 * run, then nothing queues composer work any more.
	 */
	for (i = 0; i < vd->config.ncrtcs; i++)
		hrtimer_cancel(&vd->outputs[i]->vblank_timer);
	destroy_workqueue(vd->composer_wq);
	for (i = 0; i < VDISPLAY_MAX_CRTCS; i++)
		vdisplay_composer_fini(vd->outputs[i]);
	/*
	 * A GETCONNECTOR that passed the core's unplugged check before the
	 * unplug may still be probing the connectors, under this mutex.
	 */
	mutex_lock(&vd->drm.mode_config.mutex);
	vdisplay_connectors_fini(vd);
	mutex_unlock(&vd->drm.mode_config.mutex);
	/* The outputs are off: no mapping of ours is in use. */
	primebuf_device_unmap_all(&vd->pdev->dev);
	primebuf_unregister_device(&vd->pdev->dev);
}

#ifdef PRIMEPAIR_HAVE_DRM_CLIENT
/*
 * Detach, in @state, every writeback connector attached to a CRTC, and
 * switch off a CRTC that only a writeback connector kept on.  Returns
 * whether @state changes anything, or a negative errno.
 */
static int vdisplay_detach_writeback(struct drm_atomic_commit *state)
{
	struct drm_connector_state *conn_state;
	struct drm_connector_list_iter iter;
	struct drm_plane_state *plane_state;
	struct drm_crtc_state *crtc_state;
	struct drm_connector *connector;
	struct drm_plane *plane;
	struct drm_crtc *crtc;
	int ret = 0, changed = 0;

	drm_connector_list_iter_begin(state->dev, &iter);
	drm_for_each_connector_iter(connector, &iter) {
		if (connector->connector_type != DRM_MODE_CONNECTOR_WRITEBACK)
			continue;
		conn_state = drm_atomic_get_connector_state(state, connector);
		if (IS_ERR(conn_state)) {
			ret = PTR_ERR(conn_state);
			break;
		}
		crtc = conn_state->crtc;
		if (!crtc)
			continue;
		/* The CRTC's state first: detaching updates its mask. */
		crtc_state = drm_atomic_get_crtc_state(state, crtc);
		if (IS_ERR(crtc_state)) {
			ret = PTR_ERR(crtc_state);
			break;
		}
		ret = drm_atomic_set_crtc_for_connector(conn_state, NULL);
		if (ret)
			break;
		changed = 1;
		if (crtc_state->connector_mask)
			continue;

		ret = drm_atomic_set_mode_for_crtc(crtc_state, NULL);
		if (ret)
			break;
		crtc_state->active = false;
		ret = drm_atomic_add_affected_planes(state, crtc);
		if (ret)
			break;
		drm_for_each_plane_mask(plane, state->dev, crtc_state->plane_mask) {
			plane_state = drm_atomic_get_plane_state(state, plane);
			if (IS_ERR(plane_state)) {
				ret = PTR_ERR(plane_state);
				break;
			}
			ret = drm_atomic_set_crtc_for_plane(plane_state, NULL);
			if (ret)
				break;
			drm_atomic_set_fb_for_plane(plane_state, NULL);
		}
		if (ret)
			break;
	}
	drm_connector_list_iter_end(&iter);
	return ret ?: changed;
}

/*
 * The last file of the device has closed.  A writeback connector still
 * attached to a CRTC can serve no one now: its jobs came from those files.
 * It is also in the way of the next client: one without
 * DRM_CLIENT_CAP_WRITEBACK_CONNECTORS does not see it, so cannot detach
 * it, and the core refuses to switch off a CRTC that still has a
 * connector.  A test program that dies in the middle of a capture would
 * leave every later one unable to switch the output off.  So detach the
 * writeback connectors, as fbdev emulation's restore does on drivers that
 * have it; the other outputs stay as the last client left them.
 *
 * @force asks a client to restore over a DRM master, for a console to
 * show something in an emergency.  This client has nothing to show, so it
 * never acts over a master: the connectors are then the master's.
 */
static int vdisplay_client_restore(struct drm_client_dev *client, bool force)
{
	struct drm_device *drm = client->dev;
	struct drm_modeset_acquire_ctx ctx;
	struct drm_atomic_commit *state;
	int ret, idx;

	if (!drm_dev_enter(drm, &idx))
		return -ENODEV;
	/* A file opened since is master and owns the display now. */
	mutex_lock(&drm->master_mutex);
	if (drm->master) {
		ret = -EBUSY;
		goto out_unlock;
	}

	drm_modeset_acquire_init(&ctx, 0);
	state = drm_atomic_commit_alloc(drm);
	if (!state) {
		ret = -ENOMEM;
		goto out_fini;
	}
	state->acquire_ctx = &ctx;
retry:
	ret = vdisplay_detach_writeback(state);
	if (ret > 0)
		ret = primepair_atomic_commit(state);
	if (ret == -EDEADLK) {
		drm_atomic_commit_clear(state);
		drm_modeset_backoff(&ctx);
		goto retry;
	}
	drm_atomic_commit_put(state);
out_fini:
	drm_modeset_drop_locks(&ctx);
	drm_modeset_acquire_fini(&ctx);
out_unlock:
	mutex_unlock(&drm->master_mutex);
	drm_dev_exit(idx);
	return ret;
}

PRIMEPAIR_DEFINE_CLIENT_RESTORE(vdisplay_client_restore)

/*
 * Called as the device is unregistered.  Without this callback the core
 * of 6.1 and 6.12 would kfree() the client, which is part of struct
 * vdisplay_device.
 */
static void vdisplay_client_unregister(struct drm_client_dev *client)
{
	drm_client_release(client);
}

static const struct drm_client_funcs vdisplay_client_funcs = {
	.unregister = vdisplay_client_unregister,
	.restore = PRIMEPAIR_CLIENT_RESTORE(vdisplay_client_restore),
};

static void vdisplay_client_init(struct vdisplay_device *vd)
{
	int ret;

	/* Released as drm_dev_unregister() unregisters the clients */
	ret = drm_client_init(&vd->drm, &vd->client, "vdisplay",
			      &vdisplay_client_funcs);
	if (ret) {
		drm_err(&vd->drm, "no client to tidy up at last close: %d\n", ret);
		return;
	}
	drm_client_register(&vd->client);
}
#else
/* The kernel has no in-kernel clients: nothing runs at last close. */
static void vdisplay_client_init(struct vdisplay_device *vd)
{
}
#endif

static int vdisplay_probe(struct platform_device *pdev)
{
	const struct vdisplay_config *config = dev_get_platdata(&pdev->dev);
	struct vdisplay_device *vd;
	unsigned int i;
	int ret;

	if (!config || vdisplay_config_check(config))
		return -EINVAL;

	vd = devm_drm_dev_alloc(&pdev->dev, &vdisplay_driver,
				struct vdisplay_device, drm);
	if (IS_ERR(vd))
		return PTR_ERR(vd);
	vd->pdev = pdev;
	vd->config = *config;

	vd->composer_wq = alloc_ordered_workqueue("vdisplay.%d", 0, pdev->id);
	if (!vd->composer_wq)
		return -ENOMEM;

	ret = vdisplay_constraints_init(&pdev->dev, config->contiguous);
	if (ret)
		goto out_destroy_wq;

	ret = vdisplay_modeset_init(vd);
	if (ret)
		goto out_unregister_constraints;

	ret = drm_vblank_init(&vd->drm, config->ncrtcs);
	if (ret)
		goto out_unregister_constraints;

	platform_set_drvdata(pdev, vd);
	ret = drm_dev_register(&vd->drm, 0);
	if (ret)
		goto out_clear_drvdata;
	vdisplay_client_init(vd);
	return 0;

out_clear_drvdata:
	platform_set_drvdata(pdev, NULL);
out_unregister_constraints:
	primebuf_unregister_device(&pdev->dev);
out_destroy_wq:
	destroy_workqueue(vd->composer_wq);
	for (i = 0; i < VDISPLAY_MAX_CRTCS; i++)
		vdisplay_composer_fini(vd->outputs[i]);
	vdisplay_connectors_fini(vd);
	return ret;
}

/*
 * Unbinding unplugs the DRM device: open files get -ENODEV from then on,
 * while their buffers, and the dma-bufs exported from them, live until
 * their last user lets go (they are system memory, not the device's).
 */
static void vdisplay_remove(struct platform_device *pdev)
{
	struct vdisplay_device *vd = platform_get_drvdata(pdev);

	drm_dev_unplug(&vd->drm);
	drm_atomic_helper_shutdown(&vd->drm);
	vdisplay_teardown(vd);
}

static void vdisplay_shutdown(struct platform_device *pdev)
{
	struct vdisplay_device *vd = platform_get_drvdata(pdev);

	drm_atomic_helper_shutdown(&vd->drm);
}

/*
 * Suspend switches the outputs off through an atomic commit, which ends
 * every vblank timer, composition and writeback; resume commits the saved
 * state again.  Buffers are system memory and keep their contents.
 */
static int vdisplay_pm_suspend(struct device *dev)
{
	struct vdisplay_device *vd = dev_get_drvdata(dev);

	return drm_mode_config_helper_suspend(&vd->drm);
}

static int vdisplay_pm_resume(struct device *dev)
{
	struct vdisplay_device *vd = dev_get_drvdata(dev);

	return drm_mode_config_helper_resume(&vd->drm);
}

static DEFINE_SIMPLE_DEV_PM_OPS(vdisplay_pm_ops, vdisplay_pm_suspend,
				vdisplay_pm_resume);

static struct platform_driver vdisplay_platform_driver = {
	.probe = vdisplay_probe,
	.primepair_platform_remove = vdisplay_remove,
	.shutdown = vdisplay_shutdown,
	.driver = {
		.name = VDISPLAY_DRIVER_NAME,
		.pm = pm_sleep_ptr(&vdisplay_pm_ops),
	},
};

/**
 * vdisplay_device_create() - create and bind one vdisplay device
 * @id: its platform device id ("vdisplay.<id>")
 * @config: what it is made of, checked by vdisplay_config_check(); copied
 *
 * Return: the platform device, bound to the driver, or an ERR_PTR: the
 * probe's error, -ENODEV when it did not bind.
 */
struct platform_device *vdisplay_device_create(int id,
					       const struct vdisplay_config *config)
{
	struct platform_device *pdev;

	/* The driver is registered: the device is probed right here. */
	pdev = platform_device_register_data(NULL, VDISPLAY_DRIVER_NAME, id,
					     config, sizeof(*config));
	if (IS_ERR(pdev))
		return pdev;
	if (!platform_get_drvdata(pdev)) {
		platform_device_unregister(pdev);
		return ERR_PTR(-ENODEV);
	}
	return pdev;
}

/**
 * vdisplay_device_destroy() - unplug and remove a device
 * @pdev: from vdisplay_device_create()
 *
 * Open files and the buffers they share stay valid, see vdisplay_remove().
 */
void vdisplay_device_destroy(struct platform_device *pdev)
{
	platform_device_unregister(pdev);
}

static void vdisplay_destroy_all(void)
{
	int i;

	for (i = VDISPLAY_MAX_DEVICES - 1; i >= 0; i--) {
		if (vdisplay_devices[i])
			vdisplay_device_destroy(vdisplay_devices[i]);
		vdisplay_devices[i] = NULL;
	}
}

static int __init vdisplay_init(void)
{
	struct vdisplay_config *config;
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	vdisplay_colorop_tables_init();

	config = kzalloc(sizeof(*config), GFP_KERNEL);
	if (!config)
		return -ENOMEM;
	ret = vdisplay_config_from_params(config);
	if (ret) {
		pr_err("vdisplay: module parameter out of range\n");
		goto out_free;
	}

	ret = platform_driver_register(&vdisplay_platform_driver);
	if (ret)
		goto out_free;

	for (i = 0; i < devices; i++) {
		pdev = vdisplay_device_create(i, config);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto out_destroy;
		}
		vdisplay_devices[i] = pdev;
	}

	ret = vdisplay_configfs_register();
	if (ret)
		goto out_destroy;
	kfree(config);
	return 0;

out_destroy:
	vdisplay_destroy_all();
	platform_driver_unregister(&vdisplay_platform_driver);
out_free:
	kfree(config);
	return ret;
}

static void __exit vdisplay_exit(void)
{
	/* No configfs device is left: each holds a reference on the module. */
	vdisplay_configfs_unregister();
	vdisplay_destroy_all();
	platform_driver_unregister(&vdisplay_platform_driver);
}

module_init(vdisplay_init);
module_exit(vdisplay_exit);

MODULE_DESCRIPTION("Virtual display-only KMS driver sharing buffers via PRIME");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("PRIMEBUF");

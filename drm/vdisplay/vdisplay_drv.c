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
 * the current plane states' vmaps under the output's compose_lock, and a
 * commit replaces its scene before releasing the old states.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>

#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
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
 * The helpers' check, and a legacy cursor update that only shows or hides
 * the cursor applied at once like a cursor move (see
 * vdisplay_cursor_toggle_async()).
 */
static int vdisplay_atomic_check(struct drm_device *dev,
				 struct drm_atomic_commit *state)
{
	int ret = drm_atomic_helper_check(dev, state);

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
 * what a display offers.  The active area may not exceed what the
 * connectors advertise.
 */
static enum drm_mode_status vdisplay_mode_valid(struct drm_device *dev,
						const struct drm_display_mode *mode)
{
	struct vdisplay_device *vd = to_vdisplay(dev);
	int refresh;

	if (mode->hdisplay > vd->config.max_width)
		return MODE_VIRTUAL_X;
	if (mode->vdisplay > vd->config.max_height)
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

static int vdisplay_output_create(struct vdisplay_device *vd,
				  unsigned int index)
{
	struct vdisplay_output *out = &vd->outputs[index];
	unsigned int i, zpos = 0;
	struct drm_plane *plane;
	int ret;

	out->vd = vd;
	out->index = index;

	out->primary = vdisplay_plane_create(vd, index, DRM_PLANE_TYPE_PRIMARY,
					     zpos++);
	if (IS_ERR(out->primary))
		return PTR_ERR(out->primary);

	for (i = 0; i < vd->config.overlays; i++) {
		plane = vdisplay_plane_create(vd, index,
					      DRM_PLANE_TYPE_OVERLAY, zpos++);
		if (IS_ERR(plane))
			return PTR_ERR(plane);
	}

	if (vd->config.cursor) {
		out->cursor = vdisplay_plane_create(vd, index,
						    DRM_PLANE_TYPE_CURSOR,
						    zpos);
		if (IS_ERR(out->cursor))
			return PTR_ERR(out->cursor);
	}

	ret = vdisplay_crtc_init(vd, out);
	if (ret)
		return ret;

	ret = vdisplay_output_init(vd, out);
	if (ret)
		return ret;

	if (!vd->config.writeback)
		return 0;

	ret = vdisplay_writeback_init(vd, out);
	if (ret)
		return ret;

	/* The writeback connector captures what the connector shows. */
	out->encoder.possible_clones = drm_encoder_mask(&out->encoder) |
				       drm_encoder_mask(&out->wb.encoder);
	out->wb.encoder.possible_clones = out->encoder.possible_clones;
	return 0;
}

static int vdisplay_modeset_init(struct vdisplay_device *vd)
{
	struct drm_device *drm = &vd->drm;
	unsigned int i;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.funcs = &vdisplay_mode_config_funcs;
	drm->mode_config.helper_private = &vdisplay_mode_config_helpers;
	drm->mode_config.min_width = VDISPLAY_MIN_SIZE;
	drm->mode_config.min_height = VDISPLAY_MIN_SIZE;
	drm->mode_config.max_width = 8192;
	drm->mode_config.max_height = 8192;
	drm->mode_config.preferred_depth = 24;
	drm->mode_config.normalize_zpos = true;

	for (i = 0; i < vd->config.outputs; i++) {
		ret = vdisplay_output_create(vd, i);
		if (ret)
			return ret;
	}

	drm_mode_config_reset(drm);
	return 0;
}

static int vdisplay_config_init(struct vdisplay_config *config)
{
	if (devices < 1 || devices > VDISPLAY_MAX_DEVICES ||
	    outputs < 1 || outputs > VDISPLAY_MAX_OUTPUTS ||
	    overlays > VDISPLAY_MAX_OVERLAYS ||
	    max_width < VDISPLAY_MIN_SIZE || max_width > 8192 ||
	    max_height < VDISPLAY_MIN_SIZE || max_height > 8192)
		return -EINVAL;

	config->outputs = outputs;
	config->overlays = overlays;
	config->cursor = cursor;
	config->writeback = writeback;
	config->max_width = max_width;
	config->max_height = max_height;
	config->contiguous = contiguous;
	return 0;
}

static int vdisplay_constraints_init(struct device *dev)
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
	for (i = 0; i < vd->config.outputs; i++)
		hrtimer_cancel(&vd->outputs[i].vblank_timer);
	destroy_workqueue(vd->composer_wq);
	for (i = 0; i < VDISPLAY_MAX_OUTPUTS; i++)
		vdisplay_composer_fini(&vd->outputs[i]);
	primebuf_unregister_device(&vd->pdev->dev);
}

static int vdisplay_probe(struct platform_device *pdev)
{
	const struct vdisplay_config *config = dev_get_platdata(&pdev->dev);
	struct vdisplay_device *vd;
	unsigned int i;
	int ret;

	if (!config)
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

	ret = vdisplay_constraints_init(&pdev->dev);
	if (ret)
		goto out_destroy_wq;

	ret = vdisplay_modeset_init(vd);
	if (ret)
		goto out_unregister_constraints;

	ret = drm_vblank_init(&vd->drm, config->outputs);
	if (ret)
		goto out_unregister_constraints;

	platform_set_drvdata(pdev, vd);
	ret = drm_dev_register(&vd->drm, 0);
	if (ret)
		goto out_clear_drvdata;
	return 0;

out_clear_drvdata:
	platform_set_drvdata(pdev, NULL);
out_unregister_constraints:
	primebuf_unregister_device(&pdev->dev);
out_destroy_wq:
	destroy_workqueue(vd->composer_wq);
	for (i = 0; i < VDISPLAY_MAX_OUTPUTS; i++)
		vdisplay_composer_fini(&vd->outputs[i]);
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

static void vdisplay_destroy_all(void)
{
	int i;

	for (i = VDISPLAY_MAX_DEVICES - 1; i >= 0; i--) {
		if (vdisplay_devices[i])
			platform_device_unregister(vdisplay_devices[i]);
		vdisplay_devices[i] = NULL;
	}
}

static int __init vdisplay_init(void)
{
	struct vdisplay_config config;
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	ret = vdisplay_config_init(&config);
	if (ret) {
		pr_err("vdisplay: module parameter out of range\n");
		return ret;
	}

	ret = platform_driver_register(&vdisplay_platform_driver);
	if (ret)
		return ret;

	for (i = 0; i < devices; i++) {
		/* The driver is registered: the device is probed right here. */
		pdev = platform_device_register_data(NULL, VDISPLAY_DRIVER_NAME,
						     i, &config, sizeof(config));
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto out_destroy;
		}
		vdisplay_devices[i] = pdev;
		if (!platform_get_drvdata(pdev)) {
			ret = -ENODEV;
			goto out_destroy;
		}
	}
	return 0;

out_destroy:
	vdisplay_destroy_all();
	platform_driver_unregister(&vdisplay_platform_driver);
	return ret;
}

static void __exit vdisplay_exit(void)
{
	vdisplay_destroy_all();
	platform_driver_unregister(&vdisplay_platform_driver);
}

module_init(vdisplay_init);
module_exit(vdisplay_exit);

MODULE_DESCRIPTION("Virtual display-only KMS driver sharing buffers via PRIME");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("PRIMEBUF");

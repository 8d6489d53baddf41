// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - driver and device
 *
 * A display controller that exists only in software: atomic modesetting
 * on a virtual platform device, vblank from a timer, and scanout buffers
 * that are primebuf objects shared with other devices through PRIME.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_framebuffer_helper.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_prime.h>
#include <drm/drm_vblank.h>

#include <primepair/primebuf.h>

#include "vdisplay_drv.h"

static bool contiguous;
module_param(contiguous, bool, 0444);
MODULE_PARM_DESC(contiguous,
		 "Scan out only physically contiguous buffers, like a display controller without IOMMU (default false)");

static struct vdisplay_device *vdisplay;

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
	.date = "20261203",
	.major = 1,
	.minor = 0,
};

static const struct drm_mode_config_funcs vdisplay_mode_config_funcs = {
	.fb_create = drm_gem_fb_create,
	.atomic_check = drm_atomic_helper_check,
	.atomic_commit = drm_atomic_helper_commit,
};

static int vdisplay_modeset_init(struct vdisplay_device *vd)
{
	struct drm_device *drm = &vd->drm;
	struct vdisplay_output *out = &vd->output;
	int ret;

	ret = drmm_mode_config_init(drm);
	if (ret)
		return ret;
	drm->mode_config.funcs = &vdisplay_mode_config_funcs;
	drm->mode_config.min_width = VDISPLAY_MIN_SIZE;
	drm->mode_config.min_height = VDISPLAY_MIN_SIZE;
	drm->mode_config.max_width = 8192;
	drm->mode_config.max_height = 8192;
	drm->mode_config.preferred_depth = 24;

	out->primary = vdisplay_plane_create(vd, DRM_PLANE_TYPE_PRIMARY);
	if (IS_ERR(out->primary))
		return PTR_ERR(out->primary);

	ret = vdisplay_crtc_init(vd, out);
	if (ret)
		return ret;

	ret = vdisplay_output_init(vd, out);
	if (ret)
		return ret;

	drm_mode_config_reset(drm);
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

static int __init vdisplay_init(void)
{
	struct platform_device *pdev;
	struct vdisplay_device *vd;
	int ret;

	pdev = platform_device_register_simple(VDISPLAY_DRIVER_NAME, -1,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto out_unregister_pdev;
	}

	vd = devm_drm_dev_alloc(&pdev->dev, &vdisplay_driver,
				struct vdisplay_device, drm);
	if (IS_ERR(vd)) {
		ret = PTR_ERR(vd);
		goto out_release_group;
	}
	vd->pdev = pdev;

	ret = vdisplay_constraints_init(&pdev->dev);
	if (ret)
		goto out_release_group;

	ret = vdisplay_modeset_init(vd);
	if (ret)
		goto out_unregister_constraints;

	ret = drm_vblank_init(&vd->drm, 1);
	if (ret)
		goto out_unregister_constraints;

	ret = drm_dev_register(&vd->drm, 0);
	if (ret)
		goto out_unregister_constraints;

	vdisplay = vd;
	return 0;

out_unregister_constraints:
	primebuf_unregister_device(&pdev->dev);
out_release_group:
	devres_release_group(&pdev->dev, NULL);
out_unregister_pdev:
	platform_device_unregister(pdev);
	return ret;
}

static void __exit vdisplay_exit(void)
{
	struct platform_device *pdev = vdisplay->pdev;

	drm_dev_unplug(&vdisplay->drm);
	drm_atomic_helper_shutdown(&vdisplay->drm);
	primebuf_unregister_device(&pdev->dev);
	devres_release_group(&pdev->dev, NULL);
	platform_device_unregister(pdev);
}

module_init(vdisplay_init);
module_exit(vdisplay_exit);

MODULE_DESCRIPTION("Virtual display-only KMS driver sharing buffers via PRIME");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(PRIMEBUF);

// SPDX-License-Identifier: GPL-2.0
/*
 * vrender - driver, instances and their DMA constraints
 *
 * Each instance is a render node on its own virtual platform device,
 * "vrender.<index>", bound by the platform driver "vrender": it can be
 * unbound and bound again in sysfs (/sys/bus/platform/drivers/vrender/).
 * The module parameters give every instance its DMA constraints, which it
 * declares to primebuf: exporters then have importers with different
 * needs to negotiate with.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/pm.h>

#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_prime.h>

#include <uapi/drm/vrender_drm.h>

#include "vrender_drv.h"

static unsigned int instances = 1;
module_param(instances, uint, 0444);
MODULE_PARM_DESC(instances, "Number of vrender devices, 1 to 4 (default 1)");

static unsigned int dma_bits[VRENDER_MAX_INSTANCES] = { 64, 64, 64, 64 };
module_param_array(dma_bits, uint, NULL, 0444);
MODULE_PARM_DESC(dma_bits, "DMA mask width per instance, 32 to 64 (default 64)");

static unsigned int max_segment[VRENDER_MAX_INSTANCES] = {
	UINT_MAX, UINT_MAX, UINT_MAX, UINT_MAX
};
module_param_array(max_segment, uint, NULL, 0444);
MODULE_PARM_DESC(max_segment, "Largest DMA segment per instance in bytes, at least 4096 (default 4294967295)");

static unsigned long segment_boundary[VRENDER_MAX_INSTANCES] = {
	ULONG_MAX, ULONG_MAX, ULONG_MAX, ULONG_MAX
};
module_param_array(segment_boundary, ulong, NULL, 0444);
MODULE_PARM_DESC(segment_boundary, "DMA segment boundary mask per instance, 2^n-1 and at least 4095 (default all ones)");

static bool contiguous[VRENDER_MAX_INSTANCES];
module_param_array(contiguous, bool, NULL, 0444);
MODULE_PARM_DESC(contiguous, "Instance takes one contiguous segment per mapping (default false)");

unsigned int vrender_job_timeout_ms = 10000;
module_param_named(job_timeout_ms, vrender_job_timeout_ms, uint, 0644);
MODULE_PARM_DESC(job_timeout_ms, "Time a job may wait for its dependencies, and then run, in ms; at least 1 (default 10000)");

unsigned long long vrender_engine_speed;
module_param_named(engine_speed, vrender_engine_speed, ullong, 0644);
MODULE_PARM_DESC(engine_speed, "Simulated engine speed in bytes of rectangles per second, 0 for unlimited (default 0)");

unsigned int vrender_job_latency_us;
module_param_named(job_latency_us, vrender_job_latency_us, uint, 0644);
MODULE_PARM_DESC(job_latency_us, "Simulated time every job takes before its commands, in us (default 0)");

unsigned int vrender_job_release_delay_us;
module_param_named(job_release_delay_us, vrender_job_release_delay_us, uint, 0644);
MODULE_PARM_DESC(job_release_delay_us, "Time a finished job keeps its buffers mapped before it is released, as on a loaded system, in us, at most 1000000 (default 0)");

static struct platform_device *vrender_pdevs[VRENDER_MAX_INSTANCES];

static const struct drm_ioctl_desc vrender_ioctls[] = {
	DRM_IOCTL_DEF_DRV(VRENDER_GET_PARAM, vrender_ioctl_get_param,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VRENDER_BO_CREATE, vrender_ioctl_bo_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VRENDER_BO_MMAP_OFFSET, vrender_ioctl_bo_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VRENDER_BO_INFO, vrender_ioctl_bo_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VRENDER_SUBMIT, vrender_ioctl_submit,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(VRENDER_BO_WAIT, vrender_ioctl_bo_wait,
			  DRM_RENDER_ALLOW),
};

DEFINE_DRM_GEM_FOPS(vrender_fops);

static int vrender_open(struct drm_device *dev, struct drm_file *file)
{
	return vrender_file_open(to_vrender(dev), file);
}

static void vrender_postclose(struct drm_device *dev, struct drm_file *file)
{
	vrender_file_close(file);
}

static const struct drm_driver vrender_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.ioctls = vrender_ioctls,
	.num_ioctls = ARRAY_SIZE(vrender_ioctls),
	.fops = &vrender_fops,
	.open = vrender_open,
	.postclose = vrender_postclose,
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,
	.gem_prime_import = primebuf_gem_prime_import,
	.name = VRENDER_DRIVER_NAME,
	.desc = "Virtual render-only driver",
	PRIMEPAIR_DRIVER_DATE("20261203")
	.major = 1,
	.minor = 0,
};

static int vrender_check_params(unsigned int i)
{
	unsigned long b = segment_boundary[i];

	if (dma_bits[i] < 32 || dma_bits[i] > 64)
		return -EINVAL;
	if (max_segment[i] < PAGE_SIZE)
		return -EINVAL;
	if (b < PAGE_SIZE - 1 || (b & (b + 1)))
		return -EINVAL;
	return 0;
}

static int vrender_dma_init(struct vrender_device *vr)
{
	struct device *dev = &vr->pdev->dev;
	unsigned int i = vr->index;
	int ret;

	/* What the DMA API (and its debugging) checks every mapping against */
	dma_set_max_seg_size(dev, max_segment[i]);
	dma_set_seg_boundary(dev, segment_boundary[i]);
	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(dma_bits[i]));
	if (ret)
		return ret;

	vr->constraints.dma_mask = DMA_BIT_MASK(dma_bits[i]);
	vr->constraints.max_segment_size = max_segment[i];
	vr->constraints.segment_boundary_mask = segment_boundary[i];
	vr->constraints.contiguous = contiguous[i];
	return primebuf_register_device(dev, &vr->constraints);
}

static int vrender_probe(struct platform_device *pdev)
{
	struct vrender_device *vr;
	int ret;

	if (pdev->id < 0 || pdev->id >= VRENDER_MAX_INSTANCES)
		return -EINVAL;

	vr = devm_drm_dev_alloc(&pdev->dev, &vrender_driver,
				struct vrender_device, drm);
	if (IS_ERR(vr))
		return PTR_ERR(vr);
	vr->pdev = pdev;
	vr->index = pdev->id;

	/* The engines go with the DRM device, after its last file. */
	ret = vrender_engine_init(vr);
	if (ret)
		return ret;

	ret = vrender_dma_init(vr);
	if (ret)
		return ret;

	platform_set_drvdata(pdev, vr);
	ret = drm_dev_register(&vr->drm, 0);
	if (ret)
		goto out_unregister_constraints;
	return 0;

out_unregister_constraints:
	platform_set_drvdata(pdev, NULL);
	primebuf_unregister_device(&pdev->dev);
	return ret;
}

/*
 * Unbinding unplugs the DRM device: every ioctl and new mmap of its open
 * files fails with -ENODEV from then on.  The jobs queued before still
 * run, and their fences signal; unbinding returns once they are freed,
 * so the device has no DMA mapping left.  The files' buffers, and the
 * dma-bufs exported from them, live until their last user lets go.
 */
static void vrender_remove(struct platform_device *pdev)
{
	struct vrender_device *vr = platform_get_drvdata(pdev);

	drm_dev_unplug(&vr->drm);
	vrender_engine_quiesce(vr);
	/* Those kept between jobs go too: no job will use them again. */
	primebuf_device_unmap_all(&pdev->dev);
	primebuf_unregister_device(&pdev->dev);
}

/*
 * System sleep: suspend stops the engines (no job starts, the running
 * ones finish) and fails with -EBUSY if one is still busy after
 * job_timeout_ms; resume starts the jobs that waited.  Buffers live in
 * system memory and fences stay where they are: there is nothing to
 * save or restore.
 */
static int vrender_pm_suspend(struct device *dev)
{
	struct vrender_device *vr = dev_get_drvdata(dev);

	return vrender_engine_suspend(vr);
}

static int vrender_pm_resume(struct device *dev)
{
	struct vrender_device *vr = dev_get_drvdata(dev);

	vrender_engine_resume(vr);
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(vrender_pm_ops, vrender_pm_suspend,
				vrender_pm_resume);

static struct platform_driver vrender_platform_driver = {
	.probe = vrender_probe,
	.primepair_platform_remove = vrender_remove,
	.driver = {
		.name = VRENDER_DRIVER_NAME,
		.pm = pm_sleep_ptr(&vrender_pm_ops),
	},
};

static void vrender_destroy_all(void)
{
	int i;

	for (i = VRENDER_MAX_INSTANCES - 1; i >= 0; i--) {
		if (vrender_pdevs[i])
			platform_device_unregister(vrender_pdevs[i]);
		vrender_pdevs[i] = NULL;
	}
}

static int __init vrender_init(void)
{
	struct platform_device *pdev;
	unsigned int i;
	int ret;

	if (instances < 1 || instances > VRENDER_MAX_INSTANCES) {
		pr_err("vrender: instances must be 1 to %d\n",
		       VRENDER_MAX_INSTANCES);
		return -EINVAL;
	}

	/* Every instance's parameters are checked before any registers. */
	for (i = 0; i < instances; i++) {
		ret = vrender_check_params(i);
		if (ret) {
			pr_err("vrender: invalid DMA constraints for instance %u\n",
			       i);
			return ret;
		}
	}

	ret = platform_driver_register(&vrender_platform_driver);
	if (ret)
		return ret;

	for (i = 0; i < instances; i++) {
		/* The driver is registered: the device is probed right here. */
		pdev = platform_device_register_simple(VRENDER_DRIVER_NAME, i,
						       NULL, 0);
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto out_destroy;
		}
		vrender_pdevs[i] = pdev;
		if (!platform_get_drvdata(pdev)) {
			ret = -ENODEV;
			goto out_destroy;
		}
	}
	return 0;

out_destroy:
	vrender_destroy_all();
	platform_driver_unregister(&vrender_platform_driver);
	return ret;
}

static void __exit vrender_exit(void)
{
	vrender_destroy_all();
	platform_driver_unregister(&vrender_platform_driver);
}

module_init(vrender_init);
module_exit(vrender_exit);

MODULE_DESCRIPTION("Virtual render-only DRM driver with a fenced engine");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("PRIMEBUF");
MODULE_IMPORT_NS("DMA_BUF");

// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - encoder, connector and hotplug
 *
 * Each connector offers the standard modes up to the module's maximum size.
 * It starts connected; writing 0 or 1 to "vdisplay_connected" in its
 * debugfs directory (/sys/kernel/debug/dri/N/<connector>/) unplugs or
 * plugs it and sends a hotplug uevent, as a real display would.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>

#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_probe_helper.h>

#include "vdisplay_drv.h"

static int vdisplay_connector_get_modes(struct drm_connector *connector)
{
	struct vdisplay_device *vd = to_vdisplay(connector->dev);
	int count;

	count = drm_add_modes_noedid(connector, vd->config.max_width,
				     vd->config.max_height);
	if (vd->config.max_width >= VDISPLAY_PREF_WIDTH &&
	    vd->config.max_height >= VDISPLAY_PREF_HEIGHT)
		drm_set_preferred_mode(connector, VDISPLAY_PREF_WIDTH,
				       VDISPLAY_PREF_HEIGHT);
	return count;
}

static const struct drm_connector_helper_funcs vdisplay_connector_helper_funcs = {
	.get_modes = vdisplay_connector_get_modes,
};

static enum drm_connector_status
vdisplay_connector_detect(struct drm_connector *connector, bool force)
{
	struct vdisplay_output *out = connector_to_output(connector);

	return READ_ONCE(out->connected) ? connector_status_connected :
					   connector_status_disconnected;
}

static ssize_t vdisplay_connected_write(struct file *file,
					const char __user *ubuf,
					size_t len, loff_t *pos)
{
	struct drm_connector *connector = file->private_data;
	struct vdisplay_output *out = connector_to_output(connector);
	bool connected;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &connected);
	if (ret)
		return ret;

	if (READ_ONCE(out->connected) != connected) {
		WRITE_ONCE(out->connected, connected);
		drm_kms_helper_hotplug_event(connector->dev);
	}
	return len;
}

static ssize_t vdisplay_connected_read(struct file *file, char __user *ubuf,
				       size_t len, loff_t *pos)
{
	struct drm_connector *connector = file->private_data;
	struct vdisplay_output *out = connector_to_output(connector);
	char buf[2] = { READ_ONCE(out->connected) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, len, pos, buf, sizeof(buf));
}

static const struct file_operations vdisplay_connected_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vdisplay_connected_read,
	.write = vdisplay_connected_write,
	.llseek = default_llseek,
};

static void vdisplay_connector_debugfs_init(struct drm_connector *connector,
					    struct dentry *root)
{
	debugfs_create_file("vdisplay_connected", 0644, root, connector,
			    &vdisplay_connected_fops);
}

static const struct drm_connector_funcs vdisplay_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.detect = vdisplay_connector_detect,
	.reset = drm_atomic_helper_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
	.debugfs_init = vdisplay_connector_debugfs_init,
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

	out->connected = true;
	ret = drmm_connector_init(&vd->drm, &out->connector,
				  &vdisplay_connector_funcs,
				  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
	if (ret)
		return ret;
	drm_connector_helper_add(&out->connector,
				 &vdisplay_connector_helper_funcs);

	return drm_connector_attach_encoder(&out->connector, &out->encoder);
}

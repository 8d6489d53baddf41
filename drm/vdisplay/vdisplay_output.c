// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - encoders, connectors and hotplug
 *
 * A connector offers the modes of its EDID when it has one (from configfs,
 * or forced through the core's edid_override or drm.edid_firmware), and
 * otherwise the standard modes up to the device's maximum size.  It
 * starts in the state its configuration gives; writing 0 or 1 to
 * "vdisplay_connected" in its debugfs directory
 * (/sys/kernel/debug/dri/N/<connector>/), or a status to its configfs
 * item, unplugs or plugs it and sends a hotplug uevent, as a real display
 * would.
 *
 * Every connector takes variable refresh ("vrr_capable" is 1).  Its range
 * is its EDID's monitor range when the core found one (a "range limits
 * only" descriptor; EDID 1.4 from 6.3 on, 1.2 before), the minimum raised
 * to VDISPLAY_MIN_REFRESH; otherwise from VDISPLAY_VRR_MIN_HZ up to the
 * fastest mode it lists.  It is kept in display_info.monitor_range, so
 * the core's "vrr_range" in the connector's debugfs directory shows it,
 * as IGT's kms_vrr reads it.
 *
 * Every connector also takes what a compositor sends an HDR monitor:
 * "max bpc" (VDISPLAY_MIN_BPC to VDISPLAY_MAX_BPC), "Colorspace" (the RGB
 * colorimetries, VDISPLAY_COLORSPACES) and "HDR_OUTPUT_METADATA" (CTA-861-G
 * static metadata type 1).  Nothing is sent on a wire, so what a sink
 * would receive is shown instead: "vdisplay_signal" in the connector's
 * debugfs directory gives the signal's bits per colour, its colorimetry
 * and the HDR metadata infoframe, as the last commit left them.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hdmi.h>
#include <linux/kstrtox.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include <drm/display/drm_hdmi_helper.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_edid.h>
#include <drm/drm_print.h>
#include <drm/drm_managed.h>
#include <drm/drm_probe_helper.h>

#include "vdisplay_drv.h"

/*
 * The colorimetries a connector signals: the RGB ones of the DisplayPort
 * list, since the composer sends RGB.
 */
#define VDISPLAY_COLORSPACES	(BIT(DRM_MODE_COLORIMETRY_DEFAULT) |	\
				 BIT(DRM_MODE_COLORIMETRY_OPRGB) |	\
				 BIT(DRM_MODE_COLORIMETRY_DCI_P3_RGB_D65) | \
				 BIT(DRM_MODE_COLORIMETRY_BT2020_RGB))

/**
 * vdisplay_edid_valid() - whether @len bytes at @edid are an EDID to offer
 * @edid: the EDID
 * @len: its size: a whole number of 128-byte blocks, as many as its base
 *	block announces
 *
 * Return: true if the base block starts with the EDID header and every
 * block's bytes add up to 0 (mod 256), as the EDID standard requires.
 */
bool vdisplay_edid_valid(const void *edid, size_t len)
{
	static const u8 header[8] = { 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0 };
	const u8 *p = edid;
	size_t i;
	u8 sum = 0;

	if (!len || len % EDID_LENGTH || len > VDISPLAY_MAX_EDID)
		return false;
	if (memcmp(p, header, sizeof(header)))
		return false;
	/* Byte 126 of the base block counts the extension blocks. */
	if ((p[126] + 1) * EDID_LENGTH != len)
		return false;
	for (i = 0; i < len; i++) {
		sum += p[i];
		if (i % EDID_LENGTH == EDID_LENGTH - 1 && sum)
			return false;
	}
	return true;
}

/*
 * The range goes where the core keeps an EDID's, display_info's
 * monitor_range, which the core's "vrr_range" debugfs file shows.  Called
 * at the end of get_modes, the probed modes listed.  Context: under
 * mode_config.mutex, which guards display_info and the mode lists.
 */
static void vdisplay_connector_set_vrr_range(struct drm_connector *connector)
{
	struct drm_monitor_range_info *range =
		&connector->display_info.monitor_range;
	struct drm_display_mode *mode;
	unsigned int max = 0;

	if (range->min_vfreq && range->max_vfreq > range->min_vfreq) {
		range->min_vfreq = clamp_t(u16, range->min_vfreq,
					   VDISPLAY_MIN_REFRESH,
					   VDISPLAY_MAX_REFRESH);
		range->max_vfreq = clamp_t(u16, range->max_vfreq,
					   range->min_vfreq,
					   VDISPLAY_MAX_REFRESH);
	} else {
		list_for_each_entry(mode, &connector->probed_modes, head)
			max = max_t(unsigned int, max, drm_mode_vrefresh(mode));
		range->min_vfreq = VDISPLAY_VRR_MIN_HZ;
		/* No mode fast enough: an empty range, never variable */
		range->max_vfreq = clamp_t(unsigned int, max,
					   VDISPLAY_VRR_MIN_HZ,
					   VDISPLAY_MAX_REFRESH);
	}
	WRITE_ONCE(to_vdisplay_connector(connector)->vrr_min_hz,
		   range->min_vfreq);
}

/**
 * vdisplay_vrr_min_hz() - lowest refresh rate the connectors of a CRTC
 * all take
 * @vd: the device
 * @connector_mask: the connectors, as &drm_crtc_state.connector_mask
 *
 * Context: any; reads what the last probe of each connector found.
 * Return: the highest of their minimums, or 0 when @connector_mask has
 * no connector of @vd other than writeback ones.
 */
unsigned int vdisplay_vrr_min_hz(struct vdisplay_device *vd, u32 connector_mask)
{
	unsigned int i, min = 0;

	for (i = 0; i < vd->config.nconnectors; i++) {
		struct vdisplay_connector *vc = &vd->connectors[i];

		if (connector_mask & drm_connector_mask(&vc->base))
			min = max(min, READ_ONCE(vc->vrr_min_hz));
	}
	return min;
}

/*
 * The connector's DDC, as the core's EDID reader sees it: block @block of
 * the EDID configfs gave, or a failed read when there is none.  Context:
 * under the connector's edid_lock, taken around drm_edid_read_custom().
 */
static int vdisplay_connector_read_block(void *context, u8 *buf,
					 unsigned int block, size_t len)
{
	struct vdisplay_connector *vc = context;
	size_t off = (size_t)block * EDID_LENGTH;

	lockdep_assert_held(&vc->edid_lock);
	if (!vc->edid || off >= vc->edid_len || len > vc->edid_len - off)
		return -EIO;
	memcpy(buf, vc->edid + off, len);
	return 0;
}

static int vdisplay_connector_modes(struct drm_connector *connector)
{
	struct vdisplay_connector *vc = to_vdisplay_connector(connector);
	struct vdisplay_device *vd = to_vdisplay(connector->dev);
	const struct drm_edid *drm_edid;
	int count;

	/*
	 * Read through the core, as a driver with a real DDC does, so that
	 * an EDID forced by userspace (the connector's edid_override in
	 * debugfs) or by drm.edid_firmware wins over the configured one.
	 */
	mutex_lock(&vc->edid_lock);
	drm_edid = drm_edid_read_custom(connector,
					vdisplay_connector_read_block, vc);
	mutex_unlock(&vc->edid_lock);

	if (drm_edid) {
		count = primepair_edid_connector_modes(connector, drm_edid);
		drm_edid_free(drm_edid);
		return count;
	}

	/* No EDID (any more): clear the property and offer the standard list */
	drm_edid_connector_update(connector, NULL);
	count = drm_add_modes_noedid(connector, vd->config.max_width,
				     vd->config.max_height);
	if (vd->config.max_width >= VDISPLAY_PREF_WIDTH &&
	    vd->config.max_height >= VDISPLAY_PREF_HEIGHT)
		drm_set_preferred_mode(connector, VDISPLAY_PREF_WIDTH,
				       VDISPLAY_PREF_HEIGHT);
	return count;
}

/* The modes, and the VRR range of the EDID they come from */
static int vdisplay_connector_get_modes(struct drm_connector *connector)
{
	int count = vdisplay_connector_modes(connector);

	vdisplay_connector_set_vrr_range(connector);
	return count;
}

/*
 * The HDR metadata infoframe a sink would receive for @state's
 * HDR_OUTPUT_METADATA, which must be set.  What CTA-861-G does not define
 * is refused: a metadata type other than static type 1, an EOTF past HLG
 * (codes 4 to 7 are reserved).  An EOTF the sink's EDID does not list is
 * sent all the same, as hardware sends it.
 */
static int vdisplay_hdr_infoframe(const struct drm_connector_state *state,
				  struct hdmi_drm_infoframe *frame)
{
	const struct hdr_output_metadata *hdr = state->hdr_output_metadata->data;
	const struct hdr_metadata_infoframe *type1 = &hdr->hdmi_metadata_type1;

	if (hdr->metadata_type != HDMI_STATIC_METADATA_TYPE1 ||
	    type1->metadata_type != HDMI_STATIC_METADATA_TYPE1 ||
	    type1->eotf > HDMI_EOTF_BT_2100_HLG)
		return -EINVAL;
	return drm_hdmi_infoframe_set_hdr_metadata(frame, state);
}

static int vdisplay_connector_atomic_check(struct drm_connector *connector,
					   struct drm_atomic_commit *state)
{
	struct drm_connector_state *new_state =
		drm_atomic_get_new_connector_state(state, connector);
	struct hdmi_drm_infoframe frame;

	/* Before 6.5 the property lists every DP colorimetry */
	if (!(VDISPLAY_COLORSPACES & BIT(new_state->colorspace))) {
		drm_dbg_atomic(connector->dev,
			       "[CONNECTOR:%d:%s] colorimetry %u is not RGB\n",
			       connector->base.id, connector->name,
			       new_state->colorspace);
		return -EINVAL;
	}
	if (new_state->hdr_output_metadata &&
	    vdisplay_hdr_infoframe(new_state, &frame)) {
		drm_dbg_atomic(connector->dev,
			       "[CONNECTOR:%d:%s] HDR metadata is not CTA-861-G static type 1\n",
			       connector->base.id, connector->name);
		return -EINVAL;
	}
	return 0;
}

static const struct drm_connector_helper_funcs vdisplay_connector_helper_funcs = {
	.get_modes = vdisplay_connector_get_modes,
	.atomic_check = vdisplay_connector_atomic_check,
};

/*
 * The core's reset leaves "max bpc" at 0, below its range; a connector
 * starts at the most it offers, as attaching the property sets it.
 */
static void vdisplay_connector_reset(struct drm_connector *connector)
{
	drm_atomic_helper_connector_reset(connector);
	if (!connector->state)
		return;
	connector->state->max_requested_bpc = VDISPLAY_MAX_BPC;
	connector->state->max_bpc = VDISPLAY_MIN_BPC;
}

static enum drm_connector_status
vdisplay_connector_detect(struct drm_connector *connector, bool force)
{
	struct vdisplay_connector *vc = to_vdisplay_connector(connector);

	return READ_ONCE(vc->connected) ? connector_status_connected :
					  connector_status_disconnected;
}

/**
 * vdisplay_connector_set_status() - plug or unplug a connector
 * @vd: the device
 * @index: the connector, in configuration order
 * @connected: the new state
 *
 * Sends a hotplug uevent when the state changes.
 */
void vdisplay_connector_set_status(struct vdisplay_device *vd,
				   unsigned int index, bool connected)
{
	struct vdisplay_connector *vc = &vd->connectors[index];

	if (READ_ONCE(vc->connected) == connected)
		return;
	WRITE_ONCE(vc->connected, connected);
	drm_kms_helper_hotplug_event(&vd->drm);
}

/**
 * vdisplay_connector_set_edid() - give a connector another EDID
 * @vd: the device
 * @index: the connector, in configuration order
 * @edid: the EDID, checked by vdisplay_edid_valid(); NULL for none
 * @len: bytes at @edid
 *
 * The new modes show at the next probe; a hotplug uevent tells clients
 * to probe, as a monitor swapped behind the same connector would.
 *
 * Return: 0, or -ENOMEM.
 */
int vdisplay_connector_set_edid(struct vdisplay_device *vd,
				unsigned int index, const void *edid,
				size_t len)
{
	struct vdisplay_connector *vc = &vd->connectors[index];
	u8 *copy = NULL, *old;

	if (edid && len) {
		copy = kmemdup(edid, len, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
	} else {
		len = 0;
	}

	mutex_lock(&vc->edid_lock);
	old = vc->edid;
	vc->edid = copy;
	vc->edid_len = len;
	mutex_unlock(&vc->edid_lock);
	kfree(old);

	if (READ_ONCE(vc->connected))
		drm_kms_helper_hotplug_event(&vd->drm);
	return 0;
}

static ssize_t vdisplay_connected_write(struct file *file,
					const char __user *ubuf,
					size_t len, loff_t *pos)
{
	struct drm_connector *connector = file->private_data;
	struct vdisplay_device *vd = to_vdisplay(connector->dev);
	struct vdisplay_connector *vc = to_vdisplay_connector(connector);
	bool connected;
	int ret;

	ret = kstrtobool_from_user(ubuf, len, &connected);
	if (ret)
		return ret;

	vdisplay_connector_set_status(vd, vc - vd->connectors, connected);
	return len;
}

static ssize_t vdisplay_connected_read(struct file *file, char __user *ubuf,
				       size_t len, loff_t *pos)
{
	struct drm_connector *connector = file->private_data;
	struct vdisplay_connector *vc = to_vdisplay_connector(connector);
	char buf[2] = { READ_ONCE(vc->connected) ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, len, pos, buf, sizeof(buf));
}

static const struct file_operations vdisplay_connected_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = vdisplay_connected_read,
	.write = vdisplay_connected_write,
	.llseek = default_llseek,
};

/*
 * What a sink on the connector would receive, as the last commit left it:
 * "crtc" (0 when off), "bpc" (the core's &drm_connector_state.max_bpc,
 * the smaller of "max bpc" and the EDID's), "colorspace" (the value of
 * "Colorspace"), "sink eotfs" (the EOTFs its EDID lists, as a CTA-861 bit
 * mask) and "hdr" (0, or 1 followed by the metadata and the infoframe).
 */
static int vdisplay_signal_show(struct seq_file *m, void *unused)
{
	struct drm_connector *connector = m->private;
	struct drm_mode_config *config = &connector->dev->mode_config;
	const struct drm_connector_state *state;
	struct hdmi_drm_infoframe frame;
	u8 packed[HDMI_INFOFRAME_SIZE(DRM)];
	ssize_t len;
	int i;

	/* The sink's EDID is the probe's, the state the commits' */
	mutex_lock(&config->mutex);
	drm_modeset_lock(&config->connection_mutex, NULL);
	state = connector->state;
	seq_printf(m, "crtc: %u\n", state->crtc ? state->crtc->base.id : 0);
	/* Links carry even depths: a "max bpc" of 9 sends 8 */
	seq_printf(m, "bpc: %u\n", state->max_bpc & ~1u);
	seq_printf(m, "colorspace: %u\n", state->colorspace);
	seq_printf(m, "sink eotfs: 0x%x\n",
		   primepair_hdr_sink_metadata(connector)->hdmi_type1.eotf);
	if (!state->hdr_output_metadata ||
	    vdisplay_hdr_infoframe(state, &frame)) {
		seq_puts(m, "hdr: 0\n");
		goto out;
	}
	seq_puts(m, "hdr: 1\n");
	seq_printf(m, "eotf: %u\n", frame.eotf);
	seq_puts(m, "primaries:");
	for (i = 0; i < ARRAY_SIZE(frame.display_primaries); i++)
		seq_printf(m, " %u,%u", frame.display_primaries[i].x,
			   frame.display_primaries[i].y);
	seq_printf(m, "\nwhite point: %u,%u\n", frame.white_point.x,
		   frame.white_point.y);
	seq_printf(m, "mastering luminance: %u,%u\n",
		   frame.max_display_mastering_luminance,
		   frame.min_display_mastering_luminance);
	seq_printf(m, "max cll: %u\nmax fall: %u\n", frame.max_cll,
		   frame.max_fall);
	len = hdmi_drm_infoframe_pack_only(&frame, packed, sizeof(packed));
	if (len > 0)
		seq_printf(m, "infoframe: %*phN\n", (int)len, packed);
out:
	drm_modeset_unlock(&config->connection_mutex);
	mutex_unlock(&config->mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdisplay_signal);

static void vdisplay_connector_debugfs_init(struct drm_connector *connector,
					    struct dentry *root)
{
	debugfs_create_file("vdisplay_connected", 0644, root, connector,
			    &vdisplay_connected_fops);
	debugfs_create_file("vdisplay_signal", 0444, root, connector,
			    &vdisplay_signal_fops);
}

static const struct drm_connector_funcs vdisplay_connector_funcs = {
	.fill_modes = drm_helper_probe_single_connector_modes,
	.detect = vdisplay_connector_detect,
	.reset = vdisplay_connector_reset,
	.atomic_duplicate_state = drm_atomic_helper_connector_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_connector_destroy_state,
	.debugfs_init = vdisplay_connector_debugfs_init,
};

/**
 * vdisplay_encoders_init() - create the configuration's encoders
 * @vd: the device, its CRTCs created
 *
 * Return: 0 or a negative errno.
 */
int vdisplay_encoders_init(struct vdisplay_device *vd)
{
	unsigned int i;
	int ret;

	for (i = 0; i < vd->config.nencoders; i++) {
		ret = drmm_encoder_init(&vd->drm, &vd->encoders[i], NULL,
					DRM_MODE_ENCODER_VIRTUAL, NULL);
		if (ret)
			return ret;
		vd->encoders[i].possible_crtcs =
			vd->config.encoders[i].possible_crtcs;
	}
	return 0;
}

/**
 * vdisplay_connectors_init() - create the configuration's connectors
 * @vd: the device, its encoders created
 *
 * Return: 0 or a negative errno.
 */
int vdisplay_connectors_init(struct vdisplay_device *vd)
{
	unsigned int i, e;
	int ret;

	for (i = 0; i < vd->config.nconnectors; i++) {
		struct vdisplay_connector *vc = &vd->connectors[i];

		mutex_init(&vc->edid_lock);
		vc->connected = vd->config.connectors[i].connected;
		vc->vrr_min_hz = VDISPLAY_VRR_MIN_HZ;
		if (vd->config.connectors[i].edid_len) {
			vc->edid = kmemdup(vd->config.connectors[i].edid,
					   vd->config.connectors[i].edid_len,
					   GFP_KERNEL);
			if (!vc->edid)
				return -ENOMEM;
			vc->edid_len = vd->config.connectors[i].edid_len;
		}

		ret = drmm_connector_init(&vd->drm, &vc->base,
					  &vdisplay_connector_funcs,
					  DRM_MODE_CONNECTOR_VIRTUAL, NULL);
		if (ret)
			return ret;
		drm_connector_helper_add(&vc->base,
					 &vdisplay_connector_helper_funcs);
		/*
		 * The core gives virtual connectors no EDID property; these
		 * can get an EDID at any time, through configfs.
		 */
		drm_connector_attach_edid_property(&vc->base);
		/* Variable refresh within the range get_modes finds */
		ret = drm_connector_attach_vrr_capable_property(&vc->base);
		if (ret)
			return ret;
		drm_connector_set_vrr_capable_property(&vc->base, true);
		/* What an HDR monitor takes; "max bpc" wants a state */
		vdisplay_connector_reset(&vc->base);
		ret = drm_connector_attach_max_bpc_property(&vc->base,
							    VDISPLAY_MIN_BPC,
							    VDISPLAY_MAX_BPC);
		if (ret)
			return ret;
		ret = drm_mode_create_dp_colorspace_property(&vc->base,
							     VDISPLAY_COLORSPACES);
		if (ret)
			return ret;
		ret = drm_connector_attach_colorspace_property(&vc->base);
		if (ret)
			return ret;
		drm_connector_attach_hdr_output_metadata_property(&vc->base);

		for (e = 0; e < vd->config.nencoders; e++) {
			if (!(vd->config.connectors[i].possible_encoders & BIT(e)))
				continue;
			ret = drm_connector_attach_encoder(&vc->base,
							   &vd->encoders[e]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/**
 * vdisplay_connectors_fini() - free what the connectors hold
 * @vd: the device, being torn down or never registered
 */
void vdisplay_connectors_fini(struct vdisplay_device *vd)
{
	unsigned int i;

	for (i = 0; i < VDISPLAY_MAX_CONNECTORS; i++) {
		kfree(vd->connectors[i].edid);
		vd->connectors[i].edid = NULL;
		/* An edid_override left in place: the core would leak it */
		primepair_edid_override_drop(&vd->connectors[i].base);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * vdisplay - devices built through configfs
 *
 * /sys/kernel/config/vdisplay/<device>/ describes one device: directories
 * made under its planes/, crtcs/, encoders/ and connectors/ are the
 * objects, and symlinks say what feeds what (a plane's possible_crtcs/, an
 * encoder's possible_crtcs/, a connector's possible_encoders/).  Writing
 * 1 to "enabled" checks the description and creates the device from it;
 * writing 0 unplugs and removes it.  The names and values follow vkms's
 * configfs, so a script written for one ports to the other by its name.
 *
 * While a device is enabled its shape is fixed: making objects, linking
 * them or changing a plane's type or a CRTC's writeback fails with
 * -EBUSY.  A connector's status and EDID stay writable: they are what a
 * monitor being plugged, unplugged or swapped changes, and reach the live
 * device with a hotplug uevent.  configfs cannot refuse rmdir or unlink;
 * those change the description only, for the next enable.
 *
 * Every object holds its device's group (configfs keeps a parent until
 * its children are gone), and each device holds the module.
 */

#include <linux/configfs.h>
#include <linux/device.h>
#include <linux/idr.h>
#include <linux/kstrtox.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <primepair/compat.h>

#include "vdisplay_drv.h"

/* Platform device ids of configfs devices start after the module's own. */
#define VDISPLAY_CFS_FIRST_ID	VDISPLAY_MAX_DEVICES
#define VDISPLAY_CFS_LAST_ID	255

static DEFINE_IDA(vdisplay_cfs_ida);

/**
 * struct vdisplay_cfs_device - one device's directory
 * @group: /sys/kernel/config/vdisplay/<device>
 * @planes: its planes/ directory
 * @crtcs: its crtcs/ directory
 * @encoders: its encoders/ directory
 * @connectors: its connectors/ directory
 * @lock: protects everything below, and every field of its objects
 * @plane_list: the planes, in the order they were made
 * @crtc_list: the CRTCs, in the order they were made
 * @encoder_list: the encoders, in the order they were made
 * @connector_list: the connectors, in the order they were made
 * @pdev: the device while enabled, else NULL
 */
struct vdisplay_cfs_device {
	struct config_group group;
	struct config_group planes;
	struct config_group crtcs;
	struct config_group encoders;
	struct config_group connectors;
	struct mutex lock;	/* see the kernel-doc above */
	struct list_head plane_list;
	struct list_head crtc_list;
	struct list_head encoder_list;
	struct list_head connector_list;
	struct platform_device *pdev;
};

/**
 * struct vdisplay_cfs_link - one symlink in a possible_* directory
 * @node: entry in the owner's @links
 * @target: the object linked to, held by configfs while the link exists
 */
struct vdisplay_cfs_link {
	struct list_head node;
	struct config_item *target;
};

/**
 * struct vdisplay_cfs_object - a plane, CRTC, encoder or connector
 * @group: its directory
 * @possible: its possible_crtcs/ or possible_encoders/ directory (not for
 *	CRTCs)
 * @dev: the device it belongs to
 * @node: entry in one of @dev's lists
 * @links: its &struct vdisplay_cfs_link entries
 * @index: its place among its kind, set when the device is enabled
 * @type: a plane's DRM_PLANE_TYPE_*
 * @writeback: a CRTC has a writeback connector
 * @connected: a connector's status
 * @edid: a connector's EDID, or NULL
 * @edid_len: bytes at @edid
 */
struct vdisplay_cfs_object {
	struct config_group group;
	struct config_group possible;
	struct vdisplay_cfs_device *dev;
	struct list_head node;
	struct list_head links;
	unsigned int index;
	enum drm_plane_type type;
	bool writeback;
	bool connected;
	u8 *edid;
	size_t edid_len;
};

static struct vdisplay_cfs_device *to_cfs_device(struct config_item *item)
{
	return container_of(to_config_group(item), struct vdisplay_cfs_device,
			    group);
}

static struct vdisplay_cfs_object *to_cfs_object(struct config_item *item)
{
	return container_of(to_config_group(item), struct vdisplay_cfs_object,
			    group);
}

static struct vdisplay_cfs_object *possible_to_object(struct config_item *item)
{
	return container_of(to_config_group(item), struct vdisplay_cfs_object,
			    possible);
}

/*
 * The live device, its driver bound, with the device lock held so that
 * it cannot be unbound meanwhile; NULL when disabled or unbound in sysfs.
 */
static struct vdisplay_device *vdisplay_cfs_get_live(struct vdisplay_cfs_device *dev)
{
	struct vdisplay_device *vd;

	lockdep_assert_held(&dev->lock);
	if (!dev->pdev)
		return NULL;
	device_lock(&dev->pdev->dev);
	vd = platform_get_drvdata(dev->pdev);
	if (!vd)
		device_unlock(&dev->pdev->dev);
	return vd;
}

static void vdisplay_cfs_put_live(struct vdisplay_cfs_device *dev)
{
	device_unlock(&dev->pdev->dev);
}

/* ----------------------------------------------------------------------
 * Links
 */

static const struct config_item_type vdisplay_cfs_crtc_type;
static const struct config_item_type vdisplay_cfs_encoder_type;

static int vdisplay_cfs_link(struct config_item *src,
			     struct config_item *target,
			     const struct config_item_type *target_type)
{
	struct vdisplay_cfs_object *obj = possible_to_object(src);
	struct vdisplay_cfs_link *link;
	int ret = 0;

	if (target->ci_type != target_type ||
	    to_cfs_object(target)->dev != obj->dev)
		return -EINVAL;

	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	link->target = target;

	mutex_lock(&obj->dev->lock);
	if (obj->dev->pdev) {
		ret = -EBUSY;
		kfree(link);
	} else {
		list_add_tail(&link->node, &obj->links);
	}
	mutex_unlock(&obj->dev->lock);
	return ret;
}

static void vdisplay_cfs_unlink(struct config_item *src,
				struct config_item *target)
{
	struct vdisplay_cfs_object *obj = possible_to_object(src);
	struct vdisplay_cfs_link *link, *tmp;

	mutex_lock(&obj->dev->lock);
	list_for_each_entry_safe(link, tmp, &obj->links, node) {
		if (link->target == target) {
			list_del(&link->node);
			kfree(link);
			break;
		}
	}
	mutex_unlock(&obj->dev->lock);
}

static int vdisplay_cfs_link_crtc(struct config_item *src,
				  struct config_item *target)
{
	return vdisplay_cfs_link(src, target, &vdisplay_cfs_crtc_type);
}

static int vdisplay_cfs_link_encoder(struct config_item *src,
				     struct config_item *target)
{
	return vdisplay_cfs_link(src, target, &vdisplay_cfs_encoder_type);
}

static primepair_configfs_ops_const struct configfs_item_operations
vdisplay_cfs_possible_crtcs_ops = {
	.allow_link = vdisplay_cfs_link_crtc,
	.drop_link = vdisplay_cfs_unlink,
};

static primepair_configfs_ops_const struct configfs_item_operations
vdisplay_cfs_possible_encoders_ops = {
	.allow_link = vdisplay_cfs_link_encoder,
	.drop_link = vdisplay_cfs_unlink,
};

static const struct config_item_type vdisplay_cfs_possible_crtcs_type = {
	.ct_item_ops = &vdisplay_cfs_possible_crtcs_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type vdisplay_cfs_possible_encoders_type = {
	.ct_item_ops = &vdisplay_cfs_possible_encoders_ops,
	.ct_owner = THIS_MODULE,
};

/* The mask of the objects @obj links to, by their enable-time index */
static u32 vdisplay_cfs_link_mask(struct vdisplay_cfs_object *obj)
{
	struct vdisplay_cfs_link *link;
	u32 mask = 0;

	list_for_each_entry(link, &obj->links, node)
		mask |= BIT(to_cfs_object(link->target)->index);
	return mask;
}

/* ----------------------------------------------------------------------
 * Attributes
 */

static ssize_t vdisplay_cfs_plane_type_show(struct config_item *item,
					    char *page)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	enum drm_plane_type type;

	mutex_lock(&obj->dev->lock);
	type = obj->type;
	mutex_unlock(&obj->dev->lock);
	return sprintf(page, "%u\n", type);
}

static ssize_t vdisplay_cfs_plane_type_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	unsigned int type;
	int ret;

	ret = kstrtouint(page, 10, &type);
	if (ret)
		return ret;
	if (type != DRM_PLANE_TYPE_OVERLAY && type != DRM_PLANE_TYPE_PRIMARY &&
	    type != DRM_PLANE_TYPE_CURSOR)
		return -EINVAL;

	mutex_lock(&obj->dev->lock);
	if (obj->dev->pdev) {
		ret = -EBUSY;
	} else {
		obj->type = type;
		ret = count;
	}
	mutex_unlock(&obj->dev->lock);
	return ret;
}

CONFIGFS_ATTR(vdisplay_cfs_plane_, type);

static ssize_t vdisplay_cfs_crtc_writeback_show(struct config_item *item,
						char *page)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	bool writeback;

	mutex_lock(&obj->dev->lock);
	writeback = obj->writeback;
	mutex_unlock(&obj->dev->lock);
	return sprintf(page, "%d\n", writeback);
}

static ssize_t vdisplay_cfs_crtc_writeback_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	bool writeback;
	int ret;

	ret = kstrtobool(page, &writeback);
	if (ret)
		return ret;

	mutex_lock(&obj->dev->lock);
	if (obj->dev->pdev) {
		ret = -EBUSY;
	} else {
		obj->writeback = writeback;
		ret = count;
	}
	mutex_unlock(&obj->dev->lock);
	return ret;
}

CONFIGFS_ATTR(vdisplay_cfs_crtc_, writeback);

/* A connector's status, as enum drm_connector_status numbers it */
#define VDISPLAY_CFS_CONNECTED		1
#define VDISPLAY_CFS_DISCONNECTED	2

static ssize_t vdisplay_cfs_connector_status_show(struct config_item *item,
						  char *page)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	bool connected;

	mutex_lock(&obj->dev->lock);
	connected = obj->connected;
	mutex_unlock(&obj->dev->lock);
	return sprintf(page, "%d\n", connected ? VDISPLAY_CFS_CONNECTED :
						 VDISPLAY_CFS_DISCONNECTED);
}

static ssize_t vdisplay_cfs_connector_status_store(struct config_item *item,
						   const char *page,
						   size_t count)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	struct vdisplay_device *vd;
	unsigned int status;
	int ret;

	ret = kstrtouint(page, 10, &status);
	if (ret)
		return ret;
	if (status != VDISPLAY_CFS_CONNECTED &&
	    status != VDISPLAY_CFS_DISCONNECTED)
		return -EINVAL;

	mutex_lock(&obj->dev->lock);
	obj->connected = status == VDISPLAY_CFS_CONNECTED;
	/* A connector made after enabling is not on the device. */
	vd = vdisplay_cfs_get_live(obj->dev);
	if (vd) {
		vdisplay_connector_set_status(vd, obj->index, obj->connected);
		vdisplay_cfs_put_live(obj->dev);
	}
	mutex_unlock(&obj->dev->lock);
	return count;
}

CONFIGFS_ATTR(vdisplay_cfs_connector_, status);

static ssize_t vdisplay_cfs_connector_edid_read(struct config_item *item,
						void *buf, size_t max)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	ssize_t len;

	mutex_lock(&obj->dev->lock);
	len = obj->edid_len;
	/*
	 * Called with a NULL buffer first, for the size, then with a buffer
	 * of that size, all of which configfs hands to the reader.  An EDID
	 * written in between, shorter or longer, would leave some of it
	 * unwritten: the reader is asked to start again instead.
	 */
	if (buf) {
		if (len == max)
			memcpy(buf, obj->edid, len);
		else
			len = -EAGAIN;
	}
	mutex_unlock(&obj->dev->lock);
	return len;
}

static ssize_t vdisplay_cfs_connector_edid_write(struct config_item *item,
						 const void *buf, size_t len)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);
	struct vdisplay_device *vd;
	u8 *copy, *old;
	int ret = 0;

	if (!vdisplay_edid_valid(buf, len))
		return -EINVAL;
	copy = kmemdup(buf, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;

	mutex_lock(&obj->dev->lock);
	vd = vdisplay_cfs_get_live(obj->dev);
	if (vd) {
		ret = vdisplay_connector_set_edid(vd, obj->index, copy, len);
		vdisplay_cfs_put_live(obj->dev);
	}
	if (ret) {
		old = copy;
	} else {
		old = obj->edid;
		obj->edid = copy;
		obj->edid_len = len;
	}
	mutex_unlock(&obj->dev->lock);
	kfree(old);
	return ret ?: len;
}

CONFIGFS_BIN_ATTR(vdisplay_cfs_connector_, edid, NULL, VDISPLAY_MAX_EDID);

static struct configfs_attribute *vdisplay_cfs_plane_attrs[] = {
	&vdisplay_cfs_plane_attr_type,
	NULL,
};

static struct configfs_attribute *vdisplay_cfs_crtc_attrs[] = {
	&vdisplay_cfs_crtc_attr_writeback,
	NULL,
};

static struct configfs_attribute *vdisplay_cfs_connector_attrs[] = {
	&vdisplay_cfs_connector_attr_status,
	NULL,
};

static struct configfs_bin_attribute *vdisplay_cfs_connector_bin_attrs[] = {
	&vdisplay_cfs_connector_attr_edid,
	NULL,
};

/* ----------------------------------------------------------------------
 * Planes, CRTCs, encoders and connectors
 */

static void vdisplay_cfs_object_release(struct config_item *item)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);

	kfree(obj->edid);
	kfree(obj);
}

static primepair_configfs_ops_const struct configfs_item_operations vdisplay_cfs_object_ops = {
	.release = vdisplay_cfs_object_release,
};

static const struct config_item_type vdisplay_cfs_plane_type = {
	.ct_item_ops = &vdisplay_cfs_object_ops,
	.ct_attrs = vdisplay_cfs_plane_attrs,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type vdisplay_cfs_crtc_type = {
	.ct_item_ops = &vdisplay_cfs_object_ops,
	.ct_attrs = vdisplay_cfs_crtc_attrs,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type vdisplay_cfs_encoder_type = {
	.ct_item_ops = &vdisplay_cfs_object_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type vdisplay_cfs_connector_type = {
	.ct_item_ops = &vdisplay_cfs_object_ops,
	.ct_attrs = vdisplay_cfs_connector_attrs,
	.ct_bin_attrs = vdisplay_cfs_connector_bin_attrs,
	.ct_owner = THIS_MODULE,
};

/*
 * make_group of planes/, crtcs/, encoders/ and connectors/: @list is the
 * device's list for that kind, @possible the name and type of the
 * object's link directory, if it has one.
 */
static struct config_group *
vdisplay_cfs_make_object(struct vdisplay_cfs_device *dev,
			 struct list_head *list, const char *name,
			 const struct config_item_type *type,
			 const char *possible,
			 const struct config_item_type *possible_type)
{
	struct vdisplay_cfs_object *obj;

	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	obj->dev = dev;
	obj->type = DRM_PLANE_TYPE_OVERLAY;
	obj->connected = true;
	INIT_LIST_HEAD(&obj->links);
	config_group_init_type_name(&obj->group, name, type);
	if (possible) {
		config_group_init_type_name(&obj->possible, possible,
					    possible_type);
		configfs_add_default_group(&obj->possible, &obj->group);
	}

	mutex_lock(&dev->lock);
	if (dev->pdev) {
		mutex_unlock(&dev->lock);
		/* Drops the default group and frees @obj. */
		config_group_put(&obj->group);
		return ERR_PTR(-EBUSY);
	}
	list_add_tail(&obj->node, list);
	mutex_unlock(&dev->lock);
	return &obj->group;
}

static void vdisplay_cfs_drop_object(struct config_group *group,
				     struct config_item *item)
{
	struct vdisplay_cfs_object *obj = to_cfs_object(item);

	/* Its links are gone: configfs refuses rmdir before. */
	mutex_lock(&obj->dev->lock);
	list_del(&obj->node);
	mutex_unlock(&obj->dev->lock);
	config_item_put(item);
}

static struct config_group *vdisplay_cfs_make_plane(struct config_group *group,
						    const char *name)
{
	struct vdisplay_cfs_device *dev =
		container_of(group, struct vdisplay_cfs_device, planes);

	return vdisplay_cfs_make_object(dev, &dev->plane_list, name,
					&vdisplay_cfs_plane_type,
					"possible_crtcs",
					&vdisplay_cfs_possible_crtcs_type);
}

static struct config_group *vdisplay_cfs_make_crtc(struct config_group *group,
						   const char *name)
{
	struct vdisplay_cfs_device *dev =
		container_of(group, struct vdisplay_cfs_device, crtcs);

	return vdisplay_cfs_make_object(dev, &dev->crtc_list, name,
					&vdisplay_cfs_crtc_type, NULL, NULL);
}

static struct config_group *
vdisplay_cfs_make_encoder(struct config_group *group, const char *name)
{
	struct vdisplay_cfs_device *dev =
		container_of(group, struct vdisplay_cfs_device, encoders);

	return vdisplay_cfs_make_object(dev, &dev->encoder_list, name,
					&vdisplay_cfs_encoder_type,
					"possible_crtcs",
					&vdisplay_cfs_possible_crtcs_type);
}

static struct config_group *
vdisplay_cfs_make_connector(struct config_group *group, const char *name)
{
	struct vdisplay_cfs_device *dev =
		container_of(group, struct vdisplay_cfs_device, connectors);

	return vdisplay_cfs_make_object(dev, &dev->connector_list, name,
					&vdisplay_cfs_connector_type,
					"possible_encoders",
					&vdisplay_cfs_possible_encoders_type);
}

#define VDISPLAY_CFS_DIR_TYPE(kind)					\
static primepair_configfs_ops_const struct configfs_group_operations	\
vdisplay_cfs_##kind##s_ops = {						\
	.make_group = vdisplay_cfs_make_##kind,				\
	.drop_item = vdisplay_cfs_drop_object,				\
};									\
static const struct config_item_type vdisplay_cfs_##kind##s_type = {	\
	.ct_group_ops = &vdisplay_cfs_##kind##s_ops,			\
	.ct_owner = THIS_MODULE,					\
}

VDISPLAY_CFS_DIR_TYPE(plane);
VDISPLAY_CFS_DIR_TYPE(crtc);
VDISPLAY_CFS_DIR_TYPE(encoder);
VDISPLAY_CFS_DIR_TYPE(connector);

/* ----------------------------------------------------------------------
 * Devices
 */

/* Number the objects of one kind in list order: their DRM object order. */
static unsigned int vdisplay_cfs_number(struct list_head *list)
{
	struct vdisplay_cfs_object *obj;
	unsigned int n = 0;

	list_for_each_entry(obj, list, node)
		obj->index = n++;
	return n;
}

/* The description, as the driver takes it; -EINVAL if it has too much. */
static int vdisplay_cfs_build(struct vdisplay_cfs_device *dev,
			      struct vdisplay_config *config)
{
	struct vdisplay_cfs_object *obj;

	lockdep_assert_held(&dev->lock);
	config->ncrtcs = vdisplay_cfs_number(&dev->crtc_list);
	config->nplanes = vdisplay_cfs_number(&dev->plane_list);
	config->nencoders = vdisplay_cfs_number(&dev->encoder_list);
	config->nconnectors = vdisplay_cfs_number(&dev->connector_list);
	if (config->ncrtcs > VDISPLAY_MAX_CRTCS ||
	    config->nplanes > VDISPLAY_MAX_PLANES ||
	    config->nencoders > VDISPLAY_MAX_ENCODERS ||
	    config->nconnectors > VDISPLAY_MAX_CONNECTORS)
		return -EINVAL;

	list_for_each_entry(obj, &dev->crtc_list, node)
		config->crtcs[obj->index].writeback = obj->writeback;
	list_for_each_entry(obj, &dev->plane_list, node) {
		config->planes[obj->index].type = obj->type;
		config->planes[obj->index].possible_crtcs =
			vdisplay_cfs_link_mask(obj);
	}
	list_for_each_entry(obj, &dev->encoder_list, node)
		config->encoders[obj->index].possible_crtcs =
			vdisplay_cfs_link_mask(obj);
	list_for_each_entry(obj, &dev->connector_list, node) {
		config->connectors[obj->index].possible_encoders =
			vdisplay_cfs_link_mask(obj);
		config->connectors[obj->index].connected = obj->connected;
		config->connectors[obj->index].edid_len = obj->edid_len;
		if (obj->edid_len)
			memcpy(config->connectors[obj->index].edid, obj->edid,
			       obj->edid_len);
	}
	vdisplay_config_defaults(config);
	return vdisplay_config_check(config);
}

static int vdisplay_cfs_enable(struct vdisplay_cfs_device *dev)
{
	struct vdisplay_config *config;
	struct platform_device *pdev;
	int id, ret;

	lockdep_assert_held(&dev->lock);
	config = kzalloc(sizeof(*config), GFP_KERNEL);
	if (!config)
		return -ENOMEM;
	ret = vdisplay_cfs_build(dev, config);
	if (ret)
		goto out_free;

	id = ida_alloc_range(&vdisplay_cfs_ida, VDISPLAY_CFS_FIRST_ID,
			     VDISPLAY_CFS_LAST_ID, GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto out_free;
	}
	pdev = vdisplay_device_create(id, config);
	if (IS_ERR(pdev)) {
		ida_free(&vdisplay_cfs_ida, id);
		ret = PTR_ERR(pdev);
		goto out_free;
	}
	dev->pdev = pdev;
out_free:
	kfree(config);
	return ret;
}

static void vdisplay_cfs_disable(struct vdisplay_cfs_device *dev)
{
	int id;

	lockdep_assert_held(&dev->lock);
	if (!dev->pdev)
		return;
	id = dev->pdev->id;
	vdisplay_device_destroy(dev->pdev);
	ida_free(&vdisplay_cfs_ida, id);
	dev->pdev = NULL;
}

static ssize_t vdisplay_cfs_device_enabled_show(struct config_item *item,
						char *page)
{
	struct vdisplay_cfs_device *dev = to_cfs_device(item);
	bool enabled;

	mutex_lock(&dev->lock);
	enabled = dev->pdev;
	mutex_unlock(&dev->lock);
	return sprintf(page, "%d\n", enabled);
}

static ssize_t vdisplay_cfs_device_enabled_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct vdisplay_cfs_device *dev = to_cfs_device(item);
	bool enable;
	int ret;

	ret = kstrtobool(page, &enable);
	if (ret)
		return ret;

	mutex_lock(&dev->lock);
	if (enable && !dev->pdev)
		ret = vdisplay_cfs_enable(dev);
	else if (!enable)
		vdisplay_cfs_disable(dev);
	mutex_unlock(&dev->lock);
	return ret ?: count;
}

CONFIGFS_ATTR(vdisplay_cfs_device_, enabled);

static struct configfs_attribute *vdisplay_cfs_device_attrs[] = {
	&vdisplay_cfs_device_attr_enabled,
	NULL,
};

static void vdisplay_cfs_device_release(struct config_item *item)
{
	struct vdisplay_cfs_device *dev = to_cfs_device(item);

	mutex_destroy(&dev->lock);
	kfree(dev);
}

static primepair_configfs_ops_const struct configfs_item_operations vdisplay_cfs_device_ops = {
	.release = vdisplay_cfs_device_release,
};

static const struct config_item_type vdisplay_cfs_device_type = {
	.ct_item_ops = &vdisplay_cfs_device_ops,
	.ct_attrs = vdisplay_cfs_device_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *vdisplay_cfs_make_device(struct config_group *group,
						     const char *name)
{
	struct vdisplay_cfs_device *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	mutex_init(&dev->lock);
	INIT_LIST_HEAD(&dev->plane_list);
	INIT_LIST_HEAD(&dev->crtc_list);
	INIT_LIST_HEAD(&dev->encoder_list);
	INIT_LIST_HEAD(&dev->connector_list);

	config_group_init_type_name(&dev->group, name,
				    &vdisplay_cfs_device_type);
	config_group_init_type_name(&dev->planes, "planes",
				    &vdisplay_cfs_planes_type);
	configfs_add_default_group(&dev->planes, &dev->group);
	config_group_init_type_name(&dev->crtcs, "crtcs",
				    &vdisplay_cfs_crtcs_type);
	configfs_add_default_group(&dev->crtcs, &dev->group);
	config_group_init_type_name(&dev->encoders, "encoders",
				    &vdisplay_cfs_encoders_type);
	configfs_add_default_group(&dev->encoders, &dev->group);
	config_group_init_type_name(&dev->connectors, "connectors",
				    &vdisplay_cfs_connectors_type);
	configfs_add_default_group(&dev->connectors, &dev->group);
	return &dev->group;
}

/* rmdir of a device: its objects are gone already, it may still be on. */
static void vdisplay_cfs_drop_device(struct config_group *group,
				     struct config_item *item)
{
	struct vdisplay_cfs_device *dev = to_cfs_device(item);

	mutex_lock(&dev->lock);
	vdisplay_cfs_disable(dev);
	mutex_unlock(&dev->lock);
	config_item_put(item);
}

static primepair_configfs_ops_const struct configfs_group_operations
vdisplay_cfs_subsys_ops = {
	.make_group = vdisplay_cfs_make_device,
	.drop_item = vdisplay_cfs_drop_device,
};

static const struct config_item_type vdisplay_cfs_subsys_type = {
	.ct_group_ops = &vdisplay_cfs_subsys_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem vdisplay_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = VDISPLAY_DRIVER_NAME,
			.ci_type = &vdisplay_cfs_subsys_type,
		},
	},
	.su_mutex = __MUTEX_INITIALIZER(vdisplay_cfs_subsys.su_mutex),
};

/**
 * vdisplay_configfs_register() - make /sys/kernel/config/vdisplay
 *
 * Return: 0 or a negative errno.
 */
int vdisplay_configfs_register(void)
{
	config_group_init(&vdisplay_cfs_subsys.su_group);
	return configfs_register_subsystem(&vdisplay_cfs_subsys);
}

/**
 * vdisplay_configfs_unregister() - remove /sys/kernel/config/vdisplay
 *
 * Every device directory is gone by then: each holds the module.
 */
void vdisplay_configfs_unregister(void)
{
	configfs_unregister_subsystem(&vdisplay_cfs_subsys);
}

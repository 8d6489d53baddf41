// SPDX-License-Identifier: GPL-2.0
/*
 * kms.c - KMS properties by name.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "libprimepair.h"

uint32_t pp_prop_id(int fd, uint32_t id, uint32_t type, const char *name)
{
	drmModeObjectPropertiesPtr props;
	uint32_t prop_id = 0;
	uint32_t i;

	props = drmModeObjectGetProperties(fd, id, type);
	if (!props)
		return 0;
	for (i = 0; i < props->count_props && !prop_id; i++) {
		drmModePropertyPtr p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name))
			prop_id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	if (!prop_id)
		errno = ENOENT;
	return prop_id;
}

int pp_prop_value(int fd, uint32_t id, uint32_t type, const char *name,
		  uint64_t *value)
{
	uint32_t prop_id = pp_prop_id(fd, id, type, name);
	drmModeObjectPropertiesPtr props;
	int ret = -ENOENT;
	uint32_t i;

	if (!prop_id)
		return -errno;
	props = drmModeObjectGetProperties(fd, id, type);
	if (!props)
		return -errno;
	for (i = 0; i < props->count_props; i++) {
		if (props->props[i] == prop_id) {
			*value = props->prop_values[i];
			ret = 0;
		}
	}
	drmModeFreeObjectProperties(props);
	return ret;
}

int pp_atomic_add(int fd, drmModeAtomicReqPtr req, uint32_t id,
		  uint32_t type, const char *name, uint64_t value)
{
	uint32_t prop_id = pp_prop_id(fd, id, type, name);
	int ret;

	if (!prop_id)
		return -errno;
	ret = drmModeAtomicAddProperty(req, id, prop_id, value);
	return ret < 0 ? ret : 0;
}

uint64_t pp_s31_32(double v)
{
	uint64_t mag = (uint64_t)llround(fabs(v) * 4294967296.0);

	return v < 0 ? mag | 1ull << 63 : mag;
}

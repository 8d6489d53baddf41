// SPDX-License-Identifier: GPL-2.0
/*
 * sync.c - sync_files and syncobjs.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/sync_file.h>

#include "libprimepair.h"

int pp_sync_file_info(int fence_fd, int *status, int64_t *timestamp_ns)
{
	struct sync_fence_info fence;
	struct sync_file_info info;

	/* num_fences 0: the status of the whole file, however many fences */
	memset(&info, 0, sizeof(info));
	if (ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	*status = info.status;
	if (!timestamp_ns)
		return 0;

	/* the first fence's timestamp: there must be only one */
	memset(&fence, 0, sizeof(fence));
	memset(&info, 0, sizeof(info));
	info.num_fences = 1;
	info.sync_fence_info = (uintptr_t)&fence;
	if (ioctl(fence_fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	*timestamp_ns = fence.timestamp_ns;
	return 0;
}

int pp_sync_file_wait(int fence_fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fence_fd, .events = POLLIN };
	int ret;

	do {
		ret = poll(&pfd, 1, timeout_ms);
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	return ret ? 0 : -ETIME;
}

int pp_syncobj_from_sync_file(int fd, int sync_file, uint32_t *syncobj)
{
	uint32_t handle;
	int ret;

	if (drmSyncobjCreate(fd, 0, &handle))
		return -errno;
	if (drmSyncobjImportSyncFile(fd, handle, sync_file)) {
		ret = -errno;
		drmSyncobjDestroy(fd, handle);
		return ret;
	}
	*syncobj = handle;
	return 0;
}

int pp_syncobj_wait(int fd, uint32_t syncobj, int64_t timeout_ns)
{
	if (drmSyncobjWait(fd, &syncobj, 1, pp_now_ns() + timeout_ns,
			   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT, NULL))
		return -errno;
	return 0;
}

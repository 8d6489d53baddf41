// SPDX-License-Identifier: GPL-2.0
/*
 * device.c - finding primepair's devices by driver name, index or path.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "libprimepair.h"

#define DRI_DIR "/dev/dri"

bool pp_driver_is(int fd, const char *driver)
{
	drmVersionPtr version = drmGetVersion(fd);
	bool match;

	if (!version)
		return false;
	match = version->name && !strcmp(version->name, driver);
	drmFreeVersion(version);
	return match;
}

/* "card3" -> 3 if @name is @prefix and digits only, else -1 */
static int node_number(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	char *end;
	long n;

	if (strncmp(name, prefix, len) || !isdigit((unsigned char)name[len]))
		return -1;
	n = strtol(name + len, &end, 10);
	return *end || n > 65535 ? -1 : (int)n;
}

static int compare_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * The numbers of /dev/dri/<prefix>N in ascending order (card2 before
 * card10) into @nums, at most @max of them; returns how many or -errno.
 */
static int list_nodes(const char *prefix, int *nums, int max)
{
	struct dirent *de;
	int count = 0, n;
	DIR *dir;

	dir = opendir(DRI_DIR);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && count < max) {
		n = node_number(de->d_name, prefix);
		if (n >= 0)
			nums[count++] = n;
	}
	closedir(dir);
	qsort(nums, count, sizeof(*nums), compare_int);
	return count;
}

int pp_open_nth(const char *driver, unsigned int n, bool render)
{
	const char *prefix = render ? "renderD" : "card";
	unsigned int seen = 0;
	char path[64];
	int nums[256];
	int count, i, fd;

	count = list_nodes(prefix, nums, 256);
	if (count < 0) {
		/* no /dev/dri at all: no such device either */
		errno = count == -ENOENT ? ENODEV : -count;
		return -1;
	}
	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), DRI_DIR "/%s%d", prefix, nums[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pp_driver_is(fd, driver) && seen++ == n)
			return fd;
		close(fd);
	}
	errno = ENODEV;
	return -1;
}

int pp_open_device(const char *spec, const char *default_driver, bool render)
{
	const char *colon;
	char driver[64];
	unsigned long n = 0;
	size_t len;

	if (!spec)
		spec = default_driver;
	if (strchr(spec, '/'))
		return open(spec, O_RDWR | O_CLOEXEC);

	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!len || len >= sizeof(driver)) {
		errno = EINVAL;
		return -1;
	}
	if (colon) {
		char *end;

		errno = 0;
		n = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || n > 65535) {
			errno = EINVAL;
			return -1;
		}
	}
	memcpy(driver, spec, len);
	driver[len] = '\0';
	return pp_open_nth(driver, n, render);
}

int pp_dri_debugfs_path(int fd, const char *name, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	n = snprintf(buf, len, "/sys/kernel/debug/dri/%u/%s",
		     minor(st.st_rdev), name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int64_t pp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

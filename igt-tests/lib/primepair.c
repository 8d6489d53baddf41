// SPDX-License-Identifier: GPL-2.0
/*
 * primepair.c - device lookup, debugfs counters, CRC-32 and kernel log
 * markers for primepair's tests: libprimepair's functions with skips and
 * assertions, and what only tests need.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <xf86drm.h>

#include "igt_core.h"
#include "primepair.h"

#ifdef PRIMEPAIR_IGT_LITE
void primepair_subtest_cleanup_push(void (*fn)(void *data), void *data)
{
	__igt_subtest_cleanup_push(fn, data);
}

void primepair_subtest_cleanup_pop(bool run)
{
	__igt_subtest_cleanup_pop(run);
}
#else
/* Upstream IGT has no hook at the end of a subtest: a stack and no more */
static struct {
	void (*fn)(void *data);
	void *data;
} pp_cleanups[8];
static unsigned int pp_nr_cleanups;

void primepair_subtest_cleanup_push(void (*fn)(void *data), void *data)
{
	igt_assert(pp_nr_cleanups < sizeof(pp_cleanups) / sizeof(pp_cleanups[0]));
	pp_cleanups[pp_nr_cleanups].fn = fn;
	pp_cleanups[pp_nr_cleanups].data = data;
	pp_nr_cleanups++;
}

void primepair_subtest_cleanup_pop(bool run)
{
	igt_assert(pp_nr_cleanups > 0);
	pp_nr_cleanups--;
	if (run)
		pp_cleanups[pp_nr_cleanups].fn(pp_cleanups[pp_nr_cleanups].data);
}
#endif

/* ---- device nodes -------------------------------------------------- */

int primepair_open_driver_nth(const char *driver_name, unsigned int n)
{
	int fd = pp_open_nth(driver_name, n, false);

	igt_require_f(fd >= 0, "No DRM card #%u of driver %s found\n",
		      n, driver_name);
	igt_debug("Using card fd %d as %s #%u\n", fd, driver_name, n);
	errno = 0;
	return fd;
}

int primepair_open_render_nth(const char *driver_name, unsigned int n)
{
	int fd = pp_open_nth(driver_name, n, true);

	igt_require_f(fd >= 0, "No DRM render node #%u of driver %s found\n",
		      n, driver_name);
	igt_debug("Using render fd %d as %s #%u\n", fd, driver_name, n);
	errno = 0;
	return fd;
}

int primepair_open_driver(const char *driver_name)
{
	return primepair_open_driver_nth(driver_name, 0);
}

int primepair_open_render(const char *driver_name)
{
	return primepair_open_render_nth(driver_name, 0);
}

int primepair_open_device(const char *spec, const char *default_driver,
			  bool render)
{
	return pp_open_device(spec, default_driver, render);
}

int primepair_require_device(const char *spec, const char *default_driver,
			     bool render)
{
	int fd = primepair_open_device(spec, default_driver, render);

	igt_require_f(fd >= 0, "No %s node for \"%s\": %s\n",
		      render ? "render" : "primary", spec ?: default_driver,
		      strerror(errno));
	errno = 0;
	return fd;
}

int primepair_device_opt(int opt, int opt_index, void *data)
{
	struct primepair_device_specs *specs = data;

	switch (opt) {
	case PRIMEPAIR_OPT_DISPLAY:
		specs->display = optarg;
		return IGT_OPT_HANDLER_SUCCESS;
	case PRIMEPAIR_OPT_RENDER:
		specs->render = optarg;
		return IGT_OPT_HANDLER_SUCCESS;
	default:
		return IGT_OPT_HANDLER_ERROR;
	}
}

const char *primepair_tools_dir(void)
{
	static char dir[4096];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	igt_assert_lt(0, n);
	dir[n] = 0;
	slash = strrchr(dir, '/');
	igt_assert(slash);
	*slash = 0;				/* .../bin/tests */
	slash = strrchr(dir, '/');
	if (slash && !strcmp(slash, "/tests"))
		*slash = 0;			/* .../bin */
	return dir;
}

/* ---- "name: value" files ------------------------------------------- */

bool primepair_debugfs_read_u64(const char *file, const char *key,
				uint64_t *val)
{
	bool found = pp_counter_read(file, key, val) == 0;

	errno = 0;
	return found;
}

uint64_t primepair_summary(const char *key)
{
	uint64_t val = 0;

	igt_assert_f(primepair_debugfs_read_u64(PRIMEPAIR_SUMMARY_PATH, key, &val),
		     "no counter \"%s\" in %s\n", key, PRIMEPAIR_SUMMARY_PATH);
	return val;
}

/*
 * The DMA segments primebuf's debugfs lists as mapped for @device, over
 * every buffer: each line ends in "dev=segments" pairs, "*" marking the
 * owner's own attachment.
 */
unsigned int primepair_mapped_segments(const char *device)
{
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");
	unsigned int total = 0;
	char line[1024];

	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char *last = strrchr(line, ' '), *tok, *save;

		if (line[0] == '#' || !last)
			continue;
		for (tok = strtok_r(last + 1, ",\n", &save); tok;
		     tok = strtok_r(NULL, ",\n", &save)) {
			char *eq = strchr(tok, '=');

			if (*tok == '*')
				tok++;
			if (eq && (size_t)(eq - tok) == strlen(device) &&
			    !strncmp(tok, device, eq - tok))
				total += strtoul(eq + 1, NULL, 10);
		}
	}
	fclose(f);
	return total;
}

void primepair_debugfs_assert_zero(const char *file)
{
	uint64_t val = 0;
	char key[128];
	int ret;

	ret = pp_counter_first_nonzero(file, NULL, key, sizeof(key), &val);
	igt_assert_f(ret >= 0, "cannot read %s: %s\n", file, strerror(-ret));
	errno = 0;
	igt_assert_f(ret == 0, "%s: %s is %llu, expected 0\n",
		     file, key, (unsigned long long)val);
}

void primepair_assert_summary_zero(void)
{
	uint64_t v = 0;
	char key[64];
	int ret;

	/*
	 * A reference dropped by a kernel thread (a job's last reference to
	 * an import) releases its dma-buf file through the kernel's delayed
	 * fput, a tick later: allow the counters a moment to settle.
	 */
	for (int tries = 0; tries < 100; tries++) {
		for (size_t i = 0; pp_live_counters[i]; i++)
			primepair_summary(pp_live_counters[i]);	/* all exist */
		ret = pp_counter_first_nonzero(PRIMEPAIR_SUMMARY_PATH,
					       pp_live_counters, key,
					       sizeof(key), &v);
		igt_assert_f(ret >= 0, "cannot read %s: %s\n",
			     PRIMEPAIR_SUMMARY_PATH, strerror(-ret));
		if (!ret)
			return;
		usleep(20000);
	}
	/*
	 * A failed subtest skipped its own cleanup: the buffers it still
	 * maps or holds stay until the process exits.  The run has failed
	 * already; a second failure here would only hide the first.
	 */
	if (igt_failed()) {
		igt_info("%s: %s is %llu after a failed subtest, whose cleanup did not run\n",
			 PRIMEPAIR_SUMMARY_PATH, key, (unsigned long long)v);
		return;
	}
	igt_assert_f(!ret, "%s: %s is %llu, expected 0\n",
		     PRIMEPAIR_SUMMARY_PATH, key, (unsigned long long)v);
}

/* ---- CRC-32 -------------------------------------------------------- */

uint32_t primepair_crc32(uint32_t crc, const void *buf, size_t len)
{
	return pp_crc32(crc, buf, len);
}

/* ---- kernel log ---------------------------------------------------- */

int primepair_kmsg_mark(void)
{
	const char *subtest = igt_subtest_name();
	char mark[512];
	int rfd, wfd, ret;

	rfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	lseek(rfd, 0, SEEK_END);

	wfd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (wfd < 0)
		goto out_close_rfd;
	/* one write() per record; stdio would split it and seek (EINVAL) */
	snprintf(mark, sizeof(mark), "primepair-igt: %s%s%s: mark\n",
		 igt_test_name(), subtest ? "/" : "", subtest ?: "");
	ret = write(wfd, mark, strlen(mark));
	close(wfd);
	if (ret < 0)
		goto out_close_rfd;

	errno = 0;
	return rfd;

out_close_rfd:
	ret = errno;
	close(rfd);
	errno = ret;
	return -1;
}

bool primepair_kmsg_find(int fd, const char *needle)
{
	char record[8192];
	bool found = false;

	for (;;) {
		ssize_t len = read(fd, record, sizeof(record) - 1);
		char *text;

		if (len < 0 && errno == EPIPE)
			continue;	/* records overwritten; go on */
		if (len <= 0)
			break;
		record[len] = '\0';
		/* "prio,seq,usec,flags;text\n" followed by " KEY=value" lines */
		text = strchr(record, ';');
		if (text && strstr(text + 1, needle))
			found = true;
	}
	errno = 0;
	return found;
}

/* ---- module parameters ----------------------------------------------- */

void primepair_reload_module(const char *name, const char *params)
{
	char cmd[512];
	int ret;

	igt_require_f(getuid() == 0, "reloading %s needs root\n", name);

	snprintf(cmd, sizeof(cmd), "rmmod %s", name);
	ret = system(cmd);
	igt_assert_f(ret == 0, "%s failed: is a device still open?\n", cmd);

	snprintf(cmd, sizeof(cmd), "modprobe %s %s", name, params);
	ret = system(cmd);
	igt_assert_f(ret == 0, "%s failed\n", cmd);
}

uint64_t primepair_summary_settle(const char *key, uint64_t expected)
{
	uint64_t v = primepair_summary(key);

	for (int tries = 0; v != expected && tries < 100; tries++) {
		usleep(20000);
		v = primepair_summary(key);
	}
	return v;
}

/* ---- primebuf_selftest's exporter ------------------------------------ */

/* The test exporter's one ioctl (dma-buf/primebuf_selftest.c) */
#define PRIMEBUF_SELFTEST_EXPORT	_IO('P', 0x01)

int primepair_selftest_export(uint64_t size)
{
	int fd = open("/sys/kernel/debug/primebuf_selftest/test_exporter",
		      O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, PRIMEBUF_SELFTEST_EXPORT, (unsigned long)size);
	if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int primepair_uevent_open(void)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,
	};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	igt_require(fd >= 0);
	igt_require(bind(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	return fd;
}

bool primepair_uevent_hotplug(int fd)
{
	char buf[4096];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (poll(&pfd, 1, 1000) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		bool hotplug = false, drm = false;
		ssize_t off;

		if (n <= 0)
			return false;
		buf[n] = 0;
		for (off = 0; off < n; off += strlen(buf + off) + 1) {
			if (!strcmp(buf + off, "HOTPLUG=1"))
				hotplug = true;
			if (!strcmp(buf + off, "SUBSYSTEM=drm"))
				drm = true;
		}
		if (hotplug && drm)
			return true;
	}
	return false;
}

void primepair_sysfs_write(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);

	igt_assert_f(fd >= 0, "open %s: %m\n", path);
	igt_assert_f(write(fd, value, strlen(value)) == (ssize_t)strlen(value),
		     "write %s to %s: %m\n", value, path);
	close(fd);
}

#define PRIMEPAIR_CGROOT	"/sys/fs/cgroup"

/* @value into @dir/@file, all of it; 0 or -errno (no assert: children) */
static int primepair_cg_write(const char *dir, const char *file,
			      const char *value)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, value, strlen(value));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	return n == (ssize_t)strlen(value) ? 0 : -EIO;
}

static void primepair_cg_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, PRIMEPAIR_CGROOT "/%s", name);
}

void primepair_memcg_create(const char *name, const char *max)
{
	char buf[256] = "", dir[256];
	ssize_t n = -1;
	int fd;

	if (access(PRIMEPAIR_CGROOT "/cgroup.controllers", F_OK)) {
		mkdir(PRIMEPAIR_CGROOT, 0755);
		igt_require(mount("cgroup2", PRIMEPAIR_CGROOT, "cgroup2", 0,
				  NULL) == 0);
	}
	fd = open(PRIMEPAIR_CGROOT "/cgroup.controllers", O_RDONLY);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	igt_require_f(n > 0 && strstr(buf, "memory"),
		      "no memory controller in cgroup v2\n");
	igt_assert_eq(primepair_cg_write(PRIMEPAIR_CGROOT,
					 "cgroup.subtree_control", "+memory"), 0);
	primepair_cg_path(name, dir, sizeof(dir));
	igt_assert(mkdir(dir, 0755) == 0 || errno == EEXIST);
	igt_assert_eq(primepair_cg_write(dir, "memory.max", max), 0);
	/* Absent without swap accounting: then there is no swap to use. */
	primepair_cg_write(dir, "memory.swap.max", "0");
}

int primepair_memcg_join(const char *name)
{
	char dir[256];

	primepair_cg_path(name, dir, sizeof(dir));
	return primepair_cg_write(dir, "cgroup.procs", "0");
}

void primepair_memcg_remove(const char *name)
{
	char dir[256];

	primepair_cg_path(name, dir, sizeof(dir));
	rmdir(dir);
}

/* Whether a 9p filesystem is mounted within this process's root */
static bool primepair_9p_mounted(void)
{
	char line[512], type[64];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "r");

	igt_assert(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %63s", type) == 1 &&
			!strcmp(type, "9p");
	fclose(f);
	return found;
}

static uint64_t primepair_suspend_successes(void)
{
	unsigned long long n;
	FILE *f = fopen("/sys/power/suspend_stats/success", "r");

	igt_assert_f(f, "/sys/power/suspend_stats/success: %m\n");
	igt_assert_eq(fscanf(f, "%llu", &n), 1);
	fclose(f);
	return n;
}

int __primepair_suspend_cycle(const char *level)
{
	uint64_t before;
	int fd, ret = 0;

	igt_require(access("/sys/power/pm_test", W_OK) == 0);
	igt_require_f(!primepair_9p_mounted(),
		      "a virtio-9p filesystem is mounted, which does not survive suspend\n");
	before = primepair_suspend_successes();
	primepair_sysfs_write("/sys/power/pm_test", level);
	fd = open("/sys/power/state", O_WRONLY);
	igt_assert_f(fd >= 0, "open /sys/power/state: %m\n");
	if (write(fd, "mem", 3) != 3)
		ret = -errno;
	close(fd);
	primepair_sysfs_write("/sys/power/pm_test", "none");
	igt_assert_eq_u64(primepair_suspend_successes(), before + !ret);
	return ret;
}

void primepair_suspend_cycle(const char *level)
{
	igt_assert_eq(__primepair_suspend_cycle(level), 0);
}

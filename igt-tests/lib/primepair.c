// SPDX-License-Identifier: GPL-2.0
/*
 * primepair.c - device lookup, debugfs counters, CRC-32 and kernel log
 * markers for primepair's tests.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "igt_core.h"
#include "primepair.h"

#define DRI_DIR "/dev/dri"

/* ---- device nodes -------------------------------------------------- */

static const char *node_prefix;	/* for the scandir() filter */

static int node_filter(const struct dirent *de)
{
	size_t len = strlen(node_prefix);

	return !strncmp(de->d_name, node_prefix, len) &&
	       isdigit((unsigned char)de->d_name[len]);
}

/* in minor number order: card2 before card10 */
static int node_compare(const struct dirent **a, const struct dirent **b)
{
	size_t len = strlen(node_prefix);

	return atoi((*a)->d_name + len) - atoi((*b)->d_name + len);
}

static bool driver_is(int fd, const char *driver_name)
{
	drmVersionPtr version = drmGetVersion(fd);
	bool match;

	if (!version)
		return false;
	match = version->name && !strcmp(version->name, driver_name);
	drmFreeVersion(version);
	return match;
}

/* open @name if it is driven by @driver_name and is the @n-th such node */
static int try_node(const char *name, const char *driver_name,
		    unsigned int n, unsigned int *seen)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), DRI_DIR "/%s", name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!driver_is(fd, driver_name) || (*seen)++ != n) {
		close(fd);
		return -1;
	}

	igt_debug("Using %s as %s #%u\n", path, driver_name, n);
	return fd;
}

/* the @n-th /dev/dri/<prefix>N node of @driver_name, or -1 */
static int open_nth_node(const char *prefix, const char *driver_name,
			 unsigned int n)
{
	struct dirent **nodes;
	unsigned int seen = 0;
	int count, i, fd = -1;

	node_prefix = prefix;
	count = scandir(DRI_DIR, &nodes, node_filter, node_compare);
	if (count < 0)
		return -1;

	for (i = 0; i < count; i++) {
		if (fd < 0)
			fd = try_node(nodes[i]->d_name, driver_name, n, &seen);
		free(nodes[i]);
	}
	free(nodes);
	return fd;
}

int primepair_open_driver_nth(const char *driver_name, unsigned int n)
{
	int fd = open_nth_node("card", driver_name, n);

	igt_require_f(fd >= 0, "No DRM card #%u of driver %s found\n",
		      n, driver_name);
	errno = 0;
	return fd;
}

int primepair_open_render_nth(const char *driver_name, unsigned int n)
{
	int fd = open_nth_node("renderD", driver_name, n);

	igt_require_f(fd >= 0, "No DRM render node #%u of driver %s found\n",
		      n, driver_name);
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
	const char *prefix = render ? "renderD" : "card";
	char driver[64];
	unsigned int n = 0;
	const char *colon;
	int fd;

	if (!spec)
		spec = default_driver;
	if (strchr(spec, '/'))
		return open(spec, O_RDWR | O_CLOEXEC);

	colon = strchr(spec, ':');
	if (colon) {
		char *end;

		errno = 0;
		n = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end ||
		    (size_t)(colon - spec) >= sizeof(driver)) {
			errno = EINVAL;
			return -1;
		}
	}
	snprintf(driver, sizeof(driver), "%.*s",
		 (int)(colon ? colon - spec : (ptrdiff_t)strlen(spec)), spec);
	fd = open_nth_node(prefix, driver, n);
	if (fd < 0)
		errno = ENODEV;
	return fd;
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

/*
 * Split @line into its key (trimmed, before the first ':') and numeric value.
 * Returns false for a line without ':' or without a number after it.
 */
static bool parse_counter(char *line, char **key, uint64_t *val)
{
	char *colon = strchr(line, ':'), *end, *p;
	unsigned long long v;

	if (!colon)
		return false;

	*colon = '\0';
	while (isspace((unsigned char)*line))
		line++;
	for (p = colon; p > line && isspace((unsigned char)p[-1]); p--)
		p[-1] = '\0';
	*key = line;

	p = colon + 1;
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return false;

	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		v = strtoull(p + 2, &end, 16);
	else
		v = strtoull(p, &end, 10);
	if (errno || (*end && !isspace((unsigned char)*end)))
		return false;

	*val = v;
	return true;
}

bool primepair_debugfs_read_u64(const char *file, const char *key,
				uint64_t *val)
{
	char *line = NULL, *k;
	size_t size = 0;
	bool found = false;
	uint64_t v;
	FILE *f;

	f = fopen(file, "re");
	if (!f)
		return false;

	while (!found && getline(&line, &size, f) >= 0)
		if (parse_counter(line, &k, &v) && !strcmp(k, key)) {
			*val = v;
			found = true;
		}

	free(line);
	fclose(f);
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

void primepair_debugfs_assert_zero(const char *file)
{
	char *line = NULL, *key, first[128] = "";
	uint64_t val, nonzero = 0;
	size_t size = 0;
	FILE *f;

	f = fopen(file, "re");
	igt_assert_f(f, "cannot open %s\n", file);

	while (!nonzero && getline(&line, &size, f) >= 0) {
		if (parse_counter(line, &key, &val) && val) {
			/* copied out: the assertion below does not return */
			snprintf(first, sizeof(first), "%s", key);
			nonzero = val;
		}
	}
	free(line);
	fclose(f);

	errno = 0;
	igt_assert_f(nonzero == 0, "%s: %s is %llu, expected 0\n",
		     file, first, (unsigned long long)nonzero);
}

void primepair_assert_summary_zero(void)
{
	static const char * const live[] = { PRIMEPAIR_LIVE_COUNTERS };
	const char *key = NULL;
	uint64_t v = 0;

	/*
	 * A reference dropped by a kernel thread (a job's last reference to
	 * an import) releases its dma-buf file through the kernel's delayed
	 * fput, a tick later: allow the counters a moment to settle.
	 */
	for (int tries = 0; tries < 100; tries++) {
		key = NULL;
		for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
			v = primepair_summary(live[i]);
			if (v) {
				key = live[i];
				break;
			}
		}
		if (!key)
			return;
		usleep(20000);
	}
	igt_assert_f(!key, "%s: %s is %llu, expected 0\n",
		     PRIMEPAIR_SUMMARY_PATH, key, (unsigned long long)v);
}

/* ---- CRC-32 -------------------------------------------------------- */

static uint32_t crc32_table[256];

static void crc32_init_table(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t r = i;

		for (int bit = 0; bit < 8; bit++)
			r = (r >> 1) ^ (r & 1 ? 0xedb88320u : 0);
		crc32_table[i] = r;
	}
}

uint32_t primepair_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc32_table[1])	/* entry 0 is 0 by construction */
		crc32_init_table();

	crc = ~crc;
	while (len--)
		crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
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

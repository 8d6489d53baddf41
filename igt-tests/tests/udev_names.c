// SPDX-License-Identifier: GPL-2.0
/*
 * udev_names - the shipped udev rule names every node by driver and
 * instance, and opens render nodes to every user
 *
 * Runs the rule through `udevadm test` (no udev daemon needed) for each
 * DRM node of vdisplay and vrender and checks the links and modes.
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "igt.h"
#include "primepair.h"

#define RULE "udev/60-primepair.rules"

/* Run the rules for /sys/class/drm/@node; return its output */
static char *udev_test(const char *node)
{
	static char out[65536];
	char cmd[512];
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "udevadm test /sys/class/drm/%s 2>&1", node);
	p = popen(cmd, "r");
	igt_assert(p);
	while (len < sizeof(out) - 1) {
		size_t n = fread(out + len, 1, sizeof(out) - 1 - len, p);

		if (!n)
			break;
		len += n;
	}
	out[len] = '\0';
	pclose(p);
	return out;
}

/* The platform device a DRM node hangs off, e.g. "vrender.1" */
static bool parent_of(const char *node, char *name, size_t len)
{
	char path[512], target[512];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "/sys/class/drm/%s/device", node);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	slash = strrchr(target, '/');
	slash = slash ? slash + 1 : target;
	if (strlen(slash) >= len)
		return false;
	memcpy(name, slash, strlen(slash) + 1);
	return true;
}

igt_main
{
	igt_fixture {
		igt_require(getuid() == 0);
		igt_require(system("command -v udevadm >/dev/null") == 0);
		igt_require(access(RULE, R_OK) == 0);
		igt_assert_eq(system("mkdir -p /run/udev/rules.d && "
				     "cp " RULE " /run/udev/rules.d/"), 0);
	}

	igt_describe("Every vdisplay and vrender node gets its by-name link (vdisplay.0 also vdisplay-card); render nodes are 0666, KMS nodes 0660");
	igt_subtest("by-name-links") {
		struct dirent *de;
		int seen = 0;
		DIR *d;

		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, "instances=2");
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "devices=2");
		d = opendir("/sys/class/drm");
		igt_assert(d);
		while ((de = readdir(d))) {
			char parent[64], link[128];
			bool render = !strncmp(de->d_name, "renderD", 7);
			const char *out;

			if (strncmp(de->d_name, "card", 4) && !render)
				continue;
			if (strchr(de->d_name, '-'))
				continue;	/* connectors */
			if (!parent_of(de->d_name, parent, sizeof(parent)))
				continue;
			if (strncmp(parent, "vdisplay.", 9) &&
			    strncmp(parent, "vrender.", 8))
				continue;

			out = udev_test(de->d_name);
			/* the short name is device 0's alone */
			igt_assert_f(!strstr(out, "/dev/dri/by-name/vdisplay-card") ==
				     !!strcmp(parent, "vdisplay.0"),
				     "%s (%s): vdisplay-card link wrong in:\n%s\n",
				     de->d_name, parent, out);
			snprintf(link, sizeof(link), "/dev/dri/by-name/%s-%s",
				 parent, render ? "render" : "card");
			igt_info("%s (%s) -> %s\n", de->d_name, parent, link);
			igt_assert_f(strstr(out, link), "%s: no %s in:\n%s\n",
				     de->d_name, link, out);
			igt_assert_f(strstr(out, render ? "MODE 0666" :
						       "MODE 0660"),
				     "%s: wrong mode in:\n%s\n", de->d_name, out);
			seen++;
		}
		closedir(d);
		/* two vdisplay cards, two vrender instances with card + render */
		igt_assert_eq(seen, 6);
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, "");
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	}

	igt_fixture {
		unlink("/run/udev/rules.d/60-primepair.rules");
	}
}

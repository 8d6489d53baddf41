// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_clients - real KMS clients on vdisplay
 *
 * modetest (libdrm-tests) lists vdisplay's resources, sets a mode with its
 * test pattern, and page-flips with -v at the mode's refresh rate, about
 * 60 Hz (its "freq:" lines; each must stay below 62 Hz, and the
 * average above 40 Hz: a driver without vblank flips thousands of times a
 * second, while the guest under TCG on a loaded host loses some frames).  kmscube renders with Mesa's software
 * renderer on GBM (kms_swrast) and its frames reach the screen: the CRC of
 * the composed picture changes as the cube turns.  Clients run as child
 * processes on the host's binaries; the test reads the result through its
 * own non-master fd and debugfs.  kmscube-debian13 runs Debian 13's
 * kmscube and Mesa 25 from the root tools/build-root makes (children in
 * that root, see primepair_child_set_root()).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_child.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("modetest and kmscube on vdisplay");

static void run_capture(const char *cmd, char *buf, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	igt_assert(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	igt_assert_eq(pclose(f), 0);
}

static void test_modetest_list(struct primepair_kms *kms)
{
	static char out[1 << 16];

	run_capture("modetest -M vdisplay -c", out, sizeof(out));
	igt_assert(strstr(out, "Virtual-1"));
	igt_assert(strstr(out, "connected"));
	igt_assert(strstr(out, "640x480"));
	run_capture("modetest -M vdisplay -p", out, sizeof(out));
	igt_assert(strstr(out, "XR24 AR24 XB24 AB24 RG16"));
	igt_assert(strstr(out, "zpos"));
	igt_assert(strstr(out, "pixel blend mode"));
}

static void test_modetest_set(struct primepair_kms *kms, bool vsync)
{
	static char out[1 << 16];
	struct primepair_output *o = &kms->outputs[0];
	char spec[64];
	char *argv[] = { "modetest", "-M", "vdisplay", "-s", spec,
			 vsync ? "-v" : NULL, NULL };
	unsigned int nfreq = 0;
	double sum = 0, f;
	struct primepair_child c;
	char *p;

	snprintf(spec, sizeof(spec), "%u@%u:640x480", o->connector_id,
		 o->crtc_id);
	primepair_child_start(&c, argv, NULL);
	igt_assert_eq(primepair_wait_crtc_on(kms->fd, o->crtc_id, 10000), 640);

	if (!vsync) {
		/* The test pattern is on screen: CRCs of a still picture */
		struct primepair_crc crc;
		uint64_t frame;
		uint32_t a, b;

		primepair_crc_start(kms, o, &crc);
		primepair_crc_get(&crc, &frame, &a);
		primepair_crc_get(&crc, &frame, &b);
		igt_assert_eq_u32(a, b);
		primepair_crc_stop(&crc);
	} else {
		sleep(4);
	}
	igt_assert_eq(primepair_child_finish(&c, out, sizeof(out)), 0);
	igt_debug("%s\n", out);

	if (!vsync)
		return;
	/* "freq: 59.98Hz" about every 2 s; the first one may be short */
	for (p = out; (p = strstr(p, "freq: ")); p++) {
		igt_assert_eq(sscanf(p, "freq: %lfHz", &f), 1);
		igt_info("modetest -v: %.2f Hz\n", f);
		igt_assert_f(f > 40.0 && f < 62.0, "flipping at %.2f Hz\n", f);
		sum += f;
		nfreq++;
	}
	igt_assert_lt(0, nfreq);
	igt_assert_f(sum / nfreq > 40.0, "average %.2f Hz\n", sum / nfreq);
}

/*
 * kmscube on vdisplay, the host's (@root NULL) or the one of the Debian
 * root @root with that root's Mesa
 */
static void test_kmscube(struct primepair_kms *kms, const char *root)
{
	static char out[1 << 16];
	struct primepair_output *o = &kms->outputs[0];
	char dev[64];
	char *argv[] = { "kmscube", "-D", dev, "-c", "100000", NULL };
	char *env[] = { "GBM_ALWAYS_SOFTWARE=1", "LIBGL_ALWAYS_SOFTWARE=1",
			NULL };
	uint32_t crcs[8];
	unsigned int i, n, distinct = 0;
	struct primepair_crc crc;
	struct stat st;
	struct primepair_child c;
	uint64_t frame;
	bool found;

	primepair_child_set_root(root);
	found = primepair_child_installed("kmscube");
	if (!found)
		primepair_child_set_root(NULL);
	igt_require_f(found, "kmscube is not installed\n");
	igt_assert_eq(fstat(kms->fd, &st), 0);
	snprintf(dev, sizeof(dev), "/dev/dri/card%u", minor(st.st_rdev));
	primepair_child_start(&c, argv, env);
	primepair_child_set_root(NULL);
	igt_assert_f(primepair_wait_crtc_on(kms->fd, o->crtc_id, 20000),
		     "kmscube did not set a mode\n");

	/*
	 * llvmpipe under TCG draws a few frames per second after a slow
	 * start, fewer on a busy host: look at up to 60 s of frames (one
	 * CRC each) for three different pictures.
	 */
	primepair_crc_start(kms, o, &crc);
	for (n = 0; n < 3600 && distinct < ARRAY_SIZE(crcs); n++) {
		uint32_t value;

		primepair_crc_get(&crc, &frame, &value);
		for (i = 0; i < distinct; i++)
			if (crcs[i] == value)
				break;
		if (i == distinct)
			crcs[distinct++] = value;
		if (distinct >= 3)
			break;
	}
	primepair_crc_stop(&crc);

	primepair_child_stop(&c, SIGTERM, 5000, out, sizeof(out));
	igt_debug("%s\n", out);
	igt_info("kmscube: %u distinct CRCs in %u frames\n", distinct, n + 1);
	/* A turning cube: new pictures keep reaching the screen. */
	igt_assert_lte(3, distinct);
}

igt_main
{
	struct primepair_kms kms = {};

	igt_fixture {
		igt_require(system("command -v modetest >/dev/null") == 0);
		primepair_kms_open(&kms);
		/* The clients need DRM master: this fd gives it up. */
		drmDropMaster(kms.fd);
	}

	igt_subtest("modetest-list")
		test_modetest_list(&kms);
	igt_subtest("modetest-set-mode")
		test_modetest_set(&kms, false);
	igt_subtest("modetest-vsync-flips")
		test_modetest_set(&kms, true);
	igt_subtest("kmscube-swrast")
		test_kmscube(&kms, NULL);
	igt_describe("Debian 13's kmscube and Mesa, from the root tools/build-root makes, turn their cube on vdisplay");
	igt_subtest("kmscube-debian13") {
		const char *root = primepair_debian13_root();

		igt_require_f(root, "no Debian 13 root with its guest programs (tools/setup)\n");
		test_kmscube(&kms, root);
	}

	igt_fixture {
		close(kms.fd);
		primepair_assert_summary_zero();
	}
}

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
 *
 * The kmscube subtests also take a picture of the running cube from
 * vdisplay's writeback (primepair_capture(): kmscube is paused while
 * its master fd leases the CRTC and the writeback connector for a
 * frame), check that it is the frame on screen, that it shows a cube on
 * kmscube's grey, and that the cube turns on afterwards.
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

#include <drm_fourcc.h>

#include "igt.h"
#include "libprimepair.h"
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
 * kmscube clears to grey, (0.5, 0.5, 0.5), and its cube turns about the
 * origin, in the middle of the picture, so it always covers the centre
 * and never a corner.
 */
static void check_kmscube_picture(const struct pp_capture *cap)
{
	const uint32_t *px = cap->pixels;
	const uint32_t w = cap->width, h = cap->height;
	const uint32_t corners[] = {
		px[0], px[w - 1], px[(h - 1) * w], px[(h - 1) * w + w - 1]
	};
	uint32_t grey = corners[0] & 0xffffff;
	uint32_t centre = px[h / 2 * w + w / 2] & 0xffffff;
	unsigned int i;

	igt_info("kmscube's picture: corners 0x%06x, centre 0x%06x\n", grey,
		 centre);
	for (i = 0; i < ARRAY_SIZE(corners); i++)
		igt_assert_eq_u32(corners[i] & 0xffffff, grey);
	igt_assert_f(grey == 0x7f7f7f || grey == 0x808080,
		     "the background is 0x%06x, not kmscube's grey\n", grey);
	igt_assert_f(centre != grey, "no cube in the middle\n");
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
	struct pp_capture cap;
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
	/* Mesa's start takes over 20 s under a debug kernel on a busy host */
	igt_assert_f(primepair_wait_crtc_on(kms->fd, o->crtc_id, 60000),
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
	igt_info("kmscube: %u distinct CRCs in %u frames\n", distinct, n + 1);
	/* A turning cube: new pictures keep reaching the screen. */
	igt_assert_lte(3, distinct);

	/* Its picture from writeback; kmscube goes on turning after. */
	primepair_capture(kms, o, c.pid, &cap);
	check_kmscube_picture(&cap);
	igt_assert_eq(primepair_crc_count_new(kms, o, ~cap.crc, 1, 3600), 1);
	pp_capture_free(&cap);

	primepair_child_stop(&c, SIGTERM, 5000, out, sizeof(out));
	igt_debug("%s\n", out);
}

/* The state letter of process @pid (R, S, T, ...), from /proc */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	igt_assert(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	igt_assert(p && p[1] == ' ');
	return p[2];
}

/* What a held process (primepair_held_start()) does on vdisplay */
struct master_setup {
	struct primepair_kms *kms;
	struct primepair_output *o;
	bool open_card;	/* open the primary node: DRM master */
	bool show;	/* and show vrender's PATTERN of frame 7 on @o */
};

/*
 * Open vdisplay's primary node, becoming DRM master (the test's own fd
 * has dropped it), switch every output off, and with @show light output
 * @o with the PATTERN picture of frame 7 through a legacy SETCRTC
 */
static bool master_setup(void *arg)
{
	const struct master_setup *m = arg;
	struct primepair_output *o = m->o;
	uint32_t w = o->mode.hdisplay, h = o->mode.vdisplay, x, y;
	unsigned int i;
	struct pp_fb fb;
	char node[64];
	struct stat st;
	int fd;

	if (!m->open_card)
		return true;
	if (fstat(m->kms->fd, &st))
		return false;
	snprintf(node, sizeof(node), "/dev/dri/card%u", minor(st.st_rdev));
	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0 || !drmIsMaster(fd))
		return false;
	for (i = 0; i < m->kms->noutputs; i++)
		drmModeSetCrtc(fd, m->kms->outputs[i].crtc_id, 0, 0, 0, NULL, 0,
			       NULL);
	if (!m->show)
		return true;
	if (pp_fb_create(fd, w, h, DRM_FORMAT_XRGB8888, &fb) ||
	    pp_fb_map(fd, &fb) || pp_fb_add(fd, &fb))
		return false;
	for (y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)((char *)fb.map + y * fb.pitch);

		for (x = 0; x < w; x++)
			row[x] = pp_pattern_pixel(x, y, 7);
	}
	return !drmModeSetCrtc(fd, o->crtc_id, fb.fb_id, 0, 0,
			       &o->connector_id, 1, &o->mode);
}

static pid_t start_master(struct primepair_kms *kms,
			  struct primepair_output *o, bool open_card,
			  bool show)
{
	struct master_setup m = {
		.kms = kms, .o = o, .open_card = open_card, .show = show,
	};

	return primepair_held_start(master_setup, &m);
}

/*
 * A picture of a master that shows a known frame: pixel for pixel that
 * frame, the same while the master is paused, and the master is running
 * again after with its CRTC as it was.
 */
static void test_capture_master(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	uint32_t w = o->mode.hdisplay, h = o->mode.vdisplay;
	unsigned int wrong = 0;
	struct pp_capture cap;
	drmModeCrtcPtr crtc;
	uint32_t x, y;
	pid_t pid;

	igt_require(o->wb_connector_id);
	pid = start_master(kms, o, true, true);
	primepair_capture(kms, o, pid, &cap);
	igt_assert_eq_u32(cap.width, w);
	igt_assert_eq_u32(cap.height, h);
	for (y = 0; y < h; y++) {
		const uint32_t *row = (const uint32_t *)((const char *)cap.pixels +
							 y * cap.stride);

		for (x = 0; x < w; x++)
			wrong += (row[x] & 0xffffff) !=
				 (pp_pattern_pixel(x, y, 7) & 0xffffff);
	}
	pp_capture_free(&cap);
	igt_assert_eq_u32(wrong, 0);

	/* running again, and its CRTC shows its framebuffer in its mode */
	igt_assert(proc_state(pid) != 'T');
	crtc = drmModeGetCrtc(kms->fd, o->crtc_id);
	igt_assert(crtc && crtc->mode_valid && crtc->buffer_id);
	igt_assert_eq(crtc->mode.hdisplay, w);
	igt_assert_eq(crtc->mode.vdisplay, h);
	drmModeFreeCrtc(crtc);
	primepair_held_stop(pid);
}

/*
 * tools/kms-capture told to stop (SIGTERM, as timeout(1) sends) at any
 * point of its capture: the master runs again afterwards, the writeback
 * connector is off its CRTC, and the CRTC shows what it showed.  The
 * signal lands from before the capture starts to after it ends, a step
 * further each round.  How long a capture takes varies from run to run
 * and between kernels (0.2 to 0.5 s under TCG), so a first capture that
 * runs to its end sets the steps: 16 of them from 0 to twice its time.
 */
static pid_t interrupted_master;

static void stop_interrupted_master(void *data)
{
	primepair_held_stop(interrupted_master);
}

/*
 * A held master lit on @o, to be captured by kms-capture, whose argv
 * @tool and @pidarg (sizes as in the callers) then name; the master is
 * ended with SIGKILL when the subtest ends, stopped or not, however it
 * ends.
 */
static pid_t start_capture_target(struct primepair_kms *kms,
				  struct primepair_output *o, char tool[300],
				  char pidarg[16])
{
	pid_t pid;

	igt_require(o->wb_connector_id);
	snprintf(tool, 300, "%s/kms-capture", primepair_tools_dir());
	igt_require_f(access(tool, X_OK) == 0, "no %s\n", tool);
	pid = start_master(kms, o, true, true);
	interrupted_master = pid;
	primepair_subtest_cleanup_push(stop_interrupted_master, NULL);
	snprintf(pidarg, 16, "%d", (int)pid);
	return pid;
}

static void test_capture_interrupted(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	char tool[300], pidarg[16], out[1024];
	char *argv[] = { tool, pidarg, NULL };
	struct primepair_child c;
	unsigned int i, captured = 0, full_ms, step_us;
	struct timespec start = {};
	drmModeCrtcPtr crtc;
	uint64_t wb_crtc;
	pid_t pid;

	pid = start_capture_target(kms, o, tool, pidarg);

	/* one capture left alone, to its picture */
	igt_nsec_elapsed(&start);
	primepair_child_start(&c, argv, NULL);
	igt_assert_f(primepair_child_expect(&c, "captured ", out, sizeof(out),
					    30000),
		     "kms-capture left alone took no picture in 30 s\n");
	full_ms = igt_nsec_elapsed(&start) / 1000000;
	igt_assert_eq(primepair_child_finish(&c, out, sizeof(out)), 0);
	step_us = full_ms * 1000 * 2 / 15;
	igt_info("a whole capture took %u ms: a step of %u us\n", full_ms,
		 step_us);

	for (i = 0; i < 16; i++) {
		primepair_child_start(&c, argv, NULL);
		usleep(i * step_us);
		primepair_child_stop(&c, SIGTERM, 30000, out, sizeof(out));
		captured += strstr(out, "captured ") != NULL;
		igt_assert_f(proc_state(pid) != 'T',
			     "the master stays stopped after a SIGTERM %u us into kms-capture\n",
			     i * step_us);
		igt_assert_eq(pp_prop_value(kms->fd, o->wb_connector_id,
					    DRM_MODE_OBJECT_CONNECTOR,
					    "CRTC_ID", &wb_crtc), 0);
		igt_assert_f(wb_crtc == 0,
			     "writeback left on CRTC %u after a SIGTERM %u us into kms-capture\n",
			     (unsigned int)wb_crtc, i * step_us);
	}
	igt_info("%u of 16 rounds ended with a picture\n", captured);

	crtc = drmModeGetCrtc(kms->fd, o->crtc_id);
	igt_assert(crtc && crtc->mode_valid && crtc->buffer_id);
	drmModeFreeCrtc(crtc);
	primepair_subtest_cleanup_pop(true);
}

/*
 * kms-capture killed with SIGKILL right after it stopped the master for
 * its picture: it cannot send SIGCONT, and its guardian must.
 */
static void test_capture_killed(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	char tool[300], pidarg[16], out[1024];
	char *argv[] = { tool, pidarg, NULL };
	unsigned int round, killed = 0;
	struct primepair_child c;
	drmModeCrtcPtr crtc;
	pid_t pid;

	pid = start_capture_target(kms, o, tool, pidarg);
	for (round = 0; round < 20 && killed < 5; round++) {
		bool stopped = false;
		int i;

		primepair_child_start(&c, argv, NULL);
		for (i = 0; i < 20000 && !stopped; i++) {
			stopped = proc_state(pid) == 'T';
			if (!stopped)
				usleep(200);
		}
		primepair_child_stop(&c, SIGKILL, 30000, out, sizeof(out));
		if (!stopped)
			continue;
		killed++;
		for (i = 0; i < 200 && proc_state(pid) == 'T'; i++)
			usleep(10000);
		igt_assert_f(proc_state(pid) != 'T',
			     "the master stays stopped 2 s after kms-capture was killed (round %u)\n",
			     round);
	}
	igt_info("%u of %u rounds killed kms-capture with the master stopped\n",
		 killed, round);
	igt_assert_lt(0, killed);

	/* still lit, as it was; and a capture left alone still works */
	crtc = drmModeGetCrtc(kms->fd, o->crtc_id);
	igt_assert(crtc && crtc->mode_valid && crtc->buffer_id);
	drmModeFreeCrtc(crtc);
	primepair_child_start(&c, argv, NULL);
	igt_assert_f(primepair_child_expect(&c, "captured ", out, sizeof(out),
					    30000),
		     "kms-capture took no picture after the killed ones\n");
	igt_assert_eq(primepair_child_finish(&c, out, sizeof(out)), 0);
	igt_assert(proc_state(pid) != 'T');
	primepair_subtest_cleanup_pop(true);
}

/*
 * What pp_capture_process() refuses, with the reason, leaving the
 * process as it found it: running, or stopped if it was.
 */
static void test_capture_refused(struct primepair_kms *kms)
{
	struct primepair_output *o = &kms->outputs[0];
	struct pp_capture cap = { 0 };
	pid_t pid;

	/* the caller itself: it would stop itself */
	igt_assert_eq(pp_capture_process(getpid(), 0, 0, &cap), -EINVAL);
	igt_info("self: %s\n", cap.error);

	/* a process with no DRM fd */
	pid = start_master(kms, o, false, false);
	igt_assert_eq(pp_capture_process(pid, 0, 0, &cap), -ENOENT);
	igt_info("no DRM fd: %s\n", cap.error);
	igt_assert(strstr(cap.error, "no DRM master"));
	igt_assert(proc_state(pid) != 'T');
	primepair_held_stop(pid);

	/* a master that lights nothing: running after, or stopped if it was */
	pid = start_master(kms, o, true, false);
	igt_assert_eq(pp_capture_process(pid, 0, 0, &cap), -ENOENT);
	igt_info("nothing lit: %s\n", cap.error);
	igt_assert(strstr(cap.error, "no CRTC is lit"));
	igt_assert(proc_state(pid) != 'T');
	kill(pid, SIGSTOP);
	while (proc_state(pid) != 'T')
		usleep(1000);
	igt_assert_eq(pp_capture_process(pid, 0, 0, &cap), -ENOENT);
	igt_assert_eq(proc_state(pid), 'T');
	kill(pid, SIGCONT);
	primepair_held_stop(pid);

	/* a process that is gone */
	igt_assert_eq(pp_capture_process(pid, 0, 0, &cap), -ESRCH);
	igt_info("gone: %s\n", cap.error);
	igt_assert(!cap.pixels);
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

	/*
	 * Each subtest that starts clients first kills those an earlier
	 * one left running (primepair_child_start() ones; held processes
	 * are the subtests' own to stop): a failed subtest leaves its
	 * clients behind, and one that holds DRM master fails the next.
	 */
	igt_subtest("modetest-list")
		test_modetest_list(&kms);
	igt_subtest("modetest-set-mode") {
		primepair_child_kill_all();
		test_modetest_set(&kms, false);
	}
	igt_subtest("modetest-vsync-flips") {
		primepair_child_kill_all();
		test_modetest_set(&kms, true);
	}
	igt_describe("A picture of a running DRM master's output from vdisplay's writeback, without its help: its frame to the pixel");
	igt_subtest("writeback-capture-master") {
		primepair_child_kill_all();
		test_capture_master(&kms);
	}
	igt_describe("tools/kms-capture ended by SIGTERM at any point: the master runs again, with its CRTC as it was and no writeback on it");
	igt_subtest("writeback-capture-interrupted") {
		primepair_child_kill_all();
		test_capture_interrupted(&kms);
	}
	igt_describe("kms-capture killed with SIGKILL while the master is stopped for its picture: its guardian continues the master, which stays lit and can be captured again");
	igt_subtest("writeback-capture-killed") {
		primepair_child_kill_all();
		test_capture_killed(&kms);
	}
	igt_describe("What the capture refuses (itself, no DRM fd, nothing lit, a process gone), leaving the process as it was");
	igt_subtest("writeback-capture-refused") {
		primepair_child_kill_all();
		test_capture_refused(&kms);
	}
	igt_subtest("kmscube-swrast") {
		primepair_child_kill_all();
		test_kmscube(&kms, NULL);
	}
	igt_describe("Debian 13's kmscube and Mesa, from the root tools/build-root makes, turn their cube on vdisplay");
	igt_subtest("kmscube-debian13") {
		const char *root = primepair_debian13_root();

		primepair_child_kill_all();
		igt_require_f(root, "no Debian 13 root with its guest programs (tools/setup)\n");
		test_kmscube(&kms, root);
	}

	igt_fixture {
		close(kms.fd);
		primepair_assert_summary_zero();
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * compositor_weston - weston's DRM backend on vdisplay, with clients
 *
 * Debian's weston 10 runs on vdisplay as DRM master, as root on a VT
 * (--tty), with fullscreen-shell: the guest has no input devices, and
 * weston 10's desktop and kiosk shells never map a window without a seat,
 * while fullscreen-shell shows the client's surface on the output at once.
 *
 * pixman-simple-shm, gl-simple-shm: weston's pixman renderer, or its GL
 *   renderer on Mesa's kms_swrast, shows weston-simple-shm's animation:
 *   the CRC of the composed output leaves the empty screen's value and
 *   keeps changing.  Weston then exits 0 on SIGTERM.
 * gl-vrender-dmabuf-*: tools/wl-vrender renders frames on vrender and
 *   hands them to weston as dma-bufs (zwp_linux_dmabuf_v1).  vdisplay's CRC
 *   of the output equals the CRC vrender computed of the client's last
 *   frame, so the client's pixels reached the screen unchanged.
 *   -composited: the buffers carry DRM_FORMAT_MOD_INVALID, the only
 *   modifier weston's GL renderer lists on kms_swrast.  Weston's own plane
 *   check then keeps them off vdisplay's planes (which list LINEAR), and
 *   composes them with llvmpipe: kms_swrast imports each dma-buf into
 *   vdisplay and reads it through MAP_DUMB of the imported handle.
 *   -scanout: the buffers are named LINEAR, which they are; weston puts the
 *   client's buffer on the primary plane, and the plane's framebuffer is
 *   the client's own dma-buf (same inode): vdisplay scans out vrender's
 *   memory with no copy.
 *
 * debian13-*: the same with Debian 13's weston 14 and Mesa 25, from the
 *   root tools/build-root makes (children run in that root, see
 *   primepair_child_set_root()).  weston 14 takes its seat from seatd,
 *   started by the test, and shows windows with kiosk-shell.
 *   -writeback-capture: weston 14 (--debug) hands tools/wl-capture a
 *   picture of its output taken through vdisplay's writeback connector
 *   (weston_capture_v1); it is wl-vrender's frame to the bit.
 *
 * The test reads CRCs through its own fd, which gave up DRM master.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_child.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("weston on vdisplay, with shm and vrender dma-buf clients");

#define SOCKET_NAME	"primepair-weston"
#define SHM_CLIENT_FRAMES	3600	/* frames to wait for a client's pictures */

struct weston {
	struct primepair_child child;
	struct primepair_child seatd;	/* weston 14's seat, from debian13 */
	bool has_seatd;
	char runtime[64];	/* XDG_RUNTIME_DIR, 0700 */
	char log[96];
	char socket[128];
	char env_runtime[96];
	char env_display[64];
};

static char out[1 << 16];

/* The Debian 13 root whose weston 14 the debian13-* subtests run, or NULL */
static const char *debian13;

/*
 * weston 14 takes its seat from libseat, here from seatd (as root, as a
 * session manager would run it), where weston 10 opened the VT itself.
 */
static void seatd_start(struct weston *w)
{
	char *argv[] = { "seatd", NULL };
	int i;

	igt_require_f(primepair_child_installed("seatd"), "no seatd\n");
	unlink("/run/seatd.sock");
	primepair_child_start(&w->seatd, argv, NULL);
	w->has_seatd = true;
	for (i = 0; i < 200 && access("/run/seatd.sock", F_OK); i++)
		usleep(50000);
	igt_assert_f(access("/run/seatd.sock", F_OK) == 0,
		     "seatd did not open /run/seatd.sock\n");
}

/* weston's log among the debug messages, which a failure prints */
static void weston_dump_log(void *data)
{
	struct weston *w = data;
	FILE *f = fopen(w->log, "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		igt_debug("weston: %s", line);
	fclose(f);
}

/* weston_start() flags */
#define WESTON_PIXMAN	(1u << 0)	/* the pixman renderer, not GL */
#define WESTON_DEBUG	(1u << 1)	/* --debug: any client may capture outputs */

/* Start weston on vdisplay and wait for its socket and its mode set */
static void weston_start(struct weston *w, struct primepair_kms *kms,
			 unsigned int flags)
{
	bool pixman = flags & WESTON_PIXMAN;
	struct primepair_output *o = &kms->outputs[0];
	char card[32], drm_device[48], log_arg[128];
	char *argv[] = {
		"weston", "--backend=drm-backend.so", "--tty=2",
		"--continue-without-input", "--shell=fullscreen-shell.so",
		"--idle-time=0", "--socket=" SOCKET_NAME, drm_device, log_arg,
		pixman ? "--use-pixman" : NULL, NULL
	};
	/* weston 14: no --tty, kiosk-shell maps windows without a seat */
	char *argv14[] = {
		"weston", "--backend=drm", drm_device,
		"--continue-without-input", "--shell=kiosk", "--idle-time=0",
		"--socket=" SOCKET_NAME, log_arg,
		pixman ? "--renderer=pixman" : "--renderer=gl",
		flags & WESTON_DEBUG ? "--debug" : NULL, NULL
	};
	char *env[] = { w->env_runtime, "GBM_ALWAYS_SOFTWARE=1",
			"LIBGL_ALWAYS_SOFTWARE=1", "LIBSEAT_BACKEND=seatd", NULL };
	struct stat st;
	int i;

	igt_require_f(primepair_child_installed("weston"), "weston is not installed\n");
	igt_require_f(access("/dev/tty2", R_OK | W_OK) == 0,
		      "weston needs a VT: no /dev/tty2\n");
	primepair_child_kill_all();	/* what a failed subtest left */
	w->has_seatd = false;
	if (debian13)
		seatd_start(w);

	snprintf(w->runtime, sizeof(w->runtime), "/tmp/primepair-wl-XXXXXX");
	igt_assert(mkdtemp(w->runtime));	/* mode 0700 */
	snprintf(w->log, sizeof(w->log), "%s/weston.log", w->runtime);
	snprintf(w->socket, sizeof(w->socket), "%s/%s", w->runtime,
		 SOCKET_NAME);
	snprintf(w->env_runtime, sizeof(w->env_runtime), "XDG_RUNTIME_DIR=%s",
		 w->runtime);
	snprintf(w->env_display, sizeof(w->env_display), "WAYLAND_DISPLAY=%s",
		 SOCKET_NAME);
	igt_assert_eq(fstat(kms->fd, &st), 0);
	snprintf(card, sizeof(card), "card%u", minor(st.st_rdev));
	snprintf(drm_device, sizeof(drm_device), "--drm-device=%s", card);
	snprintf(log_arg, sizeof(log_arg), "--log=%s", w->log);

	primepair_child_start(&w->child, debian13 ? argv14 : argv, env);
	/* however the subtest fails while weston runs, its log is shown */
	primepair_subtest_cleanup_push(weston_dump_log, w);
	for (i = 0; i < 600 && access(w->socket, F_OK); i++)
		usleep(50000);
	igt_assert_f(access(w->socket, F_OK) == 0,
		     "weston did not open %s in 30 s\n", w->socket);
	igt_assert_f(primepair_wait_crtc_on(kms->fd, o->crtc_id, 20000),
		     "weston did not light the output\n");
}

/* SIGTERM: weston shuts down and exits 0 */
static void weston_stop(struct weston *w)
{
	int status = primepair_child_stop(&w->child, SIGTERM, 20000, out,
					  sizeof(out));

	primepair_subtest_cleanup_pop(status != 0);
	igt_assert_f(status == 0, "weston exited with status %d\n", status);
	if (w->has_seatd) {
		status = primepair_child_stop(&w->seatd, SIGTERM, 10000, out,
					      sizeof(out));
		igt_assert_f(status == 0, "seatd exited with status %d\n",
			     status);
	}
	unlink(w->log);
	rmdir(w->runtime);
}

static void client_start(struct primepair_child *c, struct weston *w,
			 char *const argv[])
{
	char *env[] = { w->env_runtime, w->env_display, NULL };

	primepair_child_start(c, argv, env);
}

static void test_simple_shm(struct primepair_kms *kms, bool pixman)
{
	char *argv[] = { "weston-simple-shm", NULL };
	struct primepair_child client;
	struct weston w;
	uint32_t idle;

	igt_require(primepair_child_installed("weston-simple-shm"));
	weston_start(&w, kms, pixman ? WESTON_PIXMAN : 0);
	idle = primepair_crc_still(kms, &kms->outputs[0], 60);

	client_start(&client, &w, argv);
	/*
	 * llvmpipe composes a few frames a second under TCG, fewer on a
	 * debug kernel with the host loaded (2 pictures in 1200 frames on
	 * 6.1 with KASAN and lockdep): up to 60 s for either renderer.
	 */
	igt_assert_eq(primepair_crc_count_new(kms, &kms->outputs[0], idle, 3,
					      SHM_CLIENT_FRAMES), 3);

	/* simple-shm leaves on SIGTERM: "simple-shm exiting", status 0 */
	igt_assert_eq(primepair_child_stop(&client, SIGTERM, 10000, out,
					   sizeof(out)), 0);
	weston_stop(&w);
}

/* The inode of the dma-buf behind the primary plane's framebuffer */
static unsigned long scanout_ino(struct primepair_kms *kms)
{
	drmModePlanePtr plane = drmModeGetPlane(kms->fd,
						kms->outputs[0].primary);
	drmModeFB2Ptr fb;
	struct stat st;
	int dmabuf;

	igt_assert(plane && plane->fb_id);
	/* As root, GETFB2 gives this fd a handle to the framebuffer's BO. */
	fb = drmModeGetFB2(kms->fd, plane->fb_id);
	igt_assert(fb && fb->handles[0]);
	igt_assert_eq(drmPrimeHandleToFD(kms->fd, fb->handles[0], DRM_CLOEXEC,
					 &dmabuf), 0);
	igt_assert_eq(fstat(dmabuf, &st), 0);
	close(dmabuf);
	drmCloseBufferHandle(kms->fd, fb->handles[0]);
	drmModeFreeFB2(fb);
	drmModeFreePlane(plane);
	return st.st_ino;
}

/*
 * tools/wl-capture asks weston for a picture of its output from
 * writeback: weston routes the CRTC to vdisplay's writeback connector for
 * a frame and hands the client what vdisplay composed.  Returns the
 * picture's CRC-32 (zlib's) and checks its size and the PNG written.
 */
static uint32_t writeback_capture(struct weston *w, uint32_t width,
				  uint32_t height)
{
	char tool[300], png[160], line[256], fmt[8], src[16];
	char *argv[] = { tool, "--png", png, NULL };
	static const unsigned char signature[8] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
	};
	unsigned char head[8];
	unsigned int cw, ch, crc;
	struct primepair_child capture;
	int fd;

	snprintf(tool, sizeof(tool), "%s/wl-capture", primepair_tools_dir());
	igt_require_f(access(tool, X_OK) == 0, "no %s\n", tool);
	snprintf(png, sizeof(png), "%s/capture.png", w->runtime);

	client_start(&capture, w, argv);
	igt_assert_f(primepair_child_expect(&capture, "captured ", line,
					    sizeof(line), 60000),
		     "wl-capture got no picture from weston\n");
	igt_info("%s\n", line);
	igt_assert_eq(primepair_child_finish(&capture, out, sizeof(out)), 0);
	igt_assert_eq(sscanf(line, "captured source=%15s width=%u height=%u format=%4s crc=%x",
			     src, &cw, &ch, fmt, &crc), 5);
	igt_assert_eq(strcmp(src, "writeback"), 0);
	igt_assert_eq(cw, width);
	igt_assert_eq(ch, height);

	fd = open(png, O_RDONLY);
	igt_assert_f(fd >= 0, "wl-capture wrote no %s\n", png);
	igt_assert_eq(read(fd, head, sizeof(head)), (ssize_t)sizeof(head));
	close(fd);
	igt_assert(!memcmp(head, signature, sizeof(head)));
	unlink(png);
	return crc;
}

static void test_vrender_dmabuf(struct primepair_kms *kms, bool linear,
				bool capture)
{
	char client_path[300], line[256];
	char *argv[] = { client_path, "--frames", "12", "--hold", "--modifier",
			 linear ? "linear" : "implicit", NULL };
	unsigned int frame, width, height, crc, n;
	struct primepair_child client;
	unsigned long ino;
	struct primepair_crc c;
	drmModeCrtcPtr crtc;
	struct weston w;
	uint64_t seq;
	uint32_t v = 0;

	snprintf(client_path, sizeof(client_path), "%s/wl-vrender",
		 primepair_tools_dir());
	igt_require_f(access(client_path, X_OK) == 0, "no %s\n", client_path);
	close(primepair_open_render(PRIMEPAIR_RENDER_DRIVER));
	weston_start(&w, kms, capture ? WESTON_DEBUG : 0);

	client_start(&client, &w, argv);
	igt_assert_f(primepair_child_expect(&client, "shown ", line,
					    sizeof(line), 120000),
		     "wl-vrender did not show its frames\n");
	igt_info("%s\n", line);
	igt_assert_eq(sscanf(line, "shown frame=%u width=%u height=%u crc=%x ino=%lu",
			     &frame, &width, &height, &crc, &ino), 5);
	/* fullscreen: the client's buffers have the size of weston's mode */
	crtc = drmModeGetCrtc(kms->fd, kms->outputs[0].crtc_id);
	igt_assert(crtc && crtc->mode_valid);
	igt_assert_eq(width, crtc->mode.hdisplay);
	igt_assert_eq(height, crtc->mode.vdisplay);
	drmModeFreeCrtc(crtc);

	/*
	 * vdisplay's CRC is the CRC-32 register over the composed frame,
	 * without zlib's final inversion: the client's frame, pixel for
	 * pixel, reads as ~crc.
	 */
	primepair_crc_start(kms, &kms->outputs[0], &c);
	for (n = 0; n < 120; n++) {
		primepair_crc_get(&c, &seq, &v);
		if (v == ~crc)
			break;
	}
	primepair_crc_stop(&c);
	igt_assert_f(v == ~crc,
		     "screen CRC 0x%08x, client's frame 0x%08x (inverted)\n",
		     v, ~crc);

	if (linear) {
		/* Direct scanout: the plane shows the client's buffer itself. */
		igt_assert_eq_u64(scanout_ino(kms), ino);
	} else {
		/* Composed: into weston's own framebuffer */
		igt_assert_neq_u64(scanout_ino(kms), ino);
	}

	/*
	 * What weston gets back from vdisplay's writeback is the client's
	 * frame to the bit, and the output goes on showing it after.
	 */
	if (capture) {
		igt_assert_eq_u32(writeback_capture(&w, width, height), crc);
		igt_assert_eq_u32(primepair_crc_still(kms, &kms->outputs[0], 10),
				  v);
	}

	igt_assert_eq(primepair_child_finish(&client, out, sizeof(out)), 0);
	weston_stop(&w);
}

igt_main
{
	struct primepair_kms kms = {};

	igt_fixture {
		primepair_kms_open(&kms);
		/* weston needs DRM master: this fd gives it up. */
		drmDropMaster(kms.fd);
	}

	igt_subtest("pixman-simple-shm")
		test_simple_shm(&kms, true);
	igt_subtest("gl-simple-shm")
		test_simple_shm(&kms, false);
	igt_subtest("gl-vrender-dmabuf-composited")
		test_vrender_dmabuf(&kms, false, false);
	igt_subtest("gl-vrender-dmabuf-scanout")
		test_vrender_dmabuf(&kms, true, false);

	/* Debian 13's weston 14, Mesa 25 and clients */
	igt_subtest_group {
		igt_fixture {
			debian13 = primepair_debian13_root();
			igt_require_f(debian13, "no Debian 13 root with its guest programs (tools/setup)\n");
			primepair_child_set_root(debian13);
		}
		igt_describe("weston 14's GL renderer on Mesa 25's kms_swrast shows weston-simple-shm's animation");
		igt_subtest("debian13-gl-simple-shm")
			test_simple_shm(&kms, false);
		igt_describe("weston 14 scans out wl-vrender's LINEAR dma-bufs directly, the screen's CRC the client's");
		igt_subtest("debian13-gl-vrender-dmabuf-scanout")
			test_vrender_dmabuf(&kms, true, false);
		igt_describe("weston 14 captures its output from vdisplay's writeback: the client's frame to the bit");
		igt_subtest("debian13-writeback-capture")
			test_vrender_dmabuf(&kms, true, true);
		igt_fixture {
			primepair_child_set_root(NULL);
			debian13 = NULL;
		}
	}

	igt_fixture {
		close(kms.fd);
		primepair_assert_summary_zero();
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * compositor_sway - sway (wlroots) on vdisplay, as an unprivileged user
 *
 * sway refuses to run as root, so it runs as "nobody" and gets the KMS
 * node from seatd (started by the test as root, seatd -u nobody), the way
 * a desktop session does.  With only the DRM backend (WLR_BACKENDS=drm)
 * it needs no input devices.  The test then shows weston-presentation-shm
 * (an animated wl_shm client that takes a new buffer whenever the
 * compositor holds the others, and asks for presentation feedback) in
 * sway's single workspace, and checks through vdisplay's CRC that its
 * animation reaches the screen.  It then takes a picture of sway's output
 * from vdisplay's writeback (primepair_capture(): sway is paused while
 * its master fd leases the CRTC and the writeback connector for a frame;
 * wlroots itself uses no writeback connector), checks that it is the
 * frame on screen and shows the client's window on sway's background,
 * and that the animation goes on afterwards.  sway exits 0 on SIGTERM.
 *
 * pixman-shm: wlroots' pixman renderer, on dumb buffers that wlroots
 *   exports and re-imports through PRIME before ADDFB2.  (It keeps a
 *   client's last two shm buffers, which makes weston-simple-shm, with
 *   two, abort: "Both buffers busy at redraw()".)
 * gles2-shm: wlroots' GLES2 renderer on Mesa's kms_swrast
 *   (WLR_RENDERER_ALLOW_SOFTWARE=1).  wlroots opens vdisplay's primary
 *   node itself for EGL (vdisplay has no render node), so the node gets
 *   the group and mode udev/60-primepair.rules gives it (video, 0660)
 *   and sway runs in group video.
 *
 * gles2-multi-gpu: two vdisplay devices (devices=2) in WLR_DRM_DEVICES;
 *   wlroots renders on the first and brings each frame to the second's
 *   output through PRIME (see test_multi_gpu()).
 *
 * debian13-gles2-shm: the same with Debian 13's sway 1.10, seatd, Mesa 25
 *   and weston-presentation-shm, from the root tools/build-root makes
 *   (children run in that root, see primepair_child_set_root()).
 *
 * wlroots 0.15 offers zwp_linux_dmabuf_v1 only with a renderer on a
 * render node, which a display-only device does not have; dma-buf
 * clients are tested with weston (compositor_weston).
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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
#include "libprimepair.h"
#include "primepair.h"
#include "primepair_child.h"
#include "primepair_kms.h"

IGT_TEST_DESCRIPTION("sway on vdisplay as an unprivileged user, with seatd");

#define USER		"nobody"
#define SEATD_SOCK	"/run/seatd.sock"
/* weston-presentation-shm's window, in pixels a side */
#define CLIENT_SIZE	250

#define MAX_CARDS	2
#define SHM_CLIENT_FRAMES	3600	/* frames to wait for a client's pictures */

struct sway {
	struct primepair_child seatd, sway;
	char runtime[64];
	char config[96];
	unsigned int ncards;
	struct primepair_kms *kms;	/* the devices, @ncards of them */
	char card[MAX_CARDS][32];
	struct stat card_st[MAX_CARDS];	/* owner and mode, to restore */
	char env_home[96], env_runtime[96], env_renderer[64], env_devices[80];
	char env_display[64];
};

static char out[1 << 16];

static void sway_dump(const char *what)
{
	const char *p = out;

	while (*p) {
		const char *nl = strchrnul(p, '\n');

		igt_debug("%s: %.*s\n", what, (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

/* The wayland-N socket sway opened in @dir, waiting up to 60 s */
static bool find_socket(const char *dir, char *name, size_t len)
{
	char path[160];
	int i, n;

	for (i = 0; i < 1200; i++) {
		for (n = 0; n < 10; n++) {
			snprintf(path, sizeof(path), "%s/wayland-%d", dir, n);
			if (!access(path, F_OK)) {
				snprintf(name, len, "wayland-%d", n);
				return true;
			}
		}
		usleep(50000);
	}
	return false;
}

/*
 * Start seatd and sway with @renderer on the vdisplay devices @kms[0..n),
 * the first one wlroots' primary GPU, sway's config @extra appended to
 * the test's.  Returns once sway lit the CRTC of @lit.
 */
static void sway_start(struct sway *s, struct primepair_kms *kms,
		       unsigned int n, const char *renderer,
		       const char *extra, struct primepair_kms *lit)
{
	char *seatd_argv[] = { "seatd", "-u", USER, NULL };
	char *sway_argv[] = { "setpriv", "--reuid=" USER, "--regid=nogroup",
			      "--groups=video", "sway", "-c", s->config, NULL };
	char *env[] = { s->env_home, s->env_runtime, s->env_renderer,
			s->env_devices, "LIBSEAT_BACKEND=seatd",
			"WLR_BACKENDS=drm", "WLR_LIBINPUT_NO_DEVICES=1",
			"WLR_RENDERER_ALLOW_SOFTWARE=1",
			"GBM_ALWAYS_SOFTWARE=1", NULL };
	struct passwd *pw;
	struct group *video;
	char socket[32];
	unsigned int c;
	size_t len;
	FILE *f;
	int i;

	igt_require_f(primepair_child_installed("sway") &&
		      primepair_child_installed("seatd") &&
		      primepair_child_installed("setpriv"),
		      "sway, seatd or setpriv is not installed\n");
	pw = getpwnam(USER);
	video = getgrnam("video");
	igt_require_f(pw && video, "no user " USER " or no group video\n");
	igt_assert(n >= 1 && n <= MAX_CARDS);
	primepair_child_kill_all();	/* what a failed subtest left */

	/* The runtime directory and the config, as a session would have */
	snprintf(s->runtime, sizeof(s->runtime), "/tmp/primepair-sway-XXXXXX");
	igt_assert(mkdtemp(s->runtime));
	igt_assert_eq(chown(s->runtime, pw->pw_uid, pw->pw_gid), 0);
	snprintf(s->config, sizeof(s->config), "%s/config", s->runtime);
	f = fopen(s->config, "w");
	igt_assert(f);
	fputs("xwayland disable\ndefault_border none\n", f);
	if (extra)
		fputs(extra, f);
	fclose(f);

	/* What udev/60-primepair.rules gives vdisplay's KMS nodes */
	len = snprintf(s->env_devices, sizeof(s->env_devices),
		       "WLR_DRM_DEVICES=");
	s->ncards = n;
	s->kms = kms;
	for (c = 0; c < n; c++) {
		igt_assert_eq(fstat(kms[c].fd, &s->card_st[c]), 0);
		snprintf(s->card[c], sizeof(s->card[c]), "/dev/dri/card%u",
			 minor(s->card_st[c].st_rdev));
		igt_assert_eq(chown(s->card[c], 0, video->gr_gid), 0);
		igt_assert_eq(chmod(s->card[c], 0660), 0);
		len += snprintf(s->env_devices + len,
				sizeof(s->env_devices) - len, "%s%s",
				c ? ":" : "", s->card[c]);
		igt_assert_lt(len, sizeof(s->env_devices));
	}

	snprintf(s->env_home, sizeof(s->env_home), "HOME=%s", s->runtime);
	snprintf(s->env_runtime, sizeof(s->env_runtime), "XDG_RUNTIME_DIR=%s",
		 s->runtime);
	snprintf(s->env_renderer, sizeof(s->env_renderer), "WLR_RENDERER=%s",
		 renderer);

	unlink(SEATD_SOCK);
	primepair_child_start(&s->seatd, seatd_argv, NULL);
	for (i = 0; i < 200 && access(SEATD_SOCK, F_OK); i++)
		usleep(50000);
	igt_assert_f(access(SEATD_SOCK, F_OK) == 0, "seatd did not start\n");

	primepair_child_start(&s->sway, sway_argv, env);
	igt_assert_f(find_socket(s->runtime, socket, sizeof(socket)),
		     "sway opened no Wayland socket in 60 s\n");
	snprintf(s->env_display, sizeof(s->env_display), "WAYLAND_DISPLAY=%s",
		 socket);
	igt_assert_f(primepair_wait_crtc_on(lit->fd, lit->outputs[0].crtc_id,
					    30000),
		     "sway did not light the output\n");
}

static void sway_stop(struct sway *s)
{
	int status = primepair_child_stop(&s->sway, SIGTERM, 20000, out,
					  sizeof(out));
	unsigned int c;

	if (status)
		sway_dump("sway");
	igt_assert_f(status == 0, "sway exited with status %d\n", status);
	primepair_child_stop(&s->seatd, SIGTERM, 5000, out, sizeof(out));
	/*
	 * wlroots 0.18 lets its framebuffers go with CLOSEFB (6.8 on),
	 * which leaves its last frame on screen for the next DRM master, as
	 * for a flicker-free hand-over: be that master, and switch off.
	 */
	for (c = 0; c < s->ncards; c++) {
		igt_assert_eq(drmSetMaster(s->kms[c].fd), 0);
		primepair_disable_all(&s->kms[c]);
		igt_assert_eq(drmDropMaster(s->kms[c].fd), 0);
	}
	for (c = 0; c < s->ncards; c++) {
		igt_assert_eq(chown(s->card[c], s->card_st[c].st_uid,
				    s->card_st[c].st_gid), 0);
		igt_assert_eq(chmod(s->card[c], s->card_st[c].st_mode & 07777),
			      0);
	}
	unlink(s->config);
	rmdir(s->runtime);
}

/*
 * weston-presentation-shm's window is 250x250 and takes no other size,
 * so sway centres it in the space it would tile.  Is the picture that:
 * something drawn in the centred square, and sway's background all
 * around it?
 */
static bool sway_picture_ok(const struct pp_capture *cap)
{
	const uint32_t *px = cap->pixels;
	const uint32_t w = cap->width, h = cap->height;
	const uint32_t x0 = (w - CLIENT_SIZE) / 2, y0 = (h - CLIENT_SIZE) / 2;
	uint32_t bg = px[0] & 0xffffff, x, y, drawn = 0, stray = 0;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			bool inside = x - x0 < CLIENT_SIZE && y - y0 < CLIENT_SIZE;

			if ((px[y * w + x] & 0xffffff) == bg)
				continue;
			if (inside)
				drawn++;
			else
				stray++;
		}
	}
	igt_info("sway's picture: background 0x%06x, %u pixels of the client's window drawn, %u outside it\n",
		 bg, drawn, stray);
	return drawn && !stray;
}

static void test_shm_client(struct primepair_kms *kms, const char *renderer,
			    unsigned int max_frames)
{
	/* it prints a line per frame: nobody reads them */
	char *argv[] = { "sh", "-c",
			 "exec weston-presentation-shm >/dev/null", NULL };
	struct primepair_child client;
	unsigned int tries;
	struct pp_capture cap;
	uint32_t idle;
	bool ok;
	struct sway s;
	char *env[] = { s.env_runtime, s.env_display, NULL };

	igt_require(primepair_child_installed("weston-presentation-shm"));
	sway_start(&s, kms, 1, renderer, NULL, kms);
	idle = primepair_crc_still(kms, &kms->outputs[0], 120);

	primepair_child_start(&client, argv, env);
	igt_assert_eq(primepair_crc_count_new(kms, &kms->outputs[0], idle, 3,
					      max_frames), 3);

	/*
	 * sway's picture from writeback.  Under KASAN, sway 1.7 showed
	 * frames before the client's window and with the window at the top
	 * left before it centred it, and the new pictures waited for may
	 * be those: take pictures for up to 10 s until the window shows
	 * where it belongs.  The animation goes on after.
	 */
	for (tries = 0; ; tries++) {
		primepair_capture(kms, &kms->outputs[0], s.sway.pid, &cap);
		ok = sway_picture_ok(&cap);
		if (ok || tries == 20)
			break;
		pp_capture_free(&cap);
		usleep(500000);
	}
	igt_assert_f(ok, "no picture of the client's window in the middle of sway's background\n");
	igt_assert_eq(primepair_crc_count_new(kms, &kms->outputs[0], ~cap.crc,
					      1, max_frames), 1);
	pp_capture_free(&cap);
	igt_assert_eq(primepair_child_stop(&client, SIGTERM, 10000, out,
					   sizeof(out)), 0);
	sway_stop(&s);
}

/*
 * Buffers of vdisplay.0 that vdisplay.1 has attached through their
 * dma-buf, from primebuf's listing: a device's own mapping is starred,
 * an importer's is not.
 */
static unsigned int cross_attached(void)
{
	FILE *f = fopen("/sys/kernel/debug/primebuf/buffers", "r");
	char line[512];
	unsigned int n = 0;

	igt_assert(f);
	while (fgets(line, sizeof(line), f)) {
		char placement[16], tok[64];
		const char *p = line;
		int used, field = 0;

		if (line[0] == '#' ||
		    sscanf(line, "%*u %*u %15s", placement) != 1 ||
		    !strcmp(placement, "import"))
			continue;
		while (sscanf(p, "%63s%n", tok, &used) == 1) {
			p += used;
			if (++field > 9 && !strncmp(tok, "vdisplay.1=", 11)) {
				igt_info("%s", line);
				n++;
				break;
			}
		}
	}
	fclose(f);
	return n;
}

/*
 * Two vdisplay devices, WLR_DRM_DEVICES naming the first as wlroots'
 * primary GPU.  sway renders with GLES2 on the primary; the secondary's
 * output gets each frame through wlroots' multi-GPU copy, which imports
 * the primary's buffer into the secondary's EGL (PRIME: vdisplay.1
 * attaches vdisplay.0's dma-buf) and draws it into the secondary's own
 * scanout buffer.  The primary's output is disabled in sway's config, so
 * the client's workspace is on the secondary and its animation must
 * reach vdisplay.1's CRC.
 */
static void test_multi_gpu(struct primepair_kms *kms)
{
	char *argv[] = { "sh", "-c",
			 "exec weston-presentation-shm >/dev/null", NULL };
	struct primepair_child client;
	drmModeConnectorPtr conn;
	char extra[64];
	struct sway s;
	uint32_t idle;
	char *env[] = { s.env_runtime, s.env_display, NULL };

	igt_require(primepair_child_installed("weston-presentation-shm"));
	/* wlroots names a connector by its type and its type id */
	conn = drmModeGetConnector(kms[0].fd, kms[0].outputs[0].connector_id);
	igt_assert(conn && conn->connector_type == DRM_MODE_CONNECTOR_VIRTUAL);
	snprintf(extra, sizeof(extra), "output Virtual-%u disable\n",
		 conn->connector_type_id);
	drmModeFreeConnector(conn);

	sway_start(&s, kms, 2, "gles2", extra, &kms[1]);
	idle = primepair_crc_still(&kms[1], &kms[1].outputs[0], 120);

	primepair_child_start(&client, argv, env);
	igt_assert_eq(primepair_crc_count_new(&kms[1], &kms[1].outputs[0], idle,
					      3, 1800), 3);
	igt_assert_lt(0, cross_attached());
	igt_assert_eq(primepair_prop_value(kms[0].fd, kms[0].outputs[0].crtc_id,
					   DRM_MODE_OBJECT_CRTC, "ACTIVE"), 0);
	igt_assert_eq(primepair_child_stop(&client, SIGTERM, 10000, out,
					   sizeof(out)), 0);
	sway_stop(&s);
}

igt_main
{
	struct primepair_kms kms = {};

	igt_fixture {
		primepair_kms_open(&kms);
		/* sway needs DRM master: this fd gives it up. */
		drmDropMaster(kms.fd);
	}

	/*
	 * Up to 60 s of frames for three new pictures: under KASAN and
	 * lockdep, on a loaded host, the pixman renderer's first frames
	 * took up to 1669 frames (on stock kernels about 50).
	 */
	igt_subtest("pixman-shm")
		test_shm_client(&kms, "pixman", SHM_CLIENT_FRAMES);
	igt_subtest("gles2-shm")
		test_shm_client(&kms, "gles2", SHM_CLIENT_FRAMES);

	/* Debian 13's sway 1.10 (wlroots 0.18), seatd and Mesa 25 */
	igt_subtest_group {
		igt_fixture {
			const char *root = primepair_debian13_root();

			igt_require_f(root, "no Debian 13 root with its guest programs (tools/setup)\n");
			primepair_child_set_root(root);
		}
		igt_describe("sway 1.10's GLES2 renderer on Mesa 25's kms_swrast shows weston-presentation-shm's animation");
		igt_subtest("debian13-gles2-shm")
			test_shm_client(&kms, "gles2", SHM_CLIENT_FRAMES);
		igt_fixture
			primepair_child_set_root(NULL);
	}

	igt_fixture {
		close(kms.fd);
		primepair_assert_summary_zero();
	}

	igt_describe("Two vdisplay devices: sway renders on the first, wlroots' multi-GPU path brings each frame to the second through PRIME");
	igt_subtest("gles2-multi-gpu") {
		struct primepair_kms two[2];

		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "devices=2");
		primepair_kms_open_nth(&two[0], 0);
		primepair_kms_open_nth(&two[1], 1);
		drmDropMaster(two[0].fd);
		drmDropMaster(two[1].fd);
		test_multi_gpu(two);
		close(two[1].fd);
		close(two[0].fd);
		primepair_assert_summary_zero();
		primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	}
}

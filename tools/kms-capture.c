// SPDX-License-Identifier: GPL-2.0
/*
 * kms-capture - take one picture of what a running program shows through
 * KMS, from the device's writeback connector, without its help
 *
 *   kms-capture [--crtc ID] [--device PATH] [--png PATH] PID
 *
 * PID is the DRM master on screen: a compositor (sway, weston, ...) or a
 * bare KMS client (kmscube).  kms-capture pauses it for the frame, leases
 * its CRTC and the writeback connector from its master fd and takes what
 * the display controller composes: on vdisplay, the frame its composer
 * built, planes and all (see pp_capture_process() in libprimepair).  The
 * program goes on as it was.  Then it prints one line:
 *
 *   captured pid=P crtc=C width=W height=H crc=0xC
 *
 * C is the CRC-32 (zlib's) of the picture's rows, each W * 4 bytes of
 * XRGB8888 with X = 0xff, as tools/wl-capture and vrender's CHECKSUM
 * compute it.  --png writes the picture to PATH.  --crtc picks a CRTC of
 * the program's (default: the first lit one), --device the device when
 * the program is master of several.
 *
 * Needs ptrace rights over PID (root, or the same user with
 * kernel.yama.ptrace_scope 0) and a device with a writeback connector
 * for the CRTC.  Exits 0 on a picture, 1 with the reason otherwise.
 * SIGHUP, SIGINT, SIGQUIT and SIGTERM during the capture take effect once
 * the program runs again with its CRTC as it was (at most about 10 s).
 * SIGKILL ends kms-capture at once: a guardian process it forked then
 * lets the program go on, its writeback connector perhaps still routed
 * to the CRTC with no frame queued.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libprimepair.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: kms-capture [--crtc ID] [--device PATH] [--png PATH] PID\n");
	exit(2);
}

static unsigned long number(const char *s)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > 0x7fffffff)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "crtc", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "png", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct pp_capture cap = { 0 };
	sigset_t fatal, old;
	const char *png = NULL;
	struct stat st;
	dev_t rdev = 0;
	pid_t pid;
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			cap.crtc_id = number(optarg);
			break;
		case 'd':
			if (stat(optarg, &st) || !S_ISCHR(st.st_mode)) {
				fprintf(stderr, "kms-capture: %s is no device\n",
					optarg);
				return 1;
			}
			rdev = st.st_rdev;
			break;
		case 'p':
			png = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	pid = number(argv[optind]);

	/*
	 * The capture stops the program and routes the writeback connector
	 * to its CRTC.  A signal that would end us (timeout(1)'s SIGTERM, a
	 * ^C) waits until both are undone, within the capture's own
	 * timeouts, and then ends us as it would have.
	 */
	sigemptyset(&fatal);
	sigaddset(&fatal, SIGHUP);
	sigaddset(&fatal, SIGINT);
	sigaddset(&fatal, SIGQUIT);
	sigaddset(&fatal, SIGTERM);
	sigprocmask(SIG_BLOCK, &fatal, &old);
	ret = pp_capture_process(pid, rdev, 0, &cap);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		fprintf(stderr, "kms-capture: %s\n", cap.error);
		return 1;
	}
	printf("captured pid=%d crtc=%u width=%u height=%u crc=0x%08x\n",
	       (int)pid, cap.crtc_id, cap.width, cap.height, cap.crc);
	fflush(stdout);
	if (png && pp_png_write_xrgb(png, cap.pixels, cap.width, cap.height,
				     cap.stride)) {
		fprintf(stderr, "kms-capture: writing %s failed\n", png);
		ret = 1;
	}
	pp_capture_free(&cap);
	return ret ? 1 : 0;
}

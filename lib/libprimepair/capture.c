// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - a picture of what a running DRM master shows, from the
 * device's writeback connector.
 *
 * Writeback needs an atomic commit, and an atomic commit needs DRM
 * master, which the program on screen (a compositor, kmscube) holds.
 * So the capture borrows that master: it takes a duplicate of the
 * program's master fd (pidfd_getfd(), which needs ptrace rights over the
 * program), pauses the program with SIGSTOP so that none of its commits
 * race ours, and leases the program's CRTC, the writeback connector and
 * (where the program's file has universal planes) the CRTC's primary
 * plane to a lessee fd of our own.  The lessor keeps every object it
 * leases, so the program's state is not touched: no client cap of its
 * file changes and nothing we create lands in its file.  On the lessee
 * the writeback connector is routed to the CRTC with a framebuffer for
 * one frame, and then routed off again (both are modesets for the core,
 * which counts a writeback connector among the CRTC's connectors; the
 * planes and mode stay as they were).  Closing the lessee ends the lease
 * and SIGCONT lets the program go on.
 *
 * A capture killed with SIGKILL cannot send that SIGCONT.  A guardian
 * process, forked before the stop, sends it instead: it waits on a socket
 * for the capture's word that the program is as it should be left, and
 * continues the program if the socket closes without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "libprimepair.h"

/* How long the program may take to stop, and the writeback to land */
#define STOP_TIMEOUT_MS		5000
#define WRITEBACK_TIMEOUT_MS	5000

struct capture_ctx {
	struct pp_capture *cap;
	pid_t pid;
	int pidfd;
	int master;		/* our duplicate of the program's master fd */
	int query;		/* our own fd on the device, for enumeration */
	int lessee;
	int guard;		/* our end of the guardian's socket */
	pid_t guard_pid;
	bool stopped, routed;
	uint32_t wb_conn, plane;
	struct pp_fb fb;
};

static int fail(struct capture_ctx *c, int err, const char *what)
{
	snprintf(c->cap->error, sizeof(c->cap->error), "%s: %s", what,
		 strerror(-err));
	return err;
}

/* The major number of DRM's device nodes */
#define DRM_MAJOR	226

/*
 * A duplicate of the first fd of the program that is DRM master.  The fds
 * are told by what they are, not by the name of their link, which is the
 * program's view: in a chroot or another mount namespace it may not be a
 * path of ours.
 */
static int find_master(struct capture_ctx *c, dev_t rdev)
{
	struct dirent *d;
	struct stat st;
	char dir[64];
	DIR *fds;
	int fd;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)c->pid);
	fds = opendir(dir);
	if (!fds)
		return fail(c, -errno, dir);
	while ((d = readdir(fds))) {
		if (d->d_name[0] == '.' ||
		    fstatat(dirfd(fds), d->d_name, &st, 0) ||
		    !S_ISCHR(st.st_mode) || major(st.st_rdev) != DRM_MAJOR ||
		    (rdev && st.st_rdev != rdev))
			continue;
		fd = pidfd_getfd(c->pidfd, atoi(d->d_name), 0);
		if (fd < 0) {
			int err = -errno;

			closedir(fds);
			return fail(c, err, "pidfd_getfd");
		}
		if (drmIsMaster(fd)) {
			closedir(fds);
			c->master = fd;
			return 0;
		}
		close(fd);
	}
	closedir(fds);
	return fail(c, -ENOENT, "no DRM master fd in the process");
}

/* Is every thread of the program stopped? */
static bool all_stopped(pid_t pid)
{
	char path[300], buf[512], *state;
	bool stopped = true;
	struct dirent *d;
	DIR *tasks;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (!tasks)
		return false;
	while (stopped && (d = readdir(tasks))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/stat", d->d_name);
		fd = openat(dirfd(tasks), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;	/* the thread left */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* "tid (comm) S ...": comm may hold anything, even ')' */
		state = strrchr(buf, ')');
		if (state && state[1] == ' ' && state[2] != 'T' &&
		    state[2] != 't' && state[2] != 'Z' && state[2] != 'X')
			stopped = false;
	}
	closedir(tasks);
	return stopped;
}

/*
 * The guardian: a child in a session of its own (a signal to the caller's
 * process group leaves it alone) holding only the socket and the pidfd.
 * Only async-signal-safe calls, as the caller may have threads.
 */
static int start_guardian(struct capture_ctx *c)
{
	int fds[2];
	char word;
	ssize_t n;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		return fail(c, -errno, "socketpair");
	c->guard_pid = fork();
	if (c->guard_pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fail(c, -errno, "fork");
	}
	if (!c->guard_pid) {
		int sock, pidfd;

		setsid();
		/*
		 * Not the program's DRM files, nor anything else of ours: the
		 * two it needs move above 2 first, as either may be 0 or 1.
		 */
		sock = fcntl(fds[0], F_DUPFD, 3);
		pidfd = fcntl(c->pidfd, F_DUPFD, 3);
		if (sock < 0 || pidfd < 0 || dup2(sock, 0) < 0 ||
		    dup2(pidfd, 1) < 0)
			_exit(1);
		close_range(2, ~0U, 0);
		do
			n = read(0, &word, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			pidfd_send_signal(1, SIGCONT, NULL, 0);
		_exit(0);
	}
	close(fds[0]);
	c->guard = fds[1];
	return 0;
}

/* The program is as it is to be left: the guardian has nothing to do. */
static void end_guardian(struct capture_ctx *c)
{
	if (c->guard < 0)
		return;
	/* a guardian killed meanwhile gets no word, and no SIGPIPE for us */
	send(c->guard, "", 1, MSG_NOSIGNAL);
	close(c->guard);
	while (waitpid(c->guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static int stop_program(struct capture_ctx *c)
{
	int i, ret;

	/* one stopped already stays so: its SIGCONT is someone else's */
	if (all_stopped(c->pid))
		return 0;
	ret = start_guardian(c);
	if (ret)
		return ret;
	if (pidfd_send_signal(c->pidfd, SIGSTOP, NULL, 0))
		return fail(c, -errno, "SIGSTOP");
	c->stopped = true;
	for (i = 0; i < STOP_TIMEOUT_MS / 10; i++) {
		if (all_stopped(c->pid))
			return 0;
		usleep(10000);
	}
	return fail(c, -ETIMEDOUT, "the process did not stop");
}

static bool plane_is_primary(int fd, uint32_t plane)
{
	uint64_t type;

	return !pp_prop_value(fd, plane, DRM_MODE_OBJECT_PLANE, "type", &type) &&
	       type == DRM_PLANE_TYPE_PRIMARY;
}

/*
 * On our own fd: the CRTC (the one asked for, else the first lit one),
 * its mode, a writeback connector that can take it and its primary plane
 */
static int find_objects(struct capture_ctx *c)
{
	struct pp_capture *cap = c->cap;
	drmModePlaneResPtr planes;
	unsigned int crtc_bit = 0;
	drmModeRes *res;
	int i, j, ret = 0;

	if (drmSetClientCap(c->query, DRM_CLIENT_CAP_ATOMIC, 1) ||
	    drmSetClientCap(c->query, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1))
		return fail(c, -errno, "writeback connectors cap");
	res = drmModeGetResources(c->query);
	if (!res)
		return fail(c, -errno, "KMS resources");
	for (i = 0; i < res->count_crtcs && !crtc_bit; i++) {
		drmModeCrtcPtr crtc = drmModeGetCrtc(c->query, res->crtcs[i]);

		if (crtc && crtc->mode_valid &&
		    (!cap->crtc_id || cap->crtc_id == crtc->crtc_id)) {
			cap->crtc_id = crtc->crtc_id;
			cap->width = crtc->mode.hdisplay;
			cap->height = crtc->mode.vdisplay;
			crtc_bit = 1u << i;
		}
		drmModeFreeCrtc(crtc);
	}
	for (i = 0; i < res->count_connectors && crtc_bit && !c->wb_conn; i++) {
		drmModeConnectorPtr conn = drmModeGetConnector(c->query,
							       res->connectors[i]);

		for (j = 0; conn && j < conn->count_encoders; j++) {
			drmModeEncoderPtr enc;

			if (conn->connector_type != DRM_MODE_CONNECTOR_WRITEBACK)
				break;
			enc = drmModeGetEncoder(c->query, conn->encoders[j]);
			if (enc && enc->possible_crtcs & crtc_bit)
				c->wb_conn = conn->connector_id;
			drmModeFreeEncoder(enc);
		}
		drmModeFreeConnector(conn);
	}
	drmModeFreeResources(res);
	if (!crtc_bit)
		return fail(c, -ENOENT, cap->crtc_id ? "the CRTC is not lit" :
			    "no CRTC is lit");
	if (!c->wb_conn)
		return fail(c, -ENODEV, "no writeback connector for the CRTC");

	planes = drmModeGetPlaneResources(c->query);
	if (!planes)
		return fail(c, -errno, "planes");
	for (i = 0; i < (int)planes->count_planes && !c->plane; i++) {
		drmModePlanePtr p = drmModeGetPlane(c->query, planes->planes[i]);

		if (p && p->possible_crtcs & crtc_bit &&
		    plane_is_primary(c->query, p->plane_id))
			c->plane = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(planes);
	if (!c->plane)
		ret = fail(c, -ENOENT, "no primary plane for the CRTC");
	return ret;
}

/*
 * Lease the CRTC and the writeback connector.  A lessor file without
 * universal planes gets the CRTC's primary and cursor planes leased with
 * the CRTC and may not name them; one with them must name a plane.
 */
static int take_lease(struct capture_ctx *c)
{
	uint32_t objects[3] = { c->cap->crtc_id, c->wb_conn, c->plane };
	uint32_t lessee_id;

	c->lessee = drmModeCreateLease(c->master, objects, 2, O_CLOEXEC,
				       &lessee_id);
	if (c->lessee == -EINVAL)
		c->lessee = drmModeCreateLease(c->master, objects, 3, O_CLOEXEC,
					       &lessee_id);
	if (c->lessee < 0)
		return fail(c, c->lessee, "DRM lease");
	if (drmSetClientCap(c->lessee, DRM_CLIENT_CAP_ATOMIC, 1) ||
	    drmSetClientCap(c->lessee, DRM_CLIENT_CAP_WRITEBACK_CONNECTORS, 1))
		return fail(c, -errno, "writeback connectors cap on the lease");
	return 0;
}

/* Route the writeback connector to the CRTC with @fb_id, or off (0) */
static int route_writeback(struct capture_ctx *c, uint32_t fb_id,
			   int *out_fence)
{
	const uint32_t type = DRM_MODE_OBJECT_CONNECTOR;
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	ret = pp_atomic_add(c->lessee, req, c->wb_conn, type, "CRTC_ID",
			    fb_id ? c->cap->crtc_id : 0);
	if (!ret && fb_id)
		ret = pp_atomic_add(c->lessee, req, c->wb_conn, type,
				    "WRITEBACK_FB_ID", fb_id);
	if (!ret && fb_id)
		ret = pp_atomic_add(c->lessee, req, c->wb_conn, type,
				    "WRITEBACK_OUT_FENCE_PTR",
				    (uintptr_t)out_fence);
	if (!ret && drmModeAtomicCommit(c->lessee, req,
					DRM_MODE_ATOMIC_ALLOW_MODESET, NULL))
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}

static int take_picture(struct capture_ctx *c)
{
	struct pp_capture *cap = c->cap;
	uint32_t y, x, *row;
	int fence = -1;
	int ret;

	ret = pp_fb_create(c->lessee, cap->width, cap->height,
			   DRM_FORMAT_XRGB8888, &c->fb);
	if (!ret)
		ret = pp_fb_add(c->lessee, &c->fb);
	if (ret)
		return fail(c, ret, "writeback framebuffer");

	ret = route_writeback(c, c->fb.fb_id, &fence);
	if (ret)
		return fail(c, ret, "writeback commit");
	c->routed = true;
	ret = pp_sync_file_wait(fence, WRITEBACK_TIMEOUT_MS);
	close(fence);
	if (ret)
		return fail(c, ret, "writeback out-fence");
	ret = route_writeback(c, 0, NULL);
	if (ret)
		return fail(c, ret, "routing the writeback connector off");
	c->routed = false;

	ret = pp_fb_map(c->lessee, &c->fb);
	if (ret)
		return fail(c, ret, "mapping the picture");
	cap->stride = cap->width * 4;
	cap->pixels = malloc((size_t)cap->stride * cap->height);
	if (!cap->pixels)
		return fail(c, -ENOMEM, "picture");
	cap->crc = 0;
	for (y = 0; y < cap->height; y++) {
		row = (uint32_t *)((char *)cap->pixels + (size_t)y * cap->stride);
		memcpy(row, (char *)c->fb.map + (size_t)y * c->fb.pitch,
		       cap->stride);
		for (x = 0; x < cap->width; x++)
			row[x] |= 0xff000000;
		cap->crc = pp_crc32(cap->crc, row, cap->stride);
	}
	return 0;
}

int pp_capture_process(pid_t pid, dev_t rdev, unsigned int flags,
		       struct pp_capture *cap)
{
	struct capture_ctx c = {
		.cap = cap, .pid = pid, .master = -1, .query = -1,
		.lessee = -1, .guard = -1,
	};
	char node[64];
	int ret;

	cap->pixels = NULL;
	cap->error[0] = '\0';
	/* SIGSTOP would stop the caller, with nobody left to send SIGCONT */
	if (pid == getpid())
		return fail(&c, -EINVAL, "the process is the caller");
	c.pidfd = pidfd_open(pid, 0);
	if (c.pidfd < 0)
		return fail(&c, -errno, "pidfd_open");

	ret = find_master(&c, rdev);
	if (ret)
		goto out;
	/* a file of our own on the same device: opening the node again */
	snprintf(node, sizeof(node), "/proc/self/fd/%d", c.master);
	c.query = open(node, O_RDWR | O_CLOEXEC);
	if (c.query < 0) {
		ret = fail(&c, -errno, "opening the device");
		goto out;
	}

	ret = stop_program(&c);
	if (!ret)
		ret = find_objects(&c);
	if (!ret)
		ret = take_lease(&c);
	if (!ret)
		ret = take_picture(&c);

out:
	if (c.lessee >= 0) {
		/* the program finds its CRTC's connectors as it left them */
		if (c.routed)
			route_writeback(&c, 0, NULL);
		pp_fb_destroy(c.lessee, &c.fb);
		close(c.lessee);
	}
	if (c.query >= 0)
		close(c.query);
	if (c.master >= 0)
		close(c.master);
	if (c.stopped && (ret || !(flags & PP_CAPTURE_KEEP_STOPPED)))
		pidfd_send_signal(c.pidfd, SIGCONT, NULL, 0);
	end_guardian(&c);
	close(c.pidfd);
	if (ret)
		pp_capture_free(cap);
	return ret;
}

void pp_capture_free(struct pp_capture *cap)
{
	free(cap->pixels);
	cap->pixels = NULL;
}

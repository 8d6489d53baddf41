// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_races - vdisplay's flips racing the destruction of their
 * framebuffers, and clients killed in the middle of a stream of flips
 *
 * A page flip or atomic commit to a framebuffer that another thread is
 * removing (drmModeRmFB and closing its GEM handle, in either order)
 * either flips and delivers its event, or fails as DRM core fails a
 * framebuffer that is gone: ENOENT from a legacy flip, which looks the
 * id up; EINVAL from an atomic commit, whose FB_ID of no framebuffer
 * leaves the plane without one.  Removing the framebuffer on screen turns
 * the primary plane off (the CRTC goes on, showing black), after which
 * legacy flips fail with EBUSY and atomic ones, which give the plane a
 * framebuffer but no CRTC, with EINVAL until the next modeset; EBUSY also
 * while the removal's commit is in flight.  Every flip that returned 0 delivers exactly one
 * event.
 *
 * A client killed with SIGKILL while it flips, with flips in flight and
 * events queued unread on its fd, releases its framebuffers and buffers;
 * the device then serves the next client, whose picture reaches the
 * screen.
 *
 * The same race with a CRC reader on has the composer blend a frame at
 * every vblank: a flip then hands the composer its new scene while a
 * frame of the old one, which reads the framebuffer being removed, may
 * still be composed.  The old framebuffer's mapping must outlive that
 * frame (a use after vunmap would oops, or be reported by KASAN).
 *
 * Legacy cursor calls (show, move, hide) race page flips: vdisplay
 * applies them at once, in place of the current plane state, while the
 * flips' commits run; with the CRC source on too, the old cursor image
 * is released only after the frame being composed, which may read it.  Nothing may warn (the kernel log is checked by the runner).
 *
 * A race subtest that fails stops its threads and releases what it holds
 * before the next one starts (subtest cleanups), so one failure is
 * reported once, not again by every later subtest and the module unload.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/sync_file.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay flips racing framebuffer removal and client death");

#define RACE_SECONDS	4
#define KILL_ROUNDS	3
#define STABLE_COLOR	0xff3366ccu
#define AFTER_COLOR	0xffcc6633u

static void on_event(int fd, unsigned int sequence, unsigned int sec,
		     unsigned int usec, unsigned int crtc_id, void *data)
{
	(*(unsigned int *)data)++;
}

/* Read the events ready on @fd within @ms; returns whether there were. */
static bool read_events(int fd, int ms)
{
	drmEventContext ctx = {
		.version = 3,
		.page_flip_handler2 = on_event,
	};
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return false;
	return drmHandleEvent(fd, &ctx) == 0;
}

/* Page flip (legacy) or nonblocking atomic commit with an event */
static int flip(struct primepair_kms *kms, struct primepair_output *o,
		uint32_t fb_id, bool atomic, unsigned int *events)
{
	drmModeAtomicReqPtr req;
	int ret;

	if (!atomic)
		return drmModePageFlip(kms->fd, o->crtc_id, fb_id,
				       DRM_MODE_PAGE_FLIP_EVENT, events) ?
		       -errno : 0;
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(kms->fd, req, o->primary, DRM_MODE_OBJECT_PLANE, "FB_ID",
		      fb_id);
	ret = drmModeAtomicCommit(kms->fd, req, DRM_MODE_ATOMIC_NONBLOCK |
				  DRM_MODE_PAGE_FLIP_EVENT, events) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/*
 * Is @o lit with a framebuffer on its primary plane?  Removing the
 * framebuffer on screen switches the primary plane off (the CRTC goes on
 * over black), or the CRTC too where the plane cannot go alone.
 */
static bool primary_shown(struct primepair_kms *kms, struct primepair_output *o)
{
	drmModeCrtcPtr crtc = drmModeGetCrtc(kms->fd, o->crtc_id);
	drmModePlanePtr plane = drmModeGetPlane(kms->fd, o->primary);
	bool on = crtc && crtc->mode_valid && plane && plane->fb_id;

	drmModeFreePlane(plane);
	drmModeFreeCrtc(crtc);
	return on;
}

static void assert_screen(struct primepair_kms *kms,
			  struct primepair_output *o, uint32_t argb)
{
	struct primepair_fb wb;
	unsigned int x, y, wrong = 0;

	primepair_fb_create(kms->fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(kms, o, &wb);
	for (y = 0; y < wb.height; y += 7)
		for (x = 0; x < wb.width; x += 5) {
			uint32_t p = ((uint32_t *)((uint8_t *)wb.map +
						   y * wb.pitch))[x];

			if ((p & 0xffffff) != (argb & 0xffffff) && !wrong++)
				igt_info("pixel (%u,%u) %08x, want %08x\n", x,
					 y, p, argb);
		}
	/* the mapping would keep the file open past a failure */
	primepair_fb_destroy(kms->fd, &wb);
	igt_assert_eq(wrong, 0);
}

/*
 * What a race subtest holds, released by its cleanup if it fails: the
 * threads are stopped first (their cleanups were pushed later), then the
 * framebuffers' mappings go and the file is closed, which releases the
 * rest.  After a normal end there is nothing left to release.
 */
struct held {
	struct primepair_kms *kms;
	struct primepair_fb *fb[2];
};

static void release_held(void *data)
{
	struct held *h = data;

	for (unsigned int i = 0; i < 2; i++)
		if (h->fb[i])
			primepair_fb_release(h->kms->fd, h->fb[i]);
	primepair_kms_release(h->kms);
}

/* A racing thread and what stops it */
struct racer {
	pthread_t thread;
	atomic_bool stop;
};

/* Cleanup of a racer: tell it to stop, and wait for it */
static void racer_halt(void *data)
{
	struct racer *t = data;

	atomic_store(&t->stop, true);
	pthread_join(t->thread, NULL);
}

/*
 * The destroyer keeps one framebuffer of its own published in @victim,
 * removes it at a random moment and publishes a new one.  It never
 * asserts (only the main thread may): it counts what went wrong.
 */
struct rmfb_race {
	struct primepair_kms *kms;
	struct primepair_output *o;
	struct racer t;
	_Atomic uint32_t victim;
	atomic_ulong removed, unexpected;
};

static void *destroyer(void *arg)
{
	struct rmfb_race *r = arg;
	uint32_t handles[4] = {}, pitches[4] = {}, offsets[4] = {};
	unsigned int seed = 7;
	int fd = r->kms->fd;

	while (!atomic_load(&r->t.stop)) {
		uint32_t handle, fb_id;
		uint64_t size;
		bool rmfb_first = rand_r(&seed) & 1;

		if (drmModeCreateDumbBuffer(fd, r->o->mode.hdisplay,
					    r->o->mode.vdisplay, 32, 0, &handle,
					    &pitches[0], &size)) {
			atomic_fetch_add(&r->unexpected, 1);
			break;
		}
		handles[0] = handle;
		if (drmModeAddFB2(fd, r->o->mode.hdisplay, r->o->mode.vdisplay,
				  DRM_FORMAT_XRGB8888, handles, pitches,
				  offsets, &fb_id, 0)) {
			atomic_fetch_add(&r->unexpected, 1);
			drmCloseBufferHandle(fd, handle);
			break;
		}
		atomic_store(&r->victim, fb_id);
		usleep(rand_r(&seed) % 40000);

		/* the GEM handle may go first: the framebuffer holds it */
		if (!rmfb_first && drmCloseBufferHandle(fd, handle))
			atomic_fetch_add(&r->unexpected, 1);
		if (drmModeRmFB(fd, fb_id))
			atomic_fetch_add(&r->unexpected, 1);
		if (rmfb_first && drmCloseBufferHandle(fd, handle))
			atomic_fetch_add(&r->unexpected, 1);
		atomic_fetch_add(&r->removed, 1);
	}
	return NULL;
}

/* Reads CRC entries until told to stop, so that the composer runs */
struct crc_reader {
	struct primepair_crc crc;
	pthread_t thread;
	atomic_bool stop;
	atomic_ulong entries;
	atomic_int error;
};

static void *crc_reader(void *arg)
{
	struct crc_reader *c = arg;
	char line[64];

	while (!atomic_load(&c->stop)) {
		ssize_t n = read(c->crc.data_fd, line, sizeof(line));

		if (n != 23) {
			/* a read interrupted to stop is no error */
			if (!atomic_load(&c->stop))
				atomic_store(&c->error, n < 0 ? errno : EIO);
			break;
		}
		atomic_fetch_add(&c->entries, 1);
	}
	return NULL;
}

static void interrupt(int sig)
{
}

/*
 * Stop the reader.  It may wait in read() for a CRC that never comes, if
 * a failure left the CRTC off: interrupt the read until the thread ends.
 */
static void crc_reader_halt(void *data)
{
	struct crc_reader *c = data;

	atomic_store(&c->stop, true);
	while (pthread_tryjoin_np(c->thread, NULL) == EBUSY) {
		pthread_kill(c->thread, SIGUSR1);
		usleep(1000);
	}
	primepair_crc_stop(&c->crc);
}

static void crc_reader_start(struct primepair_kms *kms,
			     struct primepair_output *o, struct crc_reader *c)
{
	/* no SA_RESTART: the signal ends the reader's read() */
	struct sigaction sa = { .sa_handler = interrupt };

	igt_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	primepair_crc_start(kms, o, &c->crc);
	igt_assert_eq(pthread_create(&c->thread, NULL, crc_reader, c), 0);
	primepair_subtest_cleanup_push(crc_reader_halt, c);
}

/* Pops crc_reader_start()'s cleanup, which must be the last one pushed */
static void crc_reader_stop(struct crc_reader *c)
{
	primepair_subtest_cleanup_pop(true);
	igt_info("%lu CRCs read\n", atomic_load(&c->entries));
	igt_assert_eq(atomic_load(&c->error), 0);
	/* CRCs, and so compositions, went on through the race */
	igt_assert_lt_u64(RACE_SECONDS * 10, atomic_load(&c->entries));
}

static void test_flip_vs_rmfb(bool composing)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb stable = {};
	struct held held = { &kms, { &stable } };
	struct crc_reader crc = {};
	struct rmfb_race r = {};
	unsigned long flips = 0, gone = 0, off = 0, busy = 0;
	unsigned int events = 0;
	int64_t end;

	primepair_kms_open(&kms);
	primepair_subtest_cleanup_push(release_held, &held);
	o = &kms.outputs[0];
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &stable);
	primepair_fb_fill_color(&stable, STABLE_COLOR);
	igt_assert_eq(primepair_modeset(&kms, o, &stable), 0);
	if (composing)
		crc_reader_start(&kms, o, &crc);

	r.kms = &kms;
	r.o = o;
	igt_assert_eq(pthread_create(&r.t.thread, NULL, destroyer, &r), 0);
	primepair_subtest_cleanup_push(racer_halt, &r.t);
	end = primepair_now_ns() + RACE_SECONDS * 1000000000ll;
	for (unsigned int n = 0; primepair_now_ns() < end; n++) {
		/* every third flip puts the stable framebuffer back */
		uint32_t fb_id = n % 3 == 2 ? stable.fb_id :
				 atomic_load(&r.victim);
		unsigned int before = events;
		int ret;

		if (!fb_id)
			fb_id = stable.fb_id;
		bool atomic = n & 1;

		ret = flip(&kms, o, fb_id, atomic, &events);
		if (ret == 0) {
			igt_assert_f(read_events(kms.fd, 1000),
				     "flip %u: no event\n", n);
			igt_assert_eq(events, before + 1);
			flips++;
			continue;
		}
		igt_assert_f(ret == -EBUSY ||
			     ret == (atomic ? -EINVAL : -ENOENT),
			     "%s flip %u: %s\n", atomic ? "atomic" : "legacy",
			     n, strerror(-ret));
		if (!primary_shown(&kms, o)) {
			/* the framebuffer on screen was removed */
			igt_assert_eq(primepair_modeset(&kms, o, &stable), 0);
			off++;
		} else if (ret == -EBUSY) {
			/* the removal's own commit is still in flight */
			busy++;
			usleep(1000);
		} else {
			/* removed before the flip looked it up */
			gone++;
		}
	}
	primepair_subtest_cleanup_pop(true);	/* racer_halt() */
	if (composing)
		crc_reader_stop(&crc);
	igt_info("%lu flips, %lu to removed framebuffers, %lu primary off, %lu busy; %lu framebuffers removed\n",
		 flips, gone, off, busy, atomic_load(&r.removed));
	igt_assert_eq_u64(atomic_load(&r.unexpected), 0);
	igt_assert_lt_u64(0, flips);
	igt_assert_lt_u64(0, atomic_load(&r.removed));
	/* no event came that no flip asked for */
	igt_assert(!read_events(kms.fd, 100));

	/* the CRTC still flips and shows what it is given */
	if (!primary_shown(&kms, o))
		igt_assert_eq(primepair_modeset(&kms, o, &stable), 0);
	igt_assert_eq(flip(&kms, o, stable.fb_id, true, &events), 0);
	igt_assert(read_events(kms.fd, 1000));
	assert_screen(&kms, o, STABLE_COLOR);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &stable);
	primepair_kms_close(&kms);
	primepair_subtest_cleanup_pop(false);	/* release_held(): nothing left */
	igt_assert_eq_u64(primepair_summary_settle("buffers", 0), 0);
	primepair_assert_summary_zero();
}

/*
 * The cursor thread shows, moves and hides the cursor through the legacy
 * ioctls, with two images whose GEM handles it closes and recreates now
 * and then (each legacy call wraps the handle in a framebuffer of its
 * own), while the main thread flips.  Every call must succeed.
 */
struct cursor_race {
	struct primepair_kms *kms;
	struct primepair_output *o;
	struct racer t;
	atomic_ulong calls, failed, recreated;
};

static void *cursor_toggler(void *arg)
{
	struct cursor_race *r = arg;
	struct drm_mode_create_dumb create = {
		.width = 64, .height = 64, .bpp = 32,
	};
	uint32_t handles[2] = {};
	unsigned int n;
	int fd = r->kms->fd;

	for (n = 0; !atomic_load(&r->t.stop); n++) {
		unsigned int i = (n / 4) % 2;
		int ret = 0;

		if (!handles[i] || n % 16 == 15) {
			if (handles[i])
				drmModeDestroyDumbBuffer(fd, handles[i]);
			create.handle = 0;
			if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create)) {
				atomic_fetch_add(&r->failed, 1);
				break;
			}
			handles[i] = create.handle;
			atomic_fetch_add(&r->recreated, 1);
		}
		switch (n % 4) {
		case 0:
		case 2:
			ret = drmModeSetCursor(fd, r->o->crtc_id, handles[i],
					       64, 64);
			break;
		case 1:
			ret = drmModeMoveCursor(fd, r->o->crtc_id, n % 700,
						n % 500);
			break;
		case 3:
			ret = drmModeSetCursor(fd, r->o->crtc_id, 0, 0, 0);
			break;
		}
		atomic_fetch_add(&r->calls, 1);
		if (ret)
			atomic_fetch_add(&r->failed, 1);
	}
	drmModeSetCursor(fd, r->o->crtc_id, 0, 0, 0);
	for (n = 0; n < 2; n++)
		if (handles[n])
			drmModeDestroyDumbBuffer(fd, handles[n]);
	return NULL;
}

/*
 * Page flips (legacy and atomic, each waited for) against a thread that
 * shows, moves and hides the cursor, which vdisplay applies at once, also
 * while a flip is pending: every flip delivers its event, every cursor
 * call succeeds, the cursor ends hidden and the last flip's picture is on
 * screen, and all framebuffers and buffers are released.
 */
static void test_cursor_vs_flips(bool composing)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb stable = {}, other = {};
	struct held held = { &kms, { &stable, &other } };
	struct crc_reader crc = {};
	struct cursor_race r = {};
	unsigned int events = 0, n;
	drmModePlanePtr p;
	int64_t end;

	primepair_kms_open(&kms);
	primepair_subtest_cleanup_push(release_held, &held);
	o = &kms.outputs[0];
	igt_require(o->cursor);
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &stable);
	primepair_fb_fill_color(&stable, STABLE_COLOR);
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &other);
	primepair_fb_fill_color(&other, AFTER_COLOR);
	igt_assert_eq(primepair_modeset(&kms, o, &stable), 0);
	if (composing)
		crc_reader_start(&kms, o, &crc);

	r.kms = &kms;
	r.o = o;
	igt_assert_eq(pthread_create(&r.t.thread, NULL, cursor_toggler, &r), 0);
	primepair_subtest_cleanup_push(racer_halt, &r.t);
	end = primepair_now_ns() + RACE_SECONDS * 1000000000ll;
	for (n = 0; primepair_now_ns() < end; n++) {
		unsigned int before = events;
		int ret = flip(&kms, o, n & 1 ? stable.fb_id : other.fb_id,
			       n & 2, &events);

		igt_assert_f(ret == 0 || ret == -EBUSY, "flip %u: %s\n", n,
			     strerror(-ret));
		if (ret) {
			usleep(1000);
			continue;
		}
		igt_assert_f(read_events(kms.fd, 1000), "flip %u: no event\n",
			     n);
		igt_assert_eq(events, before + 1);
	}
	primepair_subtest_cleanup_pop(true);	/* racer_halt() */
	if (composing)
		crc_reader_stop(&crc);
	igt_info("%u flips, %lu cursor calls, %lu images recreated\n", events,
		 atomic_load(&r.calls), atomic_load(&r.recreated));
	igt_assert_eq_u64(atomic_load(&r.failed), 0);
	igt_assert_lt(0, events);
	igt_assert_lt_u64(100, atomic_load(&r.calls));
	igt_assert(!read_events(kms.fd, 100));

	p = drmModeGetPlane(kms.fd, o->cursor);
	igt_assert(p);
	igt_assert_eq(p->fb_id, 0);
	igt_assert_eq(p->crtc_id, 0);
	drmModeFreePlane(p);
	igt_assert_eq(flip(&kms, o, stable.fb_id, true, &events), 0);
	igt_assert(read_events(kms.fd, 1000));
	assert_screen(&kms, o, STABLE_COLOR);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &other);
	primepair_fb_destroy(kms.fd, &stable);
	primepair_kms_close(&kms);
	primepair_subtest_cleanup_pop(false);	/* release_held(): nothing left */
	igt_assert_eq_u64(primepair_summary_settle("buffers", 0), 0);
	primepair_assert_summary_zero();
}

/*
 * The child: master of the card (the parent holds no fd of it), sets a
 * mode and flips between two framebuffers, legacy and atomic, reading
 * only every other event so that some stay queued on its fd.  It tells
 * the parent once it is flipping and runs until it is killed.
 */
static void __attribute__((noreturn)) flipping_child(int ready)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb[2];
	unsigned int events = 0;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	for (int i = 0; i < 2; i++)
		primepair_fb_create(kms.fd, o->mode.hdisplay,
				    o->mode.vdisplay, DRM_FORMAT_XRGB8888,
				    &fb[i]);
	if (primepair_modeset(&kms, o, &fb[0]))
		_exit(1);
	for (unsigned int n = 0, accepted = 0;; n++) {
		int ret = flip(&kms, o, fb[n & 1].fb_id, n & 2, &events);

		if (ret == -EBUSY) {
			usleep(2000);
			continue;
		}
		if (ret && ret != -ENOMEM)	/* ENOMEM: event space full */
			_exit(2);
		if (++accepted == 4 && write(ready, "x", 1) != 1)
			_exit(3);
		if (n & 1)
			read_events(kms.fd, 0);
	}
}

static void test_kill_during_flips(void)
{
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb;
	unsigned int events = 0;

	for (int round = 0; round < KILL_ROUNDS; round++) {
		int status, sv[2];
		pid_t pid;
		char c;

		igt_assert_eq(pipe(sv), 0);
		pid = fork();
		igt_assert_lte(0, pid);
		if (pid == 0) {
			close(sv[0]);
			flipping_child(sv[1]);
		}
		close(sv[1]);
		{
			struct pollfd pfd = { .fd = sv[0], .events = POLLIN };

			if (poll(&pfd, 1, 20000) != 1)
				kill(pid, SIGKILL);
		}
		igt_assert_f(read(sv[0], &c, 1) == 1,
			     "the child did not start flipping\n");
		usleep(30000 * (round + 1));
		igt_assert_eq(kill(pid, SIGKILL), 0);
		igt_assert_eq(waitpid(pid, &status, 0), pid);
		close(sv[0]);
		/* killed while flipping, not ended by an error of its own */
		igt_assert_f(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
			     "child status %#x\n", status);
	}

	/* everything of the children is released */
	igt_assert_eq_u64(primepair_summary_settle("buffers", 0), 0);
	primepair_assert_summary_zero();

	/* and the next client gets the display: a modeset and a flip */
	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &fb);
	primepair_fb_fill_color(&fb, AFTER_COLOR);
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	igt_assert_eq(flip(&kms, o, fb.fb_id, false, &events), 0);
	igt_assert(read_events(kms.fd, 1000));
	igt_assert_eq(events, 1);
	assert_screen(&kms, o, AFTER_COLOR);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

/*
 * Writeback jobs queued back to back, on two outputs at once, while the
 * composer works on the previous ones.  Each job's out-fence must signal
 * without error and its framebuffer hold its output's picture: DRM core
 * signals the oldest job of a connector, so a second job must neither
 * complete the first nor be written through the first one's mapping.
 * Then a job queued right before a modeset to a smaller mode: it gets a
 * frame of its own size or fails, and is never written past its end.
 */
#define WB_ROUNDS	12
#define WB_PER_ROUND	3

static int fence_status(int fence)
{
	struct sync_file_info info = {};
	struct pollfd pfd = { .fd = fence, .events = POLLIN };

	igt_assert_f(poll(&pfd, 1, 5000) == 1, "writeback fence not signalled\n");
	igt_assert_eq(ioctl(fence, SYNC_IOC_FILE_INFO, &info), 0);
	return info.status;
}

static int queue_writebacks(struct primepair_kms *kms, struct primepair_fb *wb,
			    int32_t *fences)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	const uint32_t t = DRM_MODE_OBJECT_CONNECTOR;
	int ret;

	for (unsigned int i = 0; i < 2; i++) {
		struct primepair_output *o = &kms->outputs[i];

		fences[i] = -1;
		primepair_add(kms->fd, req, o->wb_connector_id, t, "CRTC_ID", o->crtc_id);
		primepair_add(kms->fd, req, o->wb_connector_id, t, "WRITEBACK_FB_ID",
			      wb[i].fb_id);
		primepair_add(kms->fd, req, o->wb_connector_id, t,
			      "WRITEBACK_OUT_FENCE_PTR", (uint64_t)(uintptr_t)&fences[i]);
	}
	/* The core refuses a commit that overtakes the last one: retry. */
	for (int tries = 0; tries < 2000; tries++) {
		ret = primepair_commit(kms->fd, req, DRM_MODE_ATOMIC_NONBLOCK |
				       DRM_MODE_ATOMIC_ALLOW_MODESET);
		if (ret != -EBUSY)
			break;
		usleep(500);
	}
	drmModeAtomicFree(req);
	return ret;
}

static void assert_wb_color(const struct primepair_fb *wb, uint32_t color)
{
	const uint32_t *px = wb->map;

	for (uint32_t y = 0; y < wb->height; y++)
		for (uint32_t x = 0; x < wb->width; x++)
			igt_assert_f((px[y * wb->pitch / 4 + x] & 0xffffff) ==
				     (color & 0xffffff),
				     "writeback pixel (%u,%u) is %08x, want %08x\n",
				     x, y, px[y * wb->pitch / 4 + x], color);
}

/* The first mode of @o's connector larger than its test mode */
static drmModeModeInfo larger_mode(int fd, const struct primepair_output *o)
{
	drmModeConnectorPtr c = drmModeGetConnector(fd, o->connector_id);
	drmModeModeInfo m = {};

	igt_assert(c);
	for (int k = 0; k < c->count_modes; k++) {
		if (c->modes[k].hdisplay > o->mode.hdisplay &&
		    c->modes[k].vdisplay > o->mode.vdisplay) {
			m = c->modes[k];
			break;
		}
	}
	drmModeFreeConnector(c);
	igt_assert_f(m.hdisplay, "no mode larger than the test mode\n");
	return m;
}

static void test_writeback_queue(void)
{
	const uint32_t colors[2] = { STABLE_COLOR, AFTER_COLOR };
	struct primepair_fb scan[2], wb[WB_PER_ROUND][2], bigscan, bigwb[2];
	int32_t fences[WB_PER_ROUND][2];
	struct primepair_kms kms = {};
	drmModeModeInfo big, test_mode;

	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "outputs=2");
	primepair_kms_open(&kms);
	igt_require(kms.noutputs >= 2 && kms.outputs[1].wb_connector_id);

	for (unsigned int i = 0; i < 2; i++) {
		struct primepair_output *o = &kms.outputs[i];

		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &scan[i]);
		primepair_fb_fill_color(&scan[i], colors[i]);
		igt_assert_eq(primepair_modeset(&kms, o, &scan[i]), 0);
		for (unsigned int j = 0; j < WB_PER_ROUND; j++)
			primepair_fb_create(kms.fd, o->mode.hdisplay,
					    o->mode.vdisplay,
					    DRM_FORMAT_XRGB8888, &wb[j][i]);
	}

	for (unsigned int round = 0; round < WB_ROUNDS; round++) {
		for (unsigned int j = 0; j < WB_PER_ROUND; j++) {
			memset(wb[j][0].map, 0, wb[j][0].size);
			memset(wb[j][1].map, 0, wb[j][1].size);
		}
		for (unsigned int j = 0; j < WB_PER_ROUND; j++)
			igt_assert_eq(queue_writebacks(&kms, wb[j], fences[j]), 0);
		for (unsigned int j = 0; j < WB_PER_ROUND; j++) {
			for (unsigned int i = 0; i < 2; i++) {
				igt_assert_lte(0, fences[j][i]);
				igt_assert_f(fence_status(fences[j][i]) == 1,
					     "round %u, job %u of output %u failed\n",
					     round, j, i);
				close(fences[j][i]);
				assert_wb_color(&wb[j][i], colors[i]);
			}
		}
	}

	/*
	 * A job queued on output 0 at a large mode, then at once a modeset
	 * back to the smaller test mode: the job gets a frame of its own
	 * size or fails with -EIO, and is never given a frame of another.
	 */
	test_mode = kms.outputs[0].mode;
	big = larger_mode(kms.fd, &kms.outputs[0]);
	primepair_fb_create(kms.fd, big.hdisplay, big.vdisplay,
			    DRM_FORMAT_XRGB8888, &bigscan);
	primepair_fb_fill_color(&bigscan, colors[0]);
	primepair_fb_create(kms.fd, big.hdisplay, big.vdisplay,
			    DRM_FORMAT_XRGB8888, &bigwb[0]);
	bigwb[1] = wb[0][1];
	for (unsigned int round = 0; round < WB_ROUNDS; round++) {
		struct primepair_output *o = &kms.outputs[0];
		int32_t f[2];
		int st;

		o->mode = big;
		igt_assert_eq(primepair_modeset(&kms, o, &bigscan), 0);
		memset(bigwb[0].map, 0, bigwb[0].size);
		igt_assert_eq(queue_writebacks(&kms, bigwb, f), 0);
		o->mode = test_mode;
		igt_assert_eq(primepair_modeset(&kms, o, &scan[0]), 0);

		st = fence_status(f[0]);
		igt_assert_f(st == 1 || st == -EIO,
			     "job before a modeset: status %d\n", st);
		if (st == 1)
			assert_wb_color(&bigwb[0], colors[0]);
		igt_assert_eq(fence_status(f[1]), 1);
		close(f[0]);
		close(f[1]);
	}

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &bigscan);
	primepair_fb_destroy(kms.fd, &bigwb[0]);
	for (unsigned int i = 0; i < 2; i++) {
		primepair_fb_destroy(kms.fd, &scan[i]);
		for (unsigned int j = 0; j < WB_PER_ROUND; j++)
			primepair_fb_destroy(kms.fd, &wb[j][i]);
	}
	primepair_kms_close(&kms);
	primepair_reload_module(PRIMEPAIR_DISPLAY_DRIVER, "");
	primepair_assert_summary_zero();
}

igt_main
{
	igt_describe("Page flips and atomic commits racing RmFB and GEM_CLOSE of the framebuffer they flip to: an event per accepted flip, documented errnos otherwise");
	igt_subtest("flip-vs-rmfb")
		test_flip_vs_rmfb(false);

	igt_describe("The same race with the CRC source on, so that the composer reads each framebuffer while flips replace it: the old one stays mapped until the frame reading it is composed");
	igt_subtest("flip-vs-rmfb-composing")
		test_flip_vs_rmfb(true);

	igt_describe("Legacy cursor shows, moves and hides, applied at once, racing page flips: every call succeeds, every flip delivers its event, nothing leaks");
	igt_subtest("cursor-vs-flips")
		test_cursor_vs_flips(false);

	igt_describe("The same with the CRC source on: a cursor update takes its old image off screen while a frame that shows it may be composed, and releases it after that frame");
	igt_subtest("cursor-vs-flips-composing")
		test_cursor_vs_flips(true);

	igt_describe("A client killed with flips in flight and events unread releases everything; the next client's modeset and flip work");
	igt_subtest("kill-during-flips")
		test_kill_during_flips();

	igt_describe("Writeback jobs queued back to back on two outputs, and one queued before a modeset: every job completes in order, with its own output's picture or -EIO, never written out of bounds");
	igt_subtest("writeback-queue")
		test_writeback_queue();
}

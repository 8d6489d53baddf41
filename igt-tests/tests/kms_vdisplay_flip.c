// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_flip - page flips and vblanks of vdisplay
 *
 * Flip events arrive once per flip, on the vblank after the flip was
 * queued: their sequence grows by exactly one per flip when each flip is
 * queued right after the previous event, and their timestamps are one
 * frame time apart (the timer derives them from its expiry, so within
 * 0.1 ms).  DRM_IOCTL_WAIT_VBLANK and DRM_IOCTL_CRTC_GET_SEQUENCE agree.
 *
 * "Right after" is up to the machine: under TCG on a loaded host the test
 * itself can be descheduled past a vblank, and the whole guest can stall.
 * A flip queued later than QUEUE_MARGIN_NS before the vblank it aims at,
 * or during which a sampler thread saw the guest stop for more than
 * STALL_NS, may land later without blame on the driver.  Late flips are
 * counted and logged with the cause seen, if any (the commit worker in the
 * guest can be delayed without the sampler noticing).  Of the flips during
 * which the guest ran without a visible stall, at most a quarter (plus one)
 * may be late, which a driver that misses systematically exceeds; every
 * landing is checked against the frame clock all the same.
 *
 * No flip is latched by a vblank that happened before it was queued: its
 * event's timestamp is later than the page-flip call, however late the
 * guest ran the vblank timer (IGT's kms_flip flip-vs-expired-vblank).
 */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay page-flip events, sequences and timestamps");

#define TIMESTAMP_TOLERANCE_NS	100000ll
#define QUEUE_MARGIN_NS		8000000ll
#define STALL_NS		8000000ll

/* CLOCK_MONOTONIC time at which the sampler last woke up from a stall */
static _Atomic int64_t last_stall_end;
static _Atomic bool sampler_stop;

static void *stall_sampler(void *arg)
{
	int64_t prev = primepair_now_ns(), now;

	while (!sampler_stop) {
		usleep(1000);
		now = primepair_now_ns();
		if (now - prev > STALL_NS)
			last_stall_end = now;
		prev = now;
	}
	return NULL;
}

static int64_t frame_ns(const drmModeModeInfo *m)
{
	return (int64_t)m->htotal * m->vtotal * 1000000ll / m->clock;
}

struct ctx {
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb[2];
};

/*
 * A second flip while the first is pending is refused with EBUSY, not
 * queued.  The first is queued right after a vblank, so that it stays
 * pending until the next one; if the test was descheduled past that
 * vblank between the two calls, the first has completed and the second
 * is rightly taken.  That is told apart from a driver queueing the second
 * by the vblank counter: it must have moved on by the time the second
 * call returned.  Both flips then complete, and the check is made again,
 * up to 10 times.
 */
static void flip_busy(struct ctx *c)
{
	struct primepair_flip_event ev = {};
	unsigned int attempt, waited;
	uint64_t seq, ns;
	int ret;

	for (attempt = 0; attempt < 10; attempt++) {
		ev.count = 0;
		waited = primepair_wait_vblank(&c->kms, c->o);
		igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id,
					      c->fb[1].fb_id,
					      DRM_MODE_PAGE_FLIP_EVENT, &ev), 0);
		ret = drmModePageFlip(c->kms.fd, c->o->crtc_id, c->fb[0].fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, &ev) ? -errno : 0;
		igt_assert_eq(drmCrtcGetSequence(c->kms.fd, c->o->crtc_id, &seq,
						 &ns), 0);
		if (ret == -EBUSY) {
			igt_assert_f(primepair_read_flip_event(c->kms.fd, 1000),
				     "no event for the first flip\n");
			/* the refused call queued nothing */
			igt_assert(!primepair_read_flip_event(c->kms.fd, 100));
			igt_assert_eq(ev.count, 1);
			return;
		}
		igt_assert_eq(ret, 0);
		igt_assert_f((uint32_t)seq != waited,
			     "a second flip was taken while the first was pending (vblank %u)\n",
			     waited);
		while (ev.count < 2)
			igt_assert_f(primepair_read_flip_event(c->kms.fd, 1000),
				     "%u of the two flips' events came\n", ev.count);
		igt_assert(!primepair_read_flip_event(c->kms.fd, 100));
		igt_assert_eq(ev.count, 2);
		igt_info("attempt %u: vblank %u came between the two calls\n",
			 attempt, waited + 1);
	}
	igt_assert_f(false, "a second flip was never refused in 10 attempts\n");
}

static void flip_run(struct ctx *c, unsigned int nflips)
{
	struct primepair_flip_event ev = {};
	unsigned int i, prev_seq = 0, late = 0, unexplained = 0, unstalled = 0;
	int64_t prev_ts = 0, period = frame_ns(&c->o->mode), queued = 0;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	flip_busy(c);

	for (i = 0; i < nflips; i++) {
		unsigned int before = ev.count;
		int64_t issued;

		issued = primepair_now_ns();

		igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id,
					      c->fb[(i + 1) & 1].fb_id,
					      DRM_MODE_PAGE_FLIP_EVENT, &ev), 0);
		queued = primepair_now_ns();
		igt_assert_f(primepair_read_flip_event(c->kms.fd, 1000), "flip %u: no event\n", i);
		igt_assert_eq(ev.count, before + 1);
		igt_assert_eq_u32(ev.crtc_id, c->o->crtc_id);
		igt_assert_f(ev.ts_ns > issued,
			     "flip %u: vblank %u at %lld ns, before the flip call at %lld ns\n",
			     i, ev.sequence, (long long)ev.ts_ns, (long long)issued);
		if (i > 0) {
			unsigned int frames = ev.sequence - prev_seq;
			int64_t dt = ev.ts_ns - prev_ts;

			igt_assert_lte(1, frames);
			if (frames > 1) {
				bool stalled = last_stall_end >= queued;

				bool explained = stalled ||
					queued > prev_ts + period - QUEUE_MARGIN_NS;

				igt_info("flip %u landed %u frames later, queued %lld ns after the vblank%s\n",
					 i, frames, (long long)(queued - prev_ts),
					 stalled ? ", guest stalled" :
					 explained ? "" : ", no cause seen");
				unexplained += !explained;
				unstalled += !stalled;
				late++;
			}
			igt_assert_f(dt > frames * period - TIMESTAMP_TOLERANCE_NS &&
				     dt < frames * period + TIMESTAMP_TOLERANCE_NS,
				     "flip %u: %lld ns after the previous, %u frames of %lld ns\n",
				     i, (long long)dt, frames, (long long)period);
		}
		prev_seq = ev.sequence;
		prev_ts = ev.ts_ns;
	}

	/* Each flip completed once: no event is left over. */
	igt_assert(!primepair_read_flip_event(c->kms.fd, 100));
	igt_assert_eq(ev.count, nflips);
	igt_assert_f(unstalled <= nflips / 4 + 1,
		     "%u of %u flips late while the guest ran\n", unstalled,
		     nflips);
	igt_info("%u of %u flips late, %u with no cause seen\n", late, nflips,
		 unexplained);
}

/*
 * Blocking waits: each returns at or after the vblank asked for, and the
 * reported sequence and timestamp agree with the frame clock (the reply
 * names the vblank current at wake-up, which a descheduled test may see
 * late, so the check is on consistency rather than on +1).
 */
static void test_vblank_wait(struct ctx *c)
{
	int64_t period = frame_ns(&c->o->mode), ts, prev_ts, dt;
	uint64_t seq, ns;
	drmVBlank vbl = {};
	unsigned int prev;
	int i;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	vbl.request.type = DRM_VBLANK_RELATIVE;
	vbl.request.sequence = 1;
	igt_assert_eq(drmWaitVBlank(c->kms.fd, &vbl), 0);
	prev = vbl.reply.sequence;
	prev_ts = vbl.reply.tval_sec * 1000000000ll + vbl.reply.tval_usec * 1000ll;

	for (i = 0; i < 10; i++) {
		memset(&vbl, 0, sizeof(vbl));
		vbl.request.type = DRM_VBLANK_ABSOLUTE;
		vbl.request.sequence = prev + 1;
		igt_assert_eq(drmWaitVBlank(c->kms.fd, &vbl), 0);
		igt_assert_lte_u32(prev + 1, vbl.reply.sequence);
		ts = vbl.reply.tval_sec * 1000000000ll +
			vbl.reply.tval_usec * 1000ll;
		dt = ts - prev_ts - (int64_t)(vbl.reply.sequence - prev) * period;
		igt_assert_f(dt > -TIMESTAMP_TOLERANCE_NS &&
			     dt < TIMESTAMP_TOLERANCE_NS,
			     "vblank %u: timestamp off the frame clock by %lld ns\n",
			     vbl.reply.sequence, (long long)dt);
		prev = vbl.reply.sequence;
		prev_ts = ts;
	}
	igt_assert_eq(drmCrtcGetSequence(c->kms.fd, c->o->crtc_id, &seq, &ns), 0);
	igt_assert_lte_u64(prev, seq);

	/* An absolute wait for a sequence in the past returns at once. */
	memset(&vbl, 0, sizeof(vbl));
	vbl.request.type = DRM_VBLANK_ABSOLUTE;
	vbl.request.sequence = prev - 5;
	igt_assert_eq(drmWaitVBlank(c->kms.fd, &vbl), 0);
	igt_assert_lte_u32(prev, vbl.reply.sequence);
}

static void test_vblank_off(struct ctx *c)
{
	drmVBlank vbl = {};

	primepair_disable_all(&c->kms);
	vbl.request.type = DRM_VBLANK_RELATIVE;
	vbl.request.sequence = 1;
	/* drm_wait_vblank_ioctl: vblank of a disabled CRTC is -EINVAL */
	igt_assert_eq(drmWaitVBlank(c->kms.fd, &vbl) ? -errno : 0, -EINVAL);
}

/* An atomic commit's event comes on the next vblank too. */
static void test_atomic_event(struct ctx *c)
{
	struct primepair_flip_event ev = {};
	drmModeAtomicReqPtr req;
	uint64_t seq;
	int i;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	for (i = 0; i < 10; i++) {
		seq = primepair_wait_vblank(&c->kms, c->o);
		req = drmModeAtomicAlloc();
		primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE,
		       "FB_ID", c->fb[i & 1].fb_id);
		igt_assert_eq(drmModeAtomicCommit(c->kms.fd, req,
						  DRM_MODE_PAGE_FLIP_EVENT |
						  DRM_MODE_ATOMIC_NONBLOCK,
						  &ev), 0);
		drmModeAtomicFree(req);
		igt_assert(primepair_read_flip_event(c->kms.fd, 1000));
		/* not before the next vblank; later only if the guest lags */
		igt_assert_lte_u64(seq + 1, ev.sequence);
	}
	igt_assert_eq(ev.count, 10);
}

/*
 * Commit @req nonblocking with an event and wait for it; returns the
 * CLOCK_MONOTONIC time of the call.
 */
static int64_t commit_for_event(struct ctx *c, drmModeAtomicReqPtr req,
				struct primepair_flip_event *ev)
{
	unsigned int count = ev->count;
	int64_t call_ns = primepair_now_ns();

	igt_assert_eq(drmModeAtomicCommit(c->kms.fd, req,
					  DRM_MODE_PAGE_FLIP_EVENT |
					  DRM_MODE_ATOMIC_NONBLOCK |
					  DRM_MODE_ATOMIC_ALLOW_MODESET, ev), 0);
	igt_assert(primepair_read_flip_event(c->kms.fd, 1000));
	igt_assert_eq(ev->count, count + 1);
	return call_ns;
}

/*
 * A nonblocking modeset that switches the CRTC on delivers its event at
 * the CRTC's first vblank, stamped after the call, not at once with the
 * stale time of the vblank before it was switched off (IGT's
 * kms_cursor_legacy long-nonblocking-modeset-vs-cursor-atomic).
 */
static void test_enable_event(struct ctx *c)
{
	struct primepair_flip_event ev = {};
	drmModeAtomicReqPtr req;
	int64_t call_ns;
	uint32_t blob;
	int i;

	for (i = 0; i < 5; i++) {
		primepair_disable_all(&c->kms);
		igt_assert_eq(drmModeCreatePropertyBlob(c->kms.fd, &c->o->mode,
							sizeof(c->o->mode),
							&blob), 0);
		req = drmModeAtomicAlloc();
		igt_assert(req);
		primepair_add(c->kms.fd, req, c->o->crtc_id, DRM_MODE_OBJECT_CRTC,
			      "MODE_ID", blob);
		primepair_add(c->kms.fd, req, c->o->crtc_id, DRM_MODE_OBJECT_CRTC,
			      "ACTIVE", 1);
		primepair_add(c->kms.fd, req, c->o->connector_id,
			      DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID",
			      c->o->crtc_id);
		primepair_add_plane(c->kms.fd, req, c->o->primary, c->o->crtc_id,
				    &c->fb[i & 1], 0, 0, 0, 0,
				    c->o->mode.hdisplay, c->o->mode.vdisplay);
		call_ns = commit_for_event(c, req, &ev);
		drmModeAtomicFree(req);
		igt_assert_lte_s64(call_ns, ev.ts_ns);
		drmModeDestroyPropertyBlob(c->kms.fd, blob);
	}
}

/*
 * A nonblocking commit that switches the CRTC off completes at the end of
 * the frame being scanned out, as on a display engine: its event comes
 * with a later vblank than the one before the call, stamped after the
 * call, and not at once (IGT's kms_cursor_legacy
 * long-nonblocking-modeset-vs-cursor-atomic polls for it right after the
 * commit returns and wants nothing yet).
 */
static void test_disable_event(struct ctx *c)
{
	struct primepair_flip_event ev = {};
	drmModeAtomicReqPtr req;
	int64_t call_ns;
	uint64_t seq;
	int i;

	for (i = 0; i < 5; i++) {
		igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
		seq = primepair_wait_vblank(&c->kms, c->o);
		req = drmModeAtomicAlloc();
		igt_assert(req);
		primepair_add(c->kms.fd, req, c->o->crtc_id, DRM_MODE_OBJECT_CRTC,
			      "ACTIVE", 0);
		call_ns = commit_for_event(c, req, &ev);
		drmModeAtomicFree(req);
		igt_assert_lte_u64(seq + 1, ev.sequence);
		igt_assert_lte_s64(call_ns, ev.ts_ns);
		igt_assert_eq_u64(primepair_prop_value(c->kms.fd, c->o->crtc_id,
						       DRM_MODE_OBJECT_CRTC,
						       "ACTIVE"), 0);
	}
}

/*
 * Each flip vmaps the new framebuffer for the composer; flipping between
 * the same two must reuse their kernel mappings, not map them again.
 */
static void test_flip_maps_once(struct ctx *c)
{
	struct primepair_flip_event ev = {};
	uint64_t hits, created;
	int i;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	/* Both framebuffers have been mapped once. */
	igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id, c->fb[1].fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, &ev), 0);
	igt_assert(primepair_read_flip_event(c->kms.fd, 1000));

	hits = primepair_summary("vmap_cache_hits");
	created = primepair_summary("vmap_created");
	for (i = 0; i < 20; i++) {
		igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id,
					      c->fb[i & 1].fb_id,
					      DRM_MODE_PAGE_FLIP_EVENT, &ev), 0);
		igt_assert_f(primepair_read_flip_event(c->kms.fd, 1000), "flip %d: no event\n", i);
	}
	/*
	 * A flip whose framebuffer the previous state still holds shares
	 * that mapping; every other one reuses the kept one.  None makes a
	 * new one.
	 */
	igt_info("20 flips: %llu vmaps from kept mappings, %llu new\n",
		 (unsigned long long)(primepair_summary("vmap_cache_hits") - hits),
		 (unsigned long long)(primepair_summary("vmap_created") - created));
	igt_assert_lt_u64(hits, primepair_summary("vmap_cache_hits"));
	igt_assert_eq_u64(primepair_summary("vmap_created"), created);
}

#ifndef DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP
#define DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP	0x15
#endif

/*
 * @n asynchronous flips between the two framebuffers, legacy or atomic,
 * each waited for; returns how many completed in the same vblank as the
 * one before.  A flip paced by the vblank never does.
 */
static unsigned int async_flips(struct ctx *c, unsigned int n, bool atomic)
{
	struct primepair_flip_event ev = {};
	unsigned int i, same = 0, prev = 0;

	for (i = 0; i < n; i++) {
		uint32_t fb = c->fb[(i + 1) & 1].fb_id;

		if (atomic) {
			drmModeAtomicReqPtr req = drmModeAtomicAlloc();

			primepair_add(c->kms.fd, req, c->o->primary,
				      DRM_MODE_OBJECT_PLANE, "FB_ID", fb);
			igt_assert_eq(drmModeAtomicCommit(c->kms.fd, req,
							  DRM_MODE_PAGE_FLIP_EVENT |
							  DRM_MODE_PAGE_FLIP_ASYNC |
							  DRM_MODE_ATOMIC_NONBLOCK,
							  &ev), 0);
			drmModeAtomicFree(req);
		} else {
			igt_assert_eq(drmModePageFlip(c->kms.fd, c->o->crtc_id, fb,
						      DRM_MODE_PAGE_FLIP_EVENT |
						      DRM_MODE_PAGE_FLIP_ASYNC,
						      &ev), 0);
		}
		igt_assert_f(primepair_read_flip_event(c->kms.fd, 1000), "flip %u: no event\n", i);
		igt_assert_eq(ev.crtc_id, c->o->crtc_id);
		if (i && ev.sequence == prev)
			same++;
		prev = ev.sequence;
	}
	igt_assert_eq(ev.count, n);
	return same;
}

/* Writeback shows @fb's colour: the composer took the last flip. */
static void assert_shows(struct ctx *c, const struct primepair_fb *fb,
			 uint32_t color)
{
	struct primepair_fb wb;
	unsigned int wrong = 0;
	uint32_t p;

	primepair_fb_create(c->kms.fd, fb->width, fb->height,
			    DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(&c->kms, c->o, &wb);
	for (uint32_t y = 0; y < wb.height; y += 7)
		for (uint32_t x = 0; x < wb.width; x += 5) {
			p = ((uint32_t *)wb.map)[y * wb.pitch / 4 + x];
			if ((p & 0xffffff) != (color & 0xffffff) && !wrong++)
				igt_info("pixel (%u,%u) %08x, want %08x\n", x,
					 y, p, color);
		}
	primepair_fb_destroy(c->kms.fd, &wb);
	igt_assert_eq(wrong, 0);
}

/*
 * Asynchronous (tearing) flips complete without waiting for a vblank:
 * several complete within one frame, and the picture is the last one.
 * Atomic commits flip asynchronously where the core offers it (6.8 on);
 * an asynchronous commit that changes anything but framebuffers fails.
 */
static void test_async_flip(struct ctx *c)
{
	drmModeAtomicReqPtr req;
	uint64_t cap = 0;
	unsigned int same;

	igt_require(c->o->wb_connector_id);
	igt_assert_eq(drmGetCap(c->kms.fd, DRM_CAP_ASYNC_PAGE_FLIP, &cap), 0);
	igt_assert_eq(cap, 1);
	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	primepair_wait_vblank(&c->kms, c->o);

	same = async_flips(c, 32, false);
	igt_info("legacy: %u of 32 async flips completed in the vblank of the one before\n",
		 same);
	igt_assert_lt(0, same);
	assert_shows(c, &c->fb[0], 0xff102030u);

	if (drmGetCap(c->kms.fd, DRM_CAP_ATOMIC_ASYNC_PAGE_FLIP, &cap) || !cap) {
		igt_info("this kernel has no atomic asynchronous flips\n");
		return;
	}
	same = async_flips(c, 31, true);
	igt_info("atomic: %u of 31 async flips completed in the vblank of the one before\n",
		 same);
	igt_assert_lt(0, same);
	assert_shows(c, &c->fb[1], 0xff302010u);

	/* Plane alpha is no framebuffer: not asynchronously. */
	req = drmModeAtomicAlloc();
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE,
		      "FB_ID", c->fb[0].fb_id);
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE,
		      "alpha", 0x8000);
	igt_assert_eq(drmModeAtomicCommit(c->kms.fd, req,
					  DRM_MODE_PAGE_FLIP_ASYNC |
					  DRM_MODE_ATOMIC_NONBLOCK, NULL), -EINVAL);
	drmModeAtomicFree(req);
	assert_shows(c, &c->fb[1], 0xff302010u);
}

igt_main
{
	struct ctx c = {};
	pthread_t sampler;

	igt_fixture {
		igt_assert_eq(pthread_create(&sampler, NULL, stall_sampler,
					     NULL), 0);
		primepair_kms_open(&c.kms);
		c.o = &c.kms.outputs[0];
		primepair_fb_create(c.kms.fd, c.o->mode.hdisplay, c.o->mode.vdisplay,
			     DRM_FORMAT_XRGB8888, &c.fb[0]);
		primepair_fb_create(c.kms.fd, c.o->mode.hdisplay, c.o->mode.vdisplay,
			     DRM_FORMAT_XRGB8888, &c.fb[1]);
		primepair_fb_fill_color(&c.fb[0], 0xff102030u);
		primepair_fb_fill_color(&c.fb[1], 0xff302010u);
	}

	/*
	 * Each subtest leaves the outputs off and no event unread, also when
	 * it fails with a flip in flight: that flip's event points at the
	 * failed subtest's stack.
	 */
	igt_subtest("flip-events") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		flip_run(&c, 10);
	}
	igt_subtest("flip-300") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		flip_run(&c, 300);
	}
	igt_subtest("vblank-wait") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_vblank_wait(&c);
	}
	igt_subtest("atomic-event") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_atomic_event(&c);
	}
	igt_subtest("vblank-off") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_vblank_off(&c);
	}
	igt_describe("Switching the CRTC on: the event comes with its first vblank, stamped after the call");
	igt_subtest("enable-event") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_enable_event(&c);
	}
	igt_describe("Flipping back and forth between two framebuffers maps each once, not once per flip");
	igt_subtest("flip-maps-once") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_flip_maps_once(&c);
	}
	igt_describe("Asynchronous flips, legacy and atomic, complete without waiting for the vblank and show the last framebuffer");
	igt_subtest("async-flip") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_async_flip(&c);
	}
	igt_describe("Switching the CRTC off completes at the end of the frame: the event comes with the next vblank");
	igt_subtest("disable-event") {
		primepair_subtest_cleanup_push(primepair_kms_quiesce, &c.kms);
		test_disable_event(&c);
	}

	igt_fixture {
		primepair_disable_all(&c.kms);
		primepair_fb_destroy(c.kms.fd, &c.fb[0]);
		primepair_fb_destroy(c.kms.fd, &c.fb[1]);
		close(c.kms.fd);
		sampler_stop = true;
		pthread_join(sampler, NULL);
		primepair_assert_summary_zero();
	}
}

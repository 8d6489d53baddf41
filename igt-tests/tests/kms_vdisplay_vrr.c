// SPDX-License-Identifier: GPL-2.0
/*
 * kms_vdisplay_vrr - variable refresh rate on vdisplay
 *
 * What a compositor relies on when it turns VRR_ENABLED on: the connector
 * says it can ("vrr_capable" 1, its range in debugfs "vrr_range"), a
 * frame ends when a flip comes (flip events spaced as the flips, not
 * snapped to the mode's frame grid), never earlier than one frame of the
 * mode after the last, and a screen nobody flips is refreshed at the
 * range's lowest rate.  With VRR_ENABLED 0 the grid is back.
 *
 * The guest is emulated (TCG) on a shared host: timings are judged by
 * their median over a run, with tolerances of several milliseconds, never
 * by one sample.  The fixed grid is exact (the timer derives its
 * timestamps from its expiry), so multiples of the frame time are checked
 * to 0.1 ms.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("vdisplay variable refresh: vrr_capable, VRR_ENABLED and the vblank timer following flips");

/* vdisplay's lowest refresh rate without an EDID monitor range */
#define VRR_MIN_HZ		30
#define GRID_TOLERANCE_NS	100000ll
#define MEDIAN_TOLERANCE_NS	4000000ll
#define MAX_SAMPLES		64

struct ctx {
	struct primepair_kms kms;
	struct primepair_output *o;
	struct primepair_fb fb[2];
	int64_t period;
};

/* Wait until @ev has counted @count events */
static void wait_event(int fd, struct primepair_flip_event *ev,
		       unsigned int count)
{
	while (ev->count < count)
		igt_assert_f(primepair_read_flip_event(fd, 1000),
			     "no flip event\n");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t median(const int64_t *v, unsigned int n)
{
	int64_t s[MAX_SAMPLES];

	igt_assert(n > 0 && n <= MAX_SAMPLES);
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);
	return s[n / 2];
}

static void sleep_until(int64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ll,
		.tv_nsec = ns % 1000000000ll,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int64_t frame_ns(const drmModeModeInfo *m)
{
	return (int64_t)m->htotal * m->vtotal * 1000000ll / m->clock;
}

/*
 * Commit VRR_ENABLED = @value on @c's CRTC (with its primary's
 * framebuffer, as a compositor's commit would carry one) and @flags;
 * returns 0 or -errno.
 */
static int set_vrr(struct ctx *c, uint64_t value, unsigned int fb,
		   uint32_t flags, struct primepair_flip_event *ev)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();
	int ret;

	igt_assert(req);
	igt_assert_lt(0, drmModeAtomicAddProperty(req, c->o->crtc_id,
				primepair_prop_id(c->kms.fd, c->o->crtc_id,
						  DRM_MODE_OBJECT_CRTC,
						  "VRR_ENABLED"), value));
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE,
		      "FB_ID", c->fb[fb].fb_id);
	ret = drmModeAtomicCommit(c->kms.fd, req, flags, ev) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

static void vrr_on(struct ctx *c, bool on)
{
	igt_assert_eq(set_vrr(c, on, 0, 0, NULL), 0);
	igt_assert_eq(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					   DRM_MODE_OBJECT_CRTC, "VRR_ENABLED"),
		      on);
}

/* Queue a flip to fb[@fb], nonblocking, its event counted in @ev */
static void flip_ev(struct ctx *c, unsigned int fb, struct primepair_flip_event *ev)
{
	drmModeAtomicReqPtr req = drmModeAtomicAlloc();

	igt_assert(req);
	primepair_add(c->kms.fd, req, c->o->primary, DRM_MODE_OBJECT_PLANE,
		      "FB_ID", c->fb[fb].fb_id);
	igt_assert_eq(drmModeAtomicCommit(c->kms.fd, req,
					  DRM_MODE_PAGE_FLIP_EVENT |
					  DRM_MODE_ATOMIC_NONBLOCK, ev), 0);
	drmModeAtomicFree(req);
}

/*
 * Flip @n times, each flip @gap_ns after the one before or at once when
 * the previous event came later (0: as soon as the previous event is
 * in), into @dt the spacing of the events; returns
 * how many flips were latched by a vblank before they were queued (none
 * should be).
 */
static unsigned int flip_series(struct ctx *c, unsigned int n, int64_t gap_ns,
				int64_t *dt)
{
	struct primepair_flip_event ev = {};
	int64_t next, prev_ts, queued;
	unsigned int i, early = 0;

	flip_ev(c, 1, &ev);
	wait_event(c->kms.fd, &ev, 1);
	prev_ts = ev.ts_ns;
	next = primepair_now_ns();

	for (i = 0; i < n; i++) {
		/* A guest stall late in one flip does not shorten the rest. */
		if (gap_ns) {
			next += gap_ns;
			if (next < primepair_now_ns())
				next = primepair_now_ns();
			sleep_until(next);
		}
		queued = primepair_now_ns();
		flip_ev(c, i & 1, &ev);
		wait_event(c->kms.fd, &ev, i + 2);
		early += ev.ts_ns < queued;
		dt[i] = ev.ts_ns - prev_ts;
		prev_ts = ev.ts_ns;
	}
	return early;
}

static int64_t off_grid(int64_t dt, int64_t period)
{
	int64_t r = dt % period;

	return r < period - r ? r : period - r;
}

/* (a) the connector says it takes variable refresh, and in what range */
static void test_capable(struct ctx *c)
{
	unsigned int i, checked = 0;

	for (i = 0; i < c->kms.noutputs; i++) {
		struct primepair_output *o = &c->kms.outputs[i];
		drmModeConnectorPtr conn;
		unsigned int min = 0, max = 0, fastest = 0;
		char path[256], buf[64] = "";
		int fd, len, m;

		if (!o->connector_id || !o->mode.clock)
			continue;
		conn = drmModeGetConnector(c->kms.fd, o->connector_id);
		igt_assert(conn);
		igt_assert_eq(primepair_prop_value(c->kms.fd, o->connector_id,
						   DRM_MODE_OBJECT_CONNECTOR,
						   "vrr_capable"), 1);
		igt_assert_eq(primepair_prop_value(c->kms.fd, o->crtc_id,
						   DRM_MODE_OBJECT_CRTC,
						   "VRR_ENABLED"), 0);
		for (m = 0; m < conn->count_modes; m++)
			if (conn->modes[m].vrefresh > fastest)
				fastest = conn->modes[m].vrefresh;
		drmModeFreeConnector(conn);

		/* The core's file, showing the range vdisplay set */
		primepair_connector_debugfs(&c->kms, o->connector_id,
					    "vrr_range", path, sizeof(path));
		fd = open(path, O_RDONLY);
		igt_require_f(fd >= 0, "no %s\n", path);
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		igt_assert_lt(0, len);
		igt_assert_f(sscanf(buf, "Min: %u\nMax: %u\n", &min, &max) == 2,
			     "%s: \"%s\"\n", path, buf);
		igt_info("%s: %u-%u Hz, test mode %u Hz\n", path, min, max,
			 o->mode.vrefresh);
		/* No EDID: from vdisplay's minimum to the fastest mode */
		igt_assert_eq(min, VRR_MIN_HZ);
		igt_assert_eq(max, fastest);
		igt_assert_lt(min, max);
		igt_assert_lte(o->mode.vrefresh, max);
		checked++;
	}
	igt_assert_lt(0, checked);

	/* vrr_capable is the connector's to say, not userspace's */
	{
		drmModeAtomicReqPtr req = drmModeAtomicAlloc();

		igt_assert(req);
		igt_assert_lt(0, drmModeAtomicAddProperty(req, c->o->connector_id,
				primepair_prop_id(c->kms.fd, c->o->connector_id,
						  DRM_MODE_OBJECT_CONNECTOR,
						  "vrr_capable"), 1));
		igt_assert_eq(primepair_commit(c->kms.fd, req, 0), -EINVAL);
		drmModeAtomicFree(req);
	}
}

/* (b) flip events follow the flips with VRR on, snap to the grid off */
static void test_follows_flips(struct ctx *c)
{
	int64_t dt[MAX_SAMPLES], gap = c->period * 3 / 2, med;
	unsigned int i, n = 30, early, on_grid = 0;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);

	/* Fixed grid: every spacing is a whole number of frames. */
	vrr_on(c, false);
	early = flip_series(c, n, gap, dt);
	igt_assert_eq(early, 0);
	for (i = 0; i < n; i++)
		on_grid += off_grid(dt[i], c->period) < GRID_TOLERANCE_NS;
	med = median(dt, n);
	igt_info("VRR off, flips every %lld us: median spacing %lld us, %u of %u on the %lld us grid\n",
		 (long long)gap / 1000, (long long)med / 1000, on_grid, n,
		 (long long)c->period / 1000);
	igt_assert_eq(on_grid, n);
	igt_assert_lt(MEDIAN_TOLERANCE_NS, llabs(med - gap));

	/* Variable: the frames last as long as the flips take. */
	vrr_on(c, true);
	early = flip_series(c, n, gap, dt);
	igt_assert_eq(early, 0);
	med = median(dt, n);
	for (i = 0, on_grid = 0; i < n; i++)
		on_grid += off_grid(dt[i], c->period) < GRID_TOLERANCE_NS;
	igt_info("VRR on, flips every %lld us: median spacing %lld us, %u of %u on the grid\n",
		 (long long)gap / 1000, (long long)med / 1000, on_grid, n);
	igt_assert_f(llabs(med - gap) < MEDIAN_TOLERANCE_NS,
		     "median spacing %lld ns, flips %lld ns apart\n",
		     (long long)med, (long long)gap);

	/* As fast as they come: never shorter than the mode's frame. */
	early = flip_series(c, n, 0, dt);
	igt_assert_eq(early, 0);
	med = median(dt, n);
	igt_info("VRR on, flips back to back: median spacing %lld us, frame %lld us\n",
		 (long long)med / 1000, (long long)c->period / 1000);
	for (i = 0; i < n; i++)
		igt_assert_f(dt[i] > c->period - GRID_TOLERANCE_NS,
			     "flip %u: %lld ns after the one before, frame %lld ns\n",
			     i, (long long)dt[i], (long long)c->period);
	igt_assert_f(med < c->period + MEDIAN_TOLERANCE_NS,
		     "median spacing %lld ns, frame %lld ns\n", (long long)med,
		     (long long)c->period);
	vrr_on(c, false);
}

/* Spacing of @n vblanks nobody flips for, and how far the sequence moved */
static int64_t idle_spacing(struct ctx *c, unsigned int n, int64_t *seq_step)
{
	int64_t dt[MAX_SAMPLES], steps[MAX_SAMPLES], prev_ts = 0, ts;
	unsigned int i, prev_seq = 0;

	for (i = 0; i <= n; i++) {
		drmVBlank vbl = {};

		vbl.request.type = DRM_VBLANK_RELATIVE |
			(c->o->crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT);
		vbl.request.sequence = 1;
		igt_assert_eq(drmWaitVBlank(c->kms.fd, &vbl), 0);
		ts = vbl.reply.tval_sec * 1000000000ll +
			vbl.reply.tval_usec * 1000ll;
		if (i) {
			dt[i - 1] = ts - prev_ts;
			steps[i - 1] = vbl.reply.sequence - prev_seq;
			igt_assert_lte(1, steps[i - 1]);
		}
		prev_ts = ts;
		prev_seq = vbl.reply.sequence;
	}
	*seq_step = median(steps, n);
	return median(dt, n);
}

/* (c) with VRR on and nothing flipped, frames last the longest they may */
static void test_idle_stretch(struct ctx *c)
{
	int64_t longest = 1000000000ll / VRR_MIN_HZ, med, step;

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	igt_require(c->o->mode.vrefresh > VRR_MIN_HZ);

	vrr_on(c, true);
	med = idle_spacing(c, 16, &step);
	igt_info("VRR on, idle: median vblank spacing %lld us (longest frame %lld us), sequence +%lld per vblank\n",
		 (long long)med / 1000, (long long)longest / 1000,
		 (long long)step);
	igt_assert_f(llabs(med - longest) < MEDIAN_TOLERANCE_NS,
		     "median spacing %lld ns, want %lld ns\n", (long long)med,
		     (long long)longest);

	vrr_on(c, false);
	med = idle_spacing(c, 16, &step);
	igt_info("VRR off, idle: median vblank spacing %lld us (frame %lld us), sequence +%lld per vblank\n",
		 (long long)med / 1000, (long long)c->period / 1000,
		 (long long)step);
	igt_assert_f(llabs(med - c->period) < GRID_TOLERANCE_NS,
		     "median spacing %lld ns, frame %lld ns\n", (long long)med,
		     (long long)c->period);
	igt_assert_eq(step, 1);
}

/*
 * (d) VRR_ENABLED is a boolean: the core refuses other values (EINVAL on
 * 6.1, 6.12 and 7.3 alike).  Switching it while flips are pending, in any
 * phase of the frame, completes every flip and leaves no warning.
 */
static void test_bad_input(struct ctx *c)
{
	static const uint64_t bad[] = { 2, 0x100000000ull, ~0ull };
	struct primepair_flip_event ev = {};
	unsigned int i, expected = 0;
	int kmsg = primepair_kmsg_mark();

	igt_assert_eq(primepair_modeset(&c->kms, c->o, &c->fb[0]), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		igt_assert_eq(set_vrr(c, bad[i], 0, 0, NULL), -EINVAL);
	igt_assert_eq(set_vrr(c, 2, 0, DRM_MODE_ATOMIC_TEST_ONLY, NULL),
		      -EINVAL);
	igt_assert_eq(primepair_prop_value(c->kms.fd, c->o->crtc_id,
					   DRM_MODE_OBJECT_CRTC, "VRR_ENABLED"),
		      0);

	srand(1);
	for (i = 0; i < 40; i++) {
		/* A flip in flight, then a blocking toggle that waits for it */
		flip_ev(c, i & 1, &ev);
		expected++;
		usleep(rand() % 20000);
		igt_assert_eq(set_vrr(c, !(i & 1), (i + 1) & 1, 0, NULL), 0);
		wait_event(c->kms.fd, &ev, expected);
		/* A nonblocking toggle with an event of its own */
		usleep(rand() % 20000);
		igt_assert_eq(set_vrr(c, i & 1, i & 1,
				      DRM_MODE_ATOMIC_NONBLOCK |
				      DRM_MODE_PAGE_FLIP_EVENT, &ev), 0);
		expected++;
		wait_event(c->kms.fd, &ev, expected);
	}
	igt_assert_eq(ev.count, expected);
	vrr_on(c, false);
	if (kmsg >= 0) {
		igt_assert(!primepair_kmsg_find(kmsg, "WARNING"));
		close(kmsg);
	}
}

igt_main
{
	struct ctx c = {};

	igt_fixture {
		primepair_kms_open(&c.kms);
		c.o = &c.kms.outputs[0];
		igt_require(c.o->mode.clock);
		c.period = frame_ns(&c.o->mode);
		primepair_fb_create(c.kms.fd, c.o->mode.hdisplay,
				    c.o->mode.vdisplay, DRM_FORMAT_XRGB8888,
				    &c.fb[0]);
		primepair_fb_create(c.kms.fd, c.o->mode.hdisplay,
				    c.o->mode.vdisplay, DRM_FORMAT_XRGB8888,
				    &c.fb[1]);
		primepair_fb_fill_color(&c.fb[0], 0xff204060u);
		primepair_fb_fill_color(&c.fb[1], 0xff604020u);
	}

	igt_describe("Connectors are vrr_capable; debugfs vrr_range gives the range");
	igt_subtest("capable")
		test_capable(&c);
	igt_describe("With VRR_ENABLED, flip events are spaced as the flips; without, on the frame grid");
	igt_subtest("follows-flips")
		test_follows_flips(&c);
	igt_describe("With VRR_ENABLED and no flips, vblanks come at the range's lowest rate");
	igt_subtest("idle-stretch")
		test_idle_stretch(&c);
	igt_describe("VRR_ENABLED takes 0 and 1 only; toggling it under pending flips is clean");
	igt_subtest("bad-input")
		test_bad_input(&c);

	igt_fixture {
		primepair_disable_all(&c.kms);
		primepair_fb_destroy(c.kms.fd, &c.fb[0]);
		primepair_fb_destroy(c.kms.fd, &c.fb[1]);
		close(c.kms.fd);
		primepair_assert_summary_zero();
	}
}

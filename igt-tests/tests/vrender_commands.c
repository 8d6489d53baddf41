// SPDX-License-Identifier: GPL-2.0
/*
 * vrender_commands - every command against a CPU reference
 *
 * A surface is a vrender buffer (with a pitch wider than its rows) or a
 * vdisplay dumb buffer imported into vrender.  Both start with noise; a
 * CPU copy of every byte is kept and every command is applied to it too.
 * After each job the whole buffer, padding included, must equal the copy:
 * the command wrote its rectangle exactly and nothing else.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

/* Wider than the engine's 1024-pixel chunks, so rows take several. */
#define W	1300
#define H	40
#define OWN_PITCH	(W * 4 + 64)

struct surface {
	int render;
	uint32_t handle;	/* on vrender */
	uint32_t pitch;
	uint64_t size;
	uint32_t *map;		/* CPU view of the buffer */
	uint32_t *ref;		/* what it should contain */
	/* imported: the exporting vdisplay buffer */
	int display;
	uint32_t dumb;
};

struct rect {
	uint32_t x, y, w, h;
};

static const struct rect rects[] = {
	{ 0, 0, W, H },			/* full surface */
	{ 0, 0, 1, 1 },			/* first pixel */
	{ W - 1, H - 1, 1, 1 },		/* last pixel */
	{ 3, 5, 17, 9 },		/* unaligned */
	{ W - 13, 0, 13, H },		/* right edge */
	{ 0, H - 7, W, 7 },		/* bottom edge */
	{ 1021, 2, 7, 30 },		/* across a chunk boundary */
	{ 777, 11, 1, 23 },		/* one column */
	{ 5, 39, W - 10, 1 },		/* one row */
};

static uint32_t noise_state;

static uint32_t noise(void)
{
	noise_state = noise_state * 1664525u + 1013904223u;
	return noise_state;
}

static void surface_fill_noise(struct surface *s)
{
	uint64_t i;

	for (i = 0; i < s->size / 4; i++)
		s->map[i] = noise();
	memcpy(s->ref, s->map, s->size);
}

static void surface_own(struct surface *s, int render)
{
	memset(s, 0, sizeof(*s));
	s->render = render;
	s->display = -1;
	s->pitch = OWN_PITCH;
	s->size = (uint64_t)OWN_PITCH * H;
	s->handle = primepair_vrender_bo_create(render, s->size);
	s->map = primepair_vrender_bo_mmap(render, s->handle, s->size,
					   PROT_READ | PROT_WRITE);
	s->ref = malloc(s->size);
	igt_assert(s->ref);
	surface_fill_noise(s);
}

static void surface_imported(struct surface *s, int render)
{
	uint64_t offset;
	int dmabuf;

	memset(s, 0, sizeof(*s));
	s->render = render;
	s->display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
	igt_assert_eq(drmModeCreateDumbBuffer(s->display, W, H, 32, 0,
					      &s->dumb, &s->pitch, &s->size),
		      0);
	igt_assert_eq(drmModeMapDumbBuffer(s->display, s->dumb, &offset), 0);
	s->map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      s->display, offset);
	igt_assert(s->map != MAP_FAILED);
	igt_assert_eq(drmPrimeHandleToFD(s->display, s->dumb, DRM_CLOEXEC,
					 &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &s->handle), 0);
	close(dmabuf);
	s->ref = malloc(s->size);
	igt_assert(s->ref);
	surface_fill_noise(s);
}

static void surface_create(struct surface *s, int render, bool imported)
{
	if (imported)
		surface_imported(s, render);
	else
		surface_own(s, render);
}

static void surface_destroy(struct surface *s)
{
	munmap(s->map, s->size);
	free(s->ref);
	igt_assert_eq(drmCloseBufferHandle(s->render, s->handle), 0);
	if (s->display >= 0) {
		igt_assert_eq(drmModeDestroyDumbBuffer(s->display, s->dumb), 0);
		close(s->display);
	}
}

static void surface_check(struct surface *s, const char *what)
{
	uint64_t i;

	primepair_vrender_bo_wait(s->render, s->handle, 10000000000ll);
	if (!memcmp(s->map, s->ref, s->size))
		return;
	for (i = 0; i < s->size / 4; i++)
		igt_assert_f(s->map[i] == s->ref[i],
			     "%s: pixel (%llu, %llu) is 0x%08x, expected 0x%08x\n",
			     what, (unsigned long long)(i * 4 % s->pitch / 4),
			     (unsigned long long)(i * 4 / s->pitch), s->map[i],
			     s->ref[i]);
}

static uint32_t *ref_pixel(struct surface *s, uint32_t x, uint32_t y)
{
	return &s->ref[(y * s->pitch) / 4 + x];
}

static void do_fill(struct surface *s, const struct rect *r, uint32_t value)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(s->handle, 0,
							  s->pitch, r->x,
							  r->y, r->w, r->h,
							  value);
	uint32_t x, y;

	for (y = 0; y < r->h; y++)
		for (x = 0; x < r->w; x++)
			*ref_pixel(s, r->x + x, r->y + y) = value;
	primepair_vrender_submit(s->render, &c, 1);
}

static void do_pattern(struct surface *s, const struct rect *r,
		       uint32_t frame)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_PATTERN,
		.dst_handle = s->handle,
		.dst_pitch = s->pitch,
		.dst_x = r->x, .dst_y = r->y,
		.width = r->w, .height = r->h,
		.value = frame,
	};
	uint32_t x, y;

	for (y = 0; y < r->h; y++)
		for (x = 0; x < r->w; x++)
			*ref_pixel(s, r->x + x, r->y + y) =
				primepair_vrender_pattern_pixel(x, y, frame);
	primepair_vrender_submit(s->render, &c, 1);
}

/* memmove() semantics: the result is as if the source was read first. */
static void do_copy(struct surface *dst, uint32_t dx, uint32_t dy,
		    struct surface *src, uint32_t sx, uint32_t sy,
		    uint32_t w, uint32_t h)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_COPY,
		.dst_handle = dst->handle,
		.dst_pitch = dst->pitch,
		.dst_x = dx, .dst_y = dy,
		.src_handle = src->handle,
		.src_pitch = src->pitch,
		.src_x = sx, .src_y = sy,
		.width = w, .height = h,
	};
	uint32_t *tmp = malloc((size_t)w * h * 4);
	uint32_t y;

	igt_assert(tmp);
	for (y = 0; y < h; y++)
		memcpy(&tmp[y * w], ref_pixel(src, sx, sy + y), w * 4);
	for (y = 0; y < h; y++)
		memcpy(ref_pixel(dst, dx, dy + y), &tmp[y * w], w * 4);
	free(tmp);
	primepair_vrender_submit(dst->render, &c, 1);
}

static void test_fill(int render, bool imported)
{
	struct surface s;
	unsigned int i;

	surface_create(&s, render, imported);
	for (i = 0; i < ARRAY_SIZE(rects); i++) {
		do_fill(&s, &rects[i], 0xa5000000 | i * 0x010203);
		surface_check(&s, "fill");
	}
	surface_destroy(&s);
}

static void test_pattern(int render, bool imported)
{
	struct surface s;
	unsigned int i;

	surface_create(&s, render, imported);
	for (i = 0; i < ARRAY_SIZE(rects); i++) {
		do_pattern(&s, &rects[i], i * 37);
		surface_check(&s, "pattern");
	}
	surface_destroy(&s);
}

static void test_copy(int render, bool dst_imported, bool src_imported)
{
	struct surface d, s;
	unsigned int i;

	surface_create(&d, render, dst_imported);
	surface_create(&s, render, src_imported);
	for (i = 0; i < ARRAY_SIZE(rects); i++) {
		const struct rect *r = &rects[i];
		/* From the mirrored position where it fits */
		uint32_t sx = W - r->w - r->x, sy = H - r->h - r->y;

		do_copy(&d, r->x, r->y, &s, sx, sy, r->w, r->h);
		surface_check(&d, "copy");
		surface_check(&s, "copy source");
	}
	surface_destroy(&s);
	surface_destroy(&d);
}

/* Overlapping copies within one buffer, in every direction. */
static void test_copy_overlap(int render, bool imported)
{
	static const struct {
		uint32_t sx, sy, dx, dy, w, h;
	} moves[] = {
		{ 1, 0, 0, 0, W - 1, H },	/* left by one pixel */
		{ 0, 0, 1, 0, W - 1, H },	/* right by one pixel */
		{ 0, 1, 0, 0, W, H - 1 },	/* up by one row */
		{ 0, 0, 0, 1, W, H - 1 },	/* down by one row */
		{ 10, 10, 5, 8, 1200, 25 },	/* up and left */
		{ 5, 8, 10, 10, 1200, 25 },	/* down and right */
		{ 5, 10, 10, 8, 1200, 25 },	/* up and right */
		{ 10, 8, 5, 10, 1200, 25 },	/* down and left */
		{ 3, 3, 3, 3, 900, 30 },	/* onto itself */
	};
	struct surface s;
	unsigned int i;

	surface_create(&s, render, imported);
	for (i = 0; i < ARRAY_SIZE(moves); i++) {
		do_copy(&s, moves[i].dx, moves[i].dy, &s, moves[i].sx,
			moves[i].sy, moves[i].w, moves[i].h);
		surface_check(&s, "overlapping copy");
	}
	surface_destroy(&s);
}

static void test_checksum(int render, bool imported)
{
	uint32_t result = primepair_vrender_bo_create(render, 4096);
	uint32_t *res = primepair_vrender_bo_mmap(render, result, 4096,
						  PROT_READ);
	struct surface s;
	unsigned int i;

	surface_create(&s, render, imported);
	for (i = 0; i < ARRAY_SIZE(rects); i++) {
		const struct rect *r = &rects[i];
		struct drm_vrender_cmd c;
		uint32_t crc = 0, y;

		for (y = 0; y < r->h; y++)
			crc = primepair_crc32(crc, ref_pixel(&s, r->x, r->y + y),
					      r->w * 4);
		c = primepair_vrender_checksum(s.handle, 0, s.pitch, r->w,
					       r->h, result, 4 * i);
		c.src_x = r->x;
		c.src_y = r->y;
		primepair_vrender_submit(render, &c, 1);
		primepair_vrender_bo_wait(render, result, 10000000000ll);
		igt_assert_eq_u32(res[i], crc);
	}
	/* The source was only read. */
	surface_check(&s, "checksum source");
	surface_destroy(&s);
	munmap(res, 4096);
	igt_assert_eq(drmCloseBufferHandle(render, result), 0);
}

/* A surface at a non-zero offset, and several commands in one job */
static void test_offset_batch(int render, bool imported)
{
	struct surface s;
	struct drm_vrender_cmd c[3];
	uint64_t off = 3 * 4096 + 12;
	uint32_t pitch = 512, x, y;

	surface_create(&s, render, imported);
	c[0] = primepair_vrender_fill(s.handle, off, pitch, 2, 3, 50, 20,
				      0x12345678);
	c[1] = c[0];
	c[1].op = VRENDER_CMD_PATTERN;
	c[1].dst_x = 30;
	c[1].value = 9;
	c[2] = (struct drm_vrender_cmd) {
		.op = VRENDER_CMD_COPY,
		.dst_handle = s.handle, .dst_offset = off, .dst_pitch = pitch,
		.dst_x = 0, .dst_y = 30,
		.src_handle = s.handle, .src_offset = off, .src_pitch = pitch,
		.src_x = 10, .src_y = 5, .width = 60, .height = 10,
	};
	for (y = 0; y < 20; y++)
		for (x = 0; x < 50; x++)
			s.ref[(off + (3 + y) * pitch) / 4 + 2 + x] = 0x12345678;
	for (y = 0; y < 20; y++)
		for (x = 0; x < 50; x++)
			s.ref[(off + (3 + y) * pitch) / 4 + 30 + x] =
				primepair_vrender_pattern_pixel(x, y, 9);
	for (y = 0; y < 10; y++)
		memmove(&s.ref[(off + (30 + y) * pitch) / 4],
			&s.ref[(off + (5 + y) * pitch) / 4 + 10], 60 * 4);
	primepair_vrender_submit(render, c, 3);
	surface_check(&s, "batch at an offset");
	surface_destroy(&s);
}

igt_main
{
	int render = -1;
	int kind;

	igt_fixture {
		render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		noise_state = 0x12345;
	}

	for (kind = 0; kind < 2; kind++) {
		const char *name = kind ? "imported" : "own";

		igt_describe("FILL writes exactly its rectangle");
		igt_subtest_f("fill-%s", name)
			test_fill(render, kind);
		igt_describe("PATTERN writes the documented image");
		igt_subtest_f("pattern-%s", name)
			test_pattern(render, kind);
		igt_describe("COPY between two buffers");
		igt_subtest_f("copy-%s", name)
			test_copy(render, kind, kind);
		igt_describe("COPY within a buffer behaves like memmove() in every direction");
		igt_subtest_f("copy-overlap-%s", name)
			test_copy_overlap(render, kind);
		igt_describe("CHECKSUM writes zlib's CRC-32 of the rectangle");
		igt_subtest_f("checksum-%s", name)
			test_checksum(render, kind);
		igt_describe("Commands at a buffer offset, three in one job");
		igt_subtest_f("offset-batch-%s", name)
			test_offset_batch(render, kind);
	}

	igt_describe("COPY from an own buffer into an imported one and back");
	igt_subtest("copy-own-to-imported")
		test_copy(render, true, false);
	igt_subtest("copy-imported-to-own")
		test_copy(render, false, true);

	igt_fixture {
		close(render);
		primepair_assert_summary_zero();
	}
}

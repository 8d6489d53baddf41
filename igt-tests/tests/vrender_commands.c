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

/* ----------------------------------------------------------------------
 * FILL and PATTERN into NV12 and XRGB16161616 surfaces
 */

/* NV12 in a surface: Y rows NV12_PITCH apart, then the CbCr plane */
#define NV12_PITCH	(W + 12)
#define NV12_UV		((uint64_t)NV12_PITCH * H)

/* Even rectangles, one across the engine's 1024-pixel chunks */
static const struct rect nv12_rects[] = {
	{ 0, 0, W, H }, { 2, 4, 18, 10 }, { W - 14, 0, 14, H },
	{ 1020, 2, 8, 30 }, { 0, H - 8, W, 8 },
};

/* 64-bit pixels: 650 fit either surface's rows; 512 make an engine chunk */
#define W16	650
static const struct rect rgb64_rects[] = {
	{ 0, 0, W16, H }, { 3, 5, 17, 9 }, { 509, 2, 7, 30 },
	{ W16 - 1, H - 1, 1, 1 },
};

static uint8_t clamp_u8(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (uint8_t)(v + 0.5);
}

/* BT.601 limited range, in floating point: the reference for NV12 */
static void ref_ycbcr(uint32_t argb, uint8_t *y, uint8_t *cb, uint8_t *cr)
{
	double r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;
	double luma = 0.299 * r + 0.587 * g + 0.114 * b;

	*y = clamp_u8(16 + luma * 219 / 255);
	*cb = clamp_u8(128 + (b - luma) / 1.772 * 224 / 255);
	*cr = clamp_u8(128 + (r - luma) / 1.402 * 224 / 255);
}

static uint32_t cmd_argb(const struct drm_vrender_cmd *c, uint32_t x,
			 uint32_t y)
{
	return c->op == VRENDER_CMD_FILL ? c->value :
	       primepair_vrender_pattern_pixel(x, y, c->value);
}

/*
 * Submit @c (into @s as NV12) and check every byte of the buffer: the
 * rectangle's Y and CbCr within 1 of the float reference (the chroma of
 * each 2x2 block is its top-left pixel's), everything else untouched.
 */
static void nv12_check(struct surface *s, const struct drm_vrender_cmd *c)
{
	uint8_t *map = (uint8_t *)s->map, *ref = (uint8_t *)s->ref, yv, cb, cr;
	uint32_t x, y;

	primepair_vrender_submit(s->render, c, 1);
	for (y = 0; y < c->height; y++)
		for (x = 0; x < c->width; x++) {
			uint64_t yo = (uint64_t)(c->dst_y + y) * NV12_PITCH + c->dst_x + x;
			uint64_t co = NV12_UV + (uint64_t)(c->dst_y + y) / 2 * NV12_PITCH +
				      (c->dst_x + x) / 2 * 2;

			ref_ycbcr(cmd_argb(c, x, y), &yv, &cb, &cr);
			ref[yo] = yv;
			if (!(x & 1) && !(y & 1)) {
				ref[co] = cb;
				ref[co + 1] = cr;
			}
		}
	primepair_vrender_bo_wait(s->render, s->handle, 10000000000ll);
	for (uint64_t i = 0; i < s->size; i++)
		igt_assert_f(abs(map[i] - ref[i]) <= 1,
			     "byte %llu is 0x%02x, expected 0x%02x\n",
			     (unsigned long long)i, map[i], ref[i]);
	/* The tolerance must not hide a write outside the rectangle. */
	for (uint64_t i = 0; i < s->size; i++)
		if (map[i] != ref[i]) {
			uint64_t row = (i < NV12_UV ? i : i - NV12_UV) / NV12_PITCH;
			uint64_t col = (i < NV12_UV ? i : i - NV12_UV) % NV12_PITCH;
			uint32_t top = i < NV12_UV ? c->dst_y : c->dst_y / 2;
			uint32_t rows = i < NV12_UV ? c->height : c->height / 2;

			igt_assert_f(row >= top && row < top + rows &&
				     col >= c->dst_x && col < c->dst_x + c->width,
				     "byte %llu outside the rectangle changed\n",
				     (unsigned long long)i);
		}
	memcpy(s->ref, s->map, s->size);
}

static void test_nv12(int render, bool imported, uint32_t op)
{
	struct surface s;

	surface_create(&s, render, imported);
	for (unsigned int i = 0; i < ARRAY_SIZE(nv12_rects); i++) {
		const struct rect *r = &nv12_rects[i];
		struct drm_vrender_cmd c = {
			.op = op,
			.flags = VRENDER_CMD_FORMAT_NV12,
			.dst_handle = s.handle,
			.dst_pitch = NV12_PITCH,
			.src_offset = NV12_UV,
			.src_pitch = NV12_PITCH,
			.dst_x = r->x, .dst_y = r->y,
			.width = r->w, .height = r->h,
			.value = op == VRENDER_CMD_FILL ? 0xff000000u | i * 0x254a93 : i * 37,
		};

		nv12_check(&s, &c);
	}
	surface_destroy(&s);
}

static void test_rgb64(int render, bool imported, uint32_t op)
{
	struct surface s;

	surface_create(&s, render, imported);
	for (unsigned int i = 0; i < ARRAY_SIZE(rgb64_rects); i++) {
		const struct rect *r = &rgb64_rects[i];
		struct drm_vrender_cmd c = {
			.op = op,
			.flags = VRENDER_CMD_FORMAT_XRGB16161616,
			.dst_handle = s.handle,
			.dst_pitch = s.pitch,
			.dst_x = r->x, .dst_y = r->y,
			.width = r->w, .height = r->h,
			.value = op == VRENDER_CMD_FILL ? 0x80000000u | i * 0x3c1a57 : i * 41,
		};

		for (uint32_t y = 0; y < r->h; y++)
			for (uint32_t x = 0; x < r->w; x++) {
				uint32_t argb = cmd_argb(&c, x, y);
				uint16_t *px = (uint16_t *)((uint8_t *)s.ref +
							     (uint64_t)(r->y + y) * s.pitch +
							     (uint64_t)(r->x + x) * 8);

				/* little-endian B, G, R, A, each times 257 */
				for (int ch = 0; ch < 4; ch++)
					px[ch] = ((argb >> (8 * ch)) & 0xff) * 257;
			}
		primepair_vrender_submit(render, &c, 1);
		surface_check(&s, op == VRENDER_CMD_FILL ? "fill-xrgb16" : "pattern-xrgb16");
	}
	surface_destroy(&s);
}

static int submit_one(int render, const struct drm_vrender_cmd *c)
{
	struct drm_vrender_submit sub = {
		.cmds = (uintptr_t)c,
		.cmd_count = 1,
	};

	return __primepair_vrender_submit(render, &sub);
}

/* Formats the command or the surface cannot take fail with EINVAL. */
static void test_format_bad_input(int render)
{
	struct surface s;
	struct drm_vrender_cmd ok = {
		.op = VRENDER_CMD_FILL,
		.flags = VRENDER_CMD_FORMAT_NV12,
		.dst_pitch = NV12_PITCH,
		.src_offset = NV12_UV,
		.src_pitch = NV12_PITCH,
		.width = 16, .height = 16,
	}, c;

	igt_assert_eq(primepair_vrender_get_param(render, VRENDER_PARAM_CMD_FORMATS),
		      1u << VRENDER_CMD_FORMAT_XRGB8888 |
		      1u << VRENDER_CMD_FORMAT_NV12 |
		      1u << VRENDER_CMD_FORMAT_XRGB16161616);
	surface_create(&s, render, false);
	ok.dst_handle = s.handle;
	igt_assert_eq(submit_one(render, &ok), 0);

	c = ok; c.flags = VRENDER_CMD_FORMAT_XRGB16161616 + 1;	/* unknown */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.flags |= 1u << 8;				/* reserved bit */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.flags = 1u << 31;
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.dst_x = 1;					/* odd */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.dst_y = 3;
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.width = 15;
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.height = 1;
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_handle = s.handle;			/* CbCr is in dst */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_x = 2;
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_offset = NV12_UV + 2;			/* unaligned */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_offset = s.size - NV12_PITCH;		/* CbCr past the end */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_offset = ~0ull & ~3ull;			/* overflow */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.src_pitch = 6;				/* CbCr row too short */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = ok; c.op = VRENDER_CMD_COPY; c.src_handle = s.handle;	/* COPY is 32-bit */
	c.src_offset = 0; c.src_pitch = NV12_PITCH; c.value = 0;
	igt_assert_eq(submit_one(render, &c), -EINVAL);

	c = ok; c.flags = VRENDER_CMD_FORMAT_XRGB16161616;
	c.src_offset = 0; c.src_pitch = 0; c.dst_pitch = s.pitch;
	igt_assert_eq(submit_one(render, &c), 0);
	c.width = s.pitch / 8 + 1;				/* row past the pitch */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c.width = 16; c.dst_y = H;				/* past the end */
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c = (struct drm_vrender_cmd){
		.op = VRENDER_CMD_CHECKSUM,
		.flags = VRENDER_CMD_FORMAT_XRGB16161616,
		.dst_handle = s.handle, .src_handle = s.handle,
		.src_pitch = s.pitch, .width = 4, .height = 4,
		.dst_offset = s.size - 4,
	};
	igt_assert_eq(submit_one(render, &c), -EINVAL);
	c.flags = 0;
	igt_assert_eq(submit_one(render, &c), 0);

	primepair_vrender_bo_wait(render, s.handle, 10000000000ll);
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

	for (kind = 0; kind < 2; kind++) {
		const char *name = kind ? "imported" : "own";

		igt_describe("FILL into an NV12 surface writes BT.601 limited-range Y and CbCr, exactly its rectangle");
		igt_subtest_f("fill-nv12-%s", name)
			test_nv12(render, kind, VRENDER_CMD_FILL);
		igt_describe("PATTERN into an NV12 surface");
		igt_subtest_f("pattern-nv12-%s", name)
			test_nv12(render, kind, VRENDER_CMD_PATTERN);
		igt_describe("FILL into an XRGB16161616 surface writes each channel times 257");
		igt_subtest_f("fill-xrgb16-%s", name)
			test_rgb64(render, kind, VRENDER_CMD_FILL);
		igt_describe("PATTERN into an XRGB16161616 surface");
		igt_subtest_f("pattern-xrgb16-%s", name)
			test_rgb64(render, kind, VRENDER_CMD_PATTERN);
	}
	igt_describe("Unknown formats and flags, odd NV12 rectangles, planes outside the buffer, formats on COPY and CHECKSUM: EINVAL");
	igt_subtest("format-bad-input")
		test_format_bad_input(render);

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

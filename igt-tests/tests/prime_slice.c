// SPDX-License-Identifier: GPL-2.0
/*
 * prime_slice - a scanout buffer of vdisplay read by vrender through PRIME
 *
 * The whole path once: a dumb buffer on vdisplay, written through its
 * mmap, exported as a dma-buf, imported into vrender, checksummed by a
 * vrender job that reads the buffer through its mapped scatterlist, and
 * compared with the CPU's CRC-32.  Then every close order, checking that
 * primebuf releases each buffer exactly once and only after its last
 * reference.
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

#define WIDTH	256
#define HEIGHT	192

struct slice {
	int display;		/* vdisplay card fd */
	int render;		/* vrender render node fd */
	uint32_t dumb;		/* handle on vdisplay */
	uint32_t pitch;
	uint64_t size;
	int dmabuf;		/* exported fd */
	uint32_t import;	/* handle on vrender */
	uint32_t cpu_crc;
};

struct counters {
	uint64_t buffers, imports, exports, attachments, created, released;
};

static void read_counters(struct counters *c)
{
	c->buffers = primepair_summary("buffers");
	c->imports = primepair_summary("imports");
	c->exports = primepair_summary("exports");
	c->attachments = primepair_summary("attachments");
	c->created = primepair_summary("created");
	c->released = primepair_summary("released");
}

/* Live objects relative to @base: own buffers, imports, exported dma-bufs. */
static void assert_live(const struct counters *base, uint64_t buffers,
			uint64_t imports, uint64_t exports)
{
	struct counters now;

	/* a job may drop its last reference a moment after it signalled */
	for (int tries = 0; tries < 100; tries++) {
		read_counters(&now);
		if (now.buffers - base->buffers == buffers &&
		    now.imports - base->imports == imports &&
		    now.exports - base->exports == exports)
			break;
		usleep(20000);
	}
	igt_assert_eq_u64(now.buffers - base->buffers, buffers);
	igt_assert_eq_u64(now.imports - base->imports, imports);
	igt_assert_eq_u64(now.exports - base->exports, exports);
	igt_assert_eq_u64(now.attachments - base->attachments, imports);
	/* Nothing is released twice, nothing is released while alive. */
	igt_assert_eq_u64((now.created - base->created) -
			  (now.released - base->released),
			  buffers + imports);
}

static void fill_pattern(uint32_t *map, uint32_t pitch, uint32_t seed)
{
	uint32_t x, y;

	for (y = 0; y < HEIGHT; y++)
		for (x = 0; x < pitch / 4; x++)
			map[y * (pitch / 4) + x] =
				(x * 2654435761u) ^ (y * 40503u) ^ seed;
}

static void slice_create(struct slice *s, uint32_t seed)
{
	uint64_t offset;
	uint32_t *map;

	memset(s, 0, sizeof(*s));
	s->display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
	s->render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

	igt_assert_eq(drmModeCreateDumbBuffer(s->display, WIDTH, HEIGHT, 32, 0,
					      &s->dumb, &s->pitch, &s->size),
		      0);
	igt_assert_eq_u32(s->pitch, WIDTH * 4);
	igt_assert_lte_u64((uint64_t)s->pitch * HEIGHT, s->size);

	igt_assert_eq(drmModeMapDumbBuffer(s->display, s->dumb, &offset), 0);
	map = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   s->display, offset);
	igt_assert(map != MAP_FAILED);
	fill_pattern(map, s->pitch, seed);
	s->cpu_crc = primepair_crc32(0, map, (size_t)s->pitch * HEIGHT);
	igt_assert_eq(munmap(map, s->size), 0);

	igt_assert_eq(drmPrimeHandleToFD(s->display, s->dumb, DRM_CLOEXEC,
					 &s->dmabuf), 0);
	igt_assert_lte(0, s->dmabuf);
	igt_assert_eq(drmPrimeFDToHandle(s->render, s->dmabuf, &s->import), 0);
	igt_assert_neq(s->import, 0);
}

static uint32_t slice_gpu_crc(struct slice *s)
{
	return primepair_vrender_crc32(s->render, s->import,
				       (uint64_t)s->pitch * HEIGHT);
}

igt_main
{
	struct counters base;
	struct slice s;

	igt_fixture {
		int fd = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);

		close(fd);
		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		close(fd);
	}

	igt_describe("A pattern written through vdisplay's dumb mmap reads back with the same CRC-32 in a vrender job on the imported dma-buf");
	igt_subtest("export-import-checksum") {
		read_counters(&base);
		slice_create(&s, 0x5eed);
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);

		/* The job mapped the buffer and unmapped it again. */
		igt_assert_eq_u64(primepair_summary("mappings"), 0);

		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		close(s.dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		close(s.render);
		close(s.display);
		assert_live(&base, 0, 0, 0);
	}

	igt_describe("Closing the dma-buf fd first: the import keeps the buffer alive and readable");
	igt_subtest("close-fd-first") {
		read_counters(&base);
		slice_create(&s, 1);
		assert_live(&base, 1, 1, 1);

		close(s.dmabuf);
		assert_live(&base, 1, 1, 1);
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);

		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		/* vdisplay's handle still caches its dma-buf */
		assert_live(&base, 1, 0, 1);

		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		assert_live(&base, 0, 0, 0);
		close(s.render);
		close(s.display);
	}

	igt_describe("Closing both handles first: the dma-buf fd alone keeps the buffer");
	igt_subtest("close-handles-first") {
		read_counters(&base);
		slice_create(&s, 2);

		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		assert_live(&base, 1, 0, 1);

		/* Importing the fd again gives a working import. */
		igt_assert_eq(drmPrimeFDToHandle(s.render, s.dmabuf, &s.import),
			      0);
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);
		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);

		close(s.dmabuf);
		assert_live(&base, 0, 0, 0);
		close(s.render);
		close(s.display);
	}

	igt_describe("Closing the importer's device first releases its import, the exporter keeps the buffer");
	igt_subtest("close-importer-first") {
		read_counters(&base);
		slice_create(&s, 3);
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);

		close(s.render);
		assert_live(&base, 1, 0, 1);
		close(s.dmabuf);
		/* The handle holds the object, its cached dma-buf stays */
		assert_live(&base, 1, 0, 1);
		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		assert_live(&base, 0, 0, 0);
		close(s.display);
	}

	igt_describe("Closing the exporter's device first: the importer still reads the buffer, and releases it last");
	igt_subtest("close-exporter-first") {
		read_counters(&base);
		slice_create(&s, 4);

		close(s.display);
		close(s.dmabuf);
		assert_live(&base, 1, 1, 1);
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);

		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		assert_live(&base, 0, 0, 0);
		close(s.render);
	}

	igt_describe("Importing the same dma-buf twice gives the same handle; importing it back into vdisplay gives the original handle");
	igt_subtest("reimport-same-handle") {
		uint32_t again, self;

		read_counters(&base);
		slice_create(&s, 5);
		igt_assert_eq(drmPrimeFDToHandle(s.render, s.dmabuf, &again), 0);
		igt_assert_eq_u32(again, s.import);
		igt_assert_eq(drmPrimeFDToHandle(s.display, s.dmabuf, &self), 0);
		igt_assert_eq_u32(self, s.dumb);
		assert_live(&base, 1, 1, 1);

		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		close(s.dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		assert_live(&base, 0, 0, 0);
		close(s.render);
		close(s.display);
	}

	igt_describe("Two vrender clients import one dma-buf and take turns writing it: each import has its own attachment and mapping, and the buffer holds both clients' writes");
	igt_subtest("two-importers-write") {
		const uint32_t half = HEIGHT / 2;
		uint32_t import2, want, got;
		uint64_t offset;
		uint32_t *map;
		int render2;

		read_counters(&base);
		slice_create(&s, 6);
		render2 = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		igt_assert_eq(drmPrimeFDToHandle(render2, s.dmabuf, &import2),
			      0);
		assert_live(&base, 1, 2, 1);

		/*
		 * Alternate writers, so that each import's mapping is in use
		 * right after the other's.  Rows of the top half come from the
		 * first client, rows of the bottom half from the second.
		 */
		for (uint32_t round = 0; round < 4; round++) {
			struct drm_vrender_cmd top =
				primepair_vrender_fill(s.import, 0, s.pitch, 0,
						       0, WIDTH, half,
						       0x11000000 + round);
			struct drm_vrender_cmd bottom =
				primepair_vrender_fill(import2, 0, s.pitch, 0,
						       half, WIDTH,
						       HEIGHT - half,
						       0x22000000 + round);

			primepair_vrender_submit(s.render, &top, 1);
			primepair_vrender_submit(render2, &bottom, 1);
		}
		primepair_vrender_bo_wait(s.render, s.import, 5e9);
		primepair_vrender_bo_wait(render2, import2, 5e9);

		/* Both clients' writes reached the exporter's pages. */
		igt_assert_eq(drmModeMapDumbBuffer(s.display, s.dumb, &offset),
			      0);
		map = mmap(NULL, s.size, PROT_READ, MAP_SHARED, s.display,
			   offset);
		igt_assert(map != MAP_FAILED);
		for (uint32_t y = 0; y < HEIGHT; y++) {
			want = y < half ? 0x11000003 : 0x22000003;
			for (uint32_t x = 0; x < WIDTH; x++) {
				got = map[y * (s.pitch / 4) + x];
				igt_assert_f(got == want,
					     "pixel %u,%u is 0x%08x, not 0x%08x\n",
					     x, y, got, want);
			}
		}
		s.cpu_crc = primepair_crc32(0, map,
					    (size_t)s.pitch * HEIGHT);
		igt_assert_eq(munmap(map, s.size), 0);

		/* Each importer reads what both wrote. */
		igt_assert_eq_u32(slice_gpu_crc(&s), s.cpu_crc);
		igt_assert_eq_u32(primepair_vrender_crc32(render2, import2,
							  (uint64_t)s.pitch *
							  HEIGHT),
				  s.cpu_crc);

		igt_assert_eq(drmCloseBufferHandle(render2, import2), 0);
		close(render2);
		assert_live(&base, 1, 1, 1);
		igt_assert_eq(drmCloseBufferHandle(s.render, s.import), 0);
		close(s.dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(s.display, s.dumb), 0);
		assert_live(&base, 0, 0, 0);
		close(s.render);
		close(s.display);
	}

	igt_describe("A vgem buffer imported into vrender is read by one job, then written by the next: on kernels whose dma-buf core caches vgem's tables, the first mapping's direction must allow both");
	igt_subtest("foreign-read-then-write") {
		bool loaded = access("/sys/module/vgem", F_OK) == 0;
		uint32_t handle, pitch, import, copy, *map;
		struct drm_vrender_cmd c;
		uint64_t size, offset;
		int vgem, dmabuf;

		igt_require_f(loaded || system("modprobe vgem 2>/dev/null") == 0,
			      "vgem not available\n");
		vgem = primepair_open_device(NULL, "vgem", false);
		igt_require_f(vgem >= 0, "no vgem card node\n");
		s.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

		igt_assert_eq(drmModeCreateDumbBuffer(vgem, WIDTH, HEIGHT, 32, 0,
						      &handle, &pitch, &size), 0);
		igt_assert_eq(drmModeMapDumbBuffer(vgem, handle, &offset), 0);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem,
			   offset);
		igt_assert(map != MAP_FAILED);
		for (size_t i = 0; i < (size_t)pitch / 4 * HEIGHT; i++)
			map[i] = 0x33000000 | i;
		igt_assert_eq(drmPrimeHandleToFD(vgem, handle,
						 DRM_CLOEXEC | DRM_RDWR,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(s.render, dmabuf, &import), 0);
		copy = primepair_vrender_bo_create(s.render, (uint64_t)pitch * HEIGHT);

		/* Read: the import is a COPY's source. */
		c = (struct drm_vrender_cmd) {
			.op = VRENDER_CMD_COPY,
			.dst_handle = copy, .dst_pitch = pitch,
			.src_handle = import, .src_pitch = pitch,
			.width = WIDTH, .height = HEIGHT,
		};
		primepair_vrender_submit(s.render, &c, 1);
		primepair_vrender_bo_wait(s.render, copy, 5e9);
		igt_assert_eq_u32(primepair_vrender_crc32(s.render, copy,
							  (uint64_t)pitch * HEIGHT),
				  primepair_crc32(0, map, (size_t)pitch * HEIGHT));

		/* Then written: a FILL of it, seen through vgem's mapping. */
		c = primepair_vrender_fill(import, 0, pitch, 0, 0, WIDTH,
					   HEIGHT, 0x44556677);
		primepair_vrender_submit(s.render, &c, 1);
		primepair_vrender_bo_wait(s.render, import, 5e9);
		for (uint32_t y = 0; y < HEIGHT; y++)
			for (uint32_t x = 0; x < WIDTH; x++)
				igt_assert_eq_u32(map[y * (pitch / 4) + x],
						  0x44556677);

		igt_assert_eq(drmCloseBufferHandle(s.render, copy), 0);
		igt_assert_eq(drmCloseBufferHandle(s.render, import), 0);
		close(dmabuf);
		munmap(map, size);
		igt_assert_eq(drmModeDestroyDumbBuffer(vgem, handle), 0);
		close(vgem);
		close(s.render);
		primepair_assert_summary_zero();
		/* the last dma-buf reference may go a moment after the munmap */
		for (int i = 0; !loaded && system("rmmod vgem 2>/dev/null"); i++) {
			igt_assert_f(i < 20, "vgem stays in use\n");
			usleep(100000);
		}
	}

	igt_describe("PRIME ioctls reject bad input with the errno DRM core documents");
	igt_subtest("bad-prime-input") {
		uint32_t handle;
		int fd, dumb_fd;

		s.display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		s.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);

		/* fd that is not a dma-buf: dma_buf_get() says -EINVAL */
		fd = open("/dev/null", O_RDONLY);
		igt_assert_lte(0, fd);
		igt_assert_eq(drmPrimeFDToHandle(s.render, fd, &handle), -1);
		igt_assert_eq(errno, EINVAL);
		close(fd);

		/* closed and negative fds: -EBADF */
		igt_assert_eq(drmPrimeFDToHandle(s.render, fd, &handle), -1);
		igt_assert_eq(errno, EBADF);
		igt_assert_eq(drmPrimeFDToHandle(s.render, -1, &handle), -1);
		igt_assert_eq(errno, EBADF);

		/* handle 0 and unknown handles: -ENOENT */
		igt_assert_eq(drmPrimeHandleToFD(s.display, 0, DRM_CLOEXEC,
						 &dumb_fd), -1);
		igt_assert_eq(errno, ENOENT);
		igt_assert_eq(drmPrimeHandleToFD(s.render, 0x7fff, DRM_CLOEXEC,
						 &dumb_fd), -1);
		igt_assert_eq(errno, ENOENT);

		/* flags other than DRM_CLOEXEC | DRM_RDWR: -EINVAL */
		s.dumb = primepair_vrender_bo_create(s.render, 4096);
		igt_assert_eq(drmPrimeHandleToFD(s.render, s.dumb, 0x4,
						 &dumb_fd), -1);
		igt_assert_eq(errno, EINVAL);
		igt_assert_eq(drmPrimeHandleToFD(s.render, s.dumb,
						 DRM_CLOEXEC | DRM_RDWR,
						 &dumb_fd), 0);
		close(dumb_fd);
		igt_assert_eq(drmCloseBufferHandle(s.render, s.dumb), 0);

		close(s.render);
		close(s.display);
	}

	igt_fixture {
		primepair_assert_summary_zero();
	}
}

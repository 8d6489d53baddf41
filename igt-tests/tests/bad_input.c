// SPDX-License-Identifier: GPL-2.0
/*
 * bad_input - the bad-input matrix of Documentation/bad-input.rst, one
 * row at a time
 *
 * Every ioctl we implement or route (vrender's own are in vrender_uapi's
 * tests), every class of bad input, and the errno userspace gets.  Each
 * row is data: the ioctl, what is wrong, the errno expected; a new row is
 * one line in a table.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

struct ctx {
	int display;		/* vdisplay card */
	int render;		/* vrender render node */
	int other;		/* a second client of vrender */
	uint32_t dumb;		/* a dumb buffer on display */
	uint32_t bo;		/* a vrender BO of render */
	uint32_t other_bo;	/* a vrender BO of other */
	int dmabuf;		/* the BO exported */
	int devnull;
	int closed;		/* an fd number that is closed */
};

static int err(int ret)
{
	return ret ? -errno : 0;
}

/* --- PRIME ---------------------------------------------------------- */

static int h2fd(int fd, uint32_t handle, uint32_t flags)
{
	int out = -1, ret = err(drmPrimeHandleToFD(fd, handle, flags, &out));

	if (out >= 0)
		close(out);
	return ret;
}

static int fd2h(int fd, int prime_fd)
{
	uint32_t h;
	int ret = err(drmPrimeFDToHandle(fd, prime_fd, &h));

	if (!ret)
		drmCloseBufferHandle(fd, h);
	return ret;
}

static int prime_h2fd_zero(struct ctx *c) { return h2fd(c->render, 0, DRM_CLOEXEC); }
static int prime_h2fd_unknown(struct ctx *c) { return h2fd(c->render, 0x7777, DRM_CLOEXEC); }
static int prime_h2fd_other_client(struct ctx *c) { return h2fd(c->render, c->other_bo == c->bo ? 0x7777 : c->other_bo + 100, DRM_CLOEXEC); }
static int prime_h2fd_flags(struct ctx *c) { return h2fd(c->render, c->bo, DRM_CLOEXEC | 0x4); }
static int prime_h2fd_flags_all(struct ctx *c) { return h2fd(c->display, c->dumb, ~0u); }
static int prime_fd2h_negative(struct ctx *c) { return fd2h(c->render, -1); }
static int prime_fd2h_closed(struct ctx *c) { return fd2h(c->render, c->closed); }
static int prime_fd2h_devnull(struct ctx *c) { return fd2h(c->render, c->devnull); }
static int prime_fd2h_drm_fd(struct ctx *c) { return fd2h(c->display, c->render); }

/* Import a foreign exporter's dma-buf of @size bytes */
static int fd2h_foreign(int fd, uint64_t size)
{
	int dmabuf = primepair_selftest_export(size);
	int ret;

	if (dmabuf < 0)
		return dmabuf;
	ret = fd2h(fd, dmabuf);
	close(dmabuf);
	return ret;
}

static int prime_fd2h_unaligned(struct ctx *c) { return fd2h_foreign(c->render, 4096 + 100); }
static int prime_fd2h_unaligned_small(struct ctx *c) { return fd2h_foreign(c->render, 1); }
static int prime_fd2h_unaligned_display(struct ctx *c) { return fd2h_foreign(c->display, 3 * 4096 - 4); }
static int prime_fd2h_aligned(struct ctx *c) { return fd2h_foreign(c->render, 2 * 4096); }
static int prime_fd2h_aligned_display(struct ctx *c) { return fd2h_foreign(c->display, 4096); }

static int prime_null_arg(struct ctx *c)
{
	return err(ioctl(c->render, DRM_IOCTL_PRIME_FD_TO_HANDLE, NULL));
}

/* --- dumb buffers --------------------------------------------------- */

static int create_dumb(struct ctx *c, uint32_t w, uint32_t h, uint32_t bpp,
		       uint32_t flags)
{
	struct drm_mode_create_dumb arg = {
		.width = w, .height = h, .bpp = bpp, .flags = flags,
	};
	int ret = err(ioctl(c->display, DRM_IOCTL_MODE_CREATE_DUMB, &arg));

	if (!ret)
		drmModeDestroyDumbBuffer(c->display, arg.handle);
	return ret;
}

static int dumb_width0(struct ctx *c) { return create_dumb(c, 0, 64, 32, 0); }
static int dumb_height0(struct ctx *c) { return create_dumb(c, 64, 0, 32, 0); }
static int dumb_bpp0(struct ctx *c) { return create_dumb(c, 64, 64, 0, 0); }
static int dumb_overflow(struct ctx *c) { return create_dumb(c, 0xffffffff, 0xffffffff, 32, 0); }
static int dumb_too_big(struct ctx *c) { return create_dumb(c, 20000, 20000, 32, 0); }
static int dumb_pitch_overflow(struct ctx *c) { return create_dumb(c, 0x40000000, 1, 32, 0); }
static int dumb_bpp_huge(struct ctx *c) { return create_dumb(c, 1, 1, 0xffffffff, 0); }
static int dumb_flags(struct ctx *c) { return create_dumb(c, 64, 64, 32, 1); }
static int dumb_flags_high(struct ctx *c) { return create_dumb(c, 64, 64, 32, 0x80000000); }

static int dumb_map_unknown(struct ctx *c)
{
	uint64_t off;

	return err(drmModeMapDumbBuffer(c->display, 0x7777, &off));
}

static int dumb_destroy_unknown(struct ctx *c)
{
	return err(drmModeDestroyDumbBuffer(c->display, 0x7777));
}

static int dumb_render_node(struct ctx *c)
{
	struct drm_mode_create_dumb arg = { .width = 64, .height = 64, .bpp = 32 };

	return err(ioctl(c->render, DRM_IOCTL_MODE_CREATE_DUMB, &arg));
}

/* --- GEM ------------------------------------------------------------ */

static int gem_close_unknown(struct ctx *c)
{
	return err(drmCloseBufferHandle(c->render, 0x7777));
}

/* DRM core does not check GEM_CLOSE's pad: the handle is closed. */
static int gem_close_pad(struct ctx *c)
{
	struct drm_gem_close arg = { .pad = 1 };

	arg.handle = primepair_vrender_bo_create(c->render, 4096);
	return err(ioctl(c->render, DRM_IOCTL_GEM_CLOSE, &arg));
}

/* --- mmap ----------------------------------------------------------- */

static int map_err(int fd, off_t off, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/*
 * A copy-on-write mapping of device memory is refused at mmap() time.  Were
 * it let through, touching it is what used to hit a kernel BUG (a raw PFN
 * in a COW mapping), so a mapping that succeeds is touched here.
 */
static int map_private(int fd, off_t off, int prot)
{
	volatile uint8_t *p = mmap(NULL, 4096, prot, MAP_PRIVATE, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	(void)p[0];
	munmap((void *)p, 4096);
	return 0;
}

static uint64_t bo_offset(struct ctx *c)
{
	struct drm_vrender_bo_mmap_offset arg = { .handle = c->bo };

	igt_assert_eq(ioctl(c->render, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &arg), 0);
	return arg.offset;
}

static uint64_t dumb_offset(struct ctx *c)
{
	uint64_t off;

	igt_assert_eq(drmModeMapDumbBuffer(c->display, c->dumb, &off), 0);
	return off;
}

static int mmap_private_bo(struct ctx *c) { return map_private(c->render, bo_offset(c), PROT_READ); }
static int mmap_private_bo_rw(struct ctx *c) { return map_private(c->render, bo_offset(c), PROT_READ | PROT_WRITE); }
static int mmap_private_dmabuf(struct ctx *c) { return map_private(c->dmabuf, 0, PROT_READ); }
static int mmap_private_dumb(struct ctx *c) { return map_private(c->display, dumb_offset(c), PROT_READ); }

static int mmap_private_dumb_dmabuf(struct ctx *c)
{
	int fd, ret;

	igt_assert_eq(drmPrimeHandleToFD(c->display, c->dumb, DRM_CLOEXEC, &fd), 0);
	ret = map_private(fd, 0, PROT_READ | PROT_WRITE);
	close(fd);
	return ret;
}

static int mmap_no_object(struct ctx *c)
{
	return map_err(c->render, 0x7777000, 4096);
}

static int mmap_beyond_object(struct ctx *c)
{
	struct drm_vrender_bo_mmap_offset arg = { .handle = c->bo };

	igt_assert_eq(ioctl(c->render, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &arg), 0);
	return map_err(c->render, arg.offset, 8192);
}

static int mmap_dmabuf_beyond(struct ctx *c)
{
	return map_err(c->dmabuf, 4096, 4096);
}

/* --- dma-buf fd ioctls ------------------------------------------------ */

static int sync_flags(int fd, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags };

	return err(ioctl(fd, DMA_BUF_IOCTL_SYNC, &s));
}

static int dmabuf_sync_zero(struct ctx *c) { return sync_flags(c->dmabuf, 0); }
static int dmabuf_sync_unknown(struct ctx *c) { return sync_flags(c->dmabuf, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ | 0x10); }
static int dmabuf_sync_not_dmabuf(struct ctx *c) { return sync_flags(c->devnull, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ); }

static int dmabuf_export_flags(struct ctx *c)
{
	struct dma_buf_export_sync_file e = { .flags = 0x80, .fd = -1 };

	return err(ioctl(c->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e));
}

static int dmabuf_export_no_flags(struct ctx *c)
{
	struct dma_buf_export_sync_file e = { .flags = 0, .fd = -1 };

	return err(ioctl(c->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e));
}

static int dmabuf_import_bad_fd(struct ctx *c)
{
	struct dma_buf_import_sync_file i = {
		.flags = DMA_BUF_SYNC_WRITE, .fd = c->devnull,
	};

	return err(ioctl(c->dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &i));
}

static int dmabuf_import_flags(struct ctx *c)
{
	struct dma_buf_import_sync_file i = { .flags = 0x80, .fd = -1 };

	return err(ioctl(c->dmabuf, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &i));
}

static int dmabuf_sync_null(struct ctx *c)
{
	return err(ioctl(c->dmabuf, DMA_BUF_IOCTL_SYNC, NULL));
}

struct row {
	const char *ioctl;
	const char *input;
	int (*fn)(struct ctx *c);
	int expect;
};

/* Keep in step with Documentation/bad-input.rst. */
static const struct row rows[] = {
	{ "PRIME_HANDLE_TO_FD", "handle 0", prime_h2fd_zero, -ENOENT },
	{ "PRIME_HANDLE_TO_FD", "unknown handle", prime_h2fd_unknown, -ENOENT },
	{ "PRIME_HANDLE_TO_FD", "handle of another client", prime_h2fd_other_client, -ENOENT },
	{ "PRIME_HANDLE_TO_FD", "flags beyond CLOEXEC|RDWR", prime_h2fd_flags, -EINVAL },
	{ "PRIME_HANDLE_TO_FD", "all flag bits (vdisplay)", prime_h2fd_flags_all, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "fd -1", prime_fd2h_negative, -EBADF },
	{ "PRIME_FD_TO_HANDLE", "closed fd", prime_fd2h_closed, -EBADF },
	{ "PRIME_FD_TO_HANDLE", "fd that is not a dma-buf", prime_fd2h_devnull, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "a DRM fd instead of a dma-buf", prime_fd2h_drm_fd, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "NULL argument", prime_null_arg, -EFAULT },
	{ "PRIME_FD_TO_HANDLE", "foreign dma-buf, 4196 bytes", prime_fd2h_unaligned, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "foreign dma-buf, 1 byte", prime_fd2h_unaligned_small, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "foreign, 12284 bytes (vdisplay)", prime_fd2h_unaligned_display, -EINVAL },
	{ "PRIME_FD_TO_HANDLE", "foreign dma-buf, 8192 bytes: ok", prime_fd2h_aligned, 0 },
	{ "PRIME_FD_TO_HANDLE", "foreign, 4096 bytes (vdisplay): ok", prime_fd2h_aligned_display, 0 },
	{ "MODE_CREATE_DUMB", "width 0", dumb_width0, -EINVAL },
	{ "MODE_CREATE_DUMB", "height 0", dumb_height0, -EINVAL },
	{ "MODE_CREATE_DUMB", "bpp 0", dumb_bpp0, -EINVAL },
	{ "MODE_CREATE_DUMB", "size overflow", dumb_overflow, -EINVAL },
	{ "MODE_CREATE_DUMB", "pitch beyond 32 bits", dumb_pitch_overflow, -EINVAL },
	{ "MODE_CREATE_DUMB", "bpp beyond 32 bits in bytes", dumb_bpp_huge, -EINVAL },
	{ "MODE_CREATE_DUMB", "beyond primebuf's max_size_mb", dumb_too_big, -EINVAL },
	{ "MODE_CREATE_DUMB", "flags 1", dumb_flags, -EINVAL },
	{ "MODE_CREATE_DUMB", "flags 0x80000000", dumb_flags_high, -EINVAL },
	{ "MODE_CREATE_DUMB", "on vrender's render node", dumb_render_node, -EACCES },
	{ "MODE_MAP_DUMB", "unknown handle", dumb_map_unknown, -ENOENT },
	{ "MODE_DESTROY_DUMB", "unknown handle", dumb_destroy_unknown, -EINVAL },
	{ "GEM_CLOSE", "unknown handle", gem_close_unknown, -EINVAL },
	{ "GEM_CLOSE", "non-zero pad (ignored by DRM core)", gem_close_pad, 0 },
	{ "mmap (DRM fd)", "offset of no object", mmap_no_object, -EINVAL },
	{ "mmap (DRM fd)", "longer than the object", mmap_beyond_object, -EINVAL },
	{ "mmap (dma-buf)", "beyond the buffer", mmap_dmabuf_beyond, -EINVAL },
	{ "mmap (render node)", "MAP_PRIVATE, PROT_READ", mmap_private_bo, -EINVAL },
	{ "mmap (render node)", "MAP_PRIVATE, PROT_READ|WRITE", mmap_private_bo_rw, -EINVAL },
	{ "mmap (dma-buf)", "MAP_PRIVATE of a vrender BO", mmap_private_dmabuf, -EINVAL },
	{ "mmap (card)", "MAP_PRIVATE of a dumb buffer", mmap_private_dumb, -EINVAL },
	{ "mmap (dma-buf)", "MAP_PRIVATE of a dumb buffer", mmap_private_dumb_dmabuf, -EINVAL },
	{ "DMA_BUF_IOCTL_SYNC", "flags 0", dmabuf_sync_zero, -EINVAL },
	{ "DMA_BUF_IOCTL_SYNC", "unknown flag bits", dmabuf_sync_unknown, -EINVAL },
	{ "DMA_BUF_IOCTL_SYNC", "on a non-dma-buf fd", dmabuf_sync_not_dmabuf, -ENOTTY },
	{ "DMA_BUF_IOCTL_SYNC", "NULL argument", dmabuf_sync_null, -EFAULT },
	{ "DMA_BUF_IOCTL_EXPORT_SYNC_FILE", "unknown flag bits", dmabuf_export_flags, -EINVAL },
	{ "DMA_BUF_IOCTL_EXPORT_SYNC_FILE", "no direction", dmabuf_export_no_flags, -EINVAL },
	{ "DMA_BUF_IOCTL_IMPORT_SYNC_FILE", "fd that is not a sync_file", dmabuf_import_bad_fd, -EINVAL },
	{ "DMA_BUF_IOCTL_IMPORT_SYNC_FILE", "unknown flag bits", dmabuf_import_flags, -EINVAL },
};

igt_main
{
	struct ctx c = { 0 };

	igt_fixture {
		uint32_t pitch;
		uint64_t size;

		c.display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		c.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		c.other = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(c.display, 64, 64, 32, 0,
						      &c.dumb, &pitch, &size), 0);
		c.bo = primepair_vrender_bo_create(c.render, 4096);
		/* make the other client's handle a number render lacks */
		for (int i = 0; i < 3; i++)
			c.other_bo = primepair_vrender_bo_create(c.other, 4096);
		igt_assert_eq(drmPrimeHandleToFD(c.render, c.bo, DRM_CLOEXEC,
						 &c.dmabuf), 0);
		c.devnull = open("/dev/null", O_RDONLY);
		c.closed = dup(c.devnull);
		close(c.closed);
	}

	igt_describe("Every row of the bad-input matrix returns its documented errno");
	igt_subtest("matrix") {
		int failures = 0;

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			int got = rows[i].fn(&c);

			igt_info("%-32s %-34s %-8s %s\n", rows[i].ioctl,
				 rows[i].input,
				 rows[i].expect ? strerror(-rows[i].expect) : "0",
				 got == rows[i].expect ? "ok" : "MISMATCH");
			if (got != rows[i].expect) {
				igt_warn("  got %d (%s)\n", got,
					 got ? strerror(-got) : "success");
				failures++;
			}
		}
		igt_assert_eq(failures, 0);
	}

	igt_fixture {
		close(c.dmabuf);
		close(c.devnull);
		drmModeDestroyDumbBuffer(c.display, c.dumb);
		close(c.other);
		close(c.render);
		close(c.display);
		primepair_assert_summary_zero();
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_faults - injected failures reach the right caller as an errno,
 * the device stays usable, nothing leaks; fresh memory reads as zero
 *
 * A failed vmap surfaces where vdisplay vmaps framebuffers: in prepare_fb
 * of a plane and in prepare_writeback_job, that is in the atomic commit or
 * page flip that brings a new framebuffer in, before anything is queued.
 * That commit fails with ENOMEM, the screen keeps the previous picture,
 * and the retry works.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

#define DEBUGFS "/sys/kernel/debug/primebuf_selftest/"
#define MAX_TOTAL "/sys/module/primebuf/parameters/max_total_mb"

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

static void set_max_total(const char *mb)
{
	int fd = open(MAX_TOTAL, O_WRONLY);

	igt_require(fd >= 0);
	igt_assert_eq(write(fd, mb, strlen(mb)), (ssize_t)strlen(mb));
	close(fd);
}

static void inject(const char *knob, int n)
{
	char path[128], val[16];
	int fd;

	snprintf(path, sizeof(path), DEBUGFS "%s", knob);
	snprintf(val, sizeof(val), "%d", n);
	fd = open(path, O_WRONLY);
	igt_require_f(fd >= 0, "no %s\n", path);
	igt_assert_eq(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

/*
 * FILL the buffer: 1 once the job's fence signalled, or -errno, from SUBMIT
 * (which backs and maps the job's buffers) or from the fence.  A failure
 * to back or map a buffer must come from SUBMIT: no fence is published
 * for a job that cannot run.
 */
static int fill_status(int fd, uint32_t bo, uint64_t size, uint32_t value)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(bo, 0, 4096, 0, 0,
							  1024, size / 4096,
							  value);
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)&c,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};
	struct sync_file_info info = { 0 };
	struct pollfd pfd;
	int ret;

	ret = __primepair_vrender_submit(fd, &submit);
	if (ret)
		return ret;
	pfd.fd = submit.out_fence_fd;
	pfd.events = POLLIN;
	igt_assert_eq(poll(&pfd, 1, 10000), 1);
	igt_assert_eq(ioctl(submit.out_fence_fd, SYNC_IOC_FILE_INFO, &info), 0);
	close(submit.out_fence_fd);
	igt_assert_f(info.status >= 0 || info.status == -ETIMEDOUT,
		     "a job whose buffers were mapped failed with %d\n",
		     info.status);
	return info.status;
}

static int sync_start(int dmabuf)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW,
	};

	return ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync) ? -errno : 0;
}

static void sync_end(int dmabuf)
{
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW,
	};

	igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
}


static bool all_zero(const uint32_t *p, size_t size)
{
	for (size_t i = 0; i < size / 4; i++)
		if (p[i])
			return false;
	return true;
}

/* Put @fb_id on @o's primary plane; 0 or -errno */
static int flip_to(struct primepair_kms *kms, struct primepair_output *o,
		   uint32_t fb_id, bool legacy)
{
	drmModeAtomicReqPtr req;
	int ret;

	if (legacy)
		return drmModePageFlip(kms->fd, o->crtc_id, fb_id, 0, NULL) ?
		       -errno : 0;
	req = drmModeAtomicAlloc();
	igt_assert(req);
	primepair_add(kms->fd, req, o->primary, DRM_MODE_OBJECT_PLANE, "FB_ID",
		      fb_id);
	ret = primepair_commit(kms->fd, req, 0);
	drmModeAtomicFree(req);
	return ret;
}

/* The next frame of @o, through writeback, is @argb all over */
static void assert_screen(struct primepair_kms *kms,
			  struct primepair_output *o, uint32_t argb)
{
	uint32_t w = o->mode.hdisplay, h = o->mode.vdisplay;
	uint32_t *ref = malloc((size_t)w * h * 4);
	struct primepair_fb wb;

	igt_assert(ref);
	for (size_t i = 0; i < (size_t)w * h; i++)
		ref[i] = argb;
	primepair_fb_create(kms->fd, w, h, DRM_FORMAT_XRGB8888, &wb);
	primepair_writeback_capture(kms, o, &wb);
	igt_assert_eq_u32(primepair_compare(&wb, ref, 0), 0);
	primepair_fb_destroy(kms->fd, &wb);
	free(ref);
}

/*
 * Flips of @o to @fb_id with a vmap failure injected fail with ENOMEM,
 * leave @shown on screen and every counter as it was; then one succeeds.
 */
static void flip_fails_then_works(struct primepair_kms *kms,
				  struct primepair_output *o, uint32_t fb_id,
				  uint32_t shown)
{
	uint64_t vmaps = primepair_summary("vmaps");
	uint64_t mappings = primepair_summary("mappings");

	for (int legacy = 0; legacy < 2; legacy++) {
		inject("fail_vmap", 1);
		igt_assert_eq(flip_to(kms, o, fb_id, legacy), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("vmaps"), vmaps);
		igt_assert_eq_u64(primepair_summary("mappings"), mappings);
	}
	assert_screen(kms, o, shown);
	igt_assert_eq(flip_to(kms, o, fb_id, false), 0);
}

igt_main
{
	const uint64_t size = 64 << 10;
	int fd = -1;

	igt_fixture {
		igt_require(access(DEBUGFS "fail_alloc", W_OK) == 0);
		fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	}

	igt_describe("A failed allocation at first CPU access fails DMA_BUF_IOCTL_SYNC with ENOMEM; the retry allocates");
	igt_subtest("fail-alloc-cpu-access") {
		uint64_t bytes = primepair_summary("bytes");
		uint32_t bo;
		int dmabuf;

		bo = primepair_vrender_bo_create(fd, size);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		inject("fail_alloc", 1);
		igt_assert_eq(sync_start(dmabuf), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("bytes"), bytes);
		igt_assert_eq(sync_start(dmabuf), 0);
		igt_assert_eq_u64(primepair_summary("bytes"), bytes + size);
		sync_end(dmabuf);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("A failed allocation or map of a job's buffer fails its SUBMIT with ENOMEM, before any fence is published; the next job works");
	igt_subtest("fail-alloc-and-map-in-job") {
		uint32_t bo, *map;

		bo = primepair_vrender_bo_create(fd, size);
		inject("fail_alloc", 1);
		igt_assert_eq(fill_status(fd, bo, size, 1), -ENOMEM);
		/* a job's mappings go when its worker frees it, a moment later */
		igt_assert_eq_u64(primepair_summary_settle("mappings", 0), 0);

		igt_assert_eq(fill_status(fd, bo, size, 2), 1);
		inject("fail_map", 1);
		igt_assert_eq(fill_status(fd, bo, size, 3), -ENOMEM);
		igt_assert_eq_u64(primepair_summary_settle("mappings", 0), 0);

		/* the failed job wrote nothing */
		map = primepair_vrender_bo_mmap(fd, bo, size, PROT_READ);
		igt_assert_eq_u32(map[0], 2);
		igt_assert_eq_u32(fill_status(fd, bo, size, 4), 1);
		igt_assert_eq_u32(map[size / 4 - 1], 4);
		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("Beyond max_total_mb a first use fails: ENOMEM from SYNC and from a job's SUBMIT, SIGBUS on a CPU touch; never the OOM killer");
	igt_subtest("max-total-limit") {
		const uint64_t big = 4 << 20;
		uint32_t bo, *map;
		volatile uint32_t *vmap;
		int dmabuf, sig;

		set_max_total("2");
		bo = primepair_vrender_bo_create(fd, big);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		igt_assert_eq(sync_start(dmabuf), -ENOMEM);
		igt_assert_eq(fill_status(fd, bo, big, 5), -ENOMEM);

		map = primepair_vrender_bo_mmap(fd, bo, big,
						PROT_READ | PROT_WRITE);
		vmap = map;
		signal(SIGBUS, on_sigbus);
		sig = sigsetjmp(bus_jmp, 1);
		if (!sig)
			vmap[0] = 1;
		signal(SIGBUS, SIG_DFL);
		igt_assert_eq(sig, SIGBUS);
		igt_assert_eq_u64(primepair_summary("bytes"), 0);

		/* within the limit, the same buffer works */
		set_max_total("0");
		igt_assert_eq(fill_status(fd, bo, big, 6), 1);
		igt_assert_eq_u32(vmap[0], 6);
		munmap(map, big);
		close(dmabuf);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
	}

	igt_describe("A failed attach fails PRIME import with ENOMEM and leaves nothing; the retry imports");
	igt_subtest("fail-attach") {
		uint32_t dumb, pitch, imp;
		uint64_t dsize;
		int display, dmabuf;

		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(display, 64, 64, 32, 0,
						      &dumb, &pitch, &dsize), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		inject("fail_attach", 1);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), -1);
		igt_assert_eq(errno, ENOMEM);
		igt_assert_eq_u64(primepair_summary("attachments"), 0);
		igt_assert_eq_u64(primepair_summary("imports"), 0);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), 0);
		igt_assert_eq_u64(primepair_summary("attachments"), 1);

		igt_assert_eq(drmCloseBufferHandle(fd, imp), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
	}

	igt_describe("Fresh buffers read as zero, through every CPU view and through an importer's job");
	igt_subtest("fresh-buffers-zero") {
		uint32_t bo, dumb, pitch, imp, *map;
		uint64_t dsize, offset;
		int display, dmabuf;

		bo = primepair_vrender_bo_create(fd, size);
		map = primepair_vrender_bo_mmap(fd, bo, size, PROT_READ);
		igt_assert(all_zero(map, size));
		munmap(map, size);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);

		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(display, 256, 64, 32, 0,
						      &dumb, &pitch, &dsize), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(fd, dmabuf, &imp), 0);
		map = calloc(1, dsize);
		igt_assert_eq_u32(primepair_vrender_crc32(fd, imp, dsize),
				  primepair_crc32(0, map, dsize));
		free(map);

		igt_assert_eq(drmModeMapDumbBuffer(display, dumb, &offset), 0);
		map = mmap(NULL, dsize, PROT_READ, MAP_SHARED, display, offset);
		igt_assert(map != MAP_FAILED);
		igt_assert(all_zero(map, dsize));
		munmap(map, dsize);

		igt_assert_eq(drmCloseBufferHandle(fd, imp), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(display);
	}

	igt_describe("A failed vmap of a new framebuffer fails its atomic commit and its page flip with ENOMEM; the old picture stays, the retry shows the new one");
	igt_subtest("fail-vmap-flip") {
		struct primepair_kms kms;
		struct primepair_output *o;
		struct primepair_fb a, b;

		primepair_kms_open(&kms);
		o = &kms.outputs[0];
		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &a);
		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &b);
		primepair_fb_fill_color(&a, 0xff208040u);
		primepair_fb_fill_color(&b, 0xffa01060u);

		/* a modeset fails the same way, and sets no mode */
		inject("fail_vmap", 1);
		igt_assert_eq(primepair_modeset(&kms, o, &a), -ENOMEM);
		igt_assert_eq_u64(primepair_summary("vmaps"), 0);
		igt_assert_eq_u64(primepair_summary("mappings"), 0);
		igt_assert_eq(primepair_modeset(&kms, o, &a), 0);

		flip_fails_then_works(&kms, o, b.fb_id, 0xff208040u);
		assert_screen(&kms, o, 0xffa01060u);

		primepair_disable_all(&kms);
		primepair_fb_destroy(kms.fd, &a);
		primepair_fb_destroy(kms.fd, &b);
		primepair_kms_close(&kms);
		igt_assert_eq_u64(primepair_summary("vmaps"), 0);
	}

	igt_describe("A failed vmap by vrender's exporter, of a buffer vdisplay imported, fails the flip to it with ENOMEM; the import then scans out");
	igt_subtest("fail-vmap-imported") {
		uint32_t handles[4] = {}, pitches[4] = {}, offsets[4] = {};
		uint32_t bo, imported, fb_id, w, h;
		struct primepair_kms kms;
		struct primepair_output *o;
		struct drm_vrender_cmd c;
		struct primepair_fb a;
		int dmabuf;

		primepair_kms_open(&kms);
		o = &kms.outputs[0];
		w = o->mode.hdisplay;
		h = o->mode.vdisplay;
		primepair_fb_create(kms.fd, w, h, DRM_FORMAT_XRGB8888, &a);
		primepair_fb_fill_color(&a, 0xff0000ffu);
		igt_assert_eq(primepair_modeset(&kms, o, &a), 0);

		bo = primepair_vrender_bo_create(fd, (uint64_t)w * 4 * h);
		c = primepair_vrender_fill(bo, 0, w * 4, 0, 0, w, h,
					   0xff00ff00u);
		primepair_vrender_submit(fd, &c, 1);
		/* vrender maps the buffer only while the job runs */
		primepair_vrender_bo_wait(fd, bo, 10000000000ll);
		igt_assert_eq(drmPrimeHandleToFD(fd, bo, DRM_CLOEXEC, &dmabuf),
			      0);
		igt_assert_eq(drmPrimeFDToHandle(kms.fd, dmabuf, &imported), 0);
		close(dmabuf);
		handles[0] = imported;
		pitches[0] = w * 4;
		igt_assert_eq(drmModeAddFB2(kms.fd, w, h, DRM_FORMAT_XRGB8888,
					    handles, pitches, offsets, &fb_id,
					    0), 0);

		flip_fails_then_works(&kms, o, fb_id, 0xff0000ffu);
		assert_screen(&kms, o, 0xff00ff00u);

		primepair_disable_all(&kms);
		igt_assert_eq(drmModeRmFB(kms.fd, fb_id), 0);
		igt_assert_eq(drmCloseBufferHandle(kms.fd, imported), 0);
		igt_assert_eq(drmCloseBufferHandle(fd, bo), 0);
		primepair_fb_destroy(kms.fd, &a);
		primepair_kms_close(&kms);
		igt_assert_eq_u64(primepair_summary("vmaps"), 0);
	}

	igt_describe("A failed vmap of a writeback framebuffer fails that commit with ENOMEM; the next capture works");
	igt_subtest("fail-vmap-writeback") {
		struct primepair_kms kms;
		struct primepair_output *o;
		struct primepair_fb a, wb;
		drmModeAtomicReqPtr req;

		primepair_kms_open(&kms);
		o = &kms.outputs[0];
		igt_require_f(o->wb_connector_id, "no writeback connector\n");
		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &a);
		primepair_fb_fill_color(&a, 0xff804020u);
		igt_assert_eq(primepair_modeset(&kms, o, &a), 0);
		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &wb);

		inject("fail_vmap", 1);
		req = drmModeAtomicAlloc();
		igt_assert(req);
		primepair_add(kms.fd, req, o->wb_connector_id,
			      DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", o->crtc_id);
		primepair_add(kms.fd, req, o->wb_connector_id,
			      DRM_MODE_OBJECT_CONNECTOR, "WRITEBACK_FB_ID",
			      wb.fb_id);
		igt_assert_eq(primepair_commit(kms.fd, req,
					       DRM_MODE_ATOMIC_ALLOW_MODESET),
			      -ENOMEM);
		drmModeAtomicFree(req);
		/* only the scanout buffer is vmapped */
		igt_assert_eq_u64(primepair_summary("vmaps"), 1);
		primepair_fb_destroy(kms.fd, &wb);

		assert_screen(&kms, o, 0xff804020u);

		primepair_disable_all(&kms);
		primepair_fb_destroy(kms.fd, &a);
		primepair_kms_close(&kms);
		igt_assert_eq_u64(primepair_summary("vmaps"), 0);
	}

	igt_fixture {
		set_max_total("0");
		inject("fail_alloc", 0);
		inject("fail_attach", 0);
		inject("fail_map", 0);
		inject("fail_vmap", 0);
		close(fd);
		primepair_assert_summary_zero();
	}
}

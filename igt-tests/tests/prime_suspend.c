// SPDX-License-Identifier: GPL-2.0
/*
 * prime_suspend - a buffer shared by vdisplay and vrender through a
 * suspend cycle
 *
 * The cycle is the kernel's pm_test "platform" level: every driver's
 * suspend and resume callbacks run, late and noirq ones included, and the
 * platform (ACPI) is prepared for sleep; taking the non-boot CPUs offline
 * and the firmware's sleep are left out.  The suite's QEMU guest cannot
 * sleep for real (S3 comes back as a reboot, and nothing wakes it from
 * s2idle), and its root over virtio-9p does not survive even this cycle,
 * so tools/run-suite runs this test from a root in the guest's RAM
 * (tools/vm-run -l).
 */

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <drm_fourcc.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

IGT_TEST_DESCRIPTION("A buffer shared by vdisplay and vrender through a suspend cycle");

#define BEFORE		0xff20c040u
#define AFTER		0xff6030a0u
#define PM_LEVEL	"platform"

/* The first pixel of @fb's @map that is not @argb (as XRGB), or -1 */
static long first_other(const uint32_t *map, const struct primepair_fb *fb,
			uint32_t argb)
{
	for (uint32_t y = 0; y < fb->height; y++) {
		const uint32_t *row = map + (size_t)y * (fb->pitch / 4);

		for (uint32_t x = 0; x < fb->width; x++)
			if ((row[x] ^ argb) & 0xffffff)
				return (long)y * fb->width + x;
	}
	return -1;
}

/* vrender fills all of @bo (laid out as @fb) with @argb; an out-fence fd */
static int fill_async(int render, uint32_t bo, const struct primepair_fb *fb,
		      uint32_t argb)
{
	struct drm_vrender_cmd cmd = primepair_vrender_fill(bo, 0, fb->pitch, 0,
							    0, fb->width,
							    fb->height, argb);
	struct drm_vrender_submit submit = {
		.cmds = (uintptr_t)&cmd,
		.cmd_count = 1,
		.flags = VRENDER_SUBMIT_OUT_FENCE_FD,
	};

	igt_assert_eq(__primepair_vrender_submit(render, &submit), 0);
	return submit.out_fence_fd;
}

/*
 * vdisplay scans out a buffer that vrender rendered into through its
 * import.  After the cycle the CRTC is still on and shows the picture
 * (writeback), the buffer holds what was rendered, the fence is still
 * signalled without error, and both drivers work: vrender renders anew
 * into the same import and vdisplay shows it.
 */
static void test_display_and_render(void)
{
	struct primepair_kms kms = {};
	struct primepair_output *o;
	struct primepair_fb fb, wb;
	uint32_t imported, *map;
	int render, dmabuf, fence;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	primepair_fb_create_shared(&kms, o, render, &fb, &dmabuf, &imported);
	primepair_fb_create(kms.fd, fb.width, fb.height, DRM_FORMAT_XRGB8888,
			    &wb);

	fence = fill_async(render, imported, &fb, BEFORE);
	igt_assert(primepair_sync_file_wait(fence, 10000));
	igt_assert_eq(primepair_modeset(&kms, o, &fb), 0);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq(first_other(wb.map, &wb, BEFORE), -1);

	primepair_suspend_cycle(PM_LEVEL);

	igt_assert_eq(primepair_prop_value(kms.fd, o->crtc_id,
					   DRM_MODE_OBJECT_CRTC, "ACTIVE"), 1);
	igt_assert_eq(primepair_sync_file_status(fence), 1);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq(first_other(wb.map, &wb, BEFORE), -1);
	map = mmap(NULL, fb.size, PROT_READ, MAP_SHARED, dmabuf, 0);
	igt_assert(map != MAP_FAILED);
	igt_assert_eq(first_other(map, &fb, BEFORE), -1);
	close(fence);

	fence = fill_async(render, imported, &fb, AFTER);
	igt_assert(primepair_sync_file_wait(fence, 10000));
	igt_assert_eq(primepair_sync_file_status(fence), 1);
	igt_assert_eq(first_other(map, &fb, AFTER), -1);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq(first_other(wb.map, &wb, AFTER), -1);
	munmap(map, fb.size);
	close(fence);

	close(dmabuf);
	igt_assert_eq(drmCloseBufferHandle(render, imported), 0);
	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	primepair_fb_destroy(kms.fd, &fb);
	primepair_kms_close(&kms);
	close(render);
	primepair_assert_summary_zero();
}

/*
 * Flips keep coming across the cycle: a client flipping between two
 * buffers has its last flip before the cycle complete, and its first
 * flip after it completes at a vblank, with the sequence going on.
 */
static void test_flips_across(void)
{
	struct primepair_kms kms = {};
	struct primepair_output *o;
	struct primepair_fb fb[2], wb;
	uint64_t seq_before, seq_after;

	primepair_kms_open(&kms);
	o = &kms.outputs[0];
	for (int i = 0; i < 2; i++) {
		primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
				    DRM_FORMAT_XRGB8888, &fb[i]);
		primepair_fb_fill_color(&fb[i], i ? AFTER : BEFORE);
	}
	primepair_fb_create(kms.fd, o->mode.hdisplay, o->mode.vdisplay,
			    DRM_FORMAT_XRGB8888, &wb);
	igt_assert_eq(primepair_modeset(&kms, o, &fb[0]), 0);
	seq_before = primepair_wait_vblank(&kms, o);

	primepair_suspend_cycle(PM_LEVEL);

	igt_assert_eq(drmModePageFlip(kms.fd, o->crtc_id, fb[1].fb_id, 0,
				      NULL), 0);
	seq_after = primepair_wait_vblank(&kms, o);
	igt_assert_lt_u64(seq_before, seq_after);
	primepair_writeback_capture(&kms, o, &wb);
	igt_assert_eq(first_other(wb.map, &wb, AFTER), -1);

	primepair_disable_all(&kms);
	primepair_fb_destroy(kms.fd, &wb);
	for (int i = 0; i < 2; i++)
		primepair_fb_destroy(kms.fd, &fb[i]);
	primepair_kms_close(&kms);
	primepair_assert_summary_zero();
}

igt_main
{
	igt_fixture
		igt_require(getuid() == 0);

	igt_describe("A scanout buffer imported and rendered into by vrender keeps its picture, contents and signalled fence through a suspend cycle; both drivers work after it");
	igt_subtest("display-and-render")
		test_display_and_render();

	igt_describe("Page flips and vblanks go on after a suspend cycle");
	igt_subtest("flips-across")
		test_flips_across();
}

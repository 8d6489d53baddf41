// SPDX-License-Identifier: GPL-2.0
/*
 * prime_races - PRIME and buffer ioctls racing each other, and processes
 * dying in the middle of their work
 *
 * Every race runs for a bounded time with two or more threads on one or
 * more fds.  Nothing may crash or warn (the kernel log is checked by the
 * runner), no handle may point at a freed object, and afterwards every
 * buffer, import and attachment is gone.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

#define RACE_SECONDS	1.5
#define BO_SIZE		(64 << 10)

struct race {
	int display;
	int render;
	_Atomic uint32_t handle;
	_Atomic int dmabuf;
	atomic_bool stop;
	atomic_ulong ok, failed, unexpected;
};

/*
 * Threads never assert (an assertion leaves through longjmp, which only
 * the main thread may do): they count what they saw, and the main thread
 * checks the counts.
 */

static void *export_loop(void *arg)
{
	struct race *r = arg;
	int fd;

	while (!atomic_load(&r->stop)) {
		if (drmPrimeHandleToFD(r->render, atomic_load(&r->handle),
				       DRM_CLOEXEC, &fd) == 0) {
			atomic_fetch_add(&r->ok, 1);
			close(fd);
		} else if (errno == ENOENT) {
			/* the handle was closed under us */
			atomic_fetch_add(&r->failed, 1);
		} else {
			atomic_fetch_add(&r->unexpected, 1);
		}
	}
	return NULL;
}

static void *create_close_loop(void *arg)
{
	struct race *r = arg;

	while (!atomic_load(&r->stop)) {
		uint32_t old = atomic_load(&r->handle);

		uint32_t h;

		if (__primepair_vrender_bo_create(r->render, BO_SIZE, 0, &h))
			atomic_fetch_add(&r->unexpected, 1);
		else
			atomic_store(&r->handle, h);
		drmCloseBufferHandle(r->render, old);
	}
	return NULL;
}

/* Each importer has its own fd: handles are per fd. */
static void *import_loop(void *arg)
{
	struct race *r = arg;
	uint32_t h, result;
	int render = -1;
	char name[64];

	for (int i = 0; i < 16 && render < 0; i++) {
		snprintf(name, sizeof(name), "/dev/dri/renderD%d", 128 + i);
		render = open(name, O_RDWR | O_CLOEXEC);
		if (render >= 0 &&
		    __primepair_vrender_get_param(render, VRENDER_PARAM_INSTANCE,
						  &(uint64_t){ 0 })) {
			close(render);
			render = -1;
		}
	}
	if (render < 0) {
		atomic_fetch_add(&r->unexpected, 1);
		return NULL;
	}
	if (__primepair_vrender_bo_create(render, 4096, 0, &result)) {
		atomic_fetch_add(&r->unexpected, 1);
		close(render);
		return NULL;
	}

	while (!atomic_load(&r->stop)) {
		int fd = atomic_load(&r->dmabuf);

		if (drmPrimeFDToHandle(render, fd, &h) == 0) {
			struct drm_vrender_cmd c =
				primepair_vrender_checksum(h, 0, 512, 128, 128,
							   result, 0);
			struct drm_vrender_submit submit = {
				.cmds = (uintptr_t)&c,
				.cmd_count = 1,
			};

			/* the import works: a job reads it */
			if (__primepair_vrender_submit(render, &submit))
				atomic_fetch_add(&r->unexpected, 1);
			else
				atomic_fetch_add(&r->ok, 1);
			drmCloseBufferHandle(render, h);
		} else if (errno == EBADF || errno == EINVAL) {
			/* closed, or the number now names another file */
			atomic_fetch_add(&r->failed, 1);
		} else {
			atomic_fetch_add(&r->unexpected, 1);
		}
	}
	/* every checksum job wrote result: when it is idle, all are done */
	if (__primepair_vrender_bo_wait(render, result,
					primepair_now_ns() + 60000000000ll))
		atomic_fetch_add(&r->unexpected, 1);
	drmCloseBufferHandle(render, result);
	close(render);
	return NULL;
}

static void *export_close_fd_loop(void *arg)
{
	struct race *r = arg;
	uint32_t dumb, pitch;
	uint64_t size;
	int fd;

	if (drmModeCreateDumbBuffer(r->display, 128, 128, 32, 0, &dumb, &pitch,
				    &size)) {
		atomic_fetch_add(&r->unexpected, 1);
		return NULL;
	}
	while (!atomic_load(&r->stop)) {
		if (drmPrimeHandleToFD(r->display, dumb, DRM_CLOEXEC, &fd)) {
			atomic_fetch_add(&r->unexpected, 1);
			break;
		}
		atomic_store(&r->dmabuf, fd);
		usleep(100);
		atomic_store(&r->dmabuf, -1);
		close(fd);
	}
	if (drmModeDestroyDumbBuffer(r->display, dumb))
		atomic_fetch_add(&r->unexpected, 1);
	return NULL;
}

static void run_threads(struct race *r, void *(*a)(void *), int na,
			void *(*b)(void *), int nb)
{
	pthread_t t[16];
	int n = 0;

	atomic_store(&r->stop, false);
	for (int i = 0; i < na; i++)
		igt_assert_eq(pthread_create(&t[n++], NULL, a, r), 0);
	for (int i = 0; i < nb; i++)
		igt_assert_eq(pthread_create(&t[n++], NULL, b, r), 0);
	usleep(RACE_SECONDS * 1e6);
	atomic_store(&r->stop, true);
	while (n--)
		igt_assert_eq(pthread_join(t[n], NULL), 0);
	igt_assert_eq_u64(atomic_load(&r->unexpected), 0);
}

static void race_open(struct race *r)
{
	memset(r, 0, sizeof(*r));
	r->display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
	r->render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
	atomic_store(&r->dmabuf, -1);
}

static void race_close(struct race *r)
{
	close(r->render);
	close(r->display);
	primepair_assert_summary_zero();
}

struct same {
	int render;
	int dmabuf;
	pthread_barrier_t barrier;
	uint32_t handles[8];
};

static void *import_same(void *arg)
{
	struct same *s = arg;
	static atomic_int slot;
	int i = atomic_fetch_add(&slot, 1) % 8;

	pthread_barrier_wait(&s->barrier);
	if (drmPrimeFDToHandle(s->render, s->dmabuf, &s->handles[i]))
		s->handles[i] = 0;
	return NULL;
}

igt_main
{
	struct race r;

	igt_describe("HANDLE_TO_FD racing GEM_CLOSE of the same handle: an fd or ENOENT, never a freed object");
	igt_subtest("export-vs-close") {
		race_open(&r);
		atomic_store(&r.handle,
			     primepair_vrender_bo_create(r.render, BO_SIZE));
		run_threads(&r, export_loop, 2, create_close_loop, 1);
		drmCloseBufferHandle(r.render, atomic_load(&r.handle));
		igt_info("exports %lu, lost races %lu\n", atomic_load(&r.ok),
			 atomic_load(&r.failed));
		igt_assert_lt_u64(0, atomic_load(&r.ok));
		race_close(&r);
	}

	igt_describe("FD_TO_HANDLE racing close() of the same dma-buf fd: a working import or EBADF");
	igt_subtest("import-vs-close-fd") {
		race_open(&r);
		run_threads(&r, export_close_fd_loop, 1, import_loop, 2);
		igt_info("imports %lu, lost races %lu\n", atomic_load(&r.ok),
			 atomic_load(&r.failed));
		igt_assert_lt_u64(0, atomic_load(&r.ok));
		race_close(&r);
	}

	igt_describe("Many threads importing one dma-buf at once all get the same handle");
	igt_subtest("concurrent-import-same-handle") {
		struct same s = { 0 };
		pthread_t t[8];
		uint32_t bo;

		s.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		r.display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		{
			uint32_t pitch;
			uint64_t size;

			igt_assert_eq(drmModeCreateDumbBuffer(r.display, 64, 64,
							      32, 0, &bo,
							      &pitch, &size), 0);
		}
		igt_assert_eq(drmPrimeHandleToFD(r.display, bo, DRM_CLOEXEC,
						 &s.dmabuf), 0);
		pthread_barrier_init(&s.barrier, NULL, 8);
		for (int i = 0; i < 8; i++)
			igt_assert_eq(pthread_create(&t[i], NULL, import_same,
						     &s), 0);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
		igt_assert_neq(s.handles[0], 0);
		for (int i = 1; i < 8; i++)
			igt_assert_eq_u32(s.handles[i], s.handles[0]);
		igt_assert_eq_u64(primepair_summary("imports"), 1);
		/* one handle, one reference: one close releases it */
		igt_assert_eq(drmCloseBufferHandle(s.render, s.handles[0]), 0);
		igt_assert_eq_u64(primepair_summary("imports"), 0);
		pthread_barrier_destroy(&s.barrier);
		close(s.dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(r.display, bo), 0);
		close(r.display);
		close(s.render);
		primepair_assert_summary_zero();
	}

	igt_describe("A process killed with jobs queued, buffers mapped and dma-bufs shared releases everything; the device serves others");
	igt_subtest("kill-during-work") {
		for (int round = 0; round < 3; round++) {
			int sv[2];
			pid_t pid;
			char c;

			igt_assert_eq(pipe(sv), 0);
			pid = fork();
			igt_assert_lte(0, pid);
			if (pid == 0) {
				int fd = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
				int disp = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
				uint32_t bo = primepair_vrender_bo_create(fd, 1 << 20);
				uint32_t dumb, pitch, imp;
				uint64_t size;
				uint32_t *map;
				int dmabuf;

				drmModeCreateDumbBuffer(disp, 256, 256, 32, 0, &dumb,
							&pitch, &size);
				drmPrimeHandleToFD(disp, dumb, DRM_CLOEXEC, &dmabuf);
				drmPrimeFDToHandle(fd, dmabuf, &imp);
				map = primepair_vrender_bo_mmap(fd, bo, 1 << 20,
								PROT_READ | PROT_WRITE);
				map[0] = 1;
				if (write(sv[1], "x", 1) != 1)
					_exit(1);
				for (;;) {
					struct drm_vrender_cmd c[2] = {
						primepair_vrender_fill(bo, 0, 4096, 0, 0,
								       1024, 256, 7),
						primepair_vrender_fill(imp, 0, pitch, 0, 0,
								       256, 256, 9),
					};
					primepair_vrender_submit(fd, c, 2);
				}
			}
			close(sv[1]);
			igt_assert_eq(read(sv[0], &c, 1), 1);
			usleep(20000 * (round + 1));
			kill(pid, SIGKILL);
			igt_assert_eq(waitpid(pid, NULL, 0), pid);
			close(sv[0]);
		}

		/* queued jobs finish, then everything is released */
		for (int i = 0; i < 100 && primepair_summary("buffers"); i++)
			usleep(50000);
		primepair_assert_summary_zero();

		/* and the device still works for someone else */
		race_open(&r);
		{
			uint32_t bo = primepair_vrender_bo_create(r.render, 4096);
			uint32_t zero[1024] = { 0 };

			igt_assert_eq_u32(primepair_vrender_crc32(r.render, bo,
								  4096),
					  primepair_crc32(0, zero, 4096));
			drmCloseBufferHandle(r.render, bo);
		}
		race_close(&r);
	}
}

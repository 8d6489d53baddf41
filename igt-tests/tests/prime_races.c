// SPDX-License-Identifier: GPL-2.0
/*
 * prime_races - PRIME and buffer ioctls racing each other, and processes
 * dying in the middle of their work
 *
 * Every race runs for a bounded time with two or more threads on one or
 * more fds.  Nothing may crash or warn (the kernel log is checked by the
 * runner), no handle may point at a freed object, and afterwards every
 * buffer, import and attachment is gone.
 *
 * A CPU mapping holds its buffer: once mmap() has succeeded, closing the
 * GEM handle or the dma-buf fd it came from, even while the mapping is
 * being faulted in, leaves it working with its contents until munmap().
 * A job holds its buffers likewise: GEM_CLOSE of a handle that a job in
 * flight uses lets the job complete normally.
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
#define MAP_SIZE	(64 << 10)
#define MAPPERS		3	/* the last one maps dma-buf fds */

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

/*
 * mmap racing close: each mapper has an fd of its own (so that a handle it
 * just lost cannot name another mapper's new buffer), puts what it is
 * about to mmap in its slot, and a closer thread takes it from there and
 * closes it at any moment.  A mapping that succeeded is touched half
 * before and half after the close, and must hold what was written.
 */
struct map_race {
	int display[MAPPERS];
	_Atomic int64_t slot[MAPPERS];	/* handle or dma-buf fd, -1: none */
	atomic_bool stop;
	atomic_ulong mapped[2], lost, unexpected;	/* [1]: dma-bufs */
};

static void map_race_close(struct map_race *m, int i, int64_t what)
{
	if (i == MAPPERS - 1)
		close((int)what);
	else if (drmCloseBufferHandle(m->display[i], (uint32_t)what))
		atomic_fetch_add(&m->unexpected, 1);
}

/* Take the slot's object and close it, unless the closer already has */
static void map_race_take(struct map_race *m, int i)
{
	int64_t what = atomic_exchange(&m->slot[i], -1);

	if (what >= 0)
		map_race_close(m, i, what);
}

static void *map_closer(void *arg)
{
	struct map_race *m = arg;
	unsigned int seed = 1;

	while (!atomic_load(&m->stop)) {
		int i = rand_r(&seed) % MAPPERS;

		if (atomic_load(&m->slot[i]) >= 0) {
			usleep(rand_r(&seed) % 200);
			map_race_take(m, i);
		}
	}
	return NULL;
}

static bool map_race_touch(uint32_t *p, size_t from, size_t to,
			   uint32_t seed, bool write)
{
	for (size_t i = from; i < to; i++) {
		if (write)
			p[i] = seed ^ (uint32_t)i;
		else if (p[i] != (seed ^ (uint32_t)i))
			return false;
	}
	return true;
}

/* Returns the mmap offset or dma-buf fd to map for mapper @i, or -1 */
static int64_t map_race_prepare(struct map_race *m, int i, int *fd)
{
	uint32_t handle, pitch;
	uint64_t size, offset;
	int dmabuf;

	if (drmModeCreateDumbBuffer(m->display[i], 128, MAP_SIZE / 512, 32, 0,
				    &handle, &pitch, &size) || size != MAP_SIZE) {
		atomic_fetch_add(&m->unexpected, 1);
		return -1;
	}
	if (i == MAPPERS - 1) {
		/* the dma-buf alone holds the buffer: close() ends it */
		if (drmPrimeHandleToFD(m->display[i], handle,
				       DRM_CLOEXEC | DRM_RDWR, &dmabuf)) {
			atomic_fetch_add(&m->unexpected, 1);
			dmabuf = -1;
		}
		drmCloseBufferHandle(m->display[i], handle);
		if (dmabuf < 0)
			return -1;
		atomic_store(&m->slot[i], dmabuf);
		*fd = dmabuf;
		return 0;
	}
	atomic_store(&m->slot[i], handle);
	*fd = m->display[i];
	if (drmModeMapDumbBuffer(m->display[i], handle, &offset)) {
		if (errno == ENOENT)
			atomic_fetch_add(&m->lost, 1);
		else
			atomic_fetch_add(&m->unexpected, 1);
		return -1;
	}
	return (int64_t)offset;
}

static void *map_loop(void *arg)
{
	struct map_race *m = arg;
	static atomic_int next;
	int i = atomic_fetch_add(&next, 1) % MAPPERS;
	const size_t words = MAP_SIZE / 4;

	for (uint32_t seed = i << 24; !atomic_load(&m->stop); seed++) {
		int64_t offset;
		uint32_t *p;
		int fd;

		offset = map_race_prepare(m, i, &fd);
		if (offset < 0) {
			map_race_take(m, i);
			continue;
		}
		p = mmap(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, offset);
		if (p == MAP_FAILED) {
			/*
			 * Closed first: the fd, or the handle, whose buffer
			 * is gone (its offset unknown) or going (the offset
			 * no longer granted to this fd).
			 */
			if (i == MAPPERS - 1 ? errno == EBADF :
			    errno == EINVAL || errno == EACCES)
				atomic_fetch_add(&m->lost, 1);
			else
				atomic_fetch_add(&m->unexpected, 1);
			map_race_take(m, i);
			continue;
		}
		map_race_touch(p, 0, words / 2, seed, true);
		/* let the closer have it for a while, then close it here */
		for (int n = 0; n < 20 && atomic_load(&m->slot[i]) >= 0; n++)
			usleep(50);
		map_race_take(m, i);
		map_race_touch(p, words / 2, words, seed, true);
		if (map_race_touch(p, 0, words, seed, false))
			atomic_fetch_add(&m->mapped[i == MAPPERS - 1], 1);
		else
			atomic_fetch_add(&m->unexpected, 1);
		munmap(p, MAP_SIZE);
	}
	return NULL;
}

static void map_race_run(struct map_race *m)
{
	pthread_t t[MAPPERS + 1];

	for (int i = 0; i < MAPPERS; i++) {
		m->display[i] = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		atomic_store(&m->slot[i], -1);
	}
	for (int i = 0; i < MAPPERS; i++)
		igt_assert_eq(pthread_create(&t[i], NULL, map_loop, m), 0);
	igt_assert_eq(pthread_create(&t[MAPPERS], NULL, map_closer, m), 0);
	usleep(RACE_SECONDS * 1e6);
	atomic_store(&m->stop, true);
	for (int i = 0; i <= MAPPERS; i++)
		igt_assert_eq(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < MAPPERS; i++)
		close(m->display[i]);
}

/*
 * SUBMIT racing GEM_CLOSE: submitters use whatever the current handles
 * are, an own buffer and an import of a vdisplay buffer, while a closer
 * replaces them: a new buffer, a new import of the same dma-buf.  A job
 * either is refused (ENOENT) or runs to completion on what it looked up.
 */
struct submit_race {
	int render;
	int dmabuf;
	uint32_t pitch;
	_Atomic uint32_t own, imported;
	atomic_bool stop;
	atomic_ulong ok, lost, unexpected;
};

static void *submit_loop(void *arg)
{
	struct submit_race *r = arg;

	for (unsigned int n = 0; !atomic_load(&r->stop); n++) {
		struct drm_vrender_cmd c[2] = {
			primepair_vrender_fill(atomic_load(&r->own), 0, 4096,
					       0, 0, 1024, BO_SIZE / 4096, n),
			primepair_vrender_fill(atomic_load(&r->imported), 0,
					       r->pitch, 0, 0, 128, 128, n),
		};
		struct drm_vrender_submit s = {
			.cmds = (uintptr_t)c,
			.cmd_count = 2,
			.flags = n % 4 ? 0 : VRENDER_SUBMIT_OUT_FENCE_FD,
		};

		if (__primepair_vrender_submit(r->render, &s)) {
			if (errno == ENOENT)
				atomic_fetch_add(&r->lost, 1);
			else
				atomic_fetch_add(&r->unexpected, 1);
			continue;
		}
		if (s.flags) {
			/* the job ran, whatever became of the handles */
			if (!primepair_sync_file_wait(s.out_fence_fd, 10000) ||
			    primepair_sync_file_status(s.out_fence_fd) != 1)
				atomic_fetch_add(&r->unexpected, 1);
			close(s.out_fence_fd);
		}
		atomic_fetch_add(&r->ok, 1);
	}
	return NULL;
}

static void *submit_closer(void *arg)
{
	struct submit_race *r = arg;
	uint32_t h;

	for (unsigned int n = 0; !atomic_load(&r->stop); n++) {
		usleep(n % 7 * 100);
		if (n & 1) {
			drmCloseBufferHandle(r->render, atomic_load(&r->imported));
			if (drmPrimeFDToHandle(r->render, r->dmabuf, &h))
				atomic_fetch_add(&r->unexpected, 1);
			else
				atomic_store(&r->imported, h);
			continue;
		}
		if (__primepair_vrender_bo_create(r->render, BO_SIZE, 0, &h)) {
			atomic_fetch_add(&r->unexpected, 1);
			continue;
		}
		drmCloseBufferHandle(r->render, atomic_exchange(&r->own, h));
	}
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

	igt_describe("mmap of a dumb buffer or a dma-buf racing close of its handle or fd: a mapping either fails cleanly or keeps its contents after the close");
	igt_subtest("mmap-vs-close") {
		static struct map_race m;

		map_race_run(&m);
		igt_info("mappings of dumb buffers %lu, of dma-bufs %lu, lost races %lu\n",
			 atomic_load(&m.mapped[0]), atomic_load(&m.mapped[1]),
			 atomic_load(&m.lost));
		igt_assert_eq_u64(atomic_load(&m.unexpected), 0);
		igt_assert_lt_u64(0, atomic_load(&m.mapped[0]));
		igt_assert_lt_u64(0, atomic_load(&m.mapped[1]));
		primepair_assert_summary_zero();
	}

	igt_describe("SUBMIT racing GEM_CLOSE of the buffers the job uses, own and imported: ENOENT, or a job that completes");
	igt_subtest("submit-vs-close") {
		static struct submit_race s;
		pthread_t t[3];
		uint32_t dumb;
		uint64_t size;

		race_open(&r);
		s.render = r.render;
		igt_assert_eq(drmModeCreateDumbBuffer(r.display, 128, 128, 32, 0,
						      &dumb, &s.pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(r.display, dumb, DRM_CLOEXEC,
						 &s.dmabuf), 0);
		atomic_store(&s.own, primepair_vrender_bo_create(r.render,
								 BO_SIZE));
		{
			uint32_t h;

			igt_assert_eq(drmPrimeFDToHandle(r.render, s.dmabuf,
							 &h), 0);
			atomic_store(&s.imported, h);
		}
		for (int i = 0; i < 2; i++)
			igt_assert_eq(pthread_create(&t[i], NULL, submit_loop,
						     &s), 0);
		igt_assert_eq(pthread_create(&t[2], NULL, submit_closer, &s),
			      0);
		usleep(RACE_SECONDS * 1e6);
		atomic_store(&s.stop, true);
		for (int i = 0; i < 3; i++)
			igt_assert_eq(pthread_join(t[i], NULL), 0);
		igt_info("jobs %lu, lost races %lu\n", atomic_load(&s.ok),
			 atomic_load(&s.lost));
		igt_assert_eq_u64(atomic_load(&s.unexpected), 0);
		igt_assert_lt_u64(0, atomic_load(&s.ok));

		/* the last import still works, then everything goes */
		{
			uint32_t h = atomic_load(&s.imported), v = 0x5a5a5a5a;
			struct drm_vrender_cmd c =
				primepair_vrender_fill(h, 0, s.pitch, 0, 0, 1,
						       1, v);

			primepair_vrender_submit(r.render, &c, 1);
			igt_assert_eq_u32(primepair_vrender_crc32(r.render, h,
								  4),
					  primepair_crc32(0, &v, 4));
		}
		drmCloseBufferHandle(r.render, atomic_load(&s.own));
		drmCloseBufferHandle(r.render, atomic_load(&s.imported));
		close(s.dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(r.display, dumb), 0);
		igt_assert_eq_u64(primepair_summary_settle("buffers", 0), 0);
		race_close(&r);
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

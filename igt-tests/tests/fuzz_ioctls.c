// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ioctls - random and structured arguments to every ioctl we own or
 * route: vrender's uapi, PRIME, dumb buffers, dma-buf fd ioctls, mmap
 * offsets, protections and flags, vdisplay mode timings, across
 * open/close and fork
 *
 * Bounded in time; the seed is printed so a run can be repeated:
 *
 *   PRIMEPAIR_FUZZ_SEED=1234 PRIMEPAIR_FUZZ_SECONDS=60 fuzz_ioctls
 *
 * The verdict is the kernel's: no warning, oops or leak (the runner reads
 * the log and primebuf's counters), and the devices still work after.
 */

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_kms.h"
#include "primepair_vrender.h"

#define POOL 16

struct fuzz {
	uint64_t rng;
	int render, display;
	uint32_t handles[POOL];		/* vrender handles, some stale */
	uint32_t dumbs[POOL];		/* vdisplay handles, some stale */
	int fds[POOL];			/* dma-bufs, sync files, junk, closed */
	uint32_t crtc, connector;	/* vdisplay's first output */
	uint32_t mode_id_prop, active_prop, crtc_id_prop;
	drmModeModeInfo base_mode;	/* its preferred mode */
	uint8_t scratch[4096] __attribute__((aligned(64)));
	unsigned long ops, errors;
	unsigned long modes_on;		/* fuzzed modes a CRTC ran */
};

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

static uint64_t next(struct fuzz *f)
{
	/* xorshift64*: small, fast, and repeatable from the seed */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545f4914f6cdd1dull;
}

static uint32_t pick(struct fuzz *f, uint32_t n)
{
	return next(f) % n;
}

/* Values that tend to find bugs: zero, small, edges, huge, random */
static uint64_t value(struct fuzz *f)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 4095, 4096, 4097, 65536, 1 << 20,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
		0x7fffffffffffffffull, 0xffffffffffffffffull,
	};

	switch (pick(f, 4)) {
	case 0:
		return edges[pick(f, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return pick(f, 256);
	case 2:
		return pick(f, 1 << 16) * 4;
	default:
		return next(f);
	}
}

static uint64_t pointer(struct fuzz *f)
{
	switch (pick(f, 5)) {
	case 0:
		return 0;
	case 1:
		return 0x1000;
	case 2:
		return 0xffff888000000000ull;	/* kernel address */
	default:
		return (uintptr_t)f->scratch;
	}
}

static uint32_t handle(struct fuzz *f, const uint32_t *pool)
{
	return pick(f, 8) ? pool[pick(f, POOL)] : (uint32_t)value(f);
}

static int fd_of(struct fuzz *f)
{
	switch (pick(f, 8)) {
	case 0:
		return -1;
	case 1:
		return 999;	/* closed */
	case 2:
		return f->render;
	default:
		return f->fds[pick(f, POOL)];
	}
}

static void keep_fd(struct fuzz *f, int fd)
{
	int i = pick(f, POOL);

	if (f->fds[i] > 2 && f->fds[i] != f->render &&
	    f->fds[i] != f->display)
		close(f->fds[i]);
	f->fds[i] = fd;
}

static void op_bo_create(struct fuzz *f)
{
	/* mostly small; sometimes anything up to the limit, to find ENOMEM */
	uint64_t size = pick(f, 32) ? (pick(f, 64) + 1) * 4096 : value(f);
	uint32_t h;

	if (!__primepair_vrender_bo_create(f->render, size,
					   pick(f, 16) ? 0 : value(f), &h))
		f->handles[pick(f, POOL)] = h;
}

static void op_submit(struct fuzz *f)
{
	struct drm_vrender_cmd *c = (void *)f->scratch;
	unsigned int n = pick(f, 10) ? pick(f, 4) + 1 : value(f);
	struct drm_vrender_submit s = { 0 };

	for (unsigned int i = 0; i < 4; i++) {
		bool sane = pick(f, 3);

		memset(&c[i], 0, sizeof(c[i]));
		c[i].op = sane ? pick(f, 4) + 1 : value(f);
		c[i].dst_handle = handle(f, f->handles);
		c[i].src_handle = c[i].op == VRENDER_CMD_COPY ||
				  c[i].op == VRENDER_CMD_CHECKSUM ?
				  handle(f, f->handles) : 0;
		c[i].dst_pitch = sane ? 4096 : value(f);
		c[i].src_pitch = c[i].src_handle ? (sane ? 4096 : value(f)) : 0;
		c[i].width = sane ? pick(f, 1024) + 1 : value(f);
		c[i].height = sane ? pick(f, 16) + 1 : value(f);
		c[i].dst_x = sane ? 0 : value(f);
		c[i].dst_y = sane ? pick(f, 4) : value(f);
		c[i].dst_offset = sane ? 0 : value(f);
		c[i].value = next(f);
		if (c[i].op == VRENDER_CMD_CHECKSUM && sane) {
			/* a well-formed checksum: result at offset 0 */
			c[i].dst_pitch = 0;
			c[i].dst_y = 0;
			c[i].value = 0;
		}
		if (!pick(f, 20))
			c[i].flags = value(f);
		if (!pick(f, 20))
			c[i].pad = value(f);
	}
	s.cmds = pick(f, 10) ? (uintptr_t)c : pointer(f);
	s.cmd_count = n;
	if (!pick(f, 8)) {
		s.flags = pick(f, 2) ? value(f) : VRENDER_SUBMIT_IN_FENCE_FD;
		s.in_fence_fd = fd_of(f);
	}
	if (!pick(f, 8))
		s.flags |= VRENDER_SUBMIT_OUT_FENCE_FD;
	if (!pick(f, 8)) {
		s.in_syncobjs = pointer(f);
		s.in_syncobj_count = pick(f, 2) ? pick(f, 4) : value(f);
	}
	if (!pick(f, 8))
		s.out_syncobj = value(f);
	if (__primepair_vrender_submit(f->render, &s) == 0 &&
	    (s.flags & VRENDER_SUBMIT_OUT_FENCE_FD))
		keep_fd(f, s.out_fence_fd);
}

static void op_info(struct fuzz *f)
{
	struct drm_vrender_bo_info info = {
		.handle = handle(f, f->handles),
		.segs_ptr = pointer(f),
		.segs_count = pick(f, 2) ? pick(f, 256) : value(f),
		.flags = pick(f, 16) ? 0 : value(f),
	};

	if (info.segs_ptr == (uintptr_t)f->scratch && info.segs_count > 256)
		info.segs_count = 256;
	__primepair_vrender_bo_info(f->render, &info);
}

static void op_prime(struct fuzz *f)
{
	uint32_t h;
	int fd;

	if (pick(f, 2)) {
		int dev = pick(f, 2) ? f->render : f->display;
		const uint32_t *pool = dev == f->render ? f->handles : f->dumbs;
		uint32_t flags = pick(f, 4) ? DRM_CLOEXEC | DRM_RDWR :
				 (uint32_t)value(f);

		if (!drmPrimeHandleToFD(dev, handle(f, pool), flags, &fd))
			keep_fd(f, fd);
	} else if (!drmPrimeFDToHandle(pick(f, 2) ? f->render : f->display,
				       fd_of(f), &h)) {
		f->handles[pick(f, POOL)] = h;
	}
}

static void op_dumb(struct fuzz *f)
{
	uint32_t h, pitch;
	uint64_t size, off;

	switch (pick(f, 3)) {
	case 0:
		if (!drmModeCreateDumbBuffer(f->display,
					     pick(f, 2) ? pick(f, 512) + 1 : value(f),
					     pick(f, 2) ? pick(f, 512) + 1 : value(f),
					     pick(f, 2) ? 32 : value(f), 0,
					     &h, &pitch, &size))
			f->dumbs[pick(f, POOL)] = h;
		break;
	case 1:
		drmModeMapDumbBuffer(f->display, handle(f, f->dumbs), &off);
		break;
	default:
		drmModeDestroyDumbBuffer(f->display, handle(f, f->dumbs));
		break;
	}
}

static void op_dmabuf(struct fuzz *f)
{
	int fd = fd_of(f);

	switch (pick(f, 3)) {
	case 0: {
		struct dma_buf_sync sync = {
			.flags = pick(f, 2) ? DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW :
				 value(f),
		};

		if (!ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) &&
		    (sync.flags & DMA_BUF_SYNC_END) == 0) {
			sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
			ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
		}
		break;
	}
	case 1: {
		struct dma_buf_export_sync_file e = {
			.flags = pick(f, 2) ? DMA_BUF_SYNC_RW : value(f),
			.fd = -1,
		};

		if (!ioctl(fd, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
			keep_fd(f, e.fd);
		break;
	}
	default: {
		struct dma_buf_import_sync_file i = {
			.flags = pick(f, 2) ? DMA_BUF_SYNC_WRITE : value(f),
			.fd = fd_of(f),
		};

		ioctl(fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &i);
		break;
	}
	}
}

/* mmap at random offsets and touch the mapping; faults are survived */
static void op_mmap(struct fuzz *f)
{
	struct drm_vrender_bo_mmap_offset arg = {
		.handle = handle(f, f->handles),
		.pad = pick(f, 16) ? 0 : value(f),
	};
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC,
	};
	size_t len = (pick(f, 4) + 1) * 4096;
	int fd, prot, flags;
	off_t off;
	void *p;

	if (pick(f, 2)) {
		if (ioctl(f->render, DRM_IOCTL_VRENDER_BO_MMAP_OFFSET, &arg))
			return;
		fd = f->render;
		off = pick(f, 4) ? arg.offset : arg.offset + value(f) * 4096;
	} else {
		fd = fd_of(f);
		off = pick(f, 4) ? 0 : value(f) * 4096;
	}
	/* Private (copy-on-write) mappings and every protection too */
	prot = prots[pick(f, sizeof(prots) / sizeof(prots[0]))];
	flags = pick(f, 4) ? MAP_SHARED : MAP_PRIVATE;
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return;
	if (!sigsetjmp(fault_jmp, 1)) {
		volatile uint8_t *b = p;
		size_t at = pick(f, len);

		if (prot & PROT_WRITE)
			b[at] ^= 0x5a;
		else if (prot & PROT_READ)
			(void)b[at];
	}
	munmap(p, len);
}

/*
 * A mode with one to three timing fields replaced by edge or random
 * values, committed TEST_ONLY or for real (no plane needed) and then
 * switched off: whatever vdisplay accepts, its vblank timer must run.
 */
static void op_mode(struct fuzz *f)
{
	drmModeModeInfo m = f->base_mode;
	uint16_t *u16s[] = {
		&m.hdisplay, &m.hsync_start, &m.hsync_end, &m.htotal, &m.hskew,
		&m.vdisplay, &m.vsync_start, &m.vsync_end, &m.vtotal, &m.vscan,
	};
	drmModeAtomicReqPtr req;
	uint32_t blob, flags;
	int n = pick(f, 3) + 1;

	if (!f->crtc)
		return;
	while (n--) {
		uint32_t which = pick(f, 12);

		if (which < 10)
			*u16s[which] = value(f);
		else if (which == 10)
			m.clock = value(f);
		else
			m.flags = pick(f, 2) ? value(f) : 1u << pick(f, 14);
	}
	if (drmModeCreatePropertyBlob(f->display, &m, sizeof(m), &blob))
		return;
	req = drmModeAtomicAlloc();
	drmModeAtomicAddProperty(req, f->crtc, f->mode_id_prop, blob);
	drmModeAtomicAddProperty(req, f->crtc, f->active_prop, 1);
	drmModeAtomicAddProperty(req, f->connector, f->crtc_id_prop, f->crtc);
	flags = DRM_MODE_ATOMIC_ALLOW_MODESET |
		(pick(f, 4) ? DRM_MODE_ATOMIC_TEST_ONLY : 0);
	if (!drmModeAtomicCommit(f->display, req, flags, NULL) &&
	    !(flags & DRM_MODE_ATOMIC_TEST_ONLY)) {
		f->modes_on++;
		drmModeAtomicFree(req);
		req = drmModeAtomicAlloc();
		drmModeAtomicAddProperty(req, f->crtc, f->mode_id_prop, 0);
		drmModeAtomicAddProperty(req, f->crtc, f->active_prop, 0);
		drmModeAtomicAddProperty(req, f->connector, f->crtc_id_prop, 0);
		igt_assert_eq(drmModeAtomicCommit(f->display, req,
						  DRM_MODE_ATOMIC_ALLOW_MODESET,
						  NULL), 0);
	}
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(f->display, blob);
}

static void op_close(struct fuzz *f)
{
	if (pick(f, 2))
		drmCloseBufferHandle(f->render, handle(f, f->handles));
	else
		keep_fd(f, 999);
}

static void op_reopen(struct fuzz *f)
{
	/* drop every handle of the fd at once, jobs maybe in flight */
	close(f->render);
	f->render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
}

static void op_fork(struct fuzz *f)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* the child inherits every fd and dies mid-work */
		for (int i = 0; i < 20; i++)
			op_submit(f);
		_exit(0);
	}
	if (pid > 0) {
		if (pick(f, 2))
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* vdisplay's first CRTC and connector, for op_mode (0 if not master) */
static void find_output(struct fuzz *f)
{
	drmModeResPtr res;
	drmModeConnectorPtr c;

	if (drmSetClientCap(f->display, DRM_CLIENT_CAP_ATOMIC, 1) ||
	    !drmIsMaster(f->display))
		return;
	res = drmModeGetResources(f->display);
	igt_assert(res && res->count_crtcs && res->count_connectors);
	c = drmModeGetConnector(f->display, res->connectors[0]);
	igt_assert(c && c->count_modes);
	f->base_mode = c->modes[0];
	f->crtc = res->crtcs[0];
	f->connector = c->connector_id;
	f->mode_id_prop = primepair_prop_id(f->display, f->crtc,
					    DRM_MODE_OBJECT_CRTC, "MODE_ID");
	f->active_prop = primepair_prop_id(f->display, f->crtc,
					   DRM_MODE_OBJECT_CRTC, "ACTIVE");
	f->crtc_id_prop = primepair_prop_id(f->display, f->connector,
					    DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID");
	drmModeFreeConnector(c);
	drmModeFreeResources(res);
}

static void fuzz_one(struct fuzz *f)
{
	static void (* const ops[])(struct fuzz *) = {
		op_bo_create, op_bo_create, op_submit, op_submit, op_submit,
		op_info, op_prime, op_prime, op_dumb, op_dmabuf, op_mmap,
		op_mmap, op_close, op_mode,
	};

	errno = 0;
	if (!pick(f, 500))
		op_reopen(f);
	else if (!pick(f, 300))
		op_fork(f);
	else
		ops[pick(f, sizeof(ops) / sizeof(ops[0]))](f);
	f->ops++;
	f->errors += errno != 0;
}

igt_main
{
	static struct fuzz f;
	const char *env;
	uint64_t seed;
	double seconds;

	igt_fixture {
		env = getenv("PRIMEPAIR_FUZZ_SEED");
		seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
		env = getenv("PRIMEPAIR_FUZZ_SECONDS");
		seconds = env ? atof(env) : 10;
		igt_info("fuzz seed %llu, %.0f s (PRIMEPAIR_FUZZ_SEED=%llu to repeat)\n",
			 (unsigned long long)seed, seconds,
			 (unsigned long long)seed);
		f.rng = seed * 2 + 1;
		f.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		f.display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		find_output(&f);
		for (int i = 0; i < POOL; i++)
			f.fds[i] = i % 3 ? -1 : open("/dev/null", O_RDONLY);
		signal(SIGBUS, on_fault);
		signal(SIGSEGV, on_fault);
	}

	igt_describe("Random and structured ioctl arguments for a bounded time: the kernel stays clean and the devices keep working");
	igt_subtest("random-ioctls") {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 100; i++)
				fuzz_one(&f);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (t.tv_sec - t0.tv_sec +
			 (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
		igt_info("%lu operations, %lu failed with an errno, %lu fuzzed modes ran\n",
			 f.ops, f.errors, f.modes_on);

		signal(SIGBUS, SIG_DFL);
		signal(SIGSEGV, SIG_DFL);
		for (int i = 0; i < POOL; i++)
			if (f.fds[i] > 2 && f.fds[i] != 999)
				close(f.fds[i]);
		close(f.render);
		close(f.display);

		/* the devices still work */
		f.render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		{
			uint32_t bo = primepair_vrender_bo_create(f.render, 4096);
			uint8_t zero[4096] = { 0 };

			igt_assert_eq_u32(primepair_vrender_crc32(f.render, bo,
								  4096),
					  primepair_crc32(0, zero, 4096));
			igt_assert_eq(drmCloseBufferHandle(f.render, bo), 0);
		}
		close(f.render);
		primepair_assert_summary_zero();
	}
}

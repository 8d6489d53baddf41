// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_contract - the dma-buf contract as primebuf implements it
 *
 * Four vrender instances with different DMA constraints import each
 * other's buffers: late allocation, the placement chosen from every
 * attachment, per-device scatterlists that obey each device's segment
 * limits, migration to contiguous memory with the contents intact, the
 * map cache, CPU access through the dma-buf fd, and release across
 * processes.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <xf86drm.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

/* Instances loaded by the fixture */
enum {
	PLAIN,		/* no limits */
	SMALLSEG,	/* max_segment 8 KiB */
	BOUNDARY,	/* segments may not cross 64 KiB */
	CONTIG,		/* one contiguous segment only */
	NR_INSTANCES
};

#define SMALLSEG_MAX	8192u
#define BOUNDARY_MASK	0xffffull

#define VRENDER_PARAMS \
	"instances=4 " \
	"max_segment=4294967295,8192,4294967295,4294967295 " \
	"segment_boundary=18446744073709551615,18446744073709551615,65535,18446744073709551615 " \
	"contiguous=0,0,0,1"

#define PITCH	4096u

static int fds[NR_INSTANCES];

static uint64_t now_stat(const char *key)
{
	return primepair_summary(key);
}

/* Fill the whole buffer, PITCH bytes per row, and wait for it. */
static void fill(int fd, uint32_t handle, uint64_t size, uint32_t value)
{
	struct drm_vrender_cmd c = primepair_vrender_fill(handle, 0, PITCH, 0, 0,
							  PITCH / 4,
							  size / PITCH, value);

	primepair_vrender_submit(fd, &c, 1);
	primepair_vrender_bo_wait(fd, handle, 10ll * 1000000000);
}

static void pattern(int fd, uint32_t handle, uint64_t size, uint32_t frame)
{
	struct drm_vrender_cmd c = {
		.op = VRENDER_CMD_PATTERN,
		.dst_handle = handle,
		.dst_pitch = PITCH,
		.width = PITCH / 4,
		.height = size / PITCH,
		.value = frame,
	};

	primepair_vrender_submit(fd, &c, 1);
	primepair_vrender_bo_wait(fd, handle, 10ll * 1000000000);
}

/* Export @handle from @from and import it into @to. */
static uint32_t share(int from, uint32_t handle, int to)
{
	uint32_t imported;
	int dmabuf;

	igt_assert_eq(drmPrimeHandleToFD(from, handle, DRM_CLOEXEC, &dmabuf), 0);
	igt_assert_eq(drmPrimeFDToHandle(to, dmabuf, &imported), 0);
	close(dmabuf);
	return imported;
}

struct layout {
	uint32_t placement;
	uint32_t nsegs;
	struct drm_vrender_segment segs[4096];
};

static void get_layout(int fd, uint32_t handle, struct layout *l)
{
	struct drm_vrender_bo_info info = {
		.handle = handle,
		.segs_ptr = (uintptr_t)l->segs,
		.segs_count = 4096,
	};

	igt_assert_eq(__primepair_vrender_bo_info(fd, &info), 0);
	igt_assert_lte_u32(info.nsegs, 4096);
	l->placement = info.placement;
	l->nsegs = info.nsegs;
}

static uint64_t layout_bytes(const struct layout *l)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < l->nsegs; i++)
		sum += l->segs[i].len;
	return sum;
}

/*
 * A writer through a CPU mapping: pass p writes word p - 1 of every page
 * with the value p, so that no location is written twice and a write
 * lost anywhere stays visible.  A short sleep between passes keeps it
 * writing for the whole migration.
 */
#define WRITER_PASSES	1024

struct writer {
	uint32_t *map;
	uint32_t npages;
	atomic_bool stop;
	uint32_t passes;	/* complete passes when it stopped */
};

static void *writer_loop(void *arg)
{
	struct writer *w = arg;
	const struct timespec pause = { .tv_nsec = 100 * 1000 };
	uint32_t p;

	for (p = 1; p <= WRITER_PASSES && !atomic_load(&w->stop); p++) {
		for (uint32_t i = 0; i < w->npages; i++)
			w->map[i * 1024 + p - 1] = p;
		nanosleep(&pause, NULL);
	}
	w->passes = p - 1;
	return NULL;
}

static void close_handle(int fd, uint32_t handle)
{
	igt_assert_eq(drmCloseBufferHandle(fd, handle), 0);
}

static void open_instances(void)
{
	for (int i = 0; i < NR_INSTANCES; i++) {
		fds[i] = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER, i);
		igt_assert_eq_u64(primepair_vrender_get_param(fds[i],
						VRENDER_PARAM_INSTANCE), i);
	}
}

static void close_instances(void)
{
	for (int i = 0; i < NR_INSTANCES; i++)
		close(fds[i]);
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'x';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

igt_main
{
	igt_fixture {
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, VRENDER_PARAMS);
		open_instances();
	}

	igt_describe("A new buffer has no memory until its first use, then exactly its size");
	igt_subtest("late-allocation") {
		const uint64_t size = 1 << 20;
		uint64_t bytes = now_stat("bytes");
		struct layout l;
		uint32_t bo;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		igt_assert_eq_u64(now_stat("bytes"), bytes);
		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_NONE);
		igt_assert_eq_u32(l.nsegs, 0);

		fill(fds[PLAIN], bo, size, 0x11223344);
		igt_assert_eq_u64(now_stat("bytes"), bytes + size);
		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_PAGES);
		igt_assert_eq_u64(layout_bytes(&l), size);

		close_handle(fds[PLAIN], bo);
		igt_assert_eq_u64(primepair_summary_settle("bytes", bytes), bytes);
	}

	igt_describe("The first allocation satisfies every device attached at that moment");
	igt_subtest("placement-from-attachments") {
		const uint64_t size = 256 << 10;
		uint64_t migrations = now_stat("migrations");
		uint32_t bo, imp;
		struct layout l;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		imp = share(fds[PLAIN], bo, fds[CONTIG]);
		fill(fds[PLAIN], bo, size, 1);

		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_CONTIG);
		fill(fds[CONTIG], imp, size, 2);
		get_layout(fds[CONTIG], imp, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_IMPORTED);
		igt_assert_eq_u32(l.nsegs, 1);
		igt_assert_eq_u64(l.segs[0].len, size);
		igt_assert_eq_u64(now_stat("migrations"), migrations);

		close_handle(fds[CONTIG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("Every segment of a device's table obeys its max_segment_size; adjacent segments merge up to it");
	igt_subtest("sg-max-segment") {
		const uint64_t size = 1 << 20;
		uint32_t bo, imp;
		struct layout l;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		imp = share(fds[PLAIN], bo, fds[SMALLSEG]);
		fill(fds[SMALLSEG], imp, size, 3);

		get_layout(fds[SMALLSEG], imp, &l);
		igt_assert_eq_u64(layout_bytes(&l), size);
		igt_assert_lte_u32(size / SMALLSEG_MAX, l.nsegs);
		for (uint32_t i = 0; i < l.nsegs; i++) {
			igt_assert_lte_u64(l.segs[i].len, SMALLSEG_MAX);
			igt_assert_eq_u64(l.segs[i].len % 4096, 0);
			/* adjacent and mergeable would have been merged */
			if (i + 1 < l.nsegs &&
			    l.segs[i].addr + l.segs[i].len == l.segs[i + 1].addr)
				igt_assert_lt_u64(SMALLSEG_MAX,
						  l.segs[i].len + l.segs[i + 1].len);
		}

		close_handle(fds[SMALLSEG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("No segment crosses the device's segment boundary");
	igt_subtest("sg-segment-boundary") {
		const uint64_t size = 2 << 20;
		uint32_t bo, imp;
		struct layout l;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		imp = share(fds[PLAIN], bo, fds[BOUNDARY]);
		fill(fds[BOUNDARY], imp, size, 4);

		get_layout(fds[BOUNDARY], imp, &l);
		igt_assert_eq_u64(layout_bytes(&l), size);
		for (uint32_t i = 0; i < l.nsegs; i++) {
			uint64_t first = l.segs[i].addr;
			uint64_t last = first + l.segs[i].len - 1;

			igt_assert_eq_u64(first & ~BOUNDARY_MASK,
					  last & ~BOUNDARY_MASK);
		}

		close_handle(fds[BOUNDARY], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("A device without limits gets physically adjacent pages merged into one segment");
	igt_subtest("sg-coalesce") {
		const uint64_t size = 4 << 20;
		struct layout l;
		uint32_t bo;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		fill(fds[PLAIN], bo, size, 5);
		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u64(layout_bytes(&l), size);
		igt_assert_lte_u32(l.nsegs, size / 4096);
		for (uint32_t i = 0; i + 1 < l.nsegs; i++)
			igt_assert_neq_u64(l.segs[i].addr + l.segs[i].len,
					   l.segs[i + 1].addr);
		igt_info("4 MiB scattered buffer: %u segments\n", l.nsegs);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("Migration to contiguous memory when a contiguous-only device attaches after first use; contents intact");
	igt_subtest("migrate-to-contiguous") {
		const uint64_t size = 512 << 10;
		uint64_t migrations = now_stat("migrations");
		uint32_t bo, imp, before, after, again;
		struct layout l;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		pattern(fds[PLAIN], bo, size, 7);
		before = primepair_vrender_crc32(fds[PLAIN], bo, size);
		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_PAGES);

		imp = share(fds[PLAIN], bo, fds[CONTIG]);
		after = primepair_vrender_crc32(fds[CONTIG], imp, size);
		igt_assert_eq_u32(after, before);
		igt_assert_eq_u64(now_stat("migrations"), migrations + 1);

		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.placement, VRENDER_PLACEMENT_CONTIG);
		get_layout(fds[CONTIG], imp, &l);
		igt_assert_eq_u32(l.nsegs, 1);

		/* The exporter's own cached table was rebuilt, not reused. */
		again = primepair_vrender_crc32(fds[PLAIN], bo, size);
		igt_assert_eq_u32(again, before);
		get_layout(fds[PLAIN], bo, &l);
		igt_assert_eq_u32(l.nsegs, 1);

		close_handle(fds[CONTIG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("A thread writes through an mmap of the buffer while it migrates to contiguous memory: every write it made, before, during and after the move, is in the buffer");
	igt_subtest("migrate-under-cpu-writes") {
		const uint64_t size = 2 << 20;
		uint64_t migrations = now_stat("migrations");
		struct writer w = { .npages = size / 4096 };
		const struct timespec lead = { .tv_nsec = 20 * 1000 * 1000 };
		uint32_t bo, imp;
		pthread_t t;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		w.map = primepair_vrender_bo_mmap(fds[PLAIN], bo, size,
						  PROT_READ | PROT_WRITE);
		w.map[0] = 0;	/* backed as scattered pages, by the CPU */

		igt_assert_eq(pthread_create(&t, NULL, writer_loop, &w), 0);
		nanosleep(&lead, NULL);
		imp = share(fds[PLAIN], bo, fds[CONTIG]);
		primepair_vrender_crc32(fds[CONTIG], imp, size);
		atomic_store(&w.stop, true);
		igt_assert_eq(pthread_join(t, NULL), 0);
		igt_assert_eq_u64(now_stat("migrations"), migrations + 1);
		igt_info("writer: %u of %u passes, the buffer migrated under it\n",
			 w.passes, WRITER_PASSES);
		igt_assert_lt(0, w.passes);

		for (uint32_t i = 0; i < w.npages; i++)
			for (uint32_t p = 1; p <= WRITER_PASSES; p++)
				igt_assert_f(w.map[i * 1024 + p - 1] ==
					     (p <= w.passes ? p : 0),
					     "page %u, pass %u: 0x%08x, the writer wrote %u\n",
					     i, p, w.map[i * 1024 + p - 1],
					     p <= w.passes ? p : 0);

		munmap(w.map, size);
		close_handle(fds[CONTIG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("A buffer larger than the largest contiguous block cannot attach to a contiguous-only device");
	igt_subtest("contiguous-too-big") {
		const uint64_t size = 8 << 20;
		uint32_t bo, imp;
		int dmabuf;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], bo, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(fds[CONTIG], dmabuf, &imp), -1);
		igt_assert_eq(errno, E2BIG);
		/* other devices still import it */
		igt_assert_eq(drmPrimeFDToHandle(fds[SMALLSEG], dmabuf, &imp), 0);
		close_handle(fds[SMALLSEG], imp);
		close(dmabuf);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("A second map of an unchanged attachment is served from the cache; migration invalidates it");
	igt_subtest("map-cache") {
		const uint64_t size = 256 << 10;
		uint64_t hits, calls;
		uint32_t bo, imp;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		fill(fds[PLAIN], bo, size, 8);
		hits = now_stat("map_cache_hits");
		calls = now_stat("map_calls");
		fill(fds[PLAIN], bo, size, 9);
		igt_assert_eq_u64(now_stat("map_calls"), calls + 1);
		igt_assert_eq_u64(now_stat("map_cache_hits"), hits + 1);

		imp = share(fds[PLAIN], bo, fds[CONTIG]);
		fill(fds[CONTIG], imp, size, 10);
		hits = now_stat("map_cache_hits");
		fill(fds[PLAIN], bo, size, 11);
		igt_assert_eq_u64(now_stat("map_cache_hits"), hits);

		close_handle(fds[CONTIG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("mmap of the dma-buf fd and of the GEM handle see the bytes an importer's job sees");
	igt_subtest("cpu-access") {
		const uint64_t size = 64 << 10;
		struct dma_buf_sync sync = { 0 };
		uint32_t bo, imp, cpu_crc;
		uint32_t *map, *gem;
		int dmabuf;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], bo,
						 DRM_CLOEXEC | DRM_RDWR,
						 &dmabuf), 0);
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			   dmabuf, 0);
		igt_assert(map != MAP_FAILED);

		sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
		for (uint32_t i = 0; i < size / 4; i++)
			map[i] = i * 0x9e3779b9u;
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
		cpu_crc = primepair_crc32(0, map, size);

		imp = share(fds[PLAIN], bo, fds[SMALLSEG]);
		igt_assert_eq_u32(primepair_vrender_crc32(fds[SMALLSEG], imp,
							  size), cpu_crc);

		gem = primepair_vrender_bo_mmap(fds[PLAIN], bo, size, PROT_READ);
		igt_assert(memcmp(gem, map, size) == 0);

		/* An importer's write is what both CPU views read. */
		fill(fds[SMALLSEG], imp, size, 0xcafef00d);
		sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);
		igt_assert_eq_u32(map[0], 0xcafef00d);
		igt_assert_eq_u32(map[size / 4 - 1], 0xcafef00d);
		igt_assert_eq_u32(gem[size / 8], 0xcafef00d);
		sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), 0);

		munmap(gem, size);
		munmap(map, size);
		close(dmabuf);
		close_handle(fds[SMALLSEG], imp);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("DMA_BUF_IOCTL_SYNC rejects missing and unknown flags with EINVAL");
	igt_subtest("sync-bad-flags") {
		struct dma_buf_sync sync = { 0 };
		uint32_t bo;
		int dmabuf;

		bo = primepair_vrender_bo_create(fds[PLAIN], 4096);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], bo, DRM_CLOEXEC,
						 &dmabuf), 0);
		sync.flags = 0;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), -1);
		igt_assert_eq(errno, EINVAL);
		sync.flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ | 0x100;
		igt_assert_eq(ioctl(dmabuf, DMA_BUF_IOCTL_SYNC, &sync), -1);
		igt_assert_eq(errno, EINVAL);
		close(dmabuf);
		close_handle(fds[PLAIN], bo);
	}

	igt_describe("A job's fence leaves through EXPORT_SYNC_FILE and comes back through IMPORT_SYNC_FILE");
	igt_subtest("sync-file-roundtrip") {
		struct dma_buf_export_sync_file exp = {
			.flags = DMA_BUF_SYNC_RW,
			.fd = -1,
		};
		struct dma_buf_import_sync_file imp = {
			.flags = DMA_BUF_SYNC_WRITE,
		};
		uint32_t a, b;
		int fa, fb;
		struct pollfd pfd;

		a = primepair_vrender_bo_create(fds[PLAIN], 1 << 20);
		b = primepair_vrender_bo_create(fds[PLAIN], 4096);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], a, DRM_CLOEXEC, &fa), 0);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], b, DRM_CLOEXEC, &fb), 0);

		fill(fds[PLAIN], a, 1 << 20, 12);
		igt_assert_eq(ioctl(fa, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &exp), 0);
		igt_assert_lte(0, exp.fd);
		pfd.fd = exp.fd;
		pfd.events = POLLIN;
		igt_assert_eq(poll(&pfd, 1, 10000), 1);

		imp.fd = exp.fd;
		igt_assert_eq(ioctl(fb, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp), 0);
		/* b now carries a's (signalled) fence: waiting on it returns */
		primepair_vrender_bo_wait(fds[PLAIN], b, 10ll * 1000000000);

		imp.flags = 0x80;
		igt_assert_eq(ioctl(fb, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &imp), -1);
		igt_assert_eq(errno, EINVAL);

		close(exp.fd);
		close(fa);
		close(fb);
		close_handle(fds[PLAIN], a);
		close_handle(fds[PLAIN], b);
	}

	igt_describe("A dma-buf fd passed to another process with SCM_RIGHTS works there and is released once everyone is done");
	igt_subtest("scm-rights") {
		const uint64_t size = 128 << 10;
		uint32_t bo, crc;
		int sv[2], dmabuf, status;
		pid_t pid;

		bo = primepair_vrender_bo_create(fds[PLAIN], size);
		pattern(fds[PLAIN], bo, size, 3);
		crc = primepair_vrender_crc32(fds[PLAIN], bo, size);
		igt_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

		pid = fork();
		igt_assert_lte(0, pid);
		if (pid == 0) {
			int fd, buf, ok;
			uint32_t imp;

			close(sv[0]);
			buf = recv_fd(sv[1]);
			fd = primepair_open_render_nth(PRIMEPAIR_RENDER_DRIVER,
						       SMALLSEG);
			ok = buf >= 0 && drmPrimeFDToHandle(fd, buf, &imp) == 0 &&
			     primepair_vrender_crc32(fd, imp, size) == crc;
			close(buf);
			close(fd);
			_exit(ok ? 0 : 1);
		}
		close(sv[1]);
		igt_assert_eq(drmPrimeHandleToFD(fds[PLAIN], bo, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(send_fd(sv[0], dmabuf), 0);
		close(dmabuf);
		close_handle(fds[PLAIN], bo);
		close(sv[0]);

		igt_assert_eq(waitpid(pid, &status, 0), pid);
		igt_assert(WIFEXITED(status));
		igt_assert_eq(WEXITSTATUS(status), 0);
		igt_assert_eq_u64(primepair_summary_settle("buffers", 0), 0);
		igt_assert_eq_u64(primepair_summary_settle("imports", 0), 0);
	}

	igt_fixture {
		close_instances();
		primepair_assert_summary_zero();
		primepair_reload_module(PRIMEPAIR_RENDER_DRIVER, "");
	}
}

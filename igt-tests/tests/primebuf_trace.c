// SPDX-License-Identifier: GPL-2.0
/*
 * primebuf_trace - the tracepoints tell a buffer's whole life
 *
 * With the primebuf trace events enabled, a vdisplay buffer goes through
 * export, import into vrender, a job and every close; the trace must show
 * each step in order for that buffer, with one release per buffer.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_vrender.h"

static const char *tracefs(void)
{
	if (access("/sys/kernel/tracing/trace", W_OK) == 0)
		return "/sys/kernel/tracing";
	if (access("/sys/kernel/debug/tracing/trace", W_OK) == 0)
		return "/sys/kernel/debug/tracing";
	return NULL;
}

static void write_file(const char *dir, const char *name, const char *val)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	igt_assert_f(fd >= 0, "open %s: %s\n", path, strerror(errno));
	igt_assert_eq(write(fd, val, strlen(val)), (int)strlen(val));
	close(fd);
}

static char *read_trace(const char *dir)
{
	char path[256];
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", dir);
	fd = open(path, O_RDONLY);
	igt_assert_lte(0, fd);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Events of buffer @id, in order, as "export import ..." */
static void events_of(const char *trace, unsigned long id, char *out,
		      size_t outlen)
{
	char needle[64];
	const char *line = trace;

	snprintf(needle, sizeof(needle), "buffer=%lu ", id);
	out[0] = '\0';
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		const char *ev = strstr(line, ": primebuf_");
		const char *hit = strstr(line, needle);

		if (ev && hit && (!eol || (ev < eol && hit < eol))) {
			const char *colon;

			ev += 2;	/* skip ": " before the event name */
			colon = strchr(ev, ':');
			size_t n = colon ? (size_t)(colon - ev) : 0;

			if (n && strlen(out) + n + 2 < outlen) {
				strncat(out, ev + strlen("primebuf_"),
					n - strlen("primebuf_"));
				strcat(out, " ");
			}
		}
		line = eol ? eol + 1 : NULL;
	}
}

/* The buffer id of the first @event in the trace */
static unsigned long first_id(const char *trace, const char *event)
{
	char pattern[64];
	const char *ev, *id;

	/* The event name follows the timestamp's ": " */
	snprintf(pattern, sizeof(pattern), ": %s", event);
	ev = strstr(trace, pattern);

	igt_assert_f(ev, "no %s event in the trace\n", event);
	id = strstr(ev, "buffer=");
	igt_assert(id);
	return strtoul(id + strlen("buffer="), NULL, 10);
}

/*
 * Whether the trace records each task's name ("record-cmd"), or -1 where
 * the option is not there.
 */
static int record_cmd(const char *dir)
{
	char path[256], val = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/options/record-cmd", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	igt_assert_eq(read(fd, &val, 1), 1);
	close(fd);
	return val == '1';
}

igt_main
{
	const char *dir = NULL;
	int saved_record_cmd = -1;

	igt_fixture {
		dir = tracefs();
		igt_require_f(dir, "tracefs not available\n");
		/*
		 * With record-cmd on, enabling any event also hooks
		 * sched_switch and sched_wakeup, so the kernel patches the
		 * scheduler's own code, which every CPU runs all the time,
		 * twice per run. Under QEMU's software emulation a CPU has
		 * been seen to run the breakpoint of such a patch after it
		 * was gone, an "Oops: int3" in __schedule() (7.3.4, TCG).
		 * The test reads only our events' fields, not task names:
		 * keep the scheduler's code as it is.
		 */
		saved_record_cmd = record_cmd(dir);
		if (saved_record_cmd == 1)
			write_file(dir, "options/record-cmd", "0");
		write_file(dir, "events/primebuf/enable", "1");
	}

	igt_describe("export, import, attach, alloc, map, unmap, detach and release of one buffer appear in order, release once");
	igt_subtest("buffer-life") {
		uint32_t dumb, pitch, import;
		int display, render, dmabuf;
		char events[1024];
		unsigned long id;
		uint64_t size;
		char *trace;

		write_file(dir, "trace", "");
		display = primepair_open_driver(PRIMEPAIR_DISPLAY_DRIVER);
		render = primepair_open_render(PRIMEPAIR_RENDER_DRIVER);
		igt_assert_eq(drmModeCreateDumbBuffer(display, 64, 64, 32, 0,
						      &dumb, &pitch, &size), 0);
		igt_assert_eq(drmPrimeHandleToFD(display, dumb, DRM_CLOEXEC,
						 &dmabuf), 0);
		igt_assert_eq(drmPrimeFDToHandle(render, dmabuf, &import), 0);
		primepair_vrender_crc32(render, import, size);
		igt_assert_eq(drmCloseBufferHandle(render, import), 0);
		close(dmabuf);
		igt_assert_eq(drmModeDestroyDumbBuffer(display, dumb), 0);
		close(render);
		close(display);

		trace = read_trace(dir);
		igt_debug("%s", trace);
		id = first_id(trace, "primebuf_export:");
		events_of(trace, id, events, sizeof(events));
		igt_info("buffer %lu: %s\n", id, events);
		igt_assert_f(strcmp(events,
				    "export attach alloc map unmap detach release ") == 0,
			     "unexpected event sequence: %s\n", events);
		/* The import object is released once too. */
		events_of(trace, first_id(trace, "primebuf_import:"), events,
			  sizeof(events));
		igt_assert_f(strcmp(events, "import release ") == 0,
			     "unexpected import events: %s\n", events);
		free(trace);
	}

	igt_fixture {
		write_file(dir, "events/primebuf/enable", "0");
		if (saved_record_cmd == 1)
			write_file(dir, "options/record-cmd", "1");
	}
}

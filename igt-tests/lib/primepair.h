/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair.h - helpers shared by primepair's IGT-style tests.
 *
 * Built on the IGT core API and on libprimepair (lib/libprimepair), whose
 * error-returning functions these wrap with skips and assertions, so this
 * file and primepair.c work both with the standalone library next to them
 * and inside an IGT tree.
 */
#ifndef PRIMEPAIR_H
#define PRIMEPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libprimepair.h"

/* DRM driver names (drmVersion.name) */
#define PRIMEPAIR_DISPLAY_DRIVER	PP_DISPLAY_DRIVER
#define PRIMEPAIR_RENDER_DRIVER		PP_RENDER_DRIVER

/* primebuf's accounting file: one "name: value" line per counter */
#define PRIMEPAIR_SUMMARY_PATH		PP_SUMMARY_PATH

/*
 * Subtest cleanups.  A subtest that starts threads, or leaves a flip in
 * flight whose event points at its stack, must undo that however it ends:
 * a failed assertion siglongjmp()s out of it, and the next subtest of the
 * same process would find the threads still running on a dead stack, or
 * the event arriving there.  So it pushes a cleanup for each such thing.
 * With this directory's IGT library, every cleanup still pushed when the
 * subtest ends (pass, skip, failure or crash) runs then, last pushed
 * first, before the result line, with the subtest's locals still alive.
 * primepair_subtest_cleanup_pop() removes the last one and runs it if
 * @run.  Inside an IGT tree they only push and pop: igt_runner runs each
 * subtest in a process of its own, whose exit releases what it held.
 */
void primepair_subtest_cleanup_push(void (*fn)(void *data), void *data);
void primepair_subtest_cleanup_pop(bool run);

/*
 * Open the primary node (/dev/dri/card*) or the render node
 * (/dev/dri/renderD*) of the @n-th device (0-based, in minor order) driven
 * by @driver_name. Skip the current subtest (igt_require_f) if there is none.
 * The fd is opened O_RDWR | O_CLOEXEC; the caller closes it.
 */
int primepair_open_driver_nth(const char *driver_name, unsigned int n);
int primepair_open_render_nth(const char *driver_name, unsigned int n);
int primepair_open_driver(const char *driver_name);
int primepair_open_render(const char *driver_name);

/*
 * Open the device a tool's --device option names: a path ("/dev/dri/..."),
 * a driver name ("vrender") or a driver name and index ("vrender:1"); NULL
 * means @default_driver.  The render node if @render, else the primary
 * node.  Returns the fd, or -1 with errno set (ENODEV: no such device).
 */
int primepair_open_device(const char *spec, const char *default_driver,
			  bool render);

/*
 * primepair_open_device() for a tool or test that cannot go on without the
 * device: skips (igt_require_f), naming @spec and the errno, if it fails.
 */
int primepair_require_device(const char *spec, const char *default_driver,
			     bool render);

/*
 * The tools' device options, for igt_simple_main_args(): --display SPEC
 * names the KMS device, --render SPEC the render node, and --device SPEC,
 * on a tool that opens one device, the render node.  List the options in
 * the tool's struct option array and their help lines in its help text;
 * primepair_device_opt() stores their arguments in the
 * struct primepair_device_specs its @data points to (an igt_opt_handler_t
 * of its own, or called from the tool's handler for the tool's other
 * options).  Unset specs stay NULL: primepair_require_device() then opens
 * the default driver.
 */
struct primepair_device_specs {
	const char *display;
	const char *render;
};

#define PRIMEPAIR_OPT_DISPLAY	0x2000
#define PRIMEPAIR_OPT_RENDER	0x2001

#define PRIMEPAIR_DISPLAY_OPTION \
	{ "display", required_argument, NULL, PRIMEPAIR_OPT_DISPLAY }
#define PRIMEPAIR_RENDER_OPTION \
	{ "render", required_argument, NULL, PRIMEPAIR_OPT_RENDER }
#define PRIMEPAIR_DEVICE_OPTION \
	{ "device", required_argument, NULL, PRIMEPAIR_OPT_RENDER }

#define PRIMEPAIR_DISPLAY_HELP \
	"  --display SPEC   KMS device: path, driver name or NAME:N (default vdisplay)\n"
#define PRIMEPAIR_RENDER_HELP \
	"  --render SPEC    render node: path, driver name or NAME:N (default vrender)\n"
#define PRIMEPAIR_DEVICE_HELP \
	"  --device SPEC    render node: path, driver name or NAME:N (default vrender)\n"

int primepair_device_opt(int opt, int opt_index, void *data);

/*
 * The directory of the project's tools (build/bin, or libexec/primepair
 * once installed): the parent of the test binary's "tests" directory.
 */
const char *primepair_tools_dir(void);

/*
 * Read the value of @key from a file of "name: value" lines. The value is
 * decimal or 0x-prefixed hex and may be followed by blanks and free text.
 * Returns false if the file cannot be read or has no such numeric line.
 */
bool primepair_debugfs_read_u64(const char *file, const char *key,
				uint64_t *val);

/*
 * The DMA segments primebuf's debugfs "buffers" file lists as mapped for
 * @device (a dev_name(), "vrender.0"), over every buffer: those of the
 * mappings primebuf keeps between uses included.
 */
unsigned int primepair_mapped_segments(const char *device);

/*
 * Assert that every numeric value in @file is 0; the failure message names
 * the first counter that is not.
 */
void primepair_debugfs_assert_zero(const char *file);

/*
 * Wait up to 2 s for @key to read @expected and return its last value: a
 * job's last reference, or a dma-buf's final fput, may be dropped by a
 * kernel thread a moment after userspace closed its side.
 */
uint64_t primepair_summary_settle(const char *key, uint64_t expected);

/* @key's value in PRIMEPAIR_SUMMARY_PATH; asserts that it exists. */
uint64_t primepair_summary(const char *key);

/*
 * The summary's counters of live objects: all read 0 when nothing is
 * allocated, attached, mapped or exported.  The other lines (created,
 * released, migrations) are totals since the module was loaded.  A list
 * of string literals, each followed by a comma, for an array initializer;
 * the list itself is libprimepair's live_counters.h.
 */
#define PRIMEPAIR_COUNTER_STRING(name)	#name,
#define PRIMEPAIR_LIVE_COUNTERS		PP_LIVE_COUNTERS(PRIMEPAIR_COUNTER_STRING)

/*
 * Every live counter of PRIMEPAIR_SUMMARY_PATH is 0: nothing leaked.  After
 * a failed subtest, whose cleanup did not run, they are only reported.
 */
void primepair_assert_summary_zero(void);

/*
 * CRC-32 as in IEEE 802.3 and zlib's crc32(): reflected polynomial
 * 0xEDB88320, register preset to ~0 and inverted at the end. Start with
 * @crc = 0 and feed the previous result back to continue over more data.
 */
uint32_t primepair_crc32(uint32_t crc, const void *buf, size_t len);

/*
 * Write a marker line naming the test and subtest to the kernel log
 * ("primepair-igt: TEST/SUBTEST: mark") and return an fd of /dev/kmsg
 * positioned just before it, for primepair_kmsg_find(); -1 (with errno) if
 * /dev/kmsg cannot be both read and written. The caller closes the fd.
 */
int primepair_kmsg_mark(void);

/*
 * Read the kernel log records after the mark on @fd (as returned by
 * primepair_kmsg_mark(); consumed) and tell whether any contains @needle.
 */
bool primepair_kmsg_find(int fd, const char *needle);

/*
 * Reload a primepair module with @params (e.g. "instances=3
 * contiguous=0,0,1"); skips when not root.  Every fd of the module's
 * devices must be closed.  primepair_reload_module(name, "") restores the
 * defaults.
 */
void primepair_reload_module(const char *name, const char *params);

/* Write @value to the sysfs (or any) file @path; asserts it all went. */
void primepair_sysfs_write(const char *path, const char *value);

/*
 * A cgroup v2 group /sys/fs/cgroup/@name whose memory.max is @max (as the
 * file takes it, "64M") and which may not swap; skips without the memory
 * controller, mounting cgroup2 first if nothing is mounted there.
 */
void primepair_memcg_create(const char *name, const char *max);
/* Move the calling process into group @name; 0 or -errno, no assert. */
int primepair_memcg_join(const char *name);
/* Remove group @name once its processes are gone (no error if absent). */
void primepair_memcg_remove(const char *name);

/*
 * One suspend cycle at the kernel's pm_test @level ("devices", "core",
 * ...): every driver's suspend and resume callbacks run and the machine
 * does not sleep.  Skips when pm_test is missing or a virtio-9p
 * filesystem is in reach (its transport has no freeze or restore, so
 * every later access would hang: run such tests from tools/vm-run -l);
 * asserts that the kernel counts one more successful suspend.
 */
void primepair_suspend_cycle(const char *level);
/*
 * The same, but a suspend that a driver refuses is no failure: returns 0,
 * or the -errno of the write to /sys/power/state (the kernel then counts
 * no successful suspend).
 */
int __primepair_suspend_cycle(const char *level);

/*
 * A socket on the kernel's uevents (skips the subtest if none can be
 * opened), and whether a DRM hotplug uevent ("change" with HOTPLUG=1)
 * arrives on it within a second.  The caller closes the socket.
 */
int primepair_uevent_open(void);
bool primepair_uevent_hotplug(int fd);

/*
 * A dma-buf of @size bytes (1 to 1 MiB; need not be a multiple of the page
 * size) from primebuf_selftest's test exporter, which stands for a foreign
 * exporter; returns its fd or -errno.
 */
int primepair_selftest_export(uint64_t size);

#endif /* PRIMEPAIR_H */

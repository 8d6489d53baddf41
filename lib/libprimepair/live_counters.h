/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live_counters.h - primebuf's counters of live objects, the one list.
 *
 * Each names a line of /sys/kernel/debug/primebuf/summary that reads 0
 * when nothing is allocated, attached, mapped or exported; the summary's
 * other lines (created, released, migrations, ...) are totals since the
 * module was loaded.  The C code expands the list with an X-macro, and
 * tools/guest-suite reads the PP_LIVE_COUNTER(name) lines of this file
 * with sed, so keep exactly one such line per counter.
 */
#ifndef LIBPRIMEPAIR_LIVE_COUNTERS_H
#define LIBPRIMEPAIR_LIVE_COUNTERS_H

#define PP_LIVE_COUNTERS(PP_LIVE_COUNTER) \
	PP_LIVE_COUNTER(buffers) \
	PP_LIVE_COUNTER(imports) \
	PP_LIVE_COUNTER(exports) \
	PP_LIVE_COUNTER(attachments) \
	PP_LIVE_COUNTER(mappings) \
	PP_LIVE_COUNTER(vmaps) \
	PP_LIVE_COUNTER(bytes)

#endif /* LIBPRIMEPAIR_LIVE_COUNTERS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igt_aux.h - assorted helpers of IGT GPU Tools, the few our tests use.
 */
#ifndef IGT_AUX_H
#define IGT_AUX_H

#include <stdint.h>
#include <time.h>

#include "igt_core.h"

/*
 * igt_until_timeout: repeat the block until @timeout seconds (may be
 * fractional) have passed since the loop was entered. The first check
 * starts the clock, so any @timeout > 0 runs the block at least once.
 */
#define igt_until_timeout(timeout) \
	for (struct timespec igt_unique(__t0) = { 0, 0 }; \
	     igt_nsec_elapsed(&igt_unique(__t0)) / 1e9 < (timeout); )

#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#endif

#ifndef min
#define min(a, b) ({ \
	typeof(a) __igt_min_a = (a); \
	typeof(b) __igt_min_b = (b); \
	__igt_min_a < __igt_min_b ? __igt_min_a : __igt_min_b; })
#endif

#ifndef max
#define max(a, b) ({ \
	typeof(a) __igt_max_a = (a); \
	typeof(b) __igt_max_b = (b); \
	__igt_max_a > __igt_max_b ? __igt_max_a : __igt_max_b; })
#endif

#endif /* IGT_AUX_H */

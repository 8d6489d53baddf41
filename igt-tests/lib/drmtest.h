/* SPDX-License-Identifier: GPL-2.0 */
/*
 * drmtest.h - the part of IGT GPU Tools' drmtest.h our tests use: the
 * do_ioctl() checks and a few size macros. Opening devices is done with
 * primepair_open_driver() and friends (primepair.h) instead of
 * drm_open_driver(), which knows no primepair driver.
 */
#ifndef DRMTEST_H
#define DRMTEST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <xf86drm.h>

#include "igt_core.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

#ifndef ALIGN
#define ALIGN(v, a) (((v) + (typeof(v))(a) - 1) & ~((typeof(v))(a) - 1))
#endif

/* do_or_die: assert that @x evaluates to 0. */
#define do_or_die(x) igt_assert((x) == 0)

/*
 * do_ioctl: issue @ioc on @fd through igt_ioctl and assert it succeeded;
 * errno is cleared afterwards so that it cannot leak into a later message.
 */
#define do_ioctl(fd, ioc, ioc_data) do { \
	igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), 0); \
	errno = 0; \
} while (0)

/* do_ioctl_err: issue @ioc and assert it failed with errno @err. */
#define do_ioctl_err(fd, ioc, ioc_data, err) do { \
	igt_assert_eq(igt_ioctl((fd), (ioc), (ioc_data)), -1); \
	igt_assert_eq(errno, (err)); \
	errno = 0; \
} while (0)

#endif /* DRMTEST_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - what every benchmark program needs to stop on an error.
 * Benchmarks print figures and stop at the first failure; libprimepair,
 * which they share with the tools, only returns errors.
 */
#ifndef PRIMEPAIR_BENCH_H
#define PRIMEPAIR_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print "<program>: <message>" to stderr and exit with status 1. */
__attribute__((noreturn, format(printf, 1, 2)))
static inline void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * Go on only if @ret is 0.  Takes both conventions: a negative errno
 * (libprimepair, most of libdrm's mode calls) and -1 with errno set
 * (drmIoctl() and the calls that return it, such as drmSetClientCap()).
 */
static inline void check(int ret, const char *what)
{
	if (ret)
		die("%s: %s", what, strerror(ret == -1 ? errno : -ret));
}

#endif /* PRIMEPAIR_BENCH_H */

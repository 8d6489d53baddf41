/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igt_core.h - the subtest framework of IGT GPU Tools, reimplemented.
 *
 * Test programs written against IGT's core API build unchanged against this
 * header and against an upstream IGT tree. Only the subset primepair's tests
 * need is here; names, control flow, output lines and exit codes follow IGT.
 *
 * Control flow: igt_fixture and igt_subtest are for-loops that run their
 * block at most once. Each arms igt_subtest_jmpbuf with sigsetjmp() before
 * entering the block; a skip, failure or success siglongjmp()s back there,
 * which ends the loop, and the test continues with what follows the block.
 */
#ifndef IGT_CORE_H
#define IGT_CORE_H

#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>

#ifndef IGT_LOG_DOMAIN
#define IGT_LOG_DOMAIN (NULL)
#endif

#ifndef __noreturn
#define __noreturn __attribute__((noreturn))
#endif
#ifndef __maybe_unused
#define __maybe_unused __attribute__((unused))
#endif

/* Exit codes, as the piglit and igt_runner result parsers expect them. */
#define IGT_EXIT_SUCCESS	0
#define IGT_EXIT_SKIP		77
#define IGT_EXIT_INVALID	79
#define IGT_EXIT_FAILURE	98
#define IGT_EXIT_ABORT		112

#define MSEC_PER_SEC		(1000ull)
#define USEC_PER_SEC		(1000ull * MSEC_PER_SEC)
#define NSEC_PER_SEC		(1000ull * USEC_PER_SEC)

/* Shown by --help-description. */
extern const char *__igt_test_description __attribute__((weak));
#define IGT_TEST_DESCRIPTION(str) const char *__igt_test_description = str

/* Token helpers: a name made unique per source line. */
#define __igt_tokencat2(x, y) x ## y
#define igt_tokencat(x, y) __igt_tokencat2(x, y)
#define igt_unique(prefix) \
	igt_tokencat(igt_tokencat(__igt_unique__, prefix), __LINE__)

/* ---- command line and main ---------------------------------------- */

struct option;
typedef int (*igt_opt_handler_t)(int opt, int opt_index, void *data);
#define IGT_OPT_HANDLER_SUCCESS 0
#define IGT_OPT_HANDLER_ERROR -2

int igt_subtest_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data);
void igt_simple_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data);
#define igt_subtest_init(argc, argv) \
	igt_subtest_init_parse_opts(&(argc), (argv), NULL, NULL, NULL, NULL, NULL)
#define igt_simple_init(argc, argv) \
	igt_simple_init_parse_opts(&(argc), (argv), NULL, NULL, NULL, NULL, NULL)

/*
 * igt_main_args / igt_main: stand in for main() of a test with subtests; the
 * block that follows becomes the body. igt_simple_main: same for a test
 * without subtests, where the whole body is the single test.
 */
#define __igt_main_with(init, sopts, lopts, help, handler, data) \
	static void igt_unique(__igt_body)(void); \
	int main(int argc, char **argv) \
	{ \
		init(&argc, argv, sopts, lopts, help, handler, data); \
		igt_unique(__igt_body)(); \
		igt_exit(); \
	} \
	static void igt_unique(__igt_body)(void)

#define igt_main_args(sopts, lopts, help, handler, data) \
	__igt_main_with(igt_subtest_init_parse_opts, \
			sopts, lopts, help, handler, data)
#define igt_simple_main_args(sopts, lopts, help, handler, data) \
	__igt_main_with(igt_simple_init_parse_opts, \
			sopts, lopts, help, handler, data)

/* ---- fixtures, subtests, groups ------------------------------------ */

extern sigjmp_buf igt_subtest_jmpbuf;

bool __igt_fixture(void);
void __igt_fixture_complete(void);
__noreturn void __igt_fixture_end(void);
bool __igt_run_subtest(const char *name, const char *file, int line);
__attribute__((format(printf, 3, 4)))
const char *__igt_format_name(char *buf, size_t size, const char *fmt, ...);
int __igt_subtest_group_save(void);
void __igt_subtest_group_restore(int saved);

/*
 * igt_fixture: set-up and tear-down code shared by subtests. Not run when only
 * listing subtests, nor after an earlier fixture skipped or failed. A skip in
 * it skips every later subtest (of the enclosing group), a failure fails them.
 */
#define __igt_fixture_block \
	for (volatile int igt_unique(__fx) = __igt_fixture(); \
	     igt_unique(__fx) && sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_unique(__fx) = 0, __igt_fixture_complete())

/*
 * igt_subtest: a named subtest; its block runs only when the command line
 * selects it. The block ends in igt_success() unless it skipped or failed.
 */
#define igt_subtest(name) \
	for (; __igt_run_subtest((name), __FILE__, __LINE__) && \
	       sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())

#define __igt_subtest_f(buf, ...) \
	for (char buf[256]; \
	     __igt_run_subtest(__igt_format_name(buf, sizeof(buf), __VA_ARGS__), \
			       __FILE__, __LINE__) && \
	     sigsetjmp(igt_subtest_jmpbuf, 1) == 0; \
	     igt_success())
#define igt_subtest_f(...) __igt_subtest_f(igt_unique(__name), __VA_ARGS__)

/*
 * igt_subtest_group: scopes the effect of a fixture's skip or failure to the
 * subtests inside the group.
 */
#define __igt_subtest_group_block \
	for (int igt_unique(__grp) = __igt_subtest_group_save(), \
	     igt_unique(__once) = 1; igt_unique(__once); \
	     igt_unique(__once) = 0, \
	     __igt_subtest_group_restore(igt_unique(__grp)))

/*
 * IGT up to release 2.2 spells the blocks without parentheses (igt_main,
 * igt_fixture, ...); later IGT requires igt_main(), igt_fixture(),
 * igt_subtest_group() and igt_simple_main(). Define
 * PRIMEPAIR_IGT_PAREN_BLOCKS before including igt.h to get the latter.
 */
#ifdef PRIMEPAIR_IGT_PAREN_BLOCKS
#define igt_main() igt_main_args(NULL, NULL, NULL, NULL, NULL)
#define igt_simple_main() igt_simple_main_args(NULL, NULL, NULL, NULL, NULL)
#define igt_fixture() __igt_fixture_block
#define igt_subtest_group() __igt_subtest_group_block
#else
#define igt_main igt_main_args(NULL, NULL, NULL, NULL, NULL)
#define igt_simple_main igt_simple_main_args(NULL, NULL, NULL, NULL, NULL)
#define igt_fixture __igt_fixture_block
#define igt_subtest_group __igt_subtest_group_block
#endif

const char *igt_test_name(void);
const char *igt_subtest_name(void);
bool igt_only_list_subtests(void);
bool igt_can_fail(void);
/* Whether a subtest (or fixture) of this run has failed so far */
bool igt_failed(void);

__attribute__((format(printf, 1, 2)))
void igt_describe_f(const char *fmt, ...);
#define igt_describe(dsc) igt_describe_f("%s", (dsc))

/* ---- results ------------------------------------------------------- */

void igt_success(void);
__noreturn void igt_fail(int exitcode);
__noreturn __attribute__((format(printf, 1, 2)))
void igt_skip(const char *fmt, ...);
__noreturn void igt_exit(void);

__noreturn __attribute__((format(printf, 5, 6)))
void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *fmt, ...);
__noreturn __attribute__((format(printf, 6, 7)))
void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion,
		       const char *fmt, ...);

#define igt_skip_check(check, ...) \
	__igt_skip_check(__FILE__, __LINE__, __func__, (check), __VA_ARGS__)

/* Assertions: fail the current subtest (or fixture) when they do not hold. */
#define igt_assert(expr) do { \
	if (!(expr)) \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
				  __func__, #expr, NULL); \
} while (0)

#define igt_assert_f(expr, ...) do { \
	if (!(expr)) \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
				  __func__, #expr, __VA_ARGS__); \
} while (0)

#define igt_fail_on(expr) igt_assert(!(expr))
#define igt_fail_on_f(expr, ...) igt_assert_f(!(expr), __VA_ARGS__)

/*
 * Comparisons that print both values on failure. Each operand is evaluated
 * once, converted to @type; @op is the comparison, @nop its negation (shown
 * in the message), @fmt the printf conversion for @type.
 */
#define __igt_assert_cmp(type, fmt, a, op, nop, b) do { \
	type __igt_l = (a), __igt_r = (b); \
	if (!(__igt_l op __igt_r)) \
		__igt_fail_assert(IGT_LOG_DOMAIN, __FILE__, __LINE__, \
				  __func__, #a " " #op " " #b, \
				  "error: " fmt " " #nop " " fmt "\n", \
				  __igt_l, __igt_r); \
} while (0)

#define igt_assert_cmpint(a, op, nop, b) \
	__igt_assert_cmp(int, "%d", a, op, nop, b)
#define igt_assert_cmpuint(a, op, nop, b) \
	__igt_assert_cmp(uint32_t, "%#x", a, op, nop, b)
#define igt_assert_cmps64(a, op, nop, b) \
	__igt_assert_cmp(long long, "%lld", a, op, nop, b)
#define igt_assert_cmpu64(a, op, nop, b) \
	__igt_assert_cmp(unsigned long long, "%#llx", a, op, nop, b)
#define igt_assert_cmpdouble(a, op, nop, b) \
	__igt_assert_cmp(double, "%#lf", a, op, nop, b)

#define igt_assert_eq(a, b)		igt_assert_cmpint(a, ==, !=, b)
#define igt_assert_neq(a, b)		igt_assert_cmpint(a, !=, ==, b)
#define igt_assert_lt(a, b)		igt_assert_cmpint(a, <, >=, b)
#define igt_assert_lte(a, b)		igt_assert_cmpint(a, <=, >, b)
#define igt_assert_eq_u32(a, b)		igt_assert_cmpuint(a, ==, !=, b)
#define igt_assert_neq_u32(a, b)	igt_assert_cmpuint(a, !=, ==, b)
#define igt_assert_lt_u32(a, b)		igt_assert_cmpuint(a, <, >=, b)
#define igt_assert_lte_u32(a, b)	igt_assert_cmpuint(a, <=, >, b)
#define igt_assert_eq_s64(a, b)		igt_assert_cmps64(a, ==, !=, b)
#define igt_assert_lt_s64(a, b)		igt_assert_cmps64(a, <, >=, b)
#define igt_assert_lte_s64(a, b)	igt_assert_cmps64(a, <=, >, b)
#define igt_assert_eq_u64(a, b)		igt_assert_cmpu64(a, ==, !=, b)
#define igt_assert_neq_u64(a, b)	igt_assert_cmpu64(a, !=, ==, b)
#define igt_assert_lt_u64(a, b)		igt_assert_cmpu64(a, <, >=, b)
#define igt_assert_lte_u64(a, b)	igt_assert_cmpu64(a, <=, >, b)
#define igt_assert_eq_double(a, b)	igt_assert_cmpdouble(a, ==, !=, b)

#define igt_assert_fd(fd) \
	igt_assert_f((fd) >= 0, "file descriptor " #fd " failed\n")

/* Requirements: skip the current subtest (or fixture) when not met. */
#define igt_require(expr) do { \
	if (!(expr)) \
		igt_skip_check(#expr, NULL); \
	igt_debug("Test requirement passed: %s\n", #expr); \
} while (0)

#define igt_require_f(expr, ...) do { \
	if (!(expr)) \
		igt_skip_check(#expr, __VA_ARGS__); \
	igt_debug("Test requirement passed: %s\n", #expr); \
} while (0)

#define igt_skip_on(expr) do { \
	if (expr) \
		igt_skip_check("!(" #expr ")", NULL); \
	igt_debug("Test requirement passed: !(%s)\n", #expr); \
} while (0)

#define igt_skip_on_f(expr, ...) do { \
	if (expr) \
		igt_skip_check("!(" #expr ")", __VA_ARGS__); \
	igt_debug("Test requirement passed: !(%s)\n", #expr); \
} while (0)

#define igt_require_fd(fd) \
	igt_require_f((fd) >= 0, "file descriptor " #fd " failed\n")

/* ---- child processes ----------------------------------------------- */

bool __igt_fork(void);
int __igt_waitchildren(void);
void igt_waitchildren(void);
void igt_kill_children(int sig);

/*
 * igt_fork: run the block in @num_children child processes; @child is the
 * index of each. Collect them with igt_waitchildren(), which fails the
 * subtest if any child failed. Children may assert, not skip.
 */
#define igt_fork(child, num_children) \
	for (int child = 0; child < (num_children); child++) \
		for (; __igt_fork(); exit(IGT_EXIT_SUCCESS))

/* ---- subtest cleanups (this library's own, not upstream IGT's) ---- */

/*
 * Defined here only, so that primepair.c can tell this library from
 * upstream IGT's.  Tests use primepair_subtest_cleanup_push() and _pop()
 * (primepair.h), which land here: as a subtest ends, however it ends, the
 * cleanups still pushed run, last pushed first, before its result line.
 * On a failure that is on the stack of the failed assertion, so the
 * subtest's locals are still alive.  A cleanup that fails an assertion
 * fails the subtest, and the cleanups below it still run.
 */
#define PRIMEPAIR_IGT_LITE 1
void __igt_subtest_cleanup_push(void (*fn)(void *data), void *data);
void __igt_subtest_cleanup_pop(bool run);

/* ---- exit handlers ------------------------------------------------- */

/* Called with the signal number, or 0 on a normal exit; last installed first. */
typedef void (*igt_exit_handler_t)(int sig);
void igt_install_exit_handler(igt_exit_handler_t fn);

/* ---- logging ------------------------------------------------------- */

enum igt_log_level {
	IGT_LOG_DEBUG,
	IGT_LOG_INFO,
	IGT_LOG_WARN,
	IGT_LOG_CRITICAL,
	IGT_LOG_NONE,
};

extern enum igt_log_level igt_log_level;

__attribute__((format(printf, 3, 4)))
void igt_log(const char *domain, enum igt_log_level level,
	     const char *fmt, ...);
__attribute__((format(printf, 3, 0)))
void igt_vlog(const char *domain, enum igt_log_level level,
	      const char *fmt, va_list args);

#define igt_debug(...)    igt_log(IGT_LOG_DOMAIN, IGT_LOG_DEBUG, __VA_ARGS__)
#define igt_info(...)     igt_log(IGT_LOG_DOMAIN, IGT_LOG_INFO, __VA_ARGS__)
#define igt_warn(...)     igt_log(IGT_LOG_DOMAIN, IGT_LOG_WARN, __VA_ARGS__)
#define igt_critical(...) igt_log(IGT_LOG_DOMAIN, IGT_LOG_CRITICAL, __VA_ARGS__)

/* ---- time ---------------------------------------------------------- */

/*
 * igt_nsec_elapsed: nanoseconds since *@start; a zeroed *@start is set to
 * now on the first call (which returns 0).
 */
uint64_t igt_nsec_elapsed(struct timespec *start);

static inline uint32_t igt_seconds_elapsed(struct timespec *start)
{
	return igt_nsec_elapsed(start) / NSEC_PER_SEC;
}

#endif /* IGT_CORE_H */

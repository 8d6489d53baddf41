// SPDX-License-Identifier: GPL-2.0
/*
 * igt_core.c - subtest bookkeeping, results, logging, forking and exit
 * handling for the IGT-compatible test library.
 *
 * State machine in brief: a test is either "with subtests" (igt_main) or
 * "simple" (igt_simple_main). With subtests, the body runs top to bottom
 * once; each fixture block runs unless an earlier fixture gave up, each
 * subtest block runs when selected. A result inside a subtest prints its
 * "Subtest NAME: RESULT (t)" line and siglongjmp()s out of the block. A skip
 * or failure inside a fixture sets skip_henceforth so that every later
 * subtest reports that result without running; igt_subtest_group saves and
 * restores skip_henceforth around its block.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "igt_core.h"

#define PP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum skip_henceforth {
	CONTINUE = 0,
	SKIP,
	FAIL,
};

sigjmp_buf igt_subtest_jmpbuf;
enum igt_log_level igt_log_level = IGT_LOG_INFO;

static const char *test_name = "igt-test";
static bool with_subtests;
static bool plain_output = true;

/* command line */
static bool list_subtests;
static bool show_testlist;
static char *run_pattern;
static bool run_pattern_matched;

/* where we are */
static bool in_fixture;
static const char *in_subtest;
static char subtest_name_buf[256];
static struct timespec subtest_start;
static enum skip_henceforth skip_henceforth;
static bool in_exit_handler;

/* what happened so far */
static bool succeeded_one, failed_one;
static int exitcode = IGT_EXIT_SUCCESS;

/* children from igt_fork(), as seen by the parent */
static bool is_child;
static pid_t *children;
static int nr_children, max_children;

#define MAX_EXIT_HANDLERS 10
static igt_exit_handler_t exit_handlers[MAX_EXIT_HANDLERS];
static int nr_exit_handlers;

/* __igt_subtest_cleanup_push()'s stack, for the subtest running */
#define MAX_CLEANUPS 8
static struct {
	void (*fn)(void *data);
	void *data;
} cleanups[MAX_CLEANUPS];
static int nr_cleanups;

static bool log_midline;	/* last message did not end in '\n' */

/*
 * The messages too detailed to print (below igt_log_level), the last
 * LOG_KEPT of them since the subtest began, as they would have been
 * printed.  A failure prints them to stderr, so that a run without
 * --debug, such as CI's, still shows what led up to it.
 */
#define LOG_KEPT 1024
static char *log_kept[LOG_KEPT];
static unsigned int log_nkept;	/* kept since the reset; the ring wraps */

static const struct {
	int sig;
	const char *name;	/* NULL: leave quietly */
} fatal_signals[] = {
	{ SIGINT, NULL }, { SIGHUP, NULL }, { SIGPIPE, "SIGPIPE" },
	{ SIGTERM, NULL }, { SIGQUIT, "SIGQUIT" }, { SIGABRT, "SIGABRT" },
	{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" },
};

static void install_fatal_signal_handlers(void);

/*
 * Misuse of the API (a subtest inside a subtest, an assert outside any
 * block, ...) is a bug in the test, not a test result: report and abort.
 */
__attribute__((format(printf, 2, 3)))
static void check_usage(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "(see igt-tests/README.rst for how the API is used)\n");
	abort();
}

/* ---- time ---------------------------------------------------------- */

static void now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

static double seconds_since(const struct timespec *start)
{
	struct timespec ts;

	now(&ts);
	return (ts.tv_sec - start->tv_sec) + (ts.tv_nsec - start->tv_nsec) / 1e9;
}

uint64_t igt_nsec_elapsed(struct timespec *start)
{
	struct timespec ts;

	now(&ts);
	if (!start->tv_sec && !start->tv_nsec) {
		*start = ts;
		return 0;
	}

	return (uint64_t)(ts.tv_sec - start->tv_sec) * NSEC_PER_SEC +
	       ts.tv_nsec - start->tv_nsec;
}

/* ---- logging ------------------------------------------------------- */

static void log_keep(char *line)
{
	char **slot = &log_kept[log_nkept++ % LOG_KEPT];

	free(*slot);
	*slot = line;
}

static void log_kept_reset(void)
{
	for (unsigned int i = 0; i < LOG_KEPT; i++) {
		free(log_kept[i]);
		log_kept[i] = NULL;
	}
	log_nkept = 0;
}

/* Print the kept messages, oldest first, and forget them */
static void log_kept_dump(void)
{
	unsigned int n = log_nkept < LOG_KEPT ? log_nkept : LOG_KEPT;
	unsigned int first = log_nkept - n;

	if (!n)
		return;
	fflush(stdout);
	fprintf(stderr, "---- %u debug message%s before the failure",
		n, n == 1 ? "" : "s");
	if (log_nkept > n)
		fprintf(stderr, " (%u earlier ones dropped)", log_nkept - n);
	fputs(" ----\n", stderr);
	for (unsigned int i = first; i < log_nkept; i++)
		fputs(log_kept[i % LOG_KEPT], stderr);
	if (log_midline)
		fputc('\n', stderr);
	fputs("---- end of the debug messages ----\n", stderr);
	fflush(stderr);
	log_kept_reset();
}

void igt_vlog(const char *domain, enum igt_log_level level,
	      const char *fmt, va_list args)
{
	static const char * const level_names[] = {
		[IGT_LOG_DEBUG] = "DEBUG",
		[IGT_LOG_INFO] = "INFO",
		[IGT_LOG_WARN] = "WARNING",
		[IGT_LOG_CRITICAL] = "CRITICAL",
		[IGT_LOG_NONE] = "NONE",
	};
	bool midline = log_midline;
	FILE *out;
	char *msg;
	size_t len;

	if (level >= IGT_LOG_NONE)
		return;
	/* while listing, stdout carries subtest names only */
	if (igt_only_list_subtests() && level <= IGT_LOG_WARN)
		return;
	if (vasprintf(&msg, fmt, args) < 0)
		return;

	len = strlen(msg);
	log_midline = len && msg[len - 1] != '\n';

	/* info lines go out bare; the others name process, domain, level */
	if (level != IGT_LOG_INFO && !midline) {
		char *line;

		if (asprintf(&line, "(%s:%d) %s%s%s: %s", test_name,
			     (int)getpid(), domain ? domain : "",
			     domain ? "-" : "", level_names[level], msg) < 0) {
			free(msg);
			return;
		}
		free(msg);
		msg = line;
	}

	if (level < igt_log_level) {
		log_keep(msg);
		return;
	}

	if (level >= IGT_LOG_WARN) {
		fflush(stdout);
		out = stderr;
	} else {
		out = stdout;
	}
	fputs(msg, out);
	fflush(out);
	free(msg);
}

void igt_log(const char *domain, enum igt_log_level level,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	igt_vlog(domain, level, fmt, ap);
	va_end(ap);
}

/* ---- command line -------------------------------------------------- */

enum {
	OPT_LIST_SUBTESTS = 0x1000,
	OPT_SHOW_TESTLIST,
	OPT_RUN_SUBTEST,
	OPT_DEBUG,
	OPT_HELP_DESCRIPTION,
	OPT_HELP = 'h',
};

static const struct option std_options[] = {
	{ "list-subtests", no_argument, NULL, OPT_LIST_SUBTESTS },
	{ "show-testlist", no_argument, NULL, OPT_SHOW_TESTLIST },
	{ "run-subtest", required_argument, NULL, OPT_RUN_SUBTEST },
	{ "debug", optional_argument, NULL, OPT_DEBUG },
	{ "help-description", no_argument, NULL, OPT_HELP_DESCRIPTION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f, const char *help_str)
{
	fprintf(f, "Usage: %s [OPTIONS]\n"
		"  --list-subtests\n"
		"  --show-testlist\n"
		"  --run-subtest <pattern>\n"
		"  --debug[=log-domain]\n"
		"  --help-description\n"
		"  --help|-h\n", test_name);
	if (help_str)
		fprintf(f, "%s\n", help_str);
}

static void print_version(void)
{
	struct utsname uts;

	if (uname(&uts))
		return;
	igt_info("IGT-Version: primepair-igt-lite (%s) (%s: %s %s)\n",
		 uts.machine, uts.sysname, uts.release, uts.machine);
}

static void apply_environment(void)
{
	const char *level = getenv("IGT_LOG_LEVEL");

	plain_output = !isatty(STDOUT_FILENO) || getenv("IGT_PLAIN_OUTPUT");
	errno = 0;	/* isatty() leaves ENOTTY behind */

	if (!level)
		return;
	if (!strcmp(level, "debug"))
		igt_log_level = IGT_LOG_DEBUG;
	else if (!strcmp(level, "info"))
		igt_log_level = IGT_LOG_INFO;
	else if (!strcmp(level, "warn"))
		igt_log_level = IGT_LOG_WARN;
	else if (!strcmp(level, "none"))
		igt_log_level = IGT_LOG_NONE;
}

/* Returns 0 to go on, -1 when done (help shown), -2 on a usage error. */
static int parse_options(int *argc, char **argv, const char *extra_short,
			 const struct option *extra_long, const char *help_str,
			 igt_opt_handler_t handler, void *handler_data)
{
	size_t n_extra = 0, n_std = PP_ARRAY_SIZE(std_options);
	struct option *opts;
	char *short_opts;
	int c, idx, i, ret = 0;

	while (extra_long && extra_long[n_extra].name)
		n_extra++;
	opts = calloc(n_extra + n_std, sizeof(*opts));
	if (!opts || asprintf(&short_opts, "%sh", extra_short ?: "") < 0) {
		perror("igt: option parsing");
		exit(IGT_EXIT_INVALID);
	}
	if (n_extra)
		memcpy(opts, extra_long, n_extra * sizeof(*opts));
	memcpy(opts + n_extra, std_options, sizeof(std_options));

	while (!ret && (c = getopt_long(*argc, argv, short_opts, opts, &idx)) != -1) {
		switch (c) {
		case OPT_LIST_SUBTESTS:
			if (!run_pattern)
				list_subtests = true;
			break;
		case OPT_SHOW_TESTLIST:
			if (!run_pattern)
				show_testlist = true;
			break;
		case OPT_RUN_SUBTEST:
			if (!igt_only_list_subtests())
				run_pattern = strdup(optarg);
			break;
		case OPT_DEBUG:
			igt_log_level = IGT_LOG_DEBUG;
			break;
		case OPT_HELP_DESCRIPTION:
			if (&__igt_test_description && __igt_test_description)
				printf("%s\n", __igt_test_description);
			ret = -1;
			break;
		case OPT_HELP:
			usage(stdout, help_str);
			ret = -1;
			break;
		case '?':
			usage(stderr, help_str);
			ret = -2;
			break;
		default:
			ret = handler ? handler(c, idx, handler_data) : -2;
			if (ret)
				ret = -2;
			break;
		}
	}
	free(short_opts);
	free(opts);

	/* leave the non-option arguments to the test, behind argv[0] */
	for (i = 0; ret == 0 && optind + i < *argc; i++)
		argv[i + 1] = argv[optind + i];
	if (ret == 0)
		*argc = *argc - optind + 1;
	return ret;
}

static void common_init(int *argc, char **argv, const char *extra_short,
			const struct option *extra_long, const char *help_str,
			igt_opt_handler_t handler, void *handler_data)
{
	const char *slash = strrchr(argv[0], '/');
	int ret;

	test_name = slash ? slash + 1 : argv[0];
	apply_environment();

	ret = parse_options(argc, argv, extra_short, extra_long, help_str,
			    handler, handler_data);

	if (!with_subtests) {
		if (run_pattern) {
			igt_warn("Unknown subtest: %s\n", run_pattern);
			exit(IGT_EXIT_INVALID);
		}
		if (show_testlist) {
			printf("igt@%s\n", test_name);
			exit(IGT_EXIT_SUCCESS);
		}
		if (list_subtests)
			exit(IGT_EXIT_INVALID);
	}
	if (ret < 0)
		exit(ret == -1 ? IGT_EXIT_SUCCESS : IGT_EXIT_INVALID);

	if (!igt_only_list_subtests())
		print_version();
	install_fatal_signal_handlers();
	now(&subtest_start);	/* a simple test is timed as a whole */
}

int igt_subtest_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data)
{
	with_subtests = true;
	common_init(argc, argv, extra_short_opts, extra_long_opts, help_str,
		    extra_opt_handler, handler_data);
	return 0;
}

void igt_simple_init_parse_opts(int *argc, char **argv,
				const char *extra_short_opts,
				const struct option *extra_long_opts,
				const char *help_str,
				igt_opt_handler_t extra_opt_handler,
				void *handler_data)
{
	with_subtests = false;
	common_init(argc, argv, extra_short_opts, extra_long_opts, help_str,
		    extra_opt_handler, handler_data);
}

/* ---- queries ------------------------------------------------------- */

const char *igt_test_name(void)
{
	return test_name;
}

const char *igt_subtest_name(void)
{
	return in_subtest;
}

bool igt_only_list_subtests(void)
{
	return list_subtests || show_testlist;
}

bool igt_can_fail(void)
{
	return !with_subtests || in_fixture || in_subtest;
}

bool igt_failed(void)
{
	return failed_one;
}

void igt_describe_f(const char *fmt, ...)
{
	/* descriptions are only kept by upstream IGT (--describe) */
	(void)fmt;
}

/* ---- fixtures, subtests, groups ------------------------------------ */

bool __igt_fixture(void)
{
	check_usage(with_subtests, "igt_fixture needs igt_main\n");
	check_usage(!in_fixture && !in_subtest,
		    "igt_fixture cannot nest in a fixture or subtest\n");

	if (igt_only_list_subtests() || skip_henceforth)
		return false;

	in_fixture = true;
	errno = 0;	/* a stale errno would show up in the next message */
	return true;
}

void __igt_fixture_complete(void)
{
	in_fixture = false;
}

void __igt_fixture_end(void)
{
	in_fixture = false;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

/*
 * IGT's --run-subtest syntax: comma-separated fnmatch() patterns, a leading
 * '!' excludes; the last pattern that matches decides.
 */
static bool subtest_selected(const char *name)
{
	char *list = strdup(run_pattern), *save = NULL, *pat;
	bool selected = false;

	for (pat = strtok_r(list, ",", &save); pat;
	     pat = strtok_r(NULL, ",", &save)) {
		bool exclude = pat[0] == '!';

		if (fnmatch(pat + exclude, name, 0) == 0)
			selected = !exclude;
	}
	free(list);
	return selected;
}

static bool valid_subtest_name(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (!(*name == '-' || *name == '_' ||
		      (*name >= 'a' && *name <= 'z') ||
		      (*name >= 'A' && *name <= 'Z') ||
		      (*name >= '0' && *name <= '9')))
			return false;
	return true;
}

static void result_line(const char *name, const char *result, double secs)
{
	printf("%sSubtest %s: %s (%.3fs)%s\n", plain_output ? "" : "\x1b[1m",
	       name, result, secs, plain_output ? "" : "\x1b[0m");
	fflush(stdout);
}

bool __igt_run_subtest(const char *name, const char *file, int line)
{
	(void)file;
	(void)line;
	check_usage(with_subtests && !in_fixture && !in_subtest,
		    "igt_subtest belongs in igt_main or igt_subtest_group\n");

	if (!valid_subtest_name(name)) {
		igt_critical("Invalid subtest name \"%s\".\n", name);
		igt_exit();
	}

	if (run_pattern) {
		if (!subtest_selected(name))
			return false;
		run_pattern_matched = true;
	}

	if (show_testlist) {
		printf("igt@%s@%s\n", test_name, name);
		return false;
	}
	if (list_subtests) {
		printf("%s\n", name);
		return false;
	}

	if (skip_henceforth) {
		result_line(name, skip_henceforth == SKIP ? "SKIP" : "FAIL", 0.0);
		return false;
	}

	igt_info("Starting subtest: %s\n", name);
	fflush(stdout);
	snprintf(subtest_name_buf, sizeof(subtest_name_buf), "%s", name);
	in_subtest = subtest_name_buf;
	log_kept_reset();	/* a failure shows its own subtest's messages */
	errno = 0;
	now(&subtest_start);
	return true;
}

const char *__igt_format_name(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

int __igt_subtest_group_save(void)
{
	check_usage(with_subtests, "igt_subtest_group needs igt_main\n");
	return skip_henceforth;
}

void __igt_subtest_group_restore(int saved)
{
	skip_henceforth = saved;
}

static void reap_children(int sig)
{
	for (int i = 0; i < nr_children; i++) {
		if (children[i] > 0) {
			kill(children[i], sig);
			waitpid(children[i], NULL, 0);
		}
	}
	nr_children = 0;
}

void __igt_subtest_cleanup_push(void (*fn)(void *data), void *data)
{
	check_usage(in_subtest && !is_child,
		    "a subtest cleanup belongs in a subtest\n");
	igt_assert_f(nr_cleanups < MAX_CLEANUPS, "too many subtest cleanups\n");
	cleanups[nr_cleanups].fn = fn;
	cleanups[nr_cleanups].data = data;
	nr_cleanups++;
}

void __igt_subtest_cleanup_pop(bool run)
{
	check_usage(in_subtest && nr_cleanups > 0,
		    "a subtest cleanup popped without one pushed\n");
	nr_cleanups--;
	if (run)
		cleanups[nr_cleanups].fn(cleanups[nr_cleanups].data);
}

/*
 * Each cleanup leaves the stack before it runs: if it fails an assertion,
 * this runs again for the rest and reports the failure.
 */
static void run_subtest_cleanups(void)
{
	while (nr_cleanups > 0) {
		nr_cleanups--;
		cleanups[nr_cleanups].fn(cleanups[nr_cleanups].data);
	}
}

__noreturn static void leave_subtest(const char *result)
{
	run_subtest_cleanups();
	/* what the cleanups logged too: a compositor's log, say */
	if (!strcmp(result, "FAIL") || !strcmp(result, "CRASH"))
		log_kept_dump();
	result_line(in_subtest, result, seconds_since(&subtest_start));
	reap_children(SIGKILL);	/* a failed subtest may leave some behind */
	in_subtest = NULL;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

/* ---- results ------------------------------------------------------- */

void igt_success(void)
{
	succeeded_one = true;
	if (in_subtest)
		leave_subtest("SUCCESS");
}

void igt_fail(int code)
{
	check_usage(code != IGT_EXIT_SUCCESS && code != IGT_EXIT_SKIP,
		    "igt_fail() needs a failure exit code, not %d\n", code);

	/* an assert in an exit handler: the process is on its way out */
	if (in_exit_handler)
		_exit(IGT_EXIT_FAILURE);

	if (!failed_one)
		exitcode = code;
	failed_one = true;

	if (in_subtest && !is_child)
		leave_subtest("FAIL");

	log_kept_dump();
	if (is_child)
		exit(code);

	check_usage(igt_can_fail(),
		    "failing is only allowed in fixtures, subtests and igt_simple_main\n");
	if (in_fixture) {
		skip_henceforth = FAIL;
		__igt_fixture_end();
	}
	igt_exit();
}

void igt_skip(const char *fmt, ...)
{
	va_list ap;

	check_usage(!is_child, "igt_skip() and igt_require() are not allowed in igt_fork()\n");

	if (!igt_only_list_subtests()) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		fflush(stdout);
	}

	if (in_subtest)
		leave_subtest("SKIP");

	if (with_subtests) {
		check_usage(in_fixture,
			    "skipping is only allowed in fixtures, subtests and igt_simple_main\n");
		skip_henceforth = SKIP;
		__igt_fixture_end();
	}

	exitcode = IGT_EXIT_SKIP;
	igt_exit();
}

void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *fmt, ...)
{
	static char *msg;	/* kept until the next skip: igt_skip() does not return */
	char errstr[160] = "";
	int err = errno;
	va_list ap;

	if (err)
		snprintf(errstr, sizeof(errstr), "Last errno: %d, %s\n",
			 err, strerror(err));
	free(msg);
	msg = NULL;
	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&msg, fmt, ap) < 0)
			msg = NULL;
		va_end(ap);
	}

	igt_skip("Test requirement not met in function %s, file %s:%d:\n"
		 "Test requirement: %s\n%s%s",
		 func, file, line, check, msg ?: "", errstr);
}

void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion,
		       const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	igt_log(domain, IGT_LOG_CRITICAL,
		"Test assertion failure function %s, file %s:%d:\n",
		func, file, line);
	igt_log(domain, IGT_LOG_CRITICAL, "Failed assertion: %s\n", assertion);
	if (err)
		igt_log(domain, IGT_LOG_CRITICAL, "Last errno: %d, %s\n",
			err, strerror(err));
	if (fmt) {
		va_start(ap, fmt);
		igt_vlog(domain, IGT_LOG_CRITICAL, fmt, ap);
		va_end(ap);
	}

	igt_fail(IGT_EXIT_FAILURE);
}

void igt_exit(void)
{
	if (run_pattern && !run_pattern_matched) {
		igt_critical("Unknown subtest: %s\n", run_pattern);
		exit(IGT_EXIT_INVALID);
	}
	if (igt_only_list_subtests())
		exit(IGT_EXIT_SUCCESS);

	if (with_subtests && !failed_one)
		exitcode = succeeded_one ? IGT_EXIT_SUCCESS : IGT_EXIT_SKIP;

	igt_kill_children(SIGKILL);
	reap_children(SIGKILL);

	if (!with_subtests)
		printf("%s (%.3fs)\n",
		       exitcode == IGT_EXIT_SUCCESS ? "SUCCESS" :
		       exitcode == IGT_EXIT_SKIP ? "SKIP" : "FAIL",
		       seconds_since(&subtest_start));
	igt_debug("Exiting with status code %d\n", exitcode);
	fflush(stdout);
	exit(exitcode);
}

/* ---- child processes ----------------------------------------------- */

bool __igt_fork(void)
{
	pid_t pid;

	check_usage(!with_subtests || in_subtest,
		    "igt_fork() is only allowed in subtests or igt_simple_main\n");
	check_usage(!is_child, "igt_fork() cannot nest\n");

	if (nr_children == max_children) {
		max_children = max_children ? 2 * max_children : 4;
		children = realloc(children, max_children * sizeof(*children));
		igt_assert(children);
	}

	fflush(NULL);	/* or buffered output is printed twice */
	pid = fork();
	igt_assert_f(pid >= 0, "fork() failed\n");
	if (pid > 0) {
		children[nr_children++] = pid;
		return false;
	}

	/* the child: the parent's children and exit handlers are not ours */
	is_child = true;
	nr_children = 0;
	nr_exit_handlers = 0;
	return true;
}

void igt_kill_children(int sig)
{
	for (int i = 0; i < nr_children; i++)
		if (children[i] > 0)
			kill(children[i], sig);
}

int __igt_waitchildren(void)
{
	int err = 0, left = nr_children;

	check_usage(!is_child, "igt_waitchildren() in a child\n");

	while (left > 0) {
		int status, i;
		pid_t pid = wait(&status);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			printf("wait(num_children:%d) failed with %s\n",
			       left, strerror(errno));
			return IGT_EXIT_FAILURE;
		}
		for (i = 0; i < nr_children && children[i] != pid; i++)
			;
		if (i == nr_children)
			continue;	/* not one of igt_fork()'s */
		children[i] = 0;
		left--;

		if (err || status == 0)
			continue;
		if (WIFEXITED(status)) {
			printf("child %d failed with exit status %d\n",
			       i, WEXITSTATUS(status));
			err = WEXITSTATUS(status);
		} else if (WIFSIGNALED(status)) {
			printf("child %d died with signal %d, %s\n", i,
			       WTERMSIG(status), strsignal(WTERMSIG(status)));
			err = 128 + WTERMSIG(status);
		} else {
			printf("Unhandled failure [%d] in child %d\n", status, i);
			err = 256;
		}
		igt_kill_children(SIGKILL);	/* one failure is enough */
	}
	fflush(stdout);
	nr_children = 0;
	return err;
}

void igt_waitchildren(void)
{
	int err = __igt_waitchildren();

	if (err)
		igt_fail(err);
}

/* ---- exit handlers and fatal signals ------------------------------- */

static void run_exit_handlers(int sig)
{
	in_exit_handler = true;
	while (nr_exit_handlers > 0)
		exit_handlers[--nr_exit_handlers](sig);
	in_exit_handler = false;
}

static void at_exit(void)
{
	run_exit_handlers(0);
}

/* async-signal-safe; nothing to be done if it fails */
static void write_stderr(const char *s)
{
	ssize_t ret = write(STDERR_FILENO, s, strlen(s));

	(void)ret;
}

static void fatal_signal(int sig)
{
	const char *name = NULL;
	bool crash = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE;

	for (size_t i = 0; i < PP_ARRAY_SIZE(fatal_signals); i++)
		if (fatal_signals[i].sig == sig)
			name = fatal_signals[i].name;
	if (name) {
		write_stderr("Received signal ");
		write_stderr(name);
		write_stderr(".\n");
	}

	if (crash) {
		if (!failed_one)
			exitcode = 128 + sig;
		failed_one = true;
		/* like upstream: the crashed subtest ends, the test goes on */
		if (in_subtest && !is_child)
			leave_subtest("CRASH");
	}

	signal(sig, SIG_DFL);
	run_exit_handlers(sig);
	raise(sig);
}

static void install_fatal_signal_handlers(void)
{
	static bool done;

	if (done)
		return;
	done = true;

	for (size_t i = 0; i < PP_ARRAY_SIZE(fatal_signals); i++)
		signal(fatal_signals[i].sig, fatal_signal);
	atexit(at_exit);
}

void igt_install_exit_handler(igt_exit_handler_t fn)
{
	for (int i = 0; i < nr_exit_handlers; i++)
		if (exit_handlers[i] == fn)
			return;

	igt_assert_f(nr_exit_handlers < MAX_EXIT_HANDLERS,
		     "too many exit handlers\n");
	exit_handlers[nr_exit_handlers++] = fn;
	install_fatal_signal_handlers();
}

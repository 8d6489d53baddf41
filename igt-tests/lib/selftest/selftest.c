// SPDX-License-Identifier: GPL-2.0
/*
 * selftest.c - exercises the IGT-compatible library: every result path
 * (pass, skip, fail, a fixture's skip or failure inside a group, forked
 * children, a crash) and the primepair helpers that need no device.
 * run.sh runs it with various options and checks output and exit codes.
 *
 * Built with -DSELFTEST_SIMPLE it is an igt_simple_main test instead, whose
 * result is chosen by the SELFTEST_MODE environment variable.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igt.h"
#include "primepair.h"
#include "primepair_child.h"

IGT_TEST_DESCRIPTION("Self-test of primepair's IGT-compatible test library.");

#ifdef SELFTEST_SIMPLE

igt_simple_main
{
	const char *mode = getenv("SELFTEST_MODE") ?: "pass";

	igt_info("selftest: simple mode %s\n", mode);
	igt_require_f(strcmp(mode, "skip"), "selftest: skipping on purpose\n");
	igt_assert_f(strcmp(mode, "fail"), "selftest: failing on purpose\n");
}

#else

static int fixture_value;

static void exit_handler(int sig)
{
	printf("selftest: exit handler called with %d\n", sig);
}

static void say(void *data)
{
	printf("selftest: cleanup %s\n", (const char *)data);
}

static void cleanup_fails(void *data)
{
	printf("selftest: cleanup that fails\n");
	igt_assert_f(false, "selftest: a cleanup failing\n");
}

/* a held process that needs nothing set up */
static bool held_setup(void *arg)
{
	return true;
}

static const char summary[] =
	"buffers: 0\n"
	"  attachments : 3\n"
	"bytes: 0x1000 (one page)\n"
	"placement: pages\n"
	"broken: 12abc\n";

/* write @text to a new file under /tmp; its name goes to @path */
static void write_temp(char *path, const char *text)
{
	FILE *f;
	int fd;

	fd = mkstemp(path);
	igt_assert_fd(fd);
	f = fdopen(fd, "w");
	igt_assert(f);
	igt_assert_eq(fputs(text, f) >= 0, 1);
	igt_assert_eq(fclose(f), 0);
}

static void check_helpers(void)
{
	char path[] = "/tmp/primepair-selftest-XXXXXX";
	char zero[] = "/tmp/primepair-selftest-XXXXXX";
	uint64_t val = 0;
	uint32_t crc;

	/* the CRC-32 check value, and the same CRC computed in two pieces */
	igt_assert_eq_u32(primepair_crc32(0, "123456789", 9), 0xcbf43926);
	crc = primepair_crc32(0, "1234", 4);
	igt_assert_eq_u32(primepair_crc32(crc, "56789", 5), 0xcbf43926);
	igt_assert_eq_u32(primepair_crc32(0, NULL, 0), 0);

	write_temp(zero, "a: 0\nb: 0x0\nname: text\n");
	primepair_debugfs_assert_zero(zero);
	unlink(zero);

	write_temp(path, summary);
	igt_assert(primepair_debugfs_read_u64(path, "buffers", &val));
	igt_assert_eq_u64(val, 0);
	igt_assert(primepair_debugfs_read_u64(path, "attachments", &val));
	igt_assert_eq_u64(val, 3);
	igt_assert(primepair_debugfs_read_u64(path, "bytes", &val));
	igt_assert_eq_u64(val, 4096);
	igt_assert(!primepair_debugfs_read_u64(path, "placement", &val));
	igt_assert(!primepair_debugfs_read_u64(path, "broken", &val));
	igt_assert(!primepair_debugfs_read_u64(path, "missing", &val));
	igt_assert(!primepair_debugfs_read_u64("/nonexistent/x", "buffers", &val));
	unlink(path);
}

igt_main
{
	igt_fixture {
		/* must stay silent under --list-subtests */
		printf("selftest: first fixture ran\n");
		fixture_value = 42;
		igt_install_exit_handler(exit_handler);
	}

	igt_describe("Every assertion holds.");
	igt_subtest("pass") {
		igt_assert(fixture_value == 42);
		igt_assert_f(true, "not printed\n");
		igt_assert_eq(1 + 1, 2);
		igt_assert_neq(1, 2);
		igt_assert_lt(1, 2);
		igt_assert_lte(2, 2);
		igt_assert_eq_u32(0xffffffffu, ~0u);
		igt_assert_eq_u64(1ull << 40, 1ull << 40);
		igt_assert_neq_u64(1ull << 40, 1ull << 41);
		igt_assert_lt_u64(1ull << 40, 1ull << 41);
		igt_assert_lte_u64(1ull << 41, 1ull << 41);
		igt_assert_fd(0);
		igt_fail_on(false);
		igt_fail_on_f(false, "not printed\n");
		igt_require(true);
		igt_require_f(true, "not printed\n");
		igt_skip_on(false);
		igt_skip_on_f(false, "not printed\n");
		igt_assert(!igt_only_list_subtests());
		igt_assert(!strcmp(igt_subtest_name(), "pass"));
	}

	igt_subtest("skip") {
		igt_require_f(false, "selftest: skipping on purpose\n");
		igt_assert(!"reached after a failed requirement");
	}

	igt_subtest("skip-direct") {
		igt_skip("selftest: igt_skip on purpose\n");
	}

	igt_subtest("fail") {
		igt_assert_eq(1, 2);
	}

	igt_subtest("fail-errno") {
		errno = ENOENT;
		igt_assert_f(false, "selftest: failing on purpose\n");
	}

	igt_subtest("fail-u64") {
		igt_assert_eq_u64(1ull << 40, 1);
	}

	igt_subtest("fork-pass") {
		igt_fork(child, 4)
			igt_assert_lt(child, 4);
		igt_waitchildren();
	}

	igt_subtest("fork-fail") {
		igt_fork(child, 3)
			igt_assert_neq(child, 1);
		igt_waitchildren();
	}

	igt_subtest("crash") {
		raise(SIGSEGV);
	}

	/* volatile: a local changed between setjmp and longjmp (-Wclobbered) */
	for (volatile int i = 1; i <= 2; i++)
		igt_subtest_f("formatted-%d", i)
			igt_assert(i >= 1);

	igt_subtest("timeout") {
		int loops = 0;

		igt_until_timeout(1)
			loops++;
		igt_assert_lt(1, loops);
	}

	igt_subtest("debug") {
		igt_debug("selftest: debug message\n");
		igt_info("selftest: info message\n");
	}

	/* kept, not printed, until the failure: then the last 1024 */
	igt_subtest("debug-on-failure") {
		igt_debug("selftest: debug message before the subtest\n");
		for (int i = 0; i < 1030; i++)
			igt_debug("selftest: kept message %d\n", i);
		igt_debug("selftest: half a line, ");
		igt_debug("then the rest\n");
		igt_assert_f(false, "selftest: failing on purpose\n");
	}

	igt_subtest("helpers")
		check_helpers();

	igt_subtest("nonzero-counter") {
		char path[] = "/tmp/primepair-selftest-XXXXXX", proc[64];
		int fd = mkstemp(path);

		/* unlinked at once, read through /proc: nothing left behind */
		igt_assert_fd(fd);
		igt_assert_eq(unlink(path), 0);
		igt_assert_eq(write(fd, summary, strlen(summary)),
			      (int)strlen(summary));
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		primepair_debugfs_assert_zero(proc);
	}

	igt_subtest("kmsg") {
		int fd = primepair_kmsg_mark();
		char mark[300];

		igt_require_f(fd >= 0, "/dev/kmsg is not usable\n");
		snprintf(mark, sizeof(mark), "primepair-igt: %s/kmsg: mark",
			 igt_test_name());
		igt_assert(primepair_kmsg_find(fd, mark));
		igt_assert(!primepair_kmsg_find(fd, mark));	/* consumed */
		close(fd);
	}

	igt_subtest("cleanup-fail") {
		primepair_subtest_cleanup_push(say, (void *)"first");
		primepair_subtest_cleanup_push(say, (void *)"second");
		primepair_subtest_cleanup_push(say, (void *)"dropped");
		primepair_subtest_cleanup_pop(false);
		primepair_subtest_cleanup_push(say, (void *)"popped");
		primepair_subtest_cleanup_pop(true);
		igt_assert_f(false, "selftest: failing with cleanups pushed\n");
	}

	igt_subtest("cleanup-pass")
		primepair_subtest_cleanup_push(say, (void *)"after passing");

	igt_subtest("cleanup-fails") {
		primepair_subtest_cleanup_push(say, (void *)"below the failing one");
		primepair_subtest_cleanup_push(cleanup_fails, NULL);
	}

	/*
	 * A child that has exited before primepair_child_finish() writes its
	 * newline: the write meets a pipe with no reader, and the SIGPIPE it
	 * raises must not end the test (it did, silently, in CI).
	 */
	igt_subtest("child-exited-early") {
		char *argv[] = { (char *)"true", NULL };
		struct primepair_child c;
		siginfo_t info;
		sigset_t pending;
		char out[64];

		primepair_child_start(&c, argv, NULL);
		igt_assert_eq(waitid(P_PID, c.pid, &info, WEXITED | WNOWAIT), 0);
		igt_assert_eq(primepair_child_finish(&c, out, sizeof(out)), 0);
		igt_assert_eq(sigpending(&pending), 0);
		igt_assert(!sigismember(&pending, SIGPIPE));
	}

	/*
	 * A primepair_held_start() process whose test dies without stopping
	 * it dies too: it holds the test's stdout, and left alive it kept
	 * guest-suite's pipe open for ever.  We adopt it as subreaper to
	 * see how it ended.
	 */
	igt_subtest("held-orphaned") {
		int pipefd[2], status, i;
		pid_t mid, held, r = 0;

		igt_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
		igt_assert_eq(pipe(pipefd), 0);
		mid = fork();
		igt_assert_lte(0, mid);
		if (mid == 0) {
			held = primepair_held_start(held_setup, NULL);
			_exit(write(pipefd[1], &held, sizeof(held)) ==
			      sizeof(held) ? 0 : 1);
		}
		close(pipefd[1]);
		igt_assert_eq(read(pipefd[0], &held, sizeof(held)),
			      (ssize_t)sizeof(held));
		close(pipefd[0]);
		igt_assert_eq(waitpid(mid, &status, 0), mid);
		igt_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		/* 5 s for it to go; a regression fails, it does not hang */
		for (i = 0; i < 500 && !(r = waitpid(held, &status, WNOHANG)); i++)
			usleep(10000);
		if (!r) {
			kill(held, SIGKILL);
			waitpid(held, &status, 0);
		}
		igt_assert_eq(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
		igt_assert_f(r == held, "the orphaned held process lived on\n");
		igt_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	}

	igt_subtest_group {
		igt_fixture
			igt_require_f(false, "selftest: group requirement not met\n");

		igt_subtest("group-skipped")
			igt_assert(!"reached in a skipped group");
	}

	/*
	 * Fixtures run whatever subtests are selected, so this one fails only
	 * on request; otherwise the group's subtest passes.
	 */
	igt_subtest_group {
		igt_fixture
			igt_assert_f(!getenv("SELFTEST_FIXTURE_FAIL"),
				     "selftest: group set-up failed\n");

		igt_subtest("group-fixture")
			igt_assert(!getenv("SELFTEST_FIXTURE_FAIL"));
	}

	igt_subtest("after-groups")
		igt_assert_eq(fixture_value, 42);

	igt_fixture
		printf("selftest: last fixture ran, failed %d\n", igt_failed());
}

#endif /* SELFTEST_SIMPLE */

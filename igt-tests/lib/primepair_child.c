// SPDX-License-Identifier: GPL-2.0
/*
 * primepair_child.c - real clients as child processes of a test.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "igt.h"
#include "primepair_child.h"

/* Children started and not yet reaped, killed if the test dies first */
#define MAX_LIVE	16
static pid_t live[MAX_LIVE];

static void forget(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void primepair_child_kill_all(void)
{
	int i;

	for (i = 0; i < MAX_LIVE; i++) {
		if (!live[i])
			continue;
		kill(live[i], SIGKILL);
		waitpid(live[i], NULL, 0);
		live[i] = 0;
	}
}

static void kill_all_at_exit(int sig)
{
	primepair_child_kill_all();
}

static void remember(pid_t pid)
{
	static bool handler;
	int i;

	if (!handler) {
		igt_install_exit_handler(kill_all_at_exit);
		handler = true;
	}
	for (i = 0; i < MAX_LIVE && live[i]; i++)
		;
	igt_assert_f(i < MAX_LIVE, "more than %d children\n", MAX_LIVE);
	live[i] = pid;
}

/* The root children run in (primepair_child_set_root()), or NULL */
static const char *child_root;

void primepair_child_set_root(const char *root)
{
	/* "/": the guest booted from that root, nothing to enter */
	child_root = root && strcmp(root, "/") ? root : NULL;
}

bool primepair_child_installed(const char *name)
{
	static const char *const dirs[] = { "usr/bin", "usr/sbin" };
	char path[640];
	unsigned int i;

	if (!child_root) {
		snprintf(path, sizeof(path), "command -v %s >/dev/null", name);
		return system(path) == 0;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", child_root, dirs[i],
			 name);
		if (!access(path, X_OK))
			return true;
	}
	return false;
}

/* @root ("" for the running one) is Debian 13 with weston installed */
static bool debian13_with_weston(const char *root)
{
	char path[600];
	int major = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/usr/bin/weston", root);
	if (access(path, X_OK))
		return false;
	snprintf(path, sizeof(path), "%s/etc/debian_version", root);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%d", &major) != 1)
		major = 0;
	fclose(f);
	return major == 13;
}

const char *primepair_debian13_root(void)
{
	static char root[512];

	/* tools/vm-run -R booted the guest from it */
	if (debian13_with_weston("")) {
		igt_info("Debian 13 programs: the guest's own root\n");
		return "/";
	}
	if (!getcwd(root, sizeof(root) - 32))
		return NULL;
	strcat(root, "/.cache/trixie-root");
	if (!debian13_with_weston(root))
		return NULL;
	igt_info("Debian 13 programs: entering %s\n", root);
	return root;
}

/*
 * In the child, before exec: enter @root with the guest's devices,
 * kernel filesystems, /run, /tmp and the working directory bound in, in
 * a mount namespace of the child's own, so that nothing of it outlives
 * the child.
 */
static void enter_root(const char *root)
{
	static const char *const binds[] = { "/dev", "/proc", "/sys", "/run", "/tmp" };
	char cwd[512], target[1024];
	unsigned int i;

	if (!getcwd(cwd, sizeof(cwd)) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		_exit(126);
	for (i = 0; i <= ARRAY_SIZE(binds); i++) {
		const char *dir = i < ARRAY_SIZE(binds) ? binds[i] : cwd;

		snprintf(target, sizeof(target), "%s%s", root, dir);
		if (mount(dir, target, NULL, MS_BIND | MS_REC, NULL))
			_exit(126);
	}
	if (chroot(root) || chdir(cwd))
		_exit(126);
}

void primepair_child_start(struct primepair_child *c, char *const argv[],
			   char *const env[])
{
	int in[2], out[2];

	igt_assert_eq(pipe2(in, O_CLOEXEC), 0);
	igt_assert_eq(pipe2(out, O_CLOEXEC), 0);
	c->npending = 0;
	c->pid = fork();
	igt_assert_lte(0, c->pid);
	if (c->pid == 0) {
		/* dup2 clears O_CLOEXEC on the new descriptors */
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		for (; env && *env; env++)
			putenv(*env);
		if (child_root)
			enter_root(child_root);
		execvp(argv[0], argv);
		_exit(127);
	}
	remember(c->pid);
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Take the first complete line out of c->pending; false if there is none */
static bool take_line(struct primepair_child *c, char *buf, size_t len)
{
	char *nl = memchr(c->pending, '\n', c->npending);
	size_t n;

	if (!nl) {
		if (c->npending < sizeof(c->pending))
			return false;
		nl = c->pending + c->npending - 1;	/* overlong line: cut */
	}
	n = nl - c->pending;
	snprintf(buf, len, "%.*s", (int)n, c->pending);
	c->npending -= n + 1;
	memmove(c->pending, nl + 1, c->npending);
	return true;
}

bool primepair_child_expect(struct primepair_child *c, const char *prefix,
			    char *buf, size_t len, int timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd = { .fd = c->out, .events = POLLIN };
		int64_t left;
		ssize_t r;

		while (take_line(c, buf, len)) {
			if (!strncmp(buf, prefix, strlen(prefix)))
				return true;
			igt_debug("child %d: %s\n", c->pid, buf);
		}
		left = deadline - now_ms();
		if (c->out < 0 || left <= 0)
			return false;
		if (poll(&pfd, 1, left) <= 0)
			continue;
		r = read(c->out, c->pending + c->npending,
			 sizeof(c->pending) - c->npending);
		if (r <= 0)
			return false;
		c->npending += r;
	}
}

/*
 * The rest of the output until end of file, or until nothing came for 2 s:
 * a grandchild may hold the pipe open after the child exited.
 */
static void collect(struct primepair_child *c, char *buf, size_t len)
{
	size_t n = c->npending < len ? c->npending : len - 1;
	struct pollfd pfd = { .fd = c->out, .events = POLLIN };
	ssize_t r;

	memcpy(buf, c->pending, n);
	c->npending = 0;
	while (n + 1 < len && poll(&pfd, 1, 2000) > 0 &&
	       (r = read(c->out, buf + n, len - 1 - n)) > 0)
		n += r;
	buf[n] = 0;
	close(c->out);
	c->out = -1;
	/* shown if the subtest fails */
	if (n)
		igt_debug("child %d printed:\n%s%s", c->pid, buf,
			  buf[n - 1] == '\n' ? "" : "\n");
}

/*
 * A newline on the child's stdin, which may have no reader left: a child
 * that is done may exit before we write.  The write then fails with EPIPE
 * and raises SIGPIPE, which would end the test (quietly, once, with a
 * primepair_held_start() process left holding its output open).  So
 * SIGPIPE is blocked around the write and, if the write raised it,
 * taken back before it is unblocked.
 */
static void write_newline(struct primepair_child *c)
{
	const struct timespec now = { 0 };
	sigset_t pipe_set, old;
	ssize_t r;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	igt_assert_eq(sigprocmask(SIG_BLOCK, &pipe_set, &old), 0);
	r = write(c->in, "\n", 1);
	if (r != 1) {
		igt_debug("child %d: stdin closed (%s)\n", c->pid,
			  strerror(errno));
		/* with SIGPIPE blocked already, one pending may be older */
		if (errno == EPIPE && !sigismember(&old, SIGPIPE))
			while (sigtimedwait(&pipe_set, NULL, &now) < 0 &&
			       errno == EINTR)
				;
	}
	igt_assert_eq(sigprocmask(SIG_SETMASK, &old, NULL), 0);
}

int primepair_child_finish(struct primepair_child *c, char *buf, size_t len)
{
	int status;

	if (c->in >= 0) {
		write_newline(c);
		close(c->in);
		c->in = -1;
	}
	collect(c, buf, len);
	igt_assert_eq(waitpid(c->pid, &status, 0), c->pid);
	forget(c->pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int primepair_child_stop(struct primepair_child *c, int sig, int timeout_ms,
			 char *buf, size_t len)
{
	int64_t deadline = now_ms() + timeout_ms;
	int status;
	pid_t r;

	kill(c->pid, sig);
	while ((r = waitpid(c->pid, &status, WNOHANG)) == 0 &&
	       now_ms() < deadline)
		usleep(20000);
	if (r == 0) {
		igt_info("child %d ignored signal %d for %d ms: killed\n",
			 c->pid, sig, timeout_ms);
		kill(c->pid, SIGKILL);
		igt_assert_eq(waitpid(c->pid, &status, 0), c->pid);
	}
	forget(c->pid);
	if (c->in >= 0) {
		close(c->in);
		c->in = -1;
	}
	collect(c, buf, len);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WTERMSIG(status) == sig ? 0 : 128 + WTERMSIG(status);
}

pid_t primepair_held_start(bool (*setup)(void *arg), void *arg)
{
	pid_t parent = getpid();
	char set = 0;
	int ready[2];
	pid_t pid;

	igt_assert_eq(pipe(ready), 0);
	pid = fork();
	igt_assert_lte(0, pid);
	if (pid == 0) {
		/*
		 * Never outlive the test: a test that dies without killing us
		 * (SIGKILL from timeout(1), say) would leave us holding its
		 * stdout, and guest-suite's tee waiting for its end forever.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(1);
		close(ready[0]);
		set = setup(arg);
		if (write(ready[1], &set, 1) != 1 || !set)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	igt_assert_eq(read(ready[0], &set, 1), 1);
	close(ready[0]);
	igt_assert_f(set, "the held process could not set itself up\n");
	return pid;
}

void primepair_held_stop(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	igt_assert_eq(waitpid(pid, &status, 0), pid);
	igt_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * primepair_child.h - run real clients (modetest, kmscube, compositors,
 * Wayland clients) as child processes of a test.
 */
#ifndef PRIMEPAIR_CHILD_H
#define PRIMEPAIR_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct primepair_child {
	pid_t pid;
	int in;		/* its stdin, write end; -1 once closed */
	int out;	/* its stdout and stderr, read end; -1 once closed */
	char pending[4096];	/* output read but not yet consumed */
	size_t npending;
};

/*
 * Start @argv (searched in PATH) with @env (NULL-terminated "NAME=value"
 * strings, or NULL) added to the test's environment.  Its stdin and its
 * stdout+stderr are pipes kept in @c.
 */
void primepair_child_start(struct primepair_child *c, char *const argv[],
			   char *const env[]);

/*
 * Children started from now on run inside @root, a Debian root
 * filesystem, with the guest's /dev, /proc, /sys, /run, /tmp and the
 * working directory bound in (each in a mount namespace of its own):
 * that root's programs on the running kernel, as a newer distribution
 * would run them.  NULL or "/": the test's own root.  Exit status 126: the
 * child could not enter @root.
 */
void primepair_child_set_root(const char *root);

/* Program @name is installed where children now run (host or root) */
bool primepair_child_installed(const char *name);

/*
 * Where Debian 13's guest programs (weston, sway, kmscube, Mesa 25) are:
 * "/" when the guest booted from that root (tools/vm-run -R), else the
 * root tools/build-root made under the working directory
 * (.cache/trixie-root) if they are installed in it, else NULL.  Either
 * way, primepair_child_set_root() takes it.
 */
const char *primepair_debian13_root(void);

/*
 * Read one line of the child's output that starts with @prefix into @buf
 * (without the newline), waiting up to @timeout_ms.  Lines before it are
 * passed to igt_debug.  False on timeout or end of output.
 */
bool primepair_child_expect(struct primepair_child *c, const char *prefix,
			    char *buf, size_t len, int timeout_ms);

/*
 * Ask the child to finish (a newline on its stdin, then stdin closed),
 * collect the rest of its output into @buf and reap it.  Returns its exit
 * status, or -1 if it died of a signal.
 */
int primepair_child_finish(struct primepair_child *c, char *buf, size_t len);

/*
 * Send @sig, wait up to @timeout_ms for the child to exit (SIGKILL after
 * that), collect its output like primepair_child_finish().  Returns its exit
 * status, 128 + N for a death by signal N other than @sig, or 0 for a
 * death by @sig itself.
 */
int primepair_child_stop(struct primepair_child *c, int sig, int timeout_ms,
			 char *buf, size_t len);

/*
 * SIGKILL and reap every child still running, e.g. those a failed subtest
 * left behind.  Also done when the test exits.
 */
void primepair_child_kill_all(void);

/*
 * Fork a process that runs @setup(@arg) and then only waits to be
 * killed: something that holds what @setup made (fds, buffers, queued
 * jobs, a mode on screen) while the test looks at it.  Returns its pid
 * once it is set; asserts that @setup returned true.  End it with
 * primepair_held_stop().
 */
pid_t primepair_held_start(bool (*setup)(void *arg), void *arg);

/* SIGKILL a process of primepair_held_start() and reap it */
void primepair_held_stop(pid_t pid);

#endif /* PRIMEPAIR_CHILD_H */

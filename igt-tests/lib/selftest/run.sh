#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - build the IGT-compatible library's self-test and check its exit
# codes and output for a series of invocations. Prints one PASS/FAIL line per
# check and exits non-zero if any check failed. Needs cc, pkg-config and
# libdrm-dev; no DRM device. Usage: igt-tests/lib/selftest/run.sh

set -u

here=$(cd "$(dirname "$0")" && pwd)
lib=$(dirname "$here")
top=$(dirname "$(dirname "$lib")")
uapi=$top/include/uapi	# for helpers of the uapi
libpp=$top/lib/libprimepair
tmp=$(mktemp -d /tmp/primepair-igt-selftest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

bin=$tmp/selftest
simple=$tmp/selftest-simple
out=$tmp/stdout
err=$tmp/stderr
failures=0
rc=0

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# libprimepair as an archive, as the Makefile links it: only the objects
# the self-test uses are pulled in (not png.o, which would need libpng)
build_libpp() {
	local c
	mkdir -p "$tmp/libpp"
	for c in "$libpp"/*.c; do
		# shellcheck disable=SC2046 # pkg-config output is meant to split
		cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$libpp" \
			-I"$top/lib/libvrender" -I"$uapi/drm" -c "$c" \
			-o "$tmp/libpp/$(basename "$c" .c).o" \
			$(pkg-config --cflags libdrm libpng) || return 1
	done
	ar rcs "$tmp/libprimepair.a" "$tmp"/libpp/*.o
}

build() {
	local exe=$1
	shift
	# shellcheck disable=SC2046 # pkg-config output is meant to split
	cc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
		-Wno-missing-field-initializers -Wno-clobbered -D_GNU_SOURCE "$@" \
		-I"$lib" -I"$libpp" \
		-I"$top/lib/libvrender" -I"$uapi" -I"$uapi/drm" "$lib"/*.c \
		"$here/selftest.c" "$tmp/libprimepair.a" \
		$(pkg-config --cflags --libs libdrm) -lm \
		-o "$exe" 2>"$tmp/build.log"
}

# run EXE ARGS...: run it, capture stdout/stderr in $out/$err, rc in $rc
run() {
	rc=0
	"$@" >"$out" 2>"$err" || rc=$?
}

# expect_rc DESCRIPTION EXPECTED
expect_rc() {
	if [ "$rc" -eq "$2" ]; then
		pass "$1: exit code $2"
	else
		fail "$1: exit code $rc, expected $2"
	fi
}

# expect_line DESCRIPTION FILE REGEX: some whole line of FILE matches
expect_line() {
	if grep -qxE -- "$3" "$2"; then
		pass "$1: has line /$3/"
	else
		fail "$1: no line matching /$3/ in $(basename "$2")"
	fi
}

# expect_no_line DESCRIPTION FILE REGEX: no line of FILE contains it
expect_no_line() {
	if grep -qE -- "$3" "$2"; then
		fail "$1: unexpected /$3/ in $(basename "$2")"
	else
		pass "$1: no /$3/"
	fi
}

# expect_order DESCRIPTION FILE REGEX...: lines matching each REGEX in
# that order, the first match of each after the one before
expect_order() {
	local desc=$1 file=$2 re at=0 line
	shift 2
	for re in "$@"; do
		line=$(tail -n +$((at + 1)) "$file" | grep -nxE -m1 -- "$re" | cut -d: -f1)
		if [ -z "$line" ]; then
			fail "$desc: no line matching /$re/ after line $at of $(basename "$file")"
			return
		fi
		at=$((at + line))
	done
	pass "$desc: $# lines in order"
}

T='\([0-9]+\.[0-9]{3}s\)'	# the "(0.012s)" after a result

# ---- build ----

if build_libpp 2>"$tmp/build.log"; then
	pass "build libprimepair with -Wall -Wextra -Werror"
else
	fail "build libprimepair with -Wall -Wextra -Werror"
	cat "$tmp/build.log"
	exit 1
fi
if build "$bin"; then
	pass "build selftest with -Wall -Wextra -Werror"
else
	fail "build selftest with -Wall -Wextra -Werror"
	cat "$tmp/build.log"
	exit 1
fi
if build "$simple" -DSELFTEST_SIMPLE; then
	pass "build simple selftest with -Wall -Wextra -Werror"
else
	fail "build simple selftest with -Wall -Wextra -Werror"
	cat "$tmp/build.log"
	exit 1
fi

# ---- listing ----

run "$bin" --list-subtests
expect_rc "--list-subtests" 0
cat >"$tmp/expected" <<'EOF'
pass
skip
skip-direct
fail
fail-errno
fail-u64
fork-pass
fork-fail
crash
formatted-1
formatted-2
timeout
debug
debug-on-failure
helpers
nonzero-counter
kmsg
cleanup-fail
cleanup-pass
cleanup-fails
child-exited-early
held-orphaned
group-skipped
group-fixture
after-groups
EOF
if cmp -s "$out" "$tmp/expected" && [ ! -s "$err" ]; then
	pass "--list-subtests: exactly the names, no fixture output"
else
	fail "--list-subtests: output differs from the expected names"
	diff -u "$tmp/expected" "$out"
	cat "$err"
fi

run "$bin" --list-subtests --run-subtest 'f*'
expect_rc "--list-subtests --run-subtest" 0

# ---- single subtests ----

run "$bin" --run-subtest pass
expect_rc "pass" 0
expect_line "pass" "$out" 'Starting subtest: pass'
expect_line "pass" "$out" "Subtest pass: SUCCESS $T"
expect_line "pass" "$out" 'selftest: first fixture ran'
expect_line "pass" "$out" 'selftest: last fixture ran, failed 0'
expect_line "pass" "$out" 'selftest: exit handler called with 0'
expect_line "pass" "$out" 'IGT-Version: .*'
expect_no_line "pass" "$out" 'Subtest (skip|fail)'

run "$bin" --run-subtest skip
expect_rc "skip" 77
expect_line "skip" "$out" "Subtest skip: SKIP $T"
expect_line "skip" "$out" 'Test requirement not met in function .*, file .*selftest\.c:[0-9]+:'
expect_line "skip" "$out" 'Test requirement: false'
expect_line "skip" "$out" 'selftest: skipping on purpose'

run "$bin" --run-subtest skip-direct
expect_rc "skip-direct" 77
expect_line "skip-direct" "$out" "Subtest skip-direct: SKIP $T"

run "$bin" --run-subtest fail
expect_rc "fail" 98
expect_line "fail" "$out" "Subtest fail: FAIL $T"
expect_line "fail" "$err" \
	'\(selftest:[0-9]+\) CRITICAL: Test assertion failure function .*, file .*selftest\.c:[0-9]+:'
expect_line "fail" "$err" '\(selftest:[0-9]+\) CRITICAL: Failed assertion: 1 == 2'
expect_line "fail" "$err" '\(selftest:[0-9]+\) CRITICAL: error: 1 != 2'
expect_no_line "fail" "$err" 'Last errno'
expect_line "fail" "$out" 'selftest: last fixture ran, failed 1'

run "$bin" --run-subtest fail-errno
expect_rc "fail-errno" 98
expect_line "fail-errno" "$err" '.*CRITICAL: Last errno: 2, No such file or directory'
expect_line "fail-errno" "$err" '.*CRITICAL: selftest: failing on purpose'

run "$bin" --run-subtest fail-u64
expect_rc "fail-u64" 98
expect_line "fail-u64" "$err" '.*CRITICAL: error: 0x10000000000 != 0x1'

run "$bin" --run-subtest nonexistent
expect_rc "unknown subtest" 79
expect_line "unknown subtest" "$err" '.*Unknown subtest: nonexistent'

run "$bin" --run-subtest fork-pass
expect_rc "fork-pass" 0
expect_line "fork-pass" "$out" "Subtest fork-pass: SUCCESS $T"

run "$bin" --run-subtest fork-fail
expect_rc "fork-fail" 98
expect_line "fork-fail" "$out" 'child 1 failed with exit status 98'
expect_line "fork-fail" "$out" "Subtest fork-fail: FAIL $T"

run "$bin" --run-subtest crash
expect_rc "crash" 139
expect_line "crash" "$out" "Subtest crash: CRASH $T"
expect_line "crash" "$err" 'Received signal SIGSEGV\.'
expect_line "crash" "$out" 'selftest: last fixture ran, failed 1'

run "$bin" --run-subtest helpers
expect_rc "helpers (crc32, debugfs parser)" 0

run "$bin" --run-subtest nonzero-counter
expect_rc "nonzero-counter" 98
expect_line "nonzero-counter" "$err" \
	'.*CRITICAL: /proc/self/fd/[0-9]+: attachments is 3, expected 0'

run "$bin" --run-subtest kmsg
if [ "$rc" -eq 77 ]; then
	pass "kmsg marker: skipped, /dev/kmsg not usable here"
else
	expect_rc "kmsg marker" 0
fi

run "$bin" --run-subtest timeout
expect_rc "igt_until_timeout" 0

run "$bin" --run-subtest debug
expect_rc "debug" 0
expect_line "debug" "$out" 'selftest: info message'
expect_no_line "debug without --debug" "$out" 'debug message'
run "$bin" --debug --run-subtest debug
expect_line "debug with --debug" "$out" '\(selftest:[0-9]+\) DEBUG: selftest: debug message'
run "$bin" --run-subtest 'debug*'
expect_rc "debug-on-failure" 98
expect_no_line "debug-on-failure: kept messages not on stdout" "$out" '.*kept message.*'
expect_line "debug-on-failure: a header" "$err" \
	'---- 1024 debug messages before the failure \(9 earlier ones dropped\) ----'
expect_line "debug-on-failure: the last 1024 kept" "$err" \
	'\(selftest:[0-9]+\) DEBUG: selftest: kept message 8'
expect_no_line "debug-on-failure: older ones dropped" "$err" '.*kept message 7$'
expect_line "debug-on-failure: a line finished as it was logged" "$err" \
	'\(selftest:[0-9]+\) DEBUG: selftest: half a line, then the rest'
expect_line "debug-on-failure: the end" "$err" '---- end of the debug messages ----'
run "$bin" --run-subtest 'debug,cleanup-fail'
expect_rc "a failure after another subtest's debug message" 98
expect_no_line "a failure shows no other subtest's messages" "$err" 'debug message'

# ---- fixtures in groups ----

run "$bin" --run-subtest child-exited-early
expect_rc "child exited before its newline" 0
expect_line "child exited before its newline" "$out" "Subtest child-exited-early: SUCCESS $T"
expect_no_line "child exited before its newline" "$err" 'SIGPIPE'

run "$bin" --run-subtest held-orphaned
expect_rc "held process orphaned" 0
expect_line "held process orphaned" "$out" "Subtest held-orphaned: SUCCESS $T"

run "$bin" --run-subtest group-skipped
expect_rc "fixture skip" 77
expect_line "fixture skip" "$out" "Subtest group-skipped: SKIP $T"
expect_line "fixture skip" "$out" 'selftest: group requirement not met'
expect_no_line "fixture skip" "$out" 'Starting subtest: group-skipped'

run "$bin" --run-subtest group-fixture
expect_rc "group fixture" 0
expect_line "group fixture" "$out" "Subtest group-fixture: SUCCESS $T"

SELFTEST_FIXTURE_FAIL=1 run "$bin" --run-subtest group-fixture
expect_rc "fixture failure" 98
expect_line "fixture failure" "$out" "Subtest group-fixture: FAIL $T"
expect_line "fixture failure" "$err" '.*CRITICAL: selftest: group set-up failed'
expect_no_line "fixture failure" "$out" 'Starting subtest: group-fixture'

# cleanups run as the subtest ends, last pushed first, before its result
run "$bin" --run-subtest cleanup-fail
expect_rc "cleanup-fail" 98
expect_order "cleanup-fail" "$out" 'selftest: cleanup popped' \
	'selftest: cleanup second' 'selftest: cleanup first' \
	"Subtest cleanup-fail: FAIL $T"
expect_no_line "cleanup-fail" "$out" 'cleanup dropped'

run "$bin" --run-subtest cleanup-pass
expect_rc "cleanup-pass" 0
expect_order "cleanup-pass" "$out" 'selftest: cleanup after passing' \
	"Subtest cleanup-pass: SUCCESS $T"

# a cleanup that fails fails the subtest, and the ones below it still run
run "$bin" --run-subtest cleanup-fails
expect_rc "cleanup-fails" 98
expect_order "cleanup-fails" "$out" 'selftest: cleanup that fails' \
	'selftest: cleanup below the failing one' "Subtest cleanup-fails: FAIL $T"
expect_line "cleanup-fails" "$err" '.*CRITICAL: selftest: a cleanup failing'
if [ "$(grep -c '^Subtest cleanup-fails:' "$out")" -eq 1 ]; then
	pass "cleanup-fails: one result line"
else
	fail "cleanup-fails: expected one result line"
fi

# the group ends the fixture's effect; the failure still fails the run
SELFTEST_FIXTURE_FAIL=1 run "$bin" --run-subtest after-groups
expect_rc "after failed group" 98
expect_line "after failed group" "$out" "Subtest after-groups: SUCCESS $T"
expect_line "after failed group" "$out" 'selftest: last fixture ran, failed 1'

# ---- patterns ----

run "$bin" --run-subtest 'formatted-*'
expect_rc "wildcard" 0
expect_line "wildcard" "$out" "Subtest formatted-1: SUCCESS $T"
expect_line "wildcard" "$out" "Subtest formatted-2: SUCCESS $T"

run "$bin" --run-subtest 'pass,skip'
expect_rc "list pass,skip" 0
expect_line "list pass,skip" "$out" "Subtest skip: SKIP $T"

run "$bin" --run-subtest 'skip*'
expect_rc "all skipped" 77

run "$bin" --run-subtest 'f*,!fail*,!fork-fail'
expect_rc "exclusion" 0
expect_line "exclusion" "$out" "Subtest fork-pass: SUCCESS $T"
expect_no_line "exclusion" "$out" 'Subtest fail'

# ---- whole run ----

run "$bin"
expect_rc "full run" 98
if [ "$(grep -cE "^Subtest [a-z0-9-]+: (SUCCESS|SKIP|FAIL|CRASH) $T$" "$out")" -eq 25 ]; then
	pass "full run: 25 result lines"
else
	fail "full run: expected 25 result lines"
fi
expect_line "full run" "$out" "Subtest after-groups: SUCCESS $T"
expect_line "full run" "$out" 'selftest: exit handler called with 0'

# ---- options ----

run "$bin" --help
expect_rc "--help" 0
expect_line "--help" "$out" 'Usage: selftest \[OPTIONS\]'

run "$bin" --help-description
expect_rc "--help-description" 0
expect_line "--help-description" "$out" "Self-test of primepair's IGT-compatible test library\."

run "$bin" --no-such-option
expect_rc "unknown option" 79

# ---- igt_simple_main ----

SELFTEST_MODE=pass run "$simple"
expect_rc "simple pass" 0
expect_line "simple pass" "$out" "SUCCESS $T"

SELFTEST_MODE=skip run "$simple"
expect_rc "simple skip" 77
expect_line "simple skip" "$out" "SKIP $T"

SELFTEST_MODE=fail run "$simple"
expect_rc "simple fail" 98
expect_line "simple fail" "$out" "FAIL $T"

run "$simple" --list-subtests
expect_rc "simple --list-subtests" 79

run "$simple" --run-subtest foo
expect_rc "simple --run-subtest" 79

echo "$failures check(s) failed"
[ "$failures" -eq 0 ]

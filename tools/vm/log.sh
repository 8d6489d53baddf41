#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/log.sh - the kernel log verdict of a guest run, sourced by
# tools/vm-run: which lines fail a run, and vm_scan_log, which prints them
# with their context and the test that was running.

# Kernel log lines that fail a run (extended regular expressions, matched
# against the message with its [timestamp] prefix removed).
DIRTY_PATTERNS=(
	'WARNING:'
	'(^|[^[:alnum:]_])BUG[: ]'
	'Oops'
	'refcount_t'
	'possible circular locking'
	'inconsistent lock state'
	'KASAN'
	'kmemleak: .*(suspected memory leak|unreferenced object)'
	'unreferenced object 0x'
	'general protection fault'
	'^[[:space:]]*Call Trace:'
	'UBSAN'
	'list_add corruption'
	'list_del corruption'
)
# Known-harmless lines that would otherwise match (none so far).
# shellcheck disable=SC2034 # read by vm_scan_log
DIRTY_IGNORE=()

# vm_scan_log FILE: print each failing line of the kernel log FILE with
# two lines before and eight after, under the last "primepair-mark:" line
# before it (the test that was running); return 1 if there was any.
vm_scan_log() {
	local file=$1 pat ign
	pat=$(IFS='|'; echo "${DIRTY_PATTERNS[*]}")
	ign=$(IFS='|'; echo "${DIRTY_IGNORE[*]:-}")
	awk -v pat="$pat" -v ign="$ign" '
		{
			line[NR] = $0
			msg = $0
			sub(/^\[[^]]*\] ?/, "", msg)
			if (msg ~ /primepair-mark: /) { mark[NR] = msg }
			if (msg ~ pat && (ign == "" || msg !~ ign)) { hit[NR] = 1; nhit++ }
		}
		END {
			if (!nhit) exit 0
			last = 0; cur = ""
			for (i = 1; i <= NR; i++) {
				if (i in mark) cur = mark[i]
				if (!(i in hit)) continue
				from = i - 2; if (from <= last) from = last + 1
				if (from < 1) from = 1
				to = i + 8; if (to > NR) to = NR
				if (from > last + 1 && last) print "  ..."
				if (cur != "" && cur != shown) { print "  (during " cur ")"; shown = cur }
				for (j = from; j <= to; j++) print ((j in hit) ? "> " : "  ") line[j]
				last = to
			}
			exit 1
		}' "$file"
}


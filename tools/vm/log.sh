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

# Known-harmless stack dumps, as "CAUSE@@FUNCTION": a "Call Trace:" is
# not a failure when one of the four lines before it matches CAUSE and
# the trace itself (up to its </TASK>, the next trace or 40 lines) has a
# frame matching FUNCTION.
# Nothing else about the run is forgiven: a WARNING or BUG around it
# still fails it.
#
# vivid's capture thread checks that its next frame is still in the
# future, then reads jiffies again to compute the wait; when TCG
# deschedules the vCPU between the two reads the wait comes out
# negative and schedule_timeout() dumps the stack and returns at once.
# The race is in vivid itself (vivid-kthread-cap.c, unchanged from 6.1
# to 7.3) and costs at most one frame's pacing; camera_vivid only
# loads vivid to be a dma-buf importer and exporter.
# shellcheck disable=SC2034 # read by vm_scan_log
DIRTY_TRACE_IGNORE=(
	'schedule_timeout: wrong timeout value@@vivid_thread_vid_cap[+]'
)

# vm_scan_log FILE: print each failing line of the kernel log FILE with
# two lines before and eight after, under the last "primepair-mark:" line
# before it (the test that was running); return 1 if there was any.
vm_scan_log() {
	local file=$1 pat ign traceign
	pat=$(IFS='|'; echo "${DIRTY_PATTERNS[*]}")
	ign=$(IFS='|'; echo "${DIRTY_IGNORE[*]:-}")
	traceign=$(IFS=$'\n'; echo "${DIRTY_TRACE_IGNORE[*]:-}")
	awk -v pat="$pat" -v ign="$ign" -v traceign="$traceign" '
		BEGIN {
			nti = 0
			n = split(traceign, ent, "\n")
			for (k = 1; k <= n; k++) {
				if (split(ent[k], pair, "@@") != 2) continue
				nti++; tcause[nti] = pair[1]; tfunc[nti] = pair[2]
			}
		}
		# the trace starting at line i is a known-harmless one
		function trace_ignored(i,    k, j, cause, fn) {
			for (k = 1; k <= nti; k++) {
				cause = 0; fn = 0
				for (j = i - 4; j < i; j++)
					if (j >= 1 && msgs[j] ~ tcause[k]) cause = 1
				# its own frames only: to its </TASK>, the
				# next trace, or 40 lines, whichever is first
				for (j = i + 1; j <= NR && j <= i + 40 && !fn; j++) {
					if (msgs[j] ~ /^[[:space:]]*Call Trace:/) break
					if (msgs[j] ~ tfunc[k]) fn = 1
					if (msgs[j] ~ /<\/TASK>/) break
				}
				if (cause && fn) return 1
			}
			return 0
		}
		{
			line[NR] = $0
			msg = $0
			sub(/^\[[^]]*\] ?/, "", msg)
			msgs[NR] = msg
			if (msg ~ /primepair-mark: /) { mark[NR] = msg }
			if (msg ~ pat && (ign == "" || msg !~ ign)) { hit[NR] = 1; nhit++ }
		}
		END {
			for (i in hit)
				if (msgs[i] ~ /^[[:space:]]*Call Trace:/ && trace_ignored(i)) {
					delete hit[i]; nhit--
				}
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


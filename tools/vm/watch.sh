#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/watch.sh - vm-run -w: a guest that stops printing, sourced by
# tools/vm-run.
#
# The guest's own watchdogs (softlockup_panic, hung_task_panic, oops=panic)
# turn most hangs into a panic that ends the VM.  A hang they cannot see
# goes on until vm-run's -t, hours for a whole suite: every task waiting
# in a killable or interruptible sleep for something that never comes
# (a virtio-9p request QEMU never answers, a tty write nobody drains), or
# a CPU spinning with interrupts off, which TCG's CPUs, with no NMI
# watchdog, never report.  Every test prints as it goes and guest-suite
# kills one that runs past its own timeout, so a console silent for
# longer than that is such a hang.
#
# QEMU gets a human monitor on a pair of FIFOs; when console.log has not
# grown for -w's time, the watcher presses Magic SysRq keys on the guest's
# PS/2 keyboard (the kernel has sysrq_always_enabled): 9 puts every message
# on the console, w shows the blocked tasks, l every CPU's stack (an NMI
# to each, which works under TCG) and t every task.  Whatever the kernel
# can still print lands in console.log; then QEMU is ended and vm-run's
# verdict is "silent".
#
# The caller sets: results, silence_s and the array qemu.
# shellcheck disable=SC2154 # those are the caller's

# vm_watch_argv: QEMU's monitor for the watcher, appended to qemu
vm_watch_argv() {
	[[ $silence_s -gt 0 ]] || return 0
	watch_dir=$(mktemp -d "${TMPDIR:-/tmp}/vm-run-watch.XXXXXX")
	mkfifo "$watch_dir/mon.in" "$watch_dir/mon.out"
	# shellcheck disable=SC2054 # commas are QEMU's
	qemu+=(
		-chardev "pipe,id=ppmon,path=$watch_dir/mon"
		-mon chardev=ppmon,mode=readline
	)
}

# vm_watch_stop: the watcher gone (QEMU has exited, or vm-run is leaving)
vm_watch_stop() {
	if [[ -n ${watch_pid:-} ]]; then
		kill "$watch_pid" 2>/dev/null || true
		wait "$watch_pid" 2>/dev/null || true
		watch_pid=
	fi
}

# vm_watch_cleanup: the watcher and its FIFOs gone
vm_watch_cleanup() {
	vm_watch_stop
	[[ -z ${watch_dir:-} ]] || rm -rf -- "$watch_dir"
	watch_dir=
}

# console_size: bytes in console.log so far
console_size() {
	stat -c %s "$results/console.log" 2>/dev/null || echo 0
}

# vm_watch_loop PID: in the background while PID (timeout(1) running QEMU)
# lives; on a silence of -w's time, the SysRq dumps and PID's end
vm_watch_loop() {
	local pid=$1 size last quiet=0 key settle
	last=$(console_size)
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		size=$(console_size)
		if [[ $size -ne $last ]]; then
			last=$size
			quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		[[ $quiet -ge $silence_s ]] || continue

		printf '%s\n' "$silence_s" >"$results/.vm/silent"
		echo "vm-run: the guest console printed nothing for ${silence_s}s; asking the guest kernel for its stacks (SysRq w, l, t)" >&2
		# The monitor's replies are of no use: drain them so that
		# QEMU never blocks on a full FIFO.
		cat "$watch_dir/mon.out" >/dev/null 2>&1 &
		for key in 9 w l t; do
			printf 'sendkey alt-sysrq-%s\n' "$key" >"$watch_dir/mon.in"
			sleep 3
		done
		# every task's stack takes a while at 115200 baud: wait until
		# the console has been still for 10 s, at most 120 s
		last=$(console_size)
		settle=0
		for _ in $(seq 24); do
			sleep 5
			size=$(console_size)
			if [[ $size -eq $last ]]; then
				settle=$((settle + 5))
				[[ $settle -lt 10 ]] || break
			else
				settle=0
				last=$size
			fi
		done
		kill -TERM "$pid" 2>/dev/null || true
		return 0
	done
}

# vm_watch_start PID: the watcher, if -w asked for one
vm_watch_start() {
	[[ $silence_s -gt 0 ]] || return 0
	rm -f "$results/.vm/silent"
	vm_watch_loop "$1" &
	watch_pid=$!
}

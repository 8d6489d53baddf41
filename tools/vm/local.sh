#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/vm/local.sh - the "local root" of tools/vm-run -l, sourced by it.
#
# A guest that suspends cannot keep its filesystems on virtio-9p: the 9p
# transport has no freeze or restore callbacks, so a suspend cycle resets
# its queues under the mounts and every later access hangs.  With -l, the
# command runs instead from a copy in the guest's RAM of what it needs:
# the files and directories named, the command's program, a few shell
# tools, everything they link to, and the kernel modules the guest loads.
# The copy travels as a cpio archive on the results share, which the guest
# unpacks into a tmpfs and chroots into before the command starts; from
# then on nothing touches 9p.  The results come back as a tar archive that
# the guest writes to a virtio disk (virtio-blk survives suspend) and that
# vm-run unpacks into the results directory once QEMU has exited.
#
# The caller sets: kver, kcache, kmods, results, busybox, modules, cmd,
# local_paths and die().
# shellcheck disable=SC2154 # those are the caller's

# Programs every local root has: what tools/guest-suite and the guest's
# last steps run.
LOCAL_ROOT_TOOLS=(bash sh env cat cp mkdir rm ls ln sleep timeout tee sed tr
	grep awk sort uniq head tail wc cut find xargs date dmesg sync mount
	umount mountpoint stat readlink basename dirname chmod true false tar
	kmod modprobe rmmod insmod lsmod)
# Modules the guest needs besides the ones it was told to load: the disk
# the results leave on, and what tools/guest-suite loads before each test.
LOCAL_ROOT_MODULES=(virtio_blk primebuf primebuf_selftest vdisplay vrender)
# Size of the disk the results come back on
LOCAL_OUT_SIZE=256M

# local_copy TREE PATH: PATH into TREE at the same place, symbolic links
# followed to their targets (copied too), ELF files with their libraries
local_copy() {
	local tree=$1 path=$2 target lib dir
	[[ -e $path || -L $path ]] || die "-l: $path does not exist"
	# Into the directory's real path: the tree's copies of the host's
	# top-level links lead the other names there.
	dir=$(realpath -- "$(dirname -- "$path")")
	[[ ! -e $tree$dir/${path##*/} && ! -L $tree$dir/${path##*/} ]] || return 0
	mkdir -p "$tree$dir"
	cp -a -- "$path" "$tree$dir/" || die "-l: cannot copy $path"
	if [[ -L $path ]]; then
		# Each link on the way (/usr/bin/awk -> /etc/alternatives/awk
		# -> /usr/bin/mawk), not just the last target
		target=$(readlink -- "$path")
		[[ $target == /* ]] || target=$dir/$target
		local_copy "$tree" "$target"
		return 0
	fi
	[[ -f $path && $(head -c4 -- "$path" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] ||
		return 0
	# The libraries ldd names, and the program interpreter
	while read -r lib; do
		local_copy "$tree" "$lib"
	done < <(ldd -- "$path" 2>/dev/null |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
}

# local_copy_tree TREE DIR: every file below DIR, with its libraries
local_copy_tree() {
	local tree=$1 dir=$2 f
	while IFS= read -r -d '' f; do
		local_copy "$tree" "$f"
	done < <(find "$dir" \( -type f -o -type l \) -print0)
}

# vm_local_root_build: $results/.vm/local-root.cpio and the empty results
# disk $results/.vm/local-out.img
vm_local_root_build() {
	local tree m line f p top prog mod_dir
	local -a kos=()
	tree=$(mktemp -d "${TMPDIR:-/tmp}/vm-run-local.XXXXXX")
	# The host's merged-/usr links first, so that copies land behind them.
	for top in bin sbin lib lib32 lib64 libx32; do
		[[ -L /$top ]] || continue
		ln -s "$(readlink "/$top")" "$tree/$top"
		mkdir -p "$tree/$(readlink -f "/$top")"
	done
	mkdir -p "$tree"/{proc,sys,dev,tmp,run,root}
	for prog in "${LOCAL_ROOT_TOOLS[@]}"; do
		p=$(type -P "$prog") || die "-l: $prog missing on the host"
		local_copy "$tree" "$p"
	done
	local_copy "$tree" "$(realpath -- "$(type -P "${cmd[0]}")")"
	for p in "${local_paths[@]}"; do
		p=$(realpath -- "$p")
		if [[ -d $p ]]; then
			local_copy_tree "$tree" "$p"
		else
			local_copy "$tree" "$p"
		fi
	done
	mkdir -p "$tree/usr/local/bin"
	cp "$busybox" "$tree/usr/local/bin/busybox"

	# The modules: each one's file and dependencies, and the indexes.
	mod_dir=/lib/modules/$kver
	[[ ! -L /lib ]] || mod_dir=/usr/lib/modules/$kver
	for m in "${LOCAL_ROOT_MODULES[@]}" "${modules[@]}"; do
		while read -r line; do
			case $line in
			insmod\ *) f=${line#insmod } f=${f%% *} ;;
			*) continue ;;
			esac
			[[ " ${kos[*]} " == *" $f "* ]] || kos+=("$f")
		done < <(modprobe -d "$kcache" -S "$kver" --show-depends "$m" 2>/dev/null)
	done
	for f in "${kos[@]}" "$kmods"/modules.*; do
		p=$tree$mod_dir/${f#"$kmods"/}
		mkdir -p "$(dirname "$p")"
		cp -- "$f" "$p"
	done

	(cd "$tree" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 >"$results/.vm/local-root.cpio") ||
		{ rm -rf -- "$tree"; die "-l: cpio failed"; }
	rm -rf -- "$tree"
	rm -f -- "$results/.vm/local-out.img"
	truncate -s "$LOCAL_OUT_SIZE" "$results/.vm/local-out.img"
}

# vm_local_results: unpack what the guest wrote to the results disk
vm_local_results() {
	local img=$results/.vm/local-out.img
	[[ -f $img ]] || return 0
	# An archive starts with a name: a first block of zeros is no archive.
	if [[ $(head -c 512 "$img" | tr -d '\0' | wc -c) -gt 0 ]]; then
		tar -xf "$img" -C "$results" ||
			echo "vm-run: cannot unpack the local root's results from $img" >&2
	fi
	rm -f -- "$img" "$results/.vm/local-root.cpio"
}

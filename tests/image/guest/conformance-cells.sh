#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by pair-test.sh when the test disk holds cells.txt (written by
# tests/conformance/image-matrix.py): the rnic <-> rnic negotiation cells, run
# in the pair's boot after its own tests. Line N of cells.txt is cell N:
#   NAME SERVER_PARAMS CLIENT_PARAMS     (k=v,... for /sys/module/rnic/parameters)
# Each side sets its driver's CM parameters (they apply to new connections),
# then guest 1 serves rping -V on port 7200+N and guest 2 connects. Each side
# prints RESULT cell name=NAME side=ROLE rc=RC pings=N; the host judges those
# together with guest 1's capture of the wire.
CELL_PINGS=10 CELL_SIZE=4096

rnic_params() { # rnic_params k=v,...
	local kv p=/sys/module/rnic/parameters
	for kv in ${1//,/ }; do
		[ -w "$p/${kv%%=*}" ] || { say "rnic has no writable parameter ${kv%%=*}"; return 1; }
		echo "${kv#*=}" >"$p/${kv%%=*}" || return 1
	done
}

run_cells() {
	local n=0 name sp cp port rc out first=1 tmo
	while read -r name sp cp; do
		n=$((n + 1))
		{ [ -z "$name" ] || [ "${name:0:1}" = '#' ]; } && continue
		port=$((7200 + n))
		say "cell $n $name: server $sp, client $cp"
		if [ "$ROLE" = server ]; then
			rnic_params "$sp" || { result "cell name=$name side=$ROLE rc=params pings=0"; continue; }
			# The first cell waits for the client to finish its NVMe-oF test.
			[ $first = 1 ] && tmo=900 || tmo=150
			out=$(timeout $tmo rping -s -V -a "$IP" -p $port -C $CELL_PINGS -S $CELL_SIZE 2>&1)
			rc=$?
			echo "$out" | tail -3
			result "cell name=$name side=$ROLE rc=$rc pings=$CELL_PINGS"
		else
			rnic_params "$cp" || { result "cell name=$name side=$ROLE rc=params pings=0"; continue; }
			out=$(retry 140 rping -c -V -v -a "$PEER" -p $port -C $CELL_PINGS -S $CELL_SIZE)
			rc=$?
			echo "$out" | tail -2
			result "cell name=$name side=$ROLE rc=$rc pings=$(echo "$out" | grep -c 'ping data')"
		fi
		first=0
	done </run/rnic-test/cells.txt
	# Back to the driver's defaults for what follows.
	rnic_params mpa_crc=1,mpa_markers=0,mpa_p2p=0,mpa_rev=2
}

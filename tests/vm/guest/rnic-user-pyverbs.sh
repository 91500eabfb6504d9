#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# rdma-core's own pyverbs tests (the source tree's tests/, run with the staged
# pyverbs) on one guest's RDMA device through the rnic provider: the modules
# that apply to an iWARP RC device (RNIC_PYVERBS_MODULES). Every test's outcome
# is printed; a RESULT line counts ran/passed/skipped/failed/errors. Failures
# and errors fail the test. Then rnic-user-post-errors.py: the provider's
# answers to bad work requests (EINVAL/ENOMEM, bad_wr), which rdma-core's
# tests do not check; and rnic-user-cq-overrun.py: what an application sees of
# a CQ overrun (IBV_EVENT_CQ_ERR, IBV_EVENT_QP_FATAL, its QP in error); and
# rnic-user-resize-rereg.py: ibv_resize_cq under traffic and ibv_rereg_mr
# used remotely with the data checked, over a connection to this guest's own
# address (loopback: nothing on the wire); and rnic-user-mw.py: memory windows
# of both types bound, used through their rkeys, revoked, the same way.
. "$RNIC_LAB_DIR/guest/lib.sh"
set -o pipefail
net_up
rdma_up
use_staged_rdma_core
SRC=$RNIC_CACHE/src/rdma-core-56.1/tests
[ -f "$SRC/run_tests.py" ] || fail "no rdma-core source tests in $SRC (scripts/setup/rdma-core.sh)"
export PYTHONPATH=$RNIC_STAGE/lib/python3/dist-packages
cd /tmp || fail "cd /tmp"

sel=()
for m in ${RNIC_PYVERBS_MODULES:-test_device test_pd test_cq test_cq_events test_mr test_qp test_srq test_addr}; do
	sel+=(-k "$m")
done
out=$(timeout 600 python3 -B "$SRC/run_tests.py" --dev "$DEV" -v "${sel[@]}" 2>&1)
rc=$?
echo "$out"
ran=$(echo "$out" | sed -n 's/^Ran \([0-9]*\) test.*/\1/p')
skipped=$(echo "$out" | grep -cE ' \.\.\. skipped')
failed=$(echo "$out" | grep -cE ' \.\.\. FAIL$')
errors=$(echo "$out" | grep -cE ' \.\.\. ERROR$')
passed=$(echo "$out" | grep -cE ' \.\.\. ok$')
result "pyverbs-${RNIC_NIC%%,*}" ran="${ran:-0}" passed="$passed" skipped="$skipped" failed="$failed" errors="$errors"
[ -n "$ran" ] && [ "$ran" -gt 0 ] || fail "pyverbs ran no test (rc $rc)"
[ "$failed" = 0 ] && [ "$errors" = 0 ] || fail "pyverbs: $failed failed, $errors errors"
[ $rc = 0 ] || fail "run_tests.py exited $rc"

# Prints its checks and its own RESULT line.
timeout 120 python3 -B "$RNIC_LAB_DIR/guest/rnic-user-post-errors.py" "$DEV" ||
	fail "post-errors: a check failed (exit $?)"
timeout 120 python3 -B "$RNIC_LAB_DIR/guest/rnic-user-cq-overrun.py" "$DEV" ||
	fail "cq-overrun: a check failed (exit $?)"
timeout 300 python3 -B "$RNIC_LAB_DIR/guest/rnic-user-resize-rereg.py" "$RNIC_IP" 7177 ||
	fail "resize-rereg: a check failed (exit $?)"
timeout 120 python3 -B "$RNIC_LAB_DIR/guest/rnic-user-mw.py" "$RNIC_IP" 7178 ||
	fail "mw: a check failed (exit $?)"
exit 0

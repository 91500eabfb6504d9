#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Seed corpus for fuzz-state: state streams the engine itself writes.

run-fuzz.sh builds the harness next to the corpus directory before it runs
this script; the harness, started with FUZZ_STATE_SEEDS=DIR, builds devices
through admin commands (fresh, enabled, every connection-free object kind
with latched doorbells and queued frames, the same after a pass, then
with a connection to its own listener, idle and with a Read under way), saves
each into DIR and exits.  Streams of the current format, so the seeds
follow it without a second encoder to keep in step."""
import os, subprocess, sys

corpus = sys.argv[1]
harness = os.path.join(os.path.dirname(os.path.abspath(corpus)), 'fuzz-state')
subprocess.run([harness], env=dict(os.environ, FUZZ_STATE_SEEDS=corpus),
               check=True)
print('make-state-seeds: %d seeds in %s' % (
    len([n for n in os.listdir(corpus) if n.startswith('seed-')]), corpus))

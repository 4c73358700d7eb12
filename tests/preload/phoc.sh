#!/bin/sh
# Debian's phoc (0.46 on wlroots 0.18), phosh's compositor, unmodified,
# with liblinkguard-preload.so and the simulated link: a 4K60 monitor's
# cable drops to RBR. phoc maximizes the window. Side by side, without and
# with recovery (side-by-side.sh).
#
# Debian testing's phoc (0.58) builds its own wlroots into the executable,
# where a preload cannot reach it: the test skips there, saying so.
#
#   phoc.sh PRELOAD LINKCTL SCENARIO TOPLEVEL
set -u

usage="usage: $0 PRELOAD LINKCTL SCENARIO TOPLEVEL"
preload=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
toplevel=${4:?$usage}

LG_LOG_NAME=phoc LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/expect.sh"
. "$(dirname "$0")/side-by-side.sh"

preload_reaches phoc
preload_fits "$preload" phoc
# phoc's settings come from GSettings: the schemas' defaults, not the
# user's. It asks a session bus for the screensaver and goes on without.
export GSETTINGS_BACKEND=memory
side_by_side phoc phoc

#!/bin/sh
# Debian's cage (0.2.0 on wlroots 0.18, 0.3.1 on 0.20), unmodified, with
# liblinkguard-preload.so and the simulated link: a 4K60 monitor's cable
# drops to RBR. cage is a kiosk: it runs one application, lg-toplevel, and
# exits with it; it fills the output with that window. Side by side,
# without and with recovery (side-by-side.sh).
#
#   cage.sh PRELOAD LINKCTL SCENARIO TOPLEVEL
set -u

usage="usage: $0 PRELOAD LINKCTL SCENARIO TOPLEVEL"
preload=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
toplevel=${4:?$usage}

LG_LOG_NAME=cage LG_LOG_LINES=40
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/expect.sh"
. "$(dirname "$0")/side-by-side.sh"

preload_reaches cage
preload_fits "$preload" cage
side_by_side cage cage -- @client@

#!/bin/sh
# Debian's wayfire (0.9.0 on wlroots 0.18), unmodified, with
# liblinkguard-preload.so and the simulated link: a 4K60 monitor's cable
# drops to RBR. Side by side, without and with recovery (side-by-side.sh),
# the window tiled over the output by wayfire.ini.
#
# wayfire 0.9 renders with GLES2 only, on the backend's DRM device or on
# WLR_RENDER_DRM_DEVICE (its main.cpp; WLR_RENDERER=pixman is never asked),
# and wlroots' headless backend has no DRM device. The test takes the first
# DRM node it may open, when WLR_RENDER_DRM_DEVICE names none; without one
# wayfire exits at start and the test skips, quoting it.
#
# Where it runs (a render node, or vkms's card node with llvmpipe), wayfire
# 0.9 does not follow the fallback: its request_state handler commits the
# mode, so wl_output says 2560x1440, but its output layout only follows
# mode changes on nested outputs (output-layout.cpp, handle_mode_changed()
# for Wayland and X11 outputs), so wlr-randr and the window stay at 4K and
# its next frames, 4K buffers, fail wlroots' output test. The test fails
# there, saying so.
#
#   wayfire.sh PRELOAD LINKCTL SCENARIO TOPLEVEL
set -u

usage="usage: $0 PRELOAD LINKCTL SCENARIO TOPLEVEL"
preload=${1:?$usage}
linkctl=${2:?$usage}
scenario=${3:?$usage}
toplevel=${4:?$usage}

LG_LOG_NAME=wayfire LG_LOG_LINES=${LG_LOG_LINES:-40}
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/expect.sh"
. "$(dirname "$0")/side-by-side.sh"

preload_reaches wayfire
preload_fits "$preload" wayfire
if [ -z "${WLR_RENDER_DRM_DEVICE:-}" ]; then
	for node in /dev/dri/renderD* /dev/dri/card*; do
		if [ -r "$node" ] && [ -w "$node" ]; then
			export WLR_RENDER_DRM_DEVICE="$node"
			echo "wayfire renders on $node"
			break
		fi
	done
fi
# Without a GPU, Mesa renders on the node in software (llvmpipe), which
# wlroots' EGL setup refuses unless asked.
export WLR_RENDERER_ALLOW_SOFTWARE=1
cannot_run='Failed to get DRM file descriptor'
cannot_run_why='no DRM node to render on; it renders with GLES2 only'
config=$(dirname "$0")/wayfire.ini
# wayfire refuses to start while it could regain root (its main.cpp,
# drop_permissions()): as root, it runs as nobody, in the DRM node's group,
# with the runtime directory its own. What it reads is copied there: a
# checkout may sit in a directory only root may enter.
if [ "$(id -u)" = 0 ]; then
	own=$dir/nobody
	mkdir "$own"
	cp "$config" "$preload" "$scenario" "$own/"
	ldd "$preload" | awk '$3 ~ /^\// && $3 !~ /^\/(usr\/)?lib/ { print $3 }' |
		xargs -r cp -t "$own/"
	config=$own/wayfire.ini preload=$own/$(basename "$preload")
	export LINKGUARD_SIM="$own/$(basename "$scenario")"
	export LD_LIBRARY_PATH="$own${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	chown -R 65534:65534 "$dir"
	groups=--clear-groups
	[ -n "${WLR_RENDER_DRM_DEVICE:-}" ] &&
		groups=--groups=$(stat -c %g "$WLR_RENDER_DRM_DEVICE")
	set -- setpriv --reuid=65534 --regid=65534 "$groups"
fi
side_by_side wayfire "$@" wayfire -c "$config"

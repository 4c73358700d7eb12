#ifndef LINKGUARD_COMMIT_H
#define LINKGUARD_COMMIT_H

/*
 * How linkguard's recovery commits reach the output. By default linkguard
 * commits them itself (wlr_output_commit_state). A compositor that keeps its
 * own output configuration sets a hook in lg_options so that the fallback
 * becomes its configuration too; otherwise its next re-apply would put the
 * pruned mode back.
 *
 * A hook must have committed state (or an equivalent one) when it returns:
 * on DRM the commit has to land before wlroots' own hotplug handler reads
 * link-status, or wlroots destroys and recreates the output.
 */

#include <stdbool.h>

struct wlr_output;
struct wlr_output_state;

/** Returns whether output now runs state. */
typedef bool (*lg_commit_func_t)(struct wlr_output *output,
	const struct wlr_output_state *state, void *data);

/**
 * A ready-made hook for compositors that handle wlr_output.events.request_state
 * synchronously, as sway does: a mode change is sent as a MODE-only request
 * (sway 1.11+ asserts nothing else is requested, and stores the mode as the
 * output's configuration; sway 1.10 commits it). A same-mode retrain or a
 * disable, which a request cannot express, and a request the compositor left
 * unapplied are committed directly. data is unused.
 */
bool lg_commit_request_state(struct wlr_output *output,
	const struct wlr_output_state *state, void *data);

#endif

// SPDX-License-Identifier: GPL-2.0-only
/*
 * lg_link_fault's view of modesets, TEST CODE: every CRTC of the device
 * gets a copy of its helper vtable whose atomic_enable and atomic_disable
 * call the driver's, then tell measure.c (the figures) and dpcd.c (the sink
 * trains its link when a modeset lights it, and loses it when the CRTC goes
 * off).
 *
 * drm_atomic_helper_commit_modeset_enables() and _disables() call these for
 * committed states only (TEST_ONLY commits never reach them) and only when
 * drm_atomic_crtc_needs_modeset() holds: a mode change, the CRTC turned on
 * or off, or a link-status write, which drm_atomic_helper_check_modeset()
 * turns into connectors_changed (a retrain). A modeset that keeps the CRTC
 * lit disables and enables it in one commit.
 */
#include <linux/module.h>
#include <drm/drm_atomic.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_modeset_helper_vtables.h>
#include "lg_link_fault.h"

#define LG_MAX_CRTCS 8

/* A CRTC whose helper vtable was swapped for a copy with our hooks. */
struct lg_watched_crtc {
	struct drm_crtc *crtc;
	const struct drm_crtc_helper_funcs *orig;
	struct drm_crtc_helper_funcs funcs;
};

/*
 * Set at module init, before the vtables that read them are installed, and
 * never changed until exit: the callbacks look them up unlocked.
 */
static struct lg_watched_crtc watched[LG_MAX_CRTCS];

static const struct drm_crtc_helper_funcs *orig_funcs(struct drm_crtc *crtc)
{
	for (int i = 0; i < LG_MAX_CRTCS; i++) {
		if (watched[i].crtc == crtc)
			return watched[i].orig;
	}
	return NULL;
}

static void lg_crtc_atomic_enable(struct drm_crtc *crtc,
				  struct drm_atomic_state *state)
{
	struct drm_crtc_state *new = drm_atomic_get_new_crtc_state(state, crtc);

	orig_funcs(crtc)->atomic_enable(crtc, state);
	lg_dpcd_crtc_enabled(new);
	lg_measure_crtc_enabled(crtc, new);
}

static void lg_crtc_atomic_disable(struct drm_crtc *crtc,
				   struct drm_atomic_state *state)
{
	struct drm_crtc_state *old = drm_atomic_get_old_crtc_state(state, crtc);
	struct drm_crtc_state *new = drm_atomic_get_new_crtc_state(state, crtc);

	lg_measure_crtc_disabling(old);
	lg_dpcd_crtc_disabling(old, new);
	orig_funcs(crtc)->atomic_disable(crtc, state);
	lg_measure_crtc_disabled(old, new);
	lg_dpcd_crtc_disabled(old, new);
}

int lg_crtc_watch(struct drm_device *dev)
{
	struct drm_crtc *crtc;
	int n = 0;

	drm_for_each_crtc(crtc, dev) {
		const struct drm_crtc_helper_funcs *orig = crtc->helper_private;
		struct lg_watched_crtc *w;

		if (n == LG_MAX_CRTCS) {
			lg_crtc_unwatch();
			return -ENOSPC;
		}
		w = &watched[n];
		// Without these (legacy helpers) nothing here would be called.
		if (!orig || !orig->atomic_enable || !orig->atomic_disable) {
			lg_crtc_unwatch();
			return -EOPNOTSUPP;
		}
		w->orig = orig;
		w->funcs = *orig;
		w->funcs.atomic_enable = lg_crtc_atomic_enable;
		w->funcs.atomic_disable = lg_crtc_atomic_disable;
		w->crtc = crtc;
		drm_crtc_helper_add(crtc, &w->funcs);
		n++;
	}
	return 0;
}

/* The entries stay: a commit tail may still be in one of our hooks. */
void lg_crtc_unwatch(void)
{
	for (int i = 0; i < LG_MAX_CRTCS; i++) {
		if (watched[i].crtc)
			drm_crtc_helper_add(watched[i].crtc, watched[i].orig);
	}
}

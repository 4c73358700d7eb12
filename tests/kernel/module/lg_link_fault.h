/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef LG_LINK_FAULT_H
#define LG_LINK_FAULT_H

/*
 * What the parts of lg_link_fault ask of each other: fault.c (the
 * triggers), crtc.c (the modeset hooks), measure.c (the figures the
 * compositor comparisons read), dpcd.c (the sink's DPCD over an AUX
 * channel of our own) and edid.c (the monitor's EDID).
 */

#include <linux/types.h>

struct drm_connector;
struct drm_crtc;
struct drm_crtc_state;
struct drm_device;

/*
 * Calls add(connector, n) for each of dev's connectors, writeback ones
 * aside, n counting from 0, with the caller's locks held: the sinks and
 * the monitors number theirs alike. Stops at add's first error, or with
 * -ENOSPC at the max-th connector (fault.c).
 */
int lg_for_each_connector(struct drm_device *dev, int max,
			  int (*add)(struct drm_connector *connector, int n));

/* Hooks every CRTC of dev's modesets (crtc.c); unwatch puts the vtables back. */
int lg_crtc_watch(struct drm_device *dev);
void lg_crtc_unwatch(void);

/*
 * Starts a measurement on connector: its CRTCs' modesets are counted and
 * the clock waits for the next injected failure.
 */
void lg_measure_mark(struct drm_connector *connector);

/* A failure was injected on connector: the first one after a mark starts the clock. */
void lg_measure_failure(struct drm_connector *connector);

/* A CRTC was enabled; is being disabled (before the driver); was disabled. */
void lg_measure_crtc_enabled(struct drm_crtc *crtc,
			     const struct drm_crtc_state *new);
void lg_measure_crtc_disabling(const struct drm_crtc_state *old);
void lg_measure_crtc_disabled(const struct drm_crtc_state *old,
			      const struct drm_crtc_state *new);

/* Waits for the events measure.c armed. */
void lg_measure_exit(void);

/*
 * Registers a DP AUX channel serving a scripted DPCD on each of dev's
 * connectors (writeback ones aside); exit unregisters them.
 */
int lg_dpcd_init(struct drm_device *dev);
void lg_dpcd_exit(void);

/*
 * Gives each of dev's connectors (writeback ones aside) a monitor with an
 * EDID of its own (edid.c); exit takes them away.
 */
int lg_edid_init(struct drm_device *dev);
void lg_edid_exit(void);

/* A modeset that keeps a CRTC lit begins: the link it drives retrains. */
void lg_dpcd_crtc_disabling(const struct drm_crtc_state *old,
			    const struct drm_crtc_state *new);
/* A modeset lit a CRTC: the sinks it drives train their link for its mode. */
void lg_dpcd_crtc_enabled(const struct drm_crtc_state *new);
/* A hotplug uevent was sent for connector: its link may still settle. */
void lg_dpcd_uevent(struct drm_connector *connector);
/* A CRTC went off: the sinks it drove lose their link. */
void lg_dpcd_crtc_disabled(const struct drm_crtc_state *old,
			   const struct drm_crtc_state *new);

/*
 * The triggers: the link goes dark (relocking at the next modeset whose
 * link rate is at most max_mbps, any when 0); symbol errors accrue at
 * per_second on every lane in use (0: stop); AUX transfers fail or work.
 */
int lg_dpcd_dark(struct drm_connector *connector, int max_mbps);
int lg_dpcd_errors(struct drm_connector *connector, int per_second);
int lg_dpcd_aux_fail(struct drm_connector *connector, bool fail);
int lg_dpcd_aux_slow(struct drm_connector *connector, int delay_ms);

#endif

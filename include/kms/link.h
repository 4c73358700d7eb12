#ifndef KMS_LINK_H
#define KMS_LINK_H

/*
 * The DisplayPort link the kernel would train a mode at (choose_link of
 * linkguard/backend.h), predicted from what the kernel and the sink say:
 * the sink's rates and lanes (its DPCD capabilities), the connector's
 * "max bpc", the driver's current maximum (i915 and xe: debugfs; others:
 * inferred from the modes it lists), and i915's rule for the choice
 * (dp/i915.h), which amdgpu's decide_dp_link_settings() shares: the lowest
 * rate, then the fewest lanes. The link the sink reports after a modeset
 * corrects the prediction for that mode.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dp/caps.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

#define DRM_LINK_TRAINED_MAX 8

struct drm_connector;
struct kms_connector_state;

/* A mode and the link the sink reported after the kernel trained it. */
struct drm_link_trained {
	struct lg_mode mode;
	struct lg_link_params link;
};

struct drm_link {
	bool stale; // the maximum or max bpc may have changed: read them again
	bool caps_read; // for this output, whether they were readable or not
	struct dp_sink_caps caps; // what the sink said, else any 8b/10b link
	int max_error; // how the last read of the driver's maximum failed, or 0
	bool has_max;
	bool max_inferred; // not read: the smallest that keeps the listed modes
	struct lg_link_params max; // the driver's maximum
	bool has_bpc; // max_bpc was read (with the connector's state)
	uint32_t max_bpc;
	bool has_lit;
	struct lg_mode lit; // the mode of the last commit that lit the output
	// Read back where the prediction was wrong, since max last changed.
	struct drm_link_trained trained[DRM_LINK_TRAINED_MAX];
	size_t n_trained;
};

/* A new output on the connector: nothing is known of its link. */
void drm_link_reset(struct drm_connector *dc);
/* The driver may have lowered its maximum (link-status BAD, a probe). */
void drm_link_changed(struct drm_connector *dc);
/*
 * The connector's state was read (its link-status, at an event): its
 * max bpc is kept from it, so that a prediction reads no state of its own
 * (the BAD that event carried is read once).
 */
void drm_link_state_read(struct drm_connector *dc,
	const struct kms_connector_state *state);
/* A commit set mode on the output; NULL: the output went off. */
void drm_link_committed(struct drm_connector *dc, const struct lg_mode *mode);
/*
 * The sink answered a DPCD read: its capabilities are read too, once per
 * output. The AUX device is free then (the core's schedule of reads).
 */
void drm_link_read_caps(struct drm_connector *dc);
/* The sink reports the link trained for the mode that runs. */
void drm_link_read_back(struct drm_connector *dc,
	const struct lg_link_params *trained);
/* The link the kernel would train mode at; false when it would not. */
bool drm_link_choose(struct drm_connector *dc, const struct lg_mode *mode,
	struct lg_link_params *params);

#endif

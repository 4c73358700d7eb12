#ifndef KMS_DEVICE_H
#define KMS_DEVICE_H

/*
 * One DRM device (a GPU) as backend/drm watches it: its session device's
 * hotplug events, its backend's new outputs, and one drm_connector per
 * connector an output was seen on. lg_drm makes one per DRM backend; the
 * tests make one on a fake wlr_device and replayed kms_impl.
 */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <linkguard/log.h>
#include <kms/aux.h>
#include <kms/link.h>
#include <kms/reader.h>
#include <kms/kms.h>

struct lg_manager;
struct lg_connector;
struct wlr_backend;
struct wlr_device;
struct wlr_output;
struct wlr_session;

/* Why wlroots destroyed a connector's output. */
enum drm_destroy_cause {
	DRM_DESTROY_UNPLUG, // the sink left
	DRM_DESTROY_BAD_LINK, // wlroots' answer to BAD: a new output follows
	DRM_DESTROY_INACTIVE, // VT switch (wlroots 0.19+)
	DRM_DESTROY_OTHER, // a lease, the compositor, shutdown
};

struct drm_device {
	struct lg_manager *manager;
	struct wlr_session *session; // NULL: treated as always active
	struct wlr_device *dev;
	struct wlr_backend *backend; // emits this device's new outputs
	const struct kms_impl *kms;
	void *kms_data;
	const struct aux_impl *aux; // the sinks' DPCD
	void *aux_data;
	bool aux_denied_logged; // no access to an AUX device: said once
	uint32_t aux_timeout_ms; // a DPCD read not answered by then failed
	// The driver reports a failed link (BAD) and retrains a lost lock
	// itself (i915, xe): its sinks are read at events only (reads.c)
	bool reports_link;
	struct wl_list connectors; // drm_connector.link

	struct wl_listener change;
	struct wl_listener new_output;
	struct wl_listener session_active;
};

struct drm_connector {
	struct drm_device *device;
	struct lg_connector *conn;
	uint32_t id;
	struct kms_modes kms_modes; // the last list, as the kernel gave it
	bool probed; // wlroots probed the connector just now: no second probe
	uint32_t forced_probes; // DDC/AUX reads we caused, for tests and bench
	char *identity; // from the EDID, for the known-bad store; may be NULL
	int aux_fd; // the sink's AUX device, or -1
	struct aux_reader reader; // reads it within device->aux_timeout_ms
	int aux_error; // how the last DPCD read failed, 0: it did not
	struct drm_link dp; // what choose_link predicts from
	uint32_t aux_failures; // DPCD reads failed in a row
	bool internal; // an internal panel (eDP)
	bool retrain_disabled; // i915 stopped retraining the link (debugfs)
	enum drm_destroy_cause last_destroy;
	struct wl_listener output_destroy;
	struct wl_list link; // drm_device.connectors
};

/*
 * backend may be a DRM backend or, in tests, any backend kms knows; aux
 * reads the sinks' DPCD.
 */
struct drm_device *drm_device_create(struct lg_manager *manager,
	struct wlr_session *session, struct wlr_device *dev,
	struct wlr_backend *backend, const struct kms_impl *kms, void *kms_data,
	const struct aux_impl *aux, void *aux_data);
void drm_device_destroy(struct drm_device *device);
struct drm_connector *drm_device_find_connector(struct drm_device *device,
	uint32_t id);

/* A line of the log about a connector: "drm: DP-1: ...". */
#define drm_log(dc, importance, fmt, ...) \
	lg_log(importance, "drm: %s: " fmt, (dc)->conn->name, ##__VA_ARGS__)

/* reads.c */
/* The driver's name, and whether it reports failed links itself. */
void drm_device_read_driver(struct drm_device *device);
/*
 * What decides the connector's sink reads (lg_connector_impl.sink_reads):
 * its type, and whether i915 stopped retraining it. Cheap enough for
 * every hotplug event and every DPCD read.
 */
void drm_connector_update_reads(struct drm_connector *dc,
	const struct kms_connector_state *state);
uint32_t drm_connector_sink_reads(struct lg_connector *conn);
/*
 * A DPCD read failed or timed out (ret, a negative errno); said once per
 * streak. The second in a row backs the connector's AUX device off for
 * good, said once.
 */
void drm_connector_read_failed(struct drm_connector *dc, int ret);

/* connector.c */
struct drm_connector *drm_connector_create(struct drm_device *device,
	uint32_t id, struct wlr_output *output);
/* Binds a new output of this connector (after a replug or a recreate). */
void drm_connector_set_output(struct drm_connector *dc, struct wlr_output *output);
/*
 * Whether a hotplug naming this connector (or a bare one) is the core's to
 * answer: it has an output, is still connected and has link-status, read
 * into *link_status, the one read of it for the event.
 */
bool drm_connector_wants_check(struct drm_connector *dc,
	enum lg_link_status *link_status);

#endif

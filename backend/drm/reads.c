/*
 * Which sinks' DPCD is read, and how often (lg_connector_impl.sink_reads):
 * an AUX transaction is itself a fault source (a dock that drops the link
 * when read, a branch device that NAKs, a read that hangs for minutes), so
 * a sink is read where that finds what the driver does not report.
 *
 * i915 and xe report a link that failed to train (link-status BAD) and
 * retrain a sink's lost lock on its short HPD pulse themselves: their sinks
 * are read once the link settled after an event, to learn the trained
 * link, and polled only once i915 stopped retraining
 * (i915_dp_link_retrain_disabled, in debugfs where it is readable).
 * amdgpu, nouveau, msm and drivers we do not know report neither: polled.
 * An internal panel (eDP) is the core's to skip (linkguard(5) read-dpcd).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <wlr/backend/session.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <kms/device.h>

/* A sink that fails this many reads in a row is not read again. */
#define AUX_FAILURES_MAX 2

static bool driver_reports_link(const char *driver) {
	static const char *const reporting[] = { "i915", "xe" };
	for (size_t i = 0; i < sizeof(reporting) / sizeof(reporting[0]); i++) {
		if (strcmp(driver, reporting[i]) == 0) {
			return true;
		}
	}
	return false;
}

void drm_device_read_driver(struct drm_device *device) {
	const struct kms_impl *kms = device->kms;
	char driver[64];
	if (kms->driver_name == NULL ||
			!kms->driver_name(device->kms_data, driver, sizeof(driver))) {
		snprintf(driver, sizeof(driver), "unknown");
	}
	device->reports_link = driver_reports_link(driver);
	lg_log(LG_INFO, "drm: card%u: driver %s: sinks read %s",
		minor(device->dev->dev), driver, device->reports_link ?
		"once settled after events (the driver reports failed links)" :
		"after events and polled");
}

/* i915's "yes" (or a "1"): it gave up retraining the link. */
static bool read_retrain_disabled(const struct drm_connector *dc) {
	const struct drm_device *device = dc->device;
	char buf[16];
	if (device->kms->read_debugfs == NULL ||
			device->kms->read_debugfs(device->kms_data, dc->conn->name,
			"i915_dp_link_retrain_disabled", buf, sizeof(buf)) <= 0) {
		return false;
	}
	return strncmp(buf, "yes", 3) == 0 || buf[0] == '1';
}

void drm_connector_update_reads(struct drm_connector *dc,
		const struct kms_connector_state *state) {
	dc->internal = state->type == DRM_MODE_CONNECTOR_eDP;
	bool disabled = dc->device->reports_link && read_retrain_disabled(dc);
	if (disabled && !dc->retrain_disabled) {
		drm_log(dc, LG_INFO, "the driver stopped retraining the link: its "
			"sink is polled");
	}
	dc->retrain_disabled = disabled;
}

uint32_t drm_connector_sink_reads(struct lg_connector *conn) {
	const struct drm_connector *dc = conn->data;
	if (dc->aux_failures >= AUX_FAILURES_MAX) {
		return 0;
	}
	uint32_t reads = LG_SINK_READS_EVENTS;
	if (!dc->device->reports_link || dc->retrain_disabled) {
		reads |= LG_SINK_READS_POLL;
	}
	if (dc->internal) {
		reads |= LG_SINK_READS_INTERNAL;
	}
	return reads;
}

/*
 * A failed DPCD read is said once per streak of the same failure (a read
 * skipped behind a hung one is of the hung one's): a sink asleep or
 * unplugged mid-read does not answer AUX, and the next read may. A second
 * failure in a row is no such accident: the AUX device is left alone for
 * as long as the compositor runs.
 */
void drm_connector_read_failed(struct drm_connector *dc, int ret) {
	int error = ret == -EBUSY ? -ETIMEDOUT : ret;
	enum lg_log_importance importance =
		error == dc->aux_error ? LG_DEBUG : LG_INFO;
	dc->aux_error = error;
	if (ret == -ETIMEDOUT) {
		drm_log(dc, importance, "DPCD read not answered in %" PRIu32 " ms",
			dc->device->aux_timeout_ms);
	} else if (ret == -EBUSY) {
		drm_log(dc, importance, "DPCD read skipped: the last one still hangs");
	} else {
		drm_log(dc, importance, "DPCD read failed: %s", strerror(-ret));
	}
	if (++dc->aux_failures == AUX_FAILURES_MAX) {
		drm_log(dc, LG_INFO, "the sink's AUX device failed %d reads in a row "
			"(%s): not read again while the compositor runs",
			AUX_FAILURES_MAX, strerror(-error));
	}
}

#ifndef KMS_KMS_H
#define KMS_KMS_H

/*
 * The one seam between backend/drm and the kernel: every libdrm call the
 * DRM backend makes, the few wlroots calls that only work on DRM outputs
 * and the driver's debugfs files go through a kms_impl. backend/drm/kms.c
 * implements it on wlroots' DRM fd; the tests replay what real kernels
 * report through it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <xf86drmMode.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

struct wlr_backend;
struct wlr_output;
struct wlr_output_state;

/* A connector as the kernel last saw it, without probing it again. */
struct kms_connector_state {
	bool connected;
	bool has_link_status; // the connector has a link-status property
	enum lg_link_status link_status;
	uint32_t max_bpc; // the "max bpc" property; 0: the connector has none
	uint32_t type; // DRM_MODE_CONNECTOR_*: eDP is an internal panel
};

/* A connector's mode list (kernel timings, in the kernel's order). */
struct kms_modes {
	drmModeModeInfo *modes;
	size_t len;
};

struct kms_impl {
	/* The cached state: drmModeGetConnectorCurrent and its properties. */
	bool (*read)(void *data, uint32_t conn_id, struct kms_connector_state *state);
	/*
	 * The connector's modes. force: a forced probe (drmModeGetConnector:
	 * DDC/AUX reads, and what prunes modes after a link fallback); else the
	 * list as the last probe left it. *connected is what that probe saw.
	 */
	bool (*get_modes)(void *data, uint32_t conn_id, bool force,
		bool *connected, struct kms_modes *modes);
	/* The EDID blob (malloc'ed), or false when the connector has none. */
	bool (*get_edid)(void *data, uint32_t conn_id, void **edid, size_t *size);
	/* The DRM connector id of output when it is one of this device's, or 0. */
	uint32_t (*output_connector_id)(void *data, struct wlr_output *output);
	/* Puts the exact kernel timings into state as output's mode. */
	bool (*set_mode)(void *data, struct wlr_output *output,
		struct wlr_output_state *state, const drmModeModeInfo *info);
	/*
	 * The kernel's atomic check of info on output as the link is now, even
	 * when info is the mode already running (wlroots skips the kernel for
	 * an unchanged test).
	 */
	bool (*test_mode)(void *data, struct wlr_output *output,
		const drmModeModeInfo *info);
	/*
	 * Turns the connector's CRTC off (DPMS off), so that the commit of the
	 * mode that runs, which follows at once, is a modeset that retrains
	 * the link (drm_atomic_crtc_needs_modeset()).
	 */
	bool (*blank)(void *data, uint32_t conn_id);
	/*
	 * The kernel driver's name (drmGetVersion: "i915", "amdgpu") into
	 * name; false when the device does not say.
	 */
	bool (*driver_name)(void *data, char *name, size_t size);
	/*
	 * The driver's debugfs file of the connector called conn_name
	 * (dri/MINOR/<conn_name>/<file>, i915's link files) into buf, NUL
	 * terminated: the bytes read, or a negative errno (-ENOENT: no such
	 * file; -EACCES: debugfs is root's, as it mostly is).
	 */
	ssize_t (*read_debugfs)(void *data, const char *conn_name, const char *file,
		char *buf, size_t size);
};

void kms_modes_finish(struct kms_modes *modes);
/* The kernel's drm_mode_vrefresh() in mHz; 0 for nonsensical timings. */
int32_t kms_mode_refresh_mhz(const drmModeModeInfo *info);
/* The kernel mode as the policy sees it. */
struct lg_mode kms_mode_to_lg(const drmModeModeInfo *info);

/* The libdrm implementation's data: one DRM device as wlroots opened it. */
struct kms_libdrm {
	int fd; // wlroots' fd: never closed; written only by blank
	struct wlr_backend *backend; // the DRM backend driving fd
	uint32_t link_status_prop, edid_prop, dpms_prop; // property ids, found once
};

extern const struct kms_impl kms_libdrm_impl;

#define KMS_DEBUGFS_ROOT "/sys/kernel/debug"

/*
 * The file <root>/dri/<minor of card>/<name>/<file> (root: the debugfs
 * mount) into buf, NUL terminated: the bytes read, or a negative errno;
 * kms_impl.read_debugfs's answers.
 */
ssize_t kms_debugfs_read(const char *root, dev_t card, const char *name,
	const char *file, char *buf, size_t size);
/*
 * The link maximum the driver allows the connector called name ("DP-1")
 * now, where it says (i915 and xe: i915_dp_max_link_rate and
 * i915_dp_max_lane_count, through kms->read_debugfs). 0, or a negative
 * errno: -ENOENT (another driver, no debugfs), -EACCES (not readable by
 * us), -EINVAL (contents no driver writes).
 */
int kms_link_max_read(const struct kms_impl *kms, void *data, const char *name,
	struct lg_link_params *max);

#endif

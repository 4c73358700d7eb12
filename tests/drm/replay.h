#ifndef TESTS_DRM_REPLAY_H
#define TESTS_DRM_REPLAY_H

/*
 * A kms_impl that replays what a real kernel reports, for backend/drm on
 * wlroots' headless backend: per connector a sink's mode list, a link whose
 * bandwidth prunes modes on the next forced probe and decides the atomic
 * check, link-status, and the hotplug uevent sent through a fake session
 * device, and the sink's DPCD behind the connector's AUX device. "stock" mimics wlroots' own handler that runs after linkguard's:
 * on a BAD link it destroys the output and creates a new one.
 */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/backend/session.h>
#include <kms/device.h>
#include <kms/kms.h>
#include "stack/harness.h"

#define REPLAY_MAX_MODES 16
#define REPLAY_MAX_CONNECTORS 64
#define REPLAY_DPCD_SIZE 0x300 // up to the symbol error counters and past
#define REPLAY_AUX_FD_BASE 1000 // fds the replayed AUX devices hand out

struct replay;

struct replay_connector {
	struct replay *replay;
	uint32_t id;
	bool connected; // the kernel's cached state
	bool gone_on_probe; // a forced probe finds the sink gone
	bool has_link_status;
	enum lg_link_status link_status;
	uint32_t max_bpc; // the "max bpc" property; 0: none
	drmModeModeInfo sink[REPLAY_MAX_MODES]; // what the EDID lists
	size_t n_sink;
	drmModeModeInfo listed[REPLAY_MAX_MODES]; // the list the last probe left
	size_t n_listed;
	uint32_t link_khz; // the highest pixel clock the link carries now
	uint32_t cascade_khz; // nonzero: the next modeset above it fails again
	struct wlr_output *output;
	bool lit; // the CRTC is on at the mode below
	bool blank_fails; // DPMS off fails (no DPMS property, not master)
	int blanks; // DPMS offs
	int32_t lit_width, lit_height, lit_refresh_mhz;
	char name[32]; // the first output's, as DRM names the connector
	int forced_probes, recreates;
	int bad_reads; // connector reads that found link-status BAD
	int mode_tests; // the atomic checks of a mode
	/* The sink's DPCD and how its AUX device answers. */
	int aux_open_error; // 0, or the negative errno open returns
	int aux_read_error; // 0, or the negative errno every read returns
	bool aux_hangs; // reads never return: a dock that stopped answering
	uint32_t aux_reply_end; // nonzero: AUX transactions at or past it fail
	uint32_t aux_fail_below; // nonzero: AUX transactions below it fail
	size_t aux_short_by; // reads return this many bytes fewer
	uint8_t dpcd[REPLAY_DPCD_SIZE];
	uint8_t dpcd_ext[DPCD_EXT_CAPS_LEN]; // at DPCD_EXT_CAPS
	int aux_opens, aux_closes, aux_reads;
	uint32_t type; // DRM_MODE_CONNECTOR_*; 0: DisplayPort
	const char *serial; // the monitor's EDID's serial string; NULL: no EDID
	// i915_dp_link_retrain_disabled's text in debugfs ("yes\n"); NULL:
	// not readable
	const char *retrain_disabled;
	struct wl_listener commit;
	struct wl_listener destroy;
};

struct replay {
	struct wl_event_loop *loop;
	struct wlr_backend *backend; // headless
	struct wlr_session session; // fake: only active and events.active
	struct wlr_device dev; // fake: the session device of the "GPU"
	struct replay_connector conns[REPLAY_MAX_CONNECTORS];
	size_t n_conns;
	struct replay_connector *adding; // bound by the next new output
	const char *driver; // drmGetVersion's name; NULL: it names none
	struct wl_event_source *uevent_timer;
	uint32_t pending_uevent; // connector id of the queued uevent
	// i915's debugfs mount (tests write its files); empty: none (amdgpu).
	char debugfs[128];
	struct wl_listener stock_change; // wlroots' handler, after ours
	struct wl_listener stock_active;
};

extern const struct kms_impl replay_kms_impl;
/* data: struct replay; connectors are found by name. */
extern const struct aux_impl replay_aux_impl;

/*
 * All of it together: the scenario harness without the sim (a compositor
 * that enables what linkguard recommends, or a stock one), the replayed
 * kernel, backend/drm's device on it, and wlroots' own handler after ours.
 */
struct replay_bed {
	struct harness h;
	struct replay replay;
	struct drm_device *device;
};

/* options may be NULL (the harness's fast defaults). */
bool replay_bed_init(struct replay_bed *bed, const struct lg_options *options,
	bool stock_compositor);
void replay_bed_finish(struct replay_bed *bed);

void replay_init(struct replay *replay, struct wl_event_loop *loop,
	struct wlr_backend *backend);
/* Installs the stand-in for wlroots' own handlers (after linkguard's). */
void replay_add_stock(struct replay *replay);
void replay_finish(struct replay *replay);

/* Kernel timings for a w x h mode at about hz with this pixel clock (any). */
drmModeModeInfo replay_mode(uint16_t w, uint16_t h, uint32_t hz,
	uint32_t clock_khz, bool preferred);
/* A 4K60 monitor's list with CVT-RB clocks: 4K60, 4K30, 1440p60, 1080p60. */
size_t replay_monitor_4k(drmModeModeInfo modes[4]);
struct replay_connector *replay_add_connector(struct replay *replay,
	uint32_t id, const drmModeModeInfo *sink, size_t n_sink);
/* A sink appears: wlroots probes it and creates its output. */
void replay_plug(struct replay_connector *rc);
/*
 * The kernel lowers the link after a failed training: modes above
 * link_khz go on the next forced probe; link-status BAD.
 */
void replay_lower_link(struct replay_connector *rc, uint32_t link_khz);
/* Sends the hotplug uevent (0: a bare HOTPLUG=1) through the session device. */
void replay_uevent(struct replay *replay, uint32_t conn_id);
void replay_set_active(struct replay *replay, bool active);
/*
 * The sink's DPCD as a trained 8b/10b link: LINK_BW_SET bw_code, lanes,
 * every lane locked and aligned, the error counters valid and zero. Its
 * capabilities (below 0x100) stay.
 */
void replay_dpcd_trained(struct replay_connector *rc, uint8_t bw_code,
	uint32_t lanes);
/*
 * The sink loses lock on every lane, link-status stays GOOD, no uevent
 * (amdgpu's silent loss); the next modeset retrains it.
 */
void replay_dpcd_unlock(struct replay_connector *rc);
/*
 * The sink's capabilities: MAX_LINK_RATE bw_code, MAX_LANE_COUNT lanes
 * (with enhanced framing, as sinks set it), DPCD 1.4.
 */
void replay_dpcd_caps(struct replay_connector *rc, uint8_t bw_code,
	uint8_t lanes);
/* The sink's symbol error counter of lane (valid, 15 bits). */
void replay_dpcd_set_errors(struct replay_connector *rc, uint32_t lane,
	uint16_t count);

#endif

#ifndef LINKGUARD_CONNECTOR_H
#define LINKGUARD_CONNECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wayland-server-protocol.h>
#include <linkguard/config.h>
#include <linkguard/link.h>
#include <linkguard/mode.h>

struct wlr_output;
struct lg_manager;
struct lg_options;
struct lg_connector_impl;

/** One fallback, as reported to the compositor and to clients. */
struct lg_fallback {
	struct lg_connector *connector;
	enum lg_fallback_reason reason;
	struct lg_mode from, to;
	struct timespec when; // CLOCK_MONOTONIC
};

/**
 * A display connector whose link linkguard watches.
 *
 * Keyed by (device, connector id), never by wlr_output: wlroots recreates the
 * output of a connector (same address, new object) on a bad link, an unplug
 * or a VT switch, while this object lives as long as the backend knows the
 * connector. All fields are read-only for the compositor.
 */
struct lg_connector {
	const struct lg_connector_impl *impl;
	struct lg_manager *manager;
	dev_t device;
	uint32_t id; // DRM connector id, or the sim's own
	char *name; // e.g. "DP-1"
	char *description;

	struct wlr_output *output; // NULL while disconnected
	void *data; // the backend's own

	bool connected;
	enum lg_link_status link_status;
	enum lg_link_state state;
	bool has_requested, has_current;
	struct lg_mode requested; // what the compositor or user asked for
	struct lg_mode current; // what runs now
	struct lg_mode_list modes; // the kernel's list at the last probe
	bool has_link_params;
	struct lg_link_params link_params; // the backend's, else the sink's
	bool has_sink_status;
	struct lg_sink_status sink_status; // the last DPCD read
	bool has_error_rates;
	uint32_t error_rates[4]; // symbol errors per lane and minute, last window
	bool link_errors; // above the threshold: the link is degraded
	bool has_last_fallback;
	struct lg_fallback last_fallback;
	/*
	 * The settings this connector runs with, lg_setting_key_count() of
	 * them in linkguard(5)'s order, and where each came from.
	 */
	struct lg_setting *settings;
	struct lg_options *options; // their values, over the manager's options

	struct {
		struct wl_signal state_change; // struct lg_connector
		struct wl_signal destroy;
	} events;

	// private state
	struct wl_list link; // lg_manager.connectors
	struct wl_listener output_commit;
	struct wl_listener output_destroy;
	struct lg_recovery *recovery; // the state machine and its driver
	// unused since the state machine schedules the sink's reads: kept
	// for the ABI until the next soname
	struct lg_sink *sink;
	bool committing; // inside linkguard's own commit
	bool relighting; // off for a moment, so that its mode retrains
	bool has_recommended, has_last_placement;
	float last_scale; // of the last output, offered to the next one
	enum wl_output_transform last_transform;
	struct lg_mode recommended; // offered to the compositor's new_output
	struct lg_mode_list known_bad; // modes skipped until the sink leaves
};

/**
 * Tries the requested mode again (a privileged client's retry, an upgrade
 * back after the cable was fixed): tested, then committed. Whether the link
 * then holds is reported through the manager's restored or fallback signals
 * and the connector's state_change.
 */
enum lg_retry_result lg_connector_retry(struct lg_connector *conn);

#endif

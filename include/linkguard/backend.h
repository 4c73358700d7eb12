#ifndef LINKGUARD_BACKEND_H
#define LINKGUARD_BACKEND_H

/*
 * The interface between linkguard's core and the places link events come
 * from (backend/drm, backend/sim). A backend fills a static const
 * lg_connector_impl, creates one lg_connector per connector it knows, and
 * tells the core about outputs, connection changes and hotplug events. The
 * core never includes a backend.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linkguard/connector.h>

struct wlr_output_state;

/* What a forced probe found. */
enum lg_probe_result {
	LG_PROBE_OK, // the kernel's mode list is in *modes
	LG_PROBE_FAILED, // the connector cannot be probed (I/O error)
	/*
	 * The sink left: the core feeds the unplug once the recovery step
	 * that probed is over, as if the backend had called
	 * lg_connector_set_connected(conn, false).
	 */
	LG_PROBE_GONE,
};

struct lg_connector_impl {
	/* link-status as the kernel reports it now: a property read, no probe. */
	enum lg_link_status (*get_link_status)(struct lg_connector *conn);
	/*
	 * Forced probe: replace *modes with the kernel's current mode list.
	 * Never calls back into the core: a sink found gone is said in the
	 * result.
	 */
	enum lg_probe_result (*probe)(struct lg_connector *conn,
		struct lg_mode_list *modes);
	/*
	 * Puts mode into state (the matching wlr_output_mode, or a custom
	 * mode). Returns false when the output cannot take it.
	 */
	bool (*set_mode)(struct lg_connector *conn, struct wlr_output_state *state,
		const struct lg_mode *mode);
	/*
	 * Whether the kernel's atomic check accepts mode on the link as it is
	 * now: recovery's one test of a mode. On DRM, the output's own test
	 * with a buffer; a backend whose outputs cannot test it (wlroots'
	 * headless backend accepts any custom mode) answers for the kernel.
	 */
	bool (*check_mode)(struct lg_connector *conn, const struct lg_mode *mode);
	/*
	 * Optional: turns the connector's CRTC off behind the compositor, so
	 * that the commit of the mode that runs, which follows at once, is a
	 * modeset (lg_driver_commit_retrains()). Without it, or when it
	 * fails, the core turns the output off and on through wlroots, which
	 * the compositor sees (some remove the wl_output global meanwhile).
	 */
	bool (*blank)(struct lg_connector *conn);
	/*
	 * Optional: called after every commit that set a mode, enabled or
	 * disabled the output; mode is NULL when the output went off.
	 */
	void (*mode_committed)(struct lg_connector *conn, const struct lg_mode *mode);
	/* Optional: current DisplayPort link parameters. */
	bool (*get_link_params)(struct lg_connector *conn,
		struct lg_link_params *params);
	/*
	 * Optional: the sink's view of its link, read from its DPCD (AUX
	 * transactions: the core calls it at a bounded rate, never while it
	 * commits). Reading clears the sink's symbol error counters. Returns
	 * false when the sink cannot be read (no AUX device, no access, I/O
	 * error, the sink asleep).
	 */
	bool (*get_sink_status)(struct lg_connector *conn,
		struct lg_sink_status *status);
	/*
	 * Optional: the monitor's identity (from its EDID), a string without
	 * whitespace that stays the same across boots and ports, or NULL.
	 * Known-bad modes are persisted under it.
	 */
	const char *(*get_identity)(struct lg_connector *conn);
	/* Frees the backend's part; the core frees the rest. */
	void (*destroy)(struct lg_connector *conn);
	/*
	 * Optional, last of all (added after the others): the DisplayPort link
	 * the kernel would train mode at now, within the maximum it allows
	 * (i915: the lowest rate, then the fewest lanes, that carry it). False
	 * when it would not train it. Called for every mode the core plans
	 * with: an answer from what was read before, no I/O of its own beyond
	 * a read when the kernel may have changed its maximum. The answers
	 * may change as the backend learns (backend/drm predicts, and corrects
	 * with the link the sink reports). A backend without it has flapping
	 * links step down by pixel clock.
	 */
	bool (*choose_link)(struct lg_connector *conn, const struct lg_mode *mode,
		struct lg_link_params *params);
	/*
	 * Optional, after choose_link: which reads of the sink's DPCD buy
	 * something on this connector now, enum lg_sink_reads bits; asked
	 * before every step of its recovery, so cheap (a cached answer).
	 * Without it: LG_SINK_READS_EVENTS | LG_SINK_READS_POLL.
	 */
	uint32_t (*sink_reads)(struct lg_connector *conn);
};

/*
 * The reads of a sink's DPCD a backend allows (lg_connector_impl.sink_reads).
 * AUX transactions are themselves a fault source (docks that drop the link,
 * branch devices that NAK, reads that hang, a panel woken from self
 * refresh): a read happens only where it can find what the driver does not
 * report. linkguard(5)'s read-dpcd setting narrows it further.
 *
 * The budget: at most 20 reads per connector in any minute (the core's
 * MACHINE_READS_PER_MIN; in any 12 polls where a compositor sets
 * sink_poll_ms below 5 s), each three AUX transactions (six before Linux
 * 6.17), however many events come; with the default sink_poll_ms a polled
 * connector is read 12 times a minute in the minute after a change, then
 * twice a minute, and one read at events only once after each change.
 */
enum lg_sink_reads {
	/*
	 * Once the link settled after a hotplug event or a modeset: the
	 * trained link, and a lock lost in the training.
	 */
	LG_SINK_READS_EVENTS = 1 << 0,
	/*
	 * Between events too, every sink_poll_ms and less often on a quiet
	 * link: where the driver reports no failed link itself (amdgpu,
	 * nouveau, msm), or stopped retraining it (i915's
	 * i915_dp_link_retrain_disabled).
	 */
	LG_SINK_READS_POLL = 1 << 1,
	/*
	 * An internal panel (eDP): read only where read-dpcd = on (a read can
	 * wake a panel in self refresh, and its link is no cable's).
	 */
	LG_SINK_READS_INTERNAL = 1 << 2,
};

/**
 * Registers a connector with the manager. name is copied. The connector
 * starts disconnected, without an output.
 */
struct lg_connector *lg_connector_create(struct lg_manager *manager,
	const struct lg_connector_impl *impl, dev_t device, uint32_t id,
	const char *name);
/** Emits destroy, cancels any pending recovery and frees the connector. */
void lg_connector_destroy(struct lg_connector *conn);

void lg_connector_set_description(struct lg_connector *conn, const char *desc);
/**
 * Binds the connector to the wlr_output that currently drives it (NULL when
 * the output is gone). The core follows the output's commits and destroy.
 */
void lg_connector_set_output(struct lg_connector *conn, struct wlr_output *output);
/** A connection change the backend observed (plug, unplug). */
void lg_connector_set_connected(struct lg_connector *conn, bool connected);
/**
 * A hotplug event concerning this connector (a uevent with CONNECTOR=id, or
 * one bare HOTPLUG=1 fanned out to every connector of the device), with the
 * link-status the backend read on it. The core schedules a recovery when it
 * is BAD and reads link-status no more for this event.
 */
void lg_connector_hotplug(struct lg_connector *conn,
	enum lg_link_status link_status);

/* A connector a hotplug event concerns, and its link-status read on it. */
struct lg_hotplug {
	struct lg_connector *conn;
	enum lg_link_status link_status;
};

/**
 * One hotplug event concerning several connectors (a bare HOTPLUG=1, the
 * streams of one MST link): the BAD ones on one backend are recovered in one
 * atomic wlr_backend_commit, one by one if the backend refuses them together
 * or the compositor set a commit hook.
 */
void lg_connectors_hotplug(const struct lg_hotplug *hotplugs, size_t n);

struct lg_connector *lg_manager_find_connector(struct lg_manager *manager,
	dev_t device, uint32_t id);

#endif

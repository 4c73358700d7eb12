#ifndef PROTOCOL_SERVER_H
#define PROTOCOL_SERVER_H

/*
 * Private to the linkguard-link-v1 server (protocol/server/). Ownership:
 * lg_link_protocol owns one link_connector per lg_connector; every protocol
 * object's state is owned by its wl_resource and freed in its destroy
 * handler. An object whose backing state is gone is inert: its pointers are
 * NULL, its links are initialised empty, and every request handler
 * tolerates it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <linkguard/connector.h>
#include <linkguard/incident.h>
#include <linkguard/protocol.h>

struct lg_link_protocol {
	struct lg_manager *manager;
	struct wl_global *global;
	struct lg_link_protocol_filter filter;
	struct wl_list clients; // link_manager_client.link
	struct wl_list connectors; // link_connector.link
	struct wl_list retries; // link_retry.link, pending ones only

	struct wl_listener new_connector;
	struct wl_listener fallback;
	struct wl_listener incident;
	struct wl_listener manager_destroy;
};

/* One zlg_link_manager_v1 resource. */
struct link_manager_client {
	struct wl_resource *resource;
	struct lg_link_protocol *protocol; // NULL when inert
	bool stopped;
	struct wl_list link; // lg_link_protocol.clients
	struct wl_list connectors; // connector_resource.manager_link
};

/* A mode the compositor skips on a connector (version 2). */
struct link_skipped_mode {
	struct lg_mode mode;
	int64_t last_failed; // seconds since the epoch, 0 unknown
};

/* The sink_status event's arguments (version 3). */
struct link_sink {
	uint32_t flags; // zlg_link_connector_v1 sink_flags
	uint32_t lanes_locked;
	uint32_t rates[4];
	uint32_t n_rates;
};

/* What clients were last told about a connector. */
struct link_snapshot {
	char *description;
	bool connected;
	enum lg_link_status link_status;
	enum lg_link_state state;
	bool has_requested, has_current, has_link_params;
	struct lg_mode requested, current;
	struct lg_link_params link_params;
	struct lg_mode_list modes;
	struct link_skipped_mode *skipped; // conn->known_bad, with times
	size_t n_skipped;
	struct lg_setting *settings; // a copy of conn->settings (version 3)
	struct link_sink sink;
};

/* The server's side of one lg_connector, shared by all its resources. */
struct link_connector {
	struct lg_link_protocol *protocol;
	struct lg_connector *conn;
	struct link_snapshot sent;
	struct wl_list resources; // connector_resource.link
	struct wl_list link; // lg_link_protocol.connectors

	struct wl_listener state_change;
	struct wl_listener destroy;
};

/* One zlg_link_connector_v1 resource. */
struct connector_resource {
	struct wl_resource *resource;
	struct link_connector *connector; // NULL when inert
	struct link_manager_client *manager; // NULL when inert
	struct wl_list link; // link_connector.resources
	struct wl_list manager_link; // link_manager_client.connectors
};

/* connector.c */
struct link_connector *link_connector_create(struct lg_link_protocol *protocol,
	struct lg_connector *conn);
/* Sends finished to every resource, cancels the connector's retries. */
void link_connector_destroy(struct link_connector *connector);
struct link_connector *link_connector_find(struct lg_link_protocol *protocol,
	const struct lg_connector *conn);
/* Creates the client's object and sends the full state; no done. */
bool link_connector_announce(struct link_connector *connector,
	struct link_manager_client *client);
/* Sends what changed since the last batch, then done where anything was sent. */
void link_connector_flush(struct link_connector *connector);
void link_connector_send_fallback(struct link_connector *connector,
	const struct lg_fallback *fallback);
/* incident.c (version 3) */
/* The initial batch's incidents_reset and history, to version 3 only. */
void link_incidents_send_history(struct wl_resource *resource,
	const struct lg_connector *conn);
/* A new incident, in a batch of its own, to version 3 resources. */
void link_connector_send_incident(struct link_connector *connector,
	const struct lg_incident *incident);
/* Stops events on one resource; sends finished first when asked to. */
void connector_resource_make_inert(struct connector_resource *cr,
	bool send_finished);

/* snapshot.c */
void link_snapshot_finish(struct link_snapshot *snapshot);
/*
 * Sends to resource every field of conn that differs from snapshot (every
 * field when full is set), without done; the fields of a later version only
 * to resources of that version. Returns whether anything was sent.
 */
bool link_snapshot_send(const struct link_snapshot *snapshot,
	const struct lg_connector *conn, struct wl_resource *resource, bool full);
/* Makes snapshot equal to conn's state. */
void link_snapshot_update(struct link_snapshot *snapshot,
	const struct lg_connector *conn);

/* setting.c (version 3) */
/* The settings that differ from snapshot (all when full), to version 3 only. */
bool link_settings_send(const struct link_snapshot *snapshot,
	const struct lg_connector *conn, struct wl_resource *resource, bool full);
void link_settings_update(struct link_snapshot *snapshot,
	const struct lg_connector *conn);
void link_settings_finish(struct link_snapshot *snapshot);

/* reload.c (version 3) */
void link_reload_create(struct link_manager_client *client, uint32_t id);

/* retry.c */
void link_retry_create(struct connector_resource *cr, uint32_t id);
/* Answers the committed retries of conn whose outcome is now known. */
void link_retries_update(struct lg_link_protocol *protocol,
	const struct lg_connector *conn);
/* Answers cancelled to the pending retries of conn, or of all when NULL. */
void link_retries_cancel(struct lg_link_protocol *protocol,
	const struct lg_connector *conn);

#endif

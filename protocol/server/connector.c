#include <assert.h>
#include <stdlib.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include "linkguard-link-v1-protocol.h"
#include <protocol/server.h>

/*
 * zlg_link_connector_v1: one object per (manager resource, lg_connector).
 * Changes are sent synchronously on the connector's state_change, each
 * signal one batch closed by done: the core emits state_change once the
 * connector is consistent, and a client sees every state the connector went
 * through (bad, then retraining, then degraded), none merged away.
 */

static const struct zlg_link_connector_v1_interface connector_impl;

/* Can return NULL if the connector resource is inert. */
static struct connector_resource *connector_resource_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &zlg_link_connector_v1_interface,
		&connector_impl));
	return wl_resource_get_user_data(resource);
}

void connector_resource_make_inert(struct connector_resource *cr,
		bool send_finished) {
	if (cr->connector == NULL) {
		return;
	}
	if (send_finished) {
		zlg_link_connector_v1_send_finished(cr->resource);
	}
	wl_list_remove(&cr->link);
	wl_list_init(&cr->link);
	wl_list_remove(&cr->manager_link);
	wl_list_init(&cr->manager_link);
	cr->connector = NULL;
	cr->manager = NULL;
}

static void handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void handle_retry(struct wl_client *client, struct wl_resource *resource,
		uint32_t id) {
	struct connector_resource *cr = connector_resource_from_resource(resource);
	link_retry_create(cr, id);
}

static const struct zlg_link_connector_v1_interface connector_impl = {
	.destroy = handle_destroy,
	.retry = handle_retry,
};

static void handle_resource_destroy(struct wl_resource *resource) {
	struct connector_resource *cr = connector_resource_from_resource(resource);
	connector_resource_make_inert(cr, false);
	free(cr);
}

/*
 * The reasons of version 3 reach older clients as the one they know that
 * says the most: the monitor did not hold the mode.
 */
static uint32_t reason_for(struct wl_resource *resource,
		enum lg_fallback_reason reason) {
	bool new_reason = reason == LG_FALLBACK_SINK_UNLOCKED ||
		reason == LG_FALLBACK_LINK_ERRORS;
	if (new_reason && wl_resource_get_version(resource) <
			ZLG_LINK_CONNECTOR_V1_SINK_STATUS_SINCE_VERSION) {
		return ZLG_LINK_CONNECTOR_V1_FALLBACK_REASON_KNOWN_BAD;
	}
	return reason;
}

static void send_fallback(struct wl_resource *resource,
		const struct lg_fallback *fallback) {
	uint64_t sec = (uint64_t)fallback->when.tv_sec;
	zlg_link_connector_v1_send_fallback(resource,
		reason_for(resource, fallback->reason),
		fallback->from.width, fallback->from.height,
		fallback->from.refresh_mhz, fallback->to.width, fallback->to.height,
		fallback->to.refresh_mhz, (uint32_t)(sec >> 32), (uint32_t)sec,
		(uint32_t)fallback->when.tv_nsec);
}

bool link_connector_announce(struct link_connector *connector,
		struct link_manager_client *client) {
	struct connector_resource *cr = calloc(1, sizeof(*cr));
	if (cr == NULL) {
		wl_resource_post_no_memory(client->resource);
		return false;
	}
	struct wl_client *wl_client = wl_resource_get_client(client->resource);
	cr->resource = wl_resource_create(wl_client, &zlg_link_connector_v1_interface,
		wl_resource_get_version(client->resource), 0);
	if (cr->resource == NULL) {
		free(cr);
		wl_client_post_no_memory(wl_client);
		return false;
	}
	wl_resource_set_implementation(cr->resource, &connector_impl, cr,
		handle_resource_destroy);
	cr->connector = connector;
	cr->manager = client;
	wl_list_insert(connector->resources.prev, &cr->link);
	wl_list_insert(client->connectors.prev, &cr->manager_link);

	zlg_link_manager_v1_send_connector(client->resource, cr->resource);
	zlg_link_connector_v1_send_name(cr->resource, connector->conn->name);
	link_snapshot_send(&connector->sent, connector->conn, cr->resource, true);
	if (connector->conn->has_last_fallback) {
		send_fallback(cr->resource, &connector->conn->last_fallback);
	}
	link_incidents_send_history(cr->resource, connector->conn);
	return true;
}

void link_connector_flush(struct link_connector *connector) {
	struct connector_resource *cr;
	wl_list_for_each(cr, &connector->resources, link) {
		if (link_snapshot_send(&connector->sent, connector->conn,
				cr->resource, false)) {
			zlg_link_manager_v1_send_done(cr->manager->resource);
		}
	}
	link_snapshot_update(&connector->sent, connector->conn);
}

void link_connector_send_fallback(struct link_connector *connector,
		const struct lg_fallback *fallback) {
	// Whatever led up to the fallback is one batch, the fallback the next.
	link_connector_flush(connector);
	struct connector_resource *cr;
	wl_list_for_each(cr, &connector->resources, link) {
		send_fallback(cr->resource, fallback);
		zlg_link_manager_v1_send_done(cr->manager->resource);
	}
}

static void handle_state_change(struct wl_listener *listener, void *data) {
	struct link_connector *connector =
		wl_container_of(listener, connector, state_change);
	link_connector_flush(connector);
	link_retries_update(connector->protocol, connector->conn);
}

static void handle_connector_destroy(struct wl_listener *listener, void *data) {
	struct link_connector *connector =
		wl_container_of(listener, connector, destroy);
	link_connector_destroy(connector);
}

struct link_connector *link_connector_create(struct lg_link_protocol *protocol,
		struct lg_connector *conn) {
	struct link_connector *connector = calloc(1, sizeof(*connector));
	if (connector == NULL) {
		lg_conn_log(conn, LG_ERROR, "allocation failed");
		return NULL;
	}
	connector->protocol = protocol;
	connector->conn = conn;
	lg_mode_list_init(&connector->sent.modes);
	link_snapshot_update(&connector->sent, conn);
	wl_list_init(&connector->resources);
	wl_list_insert(protocol->connectors.prev, &connector->link);
	connector->state_change.notify = handle_state_change;
	wl_signal_add(&conn->events.state_change, &connector->state_change);
	connector->destroy.notify = handle_connector_destroy;
	wl_signal_add(&conn->events.destroy, &connector->destroy);
	return connector;
}

void link_connector_destroy(struct link_connector *connector) {
	link_retries_cancel(connector->protocol, connector->conn);
	struct connector_resource *cr, *tmp;
	wl_list_for_each_safe(cr, tmp, &connector->resources, link) {
		struct link_manager_client *client = cr->manager;
		connector_resource_make_inert(cr, true);
		zlg_link_manager_v1_send_done(client->resource);
	}
	wl_list_remove(&connector->state_change.link);
	wl_list_remove(&connector->destroy.link);
	wl_list_remove(&connector->link);
	link_snapshot_finish(&connector->sent);
	free(connector);
}

struct link_connector *link_connector_find(struct lg_link_protocol *protocol,
		const struct lg_connector *conn) {
	struct link_connector *connector;
	wl_list_for_each(connector, &protocol->connectors, link) {
		if (connector->conn == conn) {
			return connector;
		}
	}
	return NULL;
}

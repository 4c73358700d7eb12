#include <assert.h>
#include <stdlib.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include "linkguard-link-v1-protocol.h"
#include <protocol/server.h>

/*
 * The zlg_link_manager_v1 global: announces connectors on bind and as they
 * appear, and owns the server's state for the protocol.
 */

#define LINK_MANAGER_VERSION 4

static const struct zlg_link_manager_v1_interface manager_impl;

/* Can return NULL if the manager resource is inert. */
static struct link_manager_client *manager_client_from_resource(
		struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &zlg_link_manager_v1_interface,
		&manager_impl));
	return wl_resource_get_user_data(resource);
}

/* Makes the client's manager and its connectors inert. */
static void manager_client_stop(struct link_manager_client *client,
		bool send_finished) {
	struct connector_resource *cr, *tmp;
	wl_list_for_each_safe(cr, tmp, &client->connectors, manager_link) {
		connector_resource_make_inert(cr, send_finished);
	}
	if (send_finished) {
		zlg_link_manager_v1_send_finished(client->resource);
	}
	wl_list_remove(&client->link);
	wl_list_init(&client->link);
	client->protocol = NULL;
}

static void handle_stop(struct wl_client *wl_client, struct wl_resource *resource) {
	struct link_manager_client *client = manager_client_from_resource(resource);
	if (client->stopped) {
		wl_resource_post_error(resource,
			ZLG_LINK_MANAGER_V1_ERROR_ALREADY_STOPPED,
			"stop was already sent");
		return;
	}
	client->stopped = true;
	if (client->protocol == NULL) {
		return; // withdrawn: finished was sent then
	}
	manager_client_stop(client, true);
}

static void handle_destroy(struct wl_client *wl_client,
		struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static void handle_reload(struct wl_client *wl_client,
		struct wl_resource *resource, uint32_t id) {
	link_reload_create(manager_client_from_resource(resource), id);
}

static const struct zlg_link_manager_v1_interface manager_impl = {
	.stop = handle_stop,
	.destroy = handle_destroy,
	.reload = handle_reload,
};

static void handle_resource_destroy(struct wl_resource *resource) {
	struct link_manager_client *client = manager_client_from_resource(resource);
	manager_client_stop(client, false);
	free(client);
}

static bool client_can_see(struct lg_link_protocol *protocol,
		const struct wl_client *client) {
	if (protocol->filter.can_see == NULL) {
		return true;
	}
	return protocol->filter.can_see(client, protocol->filter.data);
}

bool lg_link_protocol_global_filter(const struct wl_client *client,
		const struct wl_global *global, void *data) {
	struct lg_link_protocol *protocol = data;
	if (protocol == NULL || global != protocol->global) {
		return true;
	}
	return client_can_see(protocol, client);
}

static void manager_bind(struct wl_client *wl_client, void *data,
		uint32_t version, uint32_t id) {
	struct lg_link_protocol *protocol = data;
	struct link_manager_client *client = calloc(1, sizeof(*client));
	if (client == NULL) {
		wl_client_post_no_memory(wl_client);
		return;
	}
	client->resource = wl_resource_create(wl_client,
		&zlg_link_manager_v1_interface, version, id);
	if (client->resource == NULL) {
		free(client);
		wl_client_post_no_memory(wl_client);
		return;
	}
	wl_resource_set_implementation(client->resource, &manager_impl, client,
		handle_resource_destroy);
	wl_list_init(&client->link);
	wl_list_init(&client->connectors);

	if (!client_can_see(protocol, wl_client)) {
		// The compositor did not install the global filter.
		lg_log(LG_DEBUG, "link manager bound by a filtered client");
		zlg_link_manager_v1_send_finished(client->resource);
		return;
	}
	client->protocol = protocol;
	wl_list_insert(&protocol->clients, &client->link);

	struct link_connector *connector;
	wl_list_for_each(connector, &protocol->connectors, link) {
		// Existing clients first see what changed silently (a probe), so
		// that one snapshot still describes what everyone was told.
		link_connector_flush(connector);
		if (!link_connector_announce(connector, client)) {
			return;
		}
	}
	zlg_link_manager_v1_send_done(client->resource);
}

static void add_connector(struct lg_link_protocol *protocol,
		struct lg_connector *conn) {
	struct link_connector *connector = link_connector_create(protocol, conn);
	if (connector == NULL) {
		return;
	}
	struct link_manager_client *client;
	wl_list_for_each(client, &protocol->clients, link) {
		if (link_connector_announce(connector, client)) {
			zlg_link_manager_v1_send_done(client->resource);
		}
	}
}

static void handle_new_connector(struct wl_listener *listener, void *data) {
	struct lg_link_protocol *protocol =
		wl_container_of(listener, protocol, new_connector);
	add_connector(protocol, data);
}

static void handle_fallback(struct wl_listener *listener, void *data) {
	struct lg_link_protocol *protocol =
		wl_container_of(listener, protocol, fallback);
	const struct lg_fallback *fallback = data;
	struct link_connector *connector =
		link_connector_find(protocol, fallback->connector);
	if (connector != NULL) {
		link_connector_send_fallback(connector, fallback);
	}
}

static void handle_incident(struct wl_listener *listener, void *data) {
	struct lg_link_protocol *protocol =
		wl_container_of(listener, protocol, incident);
	const struct lg_incident *incident = data;
	struct link_connector *connector =
		link_connector_find(protocol, incident->connector);
	if (connector != NULL) {
		link_connector_send_incident(connector, incident);
	}
}

static void handle_manager_destroy(struct wl_listener *listener, void *data) {
	struct lg_link_protocol *protocol =
		wl_container_of(listener, protocol, manager_destroy);
	lg_link_protocol_destroy(protocol);
}

struct lg_link_protocol *lg_link_protocol_create(struct lg_manager *manager,
		const struct lg_link_protocol_filter *filter) {
	struct lg_link_protocol *protocol = calloc(1, sizeof(*protocol));
	if (protocol == NULL) {
		lg_log(LG_ERROR, "link protocol: allocation failed");
		return NULL;
	}
	protocol->global = wl_global_create(manager->display,
		&zlg_link_manager_v1_interface, LINK_MANAGER_VERSION, protocol,
		manager_bind);
	if (protocol->global == NULL) {
		lg_log(LG_ERROR, "link protocol: cannot create the global");
		free(protocol);
		return NULL;
	}
	protocol->manager = manager;
	if (filter != NULL) {
		protocol->filter = *filter;
	}
	wl_list_init(&protocol->clients);
	wl_list_init(&protocol->connectors);
	wl_list_init(&protocol->retries);

	protocol->new_connector.notify = handle_new_connector;
	wl_signal_add(&manager->events.new_connector, &protocol->new_connector);
	protocol->fallback.notify = handle_fallback;
	wl_signal_add(&manager->events.fallback, &protocol->fallback);
	protocol->incident.notify = handle_incident;
	wl_signal_add(&manager->events.incident, &protocol->incident);
	protocol->manager_destroy.notify = handle_manager_destroy;
	wl_signal_add(&manager->events.destroy, &protocol->manager_destroy);

	struct lg_connector *conn;
	wl_list_for_each(conn, &manager->connectors, link) {
		add_connector(protocol, conn);
	}
	lg_log(LG_DEBUG, "link protocol: zlg_link_manager_v1 version %d",
		LINK_MANAGER_VERSION);
	return protocol;
}

void lg_link_protocol_destroy(struct lg_link_protocol *protocol) {
	if (protocol == NULL) {
		return;
	}
	link_retries_cancel(protocol, NULL);
	struct link_manager_client *client, *client_tmp;
	wl_list_for_each_safe(client, client_tmp, &protocol->clients, link) {
		manager_client_stop(client, true);
	}
	struct link_connector *connector, *connector_tmp;
	wl_list_for_each_safe(connector, connector_tmp, &protocol->connectors, link) {
		link_connector_destroy(connector);
	}
	wl_list_remove(&protocol->new_connector.link);
	wl_list_remove(&protocol->fallback.link);
	wl_list_remove(&protocol->incident.link);
	wl_list_remove(&protocol->manager_destroy.link);
	wl_global_destroy(protocol->global);
	free(protocol);
}

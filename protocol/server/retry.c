#include <assert.h>
#include <stdlib.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include "linkguard-link-v1-protocol.h"
#include <protocol/server.h>

/*
 * zlg_link_retry_v1: one retry and its one answer. A retry the core
 * committed waits for the link to settle: the connector's state_change
 * tells whether it held the requested mode (good) or ended elsewhere.
 */

struct link_retry {
	struct wl_resource *resource;
	struct lg_link_protocol *protocol;
	struct lg_connector *conn;
	struct wl_client *client;
	struct wl_list link; // lg_link_protocol.retries
};

static const struct zlg_link_retry_v1_interface retry_impl;

/* Can return NULL once the retry was answered. */
static struct link_retry *retry_from_resource(struct wl_resource *resource) {
	assert(wl_resource_instance_of(resource, &zlg_link_retry_v1_interface,
		&retry_impl));
	return wl_resource_get_user_data(resource);
}

static void retry_destroy(struct link_retry *retry) {
	wl_list_remove(&retry->link);
	wl_resource_set_user_data(retry->resource, NULL);
	free(retry);
}

static void handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zlg_link_retry_v1_interface retry_impl = {
	.destroy = handle_destroy,
};

static void handle_resource_destroy(struct wl_resource *resource) {
	struct link_retry *retry = retry_from_resource(resource);
	if (retry != NULL) {
		retry_destroy(retry); // the client left before the answer
	}
}

static struct link_retry *find_pending(struct lg_link_protocol *protocol,
		const struct wl_client *client, const struct lg_connector *conn,
		size_t *count) {
	struct link_retry *found = NULL, *retry;
	*count = 0;
	wl_list_for_each(retry, &protocol->retries, link) {
		if (retry->client != client) {
			continue;
		}
		(*count)++;
		if (retry->conn == conn) {
			found = retry;
		}
	}
	return found;
}

static bool client_may_retry(struct lg_link_protocol *protocol,
		const struct wl_client *client) {
	if (protocol->filter.may_retry == NULL) {
		return false;
	}
	return protocol->filter.may_retry(client, protocol->filter.data);
}

/* Runs the retry; returns true when it is committed and awaits the link. */
static bool retry_start(struct link_retry *retry, struct connector_resource *cr) {
	struct lg_link_protocol *protocol = cr->connector->protocol;
	struct lg_connector *conn = cr->connector->conn;
	size_t count;
	if (find_pending(protocol, retry->client, conn, &count) != NULL) {
		wl_resource_post_error(cr->resource,
			ZLG_LINK_CONNECTOR_V1_ERROR_RETRY_PENDING,
			"a retry of %s is already pending", conn->name);
		return false;
	}
	if (!client_may_retry(protocol, retry->client)) {
		lg_conn_log(conn, LG_INFO, "retry denied: client not privileged");
		zlg_link_retry_v1_send_denied(retry->resource);
		return false;
	}
	if (!conn->options->allow_retry) {
		lg_conn_log(conn, LG_INFO, "retry denied: allow-retry is off");
		zlg_link_retry_v1_send_denied(retry->resource);
		return false;
	}
	if (count >= LG_LINK_PROTOCOL_MAX_PENDING_RETRIES) {
		lg_conn_log(conn, LG_INFO, "retry denied: %zu pending", count);
		zlg_link_retry_v1_send_denied(retry->resource);
		return false;
	}

	lg_conn_log(conn, LG_INFO, "retry requested by a client");
	switch (lg_connector_retry(conn)) {
	case LG_RETRY_COMMITTED:
		return true;
	case LG_RETRY_REJECTED:
		zlg_link_retry_v1_send_failed(retry->resource,
			ZLG_LINK_RETRY_V1_FAILURE_REJECTED);
		return false;
	case LG_RETRY_UNAVAILABLE:
		zlg_link_retry_v1_send_failed(retry->resource,
			ZLG_LINK_RETRY_V1_FAILURE_UNAVAILABLE);
		return false;
	}
	return false;
}

void link_retry_create(struct connector_resource *cr, uint32_t id) {
	struct wl_client *client = wl_resource_get_client(cr->resource);
	struct link_retry *retry = calloc(1, sizeof(*retry));
	if (retry == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	retry->resource = wl_resource_create(client, &zlg_link_retry_v1_interface,
		wl_resource_get_version(cr->resource), id);
	if (retry->resource == NULL) {
		free(retry);
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(retry->resource, &retry_impl, retry,
		handle_resource_destroy);
	retry->client = client;
	wl_list_init(&retry->link);

	if (cr->connector == NULL) {
		// Finished or inert: the client may not have seen finished yet.
		zlg_link_retry_v1_send_cancelled(retry->resource);
		retry_destroy(retry);
		return;
	}
	if (!retry_start(retry, cr)) {
		retry_destroy(retry);
		return;
	}
	retry->protocol = cr->connector->protocol;
	retry->conn = cr->connector->conn;
	wl_list_insert(retry->protocol->retries.prev, &retry->link);
	// A commit leaves the link retraining; the answer comes when it settles.
	link_retries_update(retry->protocol, retry->conn);
}

enum retry_outcome {
	RETRY_WAITING,
	RETRY_SUCCEEDED,
	RETRY_FAILED,
};

/*
 * The outcome of a committed retry: the core's settle timer turns
 * retraining into good (the requested mode held) or degraded; a BAD on the
 * way is a new recovery, still waiting.
 */
static enum retry_outcome retry_outcome(const struct lg_connector *conn,
		enum zlg_link_retry_v1_failure *failure) {
	*failure = ZLG_LINK_RETRY_V1_FAILURE_LINK_FAILED;
	if (!conn->connected || conn->output == NULL) {
		*failure = ZLG_LINK_RETRY_V1_FAILURE_UNAVAILABLE;
		return RETRY_FAILED;
	}
	switch (conn->state) {
	case LG_LINK_BAD:
	case LG_LINK_RETRAINING:
		return RETRY_WAITING;
	case LG_LINK_GOOD:
		if (conn->has_current && conn->has_requested &&
				lg_mode_same_timing(&conn->current, &conn->requested)) {
			return RETRY_SUCCEEDED;
		}
		return RETRY_FAILED;
	case LG_LINK_DEGRADED:
	case LG_LINK_FAILED:
	case LG_LINK_FLAPPING:
		return RETRY_FAILED;
	}
	return RETRY_WAITING;
}

void link_retries_update(struct lg_link_protocol *protocol,
		const struct lg_connector *conn) {
	struct link_retry *retry, *tmp;
	wl_list_for_each_safe(retry, tmp, &protocol->retries, link) {
		if (retry->conn != conn) {
			continue;
		}
		enum zlg_link_retry_v1_failure failure;
		switch (retry_outcome(conn, &failure)) {
		case RETRY_WAITING:
			continue;
		case RETRY_SUCCEEDED:
			lg_conn_log(conn, LG_INFO, "retry succeeded");
			zlg_link_retry_v1_send_succeeded(retry->resource);
			break;
		case RETRY_FAILED:
			lg_conn_log(conn, LG_INFO, "retry failed: the link is %s",
				lg_link_state_name(conn->state));
			zlg_link_retry_v1_send_failed(retry->resource, failure);
			break;
		}
		retry_destroy(retry);
	}
}

void link_retries_cancel(struct lg_link_protocol *protocol,
		const struct lg_connector *conn) {
	struct link_retry *retry, *tmp;
	wl_list_for_each_safe(retry, tmp, &protocol->retries, link) {
		if (conn == NULL || retry->conn == conn) {
			zlg_link_retry_v1_send_cancelled(retry->resource);
			retry_destroy(retry);
		}
	}
}

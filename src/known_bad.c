/*
 * The modes a monitor did not hold on a connector (its link was lowered
 * below them, or a commit failed after a passing test), remembered so that
 * the policy skips them, and persisted when the compositor gave a state
 * directory, so that the next boot does not start on a black screen.
 * Keyed by the monitor's identity (its EDID) as the backend reports it.
 */
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/connector.h>
#include <core/store.h>

static const char *identity(struct lg_connector *conn) {
	if (conn->manager->options.state_dir == NULL ||
			conn->impl->get_identity == NULL) {
		return NULL;
	}
	return conn->impl->get_identity(conn);
}

static void save(struct lg_connector *conn) {
	const char *id = identity(conn);
	if (id != NULL && store_save(conn->manager->options.state_dir, conn->name,
			id, &conn->known_bad)) {
		conn->known_bad_stale = false;
	}
}

void known_bad_load(struct lg_connector *conn) {
	const char *id = identity(conn);
	if (id == NULL || conn->known_bad_loaded) {
		return;
	}
	conn->known_bad_loaded = true;
	size_t before = conn->known_bad.len;
	store_load(conn->manager->options.state_dir, conn->name, id,
		&conn->known_bad);
	if (conn->known_bad.len > before) {
		lg_conn_log(conn, LG_INFO, "%zu mode(s) this monitor did not hold "
			"before are avoided", conn->known_bad.len - before);
	}
}

void known_bad_add(struct lg_connector *conn, const struct lg_mode *mode) {
	if (lg_mode_list_find(&conn->known_bad, mode) >= 0 ||
			!lg_mode_list_append(&conn->known_bad, mode)) {
		return;
	}
	save(conn);
}

void known_bad_forget(struct lg_connector *conn) {
	if (conn->known_bad.len > 0) {
		lg_mode_list_clear(&conn->known_bad);
		conn->known_bad_stale = true;
	}
}

void known_bad_held(struct lg_connector *conn, const struct lg_mode *mode) {
	ssize_t i = lg_mode_list_find(&conn->known_bad, mode);
	if (i >= 0) {
		conn->known_bad.modes[i] = conn->known_bad.modes[--conn->known_bad.len];
		conn->known_bad_stale = true;
	}
	if (conn->known_bad_stale) {
		save(conn);
	}
}

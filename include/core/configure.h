#ifndef CORE_CONFIGURE_H
#define CORE_CONFIGURE_H

/* src/configure.c: a connector's settings. */

#include <stdbool.h>

struct lg_connector;

/*
 * Resolves conn->settings and conn->options for the connector
 * and monitor (its identity, or NULL), and applies them. True when they
 * changed.
 */
bool connector_configure(struct lg_connector *conn, const char *monitor);

#endif

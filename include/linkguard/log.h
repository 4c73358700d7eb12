#ifndef LINKGUARD_LOG_H
#define LINKGUARD_LOG_H

#include <errno.h>
#include <stdarg.h>
#include <string.h>

enum lg_log_importance {
	LG_SILENT = 0,
	LG_ERROR = 1,
	LG_INFO = 2,
	LG_DEBUG = 3,
};

typedef void (*lg_log_func_t)(enum lg_log_importance importance,
	const char *fmt, va_list args);

/**
 * Sets the verbosity and, optionally, where messages go (NULL: stderr with
 * a monotonic timestamp, as wlr_log does).
 */
void lg_log_init(enum lg_log_importance verbosity, lg_log_func_t callback);
enum lg_log_importance lg_log_get_verbosity(void);

void _lg_log(enum lg_log_importance importance, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define lg_log(importance, fmt, ...) \
	_lg_log(importance, "[linkguard] " fmt, ##__VA_ARGS__)
#define lg_log_errno(importance, fmt, ...) \
	lg_log(importance, fmt ": %s", ##__VA_ARGS__, strerror(errno))
#define lg_conn_log(conn, importance, fmt, ...) \
	lg_log(importance, "%s: " fmt, (conn)->name, ##__VA_ARGS__)

#endif

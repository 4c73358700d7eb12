/*
 * The one clock of recovery's timing: CLOCK_MONOTONIC in milliseconds, and
 * the trace of a recovery's steps on it.
 */
#include <inttypes.h>
#include <time.h>
#include <linkguard/connector.h>
#include <linkguard/log.h>
#include <core/clock.h>

uint64_t lg_now_ms(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

void connector_trace(struct lg_connector *conn, const char *step,
		const struct lg_mode *mode) {
	if (lg_log_get_verbosity() < LG_DEBUG) {
		return;
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	char buf[64];
	lg_conn_log(conn, LG_DEBUG, "trace %" PRId64 ".%06ld s: %s%s%s",
		(int64_t)now.tv_sec, now.tv_nsec / 1000, step, mode != NULL ? " " : "",
		mode != NULL ? lg_mode_format(mode, buf, sizeof(buf)) : "");
}

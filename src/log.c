#include <stdio.h>
#include <time.h>
#include <linkguard/log.h>

static enum lg_log_importance log_verbosity = LG_ERROR;

static const char *const importance_tags[] = {
	[LG_SILENT] = "",
	[LG_ERROR] = "[ERROR]",
	[LG_INFO] = "[INFO]",
	[LG_DEBUG] = "[DEBUG]",
};

static void log_stderr(enum lg_log_importance importance, const char *fmt,
		va_list args) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	fprintf(stderr, "%02d:%02d:%02d.%03ld %s ",
		(int)(now.tv_sec / 3600), (int)(now.tv_sec / 60 % 60),
		(int)(now.tv_sec % 60), now.tv_nsec / 1000000,
		importance_tags[importance]);
	vfprintf(stderr, fmt, args);
	fprintf(stderr, "\n");
}

static lg_log_func_t log_callback = log_stderr;

void lg_log_init(enum lg_log_importance verbosity, lg_log_func_t callback) {
	if (verbosity > LG_DEBUG) {
		verbosity = LG_DEBUG;
	}
	log_verbosity = verbosity;
	log_callback = callback != NULL ? callback : log_stderr;
}

enum lg_log_importance lg_log_get_verbosity(void) {
	return log_verbosity;
}

void _lg_log(enum lg_log_importance importance, const char *fmt, ...) {
	if (importance == LG_SILENT || importance > log_verbosity) {
		return;
	}
	va_list args;
	va_start(args, fmt);
	log_callback(importance, fmt, args);
	va_end(args);
}

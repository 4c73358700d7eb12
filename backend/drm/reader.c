/*
 * Reads a sink's DPCD in a worker thread, one thread per read: a read is
 * three AUX transactions every 5 or 30 s, and a thread that does nothing
 * in between would only cost memory.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <linkguard/log.h>
#include <kms/reader.h>

struct aux_reader {
	const struct aux_impl *impl;
	void *impl_data;
	uint32_t timeout_ms;
	aux_reader_done_func done;
	void *data;
	int done_fd; // eventfd: the worker finished
	struct wl_event_source *finished;
	struct wl_event_source *deadline;
	pthread_t thread;
	bool running; // a worker exists, not joined yet
	bool abandoned; // its deadline passed: it was answered -ETIMEDOUT
	struct timespec started;
	// The worker's, read after it was joined:
	int fd;
	int ret;
	struct dpcd_regs regs;
};

static void *work(void *data) {
	struct aux_reader *reader = data;
	reader->ret = aux_read(reader->impl, reader->impl_data, reader->fd,
		&reader->regs);
	uint64_t one = 1;
	while (write(reader->done_fd, &one, sizeof(one)) < 0 && errno == EINTR) {
		// retried
	}
	return NULL;
}

static uint64_t elapsed_ms(const struct timespec *since) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)((now.tv_sec - since->tv_sec) * 1000 +
		(now.tv_nsec - since->tv_nsec) / 1000000);
}

/* The answer is called last: it may destroy the reader. */
static int handle_finished(int fd, uint32_t mask, void *data) {
	struct aux_reader *reader = data;
	uint64_t count;
	if (read(reader->done_fd, &count, sizeof(count)) < 0 || !reader->running) {
		return 0;
	}
	pthread_join(reader->thread, NULL);
	reader->running = false;
	wl_event_source_timer_update(reader->deadline, 0);
	if (reader->abandoned) {
		reader->abandoned = false;
		lg_log(LG_DEBUG, "drm: a DP AUX read returned after %llu ms",
			(unsigned long long)elapsed_ms(&reader->started));
		return 0;
	}
	reader->done(reader->data, reader->ret, &reader->regs);
	return 0;
}

static int handle_deadline(void *data) {
	struct aux_reader *reader = data;
	if (!reader->running || reader->abandoned) {
		return 0;
	}
	reader->abandoned = true;
	reader->done(reader->data, -ETIMEDOUT, NULL);
	return 0;
}

struct aux_reader *aux_reader_create(struct wl_event_loop *loop,
		const struct aux_impl *impl, void *impl_data, uint32_t timeout_ms,
		aux_reader_done_func done, void *data) {
	struct aux_reader *reader = calloc(1, sizeof(*reader));
	if (reader == NULL) {
		return NULL;
	}
	reader->impl = impl;
	reader->impl_data = impl_data;
	reader->timeout_ms = timeout_ms;
	reader->done = done;
	reader->data = data;
	reader->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (reader->done_fd < 0) {
		free(reader);
		return NULL;
	}
	reader->finished = wl_event_loop_add_fd(loop, reader->done_fd,
		WL_EVENT_READABLE, handle_finished, reader);
	reader->deadline = wl_event_loop_add_timer(loop, handle_deadline, reader);
	if (reader->finished == NULL || reader->deadline == NULL) {
		aux_reader_destroy(reader);
		return NULL;
	}
	return reader;
}

void aux_reader_cancel(struct aux_reader *reader) {
	if (!reader->running) {
		return;
	}
	pthread_cancel(reader->thread);
	pthread_join(reader->thread, NULL);
	reader->running = false;
	reader->abandoned = false;
	wl_event_source_timer_update(reader->deadline, 0);
	uint64_t count;
	(void)!read(reader->done_fd, &count, sizeof(count)); // a finish unheard
}

void aux_reader_destroy(struct aux_reader *reader) {
	if (reader == NULL) {
		return;
	}
	aux_reader_cancel(reader);
	if (reader->finished != NULL) {
		wl_event_source_remove(reader->finished);
	}
	if (reader->deadline != NULL) {
		wl_event_source_remove(reader->deadline);
	}
	close(reader->done_fd);
	free(reader);
}

int aux_reader_start(struct aux_reader *reader, int fd) {
	if (reader->running) {
		return -EBUSY;
	}
	reader->fd = fd;
	// The compositor's signals are for its own thread (wl_event_loop's
	// signalfd expects them blocked everywhere else).
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int ret = pthread_create(&reader->thread, NULL, work, reader);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret != 0) {
		return -ret;
	}
	reader->running = true;
	clock_gettime(CLOCK_MONOTONIC, &reader->started);
	wl_event_source_timer_update(reader->deadline, (int)reader->timeout_ms);
	return 0;
}

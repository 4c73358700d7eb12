#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <kms/reader.h>

/* One read and its thread; the caller's until joined. */
struct aux_read {
	const struct aux_impl *impl;
	void *impl_data;
	int fd;
	aux_read_fn fn;
	int done_fd; // eventfd: the thread ended, cancelled or not
	pthread_t thread;
	int ret;
	size_t size;
	unsigned char out[]; // what fn read: the caller's copy once it ended
};

static void signal_done(void *data) {
	struct aux_read *read = data;
	uint64_t one = 1;
	while (write(read->done_fd, &one, sizeof(one)) < 0 && errno == EINTR) {
		// retried
	}
}

static void *work(void *data) {
	struct aux_read *read = data;
	// A cancelled read ends at the kernel's next transaction: it says so
	// too.
	pthread_cleanup_push(signal_done, read);
	read->ret = read->fn(read->impl, read->impl_data, read->fd, read->out);
	// signal_done's write is a cancellation point: cancelled there, the
	// end would go unsaid.
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_cleanup_pop(1);
	return NULL;
}

static void destroy(struct aux_read *read) {
	close(read->done_fd);
	free(read);
}

/* Whether read's thread ended, waiting up to timeout_ms (0: not at all). */
static bool ended(const struct aux_read *read, uint32_t timeout_ms) {
	struct timespec start;
	clock_gettime(CLOCK_MONOTONIC, &start);
	struct pollfd pfd = { .fd = read->done_fd, .events = POLLIN };
	int64_t left_ms = timeout_ms;
	while (true) {
		int ret = poll(&pfd, 1, (int)left_ms);
		if (ret >= 0 || errno != EINTR) {
			return ret > 0;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left_ms = timeout_ms - ((now.tv_sec - start.tv_sec) * 1000 +
			(now.tv_nsec - start.tv_nsec) / 1000000);
		if (left_ms < 0) {
			left_ms = 0;
		}
	}
}

static struct aux_read *start(const struct aux_impl *impl, void *impl_data,
		int fd, aux_read_fn fn, size_t size, int *error) {
	struct aux_read *read = calloc(1, sizeof(*read) + size);
	if (read == NULL) {
		*error = -ENOMEM;
		return NULL;
	}
	*read = (struct aux_read){
		.impl = impl,
		.impl_data = impl_data,
		.fd = fd,
		.fn = fn,
		.size = size,
	};
	read->done_fd = eventfd(0, EFD_CLOEXEC);
	if (read->done_fd < 0) {
		*error = -errno;
		free(read);
		return NULL;
	}
	// The compositor's signals are for its own thread (wl_event_loop's
	// signalfd expects them blocked everywhere else).
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int ret = pthread_create(&read->thread, NULL, work, read);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret != 0) {
		*error = -ret;
		destroy(read);
		return NULL;
	}
	return read;
}

void aux_reader_init(struct aux_reader *reader, uint32_t timeout_ms) {
	*reader = (struct aux_reader){ .timeout_ms = timeout_ms };
}

int aux_reader_run(struct aux_reader *reader, const struct aux_impl *impl,
		void *impl_data, int fd, aux_read_fn fn, void *out, size_t size) {
	if (reader->hung != NULL) {
		if (!ended(reader->hung, 0)) {
			return -EBUSY;
		}
		aux_reader_finish(reader);
	}
	int error = 0;
	struct aux_read *read = start(impl, impl_data, fd, fn, size, &error);
	if (read == NULL) {
		return error;
	}
	if (!ended(read, reader->timeout_ms)) {
		pthread_cancel(read->thread);
		reader->hung = read;
		return -ETIMEDOUT;
	}
	pthread_join(read->thread, NULL);
	int ret = read->ret;
	memcpy(out, read->out, size);
	destroy(read);
	return ret;
}

static int read_status(const struct aux_impl *impl, void *data, int fd,
		void *regs) {
	return aux_read(impl, data, fd, regs);
}

int aux_reader_read(struct aux_reader *reader, const struct aux_impl *impl,
		void *impl_data, int fd, struct dpcd_regs *regs) {
	return aux_reader_run(reader, impl, impl_data, fd, read_status, regs,
		sizeof(*regs));
}

static int read_caps(const struct aux_impl *impl, void *data, int fd,
		void *caps) {
	return aux_read_caps(impl, data, fd, caps);
}

int aux_reader_read_caps(struct aux_reader *reader, const struct aux_impl *impl,
		void *impl_data, int fd, struct dpcd_caps_regs *caps) {
	return aux_reader_run(reader, impl, impl_data, fd, read_caps, caps,
		sizeof(*caps));
}

void aux_reader_finish(struct aux_reader *reader) {
	if (reader->hung == NULL) {
		return;
	}
	pthread_join(reader->hung->thread, NULL);
	destroy(reader->hung);
	reader->hung = NULL;
}

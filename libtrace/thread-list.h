/* SPDX-License-Identifier: MIT */
/*
 * thread-list.h - a module's list of its threads' entries (repeats.c's
 * runs, exit-gate.c's calls under way): a thread puts its entry in once,
 * and the entry leaves when the thread ends, before its thread-local
 * state is freed. Bounded (THREAD_LIST_MAX): a thread past it is not
 * listed, and its module does without.
 *
 * Readers walk entry[] under lock. A thread's end calls the module's
 * ENDED with its entry (a pthread key's destructor), which calls
 * thread_list_leave and does what else the module needs.
 */
#ifndef CUDATRACE_THREAD_LIST_H
#define CUDATRACE_THREAD_LIST_H

#include <pthread.h>
#include <stdbool.h>

#define THREAD_LIST_MAX 4096

struct thread_list {
	pthread_mutex_t lock;
	void (*ended)(void *entry);   /* the module's, at its thread's end */
	bool key_made;                /* under lock */
	pthread_key_t key;            /* whose destructor is ended */
	void *entry[THREAD_LIST_MAX]; /* under lock; NULL: free */
};

#define THREAD_LIST_INIT(ended_fn)                                     \
	{                                                              \
		.lock = PTHREAD_MUTEX_INITIALIZER, .ended = (ended_fn) \
	}

/* ENTRY, the calling thread's, in L: false when L is full or the thread's
 * end could not be arranged (it is then not listed). */
bool thread_list_join(struct thread_list *l, void *entry);

/* ENTRY out of L (from its ENDED, or another thread's). */
void thread_list_leave(struct thread_list *l, const void *entry);

/*
 * In a forked child, whose only thread is the one that forked: L's lock
 * made anew (another thread may have held it at the fork) and every entry
 * but KEPT, that thread's (NULL: none), out: the others are the parent's.
 */
void thread_list_after_fork_child(struct thread_list *l, const void *kept);

#endif /* CUDATRACE_THREAD_LIST_H */

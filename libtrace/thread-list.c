/* SPDX-License-Identifier: MIT */
/*
 * thread-list.c - a module's list of its threads' entries (thread-list.h).
 */
#include <stddef.h>

#include "thread-list.h"

/* The key whose destructor calls L's ended, made once, under L's lock. */
static bool key_made_locked(struct thread_list *l)
{
	if (!l->key_made)
		l->key_made = pthread_key_create(&l->key, l->ended) == 0;
	return l->key_made;
}

bool thread_list_join(struct thread_list *l, void *entry)
{
	size_t i = THREAD_LIST_MAX;

	pthread_mutex_lock(&l->lock);
	if (key_made_locked(l) && pthread_setspecific(l->key, entry) == 0) {
		for (i = 0; i < THREAD_LIST_MAX && l->entry[i]; i++)
			;
		if (i < THREAD_LIST_MAX)
			l->entry[i] = entry;
		else
			pthread_setspecific(l->key, NULL);
	}
	pthread_mutex_unlock(&l->lock);
	return i < THREAD_LIST_MAX;
}

void thread_list_after_fork_child(struct thread_list *l, const void *kept)
{
	pthread_mutex_init(&l->lock, NULL);
	for (size_t i = 0; i < THREAD_LIST_MAX; i++)
		if (l->entry[i] != kept)
			l->entry[i] = NULL;
}

void thread_list_leave(struct thread_list *l, const void *entry)
{
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < THREAD_LIST_MAX; i++) {
		if (l->entry[i] == entry) {
			l->entry[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
}

/* pthreads: 4 threads with a mutex, a condition variable and thread-local
 * storage (issue 15). Thread i calls work(i) exactly 50 times, each call
 * summing (i + 1) * 2000 terms; its thread-local `mine` collects them. The
 * main thread waits on the condition variable until every worker reported,
 * joins them and prints their results in order: the output does not
 * depend on how the threads interleave.
 *
 * Expected output (exit status 0):
 *   thread 0: calls 50 sum 99950
 *   thread 1: calls 50 sum 200000
 *   thread 2: calls 50 sum 300000
 *   thread 3: calls 50 sum 399950
 *   total 200 main-tls 0
 */
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define CALLS 50

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static long total;
static int reported;
static __thread long mine;
static __thread int calls;

/* The work of thread `id`: (id + 1) * 2000 terms. */
__attribute__((noinline, noipa)) long work(long id) {
  long s = 0;
  for (long i = 0; i < (id + 1) * 2000; i++)
    s += (i * 7 + id) % 3;
  return s;
}

static void *run(void *arg) {
  long id = (long)arg;
  for (int k = 0; k < CALLS; k++) {
    mine += work(id);
    calls++;
    pthread_mutex_lock(&lock);
    total += 1;
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  reported++;
  pthread_cond_signal(&done_cv);
  pthread_mutex_unlock(&lock);
  return (void *)(mine * 100 + calls);
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], 0, run, (void *)i) != 0)
      return 2;
  pthread_mutex_lock(&lock);
  while (reported < THREADS)
    pthread_cond_wait(&done_cv, &lock);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < THREADS; i++) {
    void *r;
    pthread_join(t[i], &r);
    long v = (long)r;
    printf("thread %d: calls %ld sum %ld\n", i, v % 100, v / 100);
  }
  printf("total %ld main-tls %ld\n", total, mine);
  return total == THREADS * CALLS ? 0 : 1;
}

/* timedwait: futex timeouts and sleeping threads in guest time (issue 15).
 * 1. pthread_cond_timedwait for 20 ms with nobody to signal: ETIMEDOUT.
 * 2. A thread sleeps 5 ms (nanosleep) and then signals; the main thread
 *    waits for it with a 10 s timeout: it is signalled, not timed out.
 * 3. A detached thread ends with pthread_exit while the main thread
 *    joins another that returns 7.
 * Expected output (exit status 0):
 *   wait 1: timed out
 *   wait 2: signalled
 *   joined 7
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flag;

static struct timespec in_ms(long ms) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_nsec += (ms % 1000) * 1000000;
  ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000;
  ts.tv_nsec %= 1000000000;
  return ts;
}

static void *sleeper(void *arg) {
  (void)arg;
  struct timespec d = {0, 5 * 1000000};
  nanosleep(&d, 0);
  pthread_mutex_lock(&m);
  flag = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  return 0;
}

static void *quitter(void *arg) {
  (void)arg;
  pthread_exit(0);
}

static void *seven(void *arg) {
  (void)arg;
  return (void *)7;
}

int main(void) {
  pthread_mutex_lock(&m);
  struct timespec ts = in_ms(20);
  int r = pthread_cond_timedwait(&cv, &m, &ts);
  pthread_mutex_unlock(&m);
  printf("wait 1: %s\n", r == ETIMEDOUT ? "timed out" : "woken?");

  pthread_t t;
  pthread_create(&t, 0, sleeper, 0);
  pthread_mutex_lock(&m);
  ts = in_ms(10000);
  r = 0;
  while (!flag && r == 0)
    r = pthread_cond_timedwait(&cv, &m, &ts);
  pthread_mutex_unlock(&m);
  printf("wait 2: %s\n", flag ? "signalled" : "timed out");
  pthread_join(t, 0);

  pthread_t q, s;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  pthread_create(&q, &a, quitter, 0);
  pthread_create(&s, 0, seven, 0);
  void *v;
  pthread_join(s, &v);
  printf("joined %ld\n", (long)v);
  return 0;
}

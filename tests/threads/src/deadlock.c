/* deadlock: the main thread joins a thread that waits on a condition
 * variable nobody will ever signal. Linux (and QEMU) would hang forever;
 * fwprof stops with "deadlock: ..." (issue 15). Not compared with QEMU.
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *forever(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, forever, 0);
  puts("waiting");
  fflush(stdout);
  pthread_join(t, 0);
  puts("never");
  return 0;
}

/*
 * The program's own -finstrument-functions hooks, as a firmware trace would
 * have them: each event goes into a ring buffer (function address with the
 * low bit marking an exit).  Both hooks do the same work, so they cost the
 * same.  fwprof measures their cost as it runs and subtracts it.
 */
#include <stdint.h>

#define TRACE_SIZE 256

static uintptr_t trace[TRACE_SIZE];
static unsigned trace_pos;

__attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)call_site;
    trace[trace_pos++ % TRACE_SIZE] = (uintptr_t)this_fn;
}

__attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)call_site;
    trace[trace_pos++ % TRACE_SIZE] = (uintptr_t)this_fn | 1;
}

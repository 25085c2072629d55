/* The -finstrument-functions hooks for the rtos_instr builds (tests/rtos):
 * empty, not instrumented themselves, noipa so that they stay real calls
 * (fwprof's --method instrument watches the calls to them; a profiler on
 * hardware would read a cycle counter here). Leaves with no stack frame: a
 * hook called from a function runs at that function's stack depth. */
#include "rtos.h"

NO_INSTR __attribute__((noipa)) void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
  (void)this_fn;
  (void)call_site;
}

NO_INSTR __attribute__((noipa)) void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
  (void)this_fn;
  (void)call_site;
}

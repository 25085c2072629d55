/*
 * fwprof_instrument.c - minimal hooks for -finstrument-functions and -pg
 * programs on C libraries that have none (see fwprof_instrument.h).
 *
 * The bodies are empty on purpose: fwprof sees every call to these
 * functions in its simulator and does the bookkeeping itself.  `noipa`
 * keeps GCC from merging the identical bodies into one function or a jump
 * (-fipa-icf), so each hook is a single `ret`.  Compile without -pg.
 */
#include "fwprof_instrument.h"

__attribute__((no_instrument_function, noipa)) void
__cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)this_fn;
    (void)call_site;
}

__attribute__((no_instrument_function, noipa)) void
__cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)this_fn;
    (void)call_site;
}

__attribute__((no_instrument_function, noipa)) void
_mcount(void *return_address)
{
    (void)return_address;
}

/*
 * fwprof_instrument.h - entry/exit hooks for programs profiled with
 * `fwprof record --method instrument`.
 *
 * GCC's -finstrument-functions makes every function call
 *     __cyg_profile_func_enter(this_fn, call_site)   after its prologue
 *     __cyg_profile_func_exit(this_fn, call_site)    before its epilogue
 * and -pg makes every function call _mcount(return_address) after its
 * prologue (RISC-V GCC passes the function's return address in a0).
 * glibc defines these hooks; bare-metal C libraries (picolibc, newlib) do
 * not, and the program then does not link.  fwprof_instrument.c provides
 * minimal definitions: empty bodies, so the hooks cost as little as a hook
 * can (one `ret`).  fwprof intercepts the calls whatever the body does,
 * measures what the hooks cost and subtracts it (docs/instrumentation.md).
 *
 * Link it into the program, compiled WITHOUT -pg (an _mcount compiled with
 * -pg would call itself); -finstrument-functions is harmless, the hooks are
 * marked no_instrument_function:
 *
 *     riscv64-unknown-elf-gcc -c -O2 runtime/fwprof_instrument.c
 *     riscv64-unknown-elf-gcc -O2 -finstrument-functions prog.c \
 *         fwprof_instrument.o ...
 *
 * A program that wants its own hooks (a trace buffer, a cycle counter as on
 * hardware) defines them itself instead and does not link this file; fwprof
 * then measures the program's own hooks.
 */
#ifndef FWPROF_INSTRUMENT_H
#define FWPROF_INSTRUMENT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Called by -finstrument-functions code on entry to `this_fn`;
 * `call_site` is the address `this_fn` returns to. */
void __cyg_profile_func_enter(void *this_fn, void *call_site)
    __attribute__((no_instrument_function));

/* Called by -finstrument-functions code before `this_fn` returns. */
void __cyg_profile_func_exit(void *this_fn, void *call_site)
    __attribute__((no_instrument_function));

/* Called by -pg code after the prologue; `return_address` is where the
 * calling function returns to. */
void _mcount(void *return_address) __attribute__((no_instrument_function));

#ifdef __cplusplus
}
#endif

#endif /* FWPROF_INSTRUMENT_H */

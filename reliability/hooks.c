/* Empty -finstrument-functions hooks for the instrumented build of the
 * workloads, used when runtime/fwprof_instrument.c (fwprof's own runtime) is
 * absent. They must not be instrumented themselves. */
void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

void __cyg_profile_func_enter(void *fn, void *site) {
    (void)fn;
    (void)site;
}

void __cyg_profile_func_exit(void *fn, void *site) {
    (void)fn;
    (void)site;
}

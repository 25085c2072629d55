# Sourced by the build scripts of the bundled and test programs (not run):
# the one place for the bare-metal link flags (picolibc + semihosting, the
# memory map of QEMU virt's RAM) and the common compile flags (-g -O2,
# DWARF paths relative to the repository). Needs REPO set to the
# repository root.
BARE_LINK=(--specs=picolibc.specs --crt0=semihost --oslib=semihost
  -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x400000
  -Wl,--defsym=__ram=0x80400000 -Wl,--defsym=__ram_size=0x7c00000
  -Wl,--defsym=__stack_size=0x10000)
COMMON=(-g -O2 -misa-spec=2.2 "-fdebug-prefix-map=$REPO=." -Wall -Wextra)

#!/bin/sh
# Rebuild the test programs (needs gcc-riscv64-unknown-elf, picolibc-riscv64-unknown-elf
# and gcc-riscv64-linux-gnu). Reference results (QEMU 7.2):
#   qemu-system-riscv64 -M virt -nographic -bios none -kernel bare64.elf \
#       -semihosting-config enable=on,target=native -singlestep -d nochain,exec -D q.log
#   exit status 106; output "fib=610 acc=12.968444 q=-3 r=-1";
#   Trace lines: 6 in the reset ROM at 0x1000 + 26444 from 0x80000000 (bare64),
#                6 + 32167 (bare32, qemu-system-riscv32);
#   qemu-riscv64 -singlestep -d nochain,exec linux64.elf: 50 lines, exit 30, "hello".
#   mix64.elf / mix32.elf: exit 28; 6 + 23249 / 6 + 37720 trace lines.
# tests/programs.rs also checks the FNV-1a hash of the pcs of the trace lines at or
# above 0x80000000 (each pc as 8 little-endian bytes).
set -e
cd "$(dirname "$0")"
FL="--specs=picolibc.specs --oslib=semihost --crt0=semihost -mcmodel=medany -O2 -s
    -Wl,--defsym=__flash=0x80000000 -Wl,--defsym=__flash_size=0x200000
    -Wl,--defsym=__ram=0x80200000 -Wl,--defsym=__ram_size=0x200000"
riscv64-unknown-elf-gcc $FL -march=rv64imafdc -mabi=lp64d -o bare64.elf bare.c
riscv64-unknown-elf-gcc $FL -march=rv32imafdc -mabi=ilp32d -o bare32.elf bare.c
riscv64-unknown-elf-gcc $FL -march=rv64imafdc -mabi=lp64d -o mix64.elf mix.c -lm
riscv64-unknown-elf-gcc $FL -march=rv32imafdc -mabi=ilp32d -o mix32.elf mix.c -lm
riscv64-unknown-elf-gcc $FL -march=rv64imafdc -mabi=lp64d -o csrs64.elf csrs.c
riscv64-unknown-elf-gcc $FL -march=rv32imafdc -mabi=ilp32d -o csrs32.elf csrs.c
riscv64-unknown-elf-gcc $FL -march=rv64imafdc -mabi=lp64d -o traps64.elf traps.c trap_entry.S
riscv64-unknown-elf-gcc $FL -march=rv32imafdc -mabi=ilp32d -o traps32.elf traps.c trap_entry.S
riscv64-unknown-elf-gcc $FL -march=rv64imafdc -mabi=lp64d -o fp64.elf fp.c
riscv64-unknown-elf-gcc $FL -march=rv32imafdc -mabi=ilp32d -o fp32.elf fp.c
# fpNN.qemu.txt, trapsNN.qemu.txt, csrsNN.qemu.txt: the console output (stdout+stderr) of
#   qemu-system-riscvNN -M virt -cpu rvNN,h=false ... -icount shift=0 (H off: fwprof implements
#   no hypervisor extension, and misa/mie/mideleg must say so)
riscv64-linux-gnu-gcc -nostdlib -static -s -o linux64.elf linux.S

//! The device tree blob of QEMU 7.2's RISC-V `virt` board, limited to the
//! devices fwprof models.
//!
//! Written with [`vm_fdt::FdtWriter`] node by node after QEMU 7.2
//! `hw/riscv/virt.c` (`create_fdt`, `create_fdt_sockets`,
//! `create_fdt_socket_cpus`, `create_fdt_socket_memory`,
//! `create_fdt_socket_clint`, `create_fdt_socket_plic`, `create_fdt_uart`,
//! `create_fdt_reset`) and checked against the trees `qemu-system-riscv64`
//! and `qemu-system-riscv32` dump (`-M virt,dumpdtb=FILE`) by
//! `tests/virt_fdt.rs`. See [`virt_device_tree`] for the tree itself.

use vm_fdt::FdtWriter;

/// What the generated `virt` device tree describes.
///
/// [`VirtDeviceTree::isa_for`] and [`VirtDeviceTree::mmu_type_for`] give
/// the `riscv,isa` and `mmu-type` strings of what fwprof's hart
/// implements.
#[derive(Clone, Debug)]
pub struct VirtDeviceTree {
    /// True for RV64, false for RV32. Only `riscv,isa` and `mmu-type`
    /// depend on it (through the fields below): QEMU 7.2's RV32 `virt`
    /// tree has the same nodes, with 2-cell addresses and sizes too.
    pub rv64: bool,
    /// Number of harts (hart ids 0..harts), all in one socket (QEMU's
    /// `cluster0`). 0 gives a tree without `cpu@N` nodes and with empty
    /// `interrupts-extended` (QEMU refuses that configuration).
    pub harts: u32,
    /// RAM: base and size in bytes (`/memory@BASE` `reg`; QEMU `virt`:
    /// base 0x8000_0000, size `-m`).
    pub ram: (u64, u64),
    /// `/chosen/bootargs` (`--append`), if any. QEMU 7.2 writes it when
    /// the command line is non-empty; an empty string is left out too.
    pub bootargs: Option<String>,
    /// Each hart's `riscv,isa`, e.g.
    /// "rv64imafdc_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc"
    /// (see [`VirtDeviceTree::isa_for`]).
    pub isa: String,
    /// `mmu-type`, e.g. "riscv,sv39" (RV64) / "riscv,sv32" (RV32)
    /// (see [`VirtDeviceTree::mmu_type_for`]).
    pub mmu_type: String,
}

impl VirtDeviceTree {
    /// The `riscv,isa` string of fwprof's hart: RV32 or RV64 IMAFDC with
    /// Zicsr, Zifencei, Zihintpause, Zba, Zbb, Zbc, Zbs and Sstc, in the
    /// format and order of QEMU 7.2 `riscv_isa_string` (single letters in
    /// "IEMAFDQCPVH" order, then the multi-letter extensions in
    /// `isa_edata_arr` order, lower case, `_`-separated). It is exactly
    /// what QEMU 7.2 `-cpu rv64,h=false` (`rv32,h=false`) reports; the
    /// default `virt` CPU adds `h`, which fwprof does not implement.
    pub fn isa_for(rv64: bool) -> String {
        let xlen = if rv64 { 64 } else { 32 };
        format!("rv{xlen}imafdc_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc")
    }

    /// The `mmu-type` of fwprof's hart: "riscv,sv39" on RV64 (fwprof's MMU
    /// walks Sv39 only; QEMU 7.2 says "riscv,sv48"), "riscv,sv32" on RV32
    /// (as QEMU).
    pub fn mmu_type_for(rv64: bool) -> String {
        if rv64 { "riscv,sv39" } else { "riscv,sv32" }.to_string()
    }
}

/// Writing the device tree failed (an error of the `vm-fdt` writer, e.g.
/// a NUL byte inside `bootargs`).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the virt device tree: {0}")]
pub struct FdtError(#[from] vm_fdt::Error);

/// `RISCV_ACLINT_DEFAULT_TIMEBASE_FREQ`: the 10 MHz `time`/`mtime` clock.
const TIMEBASE_FREQUENCY: u32 = 10_000_000;
/// `virt_memmap[VIRT_TEST]`: the SiFive test (poweroff/reboot) device.
const TEST: (u64, u64) = (0x10_0000, 0x1000);
/// `virt_memmap[VIRT_CLINT]`.
const CLINT: (u64, u64) = (0x200_0000, 0x1_0000);
/// `virt_memmap[VIRT_PLIC]`: `VIRT_PLIC_SIZE(VIRT_CPUS_MAX * 2)`, the
/// same whatever the number of harts.
const PLIC: (u64, u64) = (0xc00_0000, 0x60_0000);
/// `virt_memmap[VIRT_UART0]`.
const UART0: (u64, u64) = (0x1000_0000, 0x100);
/// `UART0_IRQ`: the UART's PLIC source.
const UART0_IRQ: u32 = 10;
/// `UART0_CLOCK` (`create_fdt_uart`: 3.6864 MHz).
const UART0_CLOCK: u32 = 3_686_400;
/// `riscv,ndev` as QEMU 7.2 writes it (its dumped tree says 0x60): 96,
/// `VIRT_IRQCHIP_NUM_SOURCES`. Later QEMU versions write
/// `VIRT_IRQCHIP_NUM_SOURCES - 1` = 95, the sources after source 0.
const PLIC_NDEV: u32 = 96;
/// The cpu-intc interrupt numbers: `IRQ_M_SOFT`, `IRQ_M_TIMER`,
/// `IRQ_M_EXT`, `IRQ_S_EXT`.
const IRQ_M_SOFT: u32 = 3;
const IRQ_M_TIMER: u32 = 7;
const IRQ_M_EXT: u32 = 11;
const IRQ_S_EXT: u32 = 9;
/// `FINISHER_PASS` and `FINISHER_RESET` (`hw/misc/sifive_test.h`): the
/// values the poweroff and reboot nodes tell firmware to write.
const FINISHER_PASS: u32 = 0x5555;
const FINISHER_RESET: u32 = 0x7777;
/// `/chosen/rng-seed`: QEMU 7.2 writes 32 random bytes each run; fwprof
/// writes these 32 fixed bytes, so that runs are reproducible (as its
/// `AT_RANDOM` and `getrandom` bytes) while the guest reads the same tree
/// shape as on QEMU.
const RNG_SEED: [u8; 32] = *b"fwprof-virt-rng-seed-fixed-bytes";

/// Phandles as QEMU 7.2 numbers them for `n` harts: `create_fdt_sockets`
/// visits the harts from the last to the first, giving each its cpu
/// phandle then its cpu-intc phandle (hart `n-1` gets 1 and 2, hart 0
/// gets `2n-1` and `2n`), then the PLIC (`2n+1`); `create_fdt` numbers
/// the test device next (`2n+2`).
struct Phandles {
    harts: u32,
}

impl Phandles {
    fn cpu(&self, hart: u32) -> u32 {
        2 * (self.harts - 1 - hart) + 1
    }
    fn intc(&self, hart: u32) -> u32 {
        self.cpu(hart) + 1
    }
    fn plic(&self) -> u32 {
        2 * self.harts + 1
    }
    fn test(&self) -> u32 {
        2 * self.harts + 2
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// `reg` with 2-cell address and size (`#address-cells` = `#size-cells`
/// = 2 at the root and in `/soc`, on RV32 as on RV64).
fn reg(fdt: &mut FdtWriter, (base, size): (u64, u64)) -> Result<(), vm_fdt::Error> {
    fdt.property_array_u64("reg", &[base, size])
}

/// The device tree blob (DTB, version 17, no memory reservations, boot
/// CPU 0) of QEMU 7.2's `virt` machine as fwprof models it: the nodes and
/// properties QEMU 7.2 writes for the devices fwprof has, in the order
/// QEMU's blob has them (libfdt adds each node and property *before* its
/// siblings, so QEMU's blob lists them in the reverse of `virt.c`'s calls),
/// with QEMU's phandle numbers. Addresses are QEMU 7.2's `virt_memmap`.
///
/// ```text
/// / { #address-cells = 2; #size-cells = 2; compatible = "riscv-virtio";
///     model = "riscv-virtio,qemu";
///   chosen { rng-seed (32 fixed bytes); bootargs (if any);
///            stdout-path = "/soc/serial@10000000"; }
///   poweroff { value = 0x5555; offset = 0; regmap = <&test>;
///              compatible = "syscon-poweroff"; }
///   reboot   { value = 0x7777; offset = 0; regmap = <&test>;
///              compatible = "syscon-reboot"; }
///   memory@BASE { device_type = "memory"; reg = <BASE SIZE>; }
///   cpus { #address-cells = 1; #size-cells = 0;
///          timebase-frequency = 10000000;
///     cpu@N { phandle; device_type = "cpu"; reg = N; status = "okay";
///             compatible = "riscv"; riscv,isa; mmu-type;
///       interrupt-controller { #interrupt-cells = 1; interrupt-controller;
///                              compatible = "riscv,cpu-intc"; phandle; } }
///     cpu-map { cluster0 { coreN { cpu = <&cpuN>; } } } }
///   soc { #address-cells = 2; #size-cells = 2; compatible = "simple-bus";
///         ranges;
///     serial@10000000 { interrupts = 10; interrupt-parent = <&plic>;
///                       clock-frequency = 3686400; reg = <0x10000000 0x100>;
///                       compatible = "ns16550a"; }
///     test@100000 { phandle; reg = <0x100000 0x1000>;
///                   compatible = "sifive,test1", "sifive,test0", "syscon"; }
///     plic@c000000 { phandle; riscv,ndev = 96; reg = <0xc000000 0x600000>;
///                    interrupts-extended = <&intcN 11 &intcN 9 ...>;
///                    interrupt-controller;
///                    compatible = "sifive,plic-1.0.0", "riscv,plic0";
///                    #address-cells = 0; #interrupt-cells = 1; }
///     clint@2000000 { interrupts-extended = <&intcN 3 &intcN 7 ...>;
///                     reg = <0x2000000 0x10000>;
///                     compatible = "sifive,clint0", "riscv,clint0"; } } }
/// ```
///
/// Phandles for `n` harts: hart `i`'s cpu node `2(n-1-i)+1`, its
/// cpu-intc `2(n-1-i)+2`, the PLIC `2n+1`, the test device `2n+2`.
///
/// Differences from QEMU 7.2's own tree (`tests/virt_fdt.rs` holds the
/// same list and fails on any other):
/// * Left out because fwprof does not model the device: `/pmu` (SBI PMU
///   event map; fwprof's `mhpmcounter3..31` read as zero), `/fw-cfg@10100000`,
///   `/flash@20000000`, `/platform-bus@4000000`, `/soc/rtc@101000`
///   (goldfish RTC), `/soc/pci@30000000` and the eight
///   `/soc/virtio_mmio@1000N000`.
/// * `riscv,isa` has no `h`: fwprof has no hypervisor extension (QEMU 7.2
///   `-cpu rvNN,h=false` gives the same string as [`VirtDeviceTree::isa_for`]).
/// * `mmu-type`: whatever [`VirtDeviceTree::mmu_type`] says; fwprof's RV64
///   MMU implements Sv39 only, where QEMU says "riscv,sv48".
/// * `/chosen/rng-seed`: fixed bytes instead of QEMU's random ones.
///
/// The blob is packed (QEMU's is too, inside a 1 MiB buffer).
///
/// # Errors
/// [`FdtError`] if the writer refuses a value: a NUL byte in `bootargs`,
/// `isa` or `mmu_type`.
pub fn virt_device_tree(cfg: &VirtDeviceTree) -> Result<Vec<u8>, FdtError> {
    Ok(write(cfg)?)
}

fn write(cfg: &VirtDeviceTree) -> Result<Vec<u8>, vm_fdt::Error> {
    let n = cfg.harts;
    let ph = Phandles { harts: n };
    let mut fdt = FdtWriter::new()?;

    let root = fdt.begin_node("")?;
    fdt.property_u32("#address-cells", 2)?;
    fdt.property_u32("#size-cells", 2)?;
    fdt.property_string("compatible", "riscv-virtio")?;
    fdt.property_string("model", "riscv-virtio,qemu")?;

    // create_fdt: /chosen (rng-seed; bootargs from riscv_load_kernel's
    // caller; stdout-path from create_fdt_uart).
    let chosen = fdt.begin_node("chosen")?;
    fdt.property("rng-seed", &RNG_SEED)?;
    if let Some(args) = cfg.bootargs.as_deref().filter(|a| !a.is_empty()) {
        fdt.property_string("bootargs", args)?;
    }
    fdt.property_string("stdout-path", &format!("/soc/serial@{:x}", UART0.0))?;
    fdt.end_node(chosen)?;

    // create_fdt_reset: syscon-poweroff and syscon-reboot on the test device.
    for (name, value) in [("poweroff", FINISHER_PASS), ("reboot", FINISHER_RESET)] {
        let node = fdt.begin_node(name)?;
        fdt.property_u32("value", value)?;
        fdt.property_u32("offset", 0)?;
        fdt.property_u32("regmap", ph.test())?;
        fdt.property_string("compatible", &format!("syscon-{name}"))?;
        fdt.end_node(node)?;
    }

    // create_fdt_socket_memory.
    let memory = fdt.begin_node(&format!("memory@{:x}", cfg.ram.0))?;
    fdt.property_string("device_type", "memory")?;
    reg(&mut fdt, cfg.ram)?;
    fdt.end_node(memory)?;

    // create_fdt_sockets / create_fdt_socket_cpus.
    let cpus = fdt.begin_node("cpus")?;
    fdt.property_u32("#address-cells", 1)?;
    fdt.property_u32("#size-cells", 0)?;
    fdt.property_u32("timebase-frequency", TIMEBASE_FREQUENCY)?;
    for hart in 0..n {
        let cpu = fdt.begin_node(&format!("cpu@{hart}"))?;
        fdt.property_phandle(ph.cpu(hart))?;
        fdt.property_string("device_type", "cpu")?;
        fdt.property_u32("reg", hart)?;
        fdt.property_string("status", "okay")?;
        fdt.property_string("compatible", "riscv")?;
        fdt.property_string("riscv,isa", &cfg.isa)?;
        fdt.property_string("mmu-type", &cfg.mmu_type)?;
        let intc = fdt.begin_node("interrupt-controller")?;
        fdt.property_u32("#interrupt-cells", 1)?;
        fdt.property_null("interrupt-controller")?;
        fdt.property_string("compatible", "riscv,cpu-intc")?;
        fdt.property_phandle(ph.intc(hart))?;
        fdt.end_node(intc)?;
        fdt.end_node(cpu)?;
    }
    let cpu_map = fdt.begin_node("cpu-map")?;
    let cluster = fdt.begin_node("cluster0")?;
    for hart in 0..n {
        let core = fdt.begin_node(&format!("core{hart}"))?;
        fdt.property_u32("cpu", ph.cpu(hart))?;
        fdt.end_node(core)?;
    }
    fdt.end_node(cluster)?;
    fdt.end_node(cpu_map)?;
    fdt.end_node(cpus)?;

    // create_fdt: /soc.
    let soc = fdt.begin_node("soc")?;
    fdt.property_u32("#address-cells", 2)?;
    fdt.property_u32("#size-cells", 2)?;
    fdt.property_string("compatible", "simple-bus")?;
    fdt.property_null("ranges")?;

    // create_fdt_uart.
    let uart = fdt.begin_node(&format!("serial@{:x}", UART0.0))?;
    fdt.property_u32("interrupts", UART0_IRQ)?;
    fdt.property_u32("interrupt-parent", ph.plic())?;
    fdt.property_u32("clock-frequency", UART0_CLOCK)?;
    reg(&mut fdt, UART0)?;
    fdt.property_string("compatible", "ns16550a")?;
    fdt.end_node(uart)?;

    // create_fdt_reset: the test device.
    let test = fdt.begin_node(&format!("test@{:x}", TEST.0))?;
    fdt.property_phandle(ph.test())?;
    reg(&mut fdt, TEST)?;
    fdt.property_string_list(
        "compatible",
        strings(&["sifive,test1", "sifive,test0", "syscon"]),
    )?;
    fdt.end_node(test)?;

    // create_fdt_socket_plic (without KVM: M and S external per hart).
    let plic = fdt.begin_node(&format!("plic@{:x}", PLIC.0))?;
    fdt.property_phandle(ph.plic())?;
    fdt.property_u32("riscv,ndev", PLIC_NDEV)?;
    reg(&mut fdt, PLIC)?;
    let cells: Vec<u32> = (0..n)
        .flat_map(|h| [ph.intc(h), IRQ_M_EXT, ph.intc(h), IRQ_S_EXT])
        .collect();
    fdt.property_array_u32("interrupts-extended", &cells)?;
    fdt.property_null("interrupt-controller")?;
    fdt.property_string_list("compatible", strings(&["sifive,plic-1.0.0", "riscv,plic0"]))?;
    fdt.property_u32("#address-cells", 0)?;
    fdt.property_u32("#interrupt-cells", 1)?;
    fdt.end_node(plic)?;

    // create_fdt_socket_clint (no ACLINT: the `aclint` machine option is off).
    let clint = fdt.begin_node(&format!("clint@{:x}", CLINT.0))?;
    let cells: Vec<u32> = (0..n)
        .flat_map(|h| [ph.intc(h), IRQ_M_SOFT, ph.intc(h), IRQ_M_TIMER])
        .collect();
    fdt.property_array_u32("interrupts-extended", &cells)?;
    reg(&mut fdt, CLINT)?;
    fdt.property_string_list("compatible", strings(&["sifive,clint0", "riscv,clint0"]))?;
    fdt.end_node(clint)?;

    fdt.end_node(soc)?;
    fdt.end_node(root)?;
    fdt.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rv64: bool, harts: u32, bootargs: Option<&str>) -> VirtDeviceTree {
        VirtDeviceTree {
            rv64,
            harts,
            ram: (0x8000_0000, 128 << 20),
            bootargs: bootargs.map(str::to_string),
            isa: VirtDeviceTree::isa_for(rv64),
            mmu_type: VirtDeviceTree::mmu_type_for(rv64),
        }
    }

    #[test]
    fn blob_parses_back() {
        for rv64 in [true, false] {
            for harts in [1, 4] {
                let blob = virt_device_tree(&cfg(rv64, harts, None)).unwrap();
                let fdt = ::fdt::Fdt::new(&blob).expect("valid DTB");
                assert_eq!(fdt.total_size(), blob.len());
                assert_eq!(fdt.cpus().count(), harts as usize);
                for cpu in fdt.cpus() {
                    assert_eq!(cpu.timebase_frequency(), 10_000_000);
                    let isa = cpu.property("riscv,isa").and_then(|p| p.as_str());
                    assert_eq!(isa, Some(VirtDeviceTree::isa_for(rv64).as_str()));
                }
                let mem: Vec<_> = fdt.memory().regions().collect();
                assert_eq!(mem.len(), 1);
                assert_eq!(mem[0].starting_address as usize, 0x8000_0000);
                assert_eq!(mem[0].size, Some(128 << 20));
                let chosen = fdt.chosen();
                assert_eq!(chosen.bootargs(), None);
                assert_eq!(chosen.stdout().unwrap().name, "serial@10000000");
                let uart = fdt.find_node("/soc/serial@10000000").unwrap();
                assert_eq!(uart.interrupt_parent().unwrap().name, "plic@c000000");
                let plic = fdt.find_phandle(2 * harts + 1).unwrap();
                assert_eq!(plic.name, "plic@c000000");
                let test = fdt.find_phandle(2 * harts + 2).unwrap();
                assert_eq!(test.name, "test@100000");
                // Hart 0's cpu-intc is the first target of the CLINT's
                // interrupts-extended.
                let clint = fdt.find_node("/soc/clint@2000000").unwrap();
                let ie = clint.property("interrupts-extended").unwrap().value;
                let intc0 = u32::from_be_bytes(ie[..4].try_into().unwrap());
                let cpu0 = fdt.find_node("/cpus/cpu@0/interrupt-controller").unwrap();
                let ph0 = cpu0.property("phandle").unwrap().as_usize().unwrap();
                assert_eq!(intc0 as usize, ph0);
            }
        }
    }

    #[test]
    fn bootargs_when_given() {
        let args = "console=ttyS0 earlycon=sbi root=/dev/ram";
        let blob = virt_device_tree(&cfg(true, 1, Some(args))).unwrap();
        let fdt = ::fdt::Fdt::new(&blob).unwrap();
        assert_eq!(fdt.chosen().bootargs(), Some(args));
        // An empty command line is left out, as QEMU does.
        let blob = virt_device_tree(&cfg(true, 1, Some(""))).unwrap();
        let fdt = ::fdt::Fdt::new(&blob).unwrap();
        assert!(fdt
            .find_node("/chosen")
            .unwrap()
            .property("bootargs")
            .is_none());
    }

    #[test]
    fn nul_in_bootargs_is_an_error() {
        let err = virt_device_tree(&cfg(true, 1, Some("a\0b"))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot write the virt device tree: Strings cannot contain NUL"
        );
    }

    #[test]
    fn isa_strings() {
        assert_eq!(
            VirtDeviceTree::isa_for(true),
            "rv64imafdc_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc"
        );
        assert_eq!(
            VirtDeviceTree::isa_for(false),
            "rv32imafdc_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc"
        );
        assert_eq!(VirtDeviceTree::mmu_type_for(true), "riscv,sv39");
        assert_eq!(VirtDeviceTree::mmu_type_for(false), "riscv,sv32");
    }
}

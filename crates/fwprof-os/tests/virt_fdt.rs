//! fwprof's `virt` device tree against QEMU 7.2's own.
//!
//! QEMU writes its tree and exits with `-M virt,dumpdtb=FILE` (the file is
//! the packed blob in QEMU's 1 MiB buffer). Both blobs are read with the
//! `fdt` crate and flattened to node paths with their properties in blob
//! order; then every node and property must be the same, value and order,
//! except for the differences in [`ALLOWED`], each with its reason. A
//! difference not in that list, in either direction, fails the test.
//!
//! The test skips when `qemu-system-riscv64`/`qemu-system-riscv32` are
//! missing, and fails instead when `FWPROF_REQUIRE_TOOLS` is set (as
//! `scripts/test.sh` does).

use std::path::Path;
use std::process::{Command, Stdio};

use fwprof_os::{virt_device_tree, VirtDeviceTree};

/// How fwprof's tree may differ from QEMU's at a path.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// The node (with everything under it) is in QEMU's tree only. Each
    /// such entry must match a node of every QEMU tree compared, so that
    /// the list cannot go stale.
    OnlyInQemu,
    /// The property is in both trees with different values; [`check_value`]
    /// says which values are expected.
    Value,
}

/// One allowed difference: a node or property path (a path component
/// ending in `*` matches any name with that prefix), its kind and why.
struct Allowed {
    path: &'static str,
    kind: Kind,
    reason: &'static str,
}

/// Every difference allowed between fwprof's and QEMU 7.2's `virt` tree.
const ALLOWED: &[Allowed] = &[
    Allowed {
        path: "/pmu",
        kind: Kind::OnlyInQemu,
        reason: "SBI PMU event-to-counter map for OpenSBI: without --core fwprof's \
                 mhpmcounter3..31 read as zero and count nothing (docs/pmu.md)",
    },
    Allowed {
        path: "/fw-cfg@10100000",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no fw_cfg device",
    },
    Allowed {
        path: "/flash@20000000",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no CFI flash",
    },
    Allowed {
        path: "/platform-bus@4000000",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no platform bus (dynamically plugged sysbus devices)",
    },
    Allowed {
        path: "/soc/rtc@101000",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no goldfish RTC",
    },
    Allowed {
        path: "/soc/pci@30000000",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no PCIe host bridge",
    },
    Allowed {
        path: "/soc/virtio_mmio@*",
        kind: Kind::OnlyInQemu,
        reason: "fwprof has no virtio-mmio transports",
    },
    Allowed {
        path: "/cpus/cpu@*/riscv,isa",
        kind: Kind::Value,
        reason: "fwprof has no hypervisor extension: QEMU's default CPU says `h`, \
                 fwprof's string is QEMU's without it (QEMU `-cpu rvNN,h=false`)",
    },
    Allowed {
        path: "/cpus/cpu@*/mmu-type",
        kind: Kind::Value,
        reason: "fwprof's RV64 MMU implements Sv39 only (QEMU 7.2 says riscv,sv48); \
                 RV32 is riscv,sv32 in both",
    },
    Allowed {
        path: "/chosen/rng-seed",
        kind: Kind::Value,
        reason: "32 random bytes per QEMU run; fwprof's are fixed (reproducible runs)",
    },
];

/// A node of a flattened tree: its path and its properties in blob order.
#[derive(Debug)]
struct Node {
    path: String,
    props: Vec<(String, Vec<u8>)>,
}

/// The nodes of `blob` in blob (pre-)order.
fn flatten(blob: &[u8]) -> Vec<Node> {
    fn walk(node: fdt::node::FdtNode<'_, '_>, path: String, out: &mut Vec<Node>) {
        out.push(Node {
            path: path.clone(),
            props: node
                .properties()
                .map(|p| (p.name.to_string(), p.value.to_vec()))
                .collect(),
        });
        for child in node.children() {
            let sub = if path == "/" {
                format!("/{}", child.name)
            } else {
                format!("{path}/{}", child.name)
            };
            walk(child, sub, out);
        }
    }
    let tree = fdt::Fdt::new(blob).expect("a valid device tree blob");
    assert_eq!(
        tree.memory_reservations().count(),
        0,
        "no memory reservations"
    );
    let mut out = Vec::new();
    walk(
        tree.find_node("/").expect("root node"),
        "/".into(),
        &mut out,
    );
    out
}

/// Header fields after the sizes and offsets: version, last compatible
/// version, boot CPU.
fn header(blob: &[u8]) -> [u32; 3] {
    let word = |i: usize| u32::from_be_bytes(blob[i * 4..i * 4 + 4].try_into().unwrap());
    [word(5), word(6), word(7)]
}

/// Does `path` match `pattern` (same components; `*` ends a prefix)?
fn matches(pattern: &str, path: &str) -> bool {
    let (p, q): (Vec<_>, Vec<_>) = (pattern.split('/').collect(), path.split('/').collect());
    p.len() == q.len()
        && p.iter().zip(&q).all(|(p, q)| match p.strip_suffix('*') {
            Some(prefix) => q.starts_with(prefix),
            None => p == q,
        })
}

/// The allowance for `path`, if any, of `kind`.
fn allowed(path: &str, kind: Kind) -> Option<&'static Allowed> {
    ALLOWED
        .iter()
        .find(|a| a.kind == kind && matches(a.path, path))
}

/// Is the node at `path`, or one of its ancestors, allowed in QEMU only?
fn only_in_qemu(path: &str) -> bool {
    let mut p = path;
    loop {
        if allowed(p, Kind::OnlyInQemu).is_some() {
            return true;
        }
        match p.rfind('/') {
            Some(0) | None => return false,
            Some(i) => p = &p[..i],
        }
    }
}

fn show(v: &[u8]) -> String {
    let printable = !v.is_empty()
        && v.last() == Some(&0)
        && v[..v.len() - 1]
            .iter()
            .all(|&b| b == 0 || (0x20..0x7f).contains(&b));
    if printable {
        format!("{:?}", String::from_utf8_lossy(&v[..v.len() - 1]))
    } else if v.len().is_multiple_of(4) {
        let cells: Vec<String> = v
            .chunks(4)
            .map(|c| format!("{:#x}", u32::from_be_bytes(c.try_into().unwrap())))
            .collect();
        format!("<{}>", cells.join(" "))
    } else {
        format!("{v:02x?}")
    }
}

fn text(v: &[u8]) -> &str {
    std::str::from_utf8(v.strip_suffix(&[0]).unwrap_or(v)).unwrap_or("<not UTF-8>")
}

/// The values expected where a [`Kind::Value`] difference is allowed; an
/// error message if they are not.
fn check_value(path: &str, cfg: &VirtDeviceTree, qemu: &[u8], ours: &[u8]) -> Result<(), String> {
    let (q, o) = (text(qemu), text(ours));
    let ok = if path.ends_with("/riscv,isa") {
        // QEMU's single letters, `h` taken out.
        let xlen = if cfg.rv64 { "rv64" } else { "rv32" };
        o == VirtDeviceTree::isa_for(cfg.rv64)
            && q.replacen(&format!("{xlen}imafdch_"), &format!("{xlen}imafdc_"), 1) == o
    } else if path.ends_with("/mmu-type") {
        let expected_qemu = if cfg.rv64 { "riscv,sv48" } else { "riscv,sv32" };
        o == VirtDeviceTree::mmu_type_for(cfg.rv64) && q == expected_qemu
    } else if path == "/chosen/rng-seed" {
        qemu.len() == 32 && ours.len() == 32
    } else {
        false
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{path}: unexpected values: QEMU {}, fwprof {}",
            show(qemu),
            show(ours)
        ))
    }
}

/// Every difference between `qemu` and `ours` that [`ALLOWED`] does not
/// allow, as messages (empty: the trees agree).
fn compare(cfg: &VirtDeviceTree, qemu: &[u8], ours: &[u8]) -> Vec<String> {
    let mut errors = Vec::new();
    if header(qemu) != header(ours) {
        errors.push(format!(
            "header (version, last compatible version, boot CPU): QEMU {:?}, fwprof {:?}",
            header(qemu),
            header(ours)
        ));
    }
    let (q, o) = (flatten(qemu), flatten(ours));
    // Allowances for absent nodes must still describe QEMU's tree.
    for a in ALLOWED.iter().filter(|a| a.kind == Kind::OnlyInQemu) {
        if !q.iter().any(|n| matches(a.path, &n.path)) {
            errors.push(format!(
                "allowed difference {} is stale: QEMU has no such node",
                a.path
            ));
        }
    }
    let kept: Vec<&Node> = q.iter().filter(|n| !only_in_qemu(&n.path)).collect();
    for n in &o {
        if only_in_qemu(&n.path) {
            errors.push(format!("{}: fwprof has a node it should leave out", n.path));
        } else if !kept.iter().any(|k| k.path == n.path) {
            errors.push(format!("{}: node only in fwprof's tree", n.path));
        }
    }
    for k in &kept {
        let Some(n) = o.iter().find(|n| n.path == k.path) else {
            errors.push(format!("{}: node only in QEMU's tree", k.path));
            continue;
        };
        for (name, qv) in &k.props {
            let path = format!("{}/{name}", k.path.trim_end_matches('/'));
            match n.props.iter().find(|(m, _)| m == name) {
                None => errors.push(format!("{path}: only in QEMU's tree ({})", show(qv))),
                Some((_, ov)) if ov == qv => {}
                Some((_, ov)) => match allowed(&path, Kind::Value) {
                    Some(_) => errors.extend(check_value(&path, cfg, qv, ov).err()),
                    None => errors.push(format!("{path}: QEMU {}, fwprof {}", show(qv), show(ov))),
                },
            }
        }
        for (name, ov) in &n.props {
            if !k.props.iter().any(|(m, _)| m == name) {
                errors.push(format!(
                    "{}/{name}: only in fwprof's tree ({})",
                    n.path,
                    show(ov)
                ));
            }
        }
        let names = |props: &[(String, Vec<u8>)]| -> Vec<String> {
            props.iter().map(|(m, _)| m.clone()).collect()
        };
        if errors.is_empty() && names(&k.props) != names(&n.props) {
            errors.push(format!(
                "{}: property order: QEMU {:?}, fwprof {:?}",
                k.path,
                names(&k.props),
                names(&n.props)
            ));
        }
    }
    let paths = |nodes: &[&Node]| -> Vec<String> { nodes.iter().map(|n| n.path.clone()).collect() };
    let ours_order: Vec<&Node> = o.iter().collect();
    if errors.is_empty() && paths(&kept) != paths(&ours_order) {
        errors.push(format!(
            "node order: QEMU {:?}, fwprof {:?}",
            paths(&kept),
            paths(&ours_order)
        ));
    }
    errors
}

/// One configuration of the `virt` machine, for QEMU and for fwprof.
struct Case {
    rv64: bool,
    harts: u32,
    ram_mib: u64,
    /// QEMU's `-cpu`; `None`: the default CPU (with H).
    cpu: Option<&'static str>,
    bootargs: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        rv64: true,
        harts: 1,
        ram_mib: 128,
        cpu: None,
        bootargs: None,
    },
    Case {
        rv64: false,
        harts: 1,
        ram_mib: 128,
        cpu: None,
        bootargs: None,
    },
    Case {
        rv64: true,
        harts: 2,
        ram_mib: 256,
        cpu: Some("rv64,h=false"),
        bootargs: Some("console=ttyS0 earlycon=sbi"),
    },
    Case {
        rv64: false,
        harts: 3,
        ram_mib: 64,
        cpu: Some("rv32,h=false"),
        bootargs: Some("root=/dev/ram rw"),
    },
];

fn qemu_binary(rv64: bool) -> &'static str {
    if rv64 {
        "qemu-system-riscv64"
    } else {
        "qemu-system-riscv32"
    }
}

/// True when both QEMU system emulators run; otherwise skip (false), or
/// fail when `FWPROF_REQUIRE_TOOLS` is set.
fn tools_or_skip() -> bool {
    let missing: Vec<&str> = [qemu_binary(true), qemu_binary(false)]
        .into_iter()
        .filter(|t| {
            Command::new(t)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .map(|s| !s.success())
                .unwrap_or(true)
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let msg = format!(
        "{} not found (apt-get install qemu-system-misc)",
        missing.join(", ")
    );
    assert!(
        std::env::var_os("FWPROF_REQUIRE_TOOLS").is_none(),
        "required tools missing (FWPROF_REQUIRE_TOOLS is set): {msg}"
    );
    eprintln!("SKIPPED virt_fdt: {msg}");
    false
}

/// QEMU 7.2's tree for `case` (`-M virt,dumpdtb=FILE`; `-append` needs a
/// `-kernel`, a 4-byte stand-in that QEMU only loads).
fn qemu_dtb(case: &Case, dir: &Path, name: &str) -> Vec<u8> {
    let out = dir.join(format!("{name}.dtb"));
    let mut cmd = Command::new(qemu_binary(case.rv64));
    cmd.arg("-M")
        .arg(format!("virt,dumpdtb={}", out.display()))
        .args(["-m", &format!("{}M", case.ram_mib)])
        .args(["-smp", &case.harts.to_string()])
        .args(["-nographic", "-bios", "none"]);
    if let Some(cpu) = case.cpu {
        cmd.args(["-cpu", cpu]);
    }
    if let Some(args) = case.bootargs {
        let kernel = dir.join(format!("{name}.bin"));
        std::fs::write(&kernel, 0x0010_0073u32.to_le_bytes()).unwrap(); // ebreak
        cmd.arg("-kernel").arg(&kernel).args(["-append", args]);
    }
    let res = cmd
        .stdin(Stdio::null())
        .output()
        .expect("run qemu-system-riscv");
    assert!(
        res.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::read(&out).expect("QEMU wrote the dtb")
}

#[test]
fn matches_qemu_virt() {
    if !tools_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, case) in CASES.iter().enumerate() {
        let cfg = VirtDeviceTree {
            rv64: case.rv64,
            harts: case.harts,
            ram: (0x8000_0000, case.ram_mib << 20),
            bootargs: case.bootargs.map(str::to_string),
            isa: VirtDeviceTree::isa_for(case.rv64),
            mmu_type: VirtDeviceTree::mmu_type_for(case.rv64),
        };
        let qemu = qemu_dtb(case, dir.path(), &format!("case{i}"));
        let ours = virt_device_tree(&cfg).unwrap();
        // With H off, QEMU's riscv,isa is exactly fwprof's.
        if case.cpu.is_some() {
            let q = flatten(&qemu);
            let cpu0 = q.iter().find(|n| n.path == "/cpus/cpu@0").unwrap();
            let isa = cpu0.props.iter().find(|(m, _)| m == "riscv,isa").unwrap();
            assert_eq!(text(&isa.1), cfg.isa, "{:?}", case.cpu);
        }
        for e in compare(&cfg, &qemu, &ours) {
            failures.push(format!(
                "{} -smp {} -m {}M -cpu {} append {:?}: {e}",
                qemu_binary(case.rv64),
                case.harts,
                case.ram_mib,
                case.cpu.unwrap_or("default"),
                case.bootargs
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "fwprof's virt tree differs from QEMU's beyond the allowed list:\n{}",
        failures.join("\n")
    );
}

/// The comparison itself finds differences: another RAM size, another
/// `riscv,isa`, an extra hart.
#[test]
fn comparison_catches_differences() {
    if !tools_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let case = &CASES[0];
    let qemu = qemu_dtb(case, dir.path(), "self");
    let cfg = VirtDeviceTree {
        rv64: true,
        harts: 1,
        ram: (0x8000_0000, 128 << 20),
        bootargs: None,
        isa: VirtDeviceTree::isa_for(true),
        mmu_type: VirtDeviceTree::mmu_type_for(true),
    };
    assert!(compare(&cfg, &qemu, &virt_device_tree(&cfg).unwrap()).is_empty());
    // Another RAM size and another isa: both must be reported.
    let wrong = VirtDeviceTree {
        ram: (0x8000_0000, 64 << 20),
        isa: "rv64imac_zicsr_zifencei".into(),
        ..cfg.clone()
    };
    let errors = compare(&cfg, &qemu, &virt_device_tree(&wrong).unwrap());
    assert!(
        errors.iter().any(|e| e.starts_with("/memory@80000000/reg")),
        "{errors:?}"
    );
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/cpus/cpu@0/riscv,isa")),
        "{errors:?}"
    );
    // A hart more: nodes only in fwprof's tree.
    let more = VirtDeviceTree {
        harts: 2,
        ..cfg.clone()
    };
    let errors = compare(&cfg, &qemu, &virt_device_tree(&more).unwrap());
    assert!(
        errors
            .iter()
            .any(|e| e == "/cpus/cpu@1: node only in fwprof's tree"),
        "{errors:?}"
    );
}

#[test]
fn allowed_list_is_well_formed() {
    for a in ALLOWED {
        assert!(
            a.path.starts_with('/') && !a.reason.is_empty(),
            "{}",
            a.path
        );
    }
    assert!(matches("/soc/virtio_mmio@*", "/soc/virtio_mmio@10008000"));
    assert!(!matches(
        "/soc/virtio_mmio@*",
        "/soc/virtio_mmio@10008000/x"
    ));
    assert!(only_in_qemu("/soc/pci@30000000"));
    assert!(only_in_qemu("/flash@20000000"));
    assert!(!only_in_qemu("/soc"));
    assert!(!only_in_qemu("/soc/plic@c000000"));
}

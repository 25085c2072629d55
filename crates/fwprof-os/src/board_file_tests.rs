//! Board files: the shipped board, and one test per refusal.

use super::*;

const MINIMAL: &str = r#"
[[memory]]
name = "ram"
base = 0x80000000
size = "16K"
kind = "ram"
"#;

fn parse(text: &str) -> Result<Board, BoardError> {
    Board::from_toml(text, "boards/test.toml")
}

/// The message of a refused file.
fn refused(text: &str) -> String {
    let m = parse(text).expect_err("refused").to_string();
    assert!(!m.contains('\n'), "one line: {m}");
    m
}

#[test]
fn the_shipped_board_parses() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../boards/fe310-g002.toml");
    let b = Board::load(Path::new(path)).unwrap();
    assert_eq!(b.name, "fe310-g002");
    assert_eq!(b.xlen, Some(32));
    assert_eq!(b.start, Some(0x2001_0000));
    assert_eq!(b.unmodelled, Unmodelled::Ignore);
    assert!(!b.device_tree);
    let flash = b.region_at(0x2001_0000).unwrap();
    assert_eq!((flash.name.as_str(), flash.size), ("flash", 4 << 20));
    assert_eq!(flash.kind, MemoryKind::Flash);
    assert!(flash.perm.read && flash.perm.exec && !flash.perm.write);
    let dtim = b.region_at(0x8000_3fff).unwrap();
    assert_eq!((dtim.name.as_str(), dtim.kind), ("dtim", MemoryKind::Ram));
    assert!(dtim.perm.write);
    assert!(b.region_at(0x8000_4000).is_none());
    assert_eq!(b.device_at(0x0200_bff8).unwrap().kind, DeviceKind::Clint);
    let plic = b.device_at(0x0c20_0004).unwrap();
    assert_eq!((plic.kind, plic.size), (DeviceKind::Plic, 64 << 20));
    assert_eq!(b.peripheral_at(0x1001_3000).unwrap().name, "UART0");
    assert_eq!(b.peripheral_at(0x1000_8008).unwrap().name, "PRCI");
    assert_eq!(b.peripheral_at(0x1003_5ffc).unwrap().name, "PWM2");
    assert!(b.peripheral_at(0x1003_6000).is_none());
}

#[test]
fn defaults() {
    let b = parse(MINIMAL).unwrap();
    assert_eq!(b.name, "test");
    assert_eq!(b.unmodelled, Unmodelled::Fault);
    assert_eq!(
        (b.start, b.xlen, b.description.as_deref()),
        (None, None, None)
    );
    let r = &b.memory[0];
    assert_eq!((r.base, r.size, r.wait_states), (0x8000_0000, 16 << 10, 0));
    assert_eq!(r.perm, MemoryKind::Ram.default_perm());
    assert!(b.devices.is_empty() && b.peripherals.is_empty());
    let text = r#"
name = "mcu"
[[memory]]
name = "flash"
base = "0x08000000"
size = 65536
kind = "flash"
wait_states = 3
[[memory]]
name = "boot"
base = 0x1000
size = "4K"
kind = "rom"
access = "r"
[[device]]
kind = "plic"
base = 0xc000000
[[device]]
kind = "uart16550"
name = "uart"
base = 0x10000000
irq = 10
"#;
    let b = parse(text).unwrap();
    assert_eq!(b.name, "mcu");
    assert_eq!(b.memory[0].wait_states, 3);
    assert_eq!(b.memory[0].perm, MemoryKind::Flash.default_perm());
    assert!(!b.memory[1].perm.exec);
    assert_eq!(b.devices[0].size, VIRT_PLIC.1);
    assert_eq!((b.devices[1].size, b.devices[1].irq), (8, Some(10)));
    assert_eq!(b.devices[1].name, "uart");
    assert_eq!(b.devices[0].name, "plic");
}

#[test]
fn unknown_keys_are_refused_with_their_line() {
    let m = refused(&format!("{MINIMAL}speed = 3\n"));
    assert!(
        m.starts_with("boards/test.toml:7: key `memory[0].speed`: unknown field `speed`"),
        "{m}"
    );
    let m = refused(&format!("colour = 1\n{MINIMAL}"));
    assert!(
        m.starts_with("boards/test.toml:1: key `colour`: unknown field"),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[peripheral]]\nname = \"X\"\nbase = 0\nsize = 4\nirq = 3\n"
    ));
    assert!(
        m.contains(":11: key `peripheral[0].irq`: unknown field `irq`"),
        "{m}"
    );
}

#[test]
fn syntax_and_type_errors() {
    let m = refused("name = \n");
    assert!(m.starts_with("boards/test.toml:1:"), "{m}");
    let m = refused(&MINIMAL.replace("\"16K\"", "true"));
    assert!(
        m.starts_with("boards/test.toml:5: key `memory[0].size`: invalid type"),
        "{m}"
    );
    let m = refused(&MINIMAL.replace("\"16K\"", "\"lots\""));
    assert!(
        m.contains("key `memory[0].size`: bad number of bytes \"lots\""),
        "{m}"
    );
    let m = refused(&MINIMAL.replace("0x80000000", "-4"));
    assert!(m.contains("key `memory[0].base`: -4 is negative"), "{m}");
    let m = refused(&MINIMAL.replace("kind = \"ram\"\n", ""));
    assert!(m.contains("missing field `kind`"), "{m}");
}

#[test]
fn a_board_without_memory_is_refused() {
    let m = refused("name = \"x\"\n");
    assert!(
        m.starts_with("boards/test.toml:1: key `memory`: no [[memory]] region"),
        "{m}"
    );
}

#[test]
fn zero_sizes_and_wrapping_ranges_are_refused() {
    let m = refused(&MINIMAL.replace("\"16K\"", "0"));
    assert_eq!(
        m,
        "boards/test.toml:5: key `memory[0].size`: must be greater than 0"
    );
    let m = refused(&MINIMAL.replace("0x80000000", "\"0xffffffffffffff00\""));
    assert!(
        m.contains("key `memory[0].size`: base 0xffffffffffffff00 + size 0x4000 wraps"),
        "{m}"
    );
    let m = refused(&format!(
        "xlen = 32\n{}",
        MINIMAL.replace("0x80000000", "0xfffff000")
    ));
    assert!(
        m.contains("key `memory[0].base`: [0xfffff000, 0x100002fff] passes the end of the 32-bit address space"),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[peripheral]]\nname = \"X\"\nbase = 0\nsize = 0\n"
    ));
    assert!(
        m.contains("key `peripheral[0].size`: must be greater than 0"),
        "{m}"
    );
}

#[test]
fn overlaps_are_refused() {
    let m = refused(&format!(
        "{MINIMAL}[[memory]]\nname = \"b\"\nbase = 0x80003000\nsize = 0x2000\nkind = \"ram\"\n"
    ));
    assert!(
        m.starts_with("boards/test.toml:9: key `memory[1].base`: memory \"b\" [0x80003000, 0x80004fff] overlaps memory \"ram\" [0x80000000, 0x80003fff] (line 4)"),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"clint\"\nbase = 0x80000000\n"
    ));
    assert!(
        m.contains("device \"clint\" [0x80000000, 0x8000ffff] overlaps memory \"ram\""),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"clint\"\nbase = 0x2000000\n[[peripheral]]\nname = \"P\"\nbase = 0x2004000\nsize = 4\n"
    ));
    assert!(
        m.contains("key `peripheral[0].base`: peripheral \"P\""),
        "{m}"
    );
}

#[test]
fn unknown_kinds_and_rules_are_refused() {
    let m = refused(&MINIMAL.replace("\"ram\"\n", "\"sram\"\n"));
    assert!(
        m.contains("key `memory[0].kind`: unknown memory kind \"sram\"; expected \"rom\", \"flash\" or \"ram\""),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"stm32_rcc\"\nbase = 0x40021000\n"
    ));
    assert!(
        m.contains("key `device[0].kind`: unknown device \"stm32_rcc\""),
        "{m}"
    );
    let m = refused(&format!("unmodelled = \"skip\"\n{MINIMAL}"));
    assert!(m.contains("key `unmodelled`: unknown rule \"skip\""), "{m}");
    let m = refused(&format!("xlen = 16\n{MINIMAL}"));
    assert!(m.contains("key `xlen`: 16 is not 32 or 64"), "{m}");
}

#[test]
fn bad_access_letters_are_refused() {
    for (access, want) in [
        (
            "rq",
            "bad access \"rq\": letters r (read), w (write), x (execute)",
        ),
        ("rr", "bad access \"rr\": 'r' given twice"),
        ("", "empty access"),
    ] {
        let m = refused(&MINIMAL.replace(
            "kind = \"ram\"",
            &format!("kind = \"ram\"\naccess = \"{access}\""),
        ));
        assert!(
            m.contains(&format!("key `memory[0].access`: {want}")),
            "{m}"
        );
    }
}

#[test]
fn device_wiring_is_checked() {
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"uart16550\"\nbase = 0x10000000\nirq = 10\n"
    ));
    assert!(
        m.contains("key `device[0].irq`: the uart16550's interrupt goes to PLIC source irq, and the board has no [[device]] kind = \"plic\""),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"clint\"\nbase = 0x2000000\nirq = 3\n"
    ));
    assert!(
        m.contains("key `device[0].irq`: a clint has no interrupt line"),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"plic\"\nbase = 0xc000000\n[[device]]\nkind = \"uart16550\"\nbase = 0x10000000\nirq = 96\n"
    ));
    assert!(
        m.contains("PLIC source 96 does not exist (sources 1 to 95)"),
        "{m}"
    );
    let m = refused(&format!(
        "{MINIMAL}[[device]]\nkind = \"clint\"\nbase = 0x2000000\n[[device]]\nkind = \"clint\"\nbase = 0x3000000\n"
    ));
    assert!(m.contains("key `device[1].kind`: a second clint"), "{m}");
}

#[test]
fn start_must_be_executable() {
    let m = refused(&format!("start = 0x1000\n{MINIMAL}"));
    assert_eq!(
        m,
        "boards/test.toml:1: key `start`: 0x1000 is in no executable [[memory]] region"
    );
    let m = refused(&format!("start = 0x80000001\n{MINIMAL}"));
    assert!(m.contains("0x80000001 is odd"), "{m}");
    let b = parse(&format!("start = 0x80000100\n{MINIMAL}")).unwrap();
    assert_eq!(b.start, Some(0x8000_0100));
}

#[test]
fn unreadable_file() {
    let e = Board::load(Path::new("/nonexistent/board.toml")).unwrap_err();
    assert!(
        e.to_string().starts_with("/nonexistent/board.toml: "),
        "{e}"
    );
}

#[test]
fn the_documented_example_parses() {
    let doc = include_str!("../../../docs/boards.md");
    let start = doc
        .find("```toml\n")
        .expect("docs/boards.md has an example")
        + 8;
    let len = doc[start..].find("```").expect("closed");
    let b = Board::from_toml(&doc[start..start + len], "docs/boards.md").unwrap();
    assert_eq!(b.name, "fe310-g002");
    assert_eq!(b.memory[0].wait_states, 2);
    assert_eq!(b.devices.len(), 2);
    assert_eq!(b.peripherals[0].name, "UART0");
}

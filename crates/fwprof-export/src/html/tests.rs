//! Tests of the HTML report: escaping, assets, annotation without the ELF,
//! a malformed context tree.

use fwprof_profile::{AddressCost, Arc, ContextRecord, FunctionRecord, Meta};

use super::*;

/// `main` calls `</script><script>alert(1)</script>` (a hostile name).
fn profile() -> Profile {
    let mut p = Profile::new(Meta::new("/no/such/prog.elf"), vec!["instructions".into()]);
    let main = p.add_function(FunctionRecord::new("main", 0x100, 0x108));
    let evil = p.add_function(FunctionRecord::new(
        "</script><script>alert(1)</script>",
        0x108,
        0x10c,
    ));
    // 0x108 = jal 0x108 (main+8 → evil).
    for (addr, function, raw, c) in [
        (0x100, main, 0x0080_00ef, 1),
        (0x104, main, 0x0000_8067, 1),
        (0x108, evil, 0x0000_8067, 1),
    ] {
        p.costs
            .push(AddressCost {
                addr,
                function,
                len: 4,
                raw,
                cost: vec![c],
            })
            .unwrap();
    }
    (
        p.functions[0].calls,
        p.functions[0].self_cost,
        p.functions[0].inclusive,
    ) = (1, vec![2], vec![3]);
    (
        p.functions[1].calls,
        p.functions[1].self_cost,
        p.functions[1].inclusive,
    ) = (1, vec![1], vec![1]);
    p.arcs.push(Arc::spontaneous(main, 1, vec![3]));
    p.arcs.push(Arc {
        caller: Some(main),
        callee: evil,
        call_site: 0x100,
        calls: 1,
        tail: false,
        inclusive: vec![1],
    });
    p.contexts = vec![
        ContextRecord {
            parent: None,
            function: main,
            calls: 0,
            self_cost: vec![2],
        },
        ContextRecord {
            parent: Some(0),
            function: evil,
            calls: 1,
            self_cost: vec![1],
        },
    ];
    p.totals = vec![3];
    p.check_invariants().unwrap();
    p
}

/// The page of `p`, with its program found as `fwprof html` finds it.
fn page(p: &Profile) -> String {
    let found = fwprof_symbols::find_program(&p.meta.program, &p.meta.sha256, None, false).unwrap();
    let mut opts = ExportOptions::new(0);
    opts.program = Some(&found);
    let mut out = Vec::new();
    write(p, &opts, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The embedded JSON of a page.
fn data(html: &str) -> serde_json::Value {
    let start = html.find("id=\"fwprof-data\">").unwrap() + "id=\"fwprof-data\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn names_cannot_end_the_data_element() {
    let html = page(&profile());
    // Two script elements (data and code), each closed once.
    assert_eq!(html.matches("</script").count(), 2, "{html}");
    assert!(!html.contains("<script>alert"));
    assert!(!html.contains("http://") && !html.contains("https://"));
    let d = data(&html);
    assert_eq!(d["functions"][1][0], "</script><script>alert(1)</script>");
    assert_eq!(d["schema"], SCHEMA);
}

#[test]
fn escapes_are_json_string_escapes() {
    let s = serde_json::to_string(&["a</b>&\u{2028}c//d"]).unwrap();
    let e = escape_json_for_script(&s);
    assert!(!e.contains('<') && !e.contains('>') && !e.contains('&') && !e.contains("//"));
    let back: Vec<String> = serde_json::from_str(&e).unwrap();
    assert_eq!(back, ["a</b>&\u{2028}c//d"]);
    assert_eq!(
        escape_html("<a href='x'>&\""),
        "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
    );
}

#[test]
fn assets_hold_no_closing_tags_or_remote_references() {
    for asset in [CSS, JS] {
        let lower = asset.to_ascii_lowercase();
        assert!(!lower.contains("</script") && !lower.contains("</style"));
        assert!(!lower.contains("http:") && !lower.contains("https:"));
        assert!(!lower.contains("@import") && !lower.contains("url("));
    }
}

#[test]
fn annotation_from_profile_bits_names_targets() {
    let p = profile();
    let found = fwprof_symbols::find_program(&p.meta.program, &p.meta.sha256, None, false).unwrap();
    assert!(found.program.is_none());
    let mut opts = ExportOptions::new(0);
    opts.program = Some(&found);
    assert!(annotation_note(&opts)
        .as_deref()
        .unwrap()
        .contains("/no/such/prog.elf"));
    let d = data(&page(&p));
    let main = &d["annotations"][0];
    let insts = main["groups"][0][3].as_array().unwrap();
    assert_eq!(insts.len(), 2);
    assert_eq!(insts[0][0], "100");
    assert_eq!(insts[0][2], "jal 108 <</script><script>alert(1)</script>>");
    assert_eq!(insts[0][3], 1);
    assert_eq!(insts[0][4], serde_json::json!([1]));
    assert_eq!(main["src"], serde_json::Value::Null);
    assert_eq!(d["contexts"][1], serde_json::json!([0, 1, 1, [1]]));
    assert_eq!(
        d["arcs"][1],
        serde_json::json!([0, 1, "100", 1, false, [1]])
    );
    assert!(d["meta"]["annotation_note"].as_str().is_some());
}

#[test]
fn malformed_context_tree_is_left_out() {
    let mut p = profile();
    p.contexts[0].parent = Some(1);
    let d = data(&page(&p));
    assert_eq!(d["contexts"], serde_json::json!([]));
    assert!(d["meta"]["annotation_note"]
        .as_str()
        .unwrap()
        .contains("calling-context tree is malformed"));
}

//! Tests of `fwprof diff`: ordering, warnings, events left out, refusals.

use fwprof_profile::{AddressCost, Arc, FunctionRecord, Meta};

use serde_json::Value;

use super::*;

/// Functions with (name, self instructions, self cycles); each is its
/// own root.
fn profile(sha: &str, events: &[&str], funcs: &[(&str, u64, u64)]) -> Profile {
    let mut meta = Meta::new("p.elf");
    // A SHA-256 is 64 hex digits (`Profile::validate`): repeat the pattern.
    meta.sha256 = sha.repeat(64 / sha.len());
    let n = events.len();
    let mut p = Profile::new(meta, events.iter().map(|e| e.to_string()).collect());
    for (k, &(name, i, c)) in funcs.iter().enumerate() {
        let start = 0x100 + 0x10 * k as u64;
        let id = p.add_function(FunctionRecord::new(name, start, start + 4));
        let cost: Vec<u64> = [i, c][..n].to_vec();
        p.costs
            .push(AddressCost {
                addr: start,
                function: id,
                len: 4,
                raw: 0x13,
                cost: cost.clone(),
            })
            .unwrap();
        let f = &mut p.functions[id.index()];
        (f.calls, f.self_cost, f.inclusive) = (1, cost.clone(), cost.clone());
        p.arcs.push(Arc::spontaneous(id, 1, cost.clone()));
        for (t, v) in p.totals.iter_mut().zip(&cost) {
            *t += v;
        }
    }
    p.check_invariants().unwrap();
    p
}

#[test]
fn changes_are_sorted_by_the_largest_absolute_change() {
    let ev = ["instructions", "cycles"];
    let b = profile("a", &ev, &[("f", 100, 300), ("g", 50, 50), ("gone", 7, 7)]);
    let a = profile("a", &ev, &[("f", 90, 100), ("g", 80, 60), ("new", 5, 5)]);
    let d = compare(&b, &a, 0).unwrap();
    let names: Vec<&str> = d.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["g", "f", "gone", "new"]);
    assert_eq!(d.functions[0].self_cost[0].delta(), 30);
    assert_eq!(d.functions[1].self_cost[1].delta(), -200);
    assert_eq!(d.functions[2].status, Status::Vanished);
    assert_eq!(d.functions[3].status, Status::Appeared);
    assert_eq!(
        d.totals[0],
        Change {
            before: 157,
            after: 175
        }
    );
    assert!(d.warnings().is_empty());
    // By cycles, f's -200 comes first.
    let d = compare(&b, &a, 1).unwrap();
    assert_eq!(d.functions[0].name, "f");

    let mut text = Vec::new();
    d.write(false, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[5], "instructions     157    175     +18  +11.46%",
        "{text}"
    );
    assert_eq!(
        lines[6], "cycles           357    165    -192  -53.78%",
        "{text}"
    );
    assert_eq!(
        lines[8],
        "Self and inclusive cycles per function, by the largest change in self cycles:"
    );
    assert!(lines[10].ends_with("-200   -66.67%  f"), "{text}");
    assert!(lines[12].ends_with("-100.00%  gone [vanished]"), "{text}");
    assert!(
        lines[13].ends_with("+5       new  new [appeared]"),
        "{text}"
    );
    assert!(
        lines[15].starts_with("Self and inclusive instructions"),
        "{text}"
    );

    let mut js = Vec::new();
    d.write(true, &mut js).unwrap();
    let v: Value = serde_json::from_slice(&js).unwrap();
    assert_eq!(v["schema"], "fwprof-diff/1");
    assert_eq!(v["sort_event"], "cycles");
    assert_eq!(v["functions"][0]["self"]["cycles"]["change"], -200);
    assert_eq!(v["functions"][3]["self"]["cycles"]["percent"], Value::Null);
    assert_eq!(v["functions"][3]["status"], "appeared");
    assert_eq!(v["totals"]["instructions"]["after"], 175);
}

#[test]
fn different_programs_warn_and_lone_events_are_left_out() {
    let b = profile("aaaa", &["instructions", "cycles"], &[("f", 10, 20)]);
    let a = profile("bbbb", &["instructions"], &[("f", 12, 0)]);
    let d = compare(&b, &a, 0).unwrap();
    assert_eq!(
        d.warnings(),
        ["the profiles are of different programs (BEFORE p.elf sha256 aaaaaaaaaaaa…, AFTER p.elf sha256 bbbbbbbbbbbb…): functions are matched by name"]
    );
    assert_eq!(d.events, ["instructions"]);
    assert_eq!(d.before_only, ["cycles"]);
    let e = compare(&b, &a, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "event `cycles` is not in AFTER; the profiles share: instructions"
    );
    let mut text = Vec::new();
    d.write(false, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("Note: events only BEFORE records are left out: cycles"),
        "{text}"
    );
}

#[test]
fn profiles_sharing_no_event_are_refused() {
    // Valid profiles always share `instructions`; build one by hand.
    let b = profile("a", &["instructions"], &[("f", 1, 0)]);
    let mut a = b.clone();
    a.events = vec!["cycles".into()];
    let e = compare(&b, &a, 0).unwrap_err();
    assert!(matches!(e, Error::Mismatch(_)));
    assert_eq!(
        e.to_string(),
        "the profiles share no event: BEFORE has instructions, AFTER has cycles"
    );
}

//! Recording a bundled example through the library, without spawning the
//! `fwprof` binary.

use std::path::PathBuf;

use fwprof_record::{
    Control, CountersOptions, ExecOptions, Method, RecordOptions, SampleOptions, Session, Unit,
};
use fwprof_sim::StopReason;

fn crc32() -> ExecOptions {
    let elf =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/crc32/crc32.rv64-linux.elf");
    let mut exec = ExecOptions::new(elf);
    exec.allow_read = vec![std::env::temp_dir()];
    exec
}

fn record(method: Method) -> fwprof_record::Recording {
    let opts = RecordOptions {
        exec: crc32(),
        method,
        core: None,
        save_env: false,
        symbols: Vec::new(),
        task_hint: None,
    };
    let ran = Session::new(opts)
        .unwrap()
        .run(&Control::unattended())
        .unwrap();
    ran.into_profile().unwrap()
}

#[test]
fn exact_recording_of_crc32() {
    let r = record(Method::Exact);
    assert!(
        matches!(r.end.stop, StopReason::Exit(0)),
        "{:?}",
        r.end.stop
    );
    let p = &r.profile;
    assert_eq!(p.events, vec!["instructions"]);
    assert_eq!(p.totals[0], r.end.executed);
    assert_eq!(p.meta.exit_status, Some(0));
    assert_eq!(p.meta.partial, None);
    // The table-driven CRC: 130 calls, the same instructions whatever the
    // environment (`fwprof record` of this ELF reports the same numbers).
    let table = p
        .functions
        .iter()
        .find(|f| f.name == "crc32_table")
        .unwrap();
    assert_eq!(table.calls, 130);
    assert_eq!(table.self_cost, vec![1_623_025]);
    p.check_invariants().unwrap();
}

#[test]
fn sampled_recording_of_crc32() {
    let period = 997;
    let r = record(Method::Sample(SampleOptions {
        count_in: None,
        period,
        unit: Unit::Instructions,
        jitter: false,
        seed: 1,
    }));
    let p = &r.profile;
    assert_eq!(p.events, vec!["instructions", "samples"]);
    let s = p.meta.sampling.as_ref().unwrap();
    // A sample every 997 instructions, exactly.
    assert_eq!(s.samples, r.end.executed / period);
    assert_eq!(p.totals, vec![s.samples * period, s.samples]);
    assert_eq!(p.samples.len() as u64, s.samples);
    p.check_invariants().unwrap();
}

#[test]
fn counters_recording_of_crc32() {
    // Instructions (no core), 8 counters, every function in subsets: the
    // measured inclusive counts equal the exact ones.
    let exact = record(Method::Exact).profile;
    let r = record(Method::Counters(CountersOptions::default()));
    assert!(matches!(r.end.stop, StopReason::Exit(0)));
    let p = r.profile;
    assert_eq!(p.meta.method, fwprof_profile::Method::Counters);
    assert_eq!(p.events, vec!["instructions"]);
    let s = p
        .section::<fwprof_profile::CounterSection>()
        .unwrap()
        .unwrap();
    assert_eq!(s.runs.len() as u64, 1 + s.subset_runs);
    let main = |q: &fwprof_profile::Profile| {
        q.functions
            .iter()
            .find(|f| f.name == "main")
            .map(|f| f.inclusive[0])
            .unwrap()
    };
    assert_eq!(main(&p), main(&exact));
    assert_eq!(p.totals, exact.totals);
}

#[test]
fn a_stop_request_ends_the_run_with_a_partial_profile() {
    let ctl = Control::unattended();
    ctl.stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let opts = RecordOptions {
        exec: crc32(),
        method: Method::Exact,
        core: None,
        save_env: false,
        symbols: Vec::new(),
        task_hint: None,
    };
    let r = Session::new(opts)
        .unwrap()
        .run(&ctl)
        .unwrap()
        .into_profile()
        .unwrap();
    assert!(matches!(r.end.stop, StopReason::Interrupted));
    assert_eq!(r.profile.meta.partial.as_deref(), Some("interrupted"));
}

#[test]
fn cycles_without_a_core_is_refused_before_anything_runs() {
    let opts = RecordOptions {
        exec: crc32(),
        method: Method::Sample(SampleOptions {
            count_in: None,
            period: 10,
            unit: Unit::Cycles,
            jitter: false,
            seed: 1,
        }),
        core: None,
        save_env: false,
        symbols: Vec::new(),
        task_hint: None,
    };
    let e = Session::new(opts).err().unwrap();
    assert_eq!(
        e.to_string(),
        "--unit cycles needs --core (the cycles come from a core model)"
    );
}

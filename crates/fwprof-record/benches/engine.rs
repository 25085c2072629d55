//! Regression guard for the execution engine and the collectors (Criterion):
//! a whole recording of the bundled benchmark (`bench/coremix.c`, 20
//! iterations, 4.4 million RV64 instructions) per tier and per method.
//!
//!     cargo bench -p fwprof-record --bench engine
//!
//! The figures to quote against QEMU and Callgrind come from
//! `scripts/bench.sh`, which times whole commands in alternating pairs.

use criterion::{criterion_group, criterion_main, Criterion};
use fwprof_record::{
    Control, ExecOptions, InstrumentOptions, Method, RecordOptions, SampleOptions, Session, Unit,
};
use fwprof_sim::Tier;
use std::path::PathBuf;

const ITERATIONS: &str = "20";

fn exec(elf: &str, tier: Tier) -> ExecOptions {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../bench")
        .join(elf);
    let mut exec = ExecOptions::new(path);
    exec.args = vec![ITERATIONS.to_string()];
    exec.tier = tier;
    exec
}

/// One whole recording: run, then build the profile.
fn record(exec: ExecOptions, method: Method, core: Option<&str>) {
    let opts = RecordOptions {
        exec,
        method,
        core: core.map(str::to_string),
        save_env: false,
        symbols: Vec::new(),
        task_hint: None,
    };
    let ran = Session::new(opts)
        .expect("session")
        .run(&Control::unattended())
        .expect("run");
    ran.into_profile().expect("profile");
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("coremix-20");
    g.sample_size(10);
    for (name, tier) in [("interp", Tier::Interp), ("jit", Tier::Jit)] {
        g.bench_function(format!("run/{name}"), |b| {
            b.iter(|| {
                fwprof_record::run(
                    &exec("coremix.rv64-linux.elf", tier),
                    &Control::unattended(),
                )
            })
        });
        g.bench_function(format!("record exact/{name}"), |b| {
            b.iter(|| record(exec("coremix.rv64-linux.elf", tier), Method::Exact, None))
        });
    }
    let jit = Tier::Jit;
    g.bench_function("record --core generic/jit", |b| {
        b.iter(|| {
            record(
                exec("coremix.rv64-linux.elf", jit),
                Method::Exact,
                Some("generic"),
            )
        })
    });
    g.bench_function("record --method sample/jit", |b| {
        let sample = SampleOptions {
            count_in: None,
            period: 10007,
            unit: Unit::Instructions,
            jitter: false,
            seed: 0,
        };
        b.iter(|| {
            record(
                exec("coremix.rv64-linux.elf", jit),
                Method::Sample(sample.clone()),
                None,
            )
        })
    });
    g.bench_function("record --method instrument/jit", |b| {
        let instrument = InstrumentOptions {
            unit: Unit::Instructions,
            exclude: Vec::new(),
        };
        b.iter(|| {
            record(
                exec("coremix.cyg.rv64-linux.elf", jit),
                Method::Instrument(instrument.clone()),
                None,
            )
        })
    });
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);

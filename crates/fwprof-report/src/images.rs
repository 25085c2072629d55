//! The image table of `fwprof report` and its JSON (`images`), from the
//! profile's `images` section: per loaded image (the program or kernel, a
//! `--bios` firmware, the reset ROM), where it was loaded, the copies of
//! itself it ran from, and its self cost.

use std::io::{self, Write};

use fwprof_profile::{Image, ImageSection, Profile};
use serde_json::{json, Value};

use crate::style::{self, Role};

/// The profile's `images` section, if it has one this build reads.
fn section(profile: &Profile) -> Option<ImageSection> {
    profile.section::<ImageSection>().ok().flatten()
}

/// The self cost of `image`'s functions, per event.
fn image_cost(profile: &Profile, image: &Image) -> Vec<u64> {
    let mut cost = vec![0u64; profile.events.len()];
    for f in &image.functions {
        if let Some(r) = profile.functions.get(f.index()) {
            for (c, v) in cost.iter_mut().zip(&r.self_cost) {
                *c += v;
            }
        }
    }
    cost
}

/// Lowest and highest loaded address of `image`.
fn extent(image: &Image) -> Option<(u64, u64)> {
    let lo = image.loaded.iter().map(|r| r.0).min()?;
    let hi = image.loaded.iter().map(|r| r.1).max()?;
    Some((lo, hi))
}

/// Writes the image table of a bare-metal profile with a `--bios`
/// firmware or an image that ran from a copy of itself (nothing otherwise): a title, then one row per image — its name,
/// role, loaded range, where its copies ran (`copy at 0x…`), its self cost
/// in event `event` and share of the total — then a row for code in no
/// image, followed by a blank line.
///
/// Errors: only those of `w`.
pub fn write_image_table(
    profile: &Profile,
    event: usize,
    color: bool,
    mut w: impl Write,
) -> io::Result<()> {
    let Some(s) = section(profile) else {
        return Ok(());
    };
    // A program and the reset ROM alone say nothing the flat profile
    // does not: the table is for firmware, kernels and relocated copies.
    if !s
        .images
        .iter()
        .any(|i| i.role == "firmware" || !i.copies.is_empty())
    {
        return Ok(());
    }
    let unit = crate::events::column_unit(profile, event);
    let total = profile.totals.get(event).copied().unwrap_or(0);
    let pct = |c: u64| {
        if total == 0 {
            0.0
        } else {
            100.0 * c as f64 / total as f64
        }
    };
    style::line(&mut w, color, Some(Role::Title), "Images:")?;
    writeln!(w)?;
    let head = format!(
        "{:>12} {:>7}  {:<16} {:<9} {:<25} ran from copies",
        unit, "%", "image", "role", "loaded"
    );
    style::line(&mut w, color, Some(Role::Title), &head)?;
    let mut in_images = 0;
    for image in &s.images {
        let cost = image_cost(profile, image).get(event).copied().unwrap_or(0);
        in_images += cost;
        let (loaded, copies) = match extent(image) {
            Some((lo, hi)) => (
                format!("{lo:#x}-{hi:#x}"),
                image
                    .copies
                    .iter()
                    .map(|d| format!("{:#x}", lo.wrapping_add(*d)))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            None => (String::new(), String::new()),
        };
        writeln!(
            w,
            "{:>12} {:>7.2}  {:<16} {:<9} {:<25} {}",
            cost,
            pct(cost),
            image.name,
            image.role,
            loaded,
            copies
        )?;
    }
    let other = total.saturating_sub(in_images);
    if other > 0 {
        writeln!(
            w,
            "{:>12} {:>7.2}  {:<16}",
            other,
            pct(other),
            "(in no image)"
        )?;
    }
    writeln!(w)
}

/// The JSON report's `images` array, `None` without the section (see
/// `docs/report-json.md`).
pub(crate) fn images_json(profile: &Profile) -> Option<Value> {
    let s = section(profile)?;
    let rows = s
        .images
        .iter()
        .map(|image| {
            let base = extent(image).map_or(0, |e| e.0);
            json!({
                "name": image.name,
                "role": image.role,
                "loaded": image.loaded.iter().map(|r| json!({"start": r.0, "end": r.1})).collect::<Vec<_>>(),
                "copies": image.copies.iter().map(|d| json!({"delta": d, "start": base.wrapping_add(*d)})).collect::<Vec<_>>(),
                "self": crate::json::by_event(profile, &image_cost(profile, image)),
                "function_ids": image.functions.iter().map(|f| f.0).collect::<Vec<_>>(),
            })
        })
        .collect();
    Some(Value::Array(rows))
}

//! Which function of one profile is which function of another: the one
//! rule by which `fwprof diff`, `fwprof merge` and `fwprof compare` line
//! up two function tables ([`match_functions`]).

use std::collections::HashMap;

use crate::FunctionRecord;

/// Pairs the functions of `a` with those of `b`, by the one rule every
/// comparison or combination of two profiles follows:
///
/// 1. A function is only ever paired with a function of the same
///    [`name`](FunctionRecord::name).
/// 2. Among the functions of one name, those whose source
///    [`file`](FunctionRecord::file) is known in both profiles and equal
///    are paired first, in address order when a file holds more than one:
///    two `static` functions of one name in different files stay apart,
///    wherever the linker put them.
/// 3. The functions of that name still unpaired (no file, or a file only
///    one side has) are paired in address order, the k-th lowest start of
///    `a` with the k-th lowest of `b`: a function that moved between two
///    builds is still itself, and for runs of one program, whose function
///    tables are equal, every function meets itself.
/// 4. What is left over has no partner.
///
/// Addresses never decide a pairing on their own, so a rebuilt program
/// whose functions all moved still matches function by function; a name
/// that occurs once in each profile always pairs. The rule is symmetric
/// (swapping `a` and `b` swaps each pair) and costs O(n log n) in the
/// number of functions.
///
/// Returns one `(index in a, index in b)` pair per function of either
/// slice, each index exactly once: first every function of `a` in `a`'s
/// order (with its partner or `None`), then the unpaired functions of `b`
/// in `b`'s order.
///
/// ```
/// use fwprof_profile::{match_functions, FunctionRecord};
///
/// let f = |name: &str, start: u64, file: &str| {
///     let mut r = FunctionRecord::new(name, start, start + 0x10);
///     r.file = Some(file.into());
///     r
/// };
/// // Two static `helper`s; the one of b.c moved below the one of a.c.
/// let before = [f("main", 0x100, "m.c"), f("helper", 0x200, "a.c"), f("helper", 0x300, "b.c")];
/// let after = [f("helper", 0x180, "b.c"), f("main", 0x100, "m.c"), f("helper", 0x400, "a.c")];
/// assert_eq!(
///     match_functions(&before, &after),
///     [(Some(0), Some(1)), (Some(1), Some(2)), (Some(2), Some(0))]
/// );
/// ```
pub fn match_functions(
    a: &[FunctionRecord],
    b: &[FunctionRecord],
) -> Vec<(Option<usize>, Option<usize>)> {
    // Indexes of each name, per side, in address order.
    let mut by_name: HashMap<&str, [Vec<usize>; 2]> = HashMap::new();
    for (side, table) in [a, b].into_iter().enumerate() {
        for (i, f) in table.iter().enumerate() {
            by_name.entry(f.name.as_str()).or_default()[side].push(i);
        }
    }
    let mut partner_of_a: Vec<Option<usize>> = vec![None; a.len()];
    let mut paired_b = vec![false; b.len()];
    for [ia, ib] in by_name.into_values() {
        if ib.is_empty() || ia.is_empty() {
            continue;
        }
        let mut ia = ia;
        let mut ib = ib;
        ia.sort_by_key(|&i| (a[i].start, i));
        ib.sort_by_key(|&i| (b[i].start, i));
        // Rule 2: equal known files, in address order within a file.
        let mut b_by_file: HashMap<&str, Vec<usize>> = HashMap::new();
        for &j in &ib {
            if let Some(file) = b[j].file.as_deref() {
                b_by_file.entry(file).or_default().push(j);
            }
        }
        let mut taken_in_file: HashMap<&str, usize> = HashMap::new();
        let mut rest_a = Vec::new();
        for &i in &ia {
            let partner = a[i].file.as_deref().and_then(|file| {
                let same = b_by_file.get(file)?;
                let k = taken_in_file.entry(file).or_insert(0);
                let j = *same.get(*k)?;
                *k += 1;
                Some(j)
            });
            match partner {
                Some(j) => {
                    partner_of_a[i] = Some(j);
                    paired_b[j] = true;
                }
                None => rest_a.push(i),
            }
        }
        // Rule 3: the rest, k-th with k-th in address order.
        let rest_b: Vec<usize> = ib.iter().copied().filter(|&j| !paired_b[j]).collect();
        for (i, j) in rest_a.into_iter().zip(rest_b) {
            partner_of_a[i] = Some(j);
            paired_b[j] = true;
        }
    }
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = partner_of_a
        .into_iter()
        .enumerate()
        .map(|(i, j)| (Some(i), j))
        .collect();
    pairs.extend(
        paired_b
            .iter()
            .enumerate()
            .filter(|(_, &p)| !p)
            .map(|(j, _)| (None, Some(j))),
    );
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, start: u64, file: Option<&str>) -> FunctionRecord {
        let mut r = FunctionRecord::new(name, start, start + 4);
        r.file = file.map(Into::into);
        r
    }

    #[test]
    fn equal_tables_match_themselves() {
        let t = [
            f("main", 0x100, Some("m.c")),
            f("helper", 0x200, None),
            f("helper", 0x300, None),
            f("[unknown 0x400]", 0x400, None),
        ];
        let pairs = match_functions(&t, &t);
        assert_eq!(
            pairs,
            [
                (Some(0), Some(0)),
                (Some(1), Some(1)),
                (Some(2), Some(2)),
                (Some(3), Some(3))
            ]
        );
    }

    #[test]
    fn moved_functions_match_by_name_and_unmatched_ones_are_listed() {
        let a = [f("main", 0x100, None), f("gone", 0x200, None)];
        let b = [f("new", 0x100, None), f("main", 0x900, Some("m.c"))];
        assert_eq!(
            match_functions(&a, &b),
            [(Some(0), Some(1)), (Some(1), None), (None, Some(0))]
        );
    }

    #[test]
    fn files_first_then_address_order() {
        // a: helper in x.c at 0x100, helper without file at 0x200 and 0x300.
        // b: helper without file at 0x150, helper in x.c at 0x500, one at 0x50.
        let a = [
            f("helper", 0x300, None),
            f("helper", 0x100, Some("x.c")),
            f("helper", 0x200, None),
        ];
        let b = [
            f("helper", 0x500, Some("x.c")),
            f("helper", 0x150, None),
            f("helper", 0x50, None),
        ];
        // x.c pairs with x.c; the rest by address: 0x200↔0x50, 0x300↔0x150.
        assert_eq!(
            match_functions(&a, &b),
            [(Some(0), Some(1)), (Some(1), Some(0)), (Some(2), Some(2))]
        );
        // Symmetric.
        assert_eq!(
            match_functions(&b, &a),
            [(Some(0), Some(1)), (Some(1), Some(0)), (Some(2), Some(2))]
        );
    }

    #[test]
    fn a_file_known_on_one_side_only_falls_back_to_address_order() {
        let a = [f("s", 0x100, Some("a.c")), f("s", 0x200, Some("b.c"))];
        let b = [f("s", 0x900, None), f("s", 0x800, Some("b.c"))];
        // b.c pairs with b.c; a.c's function takes the remaining one.
        assert_eq!(
            match_functions(&a, &b),
            [(Some(0), Some(0)), (Some(1), Some(1))]
        );
        let c = [
            f("s", 0x100, Some("a.c")),
            f("s", 0x200, Some("b.c")),
            f("s", 0x300, None),
        ];
        let d = [f("s", 0x300, None)];
        assert_eq!(
            match_functions(&c, &d),
            [(Some(0), Some(0)), (Some(1), None), (Some(2), None)]
        );
    }
}

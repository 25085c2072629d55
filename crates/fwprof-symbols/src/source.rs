//! Finding the source files that DWARF names.

use std::path::{Component, Path, PathBuf};

/// Maps a source path from DWARF to a readable file (`--source-dir`).
///
/// [`SourceResolver::resolve`] tries, in order: the path as-is; the path
/// relative to the compilation directory (when one is given and the path is
/// relative); then, for each source directory in order, the path's
/// suffixes joined onto it, longest first (`/build/x/src/a/b.c` is tried as
/// `DIR/build/x/src/a/b.c`, `DIR/x/src/a/b.c`, `DIR/src/a/b.c`,
/// `DIR/a/b.c`, `DIR/b.c`).
#[derive(Clone, Debug, Default)]
pub struct SourceResolver {
    dirs: Vec<PathBuf>,
}

impl SourceResolver {
    /// A resolver that also searches `dirs` (in order).
    pub fn new(dirs: Vec<PathBuf>) -> SourceResolver {
        SourceResolver { dirs }
    }

    /// The extra source directories.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// An existing file for `path`, or `None` (see the type docs).
    pub fn resolve(&self, path: &str) -> Option<PathBuf> {
        self.resolve_in(path, None)
    }

    /// Like [`SourceResolver::resolve`], also trying `comp_dir/path` for a
    /// relative `path`.
    pub fn resolve_in(&self, path: &str, comp_dir: Option<&str>) -> Option<PathBuf> {
        let p = Path::new(path);
        if p.is_file() {
            return Some(p.to_path_buf());
        }
        if let (true, Some(dir)) = (p.is_relative(), comp_dir) {
            let joined = Path::new(dir).join(p);
            if joined.is_file() {
                return Some(joined);
            }
        }
        let parts: Vec<&std::ffi::OsStr> = p
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s),
                _ => None,
            })
            .collect();
        for dir in &self.dirs {
            for skip in 0..parts.len() {
                let candidate = parts[skip..].iter().fold(dir.clone(), |acc, s| acc.join(s));
                if candidate.is_file() {
                    return Some(candidate);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_as_is_comp_dir_and_suffixes() {
        let root = std::env::temp_dir().join(format!("fwprof-src-{}", std::process::id()));
        let src = root.join("checkout/src/lib");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("util.c"), "int x;\n").unwrap();
        let abs = src.join("util.c");

        let none = SourceResolver::default();
        assert_eq!(none.resolve(abs.to_str().unwrap()), Some(abs.clone()));
        assert_eq!(none.resolve("/nonexistent/build/src/lib/util.c"), None);
        let comp = root.join("checkout");
        assert_eq!(
            none.resolve_in("src/lib/util.c", comp.to_str()),
            Some(comp.join("src/lib/util.c"))
        );

        let r = SourceResolver::new(vec![root.join("elsewhere"), root.join("checkout")]);
        assert_eq!(
            r.resolve("/home/ci/build/src/lib/util.c"),
            Some(root.join("checkout/src/lib/util.c"))
        );
        let r = SourceResolver::new(vec![src.clone()]);
        assert_eq!(r.resolve("/x/y/util.c"), Some(src.join("util.c")));
        assert_eq!(r.resolve("/x/y/other.c"), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}

//! The symbol sources of a recording: the program's own symbols and the
//! ELF files added with `record --symbols FILE[@ADDR]`, and the function
//! map built from them (see `fwprof_collect::FunctionMap`: each source
//! applies to the address spaces whose executed code is its code).

use std::path::PathBuf;

use fwprof_collect::FunctionMap;
use fwprof_symbols::Program;

use crate::Error;

/// `--symbols FILE[@ADDR]`: an ELF whose symbols describe code the
/// program runs (a stripped image, a program loaded elsewhere, a process
/// of an S-mode kernel).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolFile {
    /// The ELF file.
    pub path: PathBuf,
    /// Where its `.text` section (else its first executable section) is
    /// loaded, as GDB's `add-symbol-file FILE ADDR`; every symbol moves by
    /// the same amount. `None`: at the addresses it was linked at.
    pub text_address: Option<u64>,
}

impl SymbolFile {
    /// Parse `FILE[@ADDR]`; ADDR is decimal or `0x` hexadecimal. A path
    /// that itself contains `@` is taken whole when what follows the last
    /// `@` is not a number.
    pub fn parse(s: &str) -> Result<SymbolFile, String> {
        if let Some((path, addr)) = s.rsplit_once('@') {
            if let Some(a) = parse_address(addr) {
                if path.is_empty() {
                    return Err(format!("{s}: no file before @"));
                }
                return Ok(SymbolFile {
                    path: path.into(),
                    text_address: Some(a),
                });
            }
        }
        if s.is_empty() {
            return Err("empty file name".into());
        }
        Ok(SymbolFile {
            path: s.into(),
            text_address: None,
        })
    }
}

fn parse_address(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// An added symbol file, read and placed.
pub(crate) struct Extra {
    pub(crate) program: Program,
    /// Added to every address of the file.
    pub(crate) bias: u64,
    /// The id of its first function in the map (set by
    /// [`Symbols::function_map`]).
    pub(crate) first: u32,
}

/// The program and the added symbol files.
pub(crate) struct Symbols {
    pub(crate) main: Program,
    pub(crate) extra: Vec<Extra>,
    /// Bare metal: the profile describes the loaded images (`images`
    /// section) and names a stripped image's code by its file.
    pub(crate) images: bool,
    /// The `--bios` firmware's index in `extra`.
    pub(crate) bios: Option<usize>,
    /// The program's file name, for its image.
    pub(crate) main_name: String,
}

impl Symbols {
    /// Read each `--symbols` file for a program of `xlen` bits.
    ///
    /// # Errors
    /// [`Error::Symbols`] for a file that cannot be read or parsed;
    /// [`Error::Options`] for one of the other XLEN or without code.
    pub(crate) fn new(main: Program, files: &[SymbolFile]) -> Result<Symbols, Error> {
        let xlen = main.class().xlen();
        let mut extra = Vec::new();
        let main_name = main.path().map_or_else(|| "program".to_string(), file_name);
        for f in files {
            let program = Program::open(&f.path).map_err(|source| Error::Symbols {
                path: f.path.clone(),
                source,
            })?;
            let shown = f.path.display();
            if program.class().xlen() != xlen {
                return Err(Error::Options(format!(
                    "--symbols {shown}: an RV{} ELF for an RV{xlen} program",
                    program.class().xlen()
                )));
            }
            let text = program
                .sections()
                .iter()
                .filter(|s| s.executable)
                .min_by_key(|s| (s.name != ".text", s.address))
                .map(|s| s.address);
            let Some(text) = text else {
                return Err(Error::Options(format!(
                    "--symbols {shown}: the file has no executable section"
                )));
            };
            let mask = if xlen == 32 { 0xffff_ffff } else { u64::MAX };
            let bias = f.text_address.map_or(0, |a| a.wrapping_sub(text) & mask);
            extra.push(Extra {
                program,
                bias,
                first: 0,
            });
        }
        Ok(Symbols {
            main,
            extra,
            images: false,
            bios: None,
            main_name,
        })
    }

    /// Bare metal: describe the loaded images, and add the `--bios`
    /// firmware's symbols (at its own addresses) when there is one.
    ///
    /// # Errors
    /// [`Error::Symbols`] for a firmware file that cannot be parsed.
    pub(crate) fn with_images(mut self, bios: Option<&std::path::Path>) -> Result<Symbols, Error> {
        self.images = true;
        if let Some(path) = bios {
            let program = Program::open(path).map_err(|source| Error::Symbols {
                path: path.to_path_buf(),
                source,
            })?;
            self.bios = Some(self.extra.len());
            self.extra.push(Extra {
                program,
                bias: 0,
                first: 0,
            });
        }
        Ok(self)
    }

    /// The loaded images, in the order given to the function map: the
    /// program, then the firmware. Each: (file name, role, program).
    pub(crate) fn images(&self) -> Vec<(String, &'static str, &Program)> {
        if !self.images {
            return Vec::new();
        }
        let mut v = vec![(
            self.main_name.clone(),
            if self.bios.is_some() {
                "kernel"
            } else {
                "program"
            },
            &self.main,
        )];
        if let Some(b) = self.bios {
            let p = &self.extra[b].program;
            let name = p.path().map_or_else(|| "firmware".to_string(), file_name);
            v.push((name, "firmware", p));
        }
        v
    }

    /// The image whose own symbol table holds function `id`, by index in
    /// [`Symbols::images`].
    pub(crate) fn image_of_source(&self, id: usize) -> Option<usize> {
        if !self.images {
            return None;
        }
        if id < self.main.functions().len() {
            return Some(0);
        }
        let b = self.bios?;
        let e = &self.extra[b];
        let first = e.first as usize;
        (id >= first && id < first + e.program.functions().len()).then_some(1)
    }

    /// The function map: the program's functions (ids from 0, with its
    /// code to compare with translated spaces' code when there are added
    /// files or translation), then each added file's, moved by its bias.
    pub(crate) fn function_map(&mut self) -> FunctionMap {
        let table = self.main.functions();
        let ranges: Vec<(u64, u64)> = table.iter().map(|(_, f)| (f.start, f.end)).collect();
        let mut map = FunctionMap::new(&ranges, table.entries());
        map.set_program_code(code_of(&self.main, 0));
        for e in &mut self.extra {
            let table = e.program.functions();
            let b = e.bias;
            let ranges: Vec<(u64, u64)> = table
                .iter()
                .map(|(_, f)| (f.start.wrapping_add(b), f.end.wrapping_add(b)))
                .collect();
            let entries: Vec<u64> = table.entries().iter().map(|a| a.wrapping_add(b)).collect();
            e.first = map.add_source(&ranges, &entries, code_of(&e.program, b));
        }
        for (_, _, program) in self.images() {
            map.add_image(code_of(program, 0));
        }
        map
    }

    /// The added file whose functions include id `id`, with the id's
    /// index in its table.
    pub(crate) fn extra_of(&self, id: usize) -> Option<(&Extra, usize)> {
        self.extra.iter().find_map(|e| {
            let n = e.program.functions().len();
            let first = e.first as usize;
            (id >= first && id < first + n).then(|| (e, id - first))
        })
    }
}

/// The last component of `path`, for messages and image names.
fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The file-backed executable sections of `program`, `(address + bias,
/// bytes)`.
pub(crate) fn code_of(program: &Program, bias: u64) -> Vec<(u64, Vec<u8>)> {
    program
        .sections()
        .iter()
        .filter(|s| s.executable)
        .filter_map(|s| {
            let (off, size) = s.file_range?;
            let start = usize::try_from(off).ok()?;
            let bytes = program
                .data()
                .get(start..start.checked_add(usize::try_from(size).ok()?)?)?;
            Some((s.address.wrapping_add(bias), bytes.to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_file_and_address() {
        let f = SymbolFile::parse("user.elf@0x400000").unwrap();
        assert_eq!(f.path, PathBuf::from("user.elf"));
        assert_eq!(f.text_address, Some(0x40_0000));
        assert_eq!(
            SymbolFile::parse("a@b.elf").unwrap().path,
            PathBuf::from("a@b.elf")
        );
        assert_eq!(
            SymbolFile::parse("k.elf@4096").unwrap().text_address,
            Some(4096)
        );
        assert_eq!(SymbolFile::parse("k.elf").unwrap().text_address, None);
        assert!(SymbolFile::parse("@0x10").is_err());
        assert!(SymbolFile::parse("").is_err());
    }
}

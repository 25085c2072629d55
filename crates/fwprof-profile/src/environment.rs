//! The guest environment in a profile: by default only its variable names
//! and a digest, so a profile can be shared without leaking the values
//! (API keys, tokens) that the host's environment holds.

use sha2::{Digest, Sha256};

use crate::model::{Meta, Target};

/// SHA-256 of a guest environment, as 64 lowercase hex digits: the hash of
/// its `NAME=value` strings in order, each followed by one NUL byte (as
/// they lie on the guest's stack).
pub fn environment_sha256(env: &[String]) -> String {
    let mut h = Sha256::new();
    for e in env {
        h.update(e.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl Meta {
    /// Records the guest environment `env` (`NAME=value` strings in the
    /// guest's order) for `self.target`: for Linux the names and the
    /// [`environment_sha256`], and the values only with `save_values`
    /// (`record --save-env`); for bare metal, which has no environment,
    /// nothing at all.
    pub fn set_environment(&mut self, env: &[String], save_values: bool) {
        self.environment.clear();
        self.environment_names.clear();
        self.environment_sha256 = None;
        if self.target == Target::Baremetal {
            return;
        }
        self.environment_names = env
            .iter()
            .map(|e| e.split_once('=').map_or(e.as_str(), |(k, _)| k).to_string())
            .collect();
        self.environment_sha256 = Some(environment_sha256(env));
        if save_values {
            self.environment = env.to_vec();
        }
    }

    /// The digest of the environment the program ran in: the stored
    /// [`Meta::environment_sha256`], or for an older file that stored the
    /// values, their digest; `None` if the profile says nothing about it.
    pub fn environment_fingerprint(&self) -> Option<String> {
        match &self.environment_sha256 {
            Some(h) => Some(h.clone()),
            None if !self.environment.is_empty() => Some(environment_sha256(&self.environment)),
            None => None,
        }
    }

    /// A one-line note if the two runs saw different guest environments
    /// (their [`Meta::environment_fingerprint`]s differ), naming the
    /// variables only one of them had when the names are known; `None` if
    /// they are the same or either is unknown. Never shows a value.
    pub fn environment_difference(&self, other: &Meta) -> Option<String> {
        let (a, b) = (
            self.environment_fingerprint()?,
            other.environment_fingerprint()?,
        );
        if a == b {
            return None;
        }
        let names = |m: &Meta| -> Vec<String> {
            if !m.environment_names.is_empty() {
                m.environment_names.clone()
            } else {
                m.environment
                    .iter()
                    .map(|e| e.split_once('=').map_or(e.as_str(), |(k, _)| k).to_string())
                    .collect()
            }
        };
        let (na, nb) = (names(self), names(other));
        let only = |x: &[String], y: &[String]| -> Vec<String> {
            x.iter().filter(|n| !y.contains(n)).cloned().collect()
        };
        let (gone, new) = (only(&na, &nb), only(&nb, &na));
        let mut text = "the environments differed".to_string();
        let list = |v: &[String]| {
            let mut s = v.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
            if v.len() > 8 {
                s.push_str(&format!(" and {} more", v.len() - 8));
            }
            s
        };
        match (gone.is_empty(), new.is_empty()) {
            (true, true) => text.push_str(" (same variables, different values or order)"),
            (false, true) => text.push_str(&format!(" (only the first had {})", list(&gone))),
            (true, false) => text.push_str(&format!(" (only the second had {})", list(&new))),
            (false, false) => text.push_str(&format!(
                " (only the first had {}; only the second had {})",
                list(&gone),
                list(&new)
            )),
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_keeps_names_and_digest_only() {
        let mut m = Meta::new("p");
        m.target = Target::Linux;
        let env = vec!["A=1".to_string(), "SECRET=hunter2".to_string()];
        m.set_environment(&env, false);
        assert!(m.environment.is_empty());
        assert_eq!(m.environment_names, ["A", "SECRET"]);
        assert_eq!(m.environment_sha256.as_deref().map(str::len), Some(64));
        m.set_environment(&env, true);
        assert_eq!(m.environment, env);
        let mut b = Meta::new("p");
        b.set_environment(&env, true);
        assert!(b.environment.is_empty() && b.environment_names.is_empty());
        assert_eq!(b.environment_sha256, None);
    }

    #[test]
    fn differences_name_variables_not_values() {
        let mut a = Meta::new("p");
        a.target = Target::Linux;
        let mut b = a.clone();
        a.set_environment(&["A=1".into(), "X=secret".into()], false);
        b.set_environment(&["A=2".into(), "Y=secret".into()], false);
        let d = a.environment_difference(&b).unwrap();
        assert_eq!(
            d,
            "the environments differed (only the first had X; only the second had Y)"
        );
        assert!(!d.contains("secret"));
        let mut c = a.clone();
        c.set_environment(&["A=2".into(), "X=secret".into()], false);
        assert!(a
            .environment_difference(&c)
            .unwrap()
            .contains("different values"));
        assert_eq!(a.environment_difference(&a.clone()), None);
        // An old file with values compares by their digest.
        let mut old = Meta::new("p");
        old.environment = vec!["A=1".into(), "X=secret".into()];
        assert_eq!(a.environment_difference(&old), None);
    }
}

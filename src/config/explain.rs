//! Turns figment's errors about `config/ponkeeper.toml` and `PONKEEPER_*` variables into
//! sentences a newcomer can act on: each names the file (or the whole environment
//! variable), the key as written in that file, what is wrong with it, and for a misspelt
//! key the closest one that exists. Called by [`super::Config::load`] only.

use figment::error::Kind;
use std::path::Path;

/// The prefix of the variables that override the file (`PONKEEPER_POLLING__INTERVAL`).
pub const ENV_PREFIX: &str = "PONKEEPER_";

/// One line per problem figment found in `path` or the environment.
pub fn explain(error: figment::Error, path: &Path) -> String {
    let lines: Vec<String> = error.into_iter().map(|e| one(&e, path)).collect();
    lines.join("\n")
}

fn one(error: &figment::Error, path: &Path) -> String {
    // figment puts the profile ("default") first; the file and variables never name it.
    let mut keys: Vec<&str> = error.path.iter().map(String::as_str).collect();
    if keys.first() == Some(&"default") {
        keys.remove(0);
    }
    // An unknown field's path ends with the field itself: keep the section it is in.
    if let Kind::UnknownField(field, _) = &error.kind {
        if keys.last() == Some(&field.as_str()) {
            keys.pop();
        }
    }
    let from_env = error
        .metadata
        .as_ref()
        .is_some_and(|m| m.name.contains("environment"));
    let variables = if from_env {
        variables(&keys, &error.kind)
    } else {
        Vec::new()
    };
    let place = match variables.as_slice() {
        _ if !from_env => format!("config {}", path.display()),
        [] => "environment".to_string(),
        [one] => format!("environment variable {one}"),
        many => format!("environment variables {}", many.join(", ")),
    };
    let key = keys.join(".");
    match &error.kind {
        Kind::UnknownField(field, expected) => {
            let full = join(&key, field);
            let hint = closest(field, expected)
                .map(|best| {
                    if from_env {
                        // The whole variable, with the misspelt part replaced.
                        let (wrong, right) = (env_name(&full), env_name(&join(&key, best)));
                        let fixed = match variables.as_slice() {
                            [one] => one.replacen(&wrong, &right, 1),
                            _ => right,
                        };
                        format!("; did you mean {fixed}?")
                    } else {
                        format!("; did you mean `{}`?", join(&key, best))
                    }
                })
                .unwrap_or_else(|| format!("; the keys here are {}", list(expected)));
            format!("{place}: unknown key `{full}`{hint}")
        }
        Kind::UnknownVariant(value, expected) => {
            let hint = closest(value, expected)
                .map(|best| format!("; did you mean `{best}`?"))
                .unwrap_or_else(|| format!("; it is one of {}", list(expected)));
            format!("{place}: `{key}` cannot be `{value}`{hint}")
        }
        Kind::MissingField(field) => format!("{place}: `{}` is missing", join(&key, field)),
        other if key.is_empty() => format!("{place}: {other}"),
        other => format!("{place}: `{key}`: {other}{}", example(other)),
    }
}

/// An example of the value a type error wanted, where one helps.
fn example(kind: &Kind) -> &'static str {
    if kind.to_string().contains("expected a duration") {
        " (write a number and a unit: \"500ms\", \"30s\", \"15m\", \"1h\", \"30d\")"
    } else {
        ""
    }
}

/// The `PONKEEPER_*` variables set under the key that failed (the error knows the key,
/// not the variable): `PONKEEPER_POLING__INTERVAL` for the unknown key `poling`.
fn variables(keys: &[&str], kind: &Kind) -> Vec<String> {
    let mut failed: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    if let Kind::UnknownField(field, _) = kind {
        failed.push(field.clone());
    }
    let stem = env_name(&failed.join("."));
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| name == &stem || name.starts_with(&format!("{stem}__")) || failed.is_empty())
        .filter(|name| name.starts_with(ENV_PREFIX))
        .collect();
    names.sort();
    names
}

/// `polling.retries` → `PONKEEPER_POLLING__RETRIES`.
fn env_name(key: &str) -> String {
    let upper: Vec<String> = key
        .split('.')
        .filter(|k| !k.is_empty())
        .map(|k| k.to_ascii_uppercase())
        .collect();
    format!("{ENV_PREFIX}{}", upper.join("__"))
}

fn join(key: &str, field: &str) -> String {
    if key.is_empty() {
        field.to_string()
    } else {
        format!("{key}.{field}")
    }
}

fn list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    quoted.join(", ")
}

/// The expected name closest to `given` (case-insensitive edit distance), if it is close
/// enough to be a slip: at most a third of the name's length (one edit for short names).
/// Failing that, a key the given name starts with, or that starts with it, of four
/// letters or more (`listen_addr` → `listen`), the longest.
fn closest<'a>(given: &str, expected: &[&'a str]) -> Option<&'a str> {
    let given = given.to_ascii_lowercase();
    let slip = expected
        .iter()
        .map(|name| (edit_distance(&given, &name.to_ascii_lowercase()), *name))
        .filter(|(distance, name)| *distance <= (name.len() / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name);
    slip.or_else(|| {
        expected
            .iter()
            .filter(|name| name.len() >= 4 && given.len() >= 4)
            .filter(|name| {
                let name = name.to_ascii_lowercase();
                given.starts_with(&name) || name.starts_with(&given)
            })
            .max_by_key(|name| name.len())
            .copied()
    })
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == *cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("retrys", "retries"), 2);
        assert_eq!(edit_distance("poling", "polling"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        let keys = ["interval", "timeout", "retries", "deadline"];
        assert_eq!(closest("retrys", &keys), Some("retries"));
        assert_eq!(closest("INTERVL", &keys), Some("interval"));
        assert_eq!(closest("colour", &keys), None);
        let top = ["listen", "data_dir", "inventory", "polling"];
        assert_eq!(closest("listen_addr", &top), Some("listen"));
        assert_eq!(closest("inv", &top), None);
        assert_eq!(env_name("polling.retries"), "PONKEEPER_POLLING__RETRIES");
    }
}

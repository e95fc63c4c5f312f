//! Nachos `manifest.json` / `manifest.*.json`: a package that provides a
//! tool, a channel or a core service. Only `type: "tool"` declares a tool;
//! its parameters live in the tool's TypeScript class.

use serde_json::Value;

use super::{extensions, string_field, string_list};
use crate::ir::{Package, Permissions, Runtime, Tool};

/// The file a Nachos package's manifest is, in the package's directory.
pub(crate) const FILE_NAME: &str = "manifest.json";

/// Whether a file is named as a Nachos manifest: [`FILE_NAME`], or a
/// variant of it such as `manifest.browser.json`.
pub(crate) fn is_manifest_file_name(file_name: &str) -> bool {
    // `manifest.json` itself starts with "manifest." and ends with ".json".
    file_name.starts_with("manifest.") && file_name.ends_with(".json")
}

const KNOWN: &[&str] = &[
    "name",
    "version",
    "type",
    "description",
    "capabilities",
    "provides",
];

pub(super) fn lower(value: &Value) -> (Option<Package>, Vec<Tool>) {
    let Some(object) = value.as_object() else {
        return (None, Vec::new());
    };
    let capabilities = object.get("capabilities");
    let package = Package {
        name: string_field(object, "name"),
        version: string_field(object, "version"),
        kind: string_field(object, "type"),
        description: string_field(object, "description"),
        secrets: string_list(capabilities.and_then(|c| c.get("secrets"))),
        extensions: extensions(object, KNOWN),
        ..Package::default()
    };
    if package.kind.as_deref() != Some("tool") {
        return (Some(package), Vec::new());
    }
    let provides = object.get("provides");
    let tool_id = provides
        .and_then(|p| p.get("tool"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let mut tool = Tool::new(tool_id.clone(), "/provides/tool".to_string(), String::new());
    tool.title = package.name.clone();
    tool.description = package.description.clone();
    tool.runtime = Runtime::NatsService {
        subject: format!("nachos.tool.{tool_id}.request"),
    };
    let network = capabilities.and_then(|c| c.get("network"));
    let resources = capabilities.and_then(|c| c.get("resources"));
    *tool.permissions = Permissions {
        security_tier: provides
            .and_then(|p| p.get("securityTier"))
            .and_then(Value::as_f64)
            .filter(|t| t.fract() == 0.0)
            .map(|t| t as i64),
        network_egress: network
            .and_then(|n| n.get("egress"))
            .map(|e| string_list(Some(e))),
        memory: resources
            .and_then(|r| r.get("memory"))
            .and_then(Value::as_str)
            .and_then(memory_bytes),
        cpus: resources
            .and_then(|r| r.get("cpus"))
            .and_then(Value::as_f64),
        ..Permissions::default()
    };
    (Some(package), vec![tool])
}

/// Where a Nachos tool's memory limit is.
pub(crate) const MEMORY_POINTER: &str = "/capabilities/resources/memory";

/// The least memory limit toolc applies, 1 MiB: below it no interpreter,
/// shell or binary can even start, so every call would fail with
/// `RESOURCE_LIMIT` instead of the limit being refused where it is given.
pub(crate) const MIN_MEMORY: u64 = 1 << 20;

/// A Nachos memory limit in bytes: a number (fractions allowed, rounded
/// down to a byte) with an optional unit, `Ki`, `Mi`, `Gi`, `Ti` (powers
/// of 1024) or `K`/`k`, `M`, `G`, `T`, `KB`, `MB`, `GB`, `TB` (powers of
/// 1000). `None` for anything else, including Docker's and Kubernetes'
/// lowercase `m` and `g`, which the two read differently (mebibytes,
/// millibytes), and sizes beyond `u64`.
pub(crate) fn memory_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let number_end = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(number_end);
    let multiplier: u128 = match unit {
        "" => 1,
        "Ki" => 1 << 10,
        "Mi" => 1 << 20,
        "Gi" => 1 << 30,
        "Ti" => 1 << 40,
        "k" | "K" | "KB" => 1000,
        "M" | "MB" => 1000_u128.pow(2),
        "G" | "GB" => 1000_u128.pow(3),
        "T" | "TB" => 1000_u128.pow(4),
        _ => return None,
    };
    let (whole, fraction) = match number.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() => (whole, fraction),
        Some(_) => return None,
        None => (number, ""),
    };
    if whole.is_empty() || whole.len() > 20 {
        return None;
    }
    let whole: u128 = whole.parse().ok()?;
    // Digits past the 18th cannot add a byte to any unit here.
    let fraction = &fraction[..fraction.len().min(18)];
    let fraction_bytes = match fraction {
        "" => 0,
        digits => digits.parse::<u128>().ok()? * multiplier / 10_u128.pow(digits.len() as u32),
    };
    u64::try_from(whole.checked_mul(multiplier)?.checked_add(fraction_bytes)?).ok()
}

#[cfg(test)]
mod tests {
    use super::memory_bytes;

    #[test]
    fn memory_sizes_in_bytes() {
        assert_eq!(memory_bytes("512Mi"), Some(512 << 20));
        assert_eq!(memory_bytes("64Mi"), Some(64 << 20));
        assert_eq!(memory_bytes("1Gi"), Some(1 << 30));
        assert_eq!(memory_bytes("1.5Gi"), Some(3 << 29));
        assert_eq!(memory_bytes("256MB"), Some(256_000_000));
        assert_eq!(memory_bytes("512M"), Some(512_000_000));
        assert_eq!(memory_bytes("2k"), Some(2000));
        assert_eq!(memory_bytes("1000"), Some(1000));
        assert_eq!(memory_bytes(" 1Ki "), Some(1024));
    }

    #[test]
    fn what_is_not_a_memory_size() {
        for bad in [
            "",
            "lots",
            "512m",
            "1g",
            "Mi",
            ".5Gi",
            "1.Gi",
            "1..5Gi",
            "-1Mi",
            "1 Mi",
            "512MiB",
            "99999999999999999999Ti",
            "1.5.5Mi",
        ] {
            assert_eq!(memory_bytes(bad), None, "{bad:?}");
        }
        assert_eq!(memory_bytes("16777216Ti"), None);
        assert_eq!(memory_bytes("16777215Ti"), Some(16_777_215 << 40));
    }
}

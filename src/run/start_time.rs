//! When a process started: what tells a reused pid from the toolc that
//! left something behind.
//!
//! A call's scratch directory ([`super::exec`]'s scratch module) and its
//! cgroup ([`super::cgroup`]) carry toolc's pid and start time in their
//! names; the sweep of those a killed toolc left reads the start time of
//! the pid a name gives to tell whether their owner still runs.

use std::sync::OnceLock;

/// This process's start time (0 where `/proc` cannot tell it), read once:
/// every call's scratch directory and cgroup carry it in their names.
pub(crate) fn own_start_time() -> u64 {
    static STARTED: OnceLock<u64> = OnceLock::new();
    *STARTED.get_or_init(|| start_time(std::process::id()).unwrap_or_default())
}

/// The start time of process `pid` in clock ticks since boot, `None`
/// when it does not run (or is a zombie: dead, only not reaped).
pub(crate) fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces
    // and parentheses itself: the fields after the last ')' start at
    // field 3 (the state).
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    if fields.next()? == "Z" {
        return None;
    }
    // Field 22 is the 19th after the state.
    fields.nth(18)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_start_time() {
        assert!(start_time(std::process::id()).is_some());
    }
}

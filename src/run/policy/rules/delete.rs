//! The rules over commands that delete a tree: `rm -r`, `find -delete`
//! or `-exec rm`, `rsync --delete`, `git clean`, and the check of the paths they
//! delete (`/`, the home, a system directory, one only known when it
//! runs, or any path outside the workspace and the call's scratch
//! directory: not a list of directories, as `rm -rf /usr/lib` showed).

use super::{Judge, Kind, computed, shorten, splits};
use crate::run::policy::programs::{
    DELETERS, Program, find_parts, has_flag, is_long, operands, program, value_of,
};
use crate::run::policy::shell::{Command, Script, Word};
use crate::run::policy::targets::Target;

/// Why a tree delete outside the workspace is refused.
pub(super) const OUTSIDE: &str = "outside the workspace and the call's scratch directory";

impl Judge<'_> {
    pub(super) fn rm(&mut self, args: &[Word], fed: bool) {
        let no_preserve = |w: &Word| {
            w.value
                .as_deref()
                .is_some_and(|a| a.len() > 4 && is_long(a, "--no-preserve-root"))
        };
        if args.iter().any(no_preserve) {
            return self.push(Kind::Dangerous, "would delete with `--no-preserve-root`");
        }
        let certain = has_flag(args, "--recursive", &['r', 'R']);
        let before = self.findings.len();
        if certain || computed(args) {
            self.targets(
                operands(args),
                fed,
                certain,
                true,
                "would delete {} recursively",
            );
        }
        // `X='-rf /'; rm $X`, `set -- -rf /; rm "$@"`: the words split
        // into options and paths only when it runs.
        let split = args.iter().find(|w| w.value.is_none() && splits(w));
        if let (Some(word), true) = (split, self.findings.len() == before) {
            self.push(
                Kind::Dangerous,
                format!(
                    "would delete with arguments only known when it runs (`{}` may become options and paths)",
                    shorten(&word.source)
                ),
            );
        }
    }

    /// Refuses the critical and the unknown among `words`; `fed`: more
    /// targets come from `xargs`' input. Not `certain`: only a computed
    /// word (`rm $OPTS /`) may make the command destructive, and only a
    /// critical target is refused. `what` says what the command does,
    /// `{}` standing for the path: "would delete {} recursively".
    /// `deletes`: the command deletes its targets, and one outside the
    /// workspace and the scratch directory is refused too.
    pub(super) fn targets<'w>(
        &mut self,
        words: impl Iterator<Item = &'w Word>,
        fed: bool,
        certain: bool,
        deletes: bool,
        what: &str,
    ) {
        let with = |path: &str| what.replacen("{}", path, 1);
        // A critical or unknown target is named first (`/{s..u}sr` is
        // `/usr` before it is `/ssr`).
        let mut outside = None;
        for word in words {
            match self.places.target(word) {
                Target::Critical(path) if certain => {
                    return self.push(Kind::Dangerous, with(&format!("`{path}`")));
                }
                Target::Critical(path) => {
                    let why = "with options only known when it runs";
                    let message = format!("{} ({why})", with(&format!("`{path}`")));
                    return self.push(Kind::Dangerous, message);
                }
                Target::Unknown(_) if !certain => {}
                Target::Unknown(why) => {
                    let message = with("a path only known when it runs");
                    return self.push(Kind::Dangerous, format!("{message} ({why})"));
                }
                Target::Outside(path) if certain && deletes => {
                    outside.get_or_insert(path);
                }
                Target::Outside(_) | Target::Fine => {}
            }
        }
        if let Some(path) = outside {
            let message = with(&format!("`{path}`"));
            return self.push(Kind::Dangerous, format!("{message}, {OUTSIDE}"));
        }
        if fed && certain {
            let message = with("paths only known when it runs");
            self.push(Kind::Dangerous, format!("{message} (read by xargs)"));
        }
    }

    pub(super) fn find(&mut self, script: &Script, command: &Command, args: &[Word], depth: usize) {
        let (starts, expression) = find_parts(args);
        let mut deletes = expression
            .iter()
            .any(|w| w.value.as_deref() == Some("-delete"));
        let mut at = 0;
        while at < expression.len() {
            let action = value_of(&expression[at]);
            at += 1;
            if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                continue;
            }
            let end = expression[at..]
                .iter()
                .position(|w| matches!(value_of(w), ";" | "+"))
                .map_or(expression.len(), |p| at + p);
            let words = &expression[at..end];
            if let Program::Runs { name, .. } = program(words) {
                deletes |= DELETERS.contains(&name.as_str());
            }
            self.words(script, command, words, depth);
            at = end + 1;
        }
        // `find / $ACTION`: a computed expression may delete.
        let maybe = expression.iter().any(|w| w.value.is_none());
        if !deletes && !maybe {
            return;
        }
        let dot = [Word::literal(".")];
        let starts = if starts.is_empty() {
            vec![&dot[0]]
        } else {
            starts
        };
        self.targets(
            starts.into_iter(),
            false,
            deletes,
            true,
            "would delete everything under {} with find",
        );
    }

    pub(super) fn rsync(&mut self, args: &[Word]) {
        let deletes = args
            .iter()
            .filter_map(|w| w.value.as_deref())
            .any(|a| a.starts_with("--delete") || a == "--del" || a == "--remove-source-files");
        if !deletes && !computed(args) {
            return;
        }
        let Some(destination) = operands(args).last() else {
            return;
        };
        // `host:/path` is another machine's.
        let remote = destination
            .value
            .as_deref()
            .is_some_and(|v| v.split('/').next().is_some_and(|head| head.contains(':')));
        if !remote {
            self.targets(
                std::iter::once(destination),
                false,
                deletes,
                true,
                "would delete everything under {} not in the source (rsync --delete)",
            );
        }
    }

    /// `git clean -fdx PATH…` deletes what git does not track under each
    /// path (the working directory, or `-C`'s, without one): a tree
    /// delete, judged as `rm -r`'s.
    pub(super) fn git(&mut self, args: &[Word]) {
        let mut at = 0;
        let mut base: Option<&str> = None;
        while let Some(arg) = args.get(at).and_then(|w| w.value.as_deref()) {
            match arg {
                "-C" => base = args.get(at + 1).and_then(|w| w.value.as_deref()),
                "-c" | "--git-dir" | "--work-tree" | "--namespace" => {}
                _ if arg.starts_with('-') => {
                    at += 1;
                    continue;
                }
                _ => break,
            }
            at += 2;
        }
        if args.get(at).and_then(|w| w.value.as_deref()) != Some("clean") {
            return;
        }
        let rest = &args[at + 1..];
        if has_flag(rest, "--dry-run", &['n']) {
            return;
        }
        let mut paths: Vec<Word> = Vec::new();
        let mut options = true;
        let mut skip = false;
        for word in rest {
            let value = value_of(word);
            if skip {
                skip = false;
            } else if options && value == "--" {
                options = false;
            } else if options && matches!(value, "-e" | "--exclude") {
                skip = true;
            } else if !options || !value.starts_with('-') {
                paths.push(word.clone());
            }
        }
        let join = |path: &str| match base {
            Some(base) if !path.starts_with('/') => format!("{base}/{path}"),
            _ => path.to_string(),
        };
        if paths.is_empty() {
            paths.push(Word::literal(base.unwrap_or(".")));
        } else if base.is_some() {
            paths = paths
                .iter()
                .map(|w| match &w.value {
                    Some(value) => Word::literal(&join(value)),
                    None => w.clone(),
                })
                .collect();
        }
        let certain = has_flag(rest, "--force", &['f', 'd', 'x', 'X']);
        self.targets(
            paths.iter(),
            false,
            certain,
            true,
            "would delete {} recursively",
        );
    }
}

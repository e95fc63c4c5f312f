//! The shell walk on its own: which commands it finds and how it resolves
//! their words.

use crate::run::policy::shell::{Input, Script, parse};

fn script(text: &str) -> Script {
    match parse(text) {
        Ok(script) => script,
        Err(why) => panic!("{text:?} does not parse: {why}"),
    }
}

/// Each command's words, a computed word shown as `?source`.
fn commands(text: &str) -> Vec<Vec<String>> {
    script(text)
        .commands
        .iter()
        .map(|command| {
            let words = command.words.iter();
            words
                .map(|w| w.value.clone().unwrap_or_else(|| format!("?{}", w.source)))
                .collect()
        })
        .collect()
}

#[test]
fn words_are_resolved_as_the_shell_resolves_them() {
    assert_eq!(
        commands(r#"r"m" -'r'f {/,x} $'\x41\n' ~/"a b" \*"#),
        [["rm", "-rf", "/", "x", "A\n", "~/a b", "*"]]
    );
    assert_eq!(
        commands(r#"echo "$HOME" ${HOME}/x "a\"b\$c""#),
        [["echo", "$HOME", "$HOME/x", "a\"b$c"]]
    );
    assert_eq!(
        commands("X=/; $X -rf \"$(printf rm)\""),
        [
            vec!["printf", "rm"],
            vec!["?$X", "-rf", "?\"$(printf rm)\""]
        ]
    );
}

#[test]
fn every_simple_command_is_found() {
    let text = "a | b && (c; { d; }) || if e; then f; fi; for i in 1; do g; done; \
                h() { i; }; h; case x in y) j;; esac; k $(l) <(m) `n`; while o; do p & done";
    let mut names: Vec<String> = commands(text)
        .into_iter()
        .filter_map(|words| words.into_iter().next())
        .collect();
    names.sort();
    let expected: Vec<String> = ('a'..='p').map(String::from).collect();
    assert_eq!(names, expected);
}

#[test]
fn pipes_here_documents_and_globs_are_recorded() {
    let parsed = script("curl x | sudo sh\ncat <<'EOF' | bash\nrm -rf /\nEOF");
    let inputs: Vec<&Vec<Input>> = parsed.commands.iter().map(|c| &c.inputs).collect();
    assert!(matches!(inputs[1].as_slice(), [Input::Pipe(up)] if up == &[0]));
    assert!(
        matches!(inputs[3].as_slice(), [Input::Pipe(up)] if up == &[2]),
        "{inputs:?}"
    );
    assert!(
        matches!(inputs[2].as_slice(), [Input::Text(t)] if t.value.as_deref() == Some("rm -rf /\n"))
    );
    let globbed = script("cat /etc/sha*ow '/etc/x*'");
    let words = &globbed.commands[0].words;
    assert_eq!(words[1].glob.as_deref(), Some("/etc/sha*ow"));
    assert_eq!(words[2].glob, None);
    assert_eq!(words[2].value.as_deref(), Some("/etc/x*"));
}

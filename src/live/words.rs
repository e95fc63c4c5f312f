//! The words of an `--mcp-stdio` command, split as a POSIX shell splits
//! them (blanks separate words; single quotes keep everything literally;
//! double quotes keep blanks, with `\` escaping `"`, `\`, `$`, `` ` `` and
//! a newline; a `\` outside quotes keeps the next character), without
//! running a shell: no variables, globs, pipes or redirections.

/// Why a command could not be split into words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SplitError {
    #[error("the command is empty")]
    Empty,
    #[error("a {0} quote is not closed")]
    Unclosed(&'static str),
    #[error("it ends with a lone backslash")]
    TrailingBackslash,
    #[error(
        "`{0}` outside quotes is shell syntax, and the command runs without a shell: quote it \
         to pass it to the program as it is, or run a shell (\"sh -c '...'\")"
    )]
    Shell(char),
}

/// The words of `command`, the program first.
pub(crate) fn split(command: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    // The word being read, and whether one has started (`''` is a word).
    let mut word = String::new();
    let mut started = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::Unclosed("single")),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            // An escaped newline joins the lines.
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::Unclosed("double")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(SplitError::Unclosed("double")),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => return Err(SplitError::TrailingBackslash),
                }
            }
            c @ ('|' | ';' | '&' | '<' | '>' | '`' | '$') => return Err(SplitError::Shell(c)),
            '~' if !started => return Err(SplitError::Shell('~')),
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_blanks_and_keep_quoted_text_whole() {
        assert_eq!(
            split("python -m  mcp_server_time --local-timezone UTC").unwrap(),
            ["python", "-m", "mcp_server_time", "--local-timezone", "UTC"]
        );
        assert_eq!(
            split(r#"node "/a dir/index.js" 'it''s' a\ b "" x"y"z"#).unwrap(),
            ["node", "/a dir/index.js", "its", "a b", "", "xyz"]
        );
        assert_eq!(
            split(r#""say \"hi\" \n" '$HOME' \$x"#).unwrap(),
            [r#"say "hi" \n"#, "$HOME", "$x"]
        );
    }

    #[test]
    fn broken_quoting_is_refused() {
        assert_eq!(split("  "), Err(SplitError::Empty));
        assert_eq!(split("a 'b"), Err(SplitError::Unclosed("single")));
        assert_eq!(split("a \"b"), Err(SplitError::Unclosed("double")));
        assert_eq!(split("a b\\"), Err(SplitError::TrailingBackslash));
        assert_eq!(split("a | b"), Err(SplitError::Shell('|')));
        assert_eq!(split("a >/dev/null"), Err(SplitError::Shell('>')));
        assert_eq!(split("node $HOME/s.js"), Err(SplitError::Shell('$')));
        assert_eq!(split("~/bin/server"), Err(SplitError::Shell('~')));
        assert_eq!(
            split(r#"a '|' "&&" \; x~y "$" b\$"#).unwrap(),
            ["a", "|", "&&", ";", "x~y", "$", "b$"]
        );
    }
}

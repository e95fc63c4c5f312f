//! How toolc reports a run it could not make: exit code 2 and an
//! `error:` line that names the stage error's cause.

use super::{Test, root};

#[test]
fn an_unreadable_arguments_file_names_the_file_and_the_cause() {
    let output = Test::new()
        .args([
            "run",
            "builtin",
            "list_files",
            "--args-file",
            "/nonexistent/toolc-args.json",
        ])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.starts_with(
            "error: cannot read the arguments from /nonexistent/toolc-args.json: No such file"
        ),
        "{}",
        output.stderr
    );
}

#[test]
fn arguments_that_are_not_json_say_where_the_parser_stopped() {
    let output = Test::new()
        .args(["run", "builtin", "list_files", "--args", "{nope"])
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.starts_with(
            "error: the arguments in --args are not JSON: key must be a string at line 1 column 2"
        ),
        "{}",
        output.stderr
    );
}

#[test]
fn a_template_directory_that_does_not_exist_is_a_failed_run() {
    let output = Test::new()
        .args([
            "gen",
            "rust",
            "fixtures/rules/conversion-loss/good",
            "--templates",
            "/nonexistent/toolc-templates",
        ])
        .current_dir(root())
        .run();
    assert_eq!(output.code, 2, "{}", output.stderr);
    assert!(
        output.stderr.starts_with("error: ")
            && output.stderr.contains("/nonexistent/toolc-templates"),
        "{}",
        output.stderr
    );
}

#[test]
fn a_bad_flag_is_rendered_by_clap_and_exits_2() {
    let output = Test::new().args(["lint", "--no-such-flag"]).run();
    assert_eq!(output.code, 2);
    assert!(
        output
            .stderr
            .contains("unexpected argument '--no-such-flag'"),
        "{}",
        output.stderr
    );
    let help = Test::new().args(["lint", "--help"]).run();
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--fail-on"), "{}", help.stdout);
}

#[test]
fn findings_about_code_point_into_the_code_with_the_manifest_related() {
    let cases = [
        (
            "fixtures/rules/python-syntax-error/bad",
            "python-syntax-error",
            "web_search/__init__.py",
            "web_search/config.json",
        ),
        (
            "fixtures/rules/typescript-unsupported-expression/bad",
            "typescript-unsupported-expression",
            "src/fetch.ts",
            "manifest.json",
        ),
    ];
    for (dir, rule, code, manifest) in cases {
        let report = Test::new()
            .args(["lint", "--format", "json", dir])
            .run()
            .json();
        let finding = report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .find(|d| d["rule"] == rule)
            .unwrap_or_else(|| panic!("no {rule}: {report:#}"));
        assert_eq!(finding["path"], format!("{dir}/{code}"), "{finding:#}");
        assert_eq!(
            finding["related"][0]["path"],
            format!("{dir}/{manifest}"),
            "{finding:#}"
        );
        // The human report shows the code itself.
        let human = Test::new().args(["lint", "--select", rule, dir]).run();
        assert!(
            human.stdout.contains(&format!("╭─[{dir}/{code}:")),
            "{}",
            human.stdout
        );
    }
}

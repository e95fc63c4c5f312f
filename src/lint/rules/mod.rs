//! The rule registry: every rule, in code order, and the order checks run.
//!
//! Each rule lives in its own file, whose `//!` comment is the rule's user
//! documentation (`build.rs` collects those comments for `toolc explain`).

pub(crate) mod agentstack_function_missing;
pub(crate) mod agentstack_unlisted_function;
pub(crate) mod command_escapes_bin;
pub(crate) mod command_not_found;
pub(crate) mod command_outside_bin;
pub(crate) mod conversion_loss;
pub(crate) mod duplicate_key;
pub(crate) mod duplicate_tool_name;
pub(crate) mod empty_command;
pub(crate) mod entrypoint_missing_run;
pub(crate) mod entrypoint_not_found;
pub(crate) mod file_too_large;
pub(crate) mod format_from_content;
pub(crate) mod generation_note;
pub(crate) mod invalid_json;
pub(crate) mod invalid_json_schema;
pub(crate) mod invalid_memory_limit;
pub(crate) mod invalid_security_tier;
pub(crate) mod invalid_tool_name;
pub(crate) mod io_error;
pub(crate) mod missing_action;
pub(crate) mod missing_name;
pub(crate) mod nachos_class_missing;
pub(crate) mod nachos_tier_mismatch;
pub(crate) mod nesting_too_deep;
pub(crate) mod nora_property_missing_required;
pub(crate) mod not_a_tool_manifest;
pub(crate) mod parameters_not_object;
pub(crate) mod property_missing_description;
pub(crate) mod property_missing_type;
pub(crate) mod python_syntax_error;
pub(crate) mod python_type_hint_unknown;
pub(crate) mod required_unknown_property;
pub(crate) mod schema_violation;
pub(crate) mod stale_tool_list;
pub(crate) mod typescript_unsupported_expression;
pub(crate) mod unknown_action;
pub(crate) mod unknown_field;
pub(crate) mod unknown_format;
pub(crate) mod unpinned_dependency;
pub(crate) mod unused_ignore;
// Provider rules (group A: names, sizes, combinators, MCP)
pub(crate) mod array_missing_items;
pub(crate) mod description_too_long;
pub(crate) mod dialect_mismatch;
pub(crate) mod mcp_annotation_conflict;
pub(crate) mod name_charset;
pub(crate) mod name_start;
pub(crate) mod name_too_long;
pub(crate) mod root_combinator;
pub(crate) mod too_many_tools;
// Provider rules (group B: OpenAI strict, Gemini)
pub(crate) mod gemini_enum_not_string;
pub(crate) mod gemini_property_name;
pub(crate) mod gemini_typeless_node;
pub(crate) mod gemini_unsupported_keyword;
pub(crate) mod strict_additional_properties;
pub(crate) mod strict_all_required;
pub(crate) mod strict_limits;
pub(crate) mod strict_unsupported_format;
pub(crate) mod strict_unsupported_keyword;
// Tool poisoning (what a model reads of a tool; see `lint::poison`)
pub(crate) mod confusable_tool_name;
pub(crate) mod exfiltration_channel;
pub(crate) mod hidden_instruction;
pub(crate) mod invisible_unicode;
pub(crate) mod sensitive_data_request;
pub(crate) mod tool_shadowing;
// Pinned tool definitions (toolc.lock, --locked)
pub(crate) mod tool_drift;

use serde_json::{Map, Value};

use super::parameter_schema::ParameterSchema;
use super::poison;
use super::schema_walk::for_each_schema;
use super::{Manifest, Rule};
use crate::lint::findings::Findings;

include!(concat!(env!("OUT_DIR"), "/rule_docs.rs"));

/// How a rule's findings come about.
#[derive(Clone, Copy)]
pub(crate) enum Check {
    /// A file the front end could not load (see `lint::problem_diagnostic`).
    Load,
    /// A check of one manifest at a time.
    Manifest(fn(&Manifest, &mut Findings)),
    /// A check of a tool's parameter schema as a whole, wherever it comes
    /// from (see [`ParameterSchema`]).
    Schema(ToolSchemaCheck),
    /// A check of every subschema of a tool's parameters, in the format's
    /// own dialect (one walk serves them all).
    Node(SchemaCheck),
    /// The format's structural schema (`lint::structure`).
    Structure,
    /// Reported by the command that does the work (convert's losses,
    /// gen's notes).
    Command,
    /// A check across the files of a run, once each has been checked.
    Across,
    /// Reported where a file's ignores are applied to its findings
    /// (`lint::suppress`), once they are all known.
    Suppression,
    /// A tool-poisoning rule that looks at each string a model reads as
    /// it is; it shares the text rules' walk.
    Piece(&'static poison::PieceCheck),
    /// A tool-poisoning rule that reads the text a model reads: the
    /// enabled ones share one walk of the manifest ([`poison::check_text`]).
    Text(&'static poison::TextRule),
}

type ToolSchemaCheck = fn(&ParameterSchema, &mut Findings);
type SchemaCheck = fn(&ParameterSchema, &str, &Map<String, Value>, &mut Findings);

/// Every rule, in code order, with its check: registering a rule is one
/// entry here (and its module above).
pub(crate) static REGISTRY: &[(&Rule, Check)] = &[
    (&invalid_json::RULE, Check::Load),
    (&duplicate_key::RULE, Check::Manifest(duplicate_key::check)),
    (&file_too_large::RULE, Check::Load),
    (&nesting_too_deep::RULE, Check::Load),
    (&io_error::RULE, Check::Load),
    (&unknown_format::RULE, Check::Load),
    (
        &format_from_content::RULE,
        Check::Manifest(format_from_content::check),
    ),
    (&missing_name::RULE, Check::Manifest(missing_name::check)),
    (
        &duplicate_tool_name::RULE,
        Check::Manifest(duplicate_tool_name::check),
    ),
    (
        &invalid_tool_name::RULE,
        Check::Manifest(invalid_tool_name::check),
    ),
    (&stale_tool_list::RULE, Check::Across),
    (&empty_command::RULE, Check::Manifest(empty_command::check)),
    (
        &command_outside_bin::RULE,
        Check::Manifest(command_outside_bin::check),
    ),
    (
        &command_escapes_bin::RULE,
        Check::Manifest(command_escapes_bin::check),
    ),
    (
        &command_not_found::RULE,
        Check::Manifest(command_not_found::check),
    ),
    (
        &parameters_not_object::RULE,
        Check::Schema(parameters_not_object::check),
    ),
    (
        &property_missing_type::RULE,
        Check::Node(property_missing_type::check_node),
    ),
    (
        &property_missing_description::RULE,
        Check::Node(property_missing_description::check_node),
    ),
    (
        &required_unknown_property::RULE,
        Check::Node(required_unknown_property::check_node),
    ),
    (
        &invalid_json_schema::RULE,
        Check::Schema(invalid_json_schema::check),
    ),
    (
        &nora_property_missing_required::RULE,
        Check::Manifest(nora_property_missing_required::check),
    ),
    (
        &entrypoint_not_found::RULE,
        Check::Manifest(entrypoint_not_found::check),
    ),
    (
        &entrypoint_missing_run::RULE,
        Check::Manifest(entrypoint_missing_run::check),
    ),
    (
        &unknown_action::RULE,
        Check::Manifest(unknown_action::check),
    ),
    (
        &missing_action::RULE,
        Check::Manifest(missing_action::check),
    ),
    (
        &unpinned_dependency::RULE,
        Check::Manifest(unpinned_dependency::check),
    ),
    (
        &agentstack_function_missing::RULE,
        Check::Manifest(agentstack_function_missing::check),
    ),
    (
        &agentstack_unlisted_function::RULE,
        Check::Manifest(agentstack_unlisted_function::check),
    ),
    (
        &python_syntax_error::RULE,
        Check::Manifest(python_syntax_error::check),
    ),
    (
        &python_type_hint_unknown::RULE,
        Check::Manifest(python_type_hint_unknown::check),
    ),
    (
        &invalid_security_tier::RULE,
        Check::Manifest(invalid_security_tier::check),
    ),
    (
        &invalid_memory_limit::RULE,
        Check::Manifest(invalid_memory_limit::check),
    ),
    (
        &nachos_class_missing::RULE,
        Check::Manifest(nachos_class_missing::check),
    ),
    (
        &nachos_tier_mismatch::RULE,
        Check::Manifest(nachos_tier_mismatch::check),
    ),
    (
        &typescript_unsupported_expression::RULE,
        Check::Manifest(typescript_unsupported_expression::check),
    ),
    (
        &not_a_tool_manifest::RULE,
        Check::Manifest(not_a_tool_manifest::check),
    ),
    (&schema_violation::RULE, Check::Structure),
    (&unknown_field::RULE, Check::Structure),
    (&conversion_loss::RULE, Check::Command),
    (&generation_note::RULE, Check::Command),
    (&unused_ignore::RULE, Check::Suppression),
    // Provider rules (group A: names, sizes, combinators, MCP)
    (&name_too_long::RULE, Check::Manifest(name_too_long::check)),
    (&name_charset::RULE, Check::Manifest(name_charset::check)),
    (&name_start::RULE, Check::Manifest(name_start::check)),
    (
        &description_too_long::RULE,
        Check::Manifest(description_too_long::check),
    ),
    (
        &too_many_tools::RULE,
        Check::Manifest(too_many_tools::check),
    ),
    (
        &root_combinator::RULE,
        Check::Schema(root_combinator::check),
    ),
    (
        &array_missing_items::RULE,
        Check::Node(array_missing_items::check_node),
    ),
    (
        &mcp_annotation_conflict::RULE,
        Check::Manifest(mcp_annotation_conflict::check),
    ),
    (
        &dialect_mismatch::RULE,
        Check::Schema(dialect_mismatch::check),
    ),
    // Provider rules (group B: OpenAI strict, Gemini)
    (
        &strict_additional_properties::RULE,
        Check::Node(strict_additional_properties::check_node),
    ),
    (
        &strict_all_required::RULE,
        Check::Node(strict_all_required::check_node),
    ),
    (
        &strict_unsupported_keyword::RULE,
        Check::Node(strict_unsupported_keyword::check_node),
    ),
    (
        &strict_unsupported_format::RULE,
        Check::Node(strict_unsupported_format::check_node),
    ),
    (&strict_limits::RULE, Check::Schema(strict_limits::check)),
    (
        &gemini_unsupported_keyword::RULE,
        Check::Node(gemini_unsupported_keyword::check_node),
    ),
    (
        &gemini_enum_not_string::RULE,
        Check::Node(gemini_enum_not_string::check_node),
    ),
    (
        &gemini_typeless_node::RULE,
        Check::Node(gemini_typeless_node::check_node),
    ),
    (
        &gemini_property_name::RULE,
        Check::Node(gemini_property_name::check_node),
    ),
    (
        &invisible_unicode::RULE,
        Check::Piece(&invisible_unicode::CHECK),
    ),
    (
        &confusable_tool_name::RULE,
        Check::Manifest(confusable_tool_name::check),
    ),
    (
        &hidden_instruction::RULE,
        Check::Text(&hidden_instruction::TEXT),
    ),
    (
        &sensitive_data_request::RULE,
        Check::Text(&sensitive_data_request::TEXT),
    ),
    (
        &exfiltration_channel::RULE,
        Check::Text(&exfiltration_channel::TEXT),
    ),
    (&tool_shadowing::RULE, Check::Text(&tool_shadowing::TEXT)),
    (&tool_drift::RULE, Check::Manifest(tool_drift::check)),
];

/// The rules whose findings are security findings, with the score GitHub
/// code scanning ranks them by (SARIF `security-severity`, 0.0 to 10.0;
/// 7.0 and over is "high", 9.0 and over "critical").
static SECURITY_SEVERITY: &[(&Rule, &str)] = &[
    (&invisible_unicode::RULE, "8.0"),
    (&confusable_tool_name::RULE, "7.5"),
    (&hidden_instruction::RULE, "7.0"),
    (&sensitive_data_request::RULE, "8.5"),
    (&exfiltration_channel::RULE, "8.5"),
    (&tool_shadowing::RULE, "8.0"),
    (&tool_drift::RULE, "7.0"),
];

/// Rules whose findings depend on which other rules ran: an ignore entry
/// is unused only when its rule ran and found nothing there. A check that
/// leaves rules out cannot trust their findings.
pub const DEPEND_ON_RULES_RUN: &[&Rule] = &[&unused_ignore::RULE];

/// The security rules: their findings say what a text does, and never
/// stand in for another rule's (see `keep_one_report_per_defect`).
pub fn security_rules() -> impl Iterator<Item = &'static Rule> {
    SECURITY_SEVERITY.iter().map(|(rule, _)| *rule)
}

/// A security rule's `security-severity` score; `None` for the others.
pub fn security_severity(rule: &Rule) -> Option<&'static str> {
    SECURITY_SEVERITY
        .iter()
        .find(|(r, _)| r.name == rule.name)
        .map(|(_, score)| *score)
}

/// Every rule, in code order.
pub static ALL: std::sync::LazyLock<Vec<&'static Rule>> =
    std::sync::LazyLock::new(|| REGISTRY.iter().map(|(rule, _)| *rule).collect());

/// Rules that check a value against a general schema (the format's
/// structure, the meta-schema): a more specific rule's finding at the same
/// pointer replaces theirs.
///
/// `invalid-tool-name` is the provider-neutral name check; with a target
/// on, `name-too-long` and `name-charset` say the same more precisely.
pub(crate) const GENERIC: &[&Rule] = &[
    &schema_violation::RULE,
    &invalid_json_schema::RULE,
    &invalid_tool_name::RULE,
];

/// Rules about a key rather than its value.
pub(crate) const ABOUT_KEYS: &[&Rule] = &[&duplicate_key::RULE, &unknown_field::RULE];

/// Runs the parameter rules over every tool's parameter schema. Findings
/// about schemas in the document go to `out`; those about derived schemas,
/// deduplicated among themselves and moved to their tool's name, go to
/// `derived_out`.
fn check_parameter_schemas(manifest: &Manifest, out: &mut Findings, derived_out: &mut Findings) {
    let runs = |rule: &Rule| manifest.settings.runs(rule);
    let tool_checks: Vec<ToolSchemaCheck> = REGISTRY
        .iter()
        .filter(|(rule, _)| runs(rule))
        .filter_map(|(_, check)| match check {
            Check::Schema(check) => Some(*check),
            _ => None,
        })
        .collect();
    let node_checks: Vec<SchemaCheck> = REGISTRY
        .iter()
        .filter(|(rule, _)| runs(rule))
        .filter_map(|(_, check)| match check {
            Check::Node(check) => Some(*check),
            _ => None,
        })
        .collect();
    if tool_checks.is_empty() && node_checks.is_empty() {
        return;
    }
    let check = |schema: &ParameterSchema, out: &mut Findings| {
        for check in &tool_checks {
            check(schema, out);
        }
        if node_checks.is_empty() {
            return;
        }
        for_each_schema(schema.value, schema.root, &mut |pointer, node| {
            for check in &node_checks {
                check(schema, pointer, node, out);
            }
        });
    };
    for schema in ParameterSchema::all(*manifest) {
        if !schema.is_derived() {
            check(&schema, out);
            continue;
        }
        // One report per defect, decided by the place in the derived
        // schema: once moved, every finding sits at the tool's name.
        let mut found = Findings::new();
        check(&schema, &mut found);
        super::keep_one_report_per_defect(&mut found);
        found.map_kept(|kept| schema.relocate(kept));
        derived_out.absorb(found);
    }
}

/// A rule by name or code.
pub fn find(name_or_code: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.answers_to(name_or_code))
}

/// The documentation comment of a rule's file.
pub(crate) fn documentation(name: &str) -> &'static str {
    RULE_DOCS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, doc)| *doc)
        .unwrap_or("")
}

/// Whether the format's structural schema applies (not to Nachos channel
/// and core manifests, which are only noted).
pub(crate) fn is_checked_structurally(manifest: &Manifest) -> bool {
    !not_a_tool_manifest::applies(manifest)
}

/// Runs the per-file rules. Findings about derived parameter schemas go to
/// `derived_out`, apart from the rest (see [`check_parameter_schemas`]).
pub(crate) fn check_manifest(manifest: &Manifest, out: &mut Findings, derived_out: &mut Findings) {
    if not_a_tool_manifest::applies(manifest) {
        duplicate_key::check(manifest, out);
        not_a_tool_manifest::check(manifest, out);
        return;
    }
    for (rule, check) in REGISTRY {
        if let Check::Manifest(check) = check
            && manifest.settings.runs(rule)
        {
            check(manifest, out);
        }
    }
    let text_rules: Vec<&poison::TextRule> = REGISTRY
        .iter()
        .filter_map(|(rule, check)| match check {
            Check::Text(text) if manifest.settings.runs(rule) => Some(*text),
            _ => None,
        })
        .collect();
    let piece_checks: Vec<&poison::PieceCheck> = REGISTRY
        .iter()
        .filter_map(|(rule, check)| match check {
            Check::Piece(check) if manifest.settings.runs(rule) => Some(*check),
            _ => None,
        })
        .collect();
    poison::check_text(manifest, &piece_checks, &text_rules, out);
    check_parameter_schemas(manifest, out, derived_out);
}

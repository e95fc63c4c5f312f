//! What a name in the class's `parameters` refers to: a `const` declared in
//! the same file, in the scope that encloses the reference (the file, or a
//! block around the class), or something toolc does not evaluate.
//!
//! A name is only ever resolved to a `const` with an initializer; a `let`,
//! `var`, function, class, enum, import or parameter of the same name in a
//! nearer scope hides it, as in JavaScript, and then the name is not
//! resolved at all. A `const` is also refused where JavaScript would throw
//! (its temporal dead zone): a reference that runs while the file is
//! evaluated (in another `const`'s initializer, or a static field) must come
//! after the declaration. A non-static field's initializer runs when the
//! class is instantiated, after the whole file has run, so it may use a
//! `const` declared below the class.

use tree_sitter::Node;

use super::source;

/// What a name refers to.
pub(super) enum Binding<'tree> {
    /// A `const` declarator (`NAME = value`), with its value.
    Const {
        declarator: Node<'tree>,
        value: Node<'tree>,
    },
    /// A `const` that exists but is not yet initialised where it is used.
    BeforeDeclaration,
    /// Anything else: another kind of declaration, or nothing in this file.
    Unknown,
}

/// Kinds that start a function: their bodies run later, and their
/// parameters are bindings.
const FUNCTIONS: [&str; 6] = [
    "function_declaration",
    "function_expression",
    "generator_function_declaration",
    "generator_function",
    "arrow_function",
    "method_definition",
];

/// The binding of the identifier `reference`, `steps` counting the nodes
/// looked at (a file with many declarations costs more to search).
pub(super) fn resolve<'tree>(
    reference: Node<'tree>,
    text: &str,
    steps: &mut usize,
) -> Binding<'tree> {
    let name = source(reference, text);
    let mut deferred = false;
    let mut current = reference;
    while let Some(parent) = current.parent() {
        *steps += 1;
        if FUNCTIONS.contains(&parent.kind()) {
            deferred = true;
            if let Some(parameters) = parent.child_by_field_name("parameters")
                && binds(parameters, name, text, steps)
            {
                return Binding::Unknown;
            }
        }
        if parent.kind() == "public_field_definition" && !is_static(parent) {
            deferred = true;
        }
        if matches!(parent.kind(), "program" | "statement_block") {
            match declared_in(parent, name, text, steps) {
                Declared::Nothing => {}
                Declared::Other => return Binding::Unknown,
                Declared::Const { declarator, value } => {
                    if !deferred && declarator.end_byte() > reference.start_byte() {
                        return Binding::BeforeDeclaration;
                    }
                    return Binding::Const { declarator, value };
                }
            }
        }
        current = parent;
    }
    Binding::Unknown
}

fn is_static(field: Node) -> bool {
    let mut cursor = field.walk();
    field
        .children(&mut cursor)
        .any(|child| child.kind() == "static")
}

enum Declared<'tree> {
    Nothing,
    Const {
        declarator: Node<'tree>,
        value: Node<'tree>,
    },
    Other,
}

/// How the statements directly in `scope` declare `name`.
fn declared_in<'tree>(
    scope: Node<'tree>,
    name: &str,
    text: &str,
    steps: &mut usize,
) -> Declared<'tree> {
    let mut cursor = scope.walk();
    for statement in scope.named_children(&mut cursor) {
        *steps += 1;
        let statement = match statement.kind() {
            "export_statement" => match statement.child_by_field_name("declaration") {
                Some(declaration) => declaration,
                None => continue,
            },
            _ => statement,
        };
        let found = match statement.kind() {
            "lexical_declaration" | "variable_declaration" => {
                declarators(statement, name, text, steps)
            }
            "function_declaration"
            | "generator_function_declaration"
            | "class_declaration"
            | "abstract_class_declaration"
            | "enum_declaration"
            | "module"
            | "internal_module" => match statement.child_by_field_name("name") {
                Some(declared) if source(declared, text) == name => Declared::Other,
                _ => Declared::Nothing,
            },
            // Imports and ambient declarations (`declare const X`) are values
            // from elsewhere: any mention of the name hides outer ones.
            "import_statement" | "ambient_declaration" | "import_alias" => {
                if binds(statement, name, text, steps) {
                    Declared::Other
                } else {
                    Declared::Nothing
                }
            }
            _ => Declared::Nothing,
        };
        if !matches!(found, Declared::Nothing) {
            return found;
        }
    }
    Declared::Nothing
}

/// `name` among the declarators of a `const`, `let` or `var` statement.
fn declarators<'tree>(
    statement: Node<'tree>,
    name: &str,
    text: &str,
    steps: &mut usize,
) -> Declared<'tree> {
    let is_const = statement
        .child_by_field_name("kind")
        .is_some_and(|kind| kind.kind() == "const");
    let mut cursor = statement.walk();
    for declarator in statement.named_children(&mut cursor) {
        if declarator.kind() != "variable_declarator" {
            continue;
        }
        let Some(declared) = declarator.child_by_field_name("name") else {
            continue;
        };
        if declared.kind() != "identifier" {
            // A destructuring pattern: its names are not evaluated.
            if binds(declared, name, text, steps) {
                return Declared::Other;
            }
            continue;
        }
        if source(declared, text) != name {
            continue;
        }
        return match (is_const, declarator.child_by_field_name("value")) {
            (true, Some(value)) => Declared::Const { declarator, value },
            _ => Declared::Other,
        };
    }
    Declared::Nothing
}

/// Whether an identifier spelled `name` occurs anywhere in `node`: for
/// patterns, parameter lists and imports, where it may be a binding. Seeing
/// a binding where there is none only leaves a name unresolved.
fn binds(node: Node, name: &str, text: &str, steps: &mut usize) -> bool {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        *steps += 1;
        if matches!(
            node.kind(),
            "identifier" | "shorthand_property_identifier_pattern"
        ) && source(node, text) == name
        {
            return true;
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    false
}

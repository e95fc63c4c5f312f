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

/// Methods that change the array, map or set they are called on.
const MUTATING_METHODS: [&str; 12] = [
    "push",
    "pop",
    "shift",
    "unshift",
    "splice",
    "sort",
    "reverse",
    "fill",
    "copyWithin",
    "set",
    "add",
    "clear",
];

/// Functions that change the object given first.
const MUTATING_FUNCTIONS: [&str; 7] = [
    "Object.assign",
    "Object.defineProperty",
    "Object.defineProperties",
    "Object.setPrototypeOf",
    "Reflect.set",
    "Reflect.defineProperty",
    "Reflect.deleteProperty",
];

/// Names whose value some code in the file may change after it is declared:
/// the root of an assigned member (`MODES[0] = ...`, `SCHEMA.a.b++`,
/// `delete SCHEMA.x`), of a mutating method call (`MODES.push(...)`) or the
/// first argument of `Object.assign` and its kind. A `const` of such a name
/// may not hold at runtime the value it was declared with. Names are
/// compared without scopes: a mutation anywhere refuses every `const` of
/// that name, which can only leave a value unresolved.
pub(super) fn mutated_names(root: Node, text: &str) -> std::collections::HashSet<String> {
    let mut names = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let target = match node.kind() {
            "assignment_expression" | "augmented_assignment_expression" => {
                node.child_by_field_name("left")
            }
            "update_expression" => node.child_by_field_name("argument"),
            "unary_expression" => node
                .child_by_field_name("operator")
                .filter(|operator| operator.kind() == "delete")
                .and_then(|_| node.child_by_field_name("argument")),
            "call_expression" => mutated_by_call(node, text),
            _ => None,
        };
        if let Some(target) = target {
            let changes_its_root =
                matches!(target.kind(), "member_expression" | "subscript_expression")
                    || (node.kind() == "call_expression" && target.kind() == "identifier");
            if changes_its_root && let Some(name) = root_name(target, text) {
                names.insert(name.to_string());
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
    }
    names
}

/// What a call changes: the object of `x.push(...)`, or the first argument
/// of `Object.assign(x, ...)`.
fn mutated_by_call<'tree>(call: Node<'tree>, text: &str) -> Option<Node<'tree>> {
    let function = call.child_by_field_name("function")?;
    if MUTATING_FUNCTIONS.contains(&source(function, text)) {
        let arguments = call.child_by_field_name("arguments")?;
        return arguments.named_child(0);
    }
    if function.kind() != "member_expression" {
        return None;
    }
    let property = function.child_by_field_name("property")?;
    if MUTATING_METHODS.contains(&source(property, text)) {
        return function.child_by_field_name("object");
    }
    None
}

/// The identifier a member chain starts from: `A` of `A.b[0].c`.
fn root_name<'t>(node: Node, text: &'t str) -> Option<&'t str> {
    let mut node = node;
    for _ in 0..256 {
        match node.kind() {
            "identifier" => return Some(source(node, text)),
            "member_expression" | "subscript_expression" => {
                node = node.child_by_field_name("object")?;
            }
            "parenthesized_expression" | "non_null_expression" | "as_expression" => {
                node = node.named_child(0)?;
            }
            _ => return None,
        }
    }
    None
}

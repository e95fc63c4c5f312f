//! The value of a tool class's `parameters` expression, as JavaScript would
//! compute it, without running any code.
//!
//! Literals (see [`super::literals`]), arrays and objects are evaluated,
//! and so are: names of `const`s in the same file (see [`super::scope`]),
//! spreads (`{...base, x: 1}`, `[...modes, 'b']`), computed keys, member
//! access on evaluated objects (`SCHEMAS.search`, `MODES[0]`), `!`, `-`
//! and `+` on evaluated values, `+` on strings and numbers, and templates
//! whose substitutions are strings, numbers, booleans or `null`. Objects
//! follow JavaScript's key order: a later key replaces the value of an
//! earlier one in its place, and integer keys come first, ascending.
//!
//! A `const` that code in the file may change (`MODES.push(...)`,
//! `SCHEMA.x = ...`, `Object.assign(SCHEMA, ...)`) is not evaluated.
//! Anything else (a call, an import, `undefined`, a `let`) is left out of
//! the value and listed, with its span, for `typescript-unsupported-expression`.
//! Evaluation is bounded: references nest at most [`MAX_DEPTH`] deep and
//! one class costs at most [`MAX_STEPS`] nodes, so a reference cycle, a
//! deep chain or spreads that double at every step end in a report, never a
//! hang or a stack overflow.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tree_sitter::Node;

use super::literals::{js_number, js_number_string, number_value, string_value, unwrap};
use super::scope::{Binding, mutated_names, resolve};
use super::{Unsupported, source};

/// How deep values and references may nest before the rest is reported.
pub(super) const MAX_DEPTH: usize = 64;

/// How many syntax nodes one evaluation may look at.
pub(super) const MAX_STEPS: usize = 200_000;

/// Evaluates expressions of one file, collecting what it cannot evaluate.
pub(super) struct Evaluator<'t> {
    text: &'t str,
    unsupported: Vec<Unsupported>,
    steps: usize,
    /// Whether the step budget ran out (reported once).
    exhausted: bool,
    /// Declarators being evaluated, by start byte: a guard against cycles.
    resolving: Vec<usize>,
    /// Names that code in the file may change, found on first use.
    mutated: Option<HashSet<String>>,
}

impl<'t> Evaluator<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Evaluator {
            text,
            unsupported: Vec::new(),
            steps: 0,
            exhausted: false,
            resolving: Vec::new(),
            mutated: None,
        }
    }

    /// What could not be evaluated, each expression once, in the order met.
    pub(super) fn into_unsupported(self) -> Vec<Unsupported> {
        let mut seen = HashSet::new();
        self.unsupported
            .into_iter()
            .filter(|u| seen.insert((u.span.start, u.span.end)))
            .collect()
    }

    fn report(&mut self, node: Node) -> Option<Value> {
        self.unsupported.push(Unsupported {
            span: node.byte_range(),
            text: source(node, self.text).to_string(),
        });
        None
    }

    /// The value of `node`, or `None` (and a report) when it has none that
    /// toolc can tell.
    pub(super) fn evaluate(&mut self, node: Node, depth: usize) -> Option<Value> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            // Past the budget only the first expression is reported.
            if self.exhausted {
                return None;
            }
            self.exhausted = true;
            return self.report(node);
        }
        if depth > MAX_DEPTH {
            return self.report(node);
        }
        let node = unwrap(node);
        match node.kind() {
            "string" => match string_value(node, self.text) {
                Some(s) => Some(Value::String(s)),
                None => self.report(node),
            },
            "template_string" => self.template(node, depth),
            "number" => number_value(node, self.text).or_else(|| self.report(node)),
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            "null" => Some(Value::Null),
            "unary_expression" => self.unary(node, depth),
            "binary_expression" => self.binary(node, depth),
            "identifier" => self.identifier(node, depth),
            "member_expression" => self.member(node, depth),
            "subscript_expression" => self.subscript(node, depth),
            "array" => self.array(node, depth),
            "object" => self.object(node, depth),
            _ => self.report(node),
        }
    }

    fn identifier(&mut self, node: Node, depth: usize) -> Option<Value> {
        let mutated = self.mutated.get_or_insert_with(|| {
            let mut root = node;
            while let Some(parent) = root.parent() {
                root = parent;
            }
            mutated_names(root, self.text)
        });
        if mutated.contains(source(node, self.text)) {
            return self.report(node);
        }
        match resolve(node, self.text, &mut self.steps) {
            Binding::Const { declarator, value } => {
                let start = declarator.start_byte();
                if self.resolving.contains(&start) {
                    return self.report(node);
                }
                self.resolving.push(start);
                let result = self.evaluate(value, depth + 1);
                self.resolving.pop();
                result
            }
            Binding::BeforeDeclaration | Binding::Unknown => self.report(node),
        }
    }

    /// `!x`, `-x`, `+x` on a number, boolean or `null` (`!` on anything).
    fn unary(&mut self, node: Node, depth: usize) -> Option<Value> {
        let operator = node.child_by_field_name("operator")?;
        let argument = node.child_by_field_name("argument")?;
        let operator = source(operator, self.text);
        if !matches!(operator, "!" | "-" | "+") {
            return self.report(node);
        }
        if matches!(operator, "-" | "+")
            && let Some(number) = number_value(unwrap(argument), self.text)
        {
            // A literal directly: exact for large integers too.
            return if operator == "-" {
                negate(&number).or_else(|| self.report(node))
            } else {
                Some(number)
            };
        }
        let value = self.evaluate(argument, depth + 1)?;
        if operator == "!" {
            return Some(Value::Bool(!truthy(&value)));
        }
        let number = match &value {
            Value::Number(_) => value.clone(),
            Value::Bool(b) => Value::from(i64::from(*b)),
            Value::Null => Value::from(0),
            _ => return self.report(node),
        };
        if operator == "-" {
            negate(&number).or_else(|| self.report(node))
        } else {
            Some(number)
        }
    }

    /// `a + b` on strings and numbers.
    fn binary(&mut self, node: Node, depth: usize) -> Option<Value> {
        let (Some(left), Some(operator), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("operator"),
            node.child_by_field_name("right"),
        ) else {
            return self.report(node);
        };
        if source(operator, self.text) != "+" {
            return self.report(node);
        }
        let left = self.evaluate(left, depth + 1);
        let right = self.evaluate(right, depth + 1);
        match (left?, right?) {
            (Value::Number(a), Value::Number(b)) => {
                js_number(a.as_f64()? + b.as_f64()?).or_else(|| self.report(node))
            }
            (
                a @ (Value::String(_) | Value::Number(_)),
                b @ (Value::String(_) | Value::Number(_)),
            ) => Some(Value::String(format!(
                "{}{}",
                to_js_string(&a)?,
                to_js_string(&b)?
            ))),
            _ => self.report(node),
        }
    }

    /// A template: its text, with each substitution's string form.
    fn template(&mut self, node: Node, depth: usize) -> Option<Value> {
        if let Some(s) = string_value(node, self.text) {
            return Some(Value::String(s));
        }
        // Rebuild the literal with each substitution replaced by its value,
        // escaped back so that the template's escapes are read once.
        let mut written = String::new();
        let mut at = node.start_byte();
        let mut cursor = node.walk();
        let substitutions: Vec<Node> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "template_substitution")
            .collect();
        for substitution in substitutions {
            written.push_str(self.text.get(at..substitution.start_byte())?);
            let inner = substitution.named_child(0)?;
            let value = self.evaluate(inner, depth + 1)?;
            let shown = match &value {
                Value::Null => "null".to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Number(_) | Value::String(_) => to_js_string(&value)?,
                _ => return self.report(inner),
            };
            for c in shown.chars() {
                if matches!(c, '\\' | '`' | '$') {
                    written.push('\\');
                }
                written.push(c);
            }
            at = substitution.end_byte();
        }
        written.push_str(self.text.get(at..node.end_byte())?);
        let inner = written.get(1..written.len().checked_sub(1)?)?;
        Some(Value::String(super::literals::unescape(inner)))
    }

    /// `object.key` on an evaluated object.
    fn member(&mut self, node: Node, depth: usize) -> Option<Value> {
        let (Some(object), Some(property)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("property"),
        ) else {
            return self.report(node);
        };
        if property.kind() != "property_identifier" {
            return self.report(node);
        }
        let key = source(property, self.text).to_string();
        let object = self.evaluate(object, depth + 1)?;
        match object {
            Value::Object(mut map) => match map.shift_remove(&key) {
                Some(value) => Some(value),
                None => self.report(node),
            },
            _ => self.report(node),
        }
    }

    /// `object['key']`, `array[0]` on evaluated values.
    fn subscript(&mut self, node: Node, depth: usize) -> Option<Value> {
        let (Some(object), Some(index)) = (
            node.child_by_field_name("object"),
            node.child_by_field_name("index"),
        ) else {
            return self.report(node);
        };
        let object = self.evaluate(object, depth + 1)?;
        let key = self.key_of(index, depth)?;
        let found = match object {
            Value::Object(mut map) => map.shift_remove(&key),
            Value::Array(mut items) => key
                .parse::<usize>()
                .ok()
                .filter(|i| *i < items.len() && i.to_string() == key)
                .map(|i| items.swap_remove(i)),
            _ => None,
        };
        found.or_else(|| self.report(node))
    }

    /// The property key an evaluated expression names: a string, or a
    /// number in JavaScript's string form.
    fn key_of(&mut self, node: Node, depth: usize) -> Option<String> {
        match self.evaluate(node, depth + 1)? {
            Value::String(s) => Some(s),
            number @ Value::Number(_) => to_js_string(&number),
            _ => {
                self.report(node);
                None
            }
        }
    }

    fn array(&mut self, node: Node, depth: usize) -> Option<Value> {
        let mut items = Vec::new();
        // A comma right after `[` or another comma is a hole: `null` in JSON.
        let mut after_element = false;
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for child in children {
            match child.kind() {
                "[" | "]" | "comment" => {}
                "," => {
                    if !after_element {
                        items.push(Value::Null);
                    }
                    after_element = false;
                }
                "spread_element" => {
                    after_element = true;
                    let Some(inner) = child.named_child(0) else {
                        self.report(child);
                        continue;
                    };
                    match self.evaluate(inner, depth + 1) {
                        Some(Value::Array(spread)) => items.extend(spread),
                        Some(Value::String(s)) => {
                            items.extend(s.chars().map(|c| Value::String(c.to_string())))
                        }
                        Some(_) => {
                            self.report(child);
                        }
                        None => {}
                    }
                }
                _ => {
                    after_element = true;
                    if let Some(item) = self.evaluate(child, depth + 1) {
                        items.push(item);
                    }
                }
            }
        }
        Some(Value::Array(items))
    }

    fn object(&mut self, node: Node, depth: usize) -> Option<Value> {
        let mut object = Map::new();
        let mut cursor = node.walk();
        let members: Vec<Node> = node.named_children(&mut cursor).collect();
        for member in members {
            match member.kind() {
                "comment" => {}
                "pair" => self.pair(member, &mut object, depth),
                "shorthand_property_identifier" => {
                    let key = source(member, self.text).to_string();
                    match self.identifier(member, depth + 1) {
                        Some(value) => object.insert(key, value),
                        None => object.shift_remove(&key),
                    };
                }
                "spread_element" => self.spread_into(member, &mut object, depth),
                _ => {
                    self.report(member);
                }
            }
        }
        Some(Value::Object(in_js_key_order(object)))
    }

    fn pair(&mut self, pair: Node, object: &mut Map<String, Value>, depth: usize) {
        let (Some(key), Some(value)) = (
            pair.child_by_field_name("key"),
            pair.child_by_field_name("value"),
        ) else {
            self.report(pair);
            return;
        };
        let key_kind = key.kind();
        let key = match key_kind {
            "property_identifier" => Some(source(key, self.text).to_string()),
            "string" => string_value(key, self.text).or_else(|| {
                self.report(key);
                None
            }),
            "number" => match number_value(key, self.text) {
                Some(number) => to_js_string(&number),
                None => {
                    self.report(key);
                    None
                }
            },
            "computed_property_name" => match key.named_child(0) {
                Some(inner) => self.key_of(inner, depth),
                None => {
                    self.report(key);
                    None
                }
            },
            _ => {
                self.report(key);
                None
            }
        };
        let Some(key) = key else {
            return;
        };
        if key == "__proto__" && key_kind != "computed_property_name" {
            // Sets the prototype instead of adding a key.
            self.report(pair);
            return;
        }
        // A value that cannot be told also removes an earlier one: the key
        // would hold this value, not that one.
        match self.evaluate(value, depth + 1) {
            Some(value) => object.insert(key, value),
            None => object.shift_remove(&key),
        };
    }

    /// `...value` in an object literal: the value's own keys, in order.
    fn spread_into(&mut self, spread: Node, object: &mut Map<String, Value>, depth: usize) {
        let Some(inner) = spread.named_child(0) else {
            self.report(spread);
            return;
        };
        match self.evaluate(inner, depth + 1) {
            Some(Value::Object(spread)) => {
                for (key, value) in spread {
                    object.insert(key, value);
                }
            }
            Some(Value::Array(items)) => {
                for (i, value) in items.into_iter().enumerate() {
                    object.insert(i.to_string(), value);
                }
            }
            // Spreading `null`, a boolean or a number adds nothing.
            Some(Value::Null | Value::Bool(_) | Value::Number(_)) => {}
            Some(Value::String(_)) => {
                self.report(spread);
            }
            None => {}
        }
    }
}

/// JavaScript's truthiness of a value.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn negate(number: &Value) -> Option<Value> {
    match number.as_i64() {
        Some(i) => i.checked_neg().map(Value::from),
        None => js_number(-number.as_f64()?),
    }
}

/// `String(value)` for a string or a number.
fn to_js_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Some(i.to_string()),
            None => n.as_f64().map(js_number_string),
        },
        _ => None,
    }
}

/// An array index as JavaScript orders keys: a canonical integer below
/// 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    let index: u32 = key.parse().ok()?;
    (index != u32::MAX && index.to_string() == key).then_some(index)
}

/// The object with its keys in JavaScript's order: array indices first,
/// ascending, then the others in the order they were added.
fn in_js_key_order(object: Map<String, Value>) -> Map<String, Value> {
    if !object.keys().any(|key| array_index(key).is_some()) {
        return object;
    }
    let (mut indices, others): (Vec<_>, Vec<_>) = object
        .into_iter()
        .partition(|(key, _)| array_index(key).is_some());
    indices.sort_by_key(|(key, _)| array_index(key));
    indices.into_iter().chain(others).collect()
}

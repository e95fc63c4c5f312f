"""Validates a document toolc wrote with the providers' own SDKs.

Usage: validate.py TARGET SCHEMAS_DIR < documents
TARGET is openai, openai-strict, anthropic, mcp or gemini; standard input
is a JSON array of {"label": ..., "document": ...}. Prints one line per
tool, "ok LABEL NAME" or "bad LABEL NAME: why" (a document that is not the
target's shape at all is one "bad LABEL *" line), and nothing else; exits
0 either way: the Rust test counts and asserts.
"""

import copy
import json
import sys

import jsonschema
from pydantic import TypeAdapter

target, schemas_dir = sys.argv[1], sys.argv[2]
batch = json.load(sys.stdin)
label = ""
document = None
meta_2020_12 = jsonschema.Draft202012Validator
# The documented refusals: `input_schema does not support oneOf, allOf, or
# anyOf at the top level`.
ROOT_COMBINATORS = ("oneOf", "anyOf", "allOf")


def report(name, problems):
    if problems:
        print(f"bad {label} {name}: " + "; ".join(problems))
    else:
        print(f"ok {label} {name}")


def differences(before, after, at=""):
    """Where `after` differs from `before`, as JSON Pointers with both values."""
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            if key not in after:
                found.append(f"{at}/{key} removed")
            elif key not in before:
                found.append(f"{at}/{key} added as {json.dumps(after[key])[:80]}")
            else:
                found += differences(before[key], after[key], f"{at}/{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        found = []
        for index, (b, a) in enumerate(zip(before, after)):
            found += differences(b, a, f"{at}/{index}")
        return found
    if before != after:
        return [f"{at}: {json.dumps(before)[:80]} became {json.dumps(after)[:80]}"]
    return []


def schema_problems(schema, *, combinators_allowed):
    """What a provider that takes a JSON Schema 2020-12 object refuses."""
    problems = []
    if not isinstance(schema, dict):
        return ["parameters are not an object"]
    try:
        meta_2020_12.check_schema(schema)
    except jsonschema.SchemaError as error:
        problems.append(f"not a valid 2020-12 schema: {error.message}")
    if schema.get("type") != "object":
        problems.append(f"root type is {schema.get('type')!r}, not 'object'")
    if not combinators_allowed:
        for keyword in ROOT_COMBINATORS:
            if keyword in schema:
                problems.append(f"root {keyword}")
    dialect = schema.get("$schema")
    if dialect is not None and "2020-12" not in dialect:
        problems.append(f"$schema {dialect} is not 2020-12")
    return problems


def openai(strict):
    from agents.strict_schema import ensure_strict_json_schema
    from openai.types.chat import ChatCompletionFunctionToolParam

    adapter = TypeAdapter(ChatCompletionFunctionToolParam)
    for tool in document:
        name = tool.get("function", {}).get("name", "?")
        problems = []
        try:
            adapter.validate_python(tool, strict=True)
        except Exception as error:  # pydantic's ValidationError, any shape
            problems.append(f"SDK: {error}")
        function = tool.get("function", {})
        parameters = function.get("parameters", {"type": "object", "properties": {}})
        problems += schema_problems(parameters, combinators_allowed=False)
        if strict:
            if function.get("strict") is not True:
                problems.append('"strict" is not true')
            try:
                normalised = ensure_strict_json_schema(copy.deepcopy(parameters))
                if normalised != parameters:
                    problems.append(
                        "not a fixed point of ensure_strict_json_schema: "
                        + ", ".join(differences(parameters, normalised))
                    )
            except Exception as error:
                problems.append(f"ensure_strict_json_schema refuses: {error}")
        report(name, problems)


def anthropic():
    from anthropic.types import ToolParam

    adapter = TypeAdapter(ToolParam)
    for tool in document:
        problems = []
        try:
            adapter.validate_python(tool, strict=True)
        except Exception as error:
            problems.append(f"SDK: {error}")
        problems += schema_problems(tool.get("input_schema"), combinators_allowed=False)
        report(tool.get("name", "?"), problems)


def mcp():
    from mcp.types import ListToolsResult, Tool

    problems_of_all = []
    try:
        ListToolsResult.model_validate(document, strict=True)
    except Exception as error:
        problems_of_all.append(f"ListToolsResult: {error}")
    for revision, validator in mcp_schema_validators().items():
        for error in validator.iter_errors(document):
            problems_of_all.append(f"MCP {revision} at {list(error.absolute_path)}: {error.message[:200]}")
    for tool in document.get("tools", []):
        problems = list(problems_of_all)
        try:
            Tool.model_validate(tool, strict=True)
        except Exception as error:
            problems.append(f"Tool: {error}")
        for key in ("inputSchema", "outputSchema"):
            if key in tool:
                try:
                    jsonschema.validators.validator_for(tool[key], default=meta_2020_12).check_schema(tool[key])
                except jsonschema.SchemaError as error:
                    problems.append(f"{key} is not a valid schema: {error.message}")
        report(tool.get("name", "?"), problems)


def mcp_schema_validators():
    """A validator of ListToolsResult per MCP revision, built once."""
    global mcp_validators
    if mcp_validators is not None:
        return mcp_validators
    validators = {}
    for revision in ("2025-06-18", "2025-11-25", "2026-07-28"):
        with open(f"{schemas_dir}/mcp-{revision}.schema.json") as file:
            schema = json.load(file)
        defs = "$defs" if "$defs" in schema else "definitions"
        wrapper = dict(schema)
        wrapper["$ref"] = f"#/{defs}/ListToolsResult"
        cls = jsonschema.validators.validator_for(schema)
        validators[revision] = cls(wrapper)
    mcp_validators = validators
    return validators


def gemini():
    from google.genai.types import FunctionDeclaration, Tool

    declarations = document.get("functionDeclarations")
    try:
        Tool.model_validate({"function_declarations": declarations})
    except Exception as error:
        report("*", [f"Tool: {error}"])
    for declaration in declarations:
        problems = []
        try:
            FunctionDeclaration.model_validate(declaration)
        except Exception as error:
            problems.append(f"SDK: {error}")
        report(declaration.get("name", "?"), problems)


shapes = {"openai": list, "openai-strict": list, "anthropic": list, "mcp": dict, "gemini": dict}
checks = {
    "openai": lambda: openai(False),
    "openai-strict": lambda: openai(True),
    "anthropic": anthropic,
    "mcp": mcp,
    "gemini": gemini,
}
mcp_validators = None
for item in batch:
    label, document = item["label"], item["document"]
    if not isinstance(document, shapes[target]):
        report("*", [f"the document is not a {shapes[target].__name__}"])
        continue
    checks[target]()

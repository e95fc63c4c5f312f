"""pydantic's parameter schema of AgentStack tool functions: the reference
that toolc's schemas read from Python are compared with.

Usage: python python_schemas_reference.py PACKAGE_DIR FUNCTION...

Imports PACKAGE_DIR/__init__.py and prints one JSON object: for each
function, "parameters" is pydantic's JSON Schema of a model with one field
per parameter, `create_model(name, param=(hint, default or ...))`, the model
LangChain's `create_schema_from_function` builds from a signature (CrewAI and
AgentStack go through it too); "summary" is the docstring's text before its
first Google-style section header (`Args:`), where LangChain's docstring
reading ends the description too, its lines as `inspect.getdoc` leaves them
(not reflowed: LangChain keeps a paragraph's line breaks as well), without
the blank lines around it.

Modules the package imports that the venv does not have (a package's SDK)
are stood in for by empty modules whose attributes are `object`, so that
importing succeeds; parameters hinted with such names are then `Any`-like
to pydantic, and toolc warns about them instead.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import json
import sys
import types
import typing

from pydantic import ConfigDict, create_model


class _StandIn:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return _StandIn()

    def __call__(self, *args, **kwargs):
        return _StandIn()


class _Stand(types.ModuleType):
    __path__: list = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (_StandIn,), {})


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if importlib.machinery.PathFinder.find_spec(fullname, path) is not None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return _Stand(spec.name)

    def exec_module(self, module):
        pass


def load(directory):
    sys.meta_path.append(_StandIns())
    spec = importlib.util.spec_from_file_location(
        "toolc_package", f"{directory}/__init__.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["toolc_package"] = module
    spec.loader.exec_module(module)
    return module


def parameters(function):
    hints = typing.get_type_hints(function, include_extras=True)
    fields = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name in ("self", "cls"):
            continue
        hint = hints.get(name, typing.Any)
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[name] = (hint, default)
    model = create_model(
        function.__name__,
        __config__=ConfigDict(arbitrary_types_allowed=True),
        **fields,
    )
    return model.model_json_schema()


def summary(function):
    doc = inspect.getdoc(function)
    if not doc:
        return None
    lines = []
    for line in doc.split("\n"):
        if line.strip() in SECTIONS:
            break
        lines.append(line)
    return "\n".join(lines).strip("\n") or None


SECTIONS = {"Args:", "Arguments:", "Parameters:", "Returns:", "Raises:", "Yields:", "Examples:", "Example:", "Note:", "Notes:"}


def main():
    module = load(sys.argv[1])
    out = {}
    for name in sys.argv[2:]:
        function = getattr(module, name, None)
        if function is None:
            continue
        try:
            out[name] = {"parameters": parameters(function), "summary": summary(function)}
        except Exception as error:  # noqa: BLE001 - reported, not hidden
            out[name] = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out, sort_keys=True))


main()

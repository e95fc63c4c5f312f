"""toolc's Python bootstrap: runs one tool call and reports it as JSON.

toolc starts `python3 -I -c <this file>` for a call to a Python tool
(NORA entrypoint scripts, AgentStack package functions) when it runs
cold (`--cold`), writes one JSON request on stdin and reads one JSON
response from stdout:

    request:  {"kind": "script", "file": "/abs/main.py", "function": "run",
               "arguments": {...}}
              {"kind": "package", "file": "/abs/pkg/__init__.py",
               "package": "pkg", "function": "search", "arguments": {...}}
    response: {"ok": true, "output": <the return value>}
              {"ok": false, "type": "ValueError", "message": "..."}
              {"ok": false, "type": "toolc.InvalidOutput", "message": "..."}

A script's function gets the arguments as one dict; a package function
gets them as keyword arguments. Whatever the tool prints goes to stderr,
so it cannot corrupt the response, and an exception becomes a response,
never a traceback on the caller's terminal.

The fork server (forkserver.py) runs this file's definitions under
another module name, so `main` does not run there: it imports the tool
once with `load` and answers each call in a forked child with `answer`.
"""

import importlib.util
import json
import os
import sys


def load(request):
    """Imports the tool's script or package (the request's `file`)."""
    path = request["file"]
    directory = os.path.dirname(path)
    if request["kind"] == "package":
        # A private module name: a package named after the library it
        # wraps (a "yaml" tool importing yaml) must still find the library.
        name = "_toolc_package_" + (request["package"] or "tool")
        spec = importlib.util.spec_from_file_location(
            name, path, submodule_search_locations=[directory]
        )
    else:
        name = "__toolc_tool__"
        sys.path.insert(0, directory)
        spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def call(module, request):
    """Calls the request's function of an imported tool."""
    name = request["function"]
    function = getattr(module, name, None)
    if not callable(function):
        raise AttributeError(f"{request['file']} defines no function {name}()")
    arguments = request["arguments"]
    if request["kind"] == "package":
        return function(**arguments)
    return function(arguments)


def answer(response_stream, run):
    """Runs `run()` with the tool's prints sent to stderr and writes the
    response for its return value or exception on `response_stream`."""
    # The tool's own prints go to stderr: the response stream carries the
    # response only.
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        output = run()
    except BaseException as error:  # noqa: BLE001 - every failure is reported
        response = {
            "ok": False,
            "type": type(error).__qualname__,
            "message": str(error),
        }
    else:
        try:
            json.dumps(output, allow_nan=False, ensure_ascii=False)
            response = {"ok": True, "output": output}
        except (TypeError, ValueError) as error:
            response = {
                "ok": False,
                "type": "toolc.InvalidOutput",
                "message": f"the tool returned a {type(output).__name__}, "
                f"which is not JSON: {error}",
            }
    response_stream.write(json.dumps(response, allow_nan=False, ensure_ascii=False))
    response_stream.write("\n")
    response_stream.flush()
    sys.stderr.flush()
    # The answer is given: threads the tool left running must not hold
    # the call open until its time limit.
    os._exit(0)


def main():
    response_stream = os.fdopen(os.dup(1), "w", encoding="utf-8")

    def run():
        request = json.loads(sys.stdin.read())
        return call(load(request), request)

    answer(response_stream, run)


if __name__ == "__main__":
    main()

"""Drives `toolc server` with a real LSP client (pygls's LanguageClient).

Usage: lsp_client.py TOOLC WORKSPACE SCENARIO

Each scenario builds its files under WORKSPACE (an empty directory the
test made), talks to the server as an editor would, asserts what it gets
and prints one line per check. Any failed assertion ends it with a
traceback and a non-zero exit.
"""

import asyncio
import json
import os
import sys
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

TOOLC, WORKSPACE, SCENARIO = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
TIMEOUT = 30


def uri(path: Path) -> str:
    return path.resolve().as_uri()


def write(relative: str, text: str) -> Path:
    path = WORKSPACE / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def units(text: str, encoding: str) -> int:
    """Length of `text` in the agreed units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


def position_of(text: str, index: int, encoding: str) -> t.Position:
    """The LSP position of Python string index `index` (independent of
    toolc's own conversion)."""
    before = text[:index]
    line = before.count("\n")
    start = before.rfind("\n") + 1
    return t.Position(line=line, character=units(text[start:index], encoding))


def index_of(text: str, position: t.Position, encoding: str) -> int:
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    count = 0
    for i, ch in enumerate(line):
        if count >= position.character:
            return start + i
        count += units(ch, encoding)
    return start + len(line)


def text_at(text: str, rng: t.Range, encoding: str) -> str:
    return text[index_of(text, rng.start, encoding) : index_of(text, rng.end, encoding)]


def apply_edits(text: str, edits, encoding: str) -> str:
    spans = [
        (index_of(text, e.range.start, encoding), index_of(text, e.range.end, encoding), e.new_text)
        for e in edits
    ]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


class Editor:
    """A client with the capabilities an editor declares."""

    def __init__(self, pull: bool, encodings=None, resolve=True, create_files=True):
        self.client = LanguageClient("toolc-test", "v1")
        self.pull = pull
        self.encodings = encodings
        self.resolve = resolve
        self.create_files = create_files
        self.pushed = {}
        self.refreshes = 0
        self.registrations = []
        self.versions = {}
        self.texts = {}
        self.encoding = "utf-16"

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: t.PublishDiagnosticsParams):
            self.pushed[params.uri] = (params.version, params.diagnostics)

        @self.client.feature(t.WORKSPACE_DIAGNOSTIC_REFRESH)
        def refresh(params):
            self.refreshes += 1
            return None

        @self.client.feature(t.CLIENT_REGISTER_CAPABILITY)
        def register(params: t.RegistrationParams):
            self.registrations.extend(params.registrations)
            return None

    async def start(self, options=None):
        await self.client.start_io(TOOLC, "server")
        capabilities = t.ClientCapabilities(
            general=t.GeneralClientCapabilities(position_encodings=self.encodings)
            if self.encodings
            else None,
            text_document=t.TextDocumentClientCapabilities(
                diagnostic=t.DiagnosticClientCapabilities() if self.pull else None,
                publish_diagnostics=t.PublishDiagnosticsClientCapabilities(
                    related_information=True
                ),
                code_action=t.CodeActionClientCapabilities(
                    code_action_literal_support=t.ClientCodeActionLiteralOptions(
                        code_action_kind=t.ClientCodeActionKindOptions(
                            value_set=["quickfix", "source", "source.fixAll"]
                        )
                    ),
                    resolve_support=t.ClientCodeActionResolveOptions(properties=["edit"])
                    if self.resolve
                    else None,
                    data_support=True,
                ),
            ),
            workspace=t.WorkspaceClientCapabilities(
                diagnostics=t.DiagnosticWorkspaceClientCapabilities(refresh_support=True),
                did_change_watched_files=t.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=True
                ),
                workspace_edit=t.WorkspaceEditClientCapabilities(
                    document_changes=self.create_files,
                    resource_operations=[t.ResourceOperationKind.Create]
                    if self.create_files
                    else None,
                ),
            ),
        )
        result = await asyncio.wait_for(
            self.client.initialize_async(
                t.InitializeParams(
                    capabilities=capabilities,
                    root_uri=uri(WORKSPACE),
                    workspace_folders=[t.WorkspaceFolder(uri=uri(WORKSPACE), name="ws")],
                    initialization_options=options,
                )
            ),
            TIMEOUT,
        )
        self.client.initialized(t.InitializedParams())
        self.encoding = str(result.capabilities.position_encoding or "utf-16")
        return result

    def open(self, path: Path, text=None):
        text = path.read_text(encoding="utf-8") if text is None else text
        self.texts[uri(path)] = text
        self.versions[uri(path)] = 1
        language = {".py": "python", ".ts": "typescript"}.get(path.suffix, "json")
        self.client.text_document_did_open(
            t.DidOpenTextDocumentParams(
                text_document=t.TextDocumentItem(
                    uri=uri(path), language_id=language, version=1, text=text
                )
            )
        )

    def change(self, path: Path, text: str):
        """Replaces the whole text (a change without a range)."""
        self.versions[uri(path)] += 1
        self.texts[uri(path)] = text
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(
                    uri=uri(path), version=self.versions[uri(path)]
                ),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )

    def edit(self, path: Path, old: str, new: str):
        """Replaces the first `old` by `new` with a ranged change."""
        text = self.texts[uri(path)]
        at = text.index(old)
        rng = t.Range(
            start=position_of(text, at, self.encoding),
            end=position_of(text, at + len(old), self.encoding),
        )
        self.versions[uri(path)] += 1
        self.texts[uri(path)] = text[:at] + new + text[at + len(old) :]
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(
                    uri=uri(path), version=self.versions[uri(path)]
                ),
                content_changes=[t.TextDocumentContentChangePartial(range=rng, text=new)],
            )
        )

    async def diagnostics(self, path: Path):
        if self.pull:
            report = await asyncio.wait_for(
                self.client.text_document_diagnostic_async(
                    t.DocumentDiagnosticParams(text_document=t.TextDocumentIdentifier(uri=uri(path)))
                ),
                TIMEOUT,
            )
            return report.items
        # Push: wait for what the server published for the latest text.
        for _ in range(TIMEOUT * 20):
            version, diagnostics = self.pushed.get(uri(path), (None, None))
            if version == self.versions[uri(path)]:
                return diagnostics
            await asyncio.sleep(0.05)
        raise AssertionError(f"nothing published for version {self.versions[uri(path)]} of {path}")

    async def actions(self, path: Path, rng: t.Range, only=None, diagnostics=()):
        return await asyncio.wait_for(
            self.client.text_document_code_action_async(
                t.CodeActionParams(
                    text_document=t.TextDocumentIdentifier(uri=uri(path)),
                    range=rng,
                    context=t.CodeActionContext(diagnostics=list(diagnostics), only=only),
                )
            ),
            TIMEOUT,
        ) or []

    async def resolved(self, action: t.CodeAction) -> t.CodeAction:
        if action.edit is not None:
            return action
        return await asyncio.wait_for(self.client.code_action_resolve_async(action), TIMEOUT)

    async def stop(self):
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        server = self.client._server
        code = await asyncio.wait_for(server.wait(), TIMEOUT)
        await self.client.stop()
        return code


def ok(name: str):
    print(f"ok {name}", flush=True)


def codes(diagnostics):
    return sorted(str(d.code) for d in diagnostics)


NORA = (
    '{"name": "greet", "entrypoint": "main.py",\n'
    '\t"description": "Greets \U0001f600\u00e9", "parameters": {"type": "object", "properties": '
    '{"who": {"type": "string", "description": "whom"}}}}\n'
)


async def editing(pull: bool):
    """Diagnostics at exact positions, quick fix, fix-all, hover, symbols."""
    tool = write("nora/greet/tool.json", NORA)
    write("nora/greet/main.py", "def run(params):\n    return params['who']\n")
    editor = Editor(pull=pull)
    result = await editor.start()
    assert editor.encoding == "utf-16", result.capabilities
    assert (result.capabilities.diagnostic_provider is not None) == pull
    editor.open(tool)
    found = await editor.diagnostics(tool)
    assert codes(found) == ["TC401"], found
    (missing,) = found
    # The key of the property, after an emoji and a tab on its line.
    assert text_at(NORA, missing.range, editor.encoding) == '"who"', missing.range
    assert missing.severity == t.DiagnosticSeverity.Error
    assert missing.source == "toolc"
    ok(f"diagnostic at its place ({'pull' if pull else 'push'})")

    actions = await editor.actions(tool, missing.range, diagnostics=[missing])
    fixes = [a for a in actions if a.kind == "quickfix" and a.title.startswith("Fix:")]
    assert len(fixes) == 1, actions
    fix = await editor.resolved(fixes[0])
    edits = fix.edit.changes[uri(tool)]
    fixed = apply_edits(NORA, edits, editor.encoding)
    assert '"description": "whom", "required": false}' in fixed, fixed
    editor.change(tool, fixed)
    assert codes(await editor.diagnostics(tool)) == [], fixed
    ok("quick fix applied and re-checked")

    # Back to the broken text, with a ranged change; fix all at once.
    editor.edit(tool, ', "required": false', "")
    assert codes(await editor.diagnostics(tool)) == ["TC401"]
    whole = t.Range(start=t.Position(line=0, character=0), end=t.Position(line=0, character=0))
    actions = await editor.actions(tool, whole, only=["source.fixAll"])
    assert [a.kind for a in actions] == ["source.fixAll.toolc"], actions
    fix_all = await editor.resolved(actions[0])
    fixed = apply_edits(editor.texts[uri(tool)], fix_all.edit.changes[uri(tool)], editor.encoding)
    assert json.loads(fixed)["parameters"]["properties"]["who"]["required"] is False
    editor.change(tool, fixed)
    assert codes(await editor.diagnostics(tool)) == []
    ok("fix-all applied and re-checked")

    text = editor.texts[uri(tool)]
    on_name = position_of(text, text.index('"greet"') + 2, editor.encoding)
    hover = await asyncio.wait_for(
        editor.client.text_document_hover_async(
            t.HoverParams(text_document=t.TextDocumentIdentifier(uri=uri(tool)), position=on_name)
        ),
        TIMEOUT,
    )
    shown = hover.contents.value
    assert "OpenAI" in shown and "MCP" in shown, shown
    assert '"name": "greet"' in shown and '"inputSchema"' in shown, shown
    ok("hover shows what a model sees")

    symbols = await asyncio.wait_for(
        editor.client.text_document_document_symbol_async(
            t.DocumentSymbolParams(text_document=t.TextDocumentIdentifier(uri=uri(tool)))
        ),
        TIMEOUT,
    )
    assert [s.name for s in symbols] == ["greet"], symbols
    assert [c.name for c in symbols[0].children] == ["who"], symbols
    assert text_at(text, symbols[0].selection_range, editor.encoding) == '"greet"'
    assert text_at(text, symbols[0].children[0].selection_range, editor.encoding) == '"who"'
    ok("document symbols")

    # A finding's rule, on hover.
    editor.edit(tool, ', "required": false', "")
    (missing,) = await editor.diagnostics(tool)
    hover = await editor.client.text_document_hover_async(
        t.HoverParams(
            text_document=t.TextDocumentIdentifier(uri=uri(tool)), position=missing.range.start
        )
    )
    assert "TC401 nora-property-missing-required" in hover.contents.value, hover.contents.value
    ok("hover explains a finding's rule")

    if not pull:
        editor.client.text_document_did_close(
            t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri(tool)))
        )
        for _ in range(TIMEOUT * 20):
            if editor.pushed[uri(tool)][1] == []:
                break
            await asyncio.sleep(0.05)
        assert editor.pushed[uri(tool)][1] == [], editor.pushed[uri(tool)]
        ok("closing clears pushed findings")
    assert await editor.stop() == 0
    ok("shutdown and exit")


async def utf8():
    """A client that offers UTF-8 gets positions in bytes."""
    tool = write("nora/greet/tool.json", NORA)
    write("nora/greet/main.py", "def run(params):\n    return 1\n")
    editor = Editor(pull=True, encodings=["utf-8", "utf-16"])
    await editor.start()
    assert editor.encoding == "utf-8"
    editor.open(tool)
    (missing,) = await editor.diagnostics(tool)
    line = NORA.split("\n")[1]
    assert missing.range.start.character == len(line[: line.index('"who"')].encode()), missing
    assert text_at(NORA, missing.range, "utf-8") == '"who"'
    ok("utf-8 positions")
    await editor.stop()


async def packages():
    """Code files: findings in them, definition into them."""
    config = write(
        "tools/search/config.json",
        '{"name": "search", "category": "search", "tools": {"find": {"actions": ["read"]}}}\n',
    )
    code = write(
        "tools/search/__init__.py",
        'def find(query: str) -> str:\n    """Finds.\n\n    Args:\n        query: what\n    """\n    return query\n',
    )
    manifest = write(
        "nachos/fs/manifest.json",
        '{"name": "fs-read", "version": "1.0.0", "type": "tool",\n'
        ' "provides": {"tool": "fs-read", "securityTier": 1},\n'
        ' "capabilities": {"network": {"egress": []}}}\n',
    )
    write(
        "nachos/fs/src/tools.ts",
        "// tools\nexport class ReadTool {\n  readonly toolId = 'fs-read';\n  readonly description = 'Reads';\n"
        "  readonly securityTier = 1;\n  readonly parameters = { type: 'object', properties: {} };\n}\n",
    )
    cli = write(
        "cli/tools.json",
        '{"tools": [{"name": "echo", "description": "Echoes", "command": ["./tools/bin/echo"],'
        ' "schema": {"type": "object", "properties": {}}}]}\n',
    )
    program = write("cli/tools/bin/echo", "#!/bin/sh\ncat\n")
    os.chmod(program, 0o755)
    editor = Editor(pull=True)
    await editor.start()

    async def definition(path: Path, needle: str, offset: int = 1):
        text = editor.texts[uri(path)]
        position = position_of(text, text.index(needle) + offset, editor.encoding)
        found = await editor.client.text_document_definition_async(
            t.DefinitionParams(text_document=t.TextDocumentIdentifier(uri=uri(path)), position=position)
        )
        assert found is not None, needle
        return found[0] if isinstance(found, list) else found

    editor.open(config)
    found = await definition(config, '"find"')
    assert found.uri == uri(code) and found.range.start.line == 0, found
    ok("definition: AgentStack tool to its function")
    editor.open(manifest)
    found = await definition(manifest, '"tool": "fs-read"', 10)
    assert found.uri == uri(WORKSPACE / "nachos/fs/src/tools.ts") and found.range.start.line == 1, found
    ok("definition: Nachos manifest to its class")
    editor.open(cli)
    found = await definition(cli, "./tools/bin/echo", 3)
    assert found.uri == uri(program), found
    ok("definition: agentcli command to its program")

    # The code, edited and unsaved: its finding is in the code file, at
    # the function's line in the buffer.
    editor.open(code)
    buffer = "# \U0001f600\n" + code.read_text().replace("query: str", "query: Widget")
    editor.change(code, buffer)
    found = await editor.diagnostics(code)
    assert codes(found) == ["TC507"], found
    assert found[0].range.start.line == 1, found
    assert text_at(buffer, found[0].range, editor.encoding).startswith("def find(query: Widget)")
    ok("a finding in unsaved code, in the code file")
    # The manifest's definition follows the buffer too.
    found = await definition(config, '"find"')
    assert found.range.start.line == 1, found
    ok("definition into an unsaved buffer")
    await editor.stop()


async def configuration():
    """Settings and toolc.toml changes re-check; ignore-in-toolc.toml."""
    tool = write("nora/greet/tool.json", NORA)
    write("nora/greet/main.py", "def run(params):\n    return 1\n")
    editor = Editor(pull=True)
    # TC401 off, and the schema violation it stands for (reported when
    # the more specific rule is off).
    await editor.start(options={"ignore": ["TC401", "TC901"]})
    editor.open(tool)
    assert codes(await editor.diagnostics(tool)) == [], "initializationOptions ignore"
    ok("initializationOptions")
    await asyncio.sleep(0.2)
    assert any(r.method == "workspace/didChangeWatchedFiles" for r in editor.registrations)
    before = editor.refreshes
    editor.client.workspace_did_change_configuration(
        t.DidChangeConfigurationParams(settings={"toolc": {"ignore": []}})
    )
    assert codes(await editor.diagnostics(tool)) == ["TC401"]
    for _ in range(100):
        if editor.refreshes > before:
            break
        await asyncio.sleep(0.05)
    assert editor.refreshes > before, "no workspace/diagnostic/refresh"
    ok("didChangeConfiguration re-checks and asks to pull again")

    (missing,) = await editor.diagnostics(tool)
    actions = await editor.actions(tool, missing.range)
    ignore = [a for a in actions if a.title.startswith("Ignore nora-property-missing-required")]
    assert len(ignore) == 1, actions
    resolved = await editor.resolved(ignore[0])
    # No toolc.toml yet: the edit creates one in the workspace folder.
    changes = resolved.edit.document_changes
    assert changes[0].kind == "create" and changes[0].uri == uri(WORKSPACE / "toolc.toml"), changes
    (WORKSPACE / "toolc.toml").write_text(changes[1].edits[0].new_text)
    editor.client.workspace_did_change_watched_files(
        t.DidChangeWatchedFilesParams(
            changes=[t.FileEvent(uri=uri(WORKSPACE / "toolc.toml"), type=t.FileChangeType.Created)]
        )
    )
    # With the specific rule off, the schema violation it stood for shows.
    found = await editor.diagnostics(tool)
    assert codes(found) == ["TC901"], (found, (WORKSPACE / "toolc.toml").read_text())
    ok("ignore in toolc.toml, applied and re-checked")

    # The toolc.toml now there is appended to.
    actions = await editor.actions(tool, found[0].range)
    ignore = [a for a in actions if a.title.startswith("Ignore schema-violation")]
    assert len(ignore) == 1, actions
    resolved = await editor.resolved(ignore[0])
    edits = resolved.edit.changes[uri(WORKSPACE / "toolc.toml")]
    before = (WORKSPACE / "toolc.toml").read_text()
    toml = apply_edits(before, edits, editor.encoding)
    assert toml.startswith(before + "\n[[overrides]]\nfiles = [\"nora/greet/tool.json\"]"), toml
    (WORKSPACE / "toolc.toml").write_text(toml)
    editor.client.workspace_did_change_watched_files(
        t.DidChangeWatchedFilesParams(
            changes=[t.FileEvent(uri=uri(WORKSPACE / "toolc.toml"), type=t.FileChangeType.Changed)]
        )
    )
    assert codes(await editor.diagnostics(tool)) == [], toml
    ok("ignore appends to an existing toolc.toml")

    # A nearer pyproject.toml with [tool.toolc] is the configuration now
    # (watched too): the defaults, then its own override.
    patterns = [
        w["globPattern"]
        for r in editor.registrations
        if r.method == "workspace/didChangeWatchedFiles"
        for w in r.register_options["watchers"]
    ]
    assert "**/pyproject.toml" in patterns, patterns
    pyproject = write("nora/pyproject.toml", '[project]\nname = "greet"\n\n[tool.toolc]\n')
    editor.client.workspace_did_change_watched_files(
        t.DidChangeWatchedFilesParams(
            changes=[t.FileEvent(uri=uri(pyproject), type=t.FileChangeType.Created)]
        )
    )
    found = await editor.diagnostics(tool)
    assert codes(found) == ["TC401"], found
    actions = await editor.actions(tool, found[0].range)
    ignore = [a for a in actions if a.title.startswith("Ignore nora-property-missing-required")]
    assert len(ignore) == 1 and ignore[0].title.endswith(", in pyproject.toml"), actions
    resolved = await editor.resolved(ignore[0])
    before = pyproject.read_text()
    toml = apply_edits(before, resolved.edit.changes[uri(pyproject)], editor.encoding)
    assert toml.startswith(before + "\n[[tool.toolc.overrides]]\nfiles = [\"greet/tool.json\"]"), toml
    pyproject.write_text(toml)
    editor.client.workspace_did_change_watched_files(
        t.DidChangeWatchedFilesParams(
            changes=[t.FileEvent(uri=uri(pyproject), type=t.FileChangeType.Changed)]
        )
    )
    # TC401 off: the schema violation it stood for shows, as at first.
    assert codes(await editor.diagnostics(tool)) == ["TC901"], toml
    ok("a pyproject.toml's [tool.toolc], watched, and ignore appends to it")
    await editor.stop()


async def duplicates():
    """A name declared in two sibling tool directories: related information."""
    first = write("tools/a/tool.json", '{"name": "same", "description": "A", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}\n')
    write("tools/a/main.py", "def run(params):\n    return 1\n")
    second = write("tools/b/tool.json", '{"name": "same", "description": "B", "entrypoint": "main.py", "parameters": {"type": "object", "properties": {}}}\n')
    write("tools/b/main.py", "def run(params):\n    return 1\n")
    editor = Editor(pull=False)
    await editor.start()
    editor.open(second)
    found = await editor.diagnostics(second)
    duplicate = [d for d in found if d.code == "TC102"]
    assert len(duplicate) == 1, found
    related = duplicate[0].related_information
    assert related and related[0].location.uri == uri(first), duplicate
    ok("duplicate name with the other file as related information")
    await editor.stop()


async def completion():
    """Keys and enumerated values from the format's schema, while typing."""
    tool = write("nora/new/tool.json", "")
    config = write("tools/search/config.json", "")
    editor = Editor(pull=True)
    await editor.start()

    async def labels(path: Path, text: str):
        """The labels offered at `|` in `text`, and the items."""
        at = text.index("|")
        text = text.replace("|", "")
        editor.change(path, text)
        result = await editor.client.text_document_completion_async(
            t.CompletionParams(
                text_document=t.TextDocumentIdentifier(uri=uri(path)),
                position=position_of(text, at, editor.encoding),
            )
        )
        items = result.items if hasattr(result, "items") else result
        return [i.label for i in items], items, text

    editor.open(tool, "")
    found, items, text = await labels(tool, '{"name": "x", "\U0001f600": 1, "|"}')
    assert "entrypoint" in found and "parameters" in found, found
    assert "name" not in found, found
    # The edit replaces the quotes being typed, the editor's closing one too.
    entry = next(i for i in items if i.label == "entrypoint")
    done = apply_edits(text, [entry.text_edit], editor.encoding)
    assert done == '{"name": "x", "\U0001f600": 1, "entrypoint"}', done
    ok("completion of keys")
    editor.open(config, "")
    found, _, _ = await labels(config, '{"name": "s", "tools": {"find": {"actions": [|')
    assert {"read", "write", "execute", "delete"} <= set(found), found
    ok("completion of enumerated values")
    await editor.stop()


async def formats():
    """Every bad fixture of the rules, opened in the editor: the server
    shows what `toolc lint` reports for the same file, for every format."""
    import subprocess
    root = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
    editor = Editor(pull=True)
    await editor.start()
    seen = {}
    differ = []
    for bad in sorted(root.glob("*/bad")):
        report = json.loads(
            subprocess.run([TOOLC, "lint", "--format", "json", str(bad)], capture_output=True).stdout
        )
        for file in report["files"]:
            if not file["format"]:
                continue
            path = Path(file["path"])
            if path.suffix != ".json":
                continue
            expected = sorted(d["code"] for d in report["diagnostics"] if d["path"] == file["path"])
            editor.open(path)
            found = sorted(str(d.code) for d in await editor.diagnostics(path))
            seen.setdefault(file["format"], 0)
            if found == expected:
                seen[file["format"]] += 1
            else:
                differ.append((str(path), expected, found))
    assert not differ, "\n".join(map(str, differ))
    # (No rule fixture is a Gemini document: the Gemini rules check other
    # formats for Gemini as a target.)
    for fmt in ["nora", "agentcli", "agentstack", "nachos", "openai", "anthropic", "mcp"]:
        assert seen.get(fmt), (fmt, seen)
    ok(f"every format as lint sees it ({sum(seen.values())} files)")
    await editor.stop()


SCENARIOS = {
    "formats": formats,
    "completion": completion,
    "pull": lambda: editing(True),
    "push": lambda: editing(False),
    "utf8": utf8,
    "packages": packages,
    "configuration": configuration,
    "duplicates": duplicates,
}

asyncio.run(SCENARIOS[SCENARIO]())

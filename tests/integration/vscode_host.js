// A stand-in for VS Code that loads the packaged toolc extension (an
// unpacked .vsix) and drives it: activate, then the "toolc: Restart
// Server" command when asked, then deactivate. It answers `require("vscode")`
// with just enough of the API for the extension and vscode-languageclient
// to start and stop a server: settings from TOOLC_HOST_SETTINGS (the
// `toolc` section, as JSON), an output channel and error messages that it
// records, and no-op proxies for everything else (no documents are open).
// It prints what it saw as one JSON object on standard output.
//
// node vscode_host.js EXTENSION_DIR [restart]
"use strict";

const Module = require("module");
const path = require("path");

const [extensionDir, action] = process.argv.slice(2);
const settings = { toolc: JSON.parse(process.env.TOOLC_HOST_SETTINGS || "{}") };
const seen = { errors: [], output: [], commands: [] };
const commands = new Map();

/** A value that is any property, function or class the client asks for. */
function anything(name) {
  const target = function () {};
  return new Proxy(target, {
    get(_target, key) {
      if (key === "then") return undefined; // not a promise
      if (key === Symbol.toPrimitive) return () => name;
      if (key === "dispose") return () => {};
      return anything(`${name}.${String(key)}`);
    },
    apply: () => anything(`${name}()`),
    construct: () => anything(`new ${name}`),
  });
}

/** An object whose missing members are [`anything`]. */
function open(name, members) {
  return new Proxy(members, {
    get: (target, key) => (key in target ? target[key] : anything(`${name}.${String(key)}`)),
  });
}

class Disposable {
  constructor(onDispose) {
    this.onDispose = onDispose;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((item) => item && item.dispose && item.dispose()));
  }
  dispose() {
    if (this.onDispose) this.onDispose();
  }
}

class EventEmitter {
  constructor() {
    this.listeners = [];
    this.event = (listener) => {
      this.listeners.push(listener);
      return new Disposable();
    };
  }
  fire(value) {
    this.listeners.forEach((listener) => listener(value));
  }
  dispose() {}
}

const noEvent = () => new Disposable();

function configuration(section) {
  const lookup = (key) => {
    let value = settings;
    for (const part of (section ? `${section}.${key}` : key).split(".")) {
      value = value === undefined || value === null ? undefined : value[part];
    }
    return value;
  };
  return {
    get: (key, fallback) => (lookup(key) === undefined ? fallback : lookup(key)),
    has: (key) => lookup(key) !== undefined,
    inspect: () => undefined,
    update: () => Promise.resolve(),
  };
}

const channel = {
  name: "toolc",
  append: (text) => seen.output.push(text),
  appendLine: (text) => seen.output.push(text),
  replace: () => {},
  clear: () => {},
  show: () => {},
  hide: () => {},
  dispose: () => {},
};

const workspaceEvents = [
  "onDidChangeConfiguration",
  "onDidOpenTextDocument",
  "onDidCloseTextDocument",
  "onDidChangeTextDocument",
  "onDidSaveTextDocument",
  "onWillSaveTextDocument",
  "onDidChangeWorkspaceFolders",
  "onDidCreateFiles",
  "onDidRenameFiles",
  "onDidDeleteFiles",
  "onWillCreateFiles",
  "onWillRenameFiles",
  "onWillDeleteFiles",
  "onDidOpenNotebookDocument",
  "onDidCloseNotebookDocument",
  "onDidChangeNotebookDocument",
  "onDidSaveNotebookDocument",
];

const vscode = open("vscode", {
  Disposable,
  EventEmitter,
  version: "1.82.0",
  env: open("env", { appName: "toolc test host", language: "en", uiKind: 1 }),
  workspace: open("workspace", {
    getConfiguration: configuration,
    workspaceFolders: undefined,
    textDocuments: [],
    notebookDocuments: [],
    ...Object.fromEntries(workspaceEvents.map((event) => [event, noEvent])),
  }),
  window: open("window", {
    createOutputChannel: () => channel,
    showErrorMessage: (message) => {
      seen.errors.push(message);
      return Promise.resolve(undefined);
    },
    visibleTextEditors: [],
    onDidChangeActiveTextEditor: noEvent,
    onDidChangeVisibleTextEditors: noEvent,
    tabGroups: { all: [], onDidChangeTabs: noEvent, onDidChangeTabGroups: noEvent },
  }),
  commands: open("commands", {
    registerCommand: (id, callback) => {
      seen.commands.push(id);
      commands.set(id, callback);
      return new Disposable(() => commands.delete(id));
    },
    executeCommand: () => Promise.resolve(undefined),
  }),
});

const load = Module._load;
Module._load = function (request, ...rest) {
  return request === "vscode" ? vscode : load.call(this, request, ...rest);
};

async function main() {
  const manifest = require(path.join(extensionDir, "package.json"));
  const extension = require(path.join(extensionDir, manifest.main));
  extension.activate({ subscriptions: [] });
  if (action === "restart") {
    await commands.get("toolc.restart")();
  }
  // Queued behind the start (and the restart): resolves once the last
  // server is shut down.
  await extension.deactivate();
  process.stdout.write(JSON.stringify(seen));
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
    process.exit(1);
  },
);

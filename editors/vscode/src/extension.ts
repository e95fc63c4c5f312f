// The toolc extension: starts `toolc server` (the language server in the
// toolc binary) for JSON, Python and TypeScript files and hands it the
// `toolc.*` settings. Everything else (which files are manifests, the
// findings, fixes, hover, symbols) is the server's.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

/** The settings section, and the client's id (`toolc.trace.server`). */
const SECTION = "toolc";

/** The languages of the files toolc reads: manifests and package code. */
const LANGUAGES = ["json", "python", "typescript"];

/**
 * The server's settings, as its `initializationOptions` (and, through
 * `synchronize.configurationSection`, the `toolc` section of
 * `workspace/didChangeConfiguration`) carry them.
 */
interface ServerSettings {
  configuration: string;
  select: string[];
  ignore: string[];
  targets: string[];
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
/** Starts and stops, one after another: a restart never overlaps another. */
let queue: Promise<void> = Promise.resolve();

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel("toolc");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("toolc.restart", () => enqueue(restart)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // The other settings reach the running server as
      // didChangeConfiguration; the binary needs a new process.
      if (event.affectsConfiguration(`${SECTION}.path`)) {
        void enqueue(restart);
      }
    }),
  );
  void enqueue(start);
}

export function deactivate(): Thenable<void> {
  return enqueue(stop);
}

/** Runs `work` after whatever start or stop is under way. */
function enqueue(work: () => Promise<void>): Promise<void> {
  queue = queue.then(work).catch((error: unknown) => {
    output?.appendLine(`toolc: ${describe(error)}`);
  });
  return queue;
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

async function start(): Promise<void> {
  const command = serverCommand();
  // Looked for first: the client's own message for a binary that is not
  // there ("couldn't create connection to server") says nothing of how
  // to fix it.
  if (!isProgram(command)) {
    report(`toolc: there is no program \`${command}\``);
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  const serverOptions: ServerOptions = {
    command,
    args: ["server"],
    options: folder ? { cwd: folder.uri.fsPath } : {},
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.map((language) => ({
      scheme: "file",
      language,
    })),
    // Read again on each start, the client's own restarts after a crash too.
    initializationOptions: () => serverSettings(),
    synchronize: { configurationSection: SECTION },
    outputChannel: output,
  };
  const next = new LanguageClient(
    SECTION,
    "toolc",
    serverOptions,
    clientOptions,
  );
  try {
    await next.start();
  } catch (error) {
    await next.dispose().catch(() => undefined);
    report(
      `toolc: could not start \`${command} server\` (${describe(error)})`,
    );
    return;
  }
  client = next;
}

/** Shows why the server is not running, and how to fix it. */
function report(problem: string): void {
  const message =
    `${problem}. Install toolc (\`cargo install --locked --path .\` in ` +
    "its repository) or set toolc.path to the binary.";
  output?.appendLine(message);
  void vscode.window.showErrorMessage(message);
}

/**
 * Whether `command` names a file: itself when it holds a directory,
 * else in a directory of PATH (with an extension of PATHEXT on Windows).
 */
function isProgram(command: string): boolean {
  const isFile = (candidate: string): boolean => {
    try {
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  };
  if (path.isAbsolute(command) || /[\\/]/.test(command)) {
    return isFile(command);
  }
  const extensions =
    process.platform === "win32"
      ? ["", ...(process.env.PATHEXT ?? ".EXE").split(";")]
      : [""];
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter((dir) => dir !== "")
    .some((dir) =>
      extensions.some((extension) => isFile(path.join(dir, command + extension))),
    );
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

/**
 * The binary of `toolc.path`: a bare name is looked up on PATH; `~/` is
 * the home directory; another relative path is taken from the first
 * workspace folder.
 */
function serverCommand(): string {
  const configured = vscode.workspace
    .getConfiguration(SECTION)
    .get<string>("path", "toolc")
    .trim();
  if (configured === "") {
    return "toolc";
  }
  const expanded = configured.startsWith("~/")
    ? path.join(os.homedir(), configured.slice(2))
    : configured;
  if (path.isAbsolute(expanded) || !/[\\/]/.test(expanded)) {
    return expanded;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder ? path.join(folder.uri.fsPath, expanded) : expanded;
}

function serverSettings(): ServerSettings {
  const settings = vscode.workspace.getConfiguration(SECTION);
  return {
    configuration: settings.get<string>("configuration", ""),
    select: settings.get<string[]>("select", []),
    ignore: settings.get<string[]>("ignore", []),
    targets: settings.get<string[]>("targets", []),
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

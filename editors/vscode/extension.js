// extension.js: starts `tacclc lsp` for .sketch files.
//
// The language server gives diagnostics as you type, hovers (a link class's
// alpha and beta, a machine's size), go to definition across imports,
// document symbols, formatting (`tacclc fmt`), completion and quick fixes
// (the "did you mean" of a diagnostic, applied). The server is the tacclc
// binary: set `tacclc.path` when it is not on PATH, and `tacclc.includeDirs`
// for folders to search for imports (as `-I`). Without a tacclc binary the
// extension still highlights; it says once that the server could not start.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration('tacclc');
  const command = config.get('path') || 'tacclc';
  const args = ['lsp'];
  for (const dir of config.get('includeDirs') || [])
    args.push('-I' + dir);
  client = new LanguageClient(
    'tacclc', 'tacclc language server',
    { command, args },
    { documentSelector: [{ scheme: 'file', language: 'sketch' },
                         { scheme: 'untitled', language: 'sketch' }] });
  client.start().catch((err) => {
    vscode.window.showWarningMessage(
      `tacclc: the language server (${command} lsp) did not start: ` +
      `${err.message}. Set tacclc.path to the tacclc binary.`);
  });
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };

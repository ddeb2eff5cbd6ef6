#!/usr/bin/env python3
"""A scripted Language Server client for `tacclc lsp`.

Speaks the protocol over pipes (Content-Length framing, JSON-RPC) and checks
the server's answers: capabilities; diagnostics on open and after a change
(also for a problem inside an imported file, shown at the import); hover on
a machine (its size for the sketch's arguments) and on a link class (its
alpha and beta); go to definition across imports (machine, class, import
path); document symbols; formatting; completion (keywords at the top
level, a declared machine and an imported stdlib one after `on`, the
classes of a sketch's machine, module paths after `import`); the quick fix
of a misspelled machine and of a misspelled class, applied until no
diagnostic is left; positions counted in UTF-16 after non-ASCII text;
protocol errors that the server survives, each answered
with its JSON-RPC error (a body that is not JSON, one nested 50,000 deep,
one that is not UTF-8 or not an object, ids that cannot be answered, params
of the wrong type, Content-Length headers that are not a length or over the
body limit) and notifications with unusable params ignored; a document of
3,000 sketches answered right (hover, definition, symbols, after a change);
shutdown and exit with status 0.

Usage: lsp_client.py TACCLC STDLIB_DIR
"""
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading


class Client:
    def __init__(self, tacclc, timeout=60):
        self.proc = subprocess.Popen([tacclc, "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.next_id = 1
        self.timeout = timeout
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode().strip()
                if not line:
                    break
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def raw(self, body: bytes):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, msg):
        self.raw(json.dumps(msg).encode())

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method,
                   "params": params})
        return self.wait(lambda m: m.get("id") == rid)

    def wait(self, pred):
        while True:
            try:
                m = self.inbox.get(timeout=self.timeout)
            except queue.Empty:
                fail(f"no answer from the server in {self.timeout} s")
            if m is None:
                fail("the server closed its output")
            if pred(m):
                return m

    def diagnostics(self, uri):
        m = self.wait(lambda m: m.get("method") ==
                      "textDocument/publishDiagnostics" and
                      m["params"]["uri"] == uri)
        return m["params"]["diagnostics"]


def fail(why):
    sys.exit("FAIL: " + why)


def pos_of(text, needle, nth=0):
    """LSP position (UTF-16) of the nth occurrence of needle in text."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at)
    col = len(text[text.rfind("\n", 0, at) + 1:at].encode("utf-16-le")) // 2
    return {"line": line, "character": col + 1}


def many_sketches(count):
    """A document with a local machine and `count` sketches, each with the
    comment above it; every other sketch is derived from the one before it.
    The latency benchmark (bench/lsp-latency) and the scale test use it."""
    parts = ["// m: two GPUs joined by one link class.\n"
             "machine m(nodes: int = 1) {\n"
             "  gpus per node = 2\n"
             "  class c { alpha = 1 us; beta = 2 us/MB }\n"
             "  link c 0 <-> 1\n"
             "}\n"]
    for i in range(count):
        if i % 2 == 0:
            parts.append(f"\n// Sketch {i} on m.\n"
                         f"sketch s{i} on m(nodes: 1) {{\n"
                         "  collective allgather\n"
                         f"  size {i % 7 + 1} MB\n"
                         "  links c\n"
                         "}\n")
        else:
            parts.append(f"\n// Sketch {i}, derived from s{i - 1}.\n"
                         f"sketch s{i} from s{i - 1} {{\n"
                         f"  size {i % 5 + 1} KB\n"
                         "}\n")
    return "".join(parts)


def hostile_messages(c):
    """Bodies and requests meant to break the server: each gets its error
    and the server answers a hover right after."""
    uri = "file:///hostile.sketch"
    text = "topology t { ranks 2 link 0 -> 1 alpha 1 us beta 1 us/MB }\n"
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "sketch", "version": 1, "text": text}})
    c.diagnostics(uri)

    def still_answers(what):
        h = c.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": pos_of(text, "t {")})
        if "topology t" not in (h.get("result") or {}).get(
                "contents", {}).get("value", ""):
            fail(f"no hover after {what}: {h}")

    def refused(body, code, what):
        c.raw(body)
        e = c.wait(lambda m: "error" in m)
        if e["error"]["code"] != code or e.get("id", 0) is not None:
            fail(f"{what}: {e}")
        still_answers(what)

    # Nested far deeper than llvm::json's recursion survives.
    refused(b"[" * 50000 + b"]" * 50000, -32700, "a deeply nested body")
    refused(b'{"a":' * 200 + b"1" + b"}" * 200, -32700, "200 nested objects")
    # Brackets inside strings do not count; escaped quotes do not end them.
    c.raw(json.dumps({"jsonrpc": "2.0", "id": "s", "method": "x/y",
                      "params": {"p": "[" * 1000 + '\\"' + "{" * 1000}})
          .encode())
    if c.wait(lambda m: m.get("id") == "s")["error"]["code"] != -32601:
        fail("brackets inside a string were counted")
    refused(b'{"jsonrpc": "2.0", "id": 1, "method": "\xff\xfe"}', -32700,
            "a body that is not UTF-8")
    refused(b"[1, 2, 3]", -32600, "a body that is not an object")
    refused(b'"text"', -32600, "a string body")
    for rid in (b"1e400", b"123456789012345678901234567890", b"1.5",
                b"null", b"[1]", b"{}"):
        refused(b'{"jsonrpc": "2.0", "id": ' + rid +
                b', "method": "textDocument/hover", "params": {}}', -32600,
                f"a request with id {rid!r}")
    for params in (5, "x", [], {"textDocument": 7},
                   {"textDocument": {"uri": 7}},
                   {"textDocument": {"uri": uri}},
                   {"textDocument": {"uri": uri},
                    "position": {"line": "0", "character": 0}},
                   {"textDocument": {"uri": uri},
                    "position": {"line": 0.5, "character": 0}}):
        e = c.request("textDocument/hover", params)
        if e.get("error", {}).get("code") != -32602:
            fail(f"a hover with params {params}: {e}")
    for line, char in ((-1, 0), (0, -5), (2 ** 40, 0), (0, 2 ** 62),
                       (2 ** 63 - 1, 2 ** 63 - 1)):
        e = c.request("textDocument/hover", {
            "textDocument": {"uri": uri},
            "position": {"line": line, "character": char}})
        if "error" in e:
            fail(f"a hover at ({line}, {char}): {e}")
    # Notifications with unusable params are ignored without an answer.
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri}})
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri},
                                        "contentChanges": [5]})
    c.notify("textDocument/didOpen", 3)
    still_answers("notifications without a text")
    # Headers that are not a length: an error each, and the server reads on.
    for header in (b"Content-Length: -5", b"Content-Length: 0x10",
                   b"Content-Length: 99999999999999999999999",
                   b"Content-Type: text/plain"):
        c.proc.stdin.write(header + b"\r\n\r\n")
        c.proc.stdin.flush()
        e = c.wait(lambda m: "error" in m)
        if e["error"]["code"] != -32700:
            fail(f"the header {header!r}: {e}")
    still_answers("headers without a valid length")
    # Over the body limit: refused at once, and the body is skipped.
    big = 64 * 1024 * 1024 + 1
    c.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % big)
    c.proc.stdin.flush()
    e = c.wait(lambda m: "error" in m)
    if e["error"]["code"] != -32700 or "limit" not in e["error"]["message"]:
        fail(f"a body over the limit: {e}")
    chunk = b" " * (1 << 20)
    for _ in range(64):
        c.proc.stdin.write(chunk)
    c.proc.stdin.write(b" ")
    c.proc.stdin.flush()
    still_answers("a skipped body over the limit")


def many_sketches_answers(c):
    """A document with thousands of sketches: every answer is the right one
    (the lookups by position are sorted tables, the analysis is shared)."""
    count = 3000
    text = many_sketches(count)
    uri = "file:///many.sketch"
    c.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "sketch", "version": 1, "text": text}})
    if c.diagnostics(uri):
        fail("diagnostics for the many-sketches document")
    td = {"uri": uri}
    for i in (0, 1, 1234, 1235, count - 2, count - 1):
        h = c.request("textDocument/hover", {
            "textDocument": td, "position": pos_of(text, f"s{i} ")})
        value = h["result"]["contents"]["value"]
        if not value.startswith(f"sketch s{i} ") or \
                f"Sketch {i}" not in value:
            fail(f"hover on sketch {i}: {value!r}")
        if i % 2 == 0:
            # On the sketch's machine: the size for that sketch's arguments.
            h = c.request("textDocument/hover", {
                "textDocument": td, "position": {
                    "line": text.count("\n", 0, text.index(f"s{i} on m(")),
                    "character": len(f"sketch s{i} on ")}})
            if not h["result"]["contents"]["value"].startswith(
                    "on m(nodes: 1): 2 ranks"):
                fail(f"hover on the machine of sketch {i}: {h}")
        else:
            d = c.request("textDocument/definition", {
                "textDocument": td,
                "position": pos_of(text, f"s{i - 1} {{")})
            want = text.count("\n", 0, text.index(f"sketch s{i - 1} "))
            start = d["result"]["range"]["start"]
            if start != {"line": want, "character": len("sketch ")}:
                fail(f"definition of s{i - 1}: {d}")
    syms = c.request("textDocument/documentSymbol", {"textDocument": td})
    names = [s["name"] for s in syms["result"]]
    if names != ["m"] + [f"s{i}" for i in range(count)]:
        fail(f"symbols of the many-sketches document: {names[:5]}...")
    if [k["name"] for k in syms["result"][0].get("children", [])] != ["c"]:
        fail(f"the machine's children: {syms['result'][0]}")
    # A change replaces the analysis: the hover shows the new size.
    changed = text.replace("sketch s1235 from s1234 {\n  size 1 KB",
                           "sketch s1235 from s1234 {\n  size 9 KB")
    if changed == text:
        fail("the many-sketches document changed shape")
    c.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"text": changed}]})
    c.diagnostics(uri)
    h = c.request("textDocument/hover", {
        "textDocument": td, "position": pos_of(changed, "s1235 ")})
    if "size 9 KB" not in h["result"]["contents"]["value"]:
        fail(f"hover after a change: {h}")
    c.notify("textDocument/didClose", {"textDocument": td})
    c.diagnostics(uri)


def apply(text, edit):
    """text with one LSP TextEdit applied (positions in UTF-16 units)."""
    lines = text.split("\n")

    def offset(pos):
        before = "\n".join(lines[:pos["line"]])
        line = lines[pos["line"]].encode("utf-16-le")
        col = len(line[:2 * pos["character"]].decode("utf-16-le"))
        return len(before) + (1 if pos["line"] else 0) + col
    r = edit["range"]
    return (text[:offset(r["start"])] + edit["newText"] +
            text[offset(r["end"]):])


def completion_and_fixes(c, tmp):
    """Completion at a statement start, after `on` (a declared machine and
    an imported stdlib one, with the file it comes from), after `import`;
    the quick fix of a misspelled machine and of a misspelled class,
    applied: the document then has no diagnostics."""
    uri = "file://" + os.path.join(tmp, "complete.sketch")
    td = {"uri": uri}
    good = ('import "topologies/ndv2"\n'
            "machine m(nodes: int = 1) {\n"
            "  gpus per node = 2\n"
            "  class c { alpha = 1 us; beta = 2 us/MB }\n"
            "  link c 0 <-> 1\n"
            "}\n"
            "sketch t on ndv2(nodes: 2) {\n"
            "  collective allgather\n"
            "  links nvlink1, nvlink2, ib\n"
            "}\n")
    version = [0]

    def sync(text):
        version[0] += 1
        if version[0] == 1:
            c.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "sketch", "version": 1,
                "text": text}})
        else:
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version[0]},
                "contentChanges": [{"text": text}]})
        return c.diagnostics(uri)

    def complete(text):
        """The items at the end of text."""
        sync(text)
        lines = text.split("\n")
        r = c.request("textDocument/completion", {
            "textDocument": td, "position": {
                "line": len(lines) - 1,
                "character": len(lines[-1].encode("utf-16-le")) // 2}})
        # Keyed by label; a module of the same name as a machine
        # (`ndv2.`) comes after it and does not hide it.
        items = {}
        for i in r["result"]["items"]:
            items.setdefault(i["label"], i)
        return items

    if sync(good):
        fail("diagnostics for the completion document")
    items = complete(good)
    if sorted(items) != ["import", "machine", "sketch", "topology"] or \
            items["sketch"]["kind"] != 14:
        fail(f"keywords at the top level: {sorted(items)}")
    items = complete(good + "sketch s on ")
    if items.get("m", {}).get("detail") != "machine m(nodes: int = 1)":
        fail(f"a declared machine after `on`: {items.get('m')}")
    ndv2 = items.get("ndv2", {})
    if ndv2.get("kind") != 7 or ndv2.get("detail") != \
            "machine ndv2(nodes: int = 1) from stdlib/topologies/ndv2.sketch":
        fail(f"an imported stdlib machine after `on`: {ndv2}")
    items = complete(good + "sketch s on ndv2(nodes: 2) {\n  links ")
    if sorted(items) != ["ib", "nvlink1", "nvlink2"]:
        fail(f"the classes of the sketch's machine: {sorted(items)}")
    items = complete('import "')
    if "topologies/ndv2" not in items or \
            items["topologies/ndv2"]["textEdit"]["newText"] != \
            "topologies/ndv2":
        fail(f"module paths after `import`: {sorted(items)[:5]}")

    for wrong, right in (("ndv2(nodes: 2)", "nvd2(nodes: 2)"),
                         ("nvlink2, ib", "nvlink2, ibb")):
        bad = good.replace(wrong, right)
        diags = sync(bad)
        if len(diags) != 1:
            fail(f"diagnostics for {right!r}: {diags}")
        actions = c.request("textDocument/codeAction", {
            "textDocument": td, "range": diags[0]["range"],
            "context": {"diagnostics": diags}})["result"]
        if len(actions) != 1 or actions[0]["kind"] != "quickfix":
            fail(f"the quick fix for {right!r}: {actions}")
        edits = actions[0]["edit"]["changes"][uri]
        fixed = bad
        for e in edits:
            fixed = apply(fixed, e)
        if fixed != good or sync(fixed):
            fail(f"the quick fix for {right!r} does not fix it: {edits}")
    c.notify("textDocument/didClose", {"textDocument": td})
    c.diagnostics(uri)


def main():
    tacclc, stdlib = sys.argv[1], sys.argv[2]
    ndv2 = os.path.join(stdlib, "topologies", "ndv2.sketch")
    ndv2_lines = open(ndv2).read().splitlines()
    c = Client(tacclc)
    caps = c.request("initialize", {"processId": None, "rootUri": None,
                                    "capabilities": {}})["result"]
    for k in ("hoverProvider", "definitionProvider",
              "documentSymbolProvider", "documentFormattingProvider",
              "completionProvider", "codeActionProvider"):
        if not caps["capabilities"].get(k):
            fail(f"capability {k} missing: {caps}")
    if '.' not in caps["capabilities"]["completionProvider"].get(
            "triggerCharacters", []):
        fail(f"completion is not triggered by '.': {caps}")
    c.notify("initialized", {})

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "doc.sketch")
        uri = "file://" + path
        bad = ('import "topologies/ndv2"\n'
               "// µ→ a comment with non-ASCII text\n"
               "sketch s on ndv2(nodes: 2) {\n"
               "  collective allgathr\n"
               "  contiguous ib\n"
               "}\n")
        c.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "sketch", "version": 1, "text": bad}})
        diags = c.diagnostics(uri)
        if (len(diags) != 1 or diags[0]["severity"] != 1 or
                diags[0]["range"]["start"]["line"] != 3 or
                "allgathr" not in diags[0]["message"]):
            fail(f"diagnostics on open: {diags}")
        good = bad.replace("allgathr", "allgather")
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": good}]})
        if c.diagnostics(uri):
            fail("diagnostics remain after the fix")

        td = {"uri": uri}
        hover = c.request("textDocument/hover", {
            "textDocument": td, "position": pos_of(good, "ndv2", 1)})
        text = hover["result"]["contents"]["value"]
        if "16 ranks" not in text or "machine ndv2" not in text:
            fail(f"hover on the machine: {text!r}")
        hover = c.request("textDocument/hover", {
            "textDocument": td, "position": pos_of(good, "ib")})
        text = hover["result"]["contents"]["value"]
        if "alpha 2.6 us" not in text or "beta 105 us/MB" not in text:
            fail(f"hover on the class: {text!r}")
        # A name after non-ASCII text on its line: positions are UTF-16.
        odd = "/* µ→ */ " + good.splitlines()[2] + "\n"
        odd = good.replace(good.splitlines()[2], odd.rstrip("\n"))
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"text": odd}]})
        c.diagnostics(uri)
        hover = c.request("textDocument/hover", {
            "textDocument": td, "position": pos_of(odd, "ndv2", 1)})
        if not hover["result"] or "machine ndv2" not in \
                hover["result"]["contents"]["value"]:
            fail(f"hover after non-ASCII text: {hover}")

        def definition(needle, nth=0):
            r = c.request("textDocument/definition", {
                "textDocument": td, "position": pos_of(odd, needle, nth)})
            return r["result"]
        d = definition("ndv2", 1)
        want = next(i for i, l in enumerate(ndv2_lines)
                    if l.startswith("machine ndv2"))
        if (not d["uri"].endswith("/topologies/ndv2.sketch") or
                d["range"]["start"]["line"] != want):
            fail(f"definition of the machine: {d} (want line {want})")
        d = definition("ib")
        want = next(i for i, l in enumerate(ndv2_lines)
                    if l.strip().startswith("class ib"))
        if d["range"]["start"]["line"] != want:
            fail(f"definition of the class: {d} (want line {want})")
        d = definition("topologies")
        if not d["uri"].endswith("/topologies/ndv2.sketch"):
            fail(f"definition of the import: {d}")

        syms = c.request("textDocument/documentSymbol",
                         {"textDocument": td})["result"]
        if [s["name"] for s in syms] != ["s"]:
            fail(f"document symbols: {syms}")

        # A machine with a class (nested symbol), formatting.
        local = ("machine m{gpus per node=2 class c{alpha=1 us;beta=2 us/MB}"
                 "link c 0<->1}\nsketch t on m{collective allgather}\n")
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 4},
            "contentChanges": [{"text": local}]})
        if c.diagnostics(uri):
            fail("diagnostics for a valid local machine")
        syms = c.request("textDocument/documentSymbol",
                         {"textDocument": td})["result"]
        if ([s["name"] for s in syms] != ["m", "t"] or
                [k["name"] for k in syms[0].get("children", [])] != ["c"]):
            fail(f"nested document symbols: {syms}")
        edits = c.request("textDocument/formatting", {
            "textDocument": td,
            "options": {"tabSize": 2, "insertSpaces": True}})["result"]
        want = subprocess.run([tacclc, "fmt", "-"], input=local,
                              capture_output=True, text=True).stdout
        if len(edits) != 1 or edits[0]["newText"] != want:
            fail(f"formatting: {edits}")

        # A problem inside an imported file is shown at the import.
        open(os.path.join(tmp, "broken.sketch"), "w").write(
            "machine b {\n  gpus per node = \n}\n")
        withbad = 'import "broken"\n' + local
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 5},
            "contentChanges": [{"text": withbad}]})
        diags = c.diagnostics(uri)
        if (not diags or diags[0]["range"]["start"]["line"] != 0 or
                "broken.sketch:3:1" not in diags[0]["message"]):
            fail(f"a problem in an imported file: {diags}")

        # Every sketch is analysed on its own: errors in two sketches are
        # both reported.
        two = ("machine m{gpus per node=2 class c{alpha=1 us;beta=2 us/MB}"
               "link c 0<->1}\n"
               "sketch a on m{collective allgathr}\n"
               "sketch b on m{collective allgather chunks 0}\n")
        c.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 6},
            "contentChanges": [{"text": two}]})
        lines = sorted(d["range"]["start"]["line"]
                       for d in c.diagnostics(uri))
        if lines != [1, 2]:
            fail(f"errors of two sketches: lines {lines}")

        completion_and_fixes(c, tmp)

    # Missing parameters are refused, not fatal.
    e = c.request("textDocument/hover", {})
    if e.get("error", {}).get("code") != -32602:
        fail(f"a hover without a document: {e}")
    # Protocol errors do not stop the server.
    c.raw(b"{not json")
    e = c.wait(lambda m: "error" in m)
    if e["error"]["code"] != -32700:
        fail(f"a body that is not JSON: {e}")
    e = c.request("textDocument/rename", {})
    if e.get("error", {}).get("code") != -32601:
        fail(f"an unknown method: {e}")
    hostile_messages(c)
    many_sketches_answers(c)
    if c.request("shutdown", None).get("result", 0) is not None:
        fail("shutdown")
    c.notify("exit", None)
    if c.proc.wait(timeout=30) != 0:
        fail(f"exit status {c.proc.returncode}")
    # A request before initialize is refused.
    d = Client(tacclc)
    e = d.request("textDocument/documentSymbol",
                  {"textDocument": {"uri": "file:///x.sketch"}})
    if e.get("error", {}).get("code") != -32002:
        fail(f"a request before initialize: {e}")
    d.notify("exit", None)
    if d.proc.wait(timeout=30) != 1:
        fail("exit without shutdown must end with status 1")
    print("lsp: diagnostics, hover, definition, symbols, formatting, "
          "completion, quick fixes, UTF-16 positions, protocol errors, "
          "lifecycle, shutdown")


if __name__ == "__main__":
    main()

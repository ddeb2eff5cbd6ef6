Content-Length: 65

{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}Content-Type: application/vscode-jsonrpc; charset=utf-8
Content-Length: 869

{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "file:///r.sketch", "version": 1, "text": "// ring4-allgather.sketch: ALLGATHER on four GPUs joined in a ring.\n//\n// The smallest complete example: a topology of 4 ranks with one\n// unidirectional NVLink-class link to the next rank, and a sketch that asks\n// for an allgather of 1 MB (the whole gathered buffer, as nccl-tests counts\n// it) with one chunk per rank. The only route is around the ring, so the\n// predicted time is 3 * (alpha + beta * 250 KB) = 3 * (0.7 + 11.5) us.\n\ntopology ring4 {\n  ranks 4\n  link 0 -> 1 alpha 0.7 us beta 46 us/MB\n  link 1 -> 2 alpha 0.7 us beta 46 us/MB\n  link 2 -> 3 alpha 0.7 us beta 46 us/MB\n  link 3 -> 0 alpha 0.7 us beta 46 us/MB\n}\n\nsketch ring4_allgather on ring4 {\n  collective allgather\n  chunks 1\n  size 1 MB\n}\n"}}}Content-Length: -1

Content-Length: 400

[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]Content-Length: 9

{"a":"ÿ"}
Content-Length: 159

{"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///r.sketch"}, "position": {"line": 16, "character": 27}}}Content-Length: 44

{"jsonrpc":"2.0","id":3,"method":"shutdown"}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}
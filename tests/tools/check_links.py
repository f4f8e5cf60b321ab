#!/usr/bin/env python3
"""Relative markdown links point to files or folders that exist.

Reads README.md, docs/*.md and results/**/README.md, and checks every
markdown link, [text](target) or ![alt](target) or a [name]: target
definition, outside code spans and fenced blocks: a target that is not a
URL (http:, https:, mailto:) or an #anchor alone must name a file or folder
that exists, relative to the file that links to it (a leading / from the
repository's root). The #anchor after a path is not checked.
Usage: check_links.py SOURCE_DIR
"""
import glob
import os
import re
import sys
from urllib.parse import unquote

source = sys.argv[1]
files = [os.path.join(source, "README.md")]
files += sorted(glob.glob(os.path.join(source, "docs", "*.md")))
files += sorted(glob.glob(os.path.join(source, "results", "**", "README.md"), recursive=True))

# (target) after ]: one level of parentheses inside, an optional "title".
INLINE = re.compile(r"\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))+)>?(?:\s+\"[^\"]*\")?\s*\)")
DEFINITION = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")

errors = []
count = 0
for path in files:
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    fence = None
    for n, line in enumerate(lines, 1):
        opening = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if opening:
            mark = opening.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
            elif mark.startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        text = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), line)
        targets = [m.group(1) for m in INLINE.finditer(text)]
        definition = DEFINITION.match(text)
        if definition:
            targets.append(definition.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a URL (http:, https:, mailto:) or an anchor in this file
            count += 1
            target_path = unquote(target.split("#", 1)[0].split("?", 1)[0])
            if target_path.startswith("/"):
                resolved = os.path.join(source, target_path.lstrip("/"))
            else:
                resolved = os.path.join(os.path.dirname(path), target_path)
            if not os.path.exists(resolved):
                errors.append(f"{os.path.relpath(path, source)}:{n}: {target} does not exist")
for e in errors:
    print("error:", e)
print(f"{len(files)} markdown files, {count} relative links, {len(errors)} broken")
sys.exit(1 if errors else 0)

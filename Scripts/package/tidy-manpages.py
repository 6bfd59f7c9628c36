#!/usr/bin/env python3
"""Turns the man pages swift-argument-parser's generate-manual writes into pages as Debian's are.

    tidy-manpages.py DIR        rewrites DIR's thumbd*.1 in place

The generator names a subcommand's page `thumbd.cache.ls.1` and its NAME `"thumbd cache ls"` in
quotes, which `man thumbd-cache-ls`, whatis and lintian cannot read; it leaves blank lines where mdoc
wants `.Pp`, and the help's indented examples as running text. Here:
- each page becomes `thumbd-cache-ls.1`, NAME `thumbd-cache-ls`, its SYNOPSIS `thumbd cache ls ...`;
- SEE ALSO names the new pages; ArgumentParser's own `help` subcommand loses its page;
- blank lines become paragraph breaks, and runs of indented lines literal displays.
Nothing of the text is changed: it still comes from the ArgumentParser definitions alone."""
import os
import re
import sys


def page_name(dotted: str) -> str:
    return dotted.replace(".", "-")


def tidy(text: str, name: str) -> str:
    words = name.split("-")
    out: list[str] = []
    literal = False
    section = ""
    for line in text.split("\n"):
        if literal and not line.startswith("  "):
            out.append(".Ed")
            literal = False
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
        if line.startswith(".Dt "):
            out.append(f".Dt {name.upper()} 1")
        elif line.startswith(".Nm ") and section == "NAME":
            out.append(f".Nm {name}")
        elif line == ".Nm" and section == "SYNOPSIS":
            out.append(".Nm thumbd")
            if len(words) > 1:
                out.append(".Cm " + " ".join(words[1:]))
        elif line.startswith(".Nd "):
            out.append(".Nd " + line[4:].strip().strip('"'))
        elif line.startswith(".Xr "):
            match = re.match(r"\.Xr (\S+) (\d)(.*)", line)
            if match and match.group(1).endswith(".help"):
                continue
            if match:
                out.append(f".Xr {page_name(match.group(1))} {match.group(2)}{match.group(3)}")
        elif line == "" and section not in ("", "NAME"):
            out.append(".Pp")
        elif line.startswith("  ") and section == "DESCRIPTION":
            if not literal:
                out.append(".Bd -literal -offset indent")
                literal = True
            out.append(line[2:])
        else:
            out.append(line)
    if literal:
        out.append(".Ed")
    # The last SEE ALSO entry carries no comma (the removed help page may have been last).
    for i in range(len(out) - 1, -1, -1):
        if out[i].startswith(".Xr "):
            out[i] = out[i].rstrip(" ,")
            break
    # A paragraph break just before a list, a display's end or a section adds nothing (mdoc warns).
    tidied = []
    for line in out:
        if tidied and tidied[-1] == ".Pp" and (line.startswith((".Sh", ".Bl", ".Pp", ".Ed")) or line == ""):
            tidied.pop()
        tidied.append(line)
    return "\n".join(tidied)


def main() -> None:
    directory = sys.argv[1]
    for file in sorted(os.listdir(directory)):
        if not (file.startswith("thumbd") and file.endswith(".1")):
            continue
        path = os.path.join(directory, file)
        dotted = file[:-2]
        if dotted.endswith(".help"):
            os.remove(path)
            continue
        name = page_name(dotted)
        with open(path, encoding="utf-8") as page:
            text = tidy(page.read(), name)
        os.remove(path)
        with open(os.path.join(directory, name + ".1"), "w", encoding="utf-8") as page:
            page.write(text)


main()

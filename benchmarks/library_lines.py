"""Lines of ``blocks/library`` at git revisions (issue 33 §1, "the lines in blocks/library drop by at least
1,000"), as a Markdown table: all of its ``*.py`` files, then like for like with the baseline 52d8ead,
without the files that came into the library after it (:data:`LATER`: the format work's files moved from
``blocks/``, and the SolvedGait block), and the engine core (``blocks/*.py``) beside it.

A line is what ``wc -l`` counts (a newline), of each file as ``git show REV:PATH`` prints it, so a
revision is counted as committed, whatever the working tree holds::

    python benchmarks/library_lines.py 52d8ead a2549d0 HEAD
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import PurePosixPath

__all__ = ["LATER", "count", "table"]

#: files of blocks/library that did not exist there at 52d8ead: left out of the like-for-like count
LATER = ("catalog.py", "datasets.py", "default_diagram.py", "presets.py", "settings.py", "solved_gait.py")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def count(rev: str, repo: str = ".") -> dict[str, int]:
    """``{"library", "like_for_like", "core"}`` line counts at ``rev`` (module docstring)."""
    out = {"library": 0, "like_for_like": 0, "core": 0}
    for path in _git(repo, "ls-tree", "-r", "--name-only", rev, "blocks").split():
        p = PurePosixPath(path)
        if p.suffix != ".py":
            continue
        lines = _git(repo, "show", f"{rev}:{path}").count("\n")
        if p.parent == PurePosixPath("blocks/library"):
            out["library"] += lines
            out["like_for_like"] += 0 if p.name in LATER else lines
        elif p.parent == PurePosixPath("blocks"):
            out["core"] += lines
    return out


def table(revs: list[str], repo: str = ".") -> str:
    """The Markdown table of :func:`count` for ``revs``, the first the baseline of the differences."""
    counts = [count(r, repo) for r in revs]
    base = counts[0]
    rows = [("all of `blocks/library`", "library"),
            ("like for like (without " + ", ".join(f"`{n}`" for n in LATER) + ")", "like_for_like"),
            ("the engine core, `blocks/*.py`", "core")]
    lines = ["| | " + " | ".join(revs) + " |", "|---" * (len(revs) + 1) + "|"]
    for label, key in rows:
        cells = [f"{c[key]:,}" + (f" ({c[key] - base[key]:+,})" if i else "") for i, c in enumerate(counts)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("revs", nargs="+", help="git revisions; the first is the baseline of the differences")
    ap.add_argument("--repo", default=".", help="the repository (default: the current folder)")
    args = ap.parse_args()
    print(table(args.revs, args.repo))


if __name__ == "__main__":
    main()

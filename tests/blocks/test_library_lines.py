"""``benchmarks/library_lines.py`` counts the lines of ``blocks/library`` per revision as committed, leaves
the files that came in after the baseline out of the like-for-like count, and counts the core apart."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "library_lines.py"


def _load():  # the benchmarks folder is not a package
    spec = importlib.util.spec_from_file_location("library_lines", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _commit(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"],
                   check=True)


def test_lines_per_revision_like_for_like(tmp_path: Path) -> None:
    lines = _load()
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, {"blocks/library/a.py": "1\n2\n3\n", "blocks/core.py": "1\n", "blocks/library/x.txt": "1\n"})
    _commit(tmp_path, {"blocks/library/a.py": "1\n", "blocks/library/settings.py": "1\n2\n",
                       "blocks/library/sub/b.py": "1\n"})
    (tmp_path / "blocks/library/a.py").write_text("1\n2\n3\n4\n5\n", encoding="utf-8")  # not committed: not counted
    assert lines.count("HEAD~1", str(tmp_path)) == {"library": 3, "like_for_like": 3, "core": 1}
    assert lines.count("HEAD", str(tmp_path)) == {"library": 3, "like_for_like": 1, "core": 1}
    table = lines.table(["HEAD~1", "HEAD"], str(tmp_path))
    assert "| all of `blocks/library` | 3 | 3 (+0) |" in table
    assert table.splitlines()[3].endswith("| 3 | 1 (-2) |")

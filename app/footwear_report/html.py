"""``report.html``: one self-contained page (figures embedded as PNG data, tables as HTML).

Sections: the answer (first paragraph), the trials and the tests, Figure 1 and Table 1, the
factorial (Figure 2, Table 2, its cells), the residual verdicts of every cycle, the run settings
(command, solver options, robustness variants, data files with SHA-256) and the program version.
Every string from data is escaped.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

__all__ = ["page", "table_html"]

CSS = """
body{font-family:Georgia,serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-family:Helvetica,Arial,sans-serif;font-size:12px;margin:.6em 0}
th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}th{background:#eee}
td.bad{color:#a00;font-weight:bold}p.answer{font-size:1.05em;background:#f4f7fb;padding:.8em;border-left:4px solid #36c}
figure{margin:1em 0}figure img{width:100%;max-width:1000px}figcaption{font-size:.9em;color:#444}
code{font-size:.9em}.small{font-size:.85em;color:#555}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def table_html(rows: list[list[str]], caption: str = "", table_id: str = "") -> str:
    """An HTML table of string rows (the first is the header); a cell that starts with ``failed`` or
    ``no_periodic_gait`` is marked ``class="bad"``."""
    out = [f'<table id="{_e(table_id)}">' if table_id else "<table>"]
    if caption:
        out.append(f"<caption>{_e(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{_e(c)}</th>" for c in rows[0]) + "</tr>")
    for row in rows[1:]:
        cells = []
        for c in row:
            bad = c.startswith(("failed", "no_periodic_gait", "not solved"))
            cells.append(f'<td class="bad">{_e(c)}</td>' if bad else f"<td>{_e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _img(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{data}">'


def _links(paths: list[Path]) -> str:
    return " ".join(f'<a href="{_e(p.name)}">{_e(p.suffix[1:].upper())}</a>' for p in paths)


def page(ctx: dict[str, Any]) -> str:
    """The page for a report context (:func:`app.footwear_report.report.build_report` fills it)."""
    s = ctx["settings"]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{_e(ctx['title'])}</title><style>{CSS}</style></head><body>",
             f"<h1>{_e(ctx['title'])}</h1>",
             f'<p class="answer" id="answer">{_e(ctx["answer"])}</p>',
             f'<p id="design">{_e(ctx["design"])}</p>']
    if ctx.get("problems"):
        parts.append('<p class="bad" id="problems"><b>Not in the numbers:</b> ' +
                     "; ".join(_e(p) for p in ctx["problems"]) + "</p>")
    f1 = ctx["figure"]
    parts += ["<h2>Figure 1. Posture solved from each condition's GRF</h2>",
              f"<figure>{_img(f1['png'], 'gait figure')}<figcaption>{_e(f1['caption'])} "
              f"Vector: {_links(f1['files'])}; single column (85 mm): {_links(f1['files85'])}.</figcaption></figure>",
              "<h2>Table 1. Figures per condition</h2>",
              f"<p class='small'>{_e(ctx['table_note'])} Files: <a href='table.csv'>table.csv</a>, "
              "<a href='table.md'>table.md</a>.</p>",
              table_html(ctx["table"], table_id="metrics")]
    if ctx.get("pairwise"):
        parts += ["<p class='small'>Pairwise tests (two conditions at a time; p Holm-adjusted over the pairs):</p>",
                  table_html(ctx["pairwise"], table_id="pairwise")]
    if ctx.get("effects") is not None:
        f2 = ctx["effects"]
        parts += ["<h2>Figure 2. The GRF x swing-kinematics factorial</h2>",
                  f"<figure>{_img(f2['png'], 'factorial effects')}<figcaption>{_e(f2['caption'])} "
                  f"Vector: {_links(f2['files'])}.</figcaption></figure>",
                  "<h2>Table 2. Effects, their range over the robustness variants and their verdicts</h2>",
                  table_html(ctx["factorial"], table_id="factorial"),
                  "<p class='small'>Factorial cells of the base solve (GRF of the row, swing of the column):</p>",
                  table_html(ctx["cells"], table_id="cells")]
    parts += ["<h2>Residual verdicts and solver account, every trial and cycle</h2>",
              "<p class='small'>Residual actuators at the trunk are every force the recording does not hold; "
              "verdicts after Hicks et al. 2015 (force RMS &le; 5 % of the peak GRF good, &le; 10 % acceptable; "
              "moment about the whole-body CoM &le; 1 % of peak GRF x CoM height). A failed or non-periodic solve "
              "is shown with its reason and enters no mean.</p>",
              table_html(ctx["trials"], table_id="trials"),
              "<h2>Run settings</h2>", "<table id='settings'>"]
    for k, v in s.items():
        parts.append(f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>")
    parts += ["</table>", "<h3>Data files</h3>",
              table_html([["file", "bytes", "SHA-256"], *ctx["files"]], table_id="files"),
              "<h2>References</h2><ul>" + "".join(f"<li>{_e(r)}</li>" for r in ctx["references"]) + "</ul>",
              f"<p class='small'>gaitblocks {_e(ctx['version'])}, generated {_e(ctx['date'])}.</p>",
              "</body></html>"]
    return "\n".join(parts) + "\n"

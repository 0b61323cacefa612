"""The memory plan of a program as a picture (SVG), drawn from its report.

    pteforge report --svg=plan.svg model.report.json

Three bands, each with its sizes written out:
  1. the state arena (memory id 2): every state buffer at its offset, shared (blue) or
     private (orange), numbered; the table under it names each one, its dtype and
     shape, and the methods that use it;
  2. the work arena: one bar per method (user and generated) of the memory it plans
     for its own values, against the one arena they all reuse, as large as the
     largest (methods never run at the same time);
  3. the whole: state + the largest method, which is what a pteforge Session
     allocates, against state + every method's own arena, what a loader with one arena
     per method (ExecuTorch's default) allocates.

Only the report is read (no torch or executorch), so the picture can be drawn anywhere.
"""

from __future__ import annotations

import html
from typing import Any, Mapping

_WIDTH = 960
_MARGIN = 20
_BAR = _WIDTH - 2 * _MARGIN
_LINE = 16
_SHARED, _PRIVATE, _WORK, _GENERATED, _ALL = "#4c78a8", "#f58518", "#72b7b2", "#bab0ac", "#e45756"


def size_text(n: int) -> str:
    """1234567 -> "1.2 MB" (binary units, as the report's summary)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError


class _Svg:
    """Accumulates SVG elements top to bottom."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.y = _MARGIN

    def text(self, x: float, y: float, words: str, size: int = 12, weight: str = "normal",
             anchor: str = "start", color: str = "#222") -> None:
        self.items.append(
            f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" '
            f'text-anchor="{anchor}" fill="{color}">{html.escape(words)}</text>')

    def rect(self, x: float, y: float, width: float, height: float, fill: str, title: str,
             stroke: str = "#ffffff", dashed: bool = False) -> None:
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        self.items.append(
            f'<rect x="{x:.2f}" y="{y:.1f}" width="{max(width, 0.0):.2f}" height="{height:.1f}" '
            f'fill="{fill}" stroke="{stroke}"{dash}><title>{html.escape(title)}</title></rect>')

    def heading(self, words: str) -> None:
        self.y += _LINE + 6
        self.text(_MARGIN, self.y, words, size=14, weight="bold")
        self.y += 8

    def document(self) -> str:
        height = self.y + _MARGIN
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height:.0f}" '
                f'viewBox="0 0 {_WIDTH} {height:.0f}" font-family="sans-serif">\n'
                f'<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(self.items) + "\n</svg>\n")


def _state_band(svg: _Svg, report: Mapping[str, Any]) -> None:
    state = report["state"]
    arena = report["memory"]["state_arena_bytes"]
    svg.heading(f"1. State arena: {size_text(arena)}, one copy shared by every method")
    if not state or arena == 0:
        svg.y += _LINE
        svg.text(_MARGIN, svg.y, "no state: the program keeps nothing between calls")
        return
    top, height = svg.y + 4, 34
    svg.rect(_MARGIN, top, _BAR, height, "#eeeeee", f"state arena, {arena} bytes (gaps: alignment)",
             stroke="#999999")
    for number, entry in enumerate(state, start=1):
        x = _MARGIN + _BAR * entry["offset"] / arena
        width = max(_BAR * entry["bytes"] / arena, 1.5)  # a few bytes stay visible
        color = _SHARED if entry["shared"] else _PRIVATE
        svg.rect(x, top, width, height, color, _buffer_title(entry))
        if width >= 9 * len(str(number)) + 4:
            svg.text(x + width / 2, top + height / 2 + 4, str(number), anchor="middle", color="white")
    svg.y = top + height + _LINE
    svg.text(_MARGIN, svg.y, "offset 0", size=10, color="#555")
    svg.text(_MARGIN + _BAR, svg.y, size_text(arena), size=10, anchor="end", color="#555")
    for number, entry in enumerate(state, start=1):
        svg.y += _LINE
        color = _SHARED if entry["shared"] else _PRIVATE
        svg.rect(_MARGIN, svg.y - 10, 10, 10, color, "")
        kind = "shared" if entry["shared"] else "private"
        used = ", ".join(entry["methods"]) or "no user method"
        svg.text(_MARGIN + 16, svg.y, f"{number}. {entry['name']}  ({kind}, {entry['dtype']} {entry['shape']}, "
                 f"{size_text(entry['bytes'])} at offset {entry['offset']}): {used}", size=11)


def _buffer_title(entry: Mapping[str, Any]) -> str:
    kind = "shared" if entry["shared"] else "private"
    return (f"{entry['name']}: {kind}, {entry['dtype']} {entry['shape']}, {entry['bytes']} bytes at offset "
            f"{entry['offset']}; used by {', '.join(entry['methods']) or 'no user method'}")


def _work_band(svg: _Svg, report: Mapping[str, Any]) -> None:
    methods = [(name, entry["planned_work_bytes"], False) for name, entry in report["methods"].items()]
    methods += [(name, entry["planned_work_bytes"], True) for name, entry in report["generated_methods"].items()]
    arena = report["memory"]["work_arena_bytes_shared"]
    svg.heading(f"2. Work arena: {size_text(arena)}, one arena reused by every method (the largest method's size)")
    label_width = 170
    scale = (_BAR - label_width - 70) / arena if arena else 0.0
    for name, work, generated in methods:
        svg.y += 22
        svg.text(_MARGIN, svg.y, name + (" (generated)" if generated else ""), size=11)
        x = _MARGIN + label_width
        svg.rect(x, svg.y - 13, arena * scale, 16, "none", f"the shared work arena, {arena} bytes",
                 stroke="#999999", dashed=True)
        svg.rect(x, svg.y - 13, work * scale, 16, _GENERATED if generated else _WORK,
                 f"{name} plans {work} bytes for its own values")
        svg.text(x + max(work * scale, 0) + 6, svg.y, size_text(work), size=11)


def _total_band(svg: _Svg, report: Mapping[str, Any]) -> None:
    memory = report["memory"]
    state, shared, separate = (memory["state_arena_bytes"], memory["total_planned_bytes_shared"],
                               memory["total_planned_bytes_separate"])
    svg.heading(f"3. Planned memory: {size_text(shared)} = state + the largest method, "
                f"against {size_text(separate)} with one arena per method")
    label_width = 170
    scale = (_BAR - label_width - 70) / max(separate, shared, 1)
    rows = [
        ("pteforge Session", [(state, _SHARED, "state"), (shared - state, _WORK, "one work arena")]),
        ("one arena per method", [(state, _SHARED, "state")] + [
            (entry["planned_work_bytes"], _ALL, f"{name}'s own arena")
            for name, entry in [*report["methods"].items(), *report["generated_methods"].items()]
        ]),
    ]
    for label, parts in rows:
        svg.y += 24
        svg.text(_MARGIN, svg.y, label, size=11)
        x = _MARGIN + label_width
        for nbytes, color, what in parts:
            svg.rect(x, svg.y - 14, nbytes * scale, 18, color, f"{what}: {nbytes} bytes")
            x += nbytes * scale
        svg.text(x + 6, svg.y, size_text(sum(n for n, _, _ in parts)), size=11, weight="bold")


def render(report: Mapping[str, Any]) -> str:
    """The SVG text of a report's memory plan."""
    svg = _Svg()
    svg.y += 6
    svg.text(_MARGIN, svg.y, f"{report['name']} ({report['backend']}): planned memory", size=16, weight="bold")
    svg.y += _LINE
    svg.text(_MARGIN, svg.y, f".pte {size_text(report['sizes']['pte_bytes'])}; "
             f"{len(report['methods'])} methods: {', '.join(report['methods'])}", size=11, color="#555")
    svg.y += _LINE + 2
    x = _MARGIN
    for color, words in ((_SHARED, "shared state"), (_PRIVATE, "private state"), (_WORK, "a method's values"),
                         (_GENERATED, "generated method"), (_ALL, "one arena per method")):
        svg.rect(x, svg.y - 10, 10, 10, color, words)
        svg.text(x + 14, svg.y, words, size=11)
        x += 24 + 7 * len(words)
    _state_band(svg, report)
    _work_band(svg, report)
    _total_band(svg, report)
    return svg.document()

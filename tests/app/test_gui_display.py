"""``gaitblocks gui`` without a display exits 2 with what to do, instead of Qt's abort (exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.commands.gui import XCB_LIBS, display_problem

REPO = Path(__file__).resolve().parents[2]


def test_gui_without_a_display_exits_2_and_says_what_to_do() -> None:
    """A subprocess with DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM removed: no Qt abort, no window."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-m", "app", "gui"], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("gaitblocks gui: error: no display: DISPLAY and WAYLAND_DISPLAY are unset")
    assert "gaitblocks gui --screenshot window.png" in proc.stderr
    assert "qt.qpa" not in proc.stderr and proc.stdout == ""


def test_missing_xcb_libraries_are_named_with_their_packages() -> None:
    absent = {"libxcb-cursor.so.0", "libxcb-icccm.so.4"}
    text = display_problem({"DISPLAY": ":0"}, "linux", loadable=lambda lib: lib not in absent)
    assert text is not None
    assert "the system lacks libxcb-cursor0 libxcb-icccm4 (Debian/Ubuntu: sudo apt-get install libxcb-cursor0 " \
           "libxcb-icccm4;" in text
    assert "--screenshot" in text and len(XCB_LIBS) == 12


def test_a_usable_platform_is_left_to_qt() -> None:
    everything = {"DISPLAY": ":0"}
    assert display_problem(everything, "linux", loadable=lambda lib: True) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux", loadable=lambda lib: False) is None
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux", loadable=lambda lib: False) is None
    assert display_problem({}, "darwin") is None and display_problem({}, "win32") is None
    # xcb asked for explicitly, with no X display: named, even in a Wayland session
    text = display_problem({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "w"}, "linux", loadable=lambda lib: True)
    assert text is not None and text.startswith("no display: DISPLAY is unset, so Qt cannot open a window")

"""The footwear comparison report of the solved posture (``gaitblocks compare --report DIR``; docs/footwear-report.md).

:mod:`.trials` solves, :mod:`.stats` pools and tests, :mod:`.factorial` answers, :mod:`.figures`,
:mod:`.tables` and :mod:`.html` write, :mod:`.report` runs them; :mod:`.synthetic` makes the repeats.
"""

"""Editing the diagram: canvas, palette, undo, layout and the block and gain panels."""
